--TEST--
invalid UTF-8 in an array key is JSON_ERROR_UTF8
--VALUE--
["ok" => 1, "k\xE9y" => 2]
