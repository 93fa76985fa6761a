--TEST--
keys go through the same escaping as values
--VALUE--
["q\"uote" => 1, "</tag>" => 2, "new\nline" => 3, "tab\t" => 4, "\x01" => 5]
--EXPECT--
{"q\"uote":1,"<\/tag>":2,"new\nline":3,"tab\t":4,"\u0001":5}
