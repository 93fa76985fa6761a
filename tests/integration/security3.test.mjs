// Issue 19, the third security pass, the minor findings: frame and script
// policy on every answer, a front door that refuses a missing, repeated or
// mis-ported Host (and repeated Origin / Content-Type) with 400, health
// under --read-auth that tells a reader without rights only that the daemon
// is up and its builds' names, and a case's HTTP response code or headers
// that do not carry into the next case.
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, runCli, tableCounts, tmpDir } from './helper.mjs';

let d;
const daemons = [];
before(async () => {
	d = await Daemon.start({ name: 'security3' });
	daemons.push(d);
	await d.runCase({ code: '1' });
});
after(async () => { for (const x of daemons) await x.stopClean(); });

// One request written by hand on a fresh connection (any headers, repeated
// ones too), read until the answer is complete, the server closes, or 5 s.
function rawHttp(port, text, { timeoutMs = 5000 } = {}) {
	return new Promise((resolve, reject) => {
		const s = net.connect(port, '127.0.0.1');
		const chunks = [];
		const done = () => { clearTimeout(timer); s.destroy(); resolve(parse(Buffer.concat(chunks))); };
		const timer = setTimeout(done, timeoutMs);
		s.on('data', (c) => {
			chunks.push(c);
			const b = Buffer.concat(chunks).toString('latin1');
			const m = /\r\ncontent-length: *(\d+)/i.exec(b);
			const end = b.indexOf('\r\n\r\n');
			if (m && end >= 0 && b.length >= end + 4 + Number(m[1])) done();
		});
		s.on('end', done);
		s.on('error', (e) => { clearTimeout(timer); if (chunks.length) resolve(parse(Buffer.concat(chunks))); else reject(e); });
		s.write(text);
	});
	function parse(buf) {
		const t = buf.toString('latin1');
		const m = /^HTTP\/1\.[01] (\d{3})/.exec(t);
		const head = t.slice(0, t.indexOf('\r\n\r\n'));
		const body = t.slice(t.indexOf('\r\n\r\n') + 4);
		let json;
		try { json = JSON.parse(body); } catch { json = undefined; }
		return { status: m ? Number(m[1]) : 0, head, body, json };
	}
}

test('every answer, page and API, forbids framing and foreign scripts', async () => {
	for (const p of ['/', '/index.html', '/js/main.js', '/api/health', '/api/cases', '/api/cases/999999', '/nope']) {
		const r = await d.get(p);
		assert.ok([200, 404].includes(r.status), `${p}: ${r.status}`);
		const csp = r.headers['content-security-policy'] || '';
		assert.match(csp, /frame-ancestors 'none'/, `${p}: CSP ${csp}`);
		assert.match(csp, /script-src 'self'(;|$)/, `${p}: CSP ${csp}`);
		assert.equal(r.headers['x-frame-options'], 'DENY', p);
		assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
	}
	const w = await d.request('POST', '/api/cases', { body: { code: '2' } });
	assert.equal(w.status, 201);
	assert.equal(w.headers['x-frame-options'], 'DENY');
	// A 304 (If-None-Match) carries them too.
	const first = await d.get('/index.html');
	const again = await d.get('/index.html', { headers: { 'If-None-Match': first.headers.etag } });
	assert.equal(again.status, 304);
	assert.equal(again.headers['x-frame-options'], 'DENY');
});

// A refusal at the front door: 400 bad_request, the message naming why, nothing written.
async function refused(text, re, status = 400, code = 'bad_request') {
	const before = tableCounts(d.db);
	const r = await rawHttp(d.port, text);
	assert.equal(r.status, status, `${JSON.stringify(text)} -> ${r.head}\n${r.body}`);
	assert.equal(r.json?.error?.code, code, r.body);
	assert.match(r.json.error.message, re);
	assert.deepEqual(tableCounts(d.db), before, 'nothing written');
}

test('no Host, a repeated Host, Origin or Content-Type, a Host port that is not the daemon\'s: 400', async () => {
	const body = '{"code":"\\"x\\""}';
	const post = (headers) => `POST /api/cases HTTP/1.1\r\n${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
	const json = 'Content-Type: application/json\r\n';
	const host = `Host: 127.0.0.1:${d.port}\r\n`;
	// HTTP/1.0 lets a client leave Host out: the daemon does not.
	await refused('GET /api/health HTTP/1.0\r\n\r\n', /no Host header/);
	await refused(`POST /api/cases HTTP/1.0\r\n${json}Content-Length: ${body.length}\r\n\r\n${body}`, /no Host header/);
	await refused(post(`${host}Host: evil.example\r\n${json}`), /2 Host headers/);
	await refused(`GET /api/health HTTP/1.1\r\n${host}${host}Connection: close\r\n\r\n`, /2 Host headers/);
	await refused(post(`${host}Origin: http://127.0.0.1:${d.port}\r\nOrigin: http://evil.example\r\n${json}`), /2 Origin headers/);
	await refused(post(`${host}${json}Content-Type: text/plain\r\n`), /2 Content-Type headers/);
	await refused(post(`Host: localhost:abc\r\n${json}`), /localhost:abc: a port that is not a number/);
	await refused(post(`Host: 127.0.0.1:1@evil.com\r\n${json}`), /a port that is not a number/);
	await refused(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${d.port}@evil.com\r\nConnection: close\r\n\r\n`, /a port that is not a number/);
	await refused(post(`Host: 127.0.0.1:1\r\n${json}`), new RegExp(`port 1 is not this daemon's \\(${d.port}\\)`));
	await refused(post(`Host: localhost:${d.port + 1}\r\n${json}`), /is not this daemon's/);
	await refused(post(`Host: [::1\r\n${json}`), /closing/);
	// The name is still checked first: a foreign name with the right port is 403.
	await refused(post(`Host: evil.example:${d.port}\r\n${json}`), /not a name this daemon answers for/, 403, 'host_not_allowed');
	// What is right still works: the daemon's port, or none; one of each header.
	for (const h of [host, 'Host: 127.0.0.1\r\n', `Host: localhost:${d.port}\r\n`]) {
		const r = await rawHttp(d.port, `GET /api/health HTTP/1.1\r\n${h}Connection: close\r\n\r\n`);
		assert.equal(r.status, 200, `${h}: ${r.head}`);
	}
	const ok = await rawHttp(d.port, post(`${host}Origin: http://127.0.0.1:${d.port}\r\n${json}`));
	assert.equal(ok.status, 201, ok.body);
});

test('--read-auth: health without read rights shows only that it is up and the builds\' names', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const r = await runCli(['token', 'add', 'reader', '--db', db]);
	assert.equal(r.code, 0, r.stderr);
	const token = r.stdout.trim();
	const ra = await Daemon.start({ name: 'security3-read-auth', db, extraArgs: ['--read-auth', 'on'] });
	daemons.push(ra);
	for (const headers of [{}, { Authorization: 'Bearer phpcmp_wrong' }]) {
		const h = await ra.get('/api/health', { headers });
		assert.equal(h.status, 200);
		assert.deepEqual(Object.keys(h.json).sort(), ['auth', 'builds', 'status']);
		assert.equal(h.json.status, 'ok');
		assert.deepEqual(h.json.builds, [{ name: 'base', role: 'base' }, { name: 'head', role: 'head' }]);
		assert.deepEqual(h.json.auth, { writes: 'token', reads: 'token' });
		assert.ok(!/"pid"|\/|sha256|library/.test(h.text), `nothing of workers or paths: ${h.text}`);
	}
	// With read rights: everything, worker pids and paths included.
	const full = await ra.get('/api/health', { headers: { Authorization: `Bearer ${token}` } });
	assert.equal(full.status, 200);
	assert.ok(full.json.builds[0].worker.pid > 0);
	assert.match(full.json.builds[0].library, /^\//);
	assert.equal(full.json.db, db);
});

test('http_response_code() and header() of one case do not carry into the next', async () => {
	// headers_list() holds X-Powered-By, which names each build's version: counted.
	const probe = '[http_response_code(), count(headers_list())]';
	const fresh = await d.runCase({ code: probe });
	assert.equal(fresh.verdict, 'same', JSON.stringify(fresh.results));
	const baseline = fresh.results.base.output;
	assert.equal(baseline, '[false,1]');
	const setters = [
		{ code: 'http_response_code(418)' },
		{ setup: 'header("Location: /elsewhere");', code: 'http_response_code()' },
		{ setup: 'header("X-Leak: 1"); http_response_code(503); header("HTTP/1.1 451 Unavailable");', code: 'count(headers_list())' },
	];
	for (const c of setters) {
		const code = JSON.stringify(c);
		const r = await d.runCase(c);
		assert.equal(r.results.base.status, 'ok', JSON.stringify(r.results.base));
		// Both builds' workers, three times: whichever worker runs it next.
		for (let i = 0; i < 3; i++) {
			const next = await d.runCase({ code: `/* ${i} */ ${probe}` });
			assert.equal(next.results.base.output, baseline, `after ${code}: ${next.results.base.output}`);
			assert.equal(next.results.head.output, baseline, `after ${code}: ${next.results.head.output}`);
		}
	}
});
