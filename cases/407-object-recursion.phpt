--TEST--
an object containing itself is JSON_ERROR_RECURSION
--VALUE--
$o = new stdClass;
$o->self = $o;
return $o;
