// Issue 9, the second security pass: the front door (server/daemon/http/http.c)
// refuses what a browser on another site, a DNS-rebinding page or a
// smuggling client could send; each refusal writes nothing.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { Daemon, tableCounts } from './helper.mjs';

let d;
before(async () => {
	d = await Daemon.start({ name: 'security', extraArgs: ['--host', 'phpcmp.test'] });
	await d.runCase({ code: '1' });
});
after(async () => { await d?.stopClean(); });

// One request written by hand on a fresh connection: any bytes, any headers
// (duplicates too), read until the server closes or 5 s pass.
function rawHttp(port, text, { timeoutMs = 5000 } = {}) {
	return new Promise((resolve, reject) => {
		const s = net.connect(port, '127.0.0.1');
		const chunks = [];
		const timer = setTimeout(() => { s.destroy(); resolve(parse(Buffer.concat(chunks))); }, timeoutMs);
		s.on('data', (c) => {
			chunks.push(c);
			const b = Buffer.concat(chunks).toString('latin1');
			const m = /\r\ncontent-length: *(\d+)/i.exec(b);
			const end = b.indexOf('\r\n\r\n');
			if (m && end >= 0 && b.length >= end + 4 + Number(m[1])) { clearTimeout(timer); s.destroy(); resolve(parse(Buffer.concat(chunks))); }
		});
		s.on('end', () => { clearTimeout(timer); resolve(parse(Buffer.concat(chunks))); });
		s.on('error', (e) => { clearTimeout(timer); if (chunks.length) resolve(parse(Buffer.concat(chunks))); else reject(e); });
		s.write(text);
	});
	function parse(buf) {
		const t = buf.toString('latin1');
		const m = /^HTTP\/1\.[01] (\d{3})/.exec(t);
		const body = t.slice(t.indexOf('\r\n\r\n') + 4);
		let json;
		try { json = JSON.parse(body); } catch { json = undefined; }
		return { status: m ? Number(m[1]) : 0, text: t, body, json };
	}
}

async function refusedWrite(opts, status, code, re) {
	const before = tableCounts(d.db);
	const r = await d.request('POST', '/api/cases', { body: '{"code":"\\"x\\""}', ...opts });
	assert.equal(r.status, status, `${JSON.stringify(opts.headers)} -> ${r.status} ${r.text}`);
	assert.equal(r.json?.error?.code, code, r.text);
	if (re) assert.match(r.json.error.message, re);
	assert.deepEqual(tableCounts(d.db), before, 'nothing written');
	return r;
}

test('a write without Content-Type is refused: 415, nothing written', async () => {
	await refusedWrite({ headers: { 'Content-Type': null } }, 415, 'unsupported_media_type', /Content-Type/);
	await refusedWrite({ headers: { 'Content-Type': 'text/plain' } }, 415, 'unsupported_media_type');
	await refusedWrite({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }, 415, 'unsupported_media_type');
	// Body-less writes too (cancel, resume): a form or beacon can send those.
	const r = await d.request('POST', '/api/runs/1/cancel', { headers: { 'Content-Type': null } });
	assert.equal(r.status, 415, r.text);
});

test('the issue\'s request (no type, foreign Origin and Host) is refused', async () => {
	await refusedWrite({ headers: { 'Content-Type': null, Origin: 'http://evil.example', Host: 'evil.example' } }, 403, 'host_not_allowed');
});

test('a write from another origin is refused with 403', async () => {
	await refusedWrite({ headers: { Origin: 'http://evil.example' } }, 403, 'cross_origin', /evil\.example/);
	// Another port of the same loopback address is another origin.
	await refusedWrite({ headers: { Origin: `http://127.0.0.1:${d.port + 1}` } }, 403, 'cross_origin');
	await refusedWrite({ headers: { Origin: 'null' } }, 403, 'cross_origin');
	await refusedWrite({ headers: { 'Sec-Fetch-Site': 'cross-site' } }, 403, 'cross_origin', /Sec-Fetch-Site/);
	await refusedWrite({ headers: { 'Sec-Fetch-Site': 'same-site' } }, 403, 'cross_origin');
	// The daemon's own origin, and clients that send no Origin (curl, CI), write.
	for (const h of [{ Origin: `http://127.0.0.1:${d.port}` }, { 'Sec-Fetch-Site': 'same-origin', Origin: `http://127.0.0.1:${d.port}` },
		{ Host: `localhost:${d.port}`, Origin: `http://localhost:${d.port}` }, { 'Sec-Fetch-Site': 'none' }, {}]) {
		const r = await d.request('POST', '/api/cases', { body: { code: '2' }, headers: h });
		assert.equal(r.status, 201, `${JSON.stringify(h)} -> ${r.status} ${r.text}`);
	}
});

test('a Host the daemon does not answer for is refused (DNS rebinding), reads too', async () => {
	for (const host of ['evil.example', `evil.example:${d.port}`, '127.0.0.1.evil.example', 'localhost.evil.example']) {
		const r = await d.request('GET', '/api/health', { headers: { Host: host } });
		assert.equal(r.status, 403, `${host} -> ${r.status}`);
		assert.equal(r.json?.error?.code, 'host_not_allowed');
		const s = await d.request('GET', '/', { headers: { Host: host } });
		assert.equal(s.status, 403, `GET / with Host ${host}`);
	}
	await refusedWrite({ headers: { Host: 'evil.example' } }, 403, 'host_not_allowed', /--host/);
	for (const host of [`127.0.0.1:${d.port}`, '127.0.0.1', `localhost:${d.port}`, 'LOCALHOST', `phpcmp.test:${d.port}`, 'phpcmp.test']) {
		const r = await d.request('GET', '/api/health', { headers: { Host: host } });
		assert.equal(r.status, 200, `${host} -> ${r.status} ${r.text}`);
	}
});

test('NUL in a path or a query value is refused: 400', async () => {
	for (const p of ['/index.html%00../../etc/passwd', '/api/cases/1%00', '/api/cases?limit=5%00', '/api/cases?x%00=1', '/api/health%00']) {
		const r = await rawHttp(d.port, `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
		assert.equal(r.status, 400, `${p} -> ${r.status} ${r.text.slice(0, 200)}`);
		assert.equal(r.json?.error?.code, 'bad_request', p);
		assert.match(r.json.error.message, /NUL/);
	}
	const ok = await rawHttp(d.port, `GET /api/cases/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
	assert.equal(ok.status, 200);
});

test('two differing Content-Length headers (or one with Transfer-Encoding) are refused: 400', async () => {
	const before = tableCounts(d.db);
	const body = '{"code":"3"}';
	for (const lens of [[body.length, body.length + 5], [body.length + 5, body.length]]) {
		const r = await rawHttp(d.port, `POST /api/cases HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
			`Content-Length: ${lens[0]}\r\nContent-Length: ${lens[1]}\r\nConnection: close\r\n\r\n${body}     `);
		assert.equal(r.status, 400, `${lens} -> ${r.text.slice(0, 300)}`);
		assert.match(r.json?.error?.message || '', /Content-Length/);
	}
	const te = await rawHttp(d.port, `POST /api/cases HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
		`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
	assert.equal(te.status, 400, te.text.slice(0, 300));
	assert.deepEqual(tableCounts(d.db), before, 'nothing written');
	// The same length twice is one length.
	const same = await rawHttp(d.port, `POST /api/cases HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
		`Content-Length: ${body.length}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
	assert.equal(same.status, 201, same.text.slice(0, 300));
});

// The strict id parser is the layering work's (id_parse, one shared parser).
test('ids are strict: /api/cases/01, +5, 5x are no case', async () => {
	for (const p of ['/api/cases/01', '/api/cases/+1', '/api/cases/1x', '/api/cases/%201', '/api/runs/01', '/api/buckets/+1']) {
		const r = await d.get(p);
		assert.equal(r.status, 404, `${p} -> ${r.status}`);
	}
});
