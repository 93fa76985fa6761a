--TEST--
JSON_FORCE_OBJECT turns lists, nested and empty, into objects
--FLAGS--
JSON_FORCE_OBJECT
--VALUE--
[1, [2, 3], [], ['a' => []]]
--EXPECT--
{"0":1,"1":{"0":2,"1":3},"2":{},"3":{"a":{}}}
