--TEST--
2-byte sequence cut short at the end is JSON_ERROR_UTF8
--VALUE--
"ab\xC3"
