--TEST--
JSON_INVALID_UTF8_SUBSTITUTE replaces an invalid byte with \ufffd
--FLAGS--
JSON_INVALID_UTF8_SUBSTITUTE
--VALUE--
"ab\xFFcd"
--EXPECT--
"ab\ufffdcd"
