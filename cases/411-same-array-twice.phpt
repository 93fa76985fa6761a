--TEST--
the same array twice is not recursion
--VALUE--
$a = [1, 2];
return [$a, $a, 'x' => $a];
--EXPECT--
{"0":[1,2],"1":[1,2],"x":[1,2]}
