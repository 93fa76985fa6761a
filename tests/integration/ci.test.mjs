// CI against the daemon (issue 23, items 4 and 3): POST /api/runs?wait=S
// answers when the run ends (200) or the wait does (202, with progress;
// 504 wait_expired when fail_on_differ asked for a verdict, issue 46);
// fail_on_differ=1 then fails (409, with the counts) on a mismatch; a
// write's unknown query parameter is refused (400), not ignored; a failed
// run's report.md says it failed and why.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, errorOf, slowCases, tableCounts } from './helper.mjs';

const SLOW = 8, SLOW_MS = 400; // a run of at least ~3 s: 8 cases of 400 ms, then a differ
const slow = slowCases(SLOW, SLOW_MS);
fs.writeFileSync(path.join(slow, 'zz-differ.phpt'), '--TEST--\nthe version\n--VALUE--\nPHP_VERSION\n');

let d, s;
before(async () => {
	// The stored cases (every one the same); slow's folder served to phpt runs.
	d = await Daemon.start({ name: 'ci', phptDirs: [slow] });
	s = await Daemon.start({ name: 'ci-slow', cases: slow });
});
after(async () => { await d?.stopClean(); await s?.stopClean(); });

test('an unknown query parameter on a write is 400, naming it; nothing is written', async () => {
	const before = tableCounts(d.db);
	const writes = [
		['/api/runs?fail_on_differ=1', { suite: 'stored' }, /fail_on_differ: needs wait=SECONDS/],
		['/api/runs?failondiffer=1', { suite: 'stored' }, /unknown query parameter failondiffer on POST \/api\/runs \(accepted: wait fail_on_differ fail_on_error\)/],
		['/api/runs?wait=5&verbose=1', { suite: 'stored' }, /unknown query parameter verbose/],
		['/api/cases?fail_on_diff=1', { code: '1' }, /unknown query parameter fail_on_diff on POST \/api\/cases \(accepted: fail_on_differ fail_on_error references\)/],
		['/api/cases?wait=5', { code: '1' }, /unknown query parameter wait/],
		['/api/generated?x=1', { seed: 1, index: 0 }, /unknown query parameter x/],
		['/api/buckets/triage?dry_run=1', { ids: [1], state: 'wontfix' }, /unknown query parameter dry_run: POST \/api\/buckets\/triage takes none/],
		['/api/runs/1/cancel?force=1', undefined, /unknown query parameter force/],
		['/api/runs/1/resume?force=1', undefined, /unknown query parameter force/],
	];
	for (const [url, body, message] of writes) {
		const r = await d.request('POST', url, { body });
		assert.equal(r.status, 400, `${url}: ${r.text}`);
		assert.equal(errorOf(r).code, 'bad_request', url);
		assert.match(errorOf(r).message, message, url);
	}
	for (const wait of ['601', '-1', 'abc', '1.5', '01', '']) {
		const r = await d.request('POST', `/api/runs?wait=${wait}`, { body: { suite: 'stored' } });
		assert.equal(r.status, 400, `wait=${wait}: ${r.text}`);
		assert.match(errorOf(r).message, /^wait: expected whole seconds 0 \.\. 600$/);
	}
	assert.deepEqual(tableCounts(d.db), before, 'no run, case or comparison written');
	// Reads keep their own parameters (unchanged).
	assert.equal((await d.get('/api/runs?limit=1')).status, 200);
});

test('wait: the answer is the finished run (200); fail_on_differ on an all-same run is 200 too', async () => {
	const r = await d.request('POST', '/api/runs?wait=120&fail_on_differ=1', { body: { suite: 'stored' } });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.status, 'done');
	assert.equal(r.json.done, r.json.total);
	assert.deepEqual(r.json.counts, { same: r.json.total, differ: 0 });
	assert.equal(r.headers.location, `/api/runs/${r.json.id}`);
	// wait=0: no waiting, the run as it is.
	const z = await d.request('POST', '/api/runs?wait=0', { body: { suite: 'stored' } });
	assert.ok([200, 202].includes(z.status), z.text);
	await d.waitRun(z.json.id);
});

test('wait: a run still going when the wait is over is 504 wait_expired with fail_on_differ (202 without), with its progress; then 409 with the counts on a mismatch', async () => {
	const t0 = Date.now();
	const r = await s.request('POST', '/api/runs?wait=1&fail_on_differ=1', { body: { suite: 'stored' } });
	const took = Date.now() - t0;
	// No verdict when it answers: not a 2xx, so curl --fail-with-body fails the job (issue 46).
	assert.equal(r.status, 504, r.text);
	assert.equal(r.json.no_verdict.code, 'wait_expired');
	assert.equal(r.headers.location, `/api/runs/${r.json.id}`);
	assert.equal(r.json.api_url, `/api/runs/${r.json.id}`);
	assert.ok(['queued', 'running'].includes(r.json.status), r.text);
	assert.ok(r.json.done < SLOW + 1, r.text);
	assert.ok(took >= 1000 && took < 5000, `answered after the 1 s wait (${took} ms)`);
	// The same run waited for again by polling; a new one waited for to its end.
	await s.waitRun(r.json.id);
	const t1 = Date.now();
	const f = await s.request('POST', '/api/runs?wait=120&fail_on_differ=1', { body: { suite: 'stored' } });
	const ran = Date.now() - t1;
	assert.equal(f.status, 409, f.text);
	assert.equal(f.json.status, 'done');
	assert.deepEqual(f.json.counts, { same: SLOW, differ: 1 });
	assert.ok(ran >= SLOW * SLOW_MS, `it waited for the whole run (${ran} ms)`);
	// Without fail_on_differ the same run is a plain 200.
	const p = await s.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' } });
	assert.equal(p.status, 200, p.text);
	assert.deepEqual(p.json.counts, { same: SLOW, differ: 1 });
	// The differing case is listed, for the CI log.
	const listed = await s.listAll(`/api/runs/${f.json.id}/cases?verdict=differ`);
	assert.deepEqual(listed.map((c) => c.file), ['zz-differ.phpt']);
});

test('a failed run\'s report.md says it failed and why; fail_on_differ fails it', async () => {
	// A file of a served folder named as the run's folder: accepted (it is
	// beneath a served one), and the run fails when it opens it.
	const notDir = path.join(slow, 'slow-000.phpt');
	const r = await d.request('POST', '/api/runs?wait=60&fail_on_differ=1', { body: { suite: 'phpt', dir: notDir } });
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.status, 'failed');
	assert.match(r.json.error, /^dir: .*slow-000\.phpt.*[Nn]ot a directory/);
	const md = await d.get(`/api/runs/${r.json.id}/report.md`);
	assert.equal(md.status, 200);
	assert.doesNotMatch(md.text, /not done yet|no results yet/);
	assert.match(md.text, /\(no test ran\)/);
	assert.ok(md.text.includes(`**The run failed:** ${r.json.error}`), md.text);
	// A stored run that ended is said to be done (nothing appended).
	const ok = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' } });
	const okMd = await d.get(`/api/runs/${ok.json.id}/report.md`);
	assert.doesNotMatch(okMd.text, /The run failed|not done yet/);
	// A cancelled one says so.
	const c = await s.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(c.status, 202);
	assert.equal((await s.request('POST', `/api/runs/${c.json.id}/cancel`)).status, 200);
	assert.equal((await s.waitRun(c.json.id)).status, 'cancelled');
	const cmd = await s.get(`/api/runs/${c.json.id}/report.md`);
	assert.match(cmd.text, /\n\n\*\*The run was cancelled\*\*\n$/);
	assert.doesNotMatch(cmd.text, /not done yet/);
});

test('a request waiting for a run does not hold up the daemon\'s stop', async () => {
	let settled = false;
	const long = s.request('POST', '/api/runs?wait=600', { body: { suite: 'stored' } })
		.catch((e) => ({ error: e })).finally(() => { settled = true; });
	await new Promise((r) => setTimeout(r, 500));
	assert.equal(settled, false, 'the request is waiting for the run (~3 s of cases)');
	const t0 = Date.now();
	await s.stopClean();
	const took = Date.now() - t0;
	assert.ok(took < 8000, `stopped in ${took} ms with a wait=600 pending`);
	const r = await long;
	// The waiting request ends: the run as it stood (202), or the connection closed.
	if (!r.error) assert.equal(r.status, 202, r.text);
	s = null;
});
