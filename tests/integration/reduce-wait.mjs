// Waiting for a generated run and the background reducer's work on it
// (docs/triage.md): shared by the reduce-*.test.mjs files.
import assert from 'node:assert/strict';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A generated run to its end, then the reducer to its end (nothing
// pending, the count of reductions still for two polls).
export async function runAndReduce(d, count) {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count } });
	assert.equal(post.status, 202, post.text);
	const id = post.json.id;
	let run;
	for (const deadline = Date.now() + 600_000; ;) {
		run = (await d.get(`/api/runs/${id}`)).json;
		if (!['queued', 'running'].includes(run.status)) break;
		assert.ok(Date.now() < deadline, 'run still going');
		await sleep(200);
	}
	assert.equal(run.status, 'done', run.error);
	let last = -1, still = 0, roots;
	for (const deadline = Date.now() + 900_000; ;) {
		roots = (await d.get(`/api/roots?run=${id}`)).json;
		const red = roots.reduction;
		if (red.buckets_pending === 0 && red.reductions === last) still++;
		else still = 0;
		if (still >= 2) break;
		last = red.reductions;
		assert.ok(Date.now() < deadline, `reduction still going: ${JSON.stringify(red)}`);
		await sleep(1000);
	}
	run = (await d.get(`/api/runs/${id}`)).json;
	return { run, roots, id };
}

