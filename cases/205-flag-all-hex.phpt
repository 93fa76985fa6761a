--TEST--
all four JSON_HEX_* flags on all JSON-special ASCII
--FLAGS--
JSON_HEX_TAG|JSON_HEX_AMP|JSON_HEX_APOS|JSON_HEX_QUOT
--VALUE--
'"\\/<>&' . "'"
--EXPECT--
"\u0022\\\/\u003C\u003E\u0026\u0027"
