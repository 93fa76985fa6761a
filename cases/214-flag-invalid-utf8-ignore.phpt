--TEST--
JSON_INVALID_UTF8_IGNORE drops an invalid byte
--FLAGS--
JSON_INVALID_UTF8_IGNORE
--VALUE--
"ab\xFFcd"
--EXPECT--
"abcd"
