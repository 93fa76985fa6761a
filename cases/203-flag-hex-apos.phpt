--TEST--
JSON_HEX_APOS escapes ' as \u0027
--FLAGS--
JSON_HEX_APOS
--VALUE--
"it's 'quoted'"
--EXPECT--
"it\u0027s \u0027quoted\u0027"
