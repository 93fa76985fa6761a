--TEST--
JSON_INVALID_UTF8_IGNORE drops each kind of invalid sequence
--FLAGS--
JSON_INVALID_UTF8_IGNORE
--VALUE--
["lone" => "a\x80b", "trunc" => "ab\xC3", "overlong" => "\xC0\xAFx", "surrogate" => "x\xED\xA0\x80y", "above" => "\xF4\x90\x80\x80z", "k\xFFey" => 1]
--EXPECT--
{"lone":"ab","trunc":"ab","overlong":"x","surrogate":"xy","above":"z","key":1}
