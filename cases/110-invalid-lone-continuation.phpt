--TEST--
lone continuation byte 0x80 is JSON_ERROR_UTF8
--VALUE--
"a\x80b"
