--TEST--
UTF-8-encoded surrogate U+D800 (ED A0 80) is JSON_ERROR_UTF8
--VALUE--
"\xED\xA0\x80"
