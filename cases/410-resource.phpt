--TEST--
a resource is JSON_ERROR_UNSUPPORTED_TYPE
--VALUE--
[fopen('php://memory', 'r')]
