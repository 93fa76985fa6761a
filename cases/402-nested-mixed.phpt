--TEST--
nested arrays and objects
--VALUE--
['a' => [['b' => [1, [2, [3]]]], (object)['c' => (object)[]]]]
--EXPECT--
{"a":[{"b":[1,[2,[3]]]},{"c":{}}]}
