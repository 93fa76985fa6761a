--TEST--
true, false and null
--VALUE--
[true, false, null]
--EXPECT--
[true,false,null]
