--TEST--
an object with declared properties, pretty printed and forced objects
--FLAGS--
JSON_PRETTY_PRINT|JSON_FORCE_OBJECT
--SETUP--
class Conf {
    public $name = 'phpcmp';
    public $ports = [8080, 8081];
    public $empty = [];
    public $child;
    public function __construct() { $this->child = new stdClass; }
}
--VALUE--
new Conf
--EXPECT--
{
    "name": "phpcmp",
    "ports": {
        "0": 8080,
        "1": 8081
    },
    "empty": {},
    "child": {}
}
