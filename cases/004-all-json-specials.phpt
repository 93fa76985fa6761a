--TEST--
all JSON-special ASCII " \ / < > & ' in one string, no flags
--VALUE--
'"\\/<>&' . "'"
--EXPECT--
"\"\\\/<>&'"
