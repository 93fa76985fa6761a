// POST /api/runs {"suite":"stored"}, and a restart of the daemon on the same
// database file: the history (cases, comparisons, runs) is intact and identical.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { BASE_VERSION, Daemon, HEAD_VERSION, tmpDir } from './helper.mjs';
import { refuses } from './refuse-helper.mjs';

const RUN_DEADLINE_MS = 120_000;
const WAIT = { deadlineMs: RUN_DEADLINE_MS, pollMs: 200 };

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}


function checkDoneRun(run) {
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.equal(run.suite, 'stored');
	assert.equal(run.error, null);
	assert.ok(run.total >= 40, `the stored suite has at least 40 cases (total ${run.total})`);
	assert.equal(run.done, run.total);
	const sum = Object.values(run.counts).reduce((a, b) => a + b, 0);
	assert.equal(sum, run.total, `counts ${JSON.stringify(run.counts)} add up to total ${run.total}`);
	for (const k of Object.keys(run.counts)) assert.ok(['same', 'differ'].includes(k), `verdict ${k}`);
	assert.deepEqual(run.builds, { base: BASE_VERSION, head: HEAD_VERSION });
	assert.equal(run.url, `/#/runs/${run.id}`);
	assert.equal(run.api_url, `/api/runs/${run.id}`);
	assert.deepEqual(run.params, {});
	assert.deepEqual(run.build_names, { base: 'base', head: 'head' });
	for (const k of ['created_at', 'started_at', 'finished_at']) {
		assert.match(run[k], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, k);
	}
	assert.ok(run.started_at <= run.finished_at);
}

// Everything a client can see of the history, for comparing across restarts.
async function history(d) {
	const cases = await d.listAll('/api/cases?limit=500');
	const runs = await d.listAll('/api/runs?limit=500', 'runs');
	const caseDetails = [];
	for (const c of cases) caseDetails.push((await d.get(`/api/cases/${c.id}`)).json);
	const runCases = [];
	for (const r of runs) runCases.push(await d.listAll(`/api/runs/${r.id}/cases?limit=500`));
	return { cases, caseDetails, runs, runCases };
}

test('a stored-suite run completes; counts add up; it is listed', async () => {
	const d = await start({ name: 'runs' });
	await d.runCase({ code: "['a' => 1]" });

	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r.status, 202, r.text);
	const id = r.json.id;
	assert.ok(Number.isInteger(id));
	assert.equal(r.headers.location, `/api/runs/${id}`);
	assert.ok(['queued', 'running', 'done'].includes(r.json.status), r.json.status);
	assert.equal(r.json.suite, 'stored');

	const run = await d.waitRun(id, WAIT);
	checkDoneRun(run);

	const list = await d.get('/api/runs');
	assert.equal(list.status, 200);
	assert.equal(list.json.runs[0].id, id, 'newest first');
	assert.deepEqual(list.json.runs[0], run);

	// The run's comparisons: one per stored case, verdicts matching the counts.
	const rc = await d.listAll(`/api/runs/${id}/cases?limit=7`);
	assert.equal(rc.length, run.total);
	assert.equal(new Set(rc.map((c) => c.id)).size, run.total, 'each stored case once');
	for (const v of ['same', 'differ']) {
		assert.equal(rc.filter((c) => c.verdict === v).length, run.counts[v] || 0, `${v} count`);
	}
	assert.ok(rc.every((c) => c.source === 'stored'), 'a stored run holds stored cases');
	assert.ok(rc.every((c) => typeof c.file === 'string' && c.file.endsWith('.phpt')), 'each names its file');
	assert.ok(rc.every((c) => c.run_id === id), 'each row is the run\'s comparison');
	const differ = await d.listAll(`/api/runs/${id}/cases?verdict=differ`);
	assert.equal(differ.length, run.counts.differ || 0);
	// Its cases are stored in full already: only a generated run's are stored on request.
	await refuses(d, 'POST', `/api/runs/${id}/cases`, { body: { seed: 1, index: 0 } }, 409, 'not_generated');

	// A stored case's history names the run.
	const one = await d.get(`/api/cases/${rc[0].id}`);
	assert.equal(one.status, 200);
	assert.ok(one.json.history.some((h) => h.run_id === id), JSON.stringify(one.json.history));
	assert.equal(one.json.case.source, rc[0].file, 'a stored case names its file');

	// A second run gives the same verdicts (the builds are deterministic).
	const r2 = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r2.status, 202);
	const run2 = await d.waitRun(r2.json.id, WAIT);
	checkDoneRun(run2);
	assert.equal(run2.total, run.total);
	assert.deepEqual(run2.counts, run.counts);
	const two = await d.get(`/api/cases/${rc[0].id}`);
	assert.equal(two.json.history.length, one.json.history.length + 1, 'history grows by one comparison');
});

test('restart with the same database: history intact and identical', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'restart', db });
	const submitted = [];
	submitted.push((await d.runCase({ code: "['a' => 1]", flags: 'JSON_PRETTY_PRINT' })).id);
	submitted.push((await d.runCase({ code: 'PHP_VERSION' })).id);
	submitted.push((await d.runCase({ code: 'echo "\\xff"; return "\\xff";' })).id);
	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r.status, 202, r.text);
	checkDoneRun(await d.waitRun(r.json.id, WAIT));

	const before = await history(d);
	assert.ok(before.cases.length >= 40 + 3, `${before.cases.length} cases`);
	assert.equal(before.runs.length, 1);
	const stopped = await d.stop();
	assert.deepEqual(stopped, { code: 0, signal: null }, 'SIGTERM stops the daemon cleanly');

	const d2 = await start({ name: 'runs-restarted', db });
	const h = (await d2.get('/api/health')).json;
	assert.deepEqual(h.builds.map((b) => b.php_version), [BASE_VERSION, HEAD_VERSION]);
	const afterRestart = await history(d2);
	assert.deepEqual(afterRestart, before);

	// New ids continue after the old ones; nothing is reused.
	const res = await d2.runCase({ code: "['after' => 'restart']" });
	const maxId = Math.max(...before.cases.map((c) => c.id));
	assert.ok(res.id > maxId, `new id ${res.id} > ${maxId}`);
	const g = await d2.get(`/api/cases/${submitted[1]}`);
	assert.equal(g.json.verdict, 'differ');
	assert.equal(g.json.results.base.output, `"${BASE_VERSION}"`);
	// And a run after the restart works and is listed above the old one.
	const r2 = await d2.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r2.status, 202);
	checkDoneRun(await d2.waitRun(r2.json.id, WAIT));
	const runs = await d2.listAll('/api/runs', 'runs');
	assert.deepEqual(runs.map((x) => x.id), [r2.json.id, r.json.id]);
});

test('a run cut short by a stop is not left "running" after a restart', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'runs-interrupted', db });
	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r.status, 202, r.text);
	const id = r.json.id;
	const stopped = await d.stop();
	assert.equal(stopped.killed, undefined, 'stops within the deadline while a run is going');
	const d2 = await start({ name: 'runs-interrupted-restarted', db });
	const run = (await d2.get(`/api/runs/${id}`)).json;
	assert.ok(['done', 'interrupted'].includes(run.status), `status after restart: ${run.status}`);
	if (run.status === 'interrupted') assert.ok(run.done <= run.total);
	else checkDoneRun(run);
	// And a new run still works.
	const r2 = await d2.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r2.status, 202);
	checkDoneRun(await d2.waitRun(r2.json.id, WAIT));
});

test('cancel: a queued run is cancelled, an ended one is a 409 conflict', async () => {
	const d = await start({ name: 'runs-cancel' });
	const a = (await d.request('POST', '/api/runs', { body: { suite: 'stored' } })).json;
	const b = (await d.request('POST', '/api/runs', { body: { suite: 'stored' } })).json;
	// Runs execute one at a time: b waits behind a (unless a was very quick).
	const c = await d.request('POST', `/api/runs/${b.id}/cancel`);
	assert.equal(c.status, 200, c.text);
	assert.equal(c.json.id, b.id);
	const doneA = await d.waitRun(a.id, WAIT);
	checkDoneRun(doneA);
	const finalB = await d.waitRun(b.id, WAIT);
	assert.ok(['cancelled', 'done'].includes(finalB.status), finalB.status);
	if (finalB.status === 'cancelled') assert.ok(finalB.done <= finalB.total);
	const again = await d.request('POST', `/api/runs/${a.id}/cancel`);
	assert.equal(again.status, 409, again.text);
	assert.equal(again.json.error.code, 'conflict');
	const none = await d.request('POST', '/api/runs/999999/cancel');
	assert.equal(none.status, 404);
});
