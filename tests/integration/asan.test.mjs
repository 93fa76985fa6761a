// The memory-error oracle (issue 15, docs/sandbox.md "Sanitizer builds"):
// libphp 8.2.32 built with AddressSanitizer + UBSan (scripts/build-php.sh
// --flavour asan), pristine and with tests/fixtures/patches/overread.patch
// (php_json_escape_string reads a byte 8 past the end of every string of
// 16 bytes or more; the output never changes).  The real daemon runs three
// builds: base = the release build, head = the asan build with the planted
// over-read, cand2 = the pristine asan build.  Only the oracle can see the
// bug: head's output is the base's byte for byte, and its result is a
// memory-error with the frame in json_encoder.c; the pristine asan build
// reports nothing on the same cases, stored suite, generated run or phpt.
//
// The builds come from scripts/flavour-builds.sh (`make flavour-builds`,
// run by `make test` and .ci/run) under builds/ (PHPCMP_ASAN_BUILDS: another
// folder holding them); without them the file is skipped, saying so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { BUILDS, Daemon, ROOT, tmpDir } from './helper.mjs';
import { runPhpt, servedDir, servedRoot } from './phpt-helper.mjs';
import { openPage } from '../browser/browser.mjs';

const ASAN_DIR = path.resolve(process.env.PHPCMP_ASAN_BUILDS || BUILDS);
const ASAN = path.join(ASAN_DIR, 'src-8.2.32-asan');
const OVERREAD = path.join(ASAN_DIR, 'src-8.2.32-asan-overread');
const UAF = path.join(ASAN_DIR, 'src-8.2.32-asan-uaf');
const CRASH = path.join(ASAN_DIR, 'src-8.2.32-asan-crash-byte');
const RELEASE = path.join(BUILDS, 'src-8.2.32');
const have = (p) => fs.existsSync(path.join(p, 'lib/libphp.so'));
const skip = have(ASAN) && have(OVERREAD) && have(UAF) && have(RELEASE) ? false
	: `no asan builds (${ASAN}, ${OVERREAD}, ${UAF}) or no ${RELEASE}: run \`make flavour-builds\``;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Generated cases: an asan build runs several times slower.
const COUNT = Number(process.env.PHPCMP_ASAN_COUNT || 3000);

let d;
before(async () => {
	if (skip) return;
	d = await Daemon.start({
		name: 'asan',
		buildList: [['release', RELEASE], ['overread', OVERREAD], ['asan', ASAN]],
		phptDirs: [servedRoot()],
	});
});
after(async () => { await d?.stopClean(); });

// A heap string (literals are interned, in another arena): 20 bytes.
const LONG = 'str_repeat("a", 20)';

test('asan builds load like any other, with every sandbox layer', { skip }, async () => {
	const h = (await d.get('/api/health')).json;
	const byName = Object.fromEntries(h.builds.map((b) => [b.name, b]));
	for (const name of ['release', 'overread', 'asan']) {
		assert.ok(byName[name], `build ${name} in ${JSON.stringify(h.builds).slice(0, 500)}`);
		assert.equal(byName[name].php_version, '8.2.32');
	}
	// The same layers as the release build's: nothing loosened for ASan.
	assert.equal(byName.asan.sandbox, byName.release.sandbox);
	assert.equal(byName.overread.sandbox, byName.release.sandbox);
	assert.match(byName.asan.sandbox, /seccomp/);
	assert.match(byName.asan.sandbox, /rlimits/);
});

test('POST /api/cases: the planted over-read is a memory-error though the output is the same', { skip }, async () => {
	const r = await d.postCase({ title: 'asan over-read', code: LONG });
	assert.equal(r.status, 201, r.text);
	const { results } = r.json;
	assert.equal(r.json.verdict, 'differ');
	assert.deepEqual(r.json.differs, ['status']);
	assert.equal(results.base.status, 'ok');
	assert.equal(results.cand2.status, 'ok', results.cand2.failure);
	assert.equal(results.base.memory_error, null);
	assert.equal(results.cand2.memory_error, null);
	const m = results.head;
	assert.equal(m.status, 'memory-error', JSON.stringify(m).slice(0, 1500));
	// The answer is whole and right: only the oracle tells.
	assert.equal(m.output, '"aaaaaaaaaaaaaaaaaaaa"');
	assert.equal(m.output, results.base.output);
	assert.equal(m.memory_error.kind, 'heap-buffer-overflow');
	assert.equal(m.memory_error.access, 'READ of size 1');
	assert.match(m.memory_error.frames[0], /^php_json_escape_string json_encoder\.c:\d+$/);
	assert.match(m.memory_error.frames.join('\n'), /zif_json_encode json\.c:\d+/);
	assert.match(m.failure, /ERROR: AddressSanitizer: heap-buffer-overflow/);
	assert.ok(m.failure.length < 70000, `report bounded: ${m.failure.length}`);
});

test('the case page shows the memory error: kind, access, top frames, the report', { skip }, async () => {
	const r = await d.postCase({ title: 'asan page', code: 'str_repeat("p", 33)' });
	assert.equal(r.json.results.head.status, 'memory-error');
	const errors = [];
	const { browser, page } = await openPage(errors);
	try {
		await page.goto(`${d.url}/#/cases/${r.json.id}`);
		await page.getByTestId('status-head').waitFor();
		assert.equal(await page.getByTestId('status-head').textContent(), 'memory-error');
		assert.equal(await page.getByTestId('status-base').textContent(), 'ok');
		const m = await page.getByTestId('memory-error-head').textContent();
		assert.match(m, /heap-buffer-overflow · READ of size 1/);
		assert.match(m, /php_json_escape_string json_encoder\.c:\d+/);
		assert.match(await page.getByTestId('failure-head').textContent(), /ERROR: AddressSanitizer/);
		assert.equal(await page.getByTestId('memory-error-base').count(), 0);
		assert.deepEqual(errors, []);
	} finally {
		await browser.close();
	}
});

test('after a report the worker is healthy: the next cases are clean and answered', { skip }, async () => {
	for (let i = 0; i < 3; i++) {
		const bad = await d.postCase({ code: `str_repeat("b", ${17 + i})` });
		assert.equal(bad.json.results.head.status, 'memory-error', bad.text.slice(0, 800));
		const good = await d.postCase({ code: '["short", 1, 2.5, null]' });
		assert.equal(good.status, 201, good.text);
		assert.equal(good.json.verdict, 'same', good.text.slice(0, 1500));
		for (const role of ['base', 'head', 'cand2']) assert.equal(good.json.results[role].status, 'ok');
	}
	const h = (await d.get('/api/health')).json;
	for (const b of h.builds) assert.notEqual(b.worker?.state, 'failed', JSON.stringify(b));
});

test('a memory-error is bucketed with its kind and top frame, and shown by the bucket', { skip }, async () => {
	const r = await d.postCase({ code: 'str_repeat("c", 40)' });
	assert.equal(r.json.results.head.status, 'memory-error');
	const list = (await d.get('/api/buckets?limit=50')).json.buckets;
	const mine = list.filter((b) => b.key.memory_error);
	assert.ok(mine.length >= 1, JSON.stringify(list.map((b) => b.key)).slice(0, 1500));
	const key = mine[0].key;
	assert.deepEqual(key.status, ['ok', 'memory-error']);
	assert.equal(key.memory_error[0], null);
	assert.equal(key.memory_error[1], 'heap-buffer-overflow|READ of size 1|php_json_escape_string json_encoder.c');
	// All the over-read cases so far share one bucket.
	assert.ok(mine[0].mismatches >= 5, `mismatches ${mine[0].mismatches}`);
});

test('a generated run: memory-errors on the over-read build only', { skip }, async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 15, count: COUNT } });
	assert.equal(post.status, 202, post.text);
	const gen = await d.waitRun(post.json.id, { deadlineMs: 600_000 });
	assert.equal(gen.status, 'done', JSON.stringify(gen).slice(0, 1500));
	assert.equal(gen.done, COUNT);
	const s = gen.summary;
	const st = (role) => s.builds[role].statuses;
	assert.equal(st('base')['memory-error'], 0);
	assert.equal(st('cand2')['memory-error'], 0, 'the pristine asan build reports nothing');
	assert.ok(st('head')['memory-error'] > 0, `head: ${JSON.stringify(st('head'))}`);
	const sigs = Object.fromEntries(s.signatures.map((x) => [x.signature, x.mismatches]));
	const why = JSON.stringify({ sigs, statuses: s.builds, unconfirmed: s.unconfirmed }).slice(0, 2000);
	// Every case with a report is a mismatch of head's, the status one; none
	// is cand2's (its signatures would be named "cand2:...").  A batch of the
	// over-read build reports on every long heap string, each report
	// symbolized: the odd case runs past its time there (a timeout, head's too).
	const memSigs = Object.keys(sigs).filter((x) => /\|memory-error,\d+,\d+$/.test(x));
	assert.equal(memSigs.reduce((n, x) => n + sigs[x], 0), st('head')['memory-error'], why);
	// Only the status differs (the output is the base's), but where a report
	// ended the process (exitcode 86: no output left to compare).
	assert.ok(sigs['status|ok,0,0|memory-error,0,0'] > 0, why);
	// A report that ended the process left no error code either: 0,0.
	for (const sig of memSigs) assert.match(sig, /^status[a-z_,]*\|ok,(\d+,\d+)\|memory-error,(\1|0,0)$/, why);
	for (const sig of Object.keys(sigs)) assert.match(sig, /^status[a-z_,]*\|ok,\d+,\d+\|(memory-error|timeout),\d+,\d+$/, why);
	assert.equal(s.builds.cand2.mismatches, 0, why);
	assert.equal(s.unconfirmed, 0, `each one has its report again when run alone: ${why}`);
	let c = null;
	for (const x of s.mismatch_list) {
		c = (await d.get(`/api/cases/${x.case_id}`)).json;
		// One that ran to its end (a report that ended the process left no output).
		if (c.results.head.status === 'memory-error' && c.differs.length === 1) break;
	}
	assert.equal(c.verdict, 'differ');
	assert.deepEqual(c.differs, ['status']);
	assert.equal(c.results.head.status, 'memory-error', JSON.stringify(c.results.head).slice(0, 1500));
	assert.equal(c.results.cand2.status, 'ok');
	assert.equal(c.results.head.output, c.results.base.output, 'the same output');
	assert.match(c.results.head.memory_error.frames[0], /^php_json_escape_string json_encoder\.c/);
});

// Every case with a report is named, also those before a death later in
// the same batch: the reporting child writes each case's index on the
// progress page, which outlives it.  The over-read build's worker is made
// to die on seed 1's case 450 (phpcmp.gen_crash_at); run as one batch and
// as six batches of 100, the first 600 cases with a memory error are the
// same.
test('a generated batch with a death names every case with a report before it, as smaller batches do', { skip }, async () => {
	const c = await Daemon.start({
		name: 'asan-death',
		buildList: [['asan', ASAN], ['overread', OVERREAD]],
		extraArgs: ['--ini', 'overread:phpcmp.gen_crash_at=450'],
	});
	try {
		const errorsOf = async (body) => {
			const post = await c.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, ...body } });
			assert.equal(post.status, 202, post.text);
			const run = await c.waitRun(post.json.id, { deadlineMs: 600_000 });
			assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1500));
			const list = (await c.get(`/api/runs/${run.id}/cases?verdict=differ&limit=500`)).json.cases;
			assert.ok(list.length < 500, 'one page holds them');
			const head = run.summary.builds.head;
			return { head, indices: list.map((x) => x.generated.index).sort((a, b) => a - b) };
		};
		const whole = await errorsOf({ count: 600 });
		// AddressSanitizer reports the SIGSEGV too: one death, a memory-error.
		assert.equal(whole.head.failures, 1, JSON.stringify(whole.head));
		assert.ok(whole.head.statuses['memory-error'] > 100, JSON.stringify(whole.head));
		assert.ok(whole.indices.filter((i) => i < 450).length > 50, 'reports before the death');
		const parts = [];
		for (let start = 0; start < 600; start += 100) parts.push(...(await errorsOf({ start, count: 100 })).indices);
		assert.deepEqual(whole.indices, parts.sort((a, b) => a - b));
	} finally {
		await c.stopClean();
	}
});

test('the stored suite: the pristine asan build agrees with the release build', { skip }, async () => {
	const stored = await d.runToEnd({ suite: 'stored' });
	assert.equal(stored.status, 'done', JSON.stringify(stored).slice(0, 1500));
	assert.ok(stored.total >= 90, `stored cases: ${stored.total}`);
	const list = await d.listAll(`/api/runs/${stored.id}/cases?verdict=differ&limit=200`);
	for (const row of list) {
		const one = (await d.get(`/api/cases/${row.id}?comparison=${row.comparison_id}`)).json;
		assert.equal(one.results.cand2.status, one.results.base.status, JSON.stringify(one.results.cand2).slice(0, 800));
		// A stored case with thousands of long strings has as many reports: it
		// may run past its time on the over-read build.
		assert.ok(['memory-error', 'timeout'].includes(one.results.head.status),
			JSON.stringify(one.results.head).slice(0, 800));
	}
	assert.ok(list.some((row) => row.differs?.includes('status')), 'the over-read shows in the stored suite too');
});

test('a phpt run: the over-read test is a memory-error regression, the pristine build passes', { skip }, async () => {
	const dir = servedDir('phpcmp-asan-phpt-');
	fs.writeFileSync(path.join(dir, 'overread.phpt'),
		'--TEST--\nlong string\n--FILE--\n<?php echo json_encode(str_repeat("a", 20));\n--EXPECT--\n"aaaaaaaaaaaaaaaaaaaa"\n');
	fs.writeFileSync(path.join(dir, 'short.phpt'),
		'--TEST--\nshort string\n--FILE--\n<?php echo json_encode("short");\n--EXPECT--\n"short"\n');
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1500));
	const t = Object.fromEntries(run.summary.tests.map((x) => [x.test.split('/').pop(), x]));
	assert.equal(t['overread.phpt'].base.status, 'PASS');
	assert.equal(t['overread.phpt'].cand2.status, 'PASS');
	assert.equal(t['overread.phpt'].head.status, 'memory-error', JSON.stringify(t['overread.phpt']).slice(0, 1500));
	for (const role of ['base', 'head', 'cand2']) assert.equal(t['short.phpt'][role].status, 'PASS');
	assert.deepEqual(run.summary.regressions, ['overread.phpt']);
});

// Bug #77843's fix taken out (tests/fixtures/patches/uaf-77843.patch): an
// array is encoded without a reference held to it.  Generator v3 makes the
// shape that needs it: a list held by a PHP reference, an element whose
// jsonSerialize() grows that list through the same reference while the
// encoder walks it.  The default corpus finds it; the pristine asan build
// reports nothing on the same cases.
test('a generated run: the use-after-free of bug #77843 on the build without its fix, from the default corpus', { skip }, async () => {
	const u = await Daemon.start({ name: 'asan-uaf', buildList: [['asan', ASAN], ['uaf', UAF]] });
	try {
		const post = await u.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: COUNT } });
		assert.equal(post.status, 202, post.text);
		const gen = await u.waitRun(post.json.id, { deadlineMs: 600_000 });
		assert.equal(gen.status, 'done', JSON.stringify(gen).slice(0, 1500));
		const st = gen.summary.builds;
		assert.equal(st.base.statuses['memory-error'], 0, 'the pristine asan build reports nothing');
		assert.ok(st.head.statuses['memory-error'] > 0, JSON.stringify(st.head));
		let c = null;
		for (const x of gen.summary.mismatch_list) {
			c = (await u.get(`/api/cases/${x.case_id}`)).json;
			if (c.results.head.status === 'memory-error') break;
		}
		assert.equal(c.results.head.status, 'memory-error');
		assert.equal(c.results.head.memory_error.kind, 'heap-use-after-free', JSON.stringify(c.results.head.memory_error).slice(0, 800));
		assert.match(c.results.head.memory_error.frames.join('\n'), /php_json_encode_array json_encoder\.c/);
		assert.match(c.case.code, /new GenC44\(\[.*\], \$h\d+\)/);
	} finally {
		await u.stopClean();
	}
});

// A build UBSan stops (tests/fixtures/patches/crash-byte.patch: a store
// through NULL on the byte 0x1e): each such case is a memory-error with
// UBSan's report and its stack (its runtime reads its options from the
// worker: a child may not read /proc/self/environ), the fork server
// forks the next child (the worker's pid stays), and a generated run with
// hundreds of them ends.  Before, each one ended the whole worker ("worker
// exited with status 1", no report) and the next case waited ~1.7 s for a
// new one.
test('a UBSan error is a memory-error with its stack, and costs a child, not the worker', { skip: skip || (!have(CRASH) && `no ${CRASH}: run \`make flavour-builds\``) }, async () => {
	const c = await Daemon.start({ name: 'asan-ubsan', buildList: [['asan', ASAN], ['crash', CRASH]] });
	try {
		// The head's worker: the daemon's child process that loads its libphp
		// (the fork server; the pid the API shows is the child serving).
		const lib = fs.realpathSync(path.join(CRASH, 'lib/libphp.so'));
		const pid = async () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
			try {
				const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
				const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
				return ppid === c.proc.pid && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(lib);
			} catch { return false; }
		}).map(Number)[0];
		const first = await c.postCase({ code: '"a\x1eb"' });
		assert.equal(first.status, 201, first.text);
		const before = await pid();
		assert.ok(before > 0);
		for (let i = 0; i < 3; i++) {
			const r = await c.postCase({ code: `["x${i}\x1e"]` });
			const head = r.json.results.head;
			assert.equal(head.status, 'memory-error', JSON.stringify(head).slice(0, 1500));
			assert.match(head.failure, /json_encoder\.c:\d+:\d+: runtime error: store to null pointer/);
			assert.match(head.failure, /#0 0x[0-9a-f]+ in php_json_escape_string .*json_encoder\.c:\d+/);
			assert.equal(r.json.results.base.status, 'ok');
		}
		assert.equal(await pid(), before, 'the same fork server');
		const post = await c.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 2000 } });
		assert.equal(post.status, 202, post.text);
		const run = await c.waitRun(post.json.id, { deadlineMs: 300_000 });
		assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1500));
		const head = run.summary.builds.head;
		assert.ok(head.failures >= 10, JSON.stringify(head));
		assert.equal(head.statuses['memory-error'], head.failures, JSON.stringify(head));
		assert.equal(head.statuses.crash, 0, JSON.stringify(head));
		assert.equal(await pid(), before, 'still the same fork server');
	} finally {
		await c.stopClean();
	}
});

// A plain daemon's switch (issue 22, part 3): --asan NAME=PREFIX gives each
// build its asan flavour and --asan-sample N runs N cases of every generated
// run on them, as a run of its own: the over-read that no release build can
// show is a memory-error mismatch there, bucketed and reduced.
test('--asan-sample: a generated run on release builds is followed by its sample on their asan flavours', { skip }, async () => {
	// The release build of the over-read (the same patch as OVERREAD's, built over
	// the release tree: cached after the first time; a full build is refused).
	const script = process.env.PHPCMP_BUILD_PHP || path.join(ROOT, 'scripts/build-php.sh');
	const builds = tmpDir('phpcmp-asan-sample-');
	const args = ['--name', 'src-8.2.32-overread', '--patch', path.join(ROOT, 'tests/fixtures/patches/overread.patch'), '--builds', builds];
	const plan = execFileSync(script, ['--plan', ...args]).toString().trim();
	assert.match(plan, /^(cached|reused) /, `the release over-read would be a full build: ${plan}`);
	execFileSync(script, [...args, '--jobs', '2'], { stdio: ['ignore', 'ignore', 'inherit'] });
	const OVER_RELEASE = path.join(builds, 'src-8.2.32-overread');

	// A switch that cannot work stops the daemon at its start, saying why.
	await assert.rejects(Daemon.start({ name: 'asan-sample-bad', buildList: [['base', RELEASE], ['over', OVER_RELEASE]],
		extraArgs: ['--asan-sample', '100'] }), /asan-sample: needs the asan flavour of the builds/);
	await assert.rejects(Daemon.start({ name: 'asan-sample-bad2', buildList: [['base', RELEASE], ['over', OVER_RELEASE]],
		extraArgs: ['--asan', `base=${RELEASE}`] }), /asan base \(\S+\): not an AddressSanitizer build/);
	await assert.rejects(Daemon.start({ name: 'asan-sample-bad3', buildList: [['base', RELEASE], ['over', OVER_RELEASE]],
		extraArgs: ['--asan', `nope=${ASAN}`] }), /asan: "nope" names no configured build/);

	const s = await Daemon.start({
		name: 'asan-sample', reduce: true, buildList: [['base', RELEASE], ['over', OVER_RELEASE]],
		extraArgs: ['--asan', `base=${ASAN}`, '--asan', `over=${OVERREAD}`, '--asan-sample', '600'],
	});
	try {
		// The flavours are in no run of their own: health and default runs have the two release builds.
		assert.deepEqual((await s.get('/api/health')).json.builds.map((b) => b.name), ['base', 'over']);
		const listed = (await s.get('/api/builds')).json.builds;
		assert.deepEqual(listed.map((b) => [b.name, b.role, b.asan_of ?? null]),
			[['base', 'base', null], ['over', 'head', null], ['base.asan', null, 'base'], ['over.asan', null, 'over']]);
		assert.equal(listed[3].kind, 'source asan');

		const gen = (await s.request('POST', '/api/runs?wait=300', { body: { suite: 'generated', seed: 15, count: 2000 } })).json;
		assert.equal(gen.status, 'done', JSON.stringify(gen).slice(0, 1500));
		assert.equal(gen.counts.differ, 0, 'the release builds agree: the over-read changes no output');
		let sample;
		for (let i = 0; i < 200 && !sample; i++) {
			sample = (await s.get('/api/runs')).json.runs.find((r) => r.params.asan_sample_of === gen.id);
			if (!sample) await sleep(100);
		}
		assert.ok(sample, 'the asan sample is queued');
		assert.deepEqual(sample.params, { seed: 15, count: 600, start: 0, asan_sample_of: gen.id });
		const done = await s.waitRun(sample.id, { deadlineMs: 600_000 });
		assert.equal(done.status, 'done', JSON.stringify(done).slice(0, 1500));
		assert.deepEqual(done.build_list.map((b) => b.name), ['base.asan', 'over.asan']);
		assert.equal(done.summary.builds.base.statuses['memory-error'] ?? 0, 0);
		assert.ok(done.summary.builds.head.statuses['memory-error'] > 0, JSON.stringify(done.summary.builds));
		assert.ok(done.counts.differ > 0);
		// Its mismatches are buckets like any other, of the status.
		const buckets = (await s.get(`/api/buckets?run=${sample.id}`)).json.buckets;
		assert.ok(buckets.length > 0);
		assert.ok(buckets.every((b) => b.key.differs.includes('status')), JSON.stringify(buckets.map((b) => b.key)).slice(0, 1500));
		// The sample is not sampled again.
		await sleep(500);
		assert.equal((await s.get('/api/runs')).json.runs.filter((r) => r.params.asan_sample_of !== undefined).length, 1);
	} finally {
		await s.stopClean();
	}
});
