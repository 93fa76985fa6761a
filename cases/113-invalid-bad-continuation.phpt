--TEST--
lead byte followed by ASCII instead of a continuation is JSON_ERROR_UTF8
--VALUE--
"\xC3\x28"
