--TEST--
a top-level string needs no container
--VALUE--
"just a string"
--EXPECT--
"just a string"
