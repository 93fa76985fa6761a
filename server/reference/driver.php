<?php
/*
 * The reference worker's PHP side (server/reference/worker.mjs): run inside
 * a php-wasm runtime, one PHP request per message, it does what the native
 * core (server/core/core.c, request.c, gencore.c) does in C, in PHP, so the
 * answers are the same bytes: the case's setup and value compiled in the
 * global scope under the names "setup" and "value", json_encode called from
 * a function compiled as "phpcmp encoder", every diagnostic recorded as
 * "PHP <label>: <message> in <file> on line <n>", a fatal error or exit()
 * told apart from an exception.  docs/references.md says where it cannot be
 * the same.
 *
 * In:  /internal/phpcmp/in, "case\n" or "batch <first index>\n", then the
 *      message's payload (tagged fields, proto.h).
 * Out: /internal/phpcmp/out, tagged fields.  A case: its PROTO_RESULT's
 *      fields with an empty field of tag 0xFFFF where TAG_PRINTED goes (the
 *      worker puts the request's output there).  A batch: one record per
 *      case (u32 length + fields), appended case by case, so that after a
 *      fatal error the worker knows where to go on.
 *
 * Everything the driver keeps lives in namespace phpcmp\ref (its class S),
 * not in global variables; the case's code runs in the global scope, as in
 * the core.
 */

namespace phpcmp\ref;

const TAG_CODE = 10, TAG_SETUP = 11, TAG_FLAGS = 12, TAG_DEPTH = 13;
const TAG_STATUS = 20, TAG_OUTPUT = 21, TAG_ERROR_CODE = 22, TAG_ERROR_MSG = 23;
const TAG_EXC_CLASS = 24, TAG_EXC_MSG = 25, TAG_PRINTED = 26, TAG_WARNINGS = 27;
const TAG_FAILURE = 28, TAG_COMPILE_ERROR = 30, TAG_COMPILE_SECTION = 31;
const TAG_COMPILE_LINE = 32, TAG_COMPILE_COLUMN = 33;
const TAG_GEN_SETUP = 58, TAG_REF_CASES = 121;
const TAG_PRINTED_HERE = 0xFFFF;

const MAX_OUTPUT = 16777216, MAX_PRINTED = 1048576, MAX_DIAG = 65536;
const CUT_PRINTED = "\n[phpcmp: output truncated]";
const CUT_WARNINGS = "[phpcmp: diagnostics truncated]\n";
const CUT_FAILURE = "[phpcmp: truncated]\n";
const FATAL = E_ERROR | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_PARSE | E_RECOVERABLE_ERROR;
const ENCODER_SRC = "namespace phpcmp;\nfunction encode(\$value, \$flags, \$depth) {\n\treturn \\json_encode(\$value, \$flags, \$depth);\n}\n";

/** The driver's state: one object, reset for every case. */
final class S
{
	public static $mode;         // "case" | "batch"
	public static $files = [];   // eval()'d file names => "setup", "value", "phpcmp encoder"
	public static $phase;        // null, "setup", "value", "json_encode", "done"
	public static $lines = 1;    // lines of the code being run
	public static $o;            // the outcome being made
	public static $warnings, $wcut, $failure, $fcut;
	public static $batchOut;     // batch: the out file's handle
	public static $printedLevel; // batch: the ob level of the case's capture
	public static $in, $src, $ok, $value, $i, $r, $c; // the top level's
	public static $chunk;        // batch: the cases compiled at once, a closure each
}

function fields(string $p): array
{
	$f = [];
	for ($i = 0, $n = strlen($p); $i + 6 <= $n;) {
		$h = unpack('vtag/Vlen', $p, $i);
		$f[$h['tag']] ??= substr($p, $i + 6, $h['len']);
		$i += 6 + $h['len'];
	}
	return $f;
}

function int_of(array $f, int $tag, int $def): int
{
	return isset($f[$tag]) && strlen($f[$tag]) === 8 ? unpack('P', $f[$tag])[1] : $def;
}

function put(int $tag, string $bytes): string
{
	return pack('vV', $tag, strlen($bytes)) . $bytes;
}

function put_int(int $tag, int $v): string
{
	return pack('vVP', $tag, 8, $v);
}

/* request_capture_printf: one formatted message is at most 4095 bytes. */
function cap_add(string &$buf, bool &$cut, int $max, string $s): void
{
	if (strlen($buf) + strlen($s) > $max) {
		$s = substr($s, 0, $max - strlen($buf));
		$cut = true;
	}
	$buf .= $s;
}

function warn(string $line): void
{
	cap_add(S::$warnings, S::$wcut, MAX_DIAG, substr($line, 0, 4095));
}

function fail(string $line): void
{
	cap_add(S::$failure, S::$fcut, MAX_DIAG, substr($line, 0, 4095));
}

function label(int $type): string
{
	switch ($type) {
	case E_ERROR: case E_CORE_ERROR: case E_COMPILE_ERROR: case E_USER_ERROR:
		return 'Fatal error';
	case E_RECOVERABLE_ERROR:
		return 'Recoverable fatal error';
	case E_WARNING: case E_CORE_WARNING: case E_COMPILE_WARNING: case E_USER_WARNING:
		return 'Warning';
	case E_PARSE:
		return 'Parse error';
	case E_NOTICE: case E_USER_NOTICE:
		return 'Notice';
	case 2048: // E_STRICT
		return 'Strict Standards';
	case E_DEPRECATED: case E_USER_DEPRECATED:
		return 'Deprecated';
	default:
		return 'Unknown error';
	}
}

/* The core's names for the code it compiles, in a file name or a message. */
function names(?string $s): string
{
	return $s === null ? 'unknown' : strtr($s, S::$files);
}

/* The file name eval() gives code evaluated on line $line of this file. */
function eval_name(int $line): string
{
	return __FILE__ . "($line) : eval()'d code";
}

/* core_error_cb: the non-fatal ones (fatal ones end the request: shutdown()). */
function on_error(int $type, string $msg, string $file = '', int $line = 0): bool
{
	if (!($type & FATAL) && (error_reporting() & $type))
		warn('PHP ' . label($type) . ': ' . names($msg) . ' in ' . names($file) . " on line $line\n");
	/* Handled: PHP's own handler does not see a non-fatal one in the core
	 * either (no display, no error_get_last()). */
	return !($type & FATAL);
}

function outcome(): array
{
	return ['status' => 0, 'output' => null, 'error_code' => 0, 'error_msg' => null,
	        'exc_class' => '', 'exc_msg' => null, 'compile' => null];
}

function begin(): void
{
	S::$o = outcome();
	S::$warnings = S::$failure = '';
	S::$wcut = S::$fcut = false;
	S::$phase = null;
}

function prop(string $class, string $name, object $o)
{
	$p = new \ReflectionProperty($class, $name);
	if (PHP_VERSION_ID < 80100) /* from 8.1 a no-op, deprecated in 8.5 */
		$p->setAccessible(true);
	return $p->getValue($o);
}

/* take_exception(): the exception's class and message; the failure worded as PHP's. */
function take(\Throwable $e, string $where): void
{
	$o = &S::$o;
	$o['exc_class'] = substr(get_class($e), 0, 255);
	/* the properties as the core reads them, whatever a subclass did */
	$base = $e instanceof \Exception ? \Exception::class : \Error::class;
	$m = prop($base, 'message', $e);
	$o['exc_msg'] = is_string($m) ? $m : '';
	$l = prop($base, 'line', $e);
	$l = is_int($l) ? $l : 0;
	if (S::$failure === '') {
		if ($e instanceof \ParseError)
			fail("PHP Parse error: {$o['exc_msg']} in $where on line $l\n");
		else
			fail("PHP Fatal error: Uncaught {$o['exc_class']}: {$o['exc_msg']} in $where on line $l\n");
	}
}

/* ---- compiling: what the core learns from the compiler, by the tokenizer ---- */

/* The ParseError compiling $src would throw, or null (parsed, not compiled). */
function parse_error(string $src): ?\ParseError
{
	try {
		token_get_all('<?php ' . $src, TOKEN_PARSE);
		return null;
	} catch (\ParseError $e) {
		return $e;
	}
}

function at_eof(string $msg): bool
{
	return strpos($msg, 'end of file') !== false || strncmp($msg, 'Unclosed', 8) === 0;
}

/*
 * Where the scanner was when the parser gave up on $src: the lookahead
 * token's start (core.c's core_parse_error_new).  The token is the first
 * one whose prefix of $src, cut before it, does not yet fail the same way.
 */
function scan_place(string $src, \ParseError $e): array
{
	$full = '<?php ' . $src;
	$pos = strlen($full);
	if (!at_eof($e->getMessage())) {
		$starts = [];
		$off = 0;
		foreach (token_get_all($full) as $t) {
			$text = is_array($t) ? $t[1] : $t;
			/* comments too: an unterminated one is where the scanner stops */
			if (!is_array($t) || !in_array($t[0], [T_WHITESPACE, T_OPEN_TAG], true))
				$starts[] = $off;
			$off += strlen($text);
		}
		$same = function (int $cut) use ($full, $e): bool {
			try {
				token_get_all(substr($full, 0, $cut), TOKEN_PARSE);
				return false;
			} catch (\ParseError $p) {
				return $p->getMessage() === $e->getMessage() && $p->getLine() === $e->getLine();
			}
		};
		/* the smallest i whose cut before token i fails the same way: i-1 failed */
		$lo = 0;
		$hi = count($starts);
		while ($lo < $hi) {
			$mid = intdiv($lo + $hi, 2);
			if ($same($starts[$mid]))
				$hi = $mid;
			else
				$lo = $mid + 1;
		}
		if ($lo >= 1)
			$pos = $starts[$lo - 1];
	}
	$pos -= 6;
	$before = substr($src, 0, max(0, $pos));
	$line = 1 + substr_count($before, "\n");
	$bol = strrpos($before, "\n");
	return [$line, $pos - ($bol === false ? 0 : $bol + 1) + 1];
}

function user_column(array $place, int $line, int $prefix): int
{
	[$sl, $sc] = $place;
	if ($sl !== $line || $sc <= 0)
		return 0;
	$col = $sc - ($line === 1 ? $prefix : 0);
	return $col >= 1 ? $col : 1;
}

function end_column(string $code): int
{
	$nl = strrpos($code, "\n");
	return strlen($code) - ($nl === false ? 0 : $nl + 1) + 1;
}

function compile_error(string $name, string $msg, int $line, int $column): void
{
	$msg = substr($msg, 0, 1023);
	S::$o['compile'] = [$msg, $name, $line, $column];
	S::$failure = '';
	S::$fcut = false;
	fail("PHP Parse error: $msg in $name on line $line\n");
}

/* parse_error_map(): the ParseError against the user's own lines and columns. */
function parse_error_map(string $code, string $src, string $name, int $prefix, \ParseError $e): void
{
	$msg = substr($e->getMessage(), 0, 1023);
	$line = $e->getLine();
	if ($line >= 1 && $line <= S::$lines) {
		compile_error($name, $msg, $line, user_column(scan_place($src, $e), $line, $prefix));
		return;
	}
	$src2 = 'return ' . $code;
	$e2 = parse_error($src2);
	if ($e2 !== null && $e2->getLine() >= 1 && $e2->getLine() <= S::$lines) {
		$msg2 = substr($e2->getMessage(), 0, 1023);
		$col = user_column(scan_place($src2, $e2), $e2->getLine(), 7);
		if ($col === 0 && $e2->getLine() === S::$lines && at_eof($msg2))
			$col = end_column($code);
		compile_error($name, $msg2, $e2->getLine(), $col);
		return;
	}
	compile_error($name, $msg, S::$lines, end_column($code));
}

/* has_way_out(): a return, throw or exit of the top-level code itself
 * (not of a function, closure or class it declares). */
function has_way_out(string $src): bool
{
	$depth = 0;
	$nested = [];   // brace depths that open a nested op_array
	$pending = false;
	$prev = null;
	$enum = defined('T_ENUM') ? T_ENUM : -1;
	foreach (token_get_all('<?php ' . $src) as $t) {
		$id = is_array($t) ? $t[0] : $t;
		if ($id === T_WHITESPACE || $id === T_COMMENT || $id === T_DOC_COMMENT)
			continue;
		if ($id === T_FUNCTION || (in_array($id, [T_CLASS, T_INTERFACE, T_TRAIT, $enum], true) && $prev !== T_DOUBLE_COLON))
			$pending = true;
		elseif ($id === '{' || $id === T_CURLY_OPEN || $id === T_DOLLAR_OPEN_CURLY_BRACES) {
			$depth++;
			if ($pending)
				$nested[] = $depth;
			$pending = false;
		} elseif ($id === '}') {
			if ($nested && end($nested) === $depth)
				array_pop($nested);
			$depth--;
		} elseif (!$nested && ($id === T_RETURN || $id === T_THROW || $id === T_EXIT))
			return true;
		$prev = $id;
	}
	return false;
}

/*
 * run_code() up to the compile: the source to eval, or null when it does
 * not compile (the outcome says why).  Value code not ending in ';' is an
 * expression, wrapped as `return (expr);`.
 */
function source(string $code, string $name, bool $statements, bool $check): ?string
{
	$code = rtrim($code, " \t\r\n");
	$value_statements = !$statements && $code !== '' && substr($code, -1) === ';';
	$statements = $statements || $value_statements;
	S::$lines = 1 + substr_count($code, "\n");
	$prefix = $statements ? 0 : 8;
	$src = $statements ? $code : "return ($code\n);";
	if ($check) {
		$e = parse_error($src);
		if ($e !== null) {
			parse_error_map($code, $src, $name, $prefix, $e);
			S::$o['exc_class'] = 'ParseError';
			S::$o['exc_msg'] = S::$o['compile'][0];
			S::$o['status'] = 1;
			return null;
		}
	}
	if ($value_statements && !has_way_out($src)) {
		compile_error($name, 'no return: the value\'s statements end without `return EXPR;`, so json_encode would '
		    . 'encode null (return the value, or write an expression with no `;` at the end)', S::$lines, 0);
		S::$failure = '';
		fail("phpcmp: $name: " . S::$o['compile'][0] . "\n");
		S::$o['status'] = 1;
		return null;
	}
	S::$phase = $name;
	return $src;
}

/* The code ran, or threw (recorded): false stops the case. */
function ran(?\Throwable $e, string $name): bool
{
	if ($e === null)
		return true;
	take($e, $name);
	S::$o['status'] = 1;
	return false;
}

/* request_encoder_declare(): phpcmp\encode, compiled as "phpcmp encoder". */
function encoder(): void
{
	if (function_exists('phpcmp\encode'))
		return;
	S::$files[eval_name(__LINE__ + 1)] = 'phpcmp encoder';
	eval(ENCODER_SRC);
}

/* After json_encode returned or threw. */
function encoded($out, ?\Throwable $e): void
{
	$o = &S::$o;
	$o['error_code'] = json_last_error();
	$o['output'] = $out;
	if ($e !== null)
		take($e, 'json_encode');
	$o['error_msg'] = json_last_error_msg();
	S::$phase = 'done';
}

/* A batch case's value made (S::$ok): json_encode it with the case's flags and depth. */
function encode_value(): void
{
	if (S::$ok) {
		S::$phase = 'encoding';
		try {
			encoded(\phpcmp\encode(S::$value, S::$c['flags'], S::$c['depth']), null);
		} catch (\Throwable $e) {
			encoded(null, $e);
			unset($e); /* before the value goes: its destructors run in this order natively */
		}
	}
	S::$value = null;
}

/* ---- the answer ---- */

function emit_capture(int $tag, string $s, bool $cut, string $note): string
{
	return put($tag, $cut ? $s . $note : $s);
}

/* The PROTO_RESULT fields, $printed where TAG_PRINTED goes (null: the marker). */
function result(?string $printed = null, bool $pcut = false): string
{
	$o = &S::$o;
	if ($o['status'] === 0 && is_string($o['output']) && strlen($o['output']) > MAX_OUTPUT) {
		fail(sprintf("json_encode output too large to keep (%d bytes, md5 %s, over the %u byte limit)\n",
		    strlen($o['output']), md5($o['output']), MAX_OUTPUT));
		$o['status'] = 1;
	}
	$r = put_int(TAG_STATUS, $o['status']);
	if ($o['status'] === 0 && is_string($o['output']))
		$r .= put(TAG_OUTPUT, $o['output']);
	$r .= put_int(TAG_ERROR_CODE, $o['error_code']);
	if ($o['error_msg'] !== null)
		$r .= put(TAG_ERROR_MSG, $o['error_msg']);
	if ($o['exc_class'] !== '') {
		$r .= put(TAG_EXC_CLASS, $o['exc_class']);
		if ($o['exc_msg'] !== null)
			$r .= put(TAG_EXC_MSG, $o['exc_msg']);
	}
	$r .= $printed === null ? put(TAG_PRINTED_HERE, '') : emit_capture(TAG_PRINTED, $printed, $pcut, CUT_PRINTED);
	$r .= emit_capture(TAG_WARNINGS, S::$warnings, S::$wcut, CUT_WARNINGS);
	if ($o['status'] !== 0)
		$r .= emit_capture(TAG_FAILURE, S::$failure, S::$fcut, CUT_FAILURE);
	if ($o['compile'] !== null) {
		[$msg, $where, $line, $col] = $o['compile'];
		$r .= put(TAG_COMPILE_ERROR, $msg) . put(TAG_COMPILE_SECTION, $where)
		    . put_int(TAG_COMPILE_LINE, $line) . put_int(TAG_COMPILE_COLUMN, $col);
	}
	return $r;
}

/*
 * The request ended before the driver did: a fatal error (bailout) or
 * exit().  Shutdown functions still run, this one first.
 */
function shutdown(): void
{
	/* null: between cases; a fatal error compiling a batch's chunk: the
	 * worker runs the batch again case by case */
	if (S::$phase === null || S::$phase === 'finished' || S::$phase === 'chunk')
		return;
	ini_set('memory_limit', '-1'); /* a memory-limit fatal: room to answer */
	$err = error_get_last();
	$o = &S::$o;
	if ($err !== null && ($err['type'] & FATAL)) {
		$file = names($err['file']);
		$msg = names($err['message']);
		if ($err['type'] === E_COMPILE_ERROR && (S::$phase === 'setup' || S::$phase === 'value')
		    && $file === S::$phase && $o['compile'] === null) {
			/* core_error_cb while compiling the case's own code */
			$line = $err['line'] >= 1 && $err['line'] <= S::$lines ? $err['line'] : S::$lines;
			$o['compile'] = [substr($msg, 0, 1023), S::$phase, $line, 0];
			S::$failure = '';
			fail('PHP Fatal error: ' . $o['compile'][0] . ' in ' . S::$phase . " on line $line\n");
		}
		fail('PHP ' . label($err['type']) . ": $msg in $file on line {$err['line']}\n");
		$o['status'] = 1;
		$o['output'] = null;
		$o['error_msg'] = $o['exc_msg'] = null;
		if (S::$mode === 'batch') {
			$o['exc_class'] = '';
			$o['error_code'] = 0;
		}
	} else {
		/* exit(): the core's take_exception() of an unwind_exit */
		$where = S::$phase === 'done' ? 'json_encode' : S::$phase;
		if ($where === 'json_encode' || $where === 'encoding') {
			$where = 'json_encode';
			$o['error_code'] = json_last_error();
			$o['error_msg'] = json_last_error_msg();
		}
		if (S::$failure === '')
			fail("exit() called in $where\n");
		$o['status'] = 1;
		$o['output'] = null;
	}
	if (S::$mode === 'batch') {
		$printed = '';
		while (ob_get_level() >= S::$printedLevel && ob_get_level() > 0)
			$printed = ob_get_clean() . $printed;
		batch_record(result(substr($printed, 0, MAX_PRINTED), strlen($printed) > MAX_PRINTED));
	} else {
		case_end();
	}
}

/* A case's end: its buffers flushed into the output (php_output_end_all),
 * the answer written, and what the request prints from now on dropped. */
function case_end(): void
{
	while (ob_get_level() > 0 && @ob_end_flush())
		;
	file_put_contents('/internal/phpcmp/out', result());
	S::$phase = 'finished';
	ob_start(function () { return ''; }, 0, 0);
}

function batch_record(string $r): void
{
	fwrite(S::$batchOut, pack('V', strlen($r)) . $r);
}

/* ---- the request ---- */

function start(): array
{
	$in = file_get_contents('/internal/phpcmp/in');
	$nl = strpos($in, "\n");
	$head = explode(' ', substr($in, 0, $nl));
	S::$mode = $head[0];
	register_shutdown_function('phpcmp\ref\shutdown');
	set_error_handler('phpcmp\ref\on_error');
	begin();
	$f = fields(substr($in, $nl + 1));
	if (S::$mode === 'batch') {
		S::$batchOut = fopen('/internal/phpcmp/out', 'ab');
		$cases = [];
		$rc = $f[TAG_REF_CASES] ?? '';
		for ($i = 0, $n = strlen($rc); $i + 4 <= $n;) {
			$len = unpack('V', $rc, $i)[1];
			$cases[] = substr($rc, $i + 4, $len);
			$i += 4 + $len;
		}
		return ['setup' => $f[TAG_GEN_SETUP] ?? '', 'cases' => $cases, 'first' => (int)$head[1],
		        'chunk' => ($head[2] ?? '') === 'chunk'];
	}
	return ['setup' => $f[TAG_SETUP] ?? '', 'code' => $f[TAG_CODE] ?? 'null',
	        'flags' => int_of($f, TAG_FLAGS, 0), 'depth' => int_of($f, TAG_DEPTH, 512)];
}

/* A batch case: its fields; the json state as a fresh request has it. */
function batch_case(string $rec): array
{
	$f = fields($rec);
	begin();
	json_encode(null); /* json_last_error() 0 again */
	S::$printedLevel = ob_get_level() + 1;
	ob_start();
	return ['code' => $f[TAG_CODE] ?? 'null', 'flags' => int_of($f, TAG_FLAGS, 0), 'depth' => int_of($f, TAG_DEPTH, 512)];
}

function batch_case_end(): void
{
	$printed = '';
	while (ob_get_level() >= S::$printedLevel)
		$printed = ob_get_clean() . $printed;
	S::$phase = null;
	batch_record(result(substr($printed, 0, MAX_PRINTED), strlen($printed) > MAX_PRINTED));
}

/* A batch's cases from $first as one source returning a closure per case
 * (index => closure): an expression returned, statements run as they are. */
function chunk_source(array $cases, int $first): string
{
	$src = "return [\n";
	for ($i = $first, $n = count($cases); $i < $n; $i++) {
		$code = rtrim(fields($cases[$i])[TAG_CODE] ?? 'null', " \t\r\n");
		$body = $code !== '' && substr($code, -1) === ';' ? $code : "return ($code\n);";
		$src .= "$i => static function () { $body\n},\n";
	}
	return $src . "];\n";
}

/* The generator's classes, once per request; a failure is every case's. */
function batch_setup_failed(): bool
{
	if (S::$o['status'] === 0)
		return false;
	S::$phase = 'finished';
	return true;
}

/*
 * The top level: the case's code is eval()'d here, in the global scope, as
 * the core runs it, with no variable of the driver's in that scope (the
 * driver's state is in S).  Each eval() is on a line of its own so that its
 * file name maps back to "setup" or "value".
 */
S::$in = start();
if (S::$mode === 'case') {
	if (S::$in['setup'] !== '' && (S::$src = source(S::$in['setup'], 'setup', true, true)) !== null) {
		S::$files[eval_name(__LINE__ + 2)] = 'setup';
		try {
			eval(S::$src);
			S::$ok = ran(null, 'setup');
		} catch (\Throwable $__phpcmp_e) {
			S::$ok = ran($__phpcmp_e, 'setup');
			unset($__phpcmp_e);
		}
	} else {
		S::$ok = S::$o['status'] === 0;
	}
	if (S::$ok && (S::$src = source(S::$in['code'], 'value', false, true)) !== null) {
		S::$files[eval_name(__LINE__ + 2)] = 'value';
		try {
			S::$value = eval(S::$src);
			S::$ok = ran(null, 'value');
		} catch (\Throwable $__phpcmp_e) {
			S::$ok = ran($__phpcmp_e, 'value');
			unset($__phpcmp_e);
		}
		if (S::$ok) {
			encoder();
			S::$phase = 'encoding';
			try {
				encoded(\phpcmp\encode(S::$value, S::$in['flags'], S::$in['depth']), null);
			} catch (\Throwable $__phpcmp_e) {
				encoded(null, $__phpcmp_e);
				unset($__phpcmp_e);
			}
		}
		S::$value = null; /* its destructors run now, as in the core */
	}
	case_end();
} else {
	if (S::$in['setup'] !== '' && (S::$src = source(S::$in['setup'], 'setup', true, false)) !== null) {
		S::$files[eval_name(__LINE__ + 2)] = 'setup';
		try {
			eval(S::$src);
		} catch (\Throwable $__phpcmp_e) {
			ran($__phpcmp_e, 'setup');
			unset($__phpcmp_e);
		}
	}
	if (batch_setup_failed()) {
		S::$r = result('');
		for (S::$i = S::$in['first']; S::$i < count(S::$in['cases']); S::$i++)
			batch_record(S::$r);
	} else {
		encoder();
		/* All the cases compiled at once, a closure each: compiling is most
		 * of a small case's time, and one compile of many is far cheaper
		 * than many.  Should the lot not compile, each case on its own. */
		if (S::$in['chunk']) {
			S::$phase = 'chunk';
			S::$src = chunk_source(S::$in['cases'], S::$in['first']);
			try {
				S::$chunk = eval(S::$src);
			} catch (\Throwable $__phpcmp_e) {
				S::$chunk = null;
				unset($__phpcmp_e);
			}
			S::$phase = null;
		}
		for (S::$i = S::$in['first']; S::$i < count(S::$in['cases']); S::$i++) {
			S::$c = batch_case(S::$in['cases'][S::$i]);
			if (S::$chunk !== null) {
				S::$phase = 'value';
				try {
					S::$value = (S::$chunk[S::$i])();
					S::$ok = ran(null, 'value');
				} catch (\Throwable $__phpcmp_e) {
					S::$ok = ran($__phpcmp_e, 'value');
					unset($__phpcmp_e);
				}
				encode_value();
			} elseif ((S::$src = source(S::$c['code'], 'value', false, false)) !== null) {
				S::$files[eval_name(__LINE__ + 2)] = 'value';
				try {
					S::$value = eval(S::$src);
					S::$ok = ran(null, 'value');
				} catch (\Throwable $__phpcmp_e) {
					S::$ok = ran($__phpcmp_e, 'value');
					unset($__phpcmp_e);
				}
				encode_value();
			}
			batch_case_end();
		}
	}
	S::$phase = 'finished';
	fclose(S::$batchOut);
}
