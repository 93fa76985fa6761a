// Every kind of build gives the release build's answers (issue 16): the
// real daemon with base = libphp 8.2.32 built from source (release) and
// head = the same source built `--enable-debug`, then `--coverage`.  A
// generated run of 200,000 cases and the stored suite: 0 mismatches on
// each.  The coverage build's counters are written when its workers stop
// (their normal exit), into the daemon's state dir, never the shared build
// tree, and gcov reads them.  A planted assertion
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
import { BUILDS, Daemon, ROOT, STATE, srcBuild, srcBuildInfo } from './helper.mjs';

const HAVE_SCRIPT = fs.existsSync(path.join(ROOT, 'scripts/build-php.sh'));
const HAVE_BUILDS = fs.existsSync(path.join(BUILDS, 'src-8.2.32-debug'));
const skip = HAVE_SCRIPT || HAVE_BUILDS ? false
	: 'no scripts/build-php.sh in this checkout (the builds-from-source machinery) and no builds';
// Generated cases per flavour (debug builds run at -O0).
const COUNT = Number(process.env.PHPCMP_FLAVOUR_COUNT || 200000);



const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

async function daemonFor(head, extraArgs = []) {
	const d = await Daemon.start({
		name: `flavours-${head}`,
		builds: { base: srcBuild('src-8.2.32', 'flavour-builds'), head: srcBuild(head, 'flavour-builds') },
		extraArgs,
	});
	daemons.push(d);
	return d;
}


// A generated run and the stored suite: the same answers as the release build.
async function assertFaithful(d, label) {
	const gen = await d.runToEnd({ suite: 'generated', seed: 16, count: COUNT });
	assert.equal(gen.status, 'done', JSON.stringify(gen).slice(0, 1500));
	assert.equal(gen.done, COUNT);
	const s = gen.summary;
	assert.deepEqual(gen.counts, { same: COUNT, differ: 0 },
		`${label}: generated mismatches ${JSON.stringify(s.mismatch_list)}`);
	assert.equal(s.builds.head.statuses.crash, 0, `${label}: no crash`);
	// The cases that throw from jsonSerialize() (or JsonException) are there
	// and recorded alike: what the dummy frame used to abort on.
	assert.ok(s.builds.head.exceptions > COUNT / 200, `${label}: exceptions ${s.builds.head.exceptions}`);
	assert.equal(s.builds.head.exceptions, s.builds.base.exceptions);

	const stored = await d.runToEnd({ suite: 'stored' });
	assert.equal(stored.status, 'done', JSON.stringify(stored).slice(0, 1500));
	assert.ok(stored.total >= 90, `stored cases: ${stored.total}`);
	const differ = await d.get(`/api/runs/${stored.id}/cases?verdict=differ&limit=20`);
	assert.deepEqual(stored.counts, { same: stored.total, differ: 0 },
		`${label}: stored mismatches ${differ.text.slice(0, 2000)}`);
	return { gen, stored };
}

test('the builds are what they say: one 8.2.32 source, release, debug, coverage', { skip }, () => {
	const rel = srcBuildInfo('src-8.2.32', 'flavour-builds');
	assert.equal(rel.flavour, 'release');
	for (const [name, flavour, patches] of [
		['src-8.2.32-debug', 'debug', []],
		['src-8.2.32-debug-assert-debug', 'debug', ['assert-debug.patch']],
		['src-8.2.32-coverage', 'coverage', []],
	]) {
		const i = srcBuildInfo(name, 'flavour-builds');
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

test('coverage build (--coverage) vs release: 0 mismatches; its counters are written when its workers stop, into the state dir, and gcov reads them', { skip }, async () => {
	const prefix = srcBuild('src-8.2.32-coverage', 'flavour-builds');
	// ext/json compiled again with --coverage over the release tree
	// (scripts/build-php.sh): seconds, not a full build.
	const info = srcBuildInfo('src-8.2.32-coverage', 'flavour-builds');
	assert.equal(info.mode, 'reused');
	assert.match(info.instrumented, /^ext\/json CFLAGS='--coverage' LDFLAGS='--coverage'$/);
	const donorLibs = path.join(path.dirname(fs.realpathSync(path.join(BUILDS, 'src-8.2.32'))), 'obj/ext/json/.libs');
	const donorGcda = path.join(donorLibs, 'json_encoder.gcda');
	assert.ok(!fs.existsSync(donorGcda), `${donorGcda}: the release tree it is built over has no counters`);
	// The counters would land in the build's own (shared) tree; the daemon
	// points them into its state dir instead (GCOV_PREFIX, docs/coverage.md):
	// STATE/coverage/db-FNV1A(database path)/idle/BUILD.  This daemon runs
	// without landlock, the set-up coverage needed before issue 19 (it still
	// works); coverage.test.mjs runs coverage with the whole sandbox.
	const tree = path.dirname(fs.realpathSync(prefix));
	const libs = path.join(tree, 'obj/ext/json/.libs');
	const treeGcda = path.join(libs, 'json_encoder.gcda');
	const treeBefore = fs.existsSync(treeGcda) ? fs.statSync(treeGcda).mtimeMs : null;
	const d = await daemonFor('src-8.2.32-coverage', ['--sandbox', 'netns,caps,seccomp,rlimits,php']);
	let h = 2166136261;
	for (const c of Buffer.from(fs.realpathSync(d.db))) h = Math.imul(h ^ c, 16777619) >>> 0;
	const idle = path.join(STATE, 'coverage', `db-${h.toString(16).padStart(8, '0')}`, 'idle', 'head');
	const counters = path.join(idle, 'obj/ext/json/.libs');
	const gcda = path.join(counters, 'json_encoder.gcda');
	assert.ok(fs.existsSync(counters), `${counters}: made at the start`);
	await assertFaithful(d, 'coverage');
	assert.ok(!fs.existsSync(gcda), 'nothing written while the workers run');
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
	assert.ok(fs.existsSync(gcda), `${gcda} written at the workers' exit`);
	assert.equal(fs.existsSync(treeGcda) ? fs.statSync(treeGcda).mtimeMs : null, treeBefore, 'the shared tree is not written');
	assert.ok(!fs.existsSync(donorGcda), 'nor the release tree it is built over');
	// gcov -n: the summary only, no .gcov files; the notes from the tree.
	for (const f of ['json_encoder.gcno']) fs.copyFileSync(path.join(libs, f), path.join(counters, f));
	const out = execFileSync('gcov', ['-n', '-b', '-o', counters, path.join(tree, 'src/ext/json/json_encoder.c')],
		{ cwd: counters, encoding: 'utf8' });
	const m = /File '[^']*json_encoder\.c'\nLines executed:([\d.]+)% of (\d+)/.exec(out);
	assert.ok(m, out);
	// The generated corpus reaches most of the encoder (the seed's hand
	// method: 79.7 % of its lines).
	assert.ok(Number(m[1]) > 70, `json_encoder.c lines executed ${m[1]} %`);
});

// Build kinds (docs/builds.md): a Debian base against from-source release
// and debug candidates is served, and each candidate of another kind is
// warned about, at startup in the log and in health: their instruction
// counts do not compare.
test('a candidate of another kind than the base is warned about', { skip }, async () => {
	const mixed = await Daemon.start({
		name: 'flavours-kinds',
		buildList: [['base', path.join(BUILDS, 'base')], ['src', srcBuild('src-8.2.32', 'flavour-builds')],
			['dbg', srcBuild('src-8.2.32-debug', 'flavour-builds')]],
	});
	daemons.push(mixed);
	const m = (await mixed.get('/api/health')).json;
	assert.deepEqual(m.builds.map((b) => b.kind), ['debian release', 'source release', 'source debug']);
	assert.equal(m.builds[0].warning, undefined);
	assert.match(m.builds[1].warning, /source release build against a debian release base/);
	assert.match(m.builds[2].warning, /source debug build against a debian release base/);
	assert.match(mixed.output, /warning: build dbg is a source debug build, the base base a debian release build/);
	const r = await mixed.runCase({ code: '[1, "a"]' });
	assert.equal(r.verdict, 'same');
});
