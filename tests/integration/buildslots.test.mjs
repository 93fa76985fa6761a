// Registering builds on a running daemon cannot wear it out nor take
// another build's name (issue 44, items 3 and 4): 100 register/retire
// cycles leave it able to register; a name ending in ".asan" is an asan
// flavour's, and any name a build that is not retired has -- flavours too
// -- is 409 build_exists.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, srcBuild, tmpDir } from './helper.mjs';

const dir = tmpDir('phpcmp-buildslots-');
fs.symlinkSync(path.join(BUILDS, 'head'), path.join(dir, 'head-again'));
fs.symlinkSync(path.join(BUILDS, 'base'), path.join(dir, 'base-again'));

// The asan flavour of 8.2.32 (make php-builds), for --asan's "NAME.asan".
// (CI always has them; a machine that has not made them yet skips, and says so.)
const built = (name, target) => { try { return srcBuild(name, target); } catch { return null; } };
const ASAN = built('src-8.2.32-asan', 'flavour-builds');
const RELEASE = built('src-8.2.32');

let d;
before(async () => {
	d = await Daemon.start({ name: 'buildslots', extraArgs: ['--builds-dir', dir] });
});
after(async () => {
	if (d) await d.stopClean();
});

test('100 register/retire cycles, under changing names, then one more registration', async () => {
	for (let i = 0; i < 100; i++) {
		const name = i % 2 ? `loop-${i}` : 'loop';
		const prefix = i % 3 ? 'head-again' : 'base-again';
		let r = await d.request('POST', '/api/builds', { body: { name, prefix } });
		assert.equal(r.status, 201, `cycle ${i}: ${r.text}`);
		assert.equal(r.json.worker.state, 'ready');
		r = await d.request('DELETE', `/api/builds/${name}`);
		assert.equal(r.status, 200, `cycle ${i}: ${r.text}`);
	}
	const r = await d.request('POST', '/api/builds', { body: { name: 'after', prefix: 'head-again' } });
	assert.equal(r.status, 201, r.text);
	// It answers cases as the library it is.
	const c = await d.postCase({ code: 'PHP_VERSION' });
	assert.equal(c.status, 201, c.text);
	assert.equal(c.json.results.cand2.build, 'after');
	assert.equal(c.json.results.cand2.output, c.json.results.head.output);
	// Two libraries were cycled: the builds list holds two slots for them.
	const list = (await d.get('/api/builds')).json.builds;
	assert.ok(list.length <= 4, JSON.stringify(list.map((b) => [b.name, b.state])));
	assert.equal((await d.request('DELETE', '/api/builds/after')).status, 200);
});

test('a name ending in .asan is a flavour\'s; an active name is build_exists', async () => {
	let r = await d.request('POST', '/api/builds', { body: { name: 'head.asan', prefix: 'head-again' } });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /^name: .*asan flavour/);
	r = await d.request('POST', '/api/builds', { body: { name: 'head', prefix: 'head-again' } });
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error.code, 'build_exists');
});

test('with --asan head=…, "head.asan" is taken: 409 build_exists, and runs naming it get the flavour', { skip: !ASAN || !RELEASE ? 'no asan flavour build (make php-builds)' : false }, async () => {
	const a = await Daemon.start({ name: 'buildslots-asan',
		buildList: [['base', RELEASE], ['head', RELEASE]], extraArgs: ['--builds-dir', dir, '--asan', `head=${ASAN}`] });
	try {
		const r = await a.request('POST', '/api/builds', { body: { name: 'head.asan', prefix: 'head-again' } });
		assert.equal(r.status, 409, r.text);
		assert.equal(r.json.error.code, 'build_exists');
		const builds = (await a.get('/api/builds')).json.builds;
		assert.deepEqual(builds.filter((b) => b.name === 'head.asan').map((b) => b.asan_of), ['head']);
	} finally {
		await a.stopClean();
	}
});
