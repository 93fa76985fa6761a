// Floats in normal form (issue 47, item 2; docs/triage.md, "Normal form"):
// the default builds, head given serialize_precision=17 (it writes 0.1 as
// 0.10000000000000001: one cause), a generated run, then the background
// reducer's roots.  Every float that shows the difference reduces to a
// short one (0.1, 1E-05), not to the random doubles the run happened to
// hold (49074.87906170046 ...).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Daemon } from './helper.mjs';
import { runAndReduce } from './reduce-wait.mjs';

const COUNT = Number(process.env.PHPCMP_REDUCE_COUNT || 20000);
const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

function describe(roots) {
	return roots.roots.map((r) => `${r.buckets} buckets ${r.mismatches} mismatches: ${r.minimal?.code} `
		+ `${(r.minimal?.flags || []).join('|')} (${r.minimal?.state}, complete ${r.minimal?.complete})`).join('\n');
}

test('serialize_precision=17 on head: every root a short float (0.1, 1E-05)', async () => {
	const d = await Daemon.start({
		name: 'reduce-floats',
		reduce: true,
		extraArgs: ['--ini', 'head:serialize_precision=17', '--reduce-sample', '1'],
	});
	daemons.push(d);
	const { run, roots } = await runAndReduce(d, COUNT);
	console.log(`precision 17: ${run.summary.mismatches} mismatches, ${roots.buckets} buckets, `
		+ `${roots.roots.length} roots\n${describe(roots)}\n${JSON.stringify(run.summary.reduction)}`);
	assert.ok(run.summary.mismatches > 100, 'the difference is found');
	assert.ok(roots.buckets >= 5, `buckets before reduction: ${roots.buckets}`);
	assert.ok(roots.roots.length >= 1 && roots.roots.length <= 3, describe(roots));
	for (const r of roots.roots) {
		const m = r.minimal;
		assert.ok(m && m.state === 'done', describe(roots));
		// A float literal of a few bytes, nothing around it.
		assert.match(m.code, /^-?[0-9]+(\.[0-9]+)?(E[-+][0-9]+)?$/, describe(roots));
		assert.ok(m.value_bytes <= 8, describe(roots));
	}
	// Nothing left unreduced: every mismatch reduced within the default budget.
	assert.deepEqual(roots.unreduced, [], JSON.stringify(roots.unreduced).slice(0, 2000));
	assert.equal(run.summary.reduction.unreduced, 0);
	assert.equal(run.summary.reduction.roots, roots.roots.length);
	const codes = roots.roots.map((r) => r.minimal.code);
	assert.ok(codes.includes('0.1'), describe(roots));
	// What the page's reader sees: 0.1 written two ways.
	const top = roots.roots.find((r) => r.minimal.code === '0.1').minimal;
	assert.equal(top.outputs.base.output, '0.1');
	assert.equal(top.outputs.head.output, '0.10000000000000001');
});
