--TEST--
workload: micro_bench-style 5-key array
--MEASURE--
200
--VALUE--
['id' => 42, 'name' => 'micro_bench', 'ratio' => 0.5, 'active' => true, 'tags' => null]
--EXPECT--
{"id":42,"name":"micro_bench","ratio":0.5,"active":true,"tags":null}
