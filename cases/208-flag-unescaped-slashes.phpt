--TEST--
JSON_UNESCAPED_SLASHES writes / raw
--FLAGS--
JSON_UNESCAPED_SLASHES
--VALUE--
['url' => 'https://example.org/a/b', 'k/ey' => '</x>']
--EXPECT--
{"url":"https://example.org/a/b","k/ey":"</x>"}
