--TEST--
declared properties first, then dynamic ones; an unset declared one disappears
--SETUP--
#[AllowDynamicProperties]
class Point {
    public $x = 1;
    public $y = 2;
    public $z = 3;
}
--VALUE--
$o = new Point;
unset($o->y);
$o->extra = 'dyn';
return $o;
--EXPECT--
{"x":1,"z":3,"extra":"dyn"}
