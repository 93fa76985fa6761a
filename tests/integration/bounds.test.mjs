// Bounds (issue 6): queued runs (429), case requests in progress (503),
// connections (503), each with Retry-After and a message naming the limit;
// past each, the daemon answers as before.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, test } from 'node:test';
import { Daemon, slowCases, slowCode } from './helper.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitStatus(d, id, statuses, deadlineMs = 60_000) {
	const deadline = Date.now() + deadlineMs;
	for (;;) {
		const r = await d.get(`/api/runs/${id}`);
		if (statuses.includes(r.json.status)) return r.json;
		assert.ok(Date.now() < deadline, `run ${id} still ${r.json.status}, wanted ${statuses}`);
		await sleep(50);
	}
}

test('queued runs are bounded: 429 too_many_runs with Retry-After, then room again', async () => {
	const d = await start({ name: 'bounds-runs', cases: slowCases(20, 200), extraArgs: ['--max-queued-runs', '2'] });
	assert.equal(d.health.limits.max_queued_runs, 2);
	const post = () => d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	const r1 = await post();
	assert.equal(r1.status, 202);
	await waitStatus(d, r1.json.id, ['running']);
	const r2 = await post(), r3 = await post();
	assert.equal(r2.status, 202);
	assert.equal(r3.status, 202);
	const r4 = await post();
	assert.equal(r4.status, 429, r4.text);
	assert.equal(r4.json.error.code, 'too_many_runs');
	assert.match(r4.json.error.message, /2 runs are already waiting.*max-queued-runs/);
	assert.equal(r4.headers['retry-after'], '30');
	// The running one does not count, a cancelled one frees its place.
	assert.equal((await d.request('POST', `/api/runs/${r3.json.id}/cancel`)).status, 200);
	const r5 = await post();
	assert.equal(r5.status, 202, r5.text);
	for (const r of [r1, r2, r5]) assert.equal((await d.request('POST', `/api/runs/${r.json.id}/cancel`)).status, 200);
	await waitStatus(d, r1.json.id, ['cancelled']);
	assert.equal((await d.get('/api/health')).status, 200);
	assert.equal((await d.postCase({ code: '[1]' })).status, 201);
});

test('case requests in progress are bounded: 503 busy with Retry-After', async () => {
	const d = await start({ name: 'bounds-cases', extraArgs: ['--max-case-requests', '1'] });
	assert.equal(d.health.limits.max_case_requests, 1);
	const slow = d.postCase({ code: slowCode(1500) });
	await sleep(300);
	const h = await d.get('/api/health');
	assert.equal(h.json.limits.case_requests, 1, 'one in progress');
	const r = await d.postCase({ code: '[2]' });
	assert.equal(r.status, 503, r.text);
	assert.equal(r.json.error.code, 'busy');
	assert.match(r.json.error.message, /max-case-requests/);
	assert.equal(r.headers['retry-after'], '1');
	// A generated case made again runs on the workers too: the same bound.
	const g = await d.request('POST', '/api/generated', { body: { seed: 1, index: 0 } });
	assert.equal(g.status, 503, g.text);
	assert.equal(g.json.error.code, 'busy');
	assert.equal((await slow).status, 201);
	// Reads were never bounded by it; the slot is free again.
	assert.equal((await d.get('/api/health')).json.limits.case_requests, 0);
	assert.equal((await d.postCase({ code: '[2]' })).status, 201);
	// A bad request is a 400 whatever the load: validation comes first.
	const slow2 = d.postCase({ code: slowCode(800) });
	await sleep(200);
	assert.equal((await d.postCase({ code: 5 })).status, 400);
	assert.equal((await slow2).status, 201);
});

// A case that sleeps (usleep) rather than spins: two spinning workers on two
// shared cores starve the daemon's threads, and under valgrind a request may
// not even be accepted for hundreds of ms.
const napCode = (ms) => `usleep(${ms * 1000}); return 1;`;

// GET on one kept-alive connection: the next request starts only after the
// daemon has completed the previous one, so a poll never counts itself twice.
function getKept(d, agent, urlPath) {
	return new Promise((resolve, reject) => {
		http.get({ host: '127.0.0.1', port: d.port, path: urlPath, agent }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				resolve({ status: res.statusCode, headers: res.headers, text, json: JSON.parse(text) });
			});
		}).on('error', reject);
	});
}

test('requests served at once are bounded: 503 busy and closed, then served again', async () => {
	const d = await start({ name: 'bounds-conns', extraArgs: ['--max-connections', '2'] });
	assert.equal(d.health.limits.max_connections, 2);
	// Idle connections (no request yet) hold no place: slow clients are
	// bounded by the header deadline and the per-client limit instead.
	const idle = [];
	for (let i = 0; i < 4; i++) {
		const s = net.connect(d.port, '127.0.0.1');
		await new Promise((res, rej) => { s.once('connect', res); s.once('error', rej); });
		idle.push(s);
	}
	await sleep(200);
	// No fixed wait: each step polls until the daemon shows it (on a loaded
	// machine or under valgrind a request may reach it seconds late).
	const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
	assert.equal((await getKept(d, agent, '/api/health')).status, 200);
	const settled = [false, false];
	const track = (i, p) => { settled[i] = false; return p.then((x) => { settled[i] = true; return x; }); };
	// One request served plus the poll: 2, within the bound.
	const slow = [track(0, d.postCase({ code: napCode(3000) }))];
	for (const deadline = Date.now() + 60_000; ;) {
		const h = await getKept(d, agent, '/api/health');
		assert.equal(h.status, 200, `one case request and the poll are within max-connections 2: ${h.text}`);
		if (h.json.limits.case_requests === 1) break;
		assert.ok(Date.now() < deadline && !settled[0], 'the slow case request never showed in /api/health');
		await sleep(20);
	}
	// A second one fills it: the poll is refused from the moment the daemon
	// reads that request's headers, and a 200 before then must not count it.
	// Its headers may come while a poll is served: then it is the third and
	// refused itself (honestly), and it is sent again.
	let r;
	for (let attempt = 1; ; attempt++) {
		slow[1] = track(1, d.postCase({ code: napCode(3000) }));
		for (;;) {
			r = await getKept(d, agent, '/api/health');
			if (r.status !== 200 || settled[1]) break;
			assert.equal(r.json.limits.case_requests, 1, `a 200 while both case requests were served: ${r.text}`);
			assert.ok(!settled[0], 'the first case request ended and the second never filled max-connections');
			await sleep(20);
		}
		if (r.status !== 200) {
			// A refused request is counted until its 503 is sent: a poll in
			// that moment is refused too.  The refused one settles at once,
			// a served one only after its nap.
			await Promise.race([slow[1], sleep(500)]);
			if (!settled[1]) break;
		}
		const refused = await slow[1];
		assert.equal(refused.status, 503, `the second case request ended at once: ${refused.text}`);
		assert.match(refused.json.error.message, /max-connections/);
		assert.ok(attempt < 10, 'the second case request was refused 10 times');
	}
	agent.destroy();
	assert.equal(r.status, 503, r.text);
	assert.equal(r.json.error.code, 'busy');
	assert.match(r.json.error.message, /max-connections/);
	assert.equal(r.headers['retry-after'], '1');
	assert.equal(r.headers.connection, 'close');
	for (const s of idle) s.destroy();
	for (const p of slow) assert.equal((await p).status, 201);
	assert.equal((await d.get('/api/health')).status, 200);
	assert.equal((await d.postCase({ code: '[3]' })).status, 201);
});

test('defaults are reported by /api/health', async () => {
	const d = await start({ name: 'bounds-defaults' });
	assert.deepEqual(d.health.limits, {
		max_connections: 128, max_client_connections: 256, max_client_uploads: 16, max_case_requests: 64, max_queued_runs: 16,
		max_body_bytes: 1 << 20, max_code_bytes: 256 << 10, max_output_bytes: 16 << 20,
		max_printed_bytes: 1 << 20, db_max_bytes: 4 * 2 ** 30, case_requests: 0,
		measure_budget_ms: 5000, reduce_case_timeout_ms: 1000, reduce_max_pending: 64,
	});
});

test('output caps are explicit in results: printed cut at 1 MiB, an output over 16 MiB not kept', async () => {
	const d = await start({ name: 'bounds-output' });
	// Printed: kept up to the cap, the note after it, "truncated" says so.
	let c = await d.runCase({ code: "echo str_repeat('p', 3 << 20); return 1;" });
	for (const role of ['base', 'head']) {
		const r = c.results[role];
		assert.equal(r.status, 'ok');
		assert.deepEqual(r.truncated, ['printed'], role);
		// Over 64 KiB, the answer links to the bytes instead of holding them.
		assert.deepEqual(r.omitted, ['printed'], role);
		assert.equal(r.printed_base64, null);
		const printed = (await d.get(r.printed_url)).raw;
		assert.equal(r.printed_size, printed.length);
		assert.equal(printed.length, (1 << 20) + '\n[phpcmp: output truncated]'.length);
		assert.ok(printed.toString('latin1').endsWith('p\n[phpcmp: output truncated]'));
	}
	// Under the cap: nothing said.
	c = await d.runCase({ code: "echo 'short'; return 2;" });
	assert.deepEqual(c.results.base.truncated, []);
	// An output over 16 MiB: an error naming its size and md5, so builds still compare.
	c = await d.runCase({ code: "str_repeat('a', 17 << 20)" });
	const size = (17 << 20) + 2;
	for (const role of ['base', 'head']) {
		const r = c.results[role];
		assert.equal(r.status, 'error', role);
		assert.equal(r.output, false);
		assert.deepEqual(r.truncated, ['output']);
		assert.match(r.failure, new RegExp(`^json_encode output too large to keep \\(${size} bytes, md5 [0-9a-f]{32}, over the 16777216 byte limit\\)`));
	}
	assert.equal(c.verdict, 'same');
	c = await d.runCase({ code: "str_repeat(PHP_VERSION, 3 << 20)" });
	assert.equal(c.verdict, 'differ', 'the md5 tells 8.2.32 from 8.2.36');
	assert.equal((await d.get('/api/health')).status, 200);
});
