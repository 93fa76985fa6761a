// The daemon and its builds: /api/health, /api/flags, the page at /.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, BUILDS, Daemon, HEAD_VERSION, sha256File, tmpDir } from './helper.mjs';

const WORKER_STATES = ['stopped', 'ready', 'busy', 'backoff', 'failed'];

let d;
before(async () => { d = await Daemon.start({ name: 'health' }); });
after(async () => { await d?.stopClean(); });

function libOf(name) {
	return path.join(BUILDS, name, 'usr/lib/libphp8.2.so');
}

test('health lists both real builds with version, library, sha256 and worker state', async () => {
	const r = await d.get('/api/health');
	assert.equal(r.status, 200);
	assert.match(r.headers['content-type'], /^application\/json/);
	const h = r.json;
	assert.equal(h.status, 'ok');
	assert.equal(h.version, '0.1.0');
	assert.equal(typeof h.db, 'string');
	assert.equal(typeof h.uptime_s, 'number');
	assert.ok(Array.isArray(h.builds), 'builds is an array');
	assert.deepEqual(h.builds.map((b) => b.name), ['base', 'head']);
	const want = { base: BASE_VERSION, head: HEAD_VERSION };
	for (const b of h.builds) {
		assert.equal(b.php_version, want[b.name], `${b.name} php_version`);
		assert.equal(fs.realpathSync(b.library), fs.realpathSync(libOf(b.name)), `${b.name} library path`);
		assert.match(b.sha256, /^[0-9a-f]{64}$/);
		assert.equal(b.sha256, sha256File(libOf(b.name)), `${b.name} sha256 is the library's`);
		assert.equal(typeof b.prefix, 'string');
		assert.equal(fs.realpathSync(b.prefix), fs.realpathSync(path.join(BUILDS, b.name)));
		assert.equal(typeof b.worker, 'object');
		assert.ok(WORKER_STATES.includes(b.worker.state), `worker state ${b.worker.state}`);
		assert.equal(typeof b.worker.restarts, 'number');
		assert.equal(typeof b.worker.cases_run, 'number');
	}
	assert.notEqual(h.builds[0].sha256, h.builds[1].sha256, 'two different libraries');
});

test('each build says its kind (Debian, release); two of one kind: no warning', async () => {
	const h = (await d.get('/api/health')).json;
	assert.deepEqual(h.builds.map((b) => b.kind), ['debian release', 'debian release']);
	assert.ok(h.builds.every((b) => b.warning === undefined), 'no warning between two Debian builds');
	assert.doesNotMatch(d.output, /counts do not compare/);
});

test('after a case, both workers are ready, have a pid and count the case', async () => {
	const before = (await d.get('/api/health')).json;
	const res = await d.runCase({ code: '1 + 1' });
	assert.equal(res.verdict, 'same');
	const h = (await d.get('/api/health')).json;
	for (const b of h.builds) {
		assert.equal(b.worker.state, 'ready', `${b.name} worker state`);
		assert.ok(Number.isInteger(b.worker.pid) && b.worker.pid > 0, `${b.name} worker pid ${b.worker.pid}`);
		const prev = before.builds.find((x) => x.name === b.name).worker.cases_run;
		assert.equal(b.worker.cases_run, prev + 1, `${b.name} cases_run`);
		assert.notEqual(b.worker.pid, process.pid);
	}
	assert.notEqual(h.builds[0].worker.pid, h.builds[1].worker.pid, 'one process per build');
});

test('GET /api/flags lists the json_encode flags with their values', async () => {
	const r = await d.get('/api/flags');
	assert.equal(r.status, 200);
	const got = Object.fromEntries(r.json.flags.map((f) => [f.name, f.value]));
	assert.deepEqual(got, {
		JSON_HEX_TAG: 1,
		JSON_HEX_AMP: 2,
		JSON_HEX_APOS: 4,
		JSON_HEX_QUOT: 8,
		JSON_FORCE_OBJECT: 16,
		JSON_NUMERIC_CHECK: 32,
		JSON_UNESCAPED_SLASHES: 64,
		JSON_PRETTY_PRINT: 128,
		JSON_UNESCAPED_UNICODE: 256,
		JSON_PARTIAL_OUTPUT_ON_ERROR: 512,
		JSON_PRESERVE_ZERO_FRACTION: 1024,
		JSON_UNESCAPED_LINE_TERMINATORS: 2048,
		JSON_INVALID_UTF8_IGNORE: 1048576,
		JSON_INVALID_UTF8_SUBSTITUTE: 2097152,
		JSON_THROW_ON_ERROR: 4194304,
	});
});

test('GET / serves the page as HTML', async () => {
	const r = await d.get('/');
	assert.equal(r.status, 200);
	assert.match(r.headers['content-type'], /^text\/html/);
	assert.match(r.text, /<!doctype html|<html/i);
});

// A browser asks for /favicon.ico for any document without an icon link (a
// JSON answer opened in a tab): a 404 there was a console error a browser
// test could catch a moment later.
test('GET /favicon.ico is an icon', async () => {
	const r = await d.get('/favicon.ico');
	assert.equal(r.status, 200);
	assert.equal(r.headers['content-type'], 'image/x-icon');
	assert.deepEqual([...r.raw.subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');
});

test('the page does not serve files outside web/', async () => {
	for (const p of ['/../Makefile', '/%2e%2e/Makefile', '/..%2fMakefile', '/../../etc/passwd']) {
		const r = await d.get(p);
		assert.ok(r.status === 404 || r.status === 400, `${p} -> ${r.status}`);
		assert.doesNotMatch(r.text, /root:x:0:0|SANITIZE/, `${p} leaked a file`);
	}
});

test('HEAD is answered like GET, without a body', async () => {
	const r = await d.request('HEAD', '/api/health');
	assert.equal(r.status, 200);
	assert.match(r.headers['content-type'], /^application\/json/);
	assert.equal(r.raw.length, 0);
});

test('a build prefix without libphp is refused at startup, naming it', async () => {
	const bad = tmpDir('phpcmp-nobuild-');
	let d2;
	await assert.rejects(
		(async () => { d2 = await Daemon.start({ name: 'health-badbuild', builds: { head: bad } }); })(),
		(e) => {
			assert.match(e.message, /daemon exited during startup \(\{"code":[1-9]/, e.message);
			assert.ok(e.message.includes(bad), `names the prefix: ${e.message}`);
			return true;
		},
	);
	if (d2) await d2.stop();
});
