--TEST--
JSON_PRETTY_PRINT: 4-space indent, empty [] and {} stay on one line
--FLAGS--
JSON_PRETTY_PRINT
--VALUE--
['a' => 1, 'list' => [1, [2, []]], 'obj' => new stdClass, 'nested' => ['x' => ['y' => null]]]
--EXPECT--
{
    "a": 1,
    "list": [
        1,
        [
            2,
            []
        ]
    ],
    "obj": {},
    "nested": {
        "x": {
            "y": null
        }
    }
}
