// Ids are strict (server/daemon/model/id.c), in every path and query parameter
// that takes one: a file of its own, apart from bad-input.test.mjs, so the
// instrumented passes can leave it out (tests/instrumented.txt: 140
// refused requests, each with two database snapshots, reach no daemon line
// or branch the other files do not).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';
import { refuses } from './refuse-helper.mjs';

let d;
before(async () => {
	d = await Daemon.start({ name: 'bad-ids' });
	// Case 1 and its comparison 1, found when written exactly.
	await d.runCase({ code: '1' });
});
after(async () => { await d?.stopClean(); });

const rejects = (...a) => refuses(d, ...a);

// One strict id parser (server/daemon/model/id.c): a path segment that is not
// exactly a decimal id names nothing (404), a query parameter that is not
// one is a bad request (400); "01", "+5", " 5", "5x" and an overflow alike.
test('ids are strict: not an id in a path -> 404, in a query parameter -> 400', async () => {
	const bad = ['01', '001', '%2B1', '%201', '1%20', '1x', '-1', '0x1', '9223372036854775808', '18446744073709551617'];
	for (const id of bad) {
		await rejects('GET', `/api/cases/${id}`, {}, 404, 'not_found');
		await rejects('GET', `/api/cases/${id}/phpt`, {}, 404, 'not_found');
		await rejects('GET', `/api/runs/${id}`, {}, 404, 'not_found');
		await rejects('GET', `/api/runs/${id}/cases`, {}, 404, 'not_found');
		await rejects('POST', `/api/runs/${id}/cases`, { body: { seed: 1, index: 0 } }, 404, 'not_found');
		await rejects('GET', `/api/buckets/${id}`, {}, 404, 'not_found');
		await rejects('GET', `/api/comparisons/${id}/callgrind/base`, {}, 404, 'not_found');
		await rejects('GET', `/api/cases/1?comparison=${id}`, {}, 400, 'bad_request', /comparison/);
		await rejects('GET', `/api/cases/1/phpt?comparison=${id}`, {}, 400, 'bad_request', /comparison/);
		await rejects('GET', `/api/cases/1/casefile?comparison=${id}`, {}, 400, 'bad_request', /comparison/);
		await rejects('GET', `/api/cases?before=${id}`, {}, 400, 'bad_request', /before/);
		await rejects('GET', `/api/runs?before=${id}`, {}, 400, 'bad_request', /before/);
		await rejects('GET', `/api/buckets?cursor=${id}`, {}, 400, 'bad_request', /cursor/);
		await rejects('GET', `/api/triage/events?bucket=${id}`, {}, 400, 'bad_request', /bucket/);
		await rejects('GET', `/api/workloads/history?case=${id}`, {}, 400, 'bad_request', /case/);
	}
	// The same ids written exactly are found.
	const r = await d.request('GET', '/api/cases/1');
	assert.equal(r.status, 200);
	const e = await d.request('GET', '/api/cases/1/casefile?comparison=1');
	assert.equal(e.status, 200, e.text);
});

