--TEST--
JSON_INVALID_UTF8_SUBSTITUTE writes U+FFFD (escaped) for each invalid sequence
--FLAGS--
JSON_INVALID_UTF8_SUBSTITUTE
--VALUE--
["lone" => "a\x80b", "trunc" => "ab\xC3", "overlong" => "\xC0\xAFx", "surrogate" => "x\xED\xA0\x80y", "above" => "\xF4\x90\x80\x80z", "k\xFFey" => 1]
--EXPECT--
{"lone":"a\ufffdb","trunc":"ab\ufffd","overlong":"\ufffd\ufffdx","surrogate":"x\ufffdy","above":"\ufffdz","k\ufffdey":1}
