// Issue 19, item 5: "measure" no longer holds a build for minutes.  Before,
// {"code":"str_repeat(\"a\",1<<20)","measure":1000000} kept both callgrind
// workers until the 120 s timeout and a victim's measure:1 waited behind it.
// Now a submitted case's measured calls are capped by their cost
// (--measure-budget-ms: the warm-up call's time says how many fit, the clock
// stops the loop), the answer says so (results.<build>.iterations,
// iterations_capped), making the value gets a case's time limit on top
// (not the measure timeout's minutes), and plain cases never wait on the
// measuring workers.
// The real daemon on the default builds, valgrind's callgrind.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, slowCode } from './helper.mjs';

const BUDGET_MS = 2000;
const ATTACK = { code: 'str_repeat("a", 1 << 20)', measure: 1000000 };

let d;
before(async () => {
	d = await Daemon.start({ name: 'measure-budget', extraArgs: ['--measure-budget-ms', String(BUDGET_MS)] });
});
after(async () => { await d?.stopClean(); });

async function timed(p) {
	const t0 = Date.now();
	const r = await p;
	return { r, ms: Date.now() - t0 };
}

test('the issue\'s attack: a million measured calls of a 1 MiB string are capped by the budget, and the answer says so', async () => {
	// Before: no answer until the 120 s measure timeout (the request gives up at 40 s).
	const { r, ms } = await timed(d.request('POST', '/api/cases', { body: ATTACK, timeoutMs: 40_000 }));
	assert.equal(r.status, 201, r.text);
	for (const role of ['base', 'head']) {
		const x = r.json.results[role];
		assert.equal(x.status, 'ok', JSON.stringify(x.failure));
		assert.ok(x.iterations >= 1 && x.iterations < ATTACK.measure, `iterations ${x.iterations}`);
		assert.equal(x.iterations_capped, true);
		assert.equal(typeof x.instructions, 'number');
		// The per-call figure is the exact total over the calls made.
		assert.equal(x.instructions, Math.round(x.instructions_total / x.iterations));
	}
	assert.equal(r.json.case.measure, ATTACK.measure, 'the case keeps what was asked');
	assert.ok(ms < 25_000, `the answer took ${ms} ms`);
	// Read back: the same.
	const g = await d.get(`/api/cases/${r.json.id}`);
	assert.equal(g.json.results.base.iterations, r.json.results.base.iterations);
	assert.equal(g.json.results.base.iterations_capped, true);
});

test('a small measured case is not capped: every call asked for', async () => {
	const r = await d.runCase({ code: '[1, 2, 3]', measure: 50 });
	for (const role of ['base', 'head']) {
		assert.equal(r.results[role].iterations, 50);
		assert.equal(r.results[role].iterations_capped, false);
	}
	// A plain case has no iterations at all.
	const p = await d.runCase({ code: '[1]' });
	assert.equal(p.results.base.iterations, undefined);
});

test('a victim\'s measure:1 waits seconds behind three attacks, and plain cases do not wait at all', async () => {
	const attacks = [0, 1, 2].map(() => timed(d.request('POST', '/api/cases', { body: ATTACK, timeoutMs: 90_000 })));
	await new Promise((res) => setTimeout(res, 1500));
	// Plain cases run on the plain workers: answered while the measuring ones are busy.
	for (let i = 0; i < 3; i++) {
		const { r, ms } = await timed(d.postCase({ code: `[${i}]` }));
		assert.equal(r.status, 201, r.text);
		assert.ok(ms < 2000, `a plain case took ${ms} ms while measured cases ran`);
	}
	// Before: 120 s per attack ahead of it.
	const victim = await timed(d.request('POST', '/api/cases', { body: { code: '[1]', measure: 1 }, timeoutMs: 90_000 }));
	assert.equal(victim.r.status, 201, victim.r.text);
	assert.equal(victim.r.json.results.base.iterations, 1);
	assert.ok(victim.ms < 45_000, `the victim waited ${victim.ms} ms`);
	for (const a of await Promise.all(attacks)) assert.equal(a.r.status, 201, a.r.text);
});

// Item 5's queue: measured cases take turns on the measuring workers, fair
// between clients (by token name, else by address): a client's one waits
// behind one of another's many, not all of them.  Before, they were served
// as they came: the victim's after all of the attacker's.  Each of the
// attacker's cases runs for its whole budget (2 s), far longer than the
// 400 ms before the victim comes: with six calls (≈ 330 ms each case) the
// first could end before the victim was sent, and the second be measuring
// (CI, 2026-12-04: A2 A1 B A3).
test('measured cases take turns between clients: one client\'s one case is not behind another\'s many', async () => {
	const finished = [];
	const send = (who, localAddress, body) => d.request('POST', '/api/cases', { body, timeoutMs: 90_000, localAddress })
		.then((r) => { finished.push(who); return { who, r }; });
	const t0 = Date.now();
	const attacker = [1, 2, 3].map((i) => send(`A${i}`, '127.0.0.2', ATTACK));
	await new Promise((res) => setTimeout(res, 400)); // all three sent and waiting
	const victim = send('B', '127.0.0.3', { code: '[1]', measure: 1 });
	const all = await Promise.all([...attacker, victim]);
	for (const { who, r } of all) assert.equal(r.status, 201, `${who}: ${r.text}`);
	console.log(`# finished in order ${finished.join(' ')} after ${Date.now() - t0} ms`);
	// the attacker's first is measuring when the victim arrives; the victim's goes next
	assert.ok(finished.indexOf('B') <= 1, `the victim finished ${finished.indexOf('B') + 1}th of 4: ${finished.join(' ')}`);
});

test('a measured case slow to make its value is cut at the budget plus a case\'s time limit, not the measure timeout', async () => {
	// Before: held the measuring workers for the whole 30 s (up to --measure-timeout-ms, 120 s).
	const { r, ms } = await timed(d.request('POST', '/api/cases',
		{ body: { code: slowCode(30_000), measure: 1 }, timeoutMs: 60_000 }));
	assert.equal(r.status, 201, r.text);
	for (const role of ['base', 'head']) {
		const x = r.json.results[role];
		assert.equal(x.status, 'timeout', JSON.stringify(x));
		assert.match(x.failure, new RegExp(`timed out after ${BUDGET_MS + 5000} ms`));
	}
	assert.ok(ms < 20_000, `the answer took ${ms} ms`);
	// The measuring workers start again for the next one.
	const n = await d.runCase({ code: '[1]', measure: 2 });
	assert.equal(n.results.base.iterations, 2);
});

test('a bad --measure-budget-ms stops the daemon with the reason', async () => {
	await assert.rejects(Daemon.start({ name: 'measure-budget-bad', extraArgs: ['--measure-budget-ms', '0'] }),
		/measure-budget-ms/);
});
