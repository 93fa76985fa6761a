// Issue 9: a .phpt export never turns data into code.  Every stored case,
// 1,000 generated cases and hostile ones (section names in code, strings,
// setup, printed output, exception messages, titles; ===DONE===; CRs,
// tabs, the nowdoc's own marker) are exported and read with run-tests.php's
// own section grammar (phpt-grammar.mjs): exactly the expected sections,
// every time.  The daemon runs with the builds swapped, so the base (whose
// output the .phpt expects) is 8.2.36, the version of the machine's
// php8.2-cli, and each export is run under php-src's run-tests.php with
// that CLI: every one PASSes, and no hostile --CLEAN-- ever runs.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, INSTRUMENTED, tmpDir } from './helper.mjs';
import { parsePhpt } from './phpt-grammar.mjs';

const PHP_CLI = process.env.PHPCMP_PHP_CLI || '/usr/bin/php8.2';
const RUN_TESTS = path.join(BUILDS, 'head/usr/lib/php/20220829/build/run-tests.php');
const cliVersion = (() => {
	try { return execFileSync(PHP_CLI, ['-n', '-r', 'echo PHP_VERSION;']).toString(); } catch { return null; }
})();

let d, dir;
const PWNED = path.join(tmpDir('phpcmp-pwned-'), 'pwned');
const exported = []; // [{name, text}]

before(async () => {
	d = await Daemon.start({ name: 'export-safe', builds: { base: path.join(BUILDS, 'head'), head: path.join(BUILDS, 'base') } });
	dir = tmpDir('phpcmp-phpt-');
});
after(async () => {
	await d?.stopClean();
	if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function expectedOrder(text) {
	const order = ['TEST', 'DESCRIPTION', 'EXTENSIONS'];
	if (/\n--INI--\n/.test(text)) order.push('INI');
	order.push('FILE', /\n--EXPECTF--\n/.test(text) ? 'EXPECTF' : 'EXPECT');
	return order;
}

async function exportCase(id, name) {
	const r = await d.get(`/api/cases/${id}/phpt`);
	if (r.status === 409) return null; // base did not give ok: nothing to expect
	assert.equal(r.status, 200, `${name}: ${r.text.slice(0, 300)}`);
	const { order, sections } = parsePhpt(r.raw);
	const text = r.raw.toString('latin1');
	// Only the headers the exporter writes, at the start of their lines.
	const written = (text.match(/^--[_A-Z]+--/gm) || []).map((h) => h.slice(2, -2));
	assert.deepEqual(order, ['TEST', 'DESCRIPTION', 'EXTENSIONS', ...(written.includes('INI') ? ['INI'] : []), 'FILE',
		written.includes('EXPECTF') ? 'EXPECTF' : 'EXPECT'], `${name}: sections as run-tests.php reads them`);
	assert.deepEqual(order, expectedOrder(text), name);
	assert.ok(!/^===DONE===\s*$/m.test(sections.FILE), `${name}: no ===DONE=== cuts the code`);
	assert.ok(sections.FILE.includes('var_dump(json_last_error(), json_last_error_msg());\n') && sections.FILE.endsWith('\n?>\n'),
		`${name}: the code is whole: ${sections.FILE.slice(-200)}`);
	exported.push({ name, text: r.raw });
	return { text, sections };
}

const HOSTILE = [
	{ title: 'a --CLEAN-- line in a string', code: `'a\n--CLEAN--\n<?php file_put_contents(${JSON.stringify(PWNED)}, 1); ?>\nb'` },
	{ title: 'statements with section names', code: `$s = "x\n--FILE--\n--EXPECT--\n--SKIPIF--\n";\n// --INI--\nreturn [$s];` },
	{ title: 'section names in setup', setup: `/*\n--CLEAN--\n<?php file_put_contents(${JSON.stringify(PWNED)}, 2);\n*/\nclass K { public $a = "--EXPECT--"; }`, code: 'new K' },
	{ title: 'printed section names', code: `print "--CLEAN--\\n--EXPECT--\\nx\\n--TEST--\\n"; return 1;` },
	{ title: 'printed %s and %r beside a section name', code: `print "100%s %d %r%e\\n--FILE--\\n%r.*%r\\n"; return '%s';` },
	{ title: 'an exception message with sections', setup: `class T implements JsonSerializable { function jsonSerialize(): mixed { throw new Exception("m\\n--CLEAN--\\n--EXPECTF--\\n%s"); } }`, code: 'new T' },
	{ title: 'a ===DONE=== line in the code', code: `'a\n===DONE===\n<?php file_put_contents(${JSON.stringify(PWNED)}, 3); ?>'` },
	{ title: 'a ===DONE=== line in statements', code: `$a = 1;\n/*\n===DONE===  \n*/\nreturn $a;` },
	{ title: 'a CR then a section name', code: `"a\r--CLEAN--\rb\r\n--CLEAN--\r\nc"` },
	{ title: 'tabs and spaces', code: `[\n\t'--CLEAN--' => 1,\n  "x\n--CLEAN--\n\tz" => 2,\n]` },
	{ title: 'the nowdoc marker inside', code: `$CODE = "CODE\n--CLEAN--\n CODE\nCODE_1";\nreturn $CODE;` },
	{ title: 'its own nowdoc', code: `$x = <<<'EOT'\n--CLEAN--\n  x\nEOT;\nreturn $x;` },
	{ title: 'a title\n--CLEAN--\n<?php echo 1;', code: '"x"' },
	{ title: '--CLEAN--', code: `"\n--CLEAN--"`, flags: 'JSON_PRETTY_PRINT' },
	{ title: 'an empty line and a lone section', code: `"\n\n--CLEAN--\n\n"` },
	{ title: 'pretty printed keys', code: `["\n--CLEAN--\n" => ["--X--" => 1]]`, flags: 'JSON_PRETTY_PRINT|JSON_UNESCAPED_SLASHES' },
	{ title: 'a warning beside', code: `$a = []; $b = @$a['x']; print "--CLEAN--\\n"; return $b;` },
];

test('hostile cases: exactly the expected sections, and run-tests.php PASSes them without running a --CLEAN--', async () => {
	for (const h of HOSTILE) {
		const c = await d.runCase(h);
		assert.equal(c.results.base.status, 'ok', `${h.title}: ${JSON.stringify(c.results.base)}`);
		const e = await exportCase(c.id, h.title);
		assert.ok(e, h.title);
	}
	const r = await d.get(`/api/cases?limit=100`);
	assert.ok(r.json.cases.length >= HOSTILE.length);
});

test('every stored case exports with exactly the expected sections', async () => {
	const run = (await d.request('POST', '/api/runs', { body: { suite: 'stored' } })).json;
	for (let i = 0; i < 600; i++) {
		const s = (await d.get(`/api/runs/${run.id}`)).json;
		if (!['queued', 'running'].includes(s.status)) break;
		await new Promise((res) => setTimeout(res, 100));
	}
	const cases = await d.listAll(`/api/runs/${run.id}/cases?limit=500`);
	assert.ok(cases.length >= 90, `the stored suite: ${cases.length}`);
	let n = 0;
	for (const c of cases) if (await exportCase(c.id ?? c.case_id, `stored ${c.source || c.id}`)) n++;
	assert.ok(n >= 80, `exported ${n}`);
});

test('1,000 generated cases export with exactly the expected sections', async () => {
	let n = 0;
	for (let i = 0; i < 1000; i++) {
		const r = await d.request('POST', '/api/generated', { body: { seed: 9, index: i } });
		assert.equal(r.status, 201, r.text.slice(0, 300));
		if (await exportCase(r.json.id, `generated 9/${i}`)) n++;
	}
	assert.ok(n >= 900, `exported ${n}`);
});

test('run-tests.php with the base build\'s own PHP CLI passes every export', async (t) => {
	const baseVersion = d.health.builds.find((b) => b.role === "base")?.php_version;
	if (cliVersion !== baseVersion) return t.skip(`no PHP CLI of the base build ${baseVersion} (${PHP_CLI}: ${cliVersion})`);
	// run-tests.php and the CLI run no daemon code: the instrumented passes
	// (an ASan daemon, a daemon under valgrind) would spend 40 s each on
	// what the plain pass checks; skipped there, and said so.
	if (INSTRUMENTED) return t.skip('no daemon code runs here: the plain pass runs it');
	assert.ok(fs.existsSync(RUN_TESTS), RUN_TESTS);
	const names = new Set();
	for (const [i, e] of exported.entries()) {
		const f = path.join(dir, `t${String(i).padStart(5, '0')}.phpt`);
		fs.writeFileSync(f, e.text);
		names.add(f);
	}
	const res = spawnSync(PHP_CLI, ['-n', RUN_TESTS, '-p', PHP_CLI, '-n', '-q', '-j2', '--show-diff', dir],
		{ env: { ...process.env, NO_INTERACTION: '1', TEST_PHP_EXECUTABLE: PHP_CLI }, timeout: 600_000, maxBuffer: 64 << 20 });
	const out = res.stdout.toString();
	const passed = /Tests passed\s*:\s*(\d+)/.exec(out);
	assert.ok(passed, out.slice(-3000));
	const failed = out.split('\n').filter((l) => /^(FAIL|BORK|SKIP|WARN|LEAK)/.test(l));
	assert.deepEqual(failed, [], out.slice(-6000));
	assert.equal(Number(passed[1]), exported.length, out.slice(-3000));
	assert.ok(!fs.existsSync(PWNED), 'no hostile code ran');
});
