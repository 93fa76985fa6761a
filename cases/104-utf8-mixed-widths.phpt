--TEST--
1- to 4-byte UTF-8 sequences back to back, unescaped
--FLAGS--
JSON_UNESCAPED_UNICODE
--VALUE--
"aé€😀" . "\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}"
--EXPECT--
"aé€😀߿ࠀ￿𐀀"
