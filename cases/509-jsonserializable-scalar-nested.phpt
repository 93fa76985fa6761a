--TEST--
jsonSerialize() may return a scalar or another JsonSerializable
--SETUP--
class Wrap implements JsonSerializable {
    public function __construct(private mixed $v) {}
    public function jsonSerialize(): mixed { return $this->v; }
}
--VALUE--
['s' => new Wrap('text'), 'n' => new Wrap(new Wrap(42)), 'null' => new Wrap(null)]
--EXPECT--
{"s":"text","n":42,"null":null}
