--TEST--
JSON_PARTIAL_OUTPUT_ON_ERROR past the depth limit: JSON_ERROR_DEPTH, yet the whole value is written
--FLAGS--
JSON_PARTIAL_OUTPUT_ON_ERROR
--DEPTH--
2
--VALUE--
['a' => ['b' => ['c' => 1]], 'd' => 2]
--EXPECT--
{"a":{"b":{"c":1}},"d":2}
