--TEST--
lead byte 0xF5 (would be above U+10FFFF) is JSON_ERROR_UTF8
--VALUE--
"\xF5\x80\x80\x80"
