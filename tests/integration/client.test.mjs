// The client subcommand: `phpcmp submit --url URL FILE` POSTs a case file
// and exits 0 on same, 1 on differ, 2 on error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, runCli, tmpDir } from './helper.mjs';

let d;
const dir = tmpDir('phpcmp-client-');
before(async () => { d = await Daemon.start({ name: 'client' }); });
after(async () => { await d?.stopClean(); });

function caseFile(name, text) {
	const p = path.join(dir, name);
	fs.writeFileSync(p, text);
	return p;
}

async function newestSubmitted() {
	const r = await d.get('/api/cases?source=submitted&limit=1');
	assert.equal(r.status, 200);
	return r.json.cases[0];
}

const show = (r) => `exit ${r.code} signal ${r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

test('same -> exit 0, and the case is stored with the file\'s title and flags', async () => {
	const f = caseFile('same.phpt', [
		'--TEST--',
		'client: an ordinary array',
		'--FLAGS--',
		'JSON_HEX_TAG|JSON_PRETTY_PRINT',
		'--VALUE--',
		"['a' => '<b>', 'c' => [1, 2, 3]]",
		'',
	].join('\n'));
	const r = await runCli(['submit', '--url', d.url, f]);
	assert.equal(r.code, 0, show(r));
	assert.match(r.stdout, /same/, show(r));
	const c = await newestSubmitted();
	assert.equal(c.title, 'client: an ordinary array');
	assert.equal(c.verdict, 'same');
	assert.equal(c.flags, 1 | 128);
	assert.ok(r.stdout.includes(`/cases/${c.id}`), `the output names the stored case's URL: ${r.stdout}`);
	const g = await d.get(`/api/cases/${c.id}`);
	assert.equal(g.json.results.base.output, '{\n    "a": "\\u003Cb\\u003E",\n    "c": [\n        1,\n        2,\n        3\n    ]\n}');
});

test('differ -> exit 1, naming what differs', async () => {
	const f = caseFile('differ.phpt', '--TEST--\nclient: the PHP version\n--VALUE--\nPHP_VERSION\n');
	const r = await runCli(['submit', '--url', d.url, f]);
	assert.equal(r.code, 1, show(r));
	assert.match(r.stdout + r.stderr, /differ/, show(r));
	assert.match(r.stdout + r.stderr, /output/, show(r));
	const c = await newestSubmitted();
	assert.equal(c.title, 'client: the PHP version');
	assert.equal(c.verdict, 'differ');
});

test('setup, statements and depth from the file reach the daemon', async () => {
	const f = caseFile('setup.phpt', [
		'--TEST--',
		'client: setup and statements',
		'--DEPTH--',
		'1',
		'--SETUP--',
		'class Pt { public $x = 1; public $y = [2]; }',
		'--VALUE--',
		'$p = new Pt;',
		'return $p;',
		'',
	].join('\n'));
	const r = await runCli(['submit', '--url', d.url, f]);
	assert.equal(r.code, 0, show(r));
	const c = await newestSubmitted();
	assert.equal(c.title, 'client: setup and statements');
	const g = await d.get(`/api/cases/${c.id}`);
	assert.equal(g.json.case.depth, 1);
	assert.equal(g.json.results.head.output, false);
	assert.equal(g.json.results.head.error_code, 1, 'depth 1 is exceeded by the nested array');
});

test('server down -> exit 2', async () => {
	const f = caseFile('down.phpt', '--TEST--\nclient: down\n--VALUE--\n1\n');
	// A port nothing listens on: the daemon's own port after it is gone would
	// race with other tests, so use a fresh daemon and stop it.
	const gone = await Daemon.start({ name: 'client-gone' });
	const url = gone.url;
	await gone.stopClean();
	const r = await runCli(['submit', '--url', url, f]);
	assert.equal(r.code, 2, show(r));
	assert.ok(r.stderr.length > 0, 'says why on stderr');
	// ... and what to do (issue 46).
	assert.match(r.stderr, /is the daemon running\? `make run` serves one on http:\/\/127\.0\.0\.1:8080, and --url URL \(or \$PHPCMP_URL\) names another/, show(r));
});

// Issue 46: --url 127.0.0.1:PORT (no scheme) is http://, and the case link printed is one.
test('--url HOST:PORT without a scheme is http://; another scheme is refused', async () => {
	const f = caseFile('noscheme.phpt', '--TEST--\nclient: no scheme\n--VALUE--\n[1]\n');
	const bare = d.url.replace(/^http:\/\//, '');
	const r = await runCli(['submit', '--url', `${bare}/`, f]);
	assert.equal(r.code, 0, show(r));
	const c = await newestSubmitted();
	assert.ok(r.stdout.includes(`case: ${d.url}/#/cases/${c.id}\n`), show(r));
	const ftp = await runCli(['submit', '--url', `ftp://${bare}`, f]);
	assert.equal(ftp.code, 2, show(ftp));
	assert.match(ftp.stderr, /--url ftp:\/\/.*: expected http:\/\/HOST:PORT or https:\/\/HOST:PORT/, show(ftp));
	assert.equal(ftp.stdout, '');
});

test('a missing or malformed case file -> exit 2, nothing stored', async () => {
	const before = await newestSubmitted();
	const missing = await runCli(['submit', '--url', d.url, path.join(dir, 'no-such-file.phpt')]);
	assert.equal(missing.code, 2, show(missing));
	const bad = caseFile('bad.phpt', '--TEST--\nno value section\n');
	const r = await runCli(['submit', '--url', d.url, bad]);
	assert.equal(r.code, 2, show(r));
	const badFlag = caseFile('badflag.phpt', '--TEST--\nbad flag\n--FLAGS--\nJSON_NOPE\n--VALUE--\n1\n');
	const r2 = await runCli(['submit', '--url', d.url, badFlag]);
	assert.equal(r2.code, 2, show(r2));
	assert.match(r2.stderr + r2.stdout, /JSON_NOPE/);
	assert.deepEqual(await newestSubmitted(), before);
});

test('bad usage -> exit 2', async () => {
	const r = await runCli(['submit']);
	assert.equal(r.code, 2, show(r));
});

test('a case that does not compile -> exit 2, FILE:LINE:COLUMN against the case file, nothing stored', async () => {
	const before = await newestSubmitted();
	// --VALUE-- is line 5: the value's line 2 is the file's line 7.
	const f = caseFile('broken.phpt', '--TEST--\nclient: broken\n--FLAGS--\n0\n--VALUE--\n[1,\n 2 3]\n');
	const r = await runCli(['submit', '--url', d.url, f]);
	assert.equal(r.code, 2, show(r));
	assert.ok(r.stdout.includes(`error: ${f}:7:4: syntax error, unexpected integer "3", expecting "]" (--VALUE-- line 2, column 4)\n`), show(r));
	assert.equal(r.stderr, '', `said once, on stdout, as a compiler says it (issue 46): ${show(r)}`);
	assert.doesNotMatch(r.stdout, /^same/m, show(r));
	const setup = caseFile('broken-setup.phpt', '--TEST--\nclient: broken setup\n--SETUP--\nfunction f() {}\nfunction f() {}\n--VALUE--\n1\n');
	const s = await runCli(['submit', '--url', d.url, setup]);
	assert.equal(s.code, 2, show(s));
	assert.ok(s.stdout.includes(`error: ${setup}:5: Cannot redeclare f() (previously declared in setup:1) (--SETUP-- line 2)\n`), show(s));
	const noReturn = caseFile('no-return.phpt', '--TEST--\nclient: no return\n--VALUE--\n$a = [1];\n$a[] = 2;\n');
	const n = await runCli(['submit', '--url', d.url, noReturn]);
	assert.equal(n.code, 2, show(n));
	assert.match(n.stdout, /: no return: /, show(n));
	assert.deepEqual(await newestSubmitted(), before);
});

test('several files and folders: each case once, in order; exit 0 all same, 1 any differ, 2 any error', async () => {
	const folder = path.join(dir, 'many');
	fs.mkdirSync(path.join(folder, 'sub'), { recursive: true });
	fs.writeFileSync(path.join(folder, 'b.phpt'), '--TEST--\nmany: b\n--VALUE--\n[2]\n');
	fs.writeFileSync(path.join(folder, 'sub', 'a.phpt'), '--TEST--\nmany: sub/a\n--VALUE--\n[1]\n');
	fs.writeFileSync(path.join(folder, 'notes.txt'), 'not a case');
	const one = caseFile('many-one.phpt', '--TEST--\nmany: one\n--VALUE--\n1\n');
	const same = await runCli(['submit', '--url', d.url, folder, one]);
	assert.equal(same.code, 0, show(same));
	assert.deepEqual(same.stdout.split('\n').filter((l) => /^(same|differ|error)/.test(l)),
		['same: many: b', 'same: many: sub/a', 'same: many: one']);
	assert.match(same.stdout, /^3 cases: 3 same, 0 differ, 0 errors$/m, show(same));
	const differ = caseFile('many-differ.phpt', '--TEST--\nmany: differ\n--VALUE--\nPHP_VERSION\n');
	const r1 = await runCli(['submit', '--url', d.url, one, differ, folder]);
	assert.equal(r1.code, 1, show(r1));
	assert.match(r1.stdout, /^4 cases: 3 same, 1 differ, 0 errors$/m, show(r1));
	const broken = caseFile('many-broken.phpt', '--TEST--\nmany: broken\n--VALUE--\n[1, 2\n');
	const r2 = await runCli(['submit', '--url', d.url, broken, differ, folder]);
	assert.equal(r2.code, 2, show(r2));
	assert.match(r2.stdout, /^4 cases: 2 same, 1 differ, 1 errors$/m, show(r2));
	// An empty folder is an error, not "nothing differs".
	const empty = path.join(dir, 'empty');
	fs.mkdirSync(empty, { recursive: true });
	const e = await runCli(['submit', '--url', d.url, empty]);
	assert.equal(e.code, 2, show(e));
	assert.match(e.stderr, /no \*\.phpt case file/, show(e));
});

test('--help: usage on stdout, exit 0', async () => {
	for (const flag of ['--help', '-h']) {
		const r = await runCli(['submit', flag]);
		assert.equal(r.code, 0, show(r));
		assert.match(r.stdout, /^usage: phpcmp submit \[--url URL\] PATH\.\.\./, show(r));
		assert.match(r.stdout, /Exit status: 0 every case same, 1 some case differs, 2 any error/, show(r));
		assert.equal(r.stderr, '');
	}
});
