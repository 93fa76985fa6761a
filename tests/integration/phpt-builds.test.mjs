// The phpt suite on every build (docs/phpt.md): one daemon with four
// builds — base = 8.2.32, head = 8.2.36, twin = 8.2.32 again, late = 8.2.36
// again — runs each test on all four, each candidate judged against the
// base; regressions and improvements land in buckets (one per candidate,
// test and status pair) that keep their triage across runs; a bucket's
// exported .phpt runs by "files" and passes on the base; hostile files give
// their status and nothing more.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, BUILDS, Daemon, HEAD_VERSION, tmpDir } from './helper.mjs';
import { runPhpt, servedDir, servedRoot } from './phpt-helper.mjs';

const BASE = path.join(BUILDS, 'base');
const HEAD = path.join(BUILDS, 'head');
const ROLES = ['base', 'head', 'cand2', 'cand3'];

let d;
before(async () => {
	d = await Daemon.start({
		name: 'phpt-builds',
		timeoutMs: 2000,
		buildList: [['base', BASE], ['head', HEAD], ['twin', BASE], ['late', HEAD]],
		phptDirs: [servedRoot()],
	});
});
after(async () => { if (d) await d.stopClean(); });

const sql = (q) => execFileSync('sqlite3', [d.db, q], { encoding: 'utf8' }).trim();
const byTest = (run) => Object.fromEntries(run.summary.tests.map((t) => [t.test.split('/').pop(), t]));

function versionTests() {
	const dir = servedDir('phpcmp-phpt-builds-');
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	put('is-base.phpt', `--TEST--\nthe base version\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n${BASE_VERSION}\n`);
	put('is-head.phpt', `--TEST--\nthe head version\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n${HEAD_VERSION}\n`);
	put('same.phpt', '--TEST--\nsame everywhere\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n');
	put('skip.phpt', '--TEST--\nskipped everywhere\n--SKIPIF--\n<?php die("skip not here");\n--FILE--\n<?php\n--EXPECT--\n');
	return dir;
}

test('every build runs every test: statuses per build, a verdict per candidate', async () => {
	const run = await runPhpt(d, { dir: versionTests() });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.deepEqual(run.summary.builds, [
		{ role: 'base', name: 'base' }, { role: 'head', name: 'head' },
		{ role: 'cand2', name: 'twin' }, { role: 'cand3', name: 'late' }]);
	const t = byTest(run);
	const statuses = (name) => ROLES.map((r) => t[name][r].status);
	const verdicts = (name) => ROLES.slice(1).map((r) => t[name][r].verdict);
	assert.deepEqual(statuses('is-base.phpt'), ['PASS', 'FAIL', 'PASS', 'FAIL']);
	assert.deepEqual(verdicts('is-base.phpt'), ['regression', 'same', 'regression']);
	assert.deepEqual(statuses('is-head.phpt'), ['FAIL', 'PASS', 'FAIL', 'PASS']);
	assert.deepEqual(verdicts('is-head.phpt'), ['improvement', 'same', 'improvement']);
	assert.deepEqual(statuses('same.phpt'), ['PASS', 'PASS', 'PASS', 'PASS']);
	assert.deepEqual(statuses('skip.phpt'), ['SKIP', 'SKIP', 'SKIP', 'SKIP']);
	assert.equal(t['skip.phpt'].cand3.reason, 'not here');
	// The test's verdict: a regression on any candidate wins.
	assert.equal(t['is-base.phpt'].verdict, 'regression');
	assert.equal(t['is-head.phpt'].verdict, 'improvement');
	assert.equal(t['same.phpt'].verdict, 'same');
	for (const role of ROLES) assert.equal(run.summary.counts[role].PASS + run.summary.counts[role].FAIL, 3, role);
	assert.deepEqual(run.summary.candidates.cand2, { name: 'twin', regressions: [], improvements: [], same: 4, differ: 0 });
	assert.deepEqual(run.summary.candidates.cand3, { name: 'late', regressions: ['is-base.phpt'], improvements: ['is-head.phpt'], same: 2, differ: 0 });
	// A FAIL on a later candidate carries run-tests' .diff and what it printed.
	assert.equal(t['is-base.phpt'].cand3.diff, `001+ ${HEAD_VERSION}\n001- ${BASE_VERSION}`);
	assert.equal(t['is-base.phpt'].cand3.output, HEAD_VERSION);
	// Stored per test and build, the verdict per candidate.
	assert.equal(sql(`SELECT group_concat(role || ':' || status || ':' || coalesce(verdict, '-'), ' ') FROM (SELECT * FROM phpt_results WHERE run_id = ${run.id} AND test = 'is-base.phpt' ORDER BY role)`),
		'base:PASS:- cand2:PASS:same cand3:FAIL:regression head:FAIL:regression');
	assert.equal(sql(`SELECT count(*) FROM phpt_results WHERE run_id = ${run.id}`), '16');
	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.match(md.text, /base: base \(PHP 8\.2\.\d+\), head: head \(PHP 8\.2\.\d+\), cand2: twin \(PHP [\d.]+\), cand3: late \(PHP [\d.]+\)/, md.text);
	assert.match(md.text, /: 4 — base 2 passed, 1 failed \(is-head\.phpt\), 1 skipped; head 2 passed, \*\*1 failed\*\* \(is-base\.phpt\), 1 skipped; twin 2 passed, \*\*1 failed\*\* \(is-head\.phpt\), 1 skipped; late 2 passed, \*\*1 failed\*\* \(is-base\.phpt\), 1 skipped/, md.text);
});

test('regressions and improvements are buckets: one per candidate, test and status pair; triage sticks across runs', async () => {
	const dir = versionTests();
	const r1 = await runPhpt(d, { dir });
	const b1 = await d.get(`/api/buckets?run=${r1.id}`);
	assert.equal(b1.status, 200, b1.text);
	const keys = b1.json.buckets.map((b) => `${b.key.candidate} ${b.key.test} ${b.key.status.join('>')}`).sort();
	assert.deepEqual(keys, [
		'head is-base.phpt PASS>FAIL', 'head is-head.phpt FAIL>PASS',
		'late is-base.phpt PASS>FAIL', 'late is-head.phpt FAIL>PASS']);
	for (const b of b1.json.buckets) {
		assert.equal(b.key.suite, 'phpt');
		assert.equal(b.candidate, b.key.candidate);
		assert.equal(b.run.mismatches, 1);
	}
	const t = byTest(r1);
	const reg = b1.json.buckets.find((b) => b.key.candidate === 'late' && b.key.test === 'is-base.phpt');
	assert.equal(t['is-base.phpt'].cand3.bucket_id, reg.id);
	assert.equal(t['is-base.phpt'].cand2.bucket_id, undefined);
	// The bucket lists its tests; its triage works like any bucket's.
	const g = await d.get(`/api/buckets/${reg.id}`);
	assert.equal(g.status, 200, g.text);
	// (the first test's run found it too: keys hold no run)
	assert.deepEqual(g.json.phpt_tests.map((x) => [x.run_id, x.test, x.role, x.status, x.base_status]),
		[[r1.id, 'is-base.phpt', 'cand3', 'FAIL', 'PASS'], [r1.id - 1, 'is-base.phpt', 'cand3', 'FAIL', 'PASS']]);
	assert.equal(g.json.mismatches, 2);
	let r = await d.request('POST', `/api/buckets/${reg.id}/triage`, { body: { by: 'alice', state: 'confirmed', notes: 'late build is 8.2.36' } });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.state, 'confirmed');
	// The same tests again: the same buckets, their triage kept, counted twice.
	const r2 = await runPhpt(d, { dir });
	const b2 = await d.get(`/api/buckets?run=${r2.id}`);
	assert.deepEqual(b2.json.buckets.map((b) => b.id).sort(), b1.json.buckets.map((b) => b.id).sort());
	const g2 = await d.get(`/api/buckets/${reg.id}`);
	assert.equal(g2.json.state, 'confirmed');
	assert.equal(g2.json.notes, 'late build is 8.2.36');
	assert.equal(g2.json.mismatches, 3);
	assert.deepEqual(g2.json.phpt_tests.map((x) => x.run_id).slice(0, 2), [r2.id, r1.id]);
	// Fixed, and seen in a later run: reappeared, noted by the daemon.
	r = await d.request('POST', `/api/buckets/${reg.id}/triage`, { body: { by: 'alice', state: 'fixed' } });
	assert.equal(r.status, 200, r.text);
	const r3 = await runPhpt(d, { dir });
	const g3 = await d.get(`/api/buckets/${reg.id}`);
	assert.equal(g3.json.reappeared?.run_id, r3.id, JSON.stringify(g3.json));
	const ev = await d.get(`/api/triage/events?bucket=${reg.id}`);
	assert.equal(ev.json.events[0].action, 'reappeared');
	// In the list of open buckets with the others.
	const open = await d.get('/api/buckets?state=open&candidate=late');
	assert.ok(open.json.buckets.some((b) => b.id === reg.id));
	// Page by page (phpt buckets have no comparison: the cursor also holds the id), none lost or repeated.
	await d.postCase({ code: 'PHP_VERSION' }); // a mismatch's bucket among them
	const all = (await d.get('/api/buckets?limit=500')).json.buckets.map((b) => b.id);
	assert.ok(all.length >= 5, JSON.stringify(all));
	const paged = [];
	for (let url = '/api/buckets?limit=1'; url;) {
		const p = await d.get(url);
		assert.equal(p.status, 200, `${url}: ${p.text}`);
		paged.push(...p.json.buckets.map((b) => b.id));
		url = p.json.next;
		assert.ok(paged.length <= all.length, 'no bucket twice');
	}
	assert.deepEqual(paged, all);
	assert.equal((await d.get('/api/buckets?cursor=0.0')).status, 400);
});

test('a bucket\'s exported .phpt runs by "files": PASS on the base, the regression on the candidates that differ', async () => {
	const c = await d.postCase({ code: '["v" => PHP_VERSION, "s" => "a/b"]' });
	assert.equal(c.status, 201, c.text);
	// the case's bucket (GET /api/cases/{id} names it), exported through its representative
	const shown = await d.get(`/api/cases/${c.json.id}`);
	assert.ok(shown.json.bucket?.id, `the case's mismatch is in a bucket: ${shown.text.slice(0, 500)}`);
	const mine = (await d.get(`/api/buckets/${shown.json.bucket.id}`)).json;
	assert.ok(mine.representative.case_id > 0, JSON.stringify(mine));
	const e = await d.get(`/api/cases/${mine.representative.case_id}/phpt?comparison=${mine.representative.comparison_id}`);
	assert.equal(e.status, 200, e.text);
	const file = path.join(servedDir('phpcmp-phpt-export-'), 'bucket.phpt');
	fs.writeFileSync(file, e.text);
	const run = await runPhpt(d, { files: [file] });
	assert.equal(run.status, 'done');
	const t = run.summary.tests[0];
	assert.equal(t.test, file);
	assert.deepEqual(ROLES.map((r) => t[r].status), ['PASS', 'FAIL', 'PASS', 'FAIL'], JSON.stringify(t));
	assert.equal(t.verdict, 'regression');
	assert.match(t.head.diff, /8\.2\./);
});

test('hostile .phpt files: BORK or their status on every build, nothing more', async () => {
	const dir = servedDir('phpcmp-phpt-hostile-');
	const canary = path.join(tmpDir('phpcmp-phpt-canary-'), 'canary');
	fs.writeFileSync(canary, 'still here');
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	const cases = {
		// the original test file and its folder, by absolute path, from every section
		'deletes-itself.phpt': [`--TEST--\nsections that delete the test's own file and folder\n--SKIPIF--\n<?php @unlink(${JSON.stringify(path.join(dir, 'deletes-itself.phpt'))});\n--FILE--\n<?php var_dump(@unlink(${JSON.stringify(canary)}), @rmdir(${JSON.stringify(dir)}));\n--CLEAN--\n<?php @unlink(${JSON.stringify(path.join(dir, 'same.phpt'))}); if (function_exists('system')) system('rm -rf ' . ${JSON.stringify(dir)});\n--EXPECT--\nbool(false)\nbool(false)\n`, 'PASS'],
		// an external section that climbs out of the folder
		'external-escape.phpt': ['--TEST--\nFILE_EXTERNAL naming /etc/passwd by ..\n--FILE_EXTERNAL--\n../../../../../../etc/passwd\n--EXPECT--\nx\n', 'BORK', /^could not load --FILE_EXTERNAL-- /],
		'external-abs.phpt': ['--TEST--\nEXPECT_EXTERNAL naming an absolute path\n--FILE--\n<?php echo 1;\n--EXPECT_EXTERNAL--\n/etc/passwd\n', 'BORK', /^could not load --EXPECT_EXTERNAL-- /],
		// malformed section lists
		'two-expects.phpt': ['--TEST--\ntwo expectations\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n--EXPECTF--\n%d\n', 'BORK', /^missing section --EXPECT--, --EXPECTF-- or --EXPECTREGEX--$/],
		'dup-file.phpt': ['--TEST--\nFILE twice\n--FILE--\n<?php echo 1;\n--FILE--\n<?php echo 2;\n--EXPECT--\n1\n', 'BORK', /^duplicated FILE section$/],
		'no-test.phpt': ['--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK'],
		'empty.phpt': ['', 'BORK', /^cannot read test$/],
		'binary.phpt': [Buffer.from([0x2d, 0x2d, 0x54, 0x45, 0x53, 0x54, 0x2d, 0x2d, 0x0a, 0xff, 0x00, 0x0a, 0x2d, 0x2d, 0x5a, 0x00, 0x2d, 0x2d, 0x0a]), 'BORK'],
		// a FILE that tries the worker's neighbours: signals, the parent, other builds' folders
		'signals.phpt': ['--TEST--\nsignals and the process\n--FILE--\n<?php\nvar_dump(function_exists("posix_kill") && @posix_kill(posix_getppid(), 9));\nvar_dump(@file_put_contents("/tmp/phpcmp-phpt-hostile-escape", "x"));\n--EXPECT--\nbool(false)\nbool(false)\n', 'PASS'],
		'same.phpt': ['--TEST--\nstill runs\n--FILE--\n<?php echo "fine";\n--EXPECT--\nfine\n', 'PASS'],
	};
	for (const [name, [text]] of Object.entries(cases)) put(name, text);
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	const t = byTest(run);
	for (const [name, [, status, reason]] of Object.entries(cases)) {
		for (const role of ROLES) {
			assert.equal(t[name][role].status, status, `${name} on ${role}: ${JSON.stringify(t[name][role])}`);
			if (reason) assert.match(t[name][role].reason || '', reason, `${name} on ${role}`);
		}
		assert.equal(t[name].verdict, 'same', name);
	}
	assert.equal(fs.readFileSync(canary, 'utf8'), 'still here');
	for (const name of Object.keys(cases)) assert.ok(fs.existsSync(path.join(dir, name)), `${name} is still there`);
	assert.equal(fs.existsSync('/tmp/phpcmp-phpt-hostile-escape'), false);
	assert.equal((await d.get('/api/health')).status, 200);
	// BORKs on every build are no regression: no bucket from this run.
	assert.deepEqual((await d.get(`/api/buckets?run=${run.id}`)).json.buckets, []);
});

test('GET /api/runs/{id}/phpt?test=: one test on every build, its sections as run; bad requests answered precisely', async () => {
	const run = await runPhpt(d, { dir: versionTests() });
	const r = await d.get(`/api/runs/${run.id}/phpt?test=is-base.phpt`);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.test, 'is-base.phpt');
	assert.equal(r.json.name, 'the base version');
	assert.equal(r.json.verdict, 'regression');
	assert.deepEqual(r.json.builds.map((b) => [b.role, b.build, b.status, b.verdict]), [
		['base', 'base', 'PASS', null], ['head', 'head', 'FAIL', 'regression'],
		['cand2', 'twin', 'PASS', 'same'], ['cand3', 'late', 'FAIL', 'regression']]);
	// every build's output (the base's too), the .diff of a FAIL, the bucket of a regression
	assert.equal(r.json.builds[0].output, BASE_VERSION);
	assert.equal(r.json.builds[3].output, HEAD_VERSION);
	assert.equal(r.json.builds[3].diff, `001+ ${HEAD_VERSION}\n001- ${BASE_VERSION}`);
	assert.equal(r.json.builds[0].diff, null);
	assert.ok(r.json.builds[3].bucket_id > 0);
	assert.deepEqual(r.json.sections.map((s) => s.name), ['TEST', 'EXPECT', 'FILE']);
	assert.equal(r.json.sections.find((s) => s.name === 'FILE').text, '<?php echo PHP_VERSION;\n');
	assert.equal(r.json.bork, null);
	const errors = [
		[`/api/runs/${run.id}/phpt`, 400, /^test: required/],
		[`/api/runs/${run.id}/phpt?test=`, 400, /^test: required/],
		[`/api/runs/${run.id}/phpt?test=${'x'.repeat(5000)}`, 400, /^test: at most 4096 bytes/],
		[`/api/runs/${run.id}/phpt?test=nope.phpt`, 404, /has no test "nope\.phpt"/],
		['/api/runs/99999/phpt?test=a.phpt', 404, /^no run 99999/],
	];
	for (const [url, status, msg] of errors) {
		const e = await d.get(url);
		assert.equal(e.status, status, `${url}: ${e.text}`);
		assert.match(e.json.error.message, msg, url);
	}
	// not a phpt run
	const c = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(c.status, 202, c.text);
	const e = await d.get(`/api/runs/${c.json.id}/phpt?test=a.phpt`);
	assert.equal(e.status, 404);
	assert.match(e.json.error.message, /is a stored run, not a phpt run/);
});

test('a cancelled phpt run resumed starts over: its buckets count each regression once', async () => {
	const dir = servedDir('phpcmp-phpt-resume-');
	fs.writeFileSync(path.join(dir, 'aa-regress.phpt'), `--TEST--\nregresses\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n${BASE_VERSION}\n`);
	for (let i = 0; i < 40; i++)
		fs.writeFileSync(path.join(dir, `slow-${String(i).padStart(2, '0')}.phpt`), '--TEST--\nslow\n--FILE--\n<?php usleep(100000); echo 1;\n--EXPECT--\n1\n');
	const post = await d.request('POST', '/api/runs', { body: { suite: 'phpt', dir } });
	assert.equal(post.status, 202, post.text);
	const id = post.json.id;
	for (let r; (r = (await d.get(`/api/runs/${id}`)).json).done < 3;) {
		assert.ok(['queued', 'running'].includes(r.status), r.status);
		await new Promise((res) => setTimeout(res, 50));
	}
	assert.equal((await d.request('POST', `/api/runs/${id}/cancel`)).status, 200);
	for (let r; (r = (await d.get(`/api/runs/${id}`)).json).status !== 'cancelled';) {
		assert.ok(['queued', 'running'].includes(r.status), r.status);
		await new Promise((res) => setTimeout(res, 50));
	}
	const before = (await d.get(`/api/buckets?run=${id}`)).json.buckets;
	assert.deepEqual(before.map((b) => [b.key.candidate, b.key.test, b.run.mismatches, b.mismatches]).sort(),
		[['head', 'aa-regress.phpt', 1, 1], ['late', 'aa-regress.phpt', 1, 1]]);
	const res = await d.request('POST', `/api/runs/${id}/resume`);
	assert.equal(res.status, 202, res.text);
	let run;
	for (; ;) {
		run = (await d.get(`/api/runs/${id}`)).json;
		if (!['queued', 'running'].includes(run.status)) break;
		await new Promise((r) => setTimeout(r, 50));
	}
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 500));
	assert.equal(run.done, 41);
	assert.deepEqual(run.summary.regressions, ['aa-regress.phpt']);
	const after = (await d.get(`/api/buckets?run=${id}`)).json.buckets;
	assert.deepEqual(after.map((b) => [b.key.candidate, b.key.test, b.run.mismatches, b.mismatches]).sort(),
		[['head', 'aa-regress.phpt', 1, 1], ['late', 'aa-regress.phpt', 1, 1]]);
	assert.equal(sql(`SELECT count(*) FROM phpt_results WHERE run_id = ${id}`), String(41 * 4));
});
