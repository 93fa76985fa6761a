--TEST--
overlong 2-byte encoding of '/' (C0 AF) is JSON_ERROR_UTF8
--VALUE--
"\xC0\xAF"
