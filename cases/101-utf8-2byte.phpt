--TEST--
2-byte UTF-8 is escaped as \uXXXX by default
--VALUE--
"José Müller-Øster ©"
--EXPECT--
"Jos\u00e9 M\u00fcller-\u00d8ster \u00a9"
