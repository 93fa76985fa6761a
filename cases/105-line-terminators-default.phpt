--TEST--
U+2028 and U+2029 are escaped by default
--VALUE--
"a\u{2028}b\u{2029}c"
--EXPECT--
"a\u2028b\u2029c"
