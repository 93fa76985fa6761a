// Reach (issue 22, docs/generated.md "Sequences, nested calls and block
// strings"): four planted bugs of the kinds generator v2 never provoked, each
// a candidate of one daemon over the from-source 8.2.32, found by the default
// generated corpus (seed 1, CI's size) and reduced to its minimal case:
//   guard-kept     a failed encode leaves its array's recursion guard set
//                  (a real php-src bug's shape): only a second call shows it;
//   nested-indent  indentation kept in the module's globals: lost after a
//                  jsonSerialize() that calls json_encode() itself;
//   long-tail      a scan path of its own for strings over 4 KiB that
//                  forgets '/';
//   block-edge     16-byte blocks skipped when clean, the 16th byte unseen.
// The builds come from `make src-builds` (tests/fixtures/patches/); this file
// fails, not skips, when they are missing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, srcBuild } from './helper.mjs';

const BASE = 'src-8.2.32';
const PLANTED = ['guard-kept', 'nested-indent', 'long-tail', 'block-edge'];
const COUNT = Number(process.env.PHPCMP_REACH_COUNT || 20000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let d, run, roots;
before(async () => {
	d = await Daemon.start({
		name: 'reach',
		reduce: true,
		buildList: [['base', srcBuild(BASE)], ...PLANTED.map((p) => [p, srcBuild(`${BASE}-${p}`)])],
		extraArgs: ['--reduce-budget-ms', '3000', '--reduce-max-executions', '400', '--reduce-sample', '1'],
	});
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: COUNT } });
	assert.equal(post.status, 202, post.text);
	for (const deadline = Date.now() + 300_000; ;) {
		run = (await d.get(`/api/runs/${post.json.id}`)).json;
		if (!['queued', 'running'].includes(run.status)) break;
		assert.ok(Date.now() < deadline, 'run still going');
		await sleep(200);
	}
	assert.equal(run.status, 'done', run.error);
	// The reducer to its end: nothing pending, the count of reductions still for two polls.
	let last = -1, still = 0;
	for (const deadline = Date.now() + 600_000; ;) {
		roots = (await d.get(`/api/roots?run=${run.id}`)).json;
		const red = roots.reduction;
		still = red.buckets_pending === 0 && red.reductions === last ? still + 1 : 0;
		if (still >= 2) break;
		last = red.reductions;
		assert.ok(Date.now() < deadline, `reduction still going: ${JSON.stringify(red)}`);
		await sleep(1000);
	}
	console.log(`${run.summary.mismatches} mismatches; roots:\n${roots.roots.map((r) =>
		`${r.candidate}: ${r.mismatches} mismatches: ${JSON.stringify(r.minimal?.code)} ${r.minimal?.flags?.join('|')} depth ${r.minimal?.depth}`).join('\n')}`);
});
after(async () => {
	if (d) await d.stopClean();
});

const rootsOf = (name) => roots.roots.filter((r) => r.candidate === name);
// A minimal case's outputs are keyed by role (base, head, cand2 ...): the candidate's is the other one.
const theirs = (r) => Object.entries(r.minimal.outputs).find(([k]) => k !== 'base')[1];

function found(name) {
	const mine = rootsOf(name);
	assert.ok(mine.length >= 1, `${name} is found: ${JSON.stringify(run.summary.candidates?.[name] ?? run.summary)}`.slice(0, 600));
	for (const r of mine) assert.equal(r.minimal?.confirmation, 'confirmed', JSON.stringify(r.minimal));
	return mine;
}

test('guard-kept: found only by a sequence, its root an earlier failing call then error 6', () => {
	const mine = found('guard-kept');
	for (const r of mine) {
		// (Two earlier calls now and then: under JSON_THROW_ON_ERROR json_last_error()
		// keeps the second's error 6, not the first's, so neither can go.)
		assert.match(r.minimal.code, /^\$v = .*;\n(try \{ json_encode\(\$v, [^\n]*\); \} catch \(Throwable\) \{\}\n)+return \$v;$/s,
			'every root is a sequence');
	}
	// The leading roots: recursion detected on the compared call (an earlier call that
	// failed deeper leaves the candidate failing on the depth instead, now and then).
	// (Under JSON_THROW_ON_ERROR json_last_error() keeps the earlier call's code on both
	// sides: the compared call's exception is what differs, its code 6 against the base's.)
	for (const r of mine.slice(0, 3)) {
		if (r.minimal.flags.includes('JSON_THROW_ON_ERROR')) assert.match(r.minimal.signature, /"differs":\[[^\]]*"exception"/, JSON.stringify(r.minimal));
		else assert.equal(theirs(r).error_code, 6, JSON.stringify(r.minimal));
	}
	// The base gives the value (the earlier call's failure left nothing) where the candidate says recursion.
	assert.match(mine[0].minimal.code, /^\$v = \[\S+\];\ntry \{ json_encode\(\$v, 0(, 1)?\); \}/);
	assert.equal(mine[0].minimal.outputs.base.error_code === 6, false);
	// The normal form's error step makes the element that fails "\x80" whatever it was (a
	// resource, a pure enum ...): one root for all of them, with and without
	// JSON_THROW_ON_ERROR, and a depth error too ([[]] at depth 1, the depth made 512 in the
	// same step).  What stays apart: a throwing jsonSerialize() (an exception on the base
	// too), a recursion (docs/triage.md).  Before
	// the error step: 16–24 roots; with it 11–14 (the bound leaves room for a reduction
	// cut by its time budget on a busy machine).
	assert.ok(mine.length <= 18, `${mine.length} roots: ${mine.map((r) => r.minimal.code).join(' / ')}`);
	assert.match(mine[0].minimal.code, /^\$v = \["\\x80"\];/, 'the lead: an element of invalid UTF-8');
});

test('nested-indent: a jsonSerialize() that calls json_encode(), pretty printed, a sibling after it', () => {
	const mine = found('nested-indent');
	for (const r of mine) {
		assert.match(r.minimal.code, /new GenC4[123]\(/);
		assert.ok(r.minimal.flags.includes('JSON_PRETTY_PRINT'), r.minimal.flags.join('|'));
		assert.match(r.minimal.setup, /json_encode\(/);
		const base = r.minimal.outputs.base.output, head = theirs(r).output;
		assert.notEqual(base, head);
		assert.equal(head.replace(/\s/g, ''), base.replace(/\s/g, ''), 'only the whitespace differs');
	}
	assert.ok(mine.length <= 3, `one bug, few roots: ${mine.map((r) => r.minimal.code).join(' / ')}`);
});

test("long-tail: str_repeat('a', 4096) . '/'", () => {
	const mine = found('long-tail');
	assert.equal(mine[0].minimal.code, "str_repeat('a', 4096) . '/'");
	assert.deepEqual(mine[0].minimal.flags, []);
	assert.equal(theirs(mine[0]).output, `"${'a'.repeat(4096)}/"`);
	assert.equal(mine[0].minimal.outputs.base.output, `"${'a'.repeat(4096)}\\/"`);
	assert.ok(mine.length <= 2, `one bug, few roots: ${mine.map((r) => r.minimal.code).join(' / ')}`);
});

test('block-edge: the special byte at offset 15 of a 17-byte string', () => {
	const mine = found('block-edge');
	// The control byte's root, and where a byte >= 0x80 comes first, 0x80 or U+0080's lead byte there.
	assert.equal(mine[0].minimal.code, 'str_repeat(\'a\', 15) . "\\x00a"');
	for (const r of mine.filter((x) => x.mismatches > 1 && x.minimal.outputs)) {
		assert.match(r.minimal.code, /^str_repeat\('a', 15\) \. "(\\x00a|\\x80a|\\u\{80\})"$/);
		assert.notEqual(theirs(r).output, r.minimal.outputs.base.output);
	}
	assert.ok(mine.length <= 5, `one bug, few roots: ${mine.map((r) => r.minimal.code).join(' / ')}`);
});
