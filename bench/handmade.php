<?php
/*
 * The hand-made method (PRODUCT.md, "The story it automates"): a PHP CLI
 * script that builds a corpus of generated json_encode() cases and prints
 * one line per case, `id flags json_last_error md5(output)`, to be run once
 * per build and compared with diff.
 *
 *   php8.2 bench/handmade.php SEED COUNT > out.txt
 *
 * The corpus is of the same kind as phpcmp's generated suite
 * (server/common/gen.c): strings and keys built from pieces covering every
 * escaping branch (JSON-special ASCII, control bytes, DEL, 2-4-byte UTF-8,
 * U+2028/U+2029, invalid UTF-8: lone continuation, truncated, overlong,
 * surrogate, above U+10FFFF), numeric strings, ints, floats (-0.0, huge,
 * tiny, NAN/INF), null/bools, lists, string-keyed arrays, stdClass,
 * instances of 40 declared classes whose properties have names with bytes
 * 0x80-0xff (some private/protected, some typed and left uninitialized),
 * JsonSerializable objects, enums, a resource; each of the 14 encode flags
 * with probability 1/4 (JSON_THROW_ON_ERROR 1/16), sometimes a small depth.
 * It is the same kind of corpus, not the same values: PHP's mt_rand is its
 * PRNG.
 */

if ($argc < 3) {
	fwrite(STDERR, "usage: php handmade.php SEED COUNT\n");
	exit(2);
}
$seed = (int)$argv[1];
$count = (int)$argv[2];
mt_srand($seed);

// ---- declared classes: 40, property names with bytes 0x80-0xff ----
$frags = ["\xc3\xa9", "\xc3\xbc", "\xc3\x98", "\xc3\xb1", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\xe2\x80\xa8",
	"\xe2\x80\xa9", "\xce\xb1", "\xd0\x96", "\xce\xb2", "\xc3\x85", "\xff", "\xfe", "\x80", "\xc3"];
$decl = '';
$classes = [];
for ($i = 0; $i < 40; $i++) {
	$name = "GenC$i";
	$type = $i < 30 ? 'plain' : ($i < 34 ? 'dynamic' : ($i < 38 ? 'jsonser' : ($i == 38 ? 'this' : 'throw')));
	$props = [];
	$np = mt_rand(1, 5);
	while (count($props) < $np) {
		$p = mt_rand(0, 5) ? $frags[mt_rand(0, count($frags) - 1)] : '_';
		$p .= mt_rand(0, 1) ? chr(mt_rand(97, 122)) : $frags[mt_rand(0, count($frags) - 1)];
		$vis = mt_rand(0, 9);
		$props[$p] = [$vis < 6 ? 'public' : ($vis < 8 ? 'protected' : 'private'), mt_rand(0, 3) == 0];
	}
	if ($type === 'jsonser') {
		$first = array_key_first($props);
		$props[$first] = ['private', false];
	}
	$src = ($type === 'dynamic' ? "#[AllowDynamicProperties]\n" : '') . "class $name" .
		($type === 'jsonser' || $type === 'this' || $type === 'throw' ? ' implements JsonSerializable' : '') . " {\n";
	foreach ($props as $p => [$vis, $typed])
		$src .= "\t$vis " . ($typed ? "mixed \$$p;\n" : "\$$p = null;\n");
	$src .= "\tpublic function __construct(array \$v = []) { foreach (\$v as \$k => \$x) \$this->\$k = \$x; }\n";
	if ($type === 'jsonser')
		$src .= "\tpublic function jsonSerialize(): mixed { return \$this->{" . var_export(array_key_first($props), true) . "}; }\n";
	elseif ($type === 'this')
		$src .= "\tpublic function jsonSerialize(): mixed { return \$this; }\n";
	elseif ($type === 'throw')
		$src .= "\tpublic function jsonSerialize(): mixed { throw new RuntimeException('$name refuses'); }\n";
	$decl .= $src . "}\n";
	$classes[] = [$name, $type, $props];
}
$decl .= "enum GenEnumS: string { case A = 'plain'; case B = \"<a href=\\\"/x\\\">&'</a>\"; case C = \"\\u{2028}\\u{e9}/\"; case D = \"\\xff\\xfe\"; }\n";
$decl .= "enum GenEnumI: int { case A = 0; case B = -1; case C = PHP_INT_MAX; }\n";
$decl .= "enum GenEnumU { case A; case B; }\n";
eval($decl);
$enums = [GenEnumS::A, GenEnumS::B, GenEnumS::C, GenEnumS::D, GenEnumI::A, GenEnumI::B, GenEnumI::C, GenEnumU::A];
$resource = fopen('php://memory', 'r');

// ---- string pieces ----
$ascii = ['id', 'name', 'value', 'a', 'b', 'x', 'key', 'data', 'type', 'items', 'Hello', 'world', '42',
	'foo bar', 'a.b', 'x-y', '_', 'CamelCase', 'snake_case', '~', '!', '#', '%', '(', ')', '*', '+', ',',
	'-', '.', ':', ';', '=', '?', '@', '[', ']', '^', '`', '{', '|', '}', ' ', '0', '1', '9', 'Z', '$'];
$text = ["Jos\u{e9} M\u{fc}ller-\u{d8}ster", "Stra\u{df}e", "\u{c5}ngstr\u{f6}m", "na\u{ef}ve caf\u{e9}",
	"\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}", "\u{65e5}\u{672c}\u{8a9e}", "https://example.org/fhir/R4/Patient/123",
	"https://example.org/a?b=1&c=2", "/usr/local/bin", "C:\\Users\\x", "<b>bold</b>", "it's", "\"quoted\"",
	"a/b", "line1\nline2", "tab\there", "\u{1f600} smile", "20 \u{20ac}", "1 < 2 && 3 > 2"];
$numeric = ['0', '1', '-1', '123', '-0', '007', '1.5', '-2.5', '1e3', '1E-3', '.5', '5.', '1.0', ' 12', '12 ',
	'0x1A', '0b11', '1_000', '+3', '1e400', '-1e400', '9223372036854775807', '9223372036854775808', '0.1',
	'1e16', '123abc', 'NAN', 'INF', '0.30000000000000004'];
$controls = ["\x00", "\x01", "\x07", "\x0b", "\x0e", "\x1b", "\x1f"];
$shortEsc = ["\x08", "\x0c", "\n", "\r", "\t"];

function utf8(int $cp): string
{
	if ($cp < 0x800)
		return chr(0xc0 | $cp >> 6) . chr(0x80 | $cp & 0x3f);
	if ($cp < 0x10000)
		return chr(0xe0 | $cp >> 12) . chr(0x80 | $cp >> 6 & 0x3f) . chr(0x80 | $cp & 0x3f);
	return chr(0xf0 | $cp >> 18) . chr(0x80 | $cp >> 12 & 0x3f) . chr(0x80 | $cp >> 6 & 0x3f) . chr(0x80 | $cp & 0x3f);
}

function piece(): string
{
	global $ascii, $text, $controls, $shortEsc;
	$w = mt_rand(0, 255);
	if ($w < 100) return $ascii[mt_rand(0, count($ascii) - 1)];
	if ($w < 110) return '"';
	if ($w < 119) return '\\';
	if ($w < 131) return '/';
	if ($w < 140) return mt_rand(0, 1) ? '<' : '>';
	if ($w < 147) return '&';
	if ($w < 154) return "'";
	if ($w < 163) return $shortEsc[mt_rand(0, 4)];
	if ($w < 169) return $controls[mt_rand(0, count($controls) - 1)];
	if ($w < 173) return "\x7f";
	if ($w < 189) return utf8(mt_rand(0x80, 0x7ff));
	if ($w < 201) { do $cp = mt_rand(0x800, 0xffff); while (($cp >= 0xd800 && $cp <= 0xdfff) || $cp == 0x2028 || $cp == 0x2029); return utf8($cp); }
	if ($w < 210) return utf8(mt_rand(0x10000, 0x10ffff));
	if ($w < 219) return mt_rand(0, 1) ? "\u{2028}" : "\u{2029}";
	if ($w < 220) return chr(mt_rand(0x80, 0xbf));                                    // lone continuation
	if ($w < 221) return substr(utf8(mt_rand(0x800, 0xffff)), 0, mt_rand(1, 2));       // truncated
	if ($w < 222) return ["\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf"][mt_rand(0, 3)]; // overlong
	if ($w < 223) return "\xed" . chr(mt_rand(0xa0, 0xbf)) . chr(mt_rand(0x80, 0xbf)); // surrogate
	if ($w < 224) return ["\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8", "\xff"][mt_rand(0, 3)]; // above U+10FFFF
	return $text[mt_rand(0, count($text) - 1)];
}

function str(bool $key = false): string
{
	global $numeric;
	$s = mt_rand(0, 99);
	if ($s < 4) return '';
	if ($s < 12) return $numeric[mt_rand(0, count($numeric) - 1)];
	if ($s < 15 && !$key) {
		$v = mt_rand(0, 4);
		if ($v == 3) return str_repeat('https://example.org/fhir/R4/Patient/123/', 5);
		$r = substr(str_repeat(md5((string)mt_rand()), 8), 0, mt_rand(150, 249));
		return $v == 1 ? '"' . substr($r, 1) : ($v == 2 ? substr($r, 0, -1) . '"' : ($v == 4 ? $r . piece() : $r));
	}
	$r = '';
	for ($n = mt_rand(1, $key ? 3 : 6); $n > 0; $n--)
		$r .= piece();
	return $r;
}

function intval_(): int
{
	switch (mt_rand(0, 11)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return -1;
	case 3: return PHP_INT_MAX;
	case 4: return PHP_INT_MIN;
	case 5: return 1 << 53;
	case 6: return (1 << 53) + 1;
	case 7: return -(1 << 31);
	case 8: return mt_rand() << 32 | mt_rand();
	case 9: return mt_rand(-2147483648, 2147483647);
	default: return mt_rand(0, 999);
	}
}

function floatval_(): float
{
	static $pool = [0.0, 1.0, 0.1, 1.5, -2.5, 3.0, 100.0, 1e15, 1e16, 1e22, 1e308, 1.7976931348623157e308,
		5e-324, 2.2250738585072014e-308, 1e-7, 123456789.12345678, 0.30000000000000004,
		9007199254740993.0, -1e-300, 0.5, 1e100, 2.5e-5];
	switch (mt_rand(0, 9)) {
	case 0: return -0.0;
	case 1: return mt_rand(0, 2) ? $pool[mt_rand(0, count($pool) - 1)] : [NAN, INF, -INF][mt_rand(0, 2)];
	case 2: case 3:
		// any mantissa, an everyday magnitude (2^-40 .. 2^40); extremes from the pool
		$f = unpack('e', pack('V2', mt_rand(), mt_rand(0, 0xfffff) | (1023 - 40 + mt_rand(0, 80)) << 20))[1];
		return mt_rand(0, 1) ? $f : -$f;
	case 4: return mt_rand(0, 1999) / 8 - 100;
	case 5: return (float)mt_rand(0, 99999);
	default: return $pool[mt_rand(0, count($pool) - 1)];
	}
}

function key_(bool $object)
{
	global $numeric;
	static $idents = ['id', 'name', 'a', 'b', 'c', 'key', 'value', 'x', '_', 'type', 'items', 'total',
		'resourceType', 'entry', 'k1', 'k2'];
	$k = mt_rand(0, 99);
	if ($k < 35) return $idents[mt_rand(0, count($idents) - 1)];
	if ($k < 47) return mt_rand(0, 2) ? mt_rand(0, 9) : intval_();
	if ($k < 57) return $numeric[mt_rand(0, 11)];
	if ($k < 61) return '';
	if ($k < 63 && $object) return "\0hidden";
	return str(true);
}

function scalar()
{
	global $enums, $resource;
	$k = mt_rand(0, 39);
	if ($k < 3) return null;
	if ($k < 5) return false;
	if ($k < 7) return true;
	if ($k < 13) return intval_();
	if ($k < 19) return floatval_();
	if ($k == 19) return $enums[[0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7][mt_rand(0, 11)]];
	if ($k < 22) return mt_rand(0, 11) ? null : $resource;
	return str();
}

function value(int $level)
{
	global $classes;
	static $pct = [0, 85, 55, 35, 18, 0];
	if (mt_rand(0, 99) >= ($pct[$level] ?? 0))
		return scalar();
	$k = mt_rand(0, 19);
	$n = mt_rand(0, 11) ? mt_rand(0, $level <= 1 ? 6 : 4) : mt_rand(6, 12);
	if ($k < 5) {
		$a = [];
		for ($i = 0; $i < $n; $i++)
			$a[] = value($level + 1);
		return $a;
	}
	if ($k < 15) {
		$object = mt_rand(0, 9) < 4;
		$a = [];
		for ($i = 0; $i < $n; $i++)
			$a[key_($object)] = value($level + 1);
		return $object ? (object)$a : $a;
	}
	[$name, $type, $props] = $classes[mt_rand(0, 39)];
	$v = [];
	$first = true;
	foreach ($props as $p => $_) {
		if (($type === 'jsonser' && $first) || mt_rand(0, 4))
			$v[$p] = value($level + 1);
		$first = false;
	}
	if ($type === 'dynamic' && mt_rand(0, 1))
		for ($i = mt_rand(1, 3); $i > 0; $i--) {
			$k = (string)key_(true);
			if ($k === '' || $k[0] === "\0" || isset($props[$k])) $k = 'dyn';
			$v[$k] = value($level + 1);
		}
	return new $name($v);
}

$out = fopen('php://stdout', 'w');
stream_set_write_buffer($out, 1 << 16);
for ($id = 0; $id < $count; $id++) {
	$flags = 0;
	foreach ([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 1048576, 2097152] as $bit)
		if (mt_rand(0, 3) == 0)
			$flags |= $bit;
	if (mt_rand(0, 15) == 0)
		$flags |= JSON_THROW_ON_ERROR;
	$depth = mt_rand(0, 7) ? 512 : mt_rand(1, 4);
	$value = value(1);
	try {
		$json = json_encode($value, $flags, $depth);
		$err = json_last_error();
	} catch (Throwable $e) {
		$json = get_class($e) . ': ' . $e->getMessage();
		$err = 'exception';
	}
	fwrite($out, "$id $flags $err " . md5($json === false ? 'false' : $json) . "\n");
}
