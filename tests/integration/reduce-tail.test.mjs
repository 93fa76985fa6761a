// No unreduced tail (issue 47, item 3; docs/triage.md, "Unreduced"): a
// mismatch the reducer could not reduce is said to be so, with why, and
// counted apart from the roots, not shown as a root of 100+ bytes.  The
// default builds, head given serialize_precision=17, a reducer whose
// budget is two executions: every original of over 100 bytes is cut by
// the budget, so it is unreduced ("budget"); an original already short
// stays a root.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Daemon } from './helper.mjs';
import { runAndReduce } from './reduce-wait.mjs';

const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

test('a reduction cut by its budget: unreduced, with why, apart from the roots', async () => {
	const d = await Daemon.start({
		name: 'reduce-tail',
		reduce: true,
		extraArgs: ['--ini', 'head:serialize_precision=17', '--reduce-sample', '0',
			'--reduce-max-executions', '2'],
	});
	daemons.push(d);
	const { run, roots } = await runAndReduce(d, 2000);
	const show = (list) => list.map((r) => `${r.why || 'root'}: ${r.minimal?.value_bytes} bytes, `
		+ `complete ${r.minimal?.complete}, ${r.minimal?.state}`).join('\n');
	console.log(`${roots.buckets} buckets, ${roots.roots.length} roots, ${roots.unreduced.length} unreduced\n`
		+ `${show(roots.roots)}\n--\n${show(roots.unreduced)}\n${JSON.stringify(run.summary.reduction)}`);
	assert.ok(roots.unreduced.length >= 1, 'the budget leaves cases unreduced');
	for (const r of roots.unreduced) {
		assert.equal(r.why, 'budget', JSON.stringify(r).slice(0, 500));
		assert.match(r.reason, /budget/);
		assert.equal(r.minimal.complete, false);
		assert.ok(r.minimal.value_bytes > 100, `${r.minimal.value_bytes} bytes`);
		assert.ok(r.bucket_ids.length >= 1 && r.mismatches >= 1);
	}
	// No root of over 100 bytes whose search did not end.
	for (const r of roots.roots) {
		assert.equal(r.why, undefined);
		assert.ok(r.minimal == null || r.minimal.value_bytes <= 100 || r.minimal.complete, show([r]));
	}
	// The summary counts them apart; every bucket is in one of the two lists.
	const sr = run.summary.reduction;
	assert.equal(sr.roots, roots.roots.length);
	assert.equal(sr.unreduced, roots.unreduced.length);
	assert.equal(roots.reduction.unreduced, roots.unreduced.length);
	const n = (list) => list.reduce((s, r) => s + r.buckets, 0);
	assert.equal(n(roots.roots) + n(roots.unreduced), roots.buckets);
});
