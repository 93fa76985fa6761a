--TEST--
< > & ' pass through unescaped without JSON_HEX_* flags
--VALUE--
"<a href='x?y=1&z=2'>it's</a>"
--EXPECT--
"<a href='x?y=1&z=2'>it's<\/a>"
