// Every kind of build gives the release build's answers (issue 16): the
// real daemon with base = libphp 8.2.32 built from source (release) and
// head = the same source built `--enable-debug`, then `--coverage`.  A
// generated run of 200,000 cases and the stored suite: 0 mismatches on
// each.  The coverage build's counters are written when its workers stop
// (their normal exit) and gcov reads them.  A planted assertion
// (tests/fixtures/patches/assert-debug.patch) really aborts a debug build:
// a `crash` whose failure text carries the assertion's message.
//
// The builds come from scripts/build-php.sh (docs/builds.md), made by
// scripts/flavour-builds.sh (`make flavour-builds`, run by `make test`):
//   builds/src-8.2.32                     release
//   builds/src-8.2.32-debug               --flavour debug
//   builds/src-8.2.32-debug-assert-debug  --flavour debug --patch assert-debug.patch
//   builds/src-8.2.32-coverage            --flavour coverage
// Without scripts/build-php.sh (a checkout from before the builds-from-source
// machinery) and without the builds the file is skipped; with either, a
// missing build fails it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, Daemon, ROOT } from './helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const HAVE_SCRIPT = fs.existsSync(path.join(ROOT, 'scripts/build-php.sh'));
const HAVE_BUILDS = fs.existsSync(path.join(BUILDS, 'src-8.2.32-debug'));
const skip = HAVE_SCRIPT || HAVE_BUILDS ? false
	: 'no scripts/build-php.sh in this checkout (the builds-from-source machinery) and no builds';
// Generated cases per flavour (debug builds run at -O0).
const COUNT = Number(process.env.PHPCMP_FLAVOUR_COUNT || 200000);

function prefixOf(name) {
	const p = path.join(BUILDS, name);
	if (!fs.existsSync(path.join(p, 'lib/libphp.so'))) {
		throw new Error(`${p}/lib/libphp.so is missing: run \`make flavour-builds\` (scripts/flavour-builds.sh) first`);
	}
	return p;
}

function infoOf(name) {
	const info = { patch: [] };
	for (const line of fs.readFileSync(path.join(prefixOf(name), 'phpcmp-build.txt'), 'utf8').split('\n')) {
		const i = line.indexOf('=');
		if (i < 0) continue;
		const k = line.slice(0, i), v = line.slice(i + 1);
		if (k === 'patch') info.patch.push(v.split(' ')[0]);
		else info[k] = v;
	}
	return info;
}

const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

async function daemonFor(head, extraArgs = []) {
	const d = await Daemon.start({
		name: `flavours-${head}`,
		builds: { base: prefixOf('src-8.2.32'), head: prefixOf(head) },
		extraArgs,
	});
	daemons.push(d);
	return d;
}

async function runToEnd(d, body, deadlineMs = 600_000) {
	const r = await d.request('POST', '/api/runs', { body });
	assert.equal(r.status, 202, r.text);
	const deadline = Date.now() + deadlineMs;
	for (;;) {
		const g = await d.get(`/api/runs/${r.json.id}`);
		assert.equal(g.status, 200, g.text);
		if (!['queued', 'running'].includes(g.json.status)) return g.json;
		assert.ok(Date.now() < deadline, `run ${r.json.id} still ${g.json.status}`);
		await sleep(100);
	}
}

// A generated run and the stored suite: the same answers as the release build.
async function assertFaithful(d, label) {
	const gen = await runToEnd(d, { suite: 'generated', seed: 16, count: COUNT });
	assert.equal(gen.status, 'done', JSON.stringify(gen).slice(0, 1500));
	assert.equal(gen.done, COUNT);
	const s = gen.summary;
	assert.deepEqual(gen.counts, { same: COUNT, differ: 0 },
		`${label}: generated mismatches ${JSON.stringify(s.mismatch_list)}`);
	assert.equal(s.builds.head.statuses.crash, 0, `${label}: no crash`);
	// The cases that throw from jsonSerialize() (or JsonException) are there
	// and recorded alike: what the dummy frame used to abort on.
	assert.ok(s.builds.head.exceptions > 1000, `${label}: exceptions ${s.builds.head.exceptions}`);
	assert.equal(s.builds.head.exceptions, s.builds.base.exceptions);

	const stored = await runToEnd(d, { suite: 'stored' });
	assert.equal(stored.status, 'done', JSON.stringify(stored).slice(0, 1500));
	assert.ok(stored.total >= 90, `stored cases: ${stored.total}`);
	const differ = await d.get(`/api/runs/${stored.id}/cases?verdict=differ&limit=20`);
	assert.deepEqual(stored.counts, { same: stored.total, differ: 0 },
		`${label}: stored mismatches ${differ.text.slice(0, 2000)}`);
	return { gen, stored };
}

test('the builds are what they say: one 8.2.32 source, release, debug, coverage', { skip }, () => {
	const rel = infoOf('src-8.2.32');
	assert.equal(rel.flavour, 'release');
	for (const [name, flavour, patches] of [
		['src-8.2.32-debug', 'debug', []],
		['src-8.2.32-debug-assert-debug', 'debug', ['assert-debug.patch']],
		['src-8.2.32-coverage', 'coverage', []],
	]) {
		const i = infoOf(name);
		assert.equal(i.flavour, flavour, `${name}: flavour`);
		assert.deepEqual(i.patch, patches, `${name}: patches`);
		assert.equal(i.source_sha256, rel.source_sha256, `${name}: the same source`);
	}
});

test('debug build (--enable-debug) vs release: 0 mismatches, generated and stored; exceptions from jsonSerialize() as on release', { skip }, async () => {
	const d = await daemonFor('src-8.2.32-debug');
	// The minimal case: a false SIGABRT before.
	const res = await d.runCase({
		setup: 'class T implements JsonSerializable { function jsonSerialize(): mixed { throw new RuntimeException("no"); } }',
		code: '[new T]',
	});
	assert.equal(res.verdict, 'same', JSON.stringify(res.results));
	assert.equal(res.results.head.status, 'ok');
	assert.deepEqual(res.results.head.exception, { class: 'RuntimeException', message: 'no' });
	// exit() and nested calls inside jsonSerialize(), JsonException.
	for (const c of [
		{ setup: 'class E implements JsonSerializable { function jsonSerialize(): mixed { exit(3); } }', code: '[new E]' },
		{ setup: 'class N implements JsonSerializable { function jsonSerialize(): mixed { return [json_encode([1, "a/b"]), json_encode(NAN), json_last_error()]; } }', code: '[new N, 2]' },
		{ setup: 'class W implements JsonSerializable { function jsonSerialize(): mixed { trigger_error("careful", E_USER_WARNING); return 1; } }', code: '[new W]' },
		{ code: '["\\xff"]', flags: 'JSON_THROW_ON_ERROR' },
		{ code: '[[1]]', depth: 1 },
	]) {
		const r = await d.runCase(c);
		assert.equal(r.verdict, 'same', `${JSON.stringify(c)}: ${JSON.stringify(r.results)}`);
		assert.notEqual(r.results.head.status, 'crash', JSON.stringify(c));
	}
	await assertFaithful(d, 'debug');
});

test('a planted assertion really aborts the debug build: crash, SIGABRT, the assertion message in the failure', { skip }, async () => {
	const d = await daemonFor('src-8.2.32-debug-assert-debug');
	const res = await d.runCase({ code: '[[1]]', depth: 1 });
	assert.equal(res.verdict, 'differ');
	assert.ok(res.differs.includes('status'), JSON.stringify(res.differs));
	assert.equal(res.results.base.status, 'ok');
	assert.equal(res.results.base.error_code, 1); // JSON_ERROR_DEPTH
	const h = res.results.head;
	assert.equal(h.status, 'crash');
	assert.equal(h.signal, 6);
	assert.match(h.failure, /^killed by signal 6 \(SIGABRT\)\nworker stderr \(\d+ bytes\):\n/);
	assert.match(h.failure, /json_encoder\.c:\d+: php_json_encode_array: Assertion `encoder->depth <= encoder->max_depth' failed\./);
	// The case page's data says the same (GET /api/cases/ID).
	const page = await d.get(`/api/cases/${res.id}`);
	assert.equal(page.status, 200);
	assert.match(JSON.stringify(page.json), /Assertion `encoder->depth <= encoder->max_depth' failed/);
	// The worker is replaced and the next case runs normally.
	const next = await d.runCase({ code: '[[1]]', depth: 2 });
	assert.equal(next.verdict, 'same', JSON.stringify(next.results));
	assert.equal(next.results.head.output, '[[1]]');
});

test('coverage build (--coverage) vs release: 0 mismatches; its counters are written when its workers stop, and gcov reads them', { skip }, async () => {
	const prefix = prefixOf('src-8.2.32-coverage');
	assert.equal(infoOf('src-8.2.32-coverage').mode, 'full');
	// The counters land in the build's own tree (docs/builds.md); its
	// landlock layer would keep the worker from writing there, so this
	// daemon runs without it (docs/sandbox.md, "Loosening").
	const tree = path.dirname(fs.realpathSync(prefix));
	const libs = path.join(tree, 'obj/ext/json/.libs');
	const gcda = path.join(libs, 'json_encoder.gcda');
	fs.rmSync(gcda, { force: true });
	const d = await daemonFor('src-8.2.32-coverage', ['--sandbox', 'netns,caps,seccomp,rlimits,php']);
	await assertFaithful(d, 'coverage');
	assert.ok(!fs.existsSync(gcda), 'nothing written while the workers run');
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
	assert.ok(fs.existsSync(gcda), `${gcda} written at the workers' exit`);
	// gcov -n: the summary only, no .gcov files.
	const out = execFileSync('gcov', ['-n', '-b', '-o', libs, path.join(tree, 'src/ext/json/json_encoder.c')],
		{ cwd: libs, encoding: 'utf8' });
	const m = /File '[^']*json_encoder\.c'\nLines executed:([\d.]+)% of (\d+)/.exec(out);
	assert.ok(m, out);
	// The generated corpus reaches most of the encoder (the seed's hand
	// method: 79.7 % of its lines).
	assert.ok(Number(m[1]) > 70, `json_encoder.c lines executed ${m[1]} %`);
});
