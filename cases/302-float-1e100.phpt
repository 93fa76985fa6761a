--TEST--
1e100 is written as 1.0e+100
--VALUE--
1e100
--EXPECT--
1.0e+100
