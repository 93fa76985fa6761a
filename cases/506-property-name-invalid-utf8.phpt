--TEST--
a dynamic property whose name is invalid UTF-8 is JSON_ERROR_UTF8
--VALUE--
$o = new stdClass;
$o->{"bad\xFFname"} = 1;
return $o;
