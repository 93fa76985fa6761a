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
