--TEST--
expectf
--FILEEOF--
<?php
echo "a 1 b\r\n";

--EXPECTF--
%s %d %r[a-z]+%r
%A
--CLEAN--
<?php
