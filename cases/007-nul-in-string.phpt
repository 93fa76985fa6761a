--TEST--
a NUL byte inside a string becomes \u0000
--VALUE--
"a\0b"
--EXPECT--
"a\u0000b"
