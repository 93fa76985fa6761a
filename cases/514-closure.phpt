--TEST--
a Closure has no public properties: {}
--VALUE--
fn() => 1
--EXPECT--
{}
