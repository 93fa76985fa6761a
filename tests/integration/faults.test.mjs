// Faults (issue 6), on the real daemon: a worker killed with SIGKILL in the
// middle of a run, the daemon itself killed with SIGKILL mid-run (database
// intact, the run interrupted and resumable), a database that is full (its
// size cap, or a real full filesystem) or read-only.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, Daemon, STATE, processGone, runCli, slowCases, tableCounts, tmpDir } from './helper.mjs';

const daemons = [];
const mounts = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
	for (const m of mounts) spawnSync('umount', [m]);
});
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sqlite = (db, q) => execFileSync('sqlite3', [db, q], { encoding: 'utf8' }).trim();

async function waitRun(d, id, done, deadlineMs = 120_000) {
	const deadline = Date.now() + deadlineMs;
	for (;;) {
		const r = await d.get(`/api/runs/${id}`);
		assert.equal(r.status, 200, r.text);
		if (done(r.json)) return r.json;
		assert.ok(Date.now() < deadline, `run ${id}: ${r.text}`);
		await sleep(50);
	}
}
const ended = (run) => !['queued', 'running'].includes(run.status);


// A tmpfs of the given size, or null where this machine does not allow mounting.
function tmpfs(size) {
	const dir = tmpDir('phpcmp-tmpfs-');
	const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
	if (r.status !== 0) return null;
	mounts.push(dir);
	return dir;
}

test('a worker killed with SIGKILL mid-run: that case is a crash, the run goes on', async () => {
	const d = await start({ name: 'faults-worker', cases: slowCases(12, 250) });
	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(r.status, 202);
	await waitRun(d, r.json.id, (run) => run.status === 'running' && run.done >= 2);
	const pid = (await d.get('/api/health')).json.builds[0].worker.pid;
	assert.ok(pid > 0);
	process.kill(pid, 'SIGKILL');
	const run = await waitRun(d, r.json.id, ended);
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.equal(run.total, 12);
	assert.equal(run.done, 12);
	const differ = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ`);
	assert.equal(differ.length, 1, `one case met the kill: ${JSON.stringify(differ)}`);
	const c = (await d.get(`/api/cases/${differ[0].id}`)).json;
	assert.equal(c.results.base.status, 'crash');
	assert.equal(c.results.base.signal, 9);
	assert.match(c.results.base.failure, /signal 9 \(SIGKILL\)/);
	assert.equal(c.results.head.status, 'ok');
	const h = (await d.get('/api/health')).json.builds[0].worker;
	assert.ok(h.restarts >= 1, 'the worker was started again');
	assert.notEqual(h.pid, pid);
	assert.equal((await d.postCase({ code: "['after' => 'kill']" })).status, 201);
});

test('the daemon killed with SIGKILL mid-run: database intact, run interrupted, resumed', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const cases = slowCases(30, 100);
	const d1 = await Daemon.start({ name: 'faults-daemon', db, cases });
	await d1.runCase({ code: "['before' => 'kill']" });
	const posted = await d1.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(posted.status, 202);
	const id = posted.json.id;
	await waitRun(d1, id, (run) => run.done >= 6);
	const seen = await d1.listAll(`/api/runs/${id}/cases?limit=500`);
	const workers = (await d1.get('/api/health')).json.builds.map((b) => b.worker.pid).filter(Boolean);
	d1.proc.kill('SIGKILL');
	const exit = await d1.exited;
	assert.equal(exit.signal, 'SIGKILL');

	// The workers notice their daemon is gone (their socket closes) and exit.
	for (let i = 0; i < 100 && !workers.every(processGone); i++) await sleep(50);
	assert.ok(workers.every(processGone), `workers ${workers} exited`);

	// The file as the kill left it: intact, everything seen before is there.
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
	assert.equal(sqlite(db, `SELECT status FROM runs WHERE id = ${id}`), 'running', 'nobody marked it yet');
	const stored = Number(sqlite(db, `SELECT count(*) FROM comparisons WHERE run_id = ${id}`));
	assert.ok(stored >= seen.length && stored < 30, `${stored} comparisons stored, ${seen.length} seen`);
	assert.equal(sqlite(db, `SELECT count(*) FROM results r JOIN comparisons m ON m.id = r.comparison_id WHERE m.run_id = ${id}`),
		String(2 * stored), 'each comparison has both results (one transaction)');
	assert.equal(sqlite(db, `SELECT done FROM runs WHERE id = ${id}`), String(stored), 'progress matches what is stored');

	// Restarted: the run is interrupted, its comparisons all there.
	const d2 = await start({ name: 'faults-daemon-restarted', db, cases });
	assert.match(d2.output, /1 run\(s\) left unfinished by the last daemon marked interrupted/);
	let run = (await d2.get(`/api/runs/${id}`)).json;
	assert.equal(run.status, 'interrupted');
	assert.match(run.error, /the daemon stopped before the run finished/);
	assert.equal(run.done, stored);
	const kept = await d2.listAll(`/api/runs/${id}/cases?limit=500`);
	const byCase = new Map(kept.map((c) => [c.id, c.comparison_id]));
	for (const c of seen) assert.equal(byCase.get(c.id), c.comparison_id, `case ${c.id} kept its comparison`);

	// Resumed: it goes on where it stopped; nothing compared twice.
	let r = await d2.request('POST', `/api/runs/${id}/resume`);
	assert.equal(r.status, 202, r.text);
	assert.equal(r.headers.location, `/api/runs/${id}`);
	run = await waitRun(d2, id, ended);
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.equal(run.error, null);
	assert.equal(run.total, 30);
	assert.equal(run.done, 30);
	assert.equal(run.counts.same + (run.counts.differ || 0), 30);
	const all = await d2.listAll(`/api/runs/${id}/cases?limit=500`);
	assert.equal(all.length, 30);
	assert.equal(new Set(all.map((c) => c.id)).size, 30, 'each case once');
	for (const c of kept) {
		assert.equal(all.find((a) => a.id === c.id).comparison_id, c.comparison_id, 'not run again');
	}
	assert.equal(sqlite(db, `SELECT count(*) FROM comparisons WHERE run_id = ${id}`), '30');

	// Only an ended, unfinished run can be resumed.
	r = await d2.request('POST', `/api/runs/${id}/resume`);
	assert.equal(r.status, 409);
	assert.match(r.json.error.message, /is done: only an interrupted, failed or cancelled run/);
	r = await d2.request('POST', '/api/runs/99999/resume');
	assert.equal(r.status, 404);
	r = await d2.get(`/api/runs/${id}/resume`);
	assert.equal(r.status, 405);
});

test('a cancelled run is resumed too; a run whose build is not here is refused', async () => {
	const d = await start({ name: 'faults-resume', cases: slowCases(10, 100) });
	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	await waitRun(d, r.json.id, (run) => run.done >= 2);
	assert.equal((await d.request('POST', `/api/runs/${r.json.id}/cancel`)).status, 200);
	let run = await waitRun(d, r.json.id, ended);
	assert.equal(run.status, 'cancelled');
	assert.ok(run.done < 10);
	const res = await d.request('POST', `/api/runs/${r.json.id}/resume`);
	assert.equal(res.status, 202, res.text);
	run = await waitRun(d, r.json.id, ended);
	assert.equal(run.status, 'done');
	assert.equal(run.done, 10);
	assert.equal((await d.listAll(`/api/runs/${run.id}/cases`)).length, 10);
	// Made with a build this daemon does not have (registered elsewhere, or retired).
	sqlite(d.db, `INSERT INTO builds (name, lib_path, prefix, sha256) VALUES ('gone', '/x', '/x', 'x')`);
	sqlite(d.db, `UPDATE runs SET status = 'interrupted', builds = json_array(base_build_id, (SELECT id FROM builds WHERE name = 'gone')) WHERE id = ${run.id}`);
	const other = await d.request('POST', `/api/runs/${run.id}/resume`);
	assert.equal(other.status, 409, other.text);
	assert.match(other.json.error.message, /was made with build gone, which is not among this daemon's active builds/);
});

// Fill the database with big distinct cases until it refuses; the refusal
// must be a clear 503, the daemon must go on answering.
async function fill(d, limit = 400) {
	const big = 'x'.repeat(200 << 10);
	for (let i = 0; i < limit; i++) {
		const r = await d.postCase({ code: `'${big}' . ${i}` });
		if (r.status === 201) continue;
		return r;
	}
	assert.fail(`the database never filled up in ${limit} cases`);
}

function checkFull(r) {
	assert.equal(r.status, 503, r.text.slice(0, 300));
	assert.equal(r.json.error.code, 'storage_full');
	assert.match(r.json.error.message, /database or disk is full/);
	assert.equal(r.headers['retry-after'], '60');
}

test('a full database (--db-max-size): 503 storage_full, the daemon stays up, nothing corrupt', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'faults-full', db, extraArgs: ['--db-max-size', '2M'] });
	assert.equal(d.health.limits.db_max_bytes, 2 << 20);
	const small = await d.runCase({ code: "['small' => 1]" });
	checkFull(await fill(d));
	// Identical outputs are stored once: what is left may still hold small
	// cases; fill that too, so that nothing fits.
	for (let i = 0; i < 2000; i++) {
		const r = await d.postCase({ code: `'${'y'.repeat(2000)}' . ${i}` });
		if (r.status !== 201) { checkFull(r); break; }
	}
	// Still up: health, reads, and the case stored before.
	assert.equal((await d.get('/api/health')).status, 200);
	assert.equal((await d.get(`/api/cases/${small.id}`)).json.verdict, 'same');
	assert.equal((await d.get('/api/cases?limit=500')).status, 200);
	// A run cannot be stored either: the same clear refusal, or a run that fails naming it.
	const r = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	if (r.status === 202) {
		const run = await waitRun(d, r.json.id, ended);
		assert.equal(run.status, 'failed');
		assert.match(run.error, /database or disk is full/);
	} else {
		checkFull(r);
	}
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
	// With room again, the same file takes writes; nothing was lost.
	const d2 = await start({ name: 'faults-full-again', db, extraArgs: ['--db-max-size', '64M'] });
	assert.equal((await d2.get(`/api/cases/${small.id}`)).json.verdict, 'same');
	assert.equal((await d2.postCase({ code: "['room' => 'again']" })).status, 201);
});

test('a full database refuses triage writes the same way: 503 storage_full with Retry-After', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'faults-full-triage', db, extraArgs: ['--db-max-size', '2M'] });
	// A mismatch, so there is a bucket to triage (the two builds' versions differ).
	const m = await d.runCase({ code: 'PHP_VERSION' });
	assert.equal(m.verdict, 'differ');
	const buckets = (await d.get('/api/buckets')).json.buckets;
	assert.equal(buckets.length, 1);
	const id = buckets[0].id;
	checkFull(await fill(d));
	// Fill the last pages too, with ever smaller cases.
	for (const size of [32 << 10, 4 << 10, 512]) {
		const piece = 'y'.repeat(size);
		for (let i = 0; i < 400; i++) {
			const r = await d.postCase({ code: `'${piece}' . ${i}` });
			if (r.status !== 201) { checkFull(r); break; }
		}
	}
	const notes = 'n'.repeat(16000);
	const before = tableCounts(db);
	checkFull(await d.request('POST', `/api/buckets/${id}/triage`, { body: { by: 'alice', state: 'confirmed', notes } }));
	checkFull(await d.request('POST', '/api/buckets/triage', { body: { by: 'alice', ids: [id], assignee: 'bob', notes } }));
	assert.deepEqual(tableCounts(db), before, 'nothing written');
	// Reads of triage go on.
	assert.equal((await d.get(`/api/buckets/${id}`)).status, 200);
	assert.equal((await d.get('/api/triage/events')).status, 200);
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
});

test('a full filesystem (tmpfs): 503 storage_full, no corruption, writes again once there is room', async (t) => {
	const dir = tmpfs('3m');
	if (!dir) return t.skip('mounting a tmpfs is not allowed here');
	const db = path.join(dir, 'phpcmp.db');
	const d = await start({ name: 'faults-disk', db });
	const small = await d.runCase({ code: "['small' => 1]" });
	checkFull(await fill(d));
	assert.equal((await d.get('/api/health')).status, 200);
	assert.equal((await d.get(`/api/cases/${small.id}`)).status, 200);
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
	// The filesystem grows: writes work again without a restart.
	assert.equal(spawnSync('mount', ['-o', 'remount,size=64m', dir]).status, 0);
	assert.equal((await d.postCase({ code: "['room' => 'again']" })).status, 201);
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
});

test('a read-only database: the daemon says so at startup instead of starting', async (t) => {
	const dir = tmpfs('16m');
	if (!dir) return t.skip('mounting a tmpfs is not allowed here');
	const db = path.join(dir, 'phpcmp.db');
	const d = await Daemon.start({ name: 'faults-ro-setup', db });
	await d.runCase({ code: '1' });
	await d.stopClean();
	assert.equal(spawnSync('mount', ['-o', 'remount,ro', dir]).status, 0);
	const r = await runCli(['serve', '--listen', '127.0.0.1', '--port', '0', '--db', db, '--state', STATE],
		{ timeoutMs: 30_000 });
	assert.equal(r.code, 1, r.stderr);
	assert.match(r.stderr, /database.*(read-only|readonly)/i);
	assert.ok(!/serving http/.test(r.stderr));
	spawnSync('mount', ['-o', 'remount,rw', dir]);
	assert.equal(sqlite(db, 'PRAGMA integrity_check'), 'ok');
});

test('a port in use: serve says so at once, before any build core or worker starts (issue 23)', async () => {
	// Another program listens on the port (here a plain socket of this test).
	const holder = net.createServer();
	await new Promise((resolve, reject) => {
		holder.once('error', reject);
		holder.listen(0, '127.0.0.1', resolve);
	});
	const port = holder.address().port;
	try {
		// A fresh state folder: had the daemon gone as far as the builds,
		// it would compile both worker cores first (seconds each).
		const state = tmpDir('phpcmp-port-state-');
		const t0 = Date.now();
		const r = await runCli(['serve', '--listen', '127.0.0.1', '--port', String(port),
			'--db', path.join(tmpDir(), 'phpcmp.db'), '--state', state,
			'--build', `base=${path.join(BUILDS, 'base')}`, '--build', `head=${path.join(BUILDS, 'head')}`],
		{ timeoutMs: 120_000 });
		const ms = Date.now() - t0;
		assert.equal(r.code, 1, r.stderr);
		assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1 port ${port}: Address already in use`));
		assert.match(r.stderr, /another --port/);
		// No build was loaded: no worker's "base: PHP 8.2.32, …" line, no core compiled.
		assert.doesNotMatch(r.stderr, /PHP \d+\.\d+/);
		assert.deepEqual(fs.readdirSync(state).filter((f) => f !== 'cores' || fs.readdirSync(path.join(state, f)).length), []);
		assert.ok(ms < 5000, `${ms} ms`);
	} finally {
		await new Promise((resolve) => holder.close(resolve));
	}
});
