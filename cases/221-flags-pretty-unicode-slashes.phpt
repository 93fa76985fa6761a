--TEST--
common API combination: pretty, unescaped unicode and slashes
--FLAGS--
JSON_PRETTY_PRINT|JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_SLASHES
--VALUE--
['name' => 'José', 'url' => 'https://example.org/fhir/R4/Patient/1', 'tags' => ['a', 'b']]
--EXPECT--
{
    "name": "José",
    "url": "https://example.org/fhir/R4/Patient/1",
    "tags": [
        "a",
        "b"
    ]
}
