--TEST--
workload: micro_bench-style JsonObj, an object with a few declared properties
--MEASURE--
200
--SETUP--
class JsonObj {
    public $id = 42;
    public $name = 'micro_bench';
    public $ratio = 0.5;
    public $active = true;
    public $tags = null;
}
--VALUE--
new JsonObj
--EXPECT--
{"id":42,"name":"micro_bench","ratio":0.5,"active":true,"tags":null}
