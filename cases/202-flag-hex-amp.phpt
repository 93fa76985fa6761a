--TEST--
JSON_HEX_AMP escapes & as \u0026
--FLAGS--
JSON_HEX_AMP
--VALUE--
"a&b &amp; c"
--EXPECT--
"a\u0026b \u0026amp; c"
