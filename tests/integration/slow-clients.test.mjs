// Issue 9: slow clients do not stall everyone.  500 connections, from two
// other loopback addresses, each sending one header line every 5 s (a
// slowloris): /api/health still answers in under 100 ms (1 s instrumented:
// helper's HEALTH_MS); the daemon cuts
// each one when its headers are 10 s overdue; one address cannot hold more
// than --max-client-connections.  Loopback only; bounded: every socket is
// destroyed within 30 s whatever happens.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { Daemon, HEALTH_MS, socketPool, WRAPPED } from './helper.mjs';

// Latency and connection counting against a plain daemon: under valgrind
// (make memcheck) the daemon's 500 connection threads run one at a time, so
// these figures say nothing there; the plain and ASan passes assert them.
const underValgrind = WRAPPED &&
	'the daemon runs under valgrind: its threads are serialised (asserted in the plain and ASan passes)';

let d;
const { sockets, release } = socketPool();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => { d = await Daemon.start({ name: 'slow-clients', extraArgs: ['--max-client-connections', '300'] }); });
after(async () => { release(); await d?.stopClean(); });

// A slowloris connection: the request line, then a header line every 5 s.
function slow(localAddress) {
	return new Promise((resolve) => {
		const s = net.connect({ port: d.port, host: '127.0.0.1', localAddress });
		const st = { s, open: false, closedAt: null, opened: 0 };
		sockets.push(s);
		let timer;
		s.on('connect', () => {
			st.open = true;
			st.opened = Date.now();
			s.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
			timer = setInterval(() => s.write(`X-Slow-${Date.now()}: 1\r\n`), 5000);
			resolve(st);
		});
		s.on('data', () => {});
		s.on('error', () => {});
		s.on('close', () => { clearInterval(timer); st.open = false; st.closedAt = Date.now(); resolve(st); });
	});
}

async function healthMs() {
	const t0 = performance.now();
	const r = await d.request('GET', '/api/health', { timeoutMs: 5000 });
	assert.equal(r.status, 200);
	return performance.now() - t0;
}

test(`500 slow connections: /api/health under ${HEALTH_MS} ms, each cut when its headers are overdue`, { skip: underValgrind }, async () => {
	const conns = await Promise.all(Array.from({ length: 500 }, (_, i) => slow(i % 2 ? '127.0.0.2' : '127.0.0.3')));
	await sleep(300);
	const open = conns.filter((c) => c.open).length;
	assert.equal(open, 500, 'all 500 are open (not refused)');
	const times = [];
	const t0 = Date.now();
	while (Date.now() - t0 < 8000) {
		times.push(await healthMs());
		await sleep(100);
	}
	times.sort((a, b) => a - b);
	const p50 = times[Math.floor(times.length / 2)], p95 = times[Math.floor(times.length * 0.95)], max = times[times.length - 1];
	console.log(`# health with 500 slow connections open: n=${times.length} p50=${p50.toFixed(1)} ms p95=${p95.toFixed(1)} ms max=${max.toFixed(1)} ms`);
	assert.ok(p95 < HEALTH_MS, `p95 ${p95.toFixed(1)} ms, bound ${HEALTH_MS} ms`);
	assert.ok(max < 1000, `max ${max.toFixed(1)} ms`);
	// Cut within a few seconds of the 10 s header deadline.
	await sleep(5000);
	const still = conns.filter((c) => c.open).length;
	assert.equal(still, 0, `${still} slow connections still open after 13 s`);
	for (const c of conns) assert.ok(c.closedAt - c.opened < 13_000, `cut after ${c.closedAt - c.opened} ms`);
	assert.ok(await healthMs() < HEALTH_MS);
});

test('one address holds at most --max-client-connections', { skip: underValgrind }, async () => {
	const conns = await Promise.all(Array.from({ length: 320 }, () => slow('127.0.0.4')));
	await sleep(500);
	const open = conns.filter((c) => c.open).length;
	assert.ok(open <= 300 && open >= 290, `${open} open from one address, limit 300`);
	assert.ok(await healthMs() < HEALTH_MS, 'other addresses are served');
	for (const c of conns) c.s.destroy();
});
