// Reference runtimes (issue 49): released PHP under node and WebAssembly
// (@php-wasm/node-X-Y, installed by `make web-deps`) as builds php-7.4 ...
// php-8.5 of kind "reference", on the real daemon: listed by /api/builds and
// health, in no run unless a run names one as its "base", a stored and a
// generated run against the native 8.2 builds, a hostile case that gets
// nothing of the host, and a reference that cannot start listed as failed
// while the daemon serves on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, Daemon, HEAD_VERSION, ROOT, tmpDir } from './helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const WANT = ['php-7.4', 'php-8.1', 'php-8.2', 'php-8.5'];

// What a hostile case would take from the host: a secret file, a TCP
// listener on loopback, a file a shell command would create.
const secretDir = tmpDir('phpcmp-ref-secret-');
const secret = `phpcmp-secret-${process.pid}-${Date.now()}`;
const secretFile = path.join(secretDir, 'secret.txt');
fs.writeFileSync(secretFile, secret);
const touched = path.join(secretDir, 'touched');
let connections = 0;
const listener = net.createServer((s) => { connections++; s.destroy(); });

function caseFile(dir, name, title, value) {
	fs.writeFileSync(path.join(dir, `${name}.phpt`), `--TEST--\n${title}\n--VALUE--\n${value}\n`);
}

let d, port;
before(async () => {
	await new Promise((r) => listener.listen(0, '127.0.0.1', r));
	port = listener.address().port;
	const cases = tmpDir('phpcmp-ref-cases-');
	caseFile(cases, '001-plain', 'a plain list', '[1, "a", 1.5]');
	caseFile(cases, '002-read', 'reads a host file', `[@file_get_contents(${JSON.stringify(secretFile)}), @file_exists(${JSON.stringify(secretFile)}), @scandir(${JSON.stringify(secretDir)})]`);
	caseFile(cases, '003-net', 'connects to a host port', `[@fsockopen("127.0.0.1", ${port}, $no, $msg, 1), @file_get_contents("http://127.0.0.1:${port}/")]`);
	caseFile(cases, '004-proc', 'runs a command', `[function_exists("shell_exec") ? @shell_exec("id; touch ${touched}") : null, function_exists("proc_open") ? @proc_open("touch ${touched}", [], $p) : null]`);
	d = await Daemon.start({ name: 'references', cases, references: '7.4,8.1,8.2,8.5' });
	// They start in the background, two at a time: each loads a runtime.
	const deadline = Date.now() + 120_000;
	for (;;) {
		const refs = (await d.get('/api/builds')).json.builds.filter((b) => b.kind === 'reference');
		if (refs.length === WANT.length && refs.every((b) => b.worker.state === 'ready' || b.state === 'failed')) break;
		if (Date.now() > deadline) throw new Error(`references not ready: ${JSON.stringify(refs.map((b) => [b.name, b.worker]))}`);
		await sleep(250);
	}
});
after(async () => {
	listener.close();
	if (d) await d.stopClean();
});

test('GET /api/builds lists each reference with its exact version, kind and runtime; health beside the builds', async () => {
	const r = await d.get('/api/builds');
	assert.equal(r.status, 200, r.text);
	const refs = r.json.builds.filter((b) => b.kind === 'reference');
	assert.deepEqual(refs.map((b) => [b.name, b.role, b.state]), WANT.map((n) => [n, null, 'active']));
	const by = Object.fromEntries(refs.map((b) => [b.name, b]));
	assert.match(by['php-7.4'].php_version, /^7\.4\.\d+$/);
	assert.match(by['php-8.1'].php_version, /^8\.1\.\d+$/);
	assert.match(by['php-8.5'].php_version, /^8\.5\.\d+$/);
	for (const b of refs) {
		assert.match(b.reference, /^php-wasm \d+\.\d+\.\d+ \(node v\d+/, b.name);
		assert.equal(b.worker.state, 'ready', `${b.name}: ${b.worker.last_failure}`);
		// The layers in force: the loader's (phpcmp-worker --sandbox-exec,
		// no seccomp: it forbids the exec of node), then Node's permission
		// model and the runtime's in-memory files (worker.mjs's hello).
		assert.match(b.sandbox, /^netns\b.*\blandlock\b.*\bcaps rlimits node-permission wasm-memfs$/, b.name);
		assert.doesNotMatch(b.sandbox, /seccomp|\bphp\b/, b.name);
		// The node that answers runs under the permission model, reading
		// only the worker's folder and the runtimes (its command line).
		const argv = fs.readFileSync(`/proc/${b.worker.pid}/cmdline`, 'latin1').split('\0').slice(0, -1);
		assert.equal(argv[0], b.core, b.name);
		assert.equal(argv[1], '--experimental-permission', `${b.name}: ${argv.join(' ')}`);
		assert.deepEqual(argv.filter((a) => a.startsWith('--allow-')),
			[`--allow-fs-read=${fs.realpathSync(path.join(ROOT, 'server/reference'))}/`,
				`--allow-fs-read=${fs.realpathSync(path.join(ROOT, 'node_modules'))}/`], b.name);
		assert.ok(argv.includes('--no-addons'), b.name);
		assert.equal(argv[argv.indexOf('--php') + 1], b.name.slice(4), b.name);
	}
	// The native builds keep their roles; a reference is no candidate.
	assert.deepEqual(r.json.builds.filter((b) => b.role !== null).map((b) => [b.name, b.role]),
		[['base', 'base'], ['head', 'head']]);
	const h = (await d.get('/api/health')).json;
	assert.deepEqual(h.builds.map((b) => b.name), ['base', 'head']);
	assert.deepEqual(h.references.map((b) => [b.name, b.kind]), WANT.map((n) => [n, 'reference']));
});

test('POST /api/cases runs on the native builds only, as before', async () => {
	const c = await d.runCase({ code: 'PHP_VERSION' });
	assert.deepEqual(Object.keys(c.results).sort(), ['base', 'head']);
	assert.equal(c.results.base.output, JSON.stringify(BASE_VERSION));
	assert.equal(c.results.head.output, JSON.stringify(HEAD_VERSION));
});

test('"base": a precise error for an unknown name, with "builds", and for a suite a reference cannot run', async () => {
	const post = (body) => d.request('POST', '/api/runs', { body });
	let r = await post({ suite: 'generated', seed: 1, count: 10, base: 'php-9.9' });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /base: no active build or reference runtime is named "php-9.9"/);
	r = await post({ suite: 'generated', seed: 1, count: 10, base: 'php-8.5', builds: ['base', 'head'] });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /base, builds: give one or the other/);
	r = await post({ suite: 'generated', seed: 1, count: 10, base: 42 });
	assert.equal(r.status, 400, r.text);
	assert.match(r.json.error.message, /^base: expected a build's name/);
	r = await post({ suite: 'measure', base: 'php-8.5' });
	assert.equal(r.status, 422, r.text);
	assert.equal(r.json.error.code, 'reference_unsupported');
	assert.match(r.json.error.message, /php-8\.5 is a reference runtime .* no instruction counts/);
});

test('a generated run with base php-8.2 (WebAssembly) agrees with the native 8.2 builds', async () => {
	const run = await d.runToEnd({ suite: 'generated', seed: 3, count: 2000, base: 'php-8.2' });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 800));
	assert.equal(run.params.base, 'php-8.2');
	assert.match(run.builds.base, /^8\.2\.\d+$/);
	assert.deepEqual([run.builds.head, run.builds.cand2], [BASE_VERSION, HEAD_VERSION]);
	const s = run.summary;
	assert.equal(s.done, 2000);
	assert.equal(s.builds.base.build, 'php-8.2');
	assert.equal(s.builds.base.statuses.ok, 2000, JSON.stringify(s.builds.base));
	// The same corpus as the native cores made: their coverage counters agree.
	assert.equal(s.builds.base.exceptions, s.builds.head.exceptions);
	assert.deepEqual(s.builds.base.error_codes, s.builds.head.error_codes);
	assert.deepEqual(run.counts, { same: 2000, differ: 0 }, JSON.stringify(s).slice(0, 1500));
});

test('a generated run with base php-7.4: cases made for 7.4 (no enums, no WeakMap) all compile and run on 7.4; mismatches stored through the detail path', async () => {
	const run = await d.runToEnd({ suite: 'generated', seed: 3, count: 3000, base: 'php-7.4' });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 800));
	assert.match(run.builds.base, /^7\.4\.\d+$/);
	const st = run.summary.builds.base.statuses;
	assert.equal(run.summary.done, 3000);
	// The corpus made for 7.4 (gen_case_make_php, gen_declarations_php:
	// no `mixed`, no catch without a variable, jsonSerialize() without a
	// return type) compiles on 7.4: no case is an error there.  What differs
	// is 7.4's own behaviour (SplFixedArray, DateInterval ...).
	assert.equal(st.ok, 3000, JSON.stringify(run.summary.builds.base));
	assert.equal(st.error, 0);
	assert.match(run.summary.generated_for ?? '', /7\.4.*enums, WeakMap/);
	assert.ok(!('JSON_ERROR_NON_BACKED_ENUM' in run.summary.builds.base.error_codes));
	assert.ok(run.counts.differ > 0 && run.counts.differ < 300, JSON.stringify(run.counts));
	// One stored in full: the reference's answer through PROTO_GEN_DETAIL
	// (engine/reference.c), its setup written the 7.4 way.
	const rows = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ&limit=5`);
	assert.ok(rows.length > 0);
	const [row] = await d.storeListed(rows.slice(0, 1));
	const c = (await d.get(`/api/cases/${row.id}`)).json;
	assert.equal(c.results.base.build, 'php-7.4');
	assert.equal(c.results.base.status, 'ok', JSON.stringify(c.results.base));
	assert.equal(c.results.head.status, 'ok');
});

test('a stored run with base php-8.5: a hostile case gets its value and nothing of the host', async () => {
	const run = await d.runToEnd({ suite: 'stored', base: 'php-8.5' });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 800));
	assert.equal(run.counts.same + run.counts.differ, 4);
	const rows = await d.listAll(`/api/runs/${run.id}/cases?limit=50`);
	assert.equal(rows.length, 4);
	for (const row of rows) {
		const c = (await d.get(`/api/cases/${row.id}`)).json;
		const ref = c.results.base;
		assert.equal(ref.build, 'php-8.5');
		assert.ok(['ok', 'error'].includes(ref.status), `${c.title}: ${JSON.stringify(ref)}`);
		const all = JSON.stringify(ref);
		assert.ok(!all.includes(secret), `${c.title}: the secret reached the answer: ${all}`);
		assert.ok(!/uid=\d+/.test(all), `${c.title}: a command ran: ${all}`);
		if (c.title === 'a plain list') assert.equal(ref.output, '[1,"a",1.5]');
	}
	assert.equal(connections, 0, 'no connection reached the host');
	assert.ok(!fs.existsSync(touched), 'no command ran on the host');
});

test('a reference that cannot start (--node /bin/false) is listed as failed; the daemon serves on', async () => {
	const bad = await Daemon.start({ name: 'references-bad', references: '8.5', extraArgs: ['--node', '/bin/false'] });
	try {
		let ref;
		const deadline = Date.now() + 60_000;
		do {
			ref = (await bad.get('/api/builds')).json.builds.find((b) => b.name === 'php-8.5');
			if (ref?.state === 'failed') break;
			await sleep(200);
		} while (Date.now() < deadline);
		assert.equal(ref.kind, 'reference');
		assert.equal(ref.state, 'failed', JSON.stringify(ref));
		assert.match(ref.worker.last_failure, /did not start|exited/);
		const c = await bad.runCase({ code: '[1]' });
		assert.equal(c.verdict, 'same');
		const r = await bad.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 10, base: 'php-8.5' } });
		assert.equal(r.status, 202, r.text);
		const run = await bad.waitRun(r.json.id);
		assert.equal(run.status, 'failed', JSON.stringify(run).slice(0, 500));
		assert.match(run.error ?? '', /php-8\.5|start/);
	} finally {
		await bad.stopClean();
	}
});
