// Issue 46: a root's own minimal case, submitted alone, lands in its root's
// bucket.  On the default builds with head's serialize_precision=17 (--ini),
// a generated run's roots include "0.1" and "1E-05": both insert digits on
// head, so the bucket key of "0.1" alone was the bucket of root "1E-05", and
// marking root "0.1" fixed then re-running its reproducer never showed it
// reappearing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let d, roots;

before(async () => {
	d = await Daemon.start({ name: 'root-reproducer', reduce: true, extraArgs: ['--ini', 'head:serialize_precision=17'] });
	const run = await d.request('POST', '/api/runs?wait=300', { body: { suite: 'generated', seed: 1, count: 3000 }, timeoutMs: 310_000 });
	assert.equal(run.status, 200, run.text);
	assert.ok(run.json.counts.differ > 0, run.text);
	for (const deadline = Date.now() + 300_000; ; await sleep(500)) {
		roots = (await d.get(`/api/roots?run=${run.json.id}`)).json;
		if (roots.reduction.buckets_pending === 0 && roots.reduction.reducer.busy_bucket_id === null) break;
		assert.ok(Date.now() < deadline, 'reduced within 5 minutes');
	}
});
after(async () => { await d?.stopClean(); });

const submit = (m) => d.request('POST', '/api/cases',
	{ body: { code: m.code, ...(m.setup ? { setup: m.setup } : {}), flags: m.flags, depth: m.depth } });

test('each root\'s minimal case, submitted alone, lands in its root\'s bucket', async () => {
	const done = roots.roots.filter((r) => r.minimal && r.minimal.state === 'done');
	const codes = done.map((r) => r.minimal.code);
	assert.ok(codes.includes('0.1') && codes.includes('1E-05'), `the roots of the issue: ${codes.join(', ')}`);
	for (const r of done) {
		const c = await submit(r.minimal);
		assert.equal(c.status, 201, c.text);
		assert.equal(c.json.verdict, 'differ');
		assert.equal(c.json.bucket.id, r.bucket_id, `root #${r.bucket_id} ${r.minimal.code}: landed in bucket #${c.json.bucket.id}`);
	}
});

test('a root marked fixed reappears when its reproducer is submitted again', async () => {
	const r = roots.roots.find((x) => x.minimal && x.minimal.code === '0.1');
	const t = await d.request('POST', `/api/roots/${r.bucket_id}/triage`, { body: { by: 'ana', state: 'fixed' } });
	assert.equal(t.status, 200, t.text);
	const c = await submit(r.minimal);
	assert.equal(c.json.bucket.id, r.bucket_id);
	const b = (await d.get(`/api/buckets/${r.bucket_id}`)).json;
	assert.ok(b.reappeared, `bucket #${r.bucket_id} reappeared: ${JSON.stringify(b.reappeared)}`);
	assert.equal(b.reappeared.comparison_id, c.json.comparison_id);
});
