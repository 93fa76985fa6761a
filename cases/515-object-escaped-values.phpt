--TEST--
declared string properties needing every kind of escape
--SETUP--
class Esc {
    public $quote = '"q"';
    public $slash = 'a/b';
    public $ctrl = "\t\n\x01";
    public $utf8 = 'Ø€😀';
    public $sep = "\u{2028}";
}
--VALUE--
new Esc
--EXPECT--
{"quote":"\"q\"","slash":"a\/b","ctrl":"\t\n\u0001","utf8":"\u00d8\u20ac\ud83d\ude00","sep":"\u2028"}
