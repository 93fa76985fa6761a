--TEST--
an object property whose name starts with NUL is skipped, like a mangled private name
--VALUE--
(object)["\0a" => 1, "b" => 2]
--EXPECT--
{"b":2}
