--TEST--
every printable ASCII byte 0x20-0x7e in one string
--VALUE--
implode('', array_map('chr', range(32, 126)))
--EXPECT--
" !\"#$%&'()*+,-.\/0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
