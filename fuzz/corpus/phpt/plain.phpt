--TEST--
plain
--INI--
precision=14
--FILE--
<?php echo 1; ?>
===DONE===
x
--EXPECT--
1
