--TEST--
empty array is [], empty object is {}
--VALUE--
[[], new stdClass, (object)[]]
--EXPECT--
[[],{},{}]
