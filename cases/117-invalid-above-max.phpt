--TEST--
code point above U+10FFFF (F4 90 80 80) is JSON_ERROR_UTF8
--VALUE--
"\xF4\x90\x80\x80"
