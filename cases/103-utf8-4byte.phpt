--TEST--
4-byte UTF-8 becomes a UTF-16 surrogate pair
--VALUE--
"😀 𝄞 \u{10FFFF}"
--EXPECT--
"\ud83d\ude00 \ud834\udd1e \udbff\udfff"
