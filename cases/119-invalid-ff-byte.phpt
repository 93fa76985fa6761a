--TEST--
byte 0xFF never appears in UTF-8: JSON_ERROR_UTF8
--VALUE--
"\xFF"
