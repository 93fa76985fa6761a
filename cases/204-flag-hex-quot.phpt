--TEST--
JSON_HEX_QUOT escapes " as \u0022
--FLAGS--
JSON_HEX_QUOT
--VALUE--
['k"ey' => 'say "hi"']
--EXPECT--
{"k\u0022ey":"say \u0022hi\u0022"}
