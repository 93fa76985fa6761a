--TEST--
3-byte UTF-8 (euro sign, CJK) is escaped as \uXXXX
--VALUE--
"€ 日本語 \u{FEFF}"
--EXPECT--
"\u20ac \u65e5\u672c\u8a9e \ufeff"
