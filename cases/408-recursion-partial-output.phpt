--TEST--
JSON_PARTIAL_OUTPUT_ON_ERROR writes null for the recursive part, JSON_ERROR_RECURSION
--FLAGS--
JSON_PARTIAL_OUTPUT_ON_ERROR
--VALUE--
$o = new stdClass;
$o->name = 'loop';
$o->self = $o;
return $o;
--EXPECT--
{"name":"loop","self":null}
