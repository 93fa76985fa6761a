--TEST--
an uninitialized typed property is skipped
--SETUP--
class Typed {
    public int $missing;
    public ?string $name = null;
    public readonly int $ro;
    public function __construct() { $this->ro = 7; }
}
--VALUE--
new Typed
--EXPECT--
{"name":null,"ro":7}
