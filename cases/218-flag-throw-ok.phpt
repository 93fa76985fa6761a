--TEST--
JSON_THROW_ON_ERROR with nothing wrong returns the output
--FLAGS--
JSON_THROW_ON_ERROR
--VALUE--
['a' => [1, 2]]
--EXPECT--
{"a":[1,2]}
