<?php
/*
 * The hand method as lean as a careful reviewer writes it (PRODUCT.md, "The
 * story it automates"): mt_srand, a few dozen string pieces covering every
 * escaping branch, nested values, declared classes whose property names use
 * bytes 0x80-0xff (some protected/private), random combinations of the
 * encode flags, and one `id flags json_last_error md5(output)` line per
 * case, to be diffed between builds.
 *
 *   php -n bench/lean.php SEED COUNT > out.txt
 *
 * Leaner than bench/handmade.php (which mirrors phpcmp's generator piece by
 * piece): fewer decisions per value, no enums/resources/JsonSerializable,
 * output written in 64 KB chunks.  The same kind of corpus, not the same
 * values (mt_rand is its PRNG).
 */
[, $seed, $count] = $argv + [null, 1, 1000];
mt_srand((int)$seed);

// Pieces: JSON-special ASCII, short escapes, other control bytes, DEL,
// 2-4-byte UTF-8, U+2028/U+2029, invalid UTF-8 (lone continuation,
// truncated, overlong, surrogate, above U+10FFFF), plain words.
$W = ['a', 'id', 'name', 'value', 'x y', 'Hello', 'world', '42', '1.5', '', 'https://example.org/a?b=1&c=2',
	'Jos\u{e9} M\u{fc}ller', 'line1 line2', '_', 'CamelCase'];
$P = ['"', '\\', '/', '<', '>', '&', "'", "\x08", "\x0c", "\n", "\r", "\t", "\x00", "\x01", "\x1b",
	"\x1e", "\x1f", "\x7f", "\u{e9}", "\u{fc}", "\u{416}", "\u{65e5}\u{672c}", "\u{20ac}", "\u{1f600}",
	"\u{10ffff}", "\u{2028}", "\u{2029}"];
$B = ["\x80", "\xbf", "\xc3", "\xe6\x97", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff"];
$NW = count($W) - 1;
$NP = count($P) - 1;
$NB = count($B) - 1;

class K0 { public function __construct(public $é = null, protected $ü = null, public $_x = null) {} }
class K1 { public function __construct(public $ñ = null, private $日 = null) {} }
class K2 { public function __construct(public $α = null, public $β = null, protected $γ = null) {} }
class K3 { public function __construct(private $Ø = null, public $a = null) {} }
#[AllowDynamicProperties] class K4 { public $é = 1; }

$F = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 1048576, 2097152];
$D = [0.0, -0.0, 0.1, 1.0, 1.5, 2.5, -3.75, 100.0, 1e15, 1e16, 1e22, 1e308, 5e-324, 1e-7, 0.30000000000000004,
	123456789.125, -1e-300, 9007199254740993.0, 0.5, 1e100, 2.2250738585072014e-308, 12.0, NAN, INF, -INF];

function s()
{
	global $W, $P, $B, $NW, $NP, $NB;
	$s = '';
	for ($n = mt_rand(1, 6); $n > 0; $n--) {
		$r = mt_rand(0, 63);
		$s .= $r < 32 ? $W[$r % 15] : ($r < 62 ? $P[mt_rand(0, $NP)] : $B[mt_rand(0, $NB)]);
	}
	return $s;
}

function v($d)
{
	global $D;
	$r = $d == 0 ? mt_rand(6, 9) : ($d > 3 ? mt_rand(0, 5) : mt_rand(0, 9 - $d));
	switch ($r) {
	case 0: return mt_rand(-1000, 1000);
	case 1: return $D[mt_rand(0, 24)];
	case 2: return [null, true, false, PHP_INT_MAX, PHP_INT_MIN][mt_rand(0, 4)];
	case 3: case 4: case 5: return s();
	case 6:
		$a = [];
		for ($n = mt_rand(0, 6); $n > 0; $n--) $a[] = v($d + 1);
		return $a;
	case 7:
		$a = [];
		for ($n = mt_rand(0, 6); $n > 0; $n--) $a[s()] = v($d + 1);
		return mt_rand(0, 1) ? $a : (object)$a;
	default:
		switch (mt_rand(0, 4)) {
		case 0: return new K0(v($d + 1), v($d + 1), v($d + 1));
		case 1: return new K1(v($d + 1), v($d + 1));
		case 2: return new K2(v($d + 1), v($d + 1), v($d + 1));
		case 3: return new K3(v($d + 1), v($d + 1));
		default: $o = new K4; $o->{'d' . s()} = v($d + 1); return $o;
		}
	}
}

$out = '';
for ($i = 0; $i < $count; $i++) {
	$f = 0;
	foreach ($F as $b)
		if (mt_rand(0, 3) == 0) $f |= $b;
	$j = @json_encode(v(0), $f);
	$out .= "$i $f " . json_last_error() . ' ' . md5($j === false ? 'false' : $j) . "\n";
	if (strlen($out) > 65536) {
		echo $out;
		$out = '';
	}
}
echo $out;
