--TEST--
only public properties are written, private/protected are skipped
--SETUP--
class Visibility {
    public $pub = 1;
    protected $prot = 2;
    private $priv = 3;
    public $list = ['a', 'b'];
}
--VALUE--
new Visibility
--EXPECT--
{"pub":1,"list":["a","b"]}
