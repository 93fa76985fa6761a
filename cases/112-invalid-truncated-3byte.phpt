--TEST--
3-byte sequence missing its last byte is JSON_ERROR_UTF8
--VALUE--
"\xE2\x82 euro"
