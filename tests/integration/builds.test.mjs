// Builds that come and go while the daemon runs (issue 25, part 2): GET,
// POST and DELETE /api/builds on a running daemon — no restart; a run names
// the builds it compares; runs before and after a build is retired stay
// readable; a retired build's workers stop and do not start again; a run
// that would lose its build is protected; a prefix must lie in the builds
// folder (--builds-dir), whatever a client sends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, BUILDS, Daemon, HEAD_VERSION, processGone, slowCases, tmpDir } from './helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The builds folder: entries linking to the real builds, as
// scripts/build-php.sh links its cached trees into builds/.
const dir = tmpDir('phpcmp-builds-dir-');
fs.symlinkSync(path.join(BUILDS, 'head'), path.join(dir, 'head-again'));
fs.symlinkSync(path.join(BUILDS, 'base'), path.join(dir, 'base-again'));
fs.mkdirSync(path.join(dir, 'empty'));

let d;
before(async () => {
	// Stored cases that take a while: a run that is still going when a
	// build it compares is asked to retire.
	d = await Daemon.start({ name: 'builds', cases: slowCases(6, 150), extraArgs: ['--builds-dir', dir] });
});
after(async () => {
	if (d) await d.stopClean();
});

const names = (list) => list.map((b) => [b.name, b.role, b.state]);

test('GET /api/builds lists the startup builds by role, with the builds folder', async () => {
	const r = await d.get('/api/builds');
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(names(r.json.builds), [['base', 'base', 'active'], ['head', 'head', 'active']]);
	assert.equal(r.json.builds_dir, dir);
	assert.equal(r.json.builds[1].php_version, HEAD_VERSION);
	assert.equal(r.json.builds[0].worker.state, 'ready');
});

test('a prefix outside the builds folder, or with "..", is refused before anything is read', async () => {
	const post = (body) => d.request('POST', '/api/builds', { body });
	let r = await post({ name: 'x', prefix: path.join(BUILDS, 'head') });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /must lie in the daemon's builds folder/);
	r = await post({ name: 'x', prefix: '/etc' });
	assert.equal(r.status, 400, r.text);
	r = await post({ name: 'x', prefix: 'head-again/../../..' });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /no "\.\."/);
	r = await post({ name: 'x', prefix: 'not-there' });
	assert.equal(r.status, 404, r.text);
	r = await post({ name: 'x', prefix: 'empty' });
	assert.equal(r.status, 422, r.text);
	assert.equal(r.json.error.code, 'not_a_build');
	assert.match(r.json.error.message, /no libphp/);
	r = await post({ name: 'bad name', prefix: 'head-again' });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /^name:/);
	r = await post({ name: 'x', prefix: 'head-again', flavour: 'release' });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /unknown field "flavour"/);
	r = await post({ name: 'head', prefix: 'head-again' });
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error.code, 'build_exists');
	// A write from another site's page is refused, DELETE as POST.
	r = await d.request('DELETE', '/api/builds/head', { headers: { Origin: 'http://evil.example' } });
	assert.equal(r.status, 403, r.text);
	assert.deepEqual(names((await d.get('/api/builds')).json.builds), [['base', 'base', 'active'], ['head', 'head', 'active']]);
});

let before3; // a run on the first two builds, made before any was added
test('a build registered while the daemon runs: its worker starts, cases and runs include it', async () => {
	before3 = (await d.request('POST', '/api/runs?wait=60', { body: { suite: 'stored' } })).json;
	assert.equal(before3.status, 'done', JSON.stringify(before3));

	const r = await d.request('POST', '/api/builds', { body: { name: 'pr@1', prefix: 'head-again' } });
	assert.equal(r.status, 201, r.text);
	assert.deepEqual([r.json.name, r.json.role, r.json.state, r.json.php_version], ['pr@1', 'cand2', 'active', HEAD_VERSION]);
	assert.equal(r.json.worker.state, 'ready');
	assert.ok(r.json.worker.pid > 0);
	assert.deepEqual((await d.get('/api/health')).json.builds.map((b) => b.name), ['base', 'head', 'pr@1']);

	// A case now runs on the three; head and pr@1 are the same library.
	const c = await d.postCase({ code: '1.5' });
	assert.equal(c.status, 201, c.text);
	assert.deepEqual(Object.keys(c.json.results).sort(), ['base', 'cand2', 'head']);
	assert.equal(c.json.results.cand2.build, 'pr@1');

	// A run that names its builds compares those, in that order.
	const run = (await d.request('POST', '/api/runs?wait=60', { body: { suite: 'stored', builds: ['base', 'pr@1'] } })).json;
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.deepEqual(run.build_list.map((b) => [b.role, b.name]), [['base', 'base'], ['head', 'pr@1']]);
	assert.equal(run.build_list[1].version, HEAD_VERSION);
	assert.equal(run.counts.same + run.counts.differ, 6);
	for (const bad of [['base'], ['base', 'nope'], ['base', 'head', 'base'], 'base', [1, 2]]) {
		const x = await d.request('POST', '/api/runs', { body: { suite: 'stored', builds: bad } });
		assert.equal(x.status, 400, `${JSON.stringify(bad)}: ${x.text}`);
		assert.match(x.json.error.message, /^builds/);
	}
});

test('retiring: not the base nor the last two, not under a run; then its workers stop and it stays in history', async () => {
	let r = await d.request('DELETE', '/api/builds/base');
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error.code, 'build_needed');
	r = await d.request('DELETE', '/api/builds/nope');
	assert.equal(r.status, 404, r.text);

	// A run comparing pr@1 is going: it keeps its build.
	const going = (await d.request('POST', '/api/runs', { body: { suite: 'stored', builds: ['base', 'pr@1'] } })).json;
	await d.waitRun(going.id, { done: (run) => run.status === 'running' });
	r = await d.request('DELETE', '/api/builds/pr@1');
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error.code, 'build_in_use');
	assert.equal((await d.request('POST', `/api/runs/${going.id}/cancel`)).status, 200);
	await d.waitRun(going.id);

	const pid = (await d.get('/api/builds')).json.builds.find((b) => b.name === 'pr@1').worker.pid;
	assert.ok(pid > 0);
	r = await d.request('DELETE', '/api/builds/pr@1');
	assert.equal(r.status, 200, r.text);
	assert.deepEqual([r.json.name, r.json.role, r.json.state], ['pr@1', null, 'retired']);
	for (let i = 0; i < 100 && !processGone(pid); i++) await sleep(50);
	assert.ok(processGone(pid), `pr@1's worker ${pid} still runs`);
	assert.deepEqual(names((await d.get('/api/builds')).json.builds),
		[['base', 'base', 'active'], ['head', 'head', 'active'], ['pr@1', null, 'retired']]);
	r = await d.request('DELETE', '/api/builds/head');
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error.code, 'build_needed');

	// Cases and runs now compare the two left; no worker of pr@1 starts again.
	const c = await d.postCase({ code: '2.5' });
	assert.deepEqual(Object.keys(c.json.results).sort(), ['base', 'head']);
	r = await d.request('POST', '/api/runs', { body: { suite: 'stored', builds: ['base', 'pr@1'] } });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /no active build is named "pr@1"/);

	// The runs made before stay readable, with the builds they compared.
	const old = (await d.get(`/api/runs/${before3.id}`)).json;
	assert.deepEqual(old.build_list.map((b) => b.name), ['base', 'head']);
	const cancelled = (await d.get(`/api/runs/${going.id}`)).json;
	assert.deepEqual(cancelled.build_list.map((b) => [b.name, b.version]), [['base', BASE_VERSION], ['pr@1', HEAD_VERSION]]);
	assert.equal((await d.get(`/api/runs/${going.id}/cases`)).status, 200);
	// It cannot resume without its build...
	r = await d.request('POST', `/api/runs/${going.id}/resume`);
	assert.equal(r.status, 409, r.text);
	assert.match(r.json.error.message, /was made with build pr@1, which is not among this daemon's active builds/);

	// ...and does once the same build is registered again (a new life, the same library).
	r = await d.request('POST', '/api/builds', { body: { name: 'pr@1', prefix: path.join(dir, 'head-again') } });
	assert.equal(r.status, 201, r.text);
	assert.equal(r.json.role, 'cand2');
	r = await d.request('POST', `/api/runs/${going.id}/resume`);
	assert.equal(r.status, 202, r.text);
	const resumed = await d.waitRun(going.id);
	assert.equal(resumed.status, 'done', JSON.stringify(resumed));
	assert.equal(resumed.done, 6);
	assert.ok(!d.output.includes('AddressSanitizer'));
});

test('POST /api/reviews keeps a review (phpcmp review --url\'s last step); GET lists it and gives its report', async () => {
	const run = (await d.get('/api/runs')).json.runs[0];
	const good = { label: 'pr-1234', verdict: 'differ', builds: [{ name: 'base', daemon_name: 'review-base' }],
		runs: { generated: run.id }, report_md: '### phpcmp review: **differences**\n\n<script>alert(1)</script>\n' };
	const post = (body) => d.request('POST', '/api/reviews', { body });
	for (const [body, re] of [
		[{ ...good, label: 'a b' }, /^label:/],
		[{ ...good, verdict: 'maybe' }, /^verdict:/],
		[{ ...good, report_md: 1 }, /^report_md:/],
		[{ ...good, builds: {} }, /^builds:/],
		[{ ...good, builds: [{}] }, /^builds\[0\]:/],
		[{ ...good, runs: { generated: 'x' } }, /^runs\.generated: expected a run id/],
		[{ ...good, runs: { generated: 999999 } }, /^runs\.generated: no run 999999/],
		[{ ...good, extra: 1 }, /unknown field "extra"/],
	]) {
		const r = await post(body);
		assert.equal(r.status, 400, r.text);
		assert.match(r.json.error.message, re);
	}
	assert.deepEqual((await d.get('/api/reviews')).json.reviews, []);
	const r = await post(good);
	assert.equal(r.status, 201, r.text);
	assert.equal(r.headers.location, `/api/reviews/${r.json.id}`);
	assert.deepEqual([r.json.label, r.json.verdict, r.json.runs, r.json.report_md], [good.label, good.verdict, good.runs, good.report_md]);
	const list = (await d.get('/api/reviews')).json;
	assert.deepEqual(list.reviews.map((x) => [x.id, x.label, 'report_md' in x]), [[r.json.id, 'pr-1234', false]]);
	assert.equal(list.next, null);
	assert.equal((await d.get(`/api/reviews/${r.json.id}`)).json.report_md, good.report_md);
	assert.equal((await d.get('/api/reviews/999')).status, 404);
	assert.equal((await d.get('/api/reviews/x')).status, 404);
});
