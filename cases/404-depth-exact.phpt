--TEST--
depth 3 on three levels of arrays is enough
--DEPTH--
3
--VALUE--
[[[1]]]
--EXPECT--
[[[1]]]
