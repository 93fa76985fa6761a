// A green CI job means "checked and the same" (issue 46, "CI: a green CI job
// without a verdict"), each situation through curl's exit code
// (--fail-with-body) and `phpcmp submit`'s, against the real daemon on the
// two default builds:
// 1. ?wait=N&fail_on_differ=1 that runs out is 504 wait_expired, not 202;
// 2. a stored run with a case file that does not load ends failed, naming
//    the file and line;
// 3. a case every build crashed on, timed out on, ... is `same` and says
//    how it "ended"; fail_on_error=1 / submit --fail-on-error fail it;
// 4. --EXPECT-- is a third oracle: an output that is not it is a mismatch
//    against "expected", stored and bucketed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, runCli, slowCode, tmpDir } from './helper.mjs';

const show = (r) => `exit ${r.code} signal ${r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

// curl as a CI job runs it: its exit code, what it printed, the status.
function curl(url, body) {
	return new Promise((resolve) => {
		const args = ['-sS', '--fail-with-body', '-w', '\n%{http_code}', '-H', 'Content-Type: application/json',
			url, '-d', JSON.stringify(body)];
		const p = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '', err = '';
		p.stdout.on('data', (c) => { out += c; });
		p.stderr.on('data', (c) => { err += c; });
		p.on('exit', (code) => {
			const nl = out.lastIndexOf('\n');
			let json = null;
			try { json = JSON.parse(out.slice(0, nl)); } catch { /* not JSON */ }
			resolve({ code, status: Number(out.slice(nl + 1)), json, text: out, stderr: err });
		});
	});
}

function folder(files) {
	const dir = tmpDir('phpcmp-verdicts-');
	for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
	return dir;
}

const GOOD = '--TEST--\nan array\n--VALUE--\n[1, 2]\n--EXPECT--\n[1,2]\n';
const TYPO = '--TEST--\na flag misspelt\n--FLAGS--\nJSON_PRETY_PRINT\n--VALUE--\n[1]\n';
const WRONG_EXPECT = '--TEST--\nan expectation that is wrong\n--VALUE--\n[1, 2]\n--EXPECT--\n[1,3]\n';
const SEGV = '--TEST--\ntoo deep for the C stack\n--DEPTH--\n2147483647\n--SETUP--\n'
	+ '$a = []; for ($i = 0; $i < 300000; $i++) { $a = [$a]; }\n--VALUE--\n$a\n';
const EXIT = '--TEST--\ncalls exit\n--VALUE--\nexit(3)\n';

// Each daemon serves its own cases folder: a slow one (item 1), one with a
// file that does not load (2), one whose case crashes everywhere (3), one
// with a wrong --EXPECT-- (4).
const dirs = {
	slow: folder(Object.fromEntries([0, 1, 2, 3, 4, 5].map((i) => [`slow-${i}.phpt`,
		`--TEST--\nslow ${i}\n--VALUE--\n${slowCode(500, i)}\n`]))),
	typo: folder({ 'good.phpt': GOOD, 'typo.phpt': TYPO }),
	broken: folder({ 'good.phpt': GOOD, 'segv.phpt': SEGV }),
	expect: folder({ 'good.phpt': GOOD, 'wrong.phpt': WRONG_EXPECT }),
};
const files = folder({ 'segv.phpt': SEGV, 'exit.phpt': EXIT, 'wrong.phpt': WRONG_EXPECT, 'good.phpt': GOOD,
	'typo.phpt': TYPO });
const d = {};
before(async () => {
	// 4 s a case: room for the 300,000 nested arrays to be built before they crash.
	for (const name of Object.keys(dirs))
		d[name] = await Daemon.start({ name: `verdicts-${name}`, cases: dirs[name], timeoutMs: 4000 });
});
after(async () => { for (const x of Object.values(d)) await x?.stopClean(); });

test('1. wait runs out with fail_on_differ: 504 wait_expired with the run\'s progress, curl fails', async () => {
	const r = await curl(`${d.slow.url}/api/runs?wait=1&fail_on_differ=1`, { suite: 'stored' });
	assert.equal(r.status, 504, r.text);
	assert.equal(r.code, 22, `curl --fail-with-body fails the job: ${r.stderr}`);
	assert.equal(r.json.no_verdict.code, 'wait_expired');
	assert.match(r.json.no_verdict.message, /wait \(1 s\) ran out: no verdict yet/);
	assert.ok(['queued', 'running'].includes(r.json.status), r.text);
	assert.equal(r.json.api_url, `/api/runs/${r.json.id}`);
	assert.ok(r.json.done < r.json.total || r.json.total === 0, r.text);
	// fail_on_error alone asks for a verdict too; without either, 202 as before.
	await d.slow.waitRun(r.json.id);
	const e = await curl(`${d.slow.url}/api/runs?wait=1&fail_on_error=1`, { suite: 'stored' });
	assert.equal(e.status, 504, e.text);
	await d.slow.waitRun(e.json.id);
	const p = await curl(`${d.slow.url}/api/runs?wait=1`, { suite: 'stored' });
	assert.equal(p.status, 202, p.text);
	assert.equal(p.code, 0);
	await d.slow.waitRun(p.json.id);
	// Waiting long enough: the verdict, 200.
	const ok = await curl(`${d.slow.url}/api/runs?wait=60&fail_on_differ=1`, { suite: 'stored' });
	assert.equal(ok.status, 200, ok.text);
	assert.equal(ok.code, 0);
});

test('2. a stored case file that does not load: the run fails naming file and line; submit exits 2', async () => {
	const r = await curl(`${d.typo.url}/api/runs?wait=60&fail_on_differ=1`, { suite: 'stored' });
	assert.equal(r.status, 409, r.text);
	assert.equal(r.code, 22);
	assert.equal(r.json.status, 'failed');
	assert.match(r.json.error, /^1 case file did not load \(the other cases ran\): typo\.phpt: line 4: --FLAGS--: unknown flag "JSON_PRETY_PRINT"/);
	assert.deepEqual(r.json.counts, { same: 1, differ: 0 }, 'the good case still ran');
	// Without fail_on_differ the answer is the failed run (200: it ended).
	const plain = await curl(`${d.typo.url}/api/runs?wait=60`, { suite: 'stored' });
	assert.equal(plain.json.status, 'failed');
	const s = await runCli(['submit', '--url', d.typo.url, path.join(files, 'typo.phpt')]);
	assert.equal(s.code, 2, show(s));
	assert.match(s.stderr, /typo\.phpt: line 4: --FLAGS--: unknown flag/, show(s));
});

test('3. every build crashed, timed out, hit the memory limit, exited, threw: same, saying how it ended', async () => {
	const cases = [
		[{ setup: '$a = []; for ($i = 0; $i < 300000; $i++) { $a = [$a]; }', code: '$a', depth: 2147483647 }, 'crashed: SIGSEGV'],
		[{ code: '(function () { while (true) {} })()' }, 'timed out'],
		[{ code: 'str_repeat("a", 1 << 30)' }, 'hit the memory limit'],
		[{ code: 'exit(3)' }, 'called exit()'],
		[{ code: 'throw new RuntimeException("no")' }, 'threw an uncaught RuntimeException'],
	];
	for (const [c, ended] of cases) {
		const plain = await curl(`${d.broken.url}/api/cases?fail_on_differ=1`, c);
		assert.equal(plain.status, 201, plain.text);
		assert.equal(plain.code, 0);
		assert.equal(plain.json.verdict, 'same');
		assert.equal(plain.json.ended, ended, c.code);
		// GET shows it the same way.
		assert.equal((await d.broken.get(plain.json.api_url)).json.ended, ended);
		const failing = await curl(`${d.broken.url}/api/cases?fail_on_error=1`, c);
		assert.equal(failing.status, 409, failing.text);
		assert.equal(failing.code, 22, `${ended}: curl --fail-with-body fails`);
		assert.equal(failing.json.verdict, 'same');
		assert.equal(failing.json.ended, ended);
	}
	// A case that ran to its end has no "ended" and fail_on_error keeps it 201.
	const ok = await curl(`${d.broken.url}/api/cases?fail_on_error=1`, { code: '[1, 2]' });
	assert.equal(ok.status, 201, ok.text);
	assert.equal(ok.json.ended, null);
	// submit says it on the verdict line; --fail-on-error fails it.
	const s = await runCli(['submit', '--url', d.broken.url, path.join(files, 'segv.phpt')]);
	assert.equal(s.code, 0, show(s));
	assert.match(s.stdout, /^same \(both crashed: SIGSEGV\): too deep for the C stack$/m, show(s));
	const f = await runCli(['submit', '--url', d.broken.url, '--fail-on-error', path.join(files, 'segv.phpt'),
		path.join(files, 'exit.phpt'), path.join(files, 'good.phpt')]);
	assert.equal(f.code, 1, show(f));
	assert.match(f.stdout, /^same \(both called exit\(\)\): calls exit$/m, show(f));
	assert.match(f.stdout, /^3 cases: 3 same, 0 differ, 0 errors$/m, show(f));
	assert.match(f.stdout, /^\(2 of the same ended without an answer on every build: --fail-on-error fails them\)$/m, show(f));
	// A stored run counts them (counts.broken); fail_on_error fails it.
	const run = await curl(`${d.broken.url}/api/runs?wait=60&fail_on_differ=1`, { suite: 'stored' });
	assert.equal(run.status, 200, run.text);
	assert.deepEqual(run.json.counts, { same: 2, differ: 0, broken: 1 });
	const runFail = await curl(`${d.broken.url}/api/runs?wait=60&fail_on_error=1`, { suite: 'stored' });
	assert.equal(runFail.status, 409, runFail.text);
	assert.equal(runFail.code, 22);
	assert.equal(runFail.json.counts.broken, 1);
});

test('4. --EXPECT-- is an oracle: an output that is not it differs ("expected"), stored and bucketed', async () => {
	const x = d.expect;
	const s = await runCli(['submit', '--url', x.url, path.join(files, 'wrong.phpt')]);
	assert.equal(s.code, 1, show(s));
	assert.match(s.stdout, /^differ \(expected\): an expectation that is wrong$/m, show(s));
	assert.match(s.stdout, /^  expected: \[1,3\]$/m, show(s));
	const good = await runCli(['submit', '--url', x.url, path.join(files, 'good.phpt')]);
	assert.equal(good.code, 0, show(good));
	// Through the API: the case's "expected" names the builds whose output is not it.
	const c = await curl(`${x.url}/api/cases?fail_on_differ=1`, { code: '[1, 2]', expect: '[1,3]' });
	assert.equal(c.status, 409, c.text);
	assert.equal(c.code, 22);
	assert.equal(c.json.verdict, 'differ');
	assert.deepEqual(c.json.differs, ['expected']);
	assert.deepEqual(c.json.expected, { verdict: 'differ', differ: ['base', 'head'] });
	assert.equal(c.json.candidates.head.verdict, 'same', 'the builds agree with each other');
	const right = await curl(`${x.url}/api/cases?fail_on_differ=1`, { code: '[1, 2]', expect: '[1,2]' });
	assert.equal(right.status, 201, right.text);
	assert.deepEqual(right.json.expected, { verdict: 'same', differ: [] });
	// A stored run: a mismatch, listed, in a bucket per build against "expected".
	const run = await curl(`${x.url}/api/runs?wait=60&fail_on_differ=1`, { suite: 'stored' });
	assert.equal(run.status, 409, run.text);
	assert.equal(run.code, 22);
	assert.equal(run.json.status, 'done');
	assert.deepEqual(run.json.counts, { same: 1, differ: 1 });
	const listed = await x.listAll(`/api/runs/${run.json.id}/cases?verdict=differ`);
	assert.deepEqual(listed.map((r) => [r.file, r.differs]), [['wrong.phpt', ['expected']]]);
	const buckets = (await x.get(`/api/buckets?run=${run.json.id}`)).json.buckets;
	const against = buckets.map((b) => b.candidate).sort();
	assert.deepEqual(against, ['expected:base', 'expected:head'], JSON.stringify(buckets));
	for (const b of buckets) {
		assert.deepEqual(b.key.differs, ['output']);
		assert.equal(b.mismatches >= 1, true);
	}
});
