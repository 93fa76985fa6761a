// Issue 19, item 7: the reducer cannot be made to work for minutes.  The
// attack: cases that take seconds and throw a new exception class on one
// build only, each a bucket of its own, each reduction running the slow case
// again and again past its budget.  Now no case runs longer than
// --reduce-case-timeout-ms while reducing (such an original is too_slow),
// a search's case is killed when the budget is spent, and the buckets of
// submitted cases waiting are bounded by --reduce-max-pending.  Also what a
// reduction's reruns run on: the reducer's own long-lived processes, and for
// the confirmation a process that has run no case, every time.
// Real daemons on the default builds (8.2.32 / 8.2.36), submitted cases.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A case taking ms on every build, then throwing E<i> on the head (8.2.36) only.
function slowThrower(i, ms) {
	return {
		code: `usleep(${ms * 1000}); if (PHP_VERSION_ID >= 80236) throw new E${i}('boom'); return 1;`,
		setup: `class E${i} extends Exception {}`,
	};
}

// The reducer idle: nothing pending, no bucket in work.  The time it took.
async function reducerIdle(d, deadlineMs) {
	const t0 = Date.now();
	for (;;) {
		const r = (await d.get('/api/roots')).json.reduction;
		if (r.buckets_pending === 0 && r.reducer.busy_bucket_id === null) return Date.now() - t0;
		assert.ok(Date.now() - t0 < deadlineMs, `reducer still busy after ${deadlineMs} ms: ${JSON.stringify(r)}`);
		await sleep(100);
	}
}

async function minimals(d) {
	const b = (await d.get('/api/buckets?limit=100')).json.buckets;
	return b.map((x) => x.minimal).filter(Boolean);
}

test('the issue\'s attack: four slow cases with new exception classes keep the reducer busy for seconds, not minutes', async () => {
	// The run's limit lets the 3 s cases end; the reducer's default per-case bound (1 s) does not.
	const d = await start({ name: 'reduce-bounds-attack', reduce: true, timeoutMs: 10000 });
	const sent = [];
	for (let i = 0; i < 4; i++) {
		const r = await d.postCase(slowThrower(i, 3000));
		assert.equal(r.status, 201, r.text);
		assert.equal(r.json.verdict, 'differ');
		sent.push(r.json.id);
	}
	// Before: each reduction ran the 3 s case 3 times (the original, two
	// confirmations): about 9 s each, busy for ~25 s after the last case.
	const busy = await reducerIdle(d, 60_000);
	assert.ok(busy < 6000, `the reducer was still busy ${busy} ms after the attacker stopped`);
	const m = await minimals(d);
	assert.equal(m.length, 4, JSON.stringify(m));
	for (const x of m) {
		assert.equal(x.state, 'too_slow', JSON.stringify(x));
		assert.ok(x.seconds < 2.5, `a reduction took ${x.seconds} s`);
		assert.equal(x.executions, 1, 'the original only, killed at the per-case bound');
	}
	// The daemon serves as before.
	assert.equal((await d.runCase({ code: '[1]' })).verdict, 'same');
});

test('the budget holds inside a case: a search\'s case still running when it is spent is killed, and counts', async () => {
	// A per-case bound above the case's 2.5 s, a budget of 0.5 s: the one
	// candidate (the flag taken off) runs past the budget.  Before, it ran to
	// its end (2.5 s) and was accepted; now it is killed at the budget.
	const d = await start({
		name: 'reduce-bounds-budget', reduce: true, timeoutMs: 10000,
		extraArgs: ['--reduce-budget-ms', '500', '--reduce-case-timeout-ms', '5000'],
	});
	const r = await d.postCase({ ...slowThrower(9, 2500), flags: 'JSON_PRETTY_PRINT' });
	assert.equal(r.status, 201, r.text);
	await reducerIdle(d, 60_000);
	const [x] = await minimals(d);
	assert.ok(x, 'reduced');
	assert.equal(x.state, 'done', JSON.stringify(x));
	assert.equal(x.complete, false, 'cut by the budget');
	assert.equal(x.steps, 0, 'the candidate killed at the budget is not accepted');
	assert.deepEqual(x.flags, ['JSON_PRETTY_PRINT']);
	// The original, the killed candidate, two confirmations.
	assert.equal(x.executions, 4);
});

test('submitted cases\' buckets waiting for reduction are bounded: beyond --reduce-max-pending they are skipped', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	// Six buckets made with the reducer off (the helper's default)...
	let d = await start({ name: 'reduce-bounds-pending-make', db });
	for (let i = 0; i < 6; i++) {
		const r = await d.postCase({
			code: `PHP_VERSION_ID >= 80236 ? throw new P${i}('x') : ${i}`, setup: `class P${i} extends Exception {}`,
		});
		assert.equal(r.status, 201, r.text);
	}
	await d.stopClean();
	// ...then a reducer that may keep two of them waiting.
	d = await start({ name: 'reduce-bounds-pending', db, reduce: true, extraArgs: ['--reduce-max-pending', '2'] });
	await reducerIdle(d, 60_000);
	const m = await minimals(d);
	const states = m.map((x) => x.state).sort();
	assert.deepEqual(states, ['done', 'done', 'skipped', 'skipped', 'skipped', 'skipped'], JSON.stringify(m));
	for (const x of m.filter((y) => y.state === 'skipped')) assert.equal(x.executions, 0);
	// The two kept are the oldest (equal sizes): P0 and P1.
	const done = m.filter((x) => x.state === 'done').map((x) => x.code).sort();
	assert.equal(done.length, 2);
	assert.match(done[0], /P0/);
	assert.match(done[1], /P1/);
	// A bad bound is refused at startup.
	await assert.rejects(start({ name: 'reduce-bounds-bad', reduce: true, extraArgs: ['--reduce-max-pending', '0'] }),
		/reduce-max-pending/);
});

test('a run\'s buckets are not cut by --reduce-max-pending: every one is reduced', async () => {
	// Three stored cases, each its own bucket (a new exception class on the head).
	const cases = tmpDir('phpcmp-reduce-bounds-cases-');
	for (let i = 0; i < 3; i++) {
		fs.writeFileSync(path.join(cases, `r${i}.phpt`),
			`--TEST--\nrun bucket ${i}\n--SETUP--\nclass R${i} extends Exception {}\n--VALUE--\n` +
			`PHP_VERSION_ID >= 80236 ? throw new R${i}('x') : ${i}\n`);
	}
	const d = await start({ name: 'reduce-bounds-run', cases, reduce: true, extraArgs: ['--reduce-max-pending', '1'] });
	const post = await d.request('POST', '/api/runs?wait=60', { body: { suite: 'stored' } });
	assert.equal(post.status, 200, post.text);
	assert.equal(post.json.counts.differ, 3, post.text);
	await reducerIdle(d, 60_000);
	const m = await minimals(d);
	assert.deepEqual(m.map((x) => x.state), ['done', 'done', 'done'], JSON.stringify(m));
});

test('mismatches not reproduced alone: one execution each, one root per candidate holds them', async () => {
	// The head's worker child answers in the run; the reducer's own workers
	// are other processes, so a case keyed to that child's pid differs in
	// the run and never when the reducer runs it again.
	const d = await start({ name: 'reduce-bounds-alone', reduce: true });
	const pid = (await d.runCase({ code: 'getmypid()' })).results.head.output;
	assert.match(pid, /^[0-9]+$/);
	const buckets = new Set();
	for (const v of ["'x'", 'NAN', "throw new RuntimeException('x')"]) {
		const r = await d.runCase({ code: `getmypid() === ${pid} ? ${v} : 'same'` });
		assert.equal(r.verdict, 'differ', JSON.stringify(r.results).slice(0, 500));
		buckets.add(r.bucket?.id ?? (await d.get(`/api/cases/${r.case.id}`)).json.bucket.id);
	}
	assert.equal(buckets.size, 3, 'three kinds of difference (output, error code, exception), three buckets');
	await reducerIdle(d, 60_000);
	// (getmypid() itself differs on every run: a root of its own, reduced.)
	const roots = (await d.get('/api/roots')).json.roots.filter((r) => r.bucket_ids.some((b) => buckets.has(b)));
	assert.equal(roots.length, 1, JSON.stringify(roots).slice(0, 2000));
	assert.deepEqual([...roots[0].bucket_ids].sort(), [...buckets].sort());
	assert.equal(roots[0].candidate, 'head');
	assert.equal(roots[0].minimal.state, 'not_reproduced');
	assert.equal(roots[0].minimal.executions, 1);
	assert.equal(roots[0].minimal.root_key, 'head\nnot reproduced alone\n');
});

test('the confirmation runs on a process that has run no case, every time: a mismatch only a used process shows is state-dependent', async () => {
	// A process's minor page faults count what it ever touched: 64 MB is
	// ~16,000 faults, a small case on a process that has run none a few
	// hundred.  The first case differs and touches 64 MB: the run's head
	// process, the reducer's long-lived ones and its first fresh ones all
	// touch it.  The second differs only on a process that has: in the run
	// and on the reducer's long-lived processes, never on a fresh one.  Its
	// confirmation says state-dependent only if the fresh processes of the
	// first reduction were not used again (worker_renew).
	const d = await start({ name: 'reduce-bounds-fresh', reduce: true });
	const big = await d.runCase({
		code: "(function () { $x = str_repeat('x', 64 << 20); return PHP_VERSION_ID >= 80236 ? strlen($x) : 0; })()",
	});
	assert.equal(big.verdict, 'differ', JSON.stringify(big.results).slice(0, 500));
	await reducerIdle(d, 60_000);
	const used = await d.runCase({
		code: "PHP_VERSION_ID >= 80236 && getrusage()['ru_minflt'] > 10000 ? 'used' : 'any'",
	});
	assert.equal(used.verdict, 'differ', JSON.stringify(used.results).slice(0, 500));
	assert.equal(used.results.head.output, '"used"');
	await reducerIdle(d, 60_000);
	const m = await minimals(d);
	const first = m.find((x) => x.code.includes('str_repeat'));
	const second = m.find((x) => x.code.includes('ru_minflt'));
	assert.ok(first && second, JSON.stringify(m).slice(0, 2000));
	assert.equal(first.state, 'done');
	assert.equal(first.confirmation, 'confirmed', 'it differs on every process');
	assert.equal(second.state, 'done', 'the reducer\'s long-lived head process has run the first case');
	assert.equal(second.confirmation, 'state-dependent', JSON.stringify(second));
});

test('a reduced case\'s output over 64 KiB is not kept in its reduction: its size, and a link to the exact bytes', async () => {
	// A candidate reading past its buffer gave megabytes per reduction; the
	// reduction keeps outputs as the API inlines them.
	const d = await start({ name: 'reduce-bounds-big', reduce: true });
	const r = await d.runCase({ code: "str_repeat(PHP_VERSION_ID >= 80236 ? 'n' : 'o', 100000)" });
	assert.equal(r.verdict, 'differ');
	await reducerIdle(d, 60_000);
	const [x] = await minimals(d);
	assert.equal(x?.state, 'done', JSON.stringify(x).slice(0, 1000));
	for (const [role, ch] of [['base', 'o'], ['head', 'n']]) {
		const o = x.outputs[role];
		assert.equal(o.output, null);
		assert.deepEqual(o.omitted, ['output']);
		assert.equal(o.output_size, 100002);
		const bytes = await d.get(o.output_url);
		assert.equal(bytes.status, 200, o.output_url);
		assert.equal(bytes.text, JSON.stringify(ch.repeat(100000)));
	}
	// A small one stays inline, nothing omitted (another kind of mismatch:
	// a bucket of its own); false has no size.
	const s = await d.runCase({ code: "PHP_VERSION_ID >= 80236 ? \"\\x80\" : 'o'" });
	assert.equal(s.verdict, 'differ');
	await reducerIdle(d, 60_000);
	const small = (await minimals(d)).find((y) => y.code.includes('x80'));
	assert.ok(small, JSON.stringify(await minimals(d)).slice(0, 1000));
	assert.equal(small.outputs.base.output, '"o"');
	assert.deepEqual(small.outputs.base.omitted, []);
	assert.equal(small.outputs.base.output_size, 3);
	assert.equal(small.outputs.base.output_url, undefined);
	assert.equal(small.outputs.head.output, null);
	assert.equal(small.outputs.head.output_is_false, true);
	assert.equal(small.outputs.head.output_size, null);
});
