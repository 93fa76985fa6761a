<?php
/*
 * Validate the stored cases with a PHP CLI, independently of the daemon:
 *
 *   php8.2 scripts/check-cases.php [-v] [cases-dir-or-file ...]
 *
 * Each case runs in its own `php -n` process (like the worker: no php.ini,
 * serialize_precision=-1): setup, then the value (an expression, or
 * statements ending in `return ...;` -- told apart by a trailing ';'), then
 * json_encode(value, flags, depth).  A case passes when
 *   - its output equals --EXPECT-- byte for byte, if it has one;
 *   - a title naming JSON_ERROR_X gets exactly that error: false and
 *     json_last_error() == X, a JsonException with code X under
 *     JSON_THROW_ON_ERROR, or (with JSON_PARTIAL_OUTPUT_ON_ERROR) output
 *     and the error code;
 *   - a title saying "throws ClassName" gets that exception;
 *   - any other case returns a string with no error and no exception.
 * -v prints every result.  Exit status 0 when all pass, 1 otherwise.
 */

const SECTIONS = ['TEST', 'FLAGS', 'DEPTH', 'MEASURE', 'SETUP', 'VALUE', 'EXPECT'];
const ENCODE_FLAGS = [
    'JSON_HEX_TAG', 'JSON_HEX_AMP', 'JSON_HEX_APOS', 'JSON_HEX_QUOT',
    'JSON_FORCE_OBJECT', 'JSON_NUMERIC_CHECK', 'JSON_UNESCAPED_SLASHES',
    'JSON_PRETTY_PRINT', 'JSON_UNESCAPED_UNICODE', 'JSON_PARTIAL_OUTPUT_ON_ERROR',
    'JSON_PRESERVE_ZERO_FRACTION', 'JSON_UNESCAPED_LINE_TERMINATORS',
    'JSON_INVALID_UTF8_IGNORE', 'JSON_INVALID_UTF8_SUBSTITUTE', 'JSON_THROW_ON_ERROR',
];

function parse_case(string $text): array
{
    $sec = [];
    $cur = null;
    // The newline ending a body's last line is not part of it; between
    // sections explode() already drops it, at the end of the file do it here.
    if (str_ends_with($text, "\n")) {
        $text = substr($text, 0, -1);
    }
    foreach (explode("\n", $text) as $i => $line) {
        if (preg_match('/^--([A-Z][A-Z0-9_]*)--[ \t\r]*$/', $line, $m)) {
            if (!in_array($m[1], SECTIONS, true)) {
                throw new Exception('line ' . ($i + 1) . ": unknown section --$m[1]--");
            }
            if (isset($sec[$m[1]])) {
                throw new Exception('line ' . ($i + 1) . ": duplicate section --$m[1]--");
            }
            $cur = $m[1];
            $sec[$cur] = [];
            continue;
        }
        if ($cur === null) {
            throw new Exception('line ' . ($i + 1) . ': text before the first section');
        }
        $sec[$cur][] = $line;
    }
    foreach ($sec as $k => $lines) {
        $sec[$k] = implode("\n", $lines);
    }
    foreach (['TEST', 'VALUE'] as $k) {
        if (!isset($sec[$k])) {
            throw new Exception("missing --$k-- section");
        }
    }
    $flags = 0;
    foreach (explode('|', $sec['FLAGS'] ?? '0') as $tok) {
        $tok = trim($tok);
        if (ctype_digit($tok)) {
            $flags |= (int)$tok;
        } elseif (in_array($tok, ENCODE_FLAGS, true)) {
            $flags |= constant($tok);
        } else {
            throw new Exception("unknown flag \"$tok\"");
        }
    }
    return [
        'title' => trim($sec['TEST']),
        'flags' => $flags,
        'depth' => (int)trim($sec['DEPTH'] ?? '512'),
        'measure' => isset($sec['MEASURE']) ? (int)trim($sec['MEASURE']) : 0,
        'setup' => $sec['SETUP'] ?? '',
        'value' => $sec['VALUE'],
        'expect' => $sec['EXPECT'] ?? null,
    ];
}

function run_case(array $c, string $php): array
{
    $dir = sys_get_temp_dir() . '/check-cases.' . getmypid();
    @mkdir($dir);
    $code = rtrim($c['value']);
    $value = str_ends_with($code, ';') ? $code : "return ($code\n);";
    file_put_contents("$dir/setup.php", "<?php\n" . $c['setup'] . "\n");
    file_put_contents("$dir/value.php", "<?php\n" . $value . "\n");
    file_put_contents("$dir/main.php", '<?php
require __DIR__ . "/setup.php";
$v = require __DIR__ . "/value.php";
$out = null; $exc = null;
try {
    $out = json_encode($v, ' . $c['flags'] . ', ' . $c['depth'] . ');
} catch (Throwable $e) {
    $exc = [get_class($e), $e->getMessage(), $e->getCode()];
}
$r = ["output" => $out === false || $out === null ? $out : base64_encode($out),
      "error" => json_last_error(), "msg" => json_last_error_msg(), "exc" => $exc];
echo "\n@@RESULT@@", json_encode($r);
');
    $cmd = escapeshellarg($php) . ' -n -d serialize_precision=-1 -d memory_limit=128M'
        . ' -d error_reporting=-1 -d display_errors=1 ' . escapeshellarg("$dir/main.php") . ' 2>&1';
    $all = shell_exec($cmd) ?? '';
    foreach (['setup.php', 'value.php', 'main.php'] as $f) {
        @unlink("$dir/$f");
    }
    @rmdir($dir);
    $at = strrpos($all, "\n@@RESULT@@");
    if ($at === false) {
        return ['failed' => trim($all)];
    }
    $r = json_decode(substr($all, $at + 11), true);
    if (is_string($r['output'])) {
        $r['output'] = base64_decode($r['output']);
    }
    $r['printed'] = substr($all, 0, $at);
    return $r;
}

function check(array $c, array $r): array
{
    $bad = [];
    if (isset($r['failed'])) {
        return ["did not run: {$r['failed']}"];
    }
    if ($r['printed'] !== '') {
        $bad[] = 'printed: ' . trim($r['printed']);
    }
    $throw = ($c['flags'] & JSON_THROW_ON_ERROR) && !($c['flags'] & JSON_PARTIAL_OUTPUT_ON_ERROR);
    $partial = (bool)($c['flags'] & JSON_PARTIAL_OUTPUT_ON_ERROR);
    if (preg_match('/\b(JSON_ERROR_[A-Z0-9_]+)\b/', $c['title'], $m)) {
        $want = constant($m[1]);
        if ($throw) {
            if (!$r['exc'] || $r['exc'][0] !== 'JsonException' || $r['exc'][2] !== $want) {
                $bad[] = "expected JsonException with code $want ($m[1])";
            }
        } elseif ($r['error'] !== $want) {
            $bad[] = "expected json_last_error() $want ($m[1]), got {$r['error']}";
        } elseif (!$partial && $r['output'] !== false) {
            $bad[] = 'expected false';
        } elseif ($partial && !is_string($r['output'])) {
            $bad[] = 'expected partial output';
        }
    } elseif (preg_match('/\bthrows (\w+)/', $c['title'], $m)) {
        if (!$r['exc'] || $r['exc'][0] !== $m[1]) {
            $bad[] = "expected a $m[1]";
        }
    } else {
        if ($r['error'] !== 0 || $r['exc'] || !is_string($r['output'])) {
            $bad[] = 'unexpected failure';
        }
    }
    if ($c['expect'] !== null && $r['output'] !== $c['expect']) {
        $bad[] = 'output differs from --EXPECT--';
    }
    return $bad;
}

$verbose = false;
$paths = [];
foreach (array_slice($argv, 1) as $a) {
    if ($a === '-v') {
        $verbose = true;
    } else {
        $paths[] = $a;
    }
}
$files = [];
foreach ($paths ?: [dirname(__DIR__) . '/cases'] as $p) {
    if (is_dir($p)) {
        $it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($p, FilesystemIterator::SKIP_DOTS));
        foreach ($it as $f) {
            if (str_ends_with($f->getFilename(), '.phpt')) {
                $files[] = $f->getPathname();
            }
        }
    } else {
        $files[] = $p;
    }
}
sort($files);
$php = PHP_BINARY;
$failed = 0;
foreach ($files as $file) {
    $text = file_get_contents($file);
    try {
        $c = parse_case($text);
    } catch (Exception $e) {
        echo "FAIL $file: {$e->getMessage()}\n";
        $failed++;
        continue;
    }
    if (!preg_match('//u', $text)) {
        echo "FAIL $file: not valid UTF-8 (write bytes as \\xNN escapes)\n";
        $failed++;
        continue;
    }
    $r = run_case($c, $php);
    $bad = check($c, $r);
    echo ($bad ? 'FAIL' : 'ok  '), " $file", $bad ? ': ' . implode('; ', $bad) : '', "\n";
    if ($bad || $verbose) {
        $out = $r['output'] ?? null;
        echo '     output: ', is_string($out) ? (strlen($out) > 400 ? substr($out, 0, 400) . '...' : $out) : var_export($out, true), "\n";
        echo '     error: ', $r['error'] ?? '-', ' ', $r['msg'] ?? '', isset($r['exc']) ? ' exception: ' . implode(' / ', $r['exc']) : '', "\n";
    }
    $failed += $bad ? 1 : 0;
}
printf("%d cases, %d failed\n", count($files), $failed);
exit($failed ? 1 : 0);
