--TEST--
DEL (0x7f) is not a control byte for JSON and passes through raw
--VALUE--
["\x7f", "a\x7fb"]
--EXPECT--
["","ab"]
