--TEST--
--TEST--
--FILE--
--FILE--
x
--FILE--
