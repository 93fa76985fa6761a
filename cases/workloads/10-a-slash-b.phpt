--TEST--
workload: 100 x 'a/b'
--MEASURE--
200
--VALUE--
array_fill(0, 100, 'a/b')
--EXPECT--
["a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b","a\/b"]
