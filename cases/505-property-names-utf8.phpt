--TEST--
declared property names with bytes 0x80-0xff (valid UTF-8) are escaped like keys
--SETUP--
class Names {
    public $naïve = 1;
    public $日本 = 2;
    public $ünïcödé_ok = 3;
}
--VALUE--
new Names
--EXPECT--
{"na\u00efve":1,"\u65e5\u672c":2,"\u00fcn\u00efc\u00f6d\u00e9_ok":3}
