// POST /api/runs {"suite":"phpt"}: php-src's .phpt tests on both builds
// (docs/phpt.md).  The 8.2.32 source's ext/json/tests (scripts/php-tests.sh),
// then hand-made tests for every status, section and setting rule, hostile
// tests (escapes, a CLEAN that deletes, a crash, a hang, malformed files),
// and the round trip export -> run -> PASS.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';
import { jsonTestsDir, runPhpt, servedDir, servedRoot } from './phpt-helper.mjs';

let d;
let jsonDir;
before(async () => {
	jsonDir = jsonTestsDir();
	process.env.PHPCMP_PHPT_DIR = jsonDir; // the daemon's default folder
	d = await Daemon.start({ name: 'phpt', timeoutMs: 2000, phptDirs: [servedRoot()] });
});
after(async () => { if (d) await d.stopClean(); });

// test -> {base, head, verdict, ...}
function byTest(run) {
	const m = {};
	for (const t of run.summary.tests) m[t.test.split('/').pop()] = t;
	return m;
}

test('ext/json/tests of the 8.2.32 source on both builds: 74 PASS, 2 SKIP each, no regression', async () => {
	const run = await runPhpt(d, {});
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.equal(run.total, 76);
	assert.equal(run.done, 76);
	assert.equal(run.summary.dir, fs.realpathSync(jsonDir)); // the daemon names folders resolved
	for (const role of ['base', 'head']) {
		const c = run.summary.counts[role];
		assert.equal(c.PASS, 74, `${role}: ${JSON.stringify(c)}`);
		assert.equal(c.SKIP, 2, `${role}: ${JSON.stringify(c)}`);
	}
	const t = byTest(run);
	assert.equal(Object.keys(t).length, 76);
	// No de_DE locale on the machine: run-tests.php skips the same two.
	for (const name of ['bug41403.phpt', 'bug42785.phpt']) {
		assert.equal(t[name].base.status, 'SKIP');
		assert.equal(t[name].head.status, 'SKIP');
	}
	assert.equal(t['bug41403.phpt'].base.reason, 'no de_DE locale');
	assert.deepEqual(run.summary.regressions, []);
	assert.deepEqual(run.summary.improvements, []);
	assert.equal(t['001.phpt'].name, 'json_decode() tests');
	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.equal(md.status, 200);
	assert.match(md.text, /ext\/json\/tests: 76 — base 74 passed, 2 skipped; head 74 passed, 2 skipped/);
});

// Hand-made tests: name -> [file text, status on both builds, reason pattern].
const canaryDir = tmpDir('phpcmp-phpt-canary-');
const canary = path.join(canaryDir, 'canary');
fs.writeFileSync(canary, 'still here');
const escapeTarget = path.join(canaryDir, 'written-by-a-test');

const cases = {
	'pass-file-dir.phpt': [`--TEST--
__FILE__ and __DIR__ name the copy in the private folder
--FILE--
<?php
echo basename(__FILE__), "\\n";
var_dump(__DIR__ === sys_get_temp_dir(), dirname(__FILE__) === __DIR__);
var_dump(file_get_contents(__FILE__) === file_get_contents(__FILE__));
--EXPECT--
pass-file-dir.php
bool(true)
bool(true)
bool(true)
`, 'PASS'],
	'fail-expectf.phpt': [`--TEST--
a FAIL with run-tests' diff
--FILE--
<?php
echo "line 1\\nline two\\nline 3\\n";
--EXPECTF--
line %d
line %d
line %d
`, 'FAIL'],
	'ini.phpt': [`--TEST--
--INI-- as php -d: constants evaluated, On/Off
--INI--
precision=3
error_reporting=E_ALL & ~E_DEPRECATED
html_errors=On
--FILE--
<?php
echo 1/3, "\\n", error_reporting() === (E_ALL & ~E_DEPRECATED) ? "ok" : error_reporting(), "\\n", ini_get('html_errors');
--EXPECT--
0.333
ok
1
`, 'PASS'],
	'ini-restored.phpt': [`--TEST--
settings of one test do not leak into the next
--FILE--
<?php
echo ini_get('precision'), " ", ini_get('html_errors') === '0' ? 'off' : 'on';
--EXPECT--
14 off
`, 'PASS'],
	'ini-held.phpt': [`--TEST--
open_basedir is the sandbox's
--INI--
open_basedir=/
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'SKIP', /^INI open_basedir: held by phpcmp's sandbox$/],
	'ini-startup.phpt': [`--TEST--
zend.assertions=-1 only at startup
--INI--
zend.assertions=-1
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'SKIP', /^INI zend\.assertions: PHP refuses this value after startup$/],
	'ini-extension.phpt': [`--TEST--
extension= loads at startup only
--INI--
extension=foo.so
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'SKIP', /^INI extension: loads an extension: only at startup$/],
	'skipif-skip.phpt': [`--TEST--
SKIPIF says skip
--SKIPIF--
<?php echo "skip  not here\\nsecond line";
--FILE--
<?php echo 1;
--EXPECT--
2
`, 'SKIP', /^not here$/],
	'skipif-xfail.phpt': [`--TEST--
SKIPIF says xfail
--SKIPIF--
<?php echo "xfail known bug";
--FILE--
<?php echo 1;
--EXPECT--
2
`, 'XFAIL', /known bug/],
	'xpass.phpt': [`--TEST--
an XFAIL test that passes
--XFAIL--
expected to fail
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'XPASS'],
	'skipif-bork.phpt': [`--TEST--
SKIPIF prints something else
--SKIPIF--
<?php echo "hello";
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'BORK', /^invalid output from SKIPIF: hello$/],
	'cgi.phpt': [`--TEST--
needs php-cgi
--GET--
a=1
--FILE--
<?php echo $_GET['a'];
--EXPECT--
1
`, 'SKIP', /^--GET-- needs php-cgi$/],
	'args.phpt': [`--TEST--
needs php-cli
--ARGS--
--foo
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'SKIP', /^--ARGS-- needs php-cli$/],
	'ext-missing.phpt': [`--TEST--
an extension the builds lack
--EXTENSIONS--
json
no_such_ext
--FILE--
<?php echo 1;
--EXPECT--
1
`, 'SKIP', /^Required extension missing: no_such_ext$/],
	'malformed.phpt': [`--TEST--
no expectation
--FILE--
<?php echo 1;
`, 'BORK', /^missing section --EXPECT--, --EXPECTF-- or --EXPECTREGEX--$/],
	'unknown-section.phpt': [`--TEST--
x
--FILE--
<?php echo 1;
--EXPECTED--
1
`, 'BORK', /^Unknown section "EXPECTED"$/],
	'warning.phpt': [`--TEST--
diagnostics are displayed into the output, as with display_errors=1
--FILE--
<?php
echo $nope;
echo intdiv(1, 1), "\\n";
trigger_error("mine", E_USER_DEPRECATED);
var_dump(error_get_last()['message']);
--EXPECTF--
Warning: Undefined variable $nope in %s on line %d
1

Deprecated: mine in %s on line 4
string(4) "mine"
`, 'PASS'],
	'warning2.phpt': [`--TEST--
diagnostics displayed: the path is the private copy's
--FILE--
<?php
echo $nope;
--EXPECTF--
Warning: Undefined variable $nope in %swarning2.php on line 2
`, 'PASS'],
	'fatal.phpt': [`--TEST--
a fatal error, as php-cli prints it
--FILE--
<?php
echo "before\\n";
nope();
--EXPECTF--
before

Fatal error: Uncaught Error: Call to undefined function nope() in %s:3
Stack trace:
#0 {main}
  thrown in %s on line 3
`, 'PASS'],
	'exit-shutdown.phpt': [`--TEST--
exit(), shutdown functions and destructors are all in the output
--FILE--
<?php
class D { function __destruct() { echo "destructed\\n"; } }
$d = new D;
register_shutdown_function(function () { echo "shutdown\\n"; });
ob_start();
echo "buffered\\n";
exit(3);
echo "never";
--EXPECT--
buffered
shutdown
destructed
`, 'PASS'],
	'fileeof.phpt': [`--TEST--
FILEEOF and ===DONE===
--FILEEOF--
<?php
echo "a\\n";
?>
===DONE===
ignored
--EXPECT--
a
===DONE===
`, 'PASS'],
	'escape.phpt': [`--TEST--
a FILE that tries to get out
--FILE--
<?php
var_dump(@file_put_contents(${JSON.stringify(escapeTarget)}, 'x'));
var_dump(@file_get_contents('/etc/passwd'));
var_dump(function_exists('exec') && @exec('id') !== false);
--EXPECT--
bool(false)
bool(false)
bool(false)
`, 'PASS'],
	'clean-deletes.phpt': [`--TEST--
a CLEAN that deletes
--FILE--
<?php echo "ok";
--CLEAN--
<?php
@unlink(${JSON.stringify(canary)});
@unlink(__FILE__);
?>
--EXPECT--
ok
`, 'PASS'],
	'clean-output.phpt': [`--TEST--
a CLEAN that prints: BORK once the test passes
--FILE--
<?php echo "ok";
--CLEAN--
<?php echo "oops";
--EXPECT--
ok
`, 'BORK', /^invalid output from CLEAN: oops$/],
	'nul-bytes.phpt': ['--TEST--\nNUL bytes in INI, FILE and EXPECT\n--INI--\nprecision=1\u0000 junk\n--FILE--\n<?php echo "a\u0000b", 1/3;\n--EXPECT--\na\u0000b0.3\n', 'PASS'],
	'includes.phpt': [`--TEST--
files next to the test that it names are next to its copy too
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
--FILE--
<?php
require __DIR__ . '/helper.inc';
echo helper(), " ", file_get_contents(__DIR__ . '/data.txt'), "\n";
var_dump(array_map('basename', glob(__DIR__ . '/*.txt')));
--EXPECT--
from helper.inc data
array(1) {
  [0]=>
  string(8) "data.txt"
}
`, 'PASS'],
	'clean-sees-files.phpt': [`--TEST--
CLEAN sees what FILE left (relative paths in the private folder, as in run-tests' working directory)
--FILE--
<?php
file_put_contents("relfile", "x");
var_dump(getcwd() === __DIR__, file_exists(__DIR__ . "/relfile"));
--CLEAN--
<?php
unlink("relfile");
?>
--EXPECT--
bool(true)
bool(true)
`, 'PASS'],
	'ini-then-ini_set.phpt': [`--TEST--
a setting made by --INI-- can still be changed with ini_set(), as after php -d
--INI--
precision=5
--FILE--
<?php
var_dump(ini_set('precision', '3'));
echo 1/3;
--EXPECT--
string(1) "5"
0.333
`, 'PASS'],
	'stdio.phpt': [`--TEST--
STDIN, STDOUT, STDERR as php-cli has them: stdout and stderr in the output, in order, stdin empty; resource ids as in php-cli
--FILE--
<?php
ob_start();
echo "a\n";
fwrite(STDOUT, "b\n");
fwrite(STDERR, "c\n");
ob_end_flush();
var_dump(fopen('php://memory', 'r'), fread(STDIN, 10), STDOUT);
--EXPECT--
b
c
a
resource(5) of type (stream)
string(0) ""
resource(2) of type (stream)
`, 'PASS'],
	'crash.phpt': [`--TEST--
a test that crashes the worker
--FILE--
<?php
$a = [];
for ($i = 0; $i < 200000; $i++) $a = [$a];
echo json_encode($a, 0, 1000000);
--EXPECT--
never
`, 'crash'],
	'after-crash.phpt': [`--TEST--
the next test runs normally
--FILE--
<?php echo "fine";
--EXPECT--
fine
`, 'PASS'],
	'hang.phpt': [`--TEST--
a test that never ends
--FILE--
<?php while (true);
--EXPECT--
never
`, 'timeout'],
	'zz-after-hang.phpt': [`--TEST--
the next test runs normally
--FILE--
<?php echo "fine";
--EXPECT--
fine
`, 'PASS'],
};

test('every status and section rule on hand-made tests, hostile ones in the sandbox', async () => {
	const dir = servedDir('phpcmp-phpt-');
	for (const [name, [text]] of Object.entries(cases)) fs.writeFileSync(path.join(dir, name), text);
	fs.writeFileSync(path.join(dir, 'helper.inc'), '<?php function helper() { return "from helper.inc"; }');
	fs.writeFileSync(path.join(dir, 'skipif.inc'), '<?php if (!function_exists("json_encode")) die("skip no json");');
	fs.writeFileSync(path.join(dir, 'data.txt'), 'data');
	fs.writeFileSync(path.join(dir, 'unnamed.txt'), 'not named by any test');
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.equal(run.total, Object.keys(cases).length);
	const t = byTest(run);
	for (const [name, [, status, reason]] of Object.entries(cases)) {
		for (const role of ['base', 'head']) {
			const r = t[name][role];
			assert.equal(r.status, status, `${name} on ${role}: ${JSON.stringify(r)}`);
			if (reason) assert.match(r.reason || '', reason, `${name} on ${role}`);
		}
		assert.equal(t[name].verdict, 'same', name);
	}
	// A FAIL carries run-tests' .diff (exactly what run-tests.php 8.2.32
	// writes for it, context quirks included).
	assert.equal(t['fail-expectf.phpt'].base.diff, '002+ line two\n     line %d\n003- line %d');
	// Nothing got out: the canary stands, nothing was written outside.
	assert.equal(fs.readFileSync(canary, 'utf8'), 'still here');
	assert.equal(fs.existsSync(escapeTarget), false);
	const h = await d.get('/api/health');
	assert.equal(h.status, 200);
	const c = await d.postCase({ code: '[1,2]' });
	assert.equal(c.status, 201, c.text);
	assert.equal(c.json.results.base.output, '[1,2]');
	assert.equal(c.json.results.base.printed_base64 ?? '', '');
	// report.md names the failing tests
	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.match(md.text, /base \d+ passed, 1 failed \(fail-expectf\.phpt\), \d+ skipped, 4 borked \(clean-output\.phpt, malformed\.phpt, skipif-bork\.phpt, unknown-section\.phpt\), 1 expected to fail, 1 passed though expected to fail, 1 crashed \(crash\.phpt\), 1 timed out \(hang\.phpt\); head /, md.text);
	// stored in SQLite, per test and build
	const rows = execFileSync('sqlite3', [d.db, `SELECT count(*), sum(status = 'PASS') FROM phpt_results WHERE run_id = ${run.id}`], { encoding: 'utf8' }).trim();
	const pass = Object.values(cases).filter(([, s]) => s === 'PASS').length;
	assert.equal(rows, `${2 * Object.keys(cases).length}|${2 * pass}`);
});

test('verdicts across builds: PASS on base and FAIL on head is a regression, the reverse an improvement', async () => {
	const dir = servedDir('phpcmp-phpt-verdicts-');
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	put('is-base.phpt', '--TEST--\nthe base version\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n8.2.32\n');
	put('is-head.phpt', '--TEST--\nthe head version\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n8.2.36\n');
	put('both-fail.phpt', '--TEST--\nboth fail, differently\n--FILE--\n<?php echo PHP_VERSION, "\\xff";\n--EXPECT--\nnope\n');
	put('same.phpt', '--TEST--\nsame\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n');
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done');
	const t = byTest(run);
	assert.equal(t['is-base.phpt'].verdict, 'regression');
	assert.equal(t['is-head.phpt'].verdict, 'improvement');
	assert.equal(t['both-fail.phpt'].verdict, 'differ');
	assert.equal(t['same.phpt'].verdict, 'same');
	assert.deepEqual(run.summary.regressions, ['is-base.phpt']);
	assert.deepEqual(run.summary.improvements, ['is-head.phpt']);
	assert.deepEqual(run.counts, { same: 1, differ: 3 });
	// A FAIL shows what it printed (bytes that are not UTF-8 as U+FFFD) and the diff.
	assert.equal(t['both-fail.phpt'].head.output, '8.2.36\ufffd');
	assert.equal(t['both-fail.phpt'].head.diff, '001+ 8.2.36\ufffd\n001- nope');
	assert.equal(t['is-base.phpt'].head.diff, '001+ 8.2.36\n001- 8.2.32');
	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.match(md.text, /: 4 — base 2 passed, 2 failed \(both-fail\.phpt, is-head\.phpt\); head 2 passed, \*\*2 failed\*\* \(both-fail\.phpt, is-base\.phpt\)/, md.text);
	const rows = execFileSync('sqlite3', [d.db, `SELECT test, verdict FROM phpt_tests WHERE run_id = ${run.id} ORDER BY test`], { encoding: 'utf8' }).trim();
	assert.equal(rows, 'both-fail.phpt|differ\nis-base.phpt|regression\nis-head.phpt|improvement\nsame.phpt|same');
	const out = execFileSync('sqlite3', [d.db, `SELECT hex(output) FROM phpt_results WHERE run_id = ${run.id} AND test = 'both-fail.phpt' AND role = 'head'`], { encoding: 'utf8' }).trim();
	assert.equal(out, Buffer.from('8.2.36\xff', 'latin1').toString('hex').toUpperCase());
});

test('"files": any list of .phpt paths; bad requests are 400', async () => {
	const run = await runPhpt(d, { files: [path.join(jsonDir, 'bug40503.phpt'), path.join(jsonDir, '001.phpt')] });
	assert.equal(run.status, 'done');
	assert.deepEqual(run.summary.tests.map((x) => [x.test.split('/').pop(), x.base.status, x.head.status]),
		[['bug40503.phpt', 'PASS', 'PASS'], ['001.phpt', 'PASS', 'PASS']]);
	for (const body of [{ files: [] }, { files: ['/etc/passwd'] }, { files: 'x.phpt' }, { dir: 3 },
		{ dir: jsonDir, files: ['a.phpt'] }, { nope: 1 }]) {
		const r = await d.request('POST', '/api/runs', { body: { suite: 'phpt', ...body } });
		assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
	}
	// a folder that is not there, even beneath a served one: the one refusal
	const missing = await d.request('POST', '/api/runs', { body: { suite: 'phpt', dir: path.join(servedRoot(), 'nothing-here') } });
	assert.equal(missing.status, 400, missing.text);
	assert.equal(missing.json.error.code, 'phpt_dir_not_served');
});

test('a case exported as .phpt runs in the suite and passes on the base', async () => {
	const c = await d.postCase({ code: '["a/b" => "\\u{e9}", "n" => 1.5]', flags: 'JSON_UNESCAPED_SLASHES' });
	assert.equal(c.status, 201, c.text);
	const e = await d.get(`/api/cases/${c.json.id}/phpt`);
	assert.equal(e.status, 200, e.text);
	const file = path.join(servedDir('export-'), 'exported.phpt');
	fs.writeFileSync(file, e.text);
	const run = await runPhpt(d, { files: [file] });
	assert.equal(run.status, 'done');
	assert.equal(run.summary.tests[0].base.status, 'PASS', JSON.stringify(run.summary.tests[0]));
	assert.equal(run.summary.tests[0].head.status, 'PASS');
});
