--TEST--
a slash is escaped as \/ by default
--VALUE--
'a/b </c> //'
--EXPECT--
"a\/b <\/c> \/\/"
