--TEST--
regex
--SKIPIF--
<?php echo "skip";
--FILE--
1
--EXPECTREGEX--
(a|b)*\d
--XFAIL--
why
