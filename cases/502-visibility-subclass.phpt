--TEST--
a subclass: inherited and own public properties, in declaration order
--SETUP--
class Base {
    public $a = 'base';
    private $hidden = 'x';
    protected $b = 'prot';
}
class Child extends Base {
    public $c = 'child';
    private $d = 'priv';
}
--VALUE--
new Child
--EXPECT--
{"a":"base","c":"child"}
