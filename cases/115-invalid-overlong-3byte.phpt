--TEST--
overlong 3-byte encoding (E0 80 AF) is JSON_ERROR_UTF8
--VALUE--
"\xE0\x80\xAF"
