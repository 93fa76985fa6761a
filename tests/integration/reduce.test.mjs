// Reduction of mismatches to minimal reproducers (server/daemon/engine/reduce.c,
// docs/triage.md): the real daemon, base = the from-source 8.2.32, head = a
// planted-bug build of tests/fixtures/patches/, a generated run, then the
// background reducer's work read back through GET /api/roots and
// GET /api/buckets/{id}.  The builds are made by `make src-builds`; this
// file fails, not skips, when they are missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, Daemon } from './helper.mjs';
import { runAndReduce as runAndSettle } from './reduce-wait.mjs';

const BASE = 'src-8.2.32';
// The size: 200,000 cases per planted bug (≈ 20 s each here, the
// reduction included: docs/triage.md, "Measured").
const COUNT = Number(process.env.PHPCMP_REDUCE_COUNT || 200000);
const BUDGET_MS = 2000;
const MAX_EXEC = 400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function prefixOf(name) {
	const p = path.join(BUILDS, name);
	if (!fs.existsSync(path.join(p, 'lib/libphp.so'))) {
		throw new Error(`${p}/lib/libphp.so is missing: run \`make src-builds\` first`);
	}
	return p;
}

const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

async function start(head, name) {
	const d = await Daemon.start({
		name: `reduce-${name}`,
		reduce: true,
		builds: { base: prefixOf(BASE), head: prefixOf(head) },
		extraArgs: ['--reduce-budget-ms', String(BUDGET_MS), '--reduce-max-executions', String(MAX_EXEC),
			'--reduce-sample', '1'],
	});
	daemons.push(d);
	return d;
}

// A generated run to its end, then the reducer to its end (reduce-wait.mjs),
// and the run's summary checked against the roots.
async function runAndReduce(d, count = COUNT) {
	const { run, roots, id } = await runAndSettle(d, count);
	// The run's summary carries the reduction's cost and outcome, within its budget.
	const sr = run.summary.reduction;
	assert.ok(sr, `the run summary has its reduction: ${JSON.stringify(Object.keys(run.summary))}`);
	assert.equal(sr.roots, roots.roots.length);
	assert.equal(sr.buckets, roots.buckets);
	assert.equal(sr.buckets_pending, 0);
	assert.equal(sr.reductions, roots.reduction.reductions);
	assert.equal(sr.executions, roots.reduction.executions);
	assert.ok(Math.abs(sr.seconds - roots.reduction.seconds) < 1e-6);
	assert.deepEqual(sr.budget, { ms: BUDGET_MS, executions: MAX_EXEC });
	assert.equal(sr.enabled, true);
	// The original's run and the two confirmations come on top of the search's budget.
	assert.ok(sr.most_executions <= MAX_EXEC + 3, `most executions ${sr.most_executions}`);
	assert.ok(sr.most_seconds <= BUDGET_MS / 1000 + 3, `most seconds ${sr.most_seconds}`);
	return { run, roots, id };
}

function checkCost(roots) {
	for (const r of roots.roots) {
		const m = r.minimal;
		assert.ok(m, `root bucket ${r.bucket_id} has its minimal case`);
		assert.ok(m.executions <= MAX_EXEC + 3, `executions ${m.executions}`);
		// The budget bounds the search; the original's run and the two confirmations come on top.
		assert.ok(m.seconds <= BUDGET_MS / 1000 + 3, `seconds ${m.seconds}`);
	}
}

function describe(roots) {
	return roots.roots.map((r) => `${r.buckets} buckets ${r.mismatches} mismatches: ${r.minimal?.code} ${r.minimal?.flags?.join('|')}`).join('\n');
}

test('escape-del: every bucket reduces to json_encode("\\x7F"), no flags, confirmed: one root', async () => {
	const d = await start(`${BASE}-escape-del`, 'escape-del');
	const { run, roots } = await runAndReduce(d);
	console.log(`escape-del: ${run.summary.mismatches} mismatches, ${roots.buckets} buckets, ${roots.roots.length} roots\n${describe(roots)}\n${JSON.stringify(roots.reduction)}`);
	assert.ok(run.summary.mismatches > 1000, 'the planted bug is found');
	// Buckets hold the mismatches a generated run stores in full (a sample of
	// each signature, docs/generated.md): still dozens before reduction.
	assert.ok(roots.buckets >= 20, `the buckets before reduction: ${roots.buckets}`);
	assert.ok(roots.roots.length <= 3, describe(roots));
	const top = roots.roots[0];
	assert.equal(top.minimal.code, '"\\x7F"');
	assert.deepEqual(top.minimal.flags, []);
	assert.equal(top.minimal.depth, 512);
	assert.equal(top.minimal.confirmation, 'confirmed');
	assert.equal(top.minimal.state, 'done');
	assert.ok(top.minimal.value_bytes <= 40);
	assert.equal(top.minimal.outputs.base.output, '"\x7f"');
	assert.equal(top.minimal.outputs.head.output, '"\\u007f"');
	assert.ok(top.mismatches >= run.summary.stored_in_full * 0.9, 'the root holds (nearly) every bucketed mismatch');
	checkCost(roots);

	// The bucket leads with its minimal case; the joined buckets name their root.
	const b = await d.get(`/api/buckets/${top.bucket_id}`);
	assert.equal(b.status, 200);
	assert.equal(Object.keys(b.json)[0], 'minimal');
	assert.equal(b.json.minimal.code, '"\\x7F"');
	assert.match(b.json.minimal.found_as.title, /^generated v3 seed 1 #\d+$/);
	assert.ok(b.json.joined.length >= top.buckets - 1);
	const other = await d.get(`/api/buckets/${top.bucket_ids.find((x) => x !== top.bucket_id)}`);
	assert.equal(other.json.root_id, top.bucket_id);
	// The reduced case is an ordinary case, linked to its original by its title.
	const c = await d.get(`/api/cases/${b.json.minimal.case_id}`);
	assert.equal(c.status, 200, c.text);
	assert.equal(c.json.code ?? c.json.case?.code, '"\\x7F"');
	const phpt = await d.get(b.json.minimal.phpt_url);
	assert.equal(phpt.status, 200);
	assert.match(phpt.text, /json_encode/);
	// The buckets listing shows the minimal case inline.
	const list = await d.get('/api/buckets?limit=5');
	assert.ok(list.json.buckets.every((x) => Object.keys(x)[0] === 'minimal'));

});

test('flag-ignored: [0.0] with JSON_PRESERVE_ZERO_FRACTION', async () => {
	const d = await start(`${BASE}-flag-ignored`, 'flag-ignored');
	const { run, roots } = await runAndReduce(d);
	console.log(`flag-ignored: ${run.summary.mismatches} mismatches, ${roots.buckets} buckets, ${roots.roots.length} roots\n${describe(roots)}\n${JSON.stringify(run.summary.reduction)}`);
	assert.ok(roots.roots.length <= 3, describe(roots));
	const top = roots.roots[0];
	assert.equal(top.minimal.code, '[0.0]');
	assert.deepEqual(top.minimal.flags, ['JSON_PRESERVE_ZERO_FRACTION']);
	assert.equal(top.minimal.confirmation, 'confirmed');
	assert.equal(top.minimal.outputs.base.output, '[0.0]');
	assert.equal(top.minimal.outputs.head.output, '[0]');
	for (const r of roots.roots) {
		assert.ok(r.minimal.value_bytes <= 40 && r.minimal.flags.length <= 2, JSON.stringify(r.minimal));
		assert.equal(r.minimal.confirmation, 'confirmed');
	}
	checkCost(roots);
});

// The candidate leaves json_last_error() at 0 for INF: with or without
// PARTIAL_OUTPUT_ON_ERROR that is one kind of mismatch (the candidate's code
// 0 where the base's is 7), so the flag is dropped and both meet at INF.
// Under THROW_ON_ERROR the base throws and the candidate does not: another
// signature, so INF with that flag reduces apart, but what is left without
// the flag is the plain root's own case: one bug, one INF root.
test('error-not-set: INF, one root, with or without a thrown exception or partial output', async () => {
	const d = await start(`${BASE}-error-not-set`, 'error-not-set');
	const { run, roots } = await runAndReduce(d);
	console.log(`error-not-set: ${run.summary.mismatches} mismatches, ${roots.buckets} buckets, ${roots.roots.length} roots\n${describe(roots)}\n${JSON.stringify(run.summary.reduction)}`);
	assert.ok(roots.roots.length <= 3, describe(roots));
	const inf = roots.roots.filter((r) => r.minimal.code === 'INF');
	assert.deepEqual(inf.map((r) => r.minimal.flags.join('|')), [''], describe(roots));
	for (const r of inf) assert.equal(r.minimal.confirmation, 'confirmed');
	const plain = inf.find((r) => r.minimal.flags.length === 0).minimal;
	assert.equal(plain.outputs.base.output_is_false, true);
	assert.equal(plain.outputs.base.error_code, 7);
	assert.equal(plain.outputs.head.output, '0');
	assert.equal(plain.outputs.head.error_code, 0);
	const held = inf.reduce((n, r) => n + r.mismatches, 0);
	// INF beside a resource, an enum or a back-reference (generator v2) keeps
	// another signature but is explained by an INF root, even one reduced later.
	assert.ok(held >= run.summary.stored_in_full * 0.9, `the INF root holds ${held} of ${run.summary.stored_in_full} bucketed`);
	// (Generator v3's sequences add a root: `$v = INF; try { json_encode($v, 0); } …` under
	// JSON_THROW_ON_ERROR, where json_last_error() keeps the earlier call's 7 on the base and
	// 0 on the candidate: the same bug, another signature.  Its source is statements.)
	for (const r of roots.roots) {
		const seq = r.minimal.code.startsWith('$v = ');
		assert.ok(r.minimal.value_bytes <= (seq ? 80 : 40) && r.minimal.flags.length <= 2, JSON.stringify(r.minimal));
	}
	checkCost(roots);
});

test('crash-byte: every crash reduces to json_encode("\\x1E"), no flags, confirmed: one root', async () => {
	const d = await start(`${BASE}-crash-byte`, 'crash-byte');
	const { run, roots } = await runAndReduce(d);
	console.log(`crash-byte: ${run.summary.mismatches} mismatches, ${roots.buckets} buckets, ${roots.roots.length} roots\n${describe(roots)}\n${JSON.stringify(run.summary.reduction)}`);
	assert.ok(run.summary.mismatches > 1000, 'the planted bug is found');
	assert.equal(run.summary.builds.head.statuses.crash, run.summary.mismatches, 'every mismatch is a crash');
	// Crashes keep the other side's unrelated errors in their bucket keys: dozens of buckets.
	assert.ok(roots.buckets >= 20, `the buckets before reduction: ${roots.buckets}`);
	assert.ok(roots.roots.length <= 3, describe(roots));
	const top = roots.roots[0];
	assert.equal(top.minimal.code, '"\\x1E"');
	assert.deepEqual(top.minimal.flags, []);
	assert.equal(top.minimal.depth, 512);
	assert.equal(top.minimal.confirmation, 'confirmed');
	assert.equal(top.minimal.complete, true);
	assert.equal(top.minimal.outputs.base.status, 'ok');
	assert.equal(top.minimal.outputs.base.output, '"\\u001e"');
	assert.equal(top.minimal.outputs.head.status, 'crash');
	assert.equal(top.minimal.outputs.head.signal, 11);
	assert.ok(top.mismatches >= run.summary.stored_in_full * 0.9, 'the root holds (nearly) every bucketed mismatch');
	for (const r of roots.roots) assert.ok(r.minimal.value_bytes <= 40 && r.minimal.flags.length <= 2, JSON.stringify(r.minimal));
	checkCost(roots);
	// Crashes cost milliseconds (the fork server's fresh child): a reduction
	// of dozens of crashing steps well under a second on average.
	assert.ok(roots.reduction.seconds / roots.reduction.reductions < 1, JSON.stringify(roots.reduction));
});

test('a correct candidate (keys-fastpath) gives 0 buckets and nothing to reduce', async () => {
	const d = await start(`${BASE}-keys-fastpath`, 'keys-fastpath');
	const { run, roots } = await runAndReduce(d);
	assert.equal(run.summary.mismatches, 0);
	assert.equal(roots.buckets, 0);
	assert.deepEqual(roots.roots, []);
	assert.equal(roots.reduction.reductions, 0);
	// Malformed input: precise errors.
	const bad = await d.get('/api/roots?run=abc');
	assert.equal(bad.status, 400);
	assert.equal(bad.json.error.code, 'bad_request');
	assert.match(bad.json.error.message, /run/);
	const none = await d.get('/api/roots?run=999999');
	assert.equal(none.status, 404);
});

// Re-homing: three submitted cases on escape-del.  "\x7F" (no flags) is
// bucket A's; "a\x7F" and "\x7F" with JSON_UNESCAPED_UNICODE share bucket B
// by their key (the flag matters to the escape), but the second reduces
// (its flag dropped) to A's minimal case: it moves into A, with its
// reduction and counts; B keeps its triage and its own member.
test('re-homing: a sampled member reducing to another root\'s minimal case joins that root\'s bucket; triage keeps working', async () => {
	const d = await start(`${BASE}-escape-del`, 'rehome');
	const put = async (code, flags) => {
		const r = await d.request('POST', '/api/cases', { body: { code, flags } });
		assert.equal(r.status, 201, r.text);
		assert.equal(r.json.verdict, 'differ');
		return r.json;
	};
	const a = await put('"\\x7F"', 0);
	const b = await put('"a\\x7F"', 256);
	const A = a.bucket?.id ?? (await d.get(`/api/cases/${a.case.id}`)).json.bucket.id;
	const B = (await d.get(`/api/cases/${b.case.id}`)).json.bucket.id;
	assert.notEqual(A, B, 'the flag that matters keys another bucket');
	const tri = await d.request('POST', `/api/buckets/${B}/triage`,
		{ body: { by: 'alice', state: 'confirmed', assignee: 'bob', notes: 'the a-prefixed DEL' } });
	assert.equal(tri.status, 200, tri.text);
	const c = await put('"\\x7F"', 256);
	assert.equal((await d.get(`/api/cases/${c.case.id}`)).json.bucket.id, B, 'placed by its signature first');
	assert.equal((await d.get(`/api/buckets/${B}`)).json.mismatches, 2);
	// The reducer: both representatives, then B's sample (c).
	let bb;
	for (const deadline = Date.now() + 60_000; ;) {
		bb = (await d.get(`/api/buckets/${A}`)).json;
		if (bb.samples.length > 0) break;
		assert.ok(Date.now() < deadline, `c not re-homed: ${JSON.stringify(bb)}`);
		await sleep(300);
	}
	assert.equal(bb.minimal.code, '"\\x7F"');
	assert.deepEqual(bb.samples.map((s) => [s.code, s.flags, s.found_as.comparison_id]),
		[['"\\x7F"', [], c.comparison_id]], 'c\'s reduction is A\'s sample now');
	assert.equal(bb.mismatches, 2);
	const ab = (await d.get(`/api/cases/${c.case.id}`)).json.bucket;
	assert.equal(ab.id, A, 'c\'s comparison is in A');
	const am = (await d.get(`/api/buckets/${A}/mismatches`)).json.mismatches.map((m) => m.comparison_id).sort();
	assert.deepEqual(am, [a.comparison_id, c.comparison_id].sort());
	const bj = (await d.get(`/api/buckets/${B}`)).json;
	assert.equal(bj.mismatches, 1);
	assert.deepEqual(bj.runs.map((r) => r.mismatches), [1], 'B\'s per-run count follows');
	assert.deepEqual((await d.get(`/api/buckets/${B}/mismatches`)).json.mismatches.map((m) => m.comparison_id), [b.comparison_id]);
	assert.equal(bj.minimal.code, '"a\\x7F"', 'B is its own root: its minimal case is another');
	assert.equal(bj.root_id, null);
	assert.deepEqual(bj.samples, []);
	// B's triage and audit are untouched; A's work as before, reappearance too.
	assert.equal(bj.state, 'confirmed');
	assert.equal(bj.assignee, 'bob');
	assert.equal(bj.notes, 'the a-prefixed DEL');
	assert.equal(bj.events.length, 1);
	const fix = await d.request('POST', `/api/buckets/${A}/triage`, { body: { by: 'alice', state: 'fixed' } });
	assert.equal(fix.status, 200, fix.text);
	assert.equal(fix.json.reappeared, null);
	await put('"\\x7F"', 0);
	const again = (await d.get(`/api/buckets/${A}`)).json;
	assert.equal(again.mismatches, 3);
	assert.ok(again.reappeared, `a fixed root seen again reappears: ${JSON.stringify(again.reappeared)}`);
	const roots = (await d.get('/api/roots')).json;
	assert.deepEqual(roots.roots.map((r) => [r.bucket_id, r.mismatches]), [[A, 3], [B, 1]]);
});
