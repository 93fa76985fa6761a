--TEST--
JSON_NUMERIC_CHECK encodes numeric strings as numbers
--FLAGS--
JSON_NUMERIC_CHECK
--VALUE--
["12", "-3", "1.5", "1e3", " 7", "7 ", "0x1A", "abc", "", "1e400", "00012"]
--EXPECT--
[12,-3,1.5,1000,7,7,"0x1A","abc","","1e400",12]
