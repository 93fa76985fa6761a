--TEST--
a list stays an array; gaps or string keys make an object
--VALUE--
['list' => [1, 2], 'gap' => [0 => 'a', 2 => 'b'], 'offset' => [1 => 'a'], 'numeric_strings' => ["0" => 'x', "1" => 'y'], 'neg' => [-1 => 'z']]
--EXPECT--
{"list":[1,2],"gap":{"0":"a","2":"b"},"offset":{"1":"a"},"numeric_strings":["x","y"],"neg":{"-1":"z"}}
