--TEST--
depth 2 on three levels of arrays is JSON_ERROR_DEPTH
--DEPTH--
2
--VALUE--
[[[1]]]
