--TEST--
a bit json_encode doesn't define (1<<23) is ignored
--FLAGS--
JSON_PRETTY_PRINT|8388608
--VALUE--
['a' => '/']
--EXPECT--
{
    "a": "\/"
}
