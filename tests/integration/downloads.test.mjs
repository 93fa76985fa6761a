// Issue 19, finding 4: large downloads do not stall everyone.  One case
// stores a 15 MB output; 140 clients ask for it and never read the answer.
// The daemon keeps one copy of the bytes however many download them (its
// resident memory stays within 64 MiB of where it was), sends at most 16
// downloads at once (the rest 503 busy at once), a download queued does not
// hold a place among --max-connections, and /api/health answers 200 in
// under 100 ms throughout without waiting for the database.  Loopback only;
// bounded: every socket is destroyed within 60 s whatever happens.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { Daemon, INSTRUMENTED, socketPool, WRAPPED } from './helper.mjs';

const underValgrind = WRAPPED &&
	'the daemon runs under a wrapper: its memory and latency are the wrapper\'s (asserted in the plain pass)';

let d;
const { sockets, stopAll, release } = socketPool();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// On the ASan/UBSan twin (the sanitizer pass: its binary is linked with
// libasan) the allocator keeps freed blocks in a quarantine (256 MB by
// default) and pads large ones: this daemon's quarantine is off, and the
// bound is the plain daemon's twice (measured: 32 MB plain, 60 MB ASan).
// Every other check of the sanitizer stays on.
const asan = [process.env.ASAN_OPTIONS, 'quarantine_size_mb=0'].filter(Boolean).join(':');
const GROWTH_MIB = INSTRUMENTED ? 128 : 64;
before(async () => { d = await Daemon.start({ name: 'downloads', env: { ASAN_OPTIONS: asan } }); });
after(async () => { release(); await d?.stopClean(); });

const rssKiB = (field = 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${d.proc.pid}/status`, 'utf8'))[1]);

// A client that asks for path and then reads nothing: what it got before
// pausing (the status line) is kept.
function neverReads(path) {
	return new Promise((resolve) => {
		const s = net.connect({ port: d.port, host: '127.0.0.1' });
		const st = { s, head: '', open: true };
		sockets.push(s);
		s.on('connect', () => {
			s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\n\r\n`);
			resolve(st);
		});
		s.once('data', (c) => { st.head = c.toString('latin1', 0, Math.min(c.length, 200)); s.pause(); });
		s.on('error', () => {});
		s.on('close', () => { st.open = false; resolve(st); });
	});
}

test('140 clients that never read a 15 MB output: one copy, 16 at once, health under 100 ms', { skip: underValgrind }, async () => {
	const c = await d.runCase({ code: 'str_repeat("a", 15 << 20)' });
	assert.equal(c.results.base.status, 'ok');
	assert.equal(c.results.base.output, null, 'too large for the answer: a link');
	const size = c.results.base.output_size;
	assert.equal(size, (15 << 20) + 2);
	const url = `/api/comparisons/${c.comparison_id}/output/base`;
	await sleep(500);
	const before = rssKiB();
	const readers = await Promise.all(Array.from({ length: 140 }, () => neverReads(url)));
	const times = [];
	const statuses = new Set();
	let peak = 0;
	const t0 = Date.now();
	while (Date.now() - t0 < 5000) {
		const s = performance.now();
		const h = await d.request('GET', '/api/health', { timeoutMs: 5000 });
		times.push(performance.now() - s);
		statuses.add(h.status);
		peak = Math.max(peak, rssKiB());
		await sleep(100);
	}
	// Ordinary work goes on.
	const w = await d.request('POST', '/api/cases', { body: { code: '[1]' } });
	assert.equal(w.status, 201, w.text);
	times.sort((a, b) => a - b);
	const p50 = times[Math.floor(times.length / 2)], p95 = times[Math.floor(times.length * 0.95)], max = times[times.length - 1];
	const sending = readers.filter((r) => /^HTTP\/1\.1 200/.test(r.head)).length;
	const busy = readers.filter((r) => /^HTTP\/1\.1 503/.test(r.head)).length;
	console.log(`# 140 unread downloads of ${size} bytes: ${sending} sending, ${busy} busy; daemon VmRSS ${before} kB before, ` +
		`peak ${peak} kB; health n=${times.length} p50=${p50.toFixed(1)} ms p95=${p95.toFixed(1)} ms max=${max.toFixed(1)} ms`);
	assert.deepEqual([...statuses], [200], 'health answered 200 every time');
	assert.ok(p95 < 100, `health p95 ${p95.toFixed(1)} ms`);
	assert.ok(sending <= 16 && sending >= 1, `${sending} downloads sent at once (at most 16)`);
	assert.equal(sending + busy, 140, 'every client got an answer at once: 200 or 503');
	assert.ok(peak - before < GROWTH_MIB * 1024,
		`the daemon grew by ${((peak - before) / 1024).toFixed(1)} MiB (at most ${GROWTH_MIB} MiB)`);
	stopAll();
	await sleep(500);
	// Once they are gone, the download is whole and exact.
	const r = await d.get(url);
	assert.equal(r.status, 200);
	assert.equal(r.raw.length, size);
	assert.equal(createHash('md5').update(r.raw).digest('hex'), c.results.base.output_md5);
	assert.equal(r.headers['content-type'], 'application/octet-stream');
	const h = await d.request('GET', '/api/health');
	assert.equal(h.status, 200);
});

test('downloads: the bytes, the printed text, and the 404s', async () => {
	const c = await d.runCase({ code: '[print("p\\x00q"), json_decode("[")]' });
	const out = await d.get(`/api/comparisons/${c.comparison_id}/output/head`);
	assert.equal(out.status, 200);
	assert.equal(out.text, '[1,null]');
	const pr = await d.get(`/api/comparisons/${c.comparison_id}/printed/base`);
	assert.equal(pr.status, 200);
	assert.deepEqual([...pr.raw], [0x70, 0, 0x71]);
	assert.equal((await d.get(`/api/comparisons/${c.comparison_id}/output/cand9`)).status, 404);
	const missing = await d.get('/api/comparisons/999999/output/base');
	assert.equal(missing.status, 404);
	assert.match(missing.json.error.message, /no comparison 999999/);
	const f = await d.runCase({ code: 'NAN' });
	const nf = await d.get(`/api/comparisons/${f.comparison_id}/output/base`);
	assert.equal(nf.status, 404);
	assert.match(nf.json.error.message, /json_encode\(\) returned false/);
});
