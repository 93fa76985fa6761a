// The generated suite against the real daemon and both real builds:
// POST /api/runs {"suite":"generated",...}, its progress, summary and cancel;
// the corpus is the same for the same seed across runs and restarts; a
// 200,000-case run on the default builds; mismatch detection proven with a
// real per-build ini setting; a crash and a timeout on one build recorded as
// status mismatches while the run goes on; POST /api/generated.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';
import { Daemon, INSTRUMENTED, tmpDir } from './helper.mjs';
import { refuses } from './refuse-helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}

async function postRun(d, body) {
	const r = await d.request('POST', '/api/runs', { body });
	assert.equal(r.status, 202, r.text);
	return r.json;
}

// Poll a run to its end; also returns what was seen on the way.
async function waitRun(d, id, deadlineMs = 300_000) {
	const deadline = Date.now() + deadlineMs;
	const seen = [];
	for (;;) {
		const r = await d.get(`/api/runs/${id}`);
		assert.equal(r.status, 200, r.text);
		seen.push(r.json);
		if (!['queued', 'running'].includes(r.json.status)) return { run: r.json, seen };
		assert.ok(Date.now() < deadline, `run ${id} still ${r.json.status}: ${r.text.slice(0, 500)}`);
		await sleep(25);
	}
}

function sql(db, query) {
	return execFileSync('sqlite3', ['-readonly', db, query], { encoding: 'utf8' }).trim();
}

test('bad parameters are a precise 400 and queue nothing', async () => {
	const d = await start({ name: 'gen-bad' });
	const bad = [
		[{ suite: 'generated' }, /seed: required/],
		[{ suite: 'generated', seed: 1 }, /count: required/],
		[{ suite: 'generated', seed: '1', count: 10 }, /^seed: expected an integer 0 \.\. 9223372036854775807$/],
		[{ suite: 'generated', seed: -1, count: 10 }, /^seed: expected an integer/],
		[{ suite: 'generated', seed: 1.5, count: 10 }, /^seed: expected an integer/],
		[{ suite: 'generated', seed: 1, count: 0 }, /^count: expected an integer 1 \.\. 10000000$/],
		[{ suite: 'generated', seed: 1, count: 10000001 }, /^count: expected an integer 1 \.\. 10000000$/],
		[{ suite: 'generated', seed: 1, seeds: [2], count: 10 }, /give one or the other/],
		[{ suite: 'generated', seeds: [], count: 10 }, /^seeds: expected an array of 1 \.\. 16 integers$/],
		[{ suite: 'generated', seeds: [1, 'x'], count: 10 }, /^seeds\[1\]: expected an integer/],
		[{ suite: 'generated', seeds: Array.from({ length: 17 }, (_, i) => i), count: 10 }, /^seeds: expected an array/],
		[{ suite: 'generated', seed: 1, count: 10, start: -5 }, /^start: expected an integer 0 \.\. 9007199254740991$/],
		[{ suite: 'generated', seed: 1, count: 10, speed: 'max' }, /unknown field "speed" for suite generated/],
	];
	for (const [body, re] of bad) {
		const r = await d.request('POST', '/api/runs', { body });
		assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
		assert.equal(r.json.error.code, 'bad_request');
		assert.match(r.json.error.message, re, JSON.stringify(body));
	}
	const runs = await d.get('/api/runs');
	assert.deepEqual(runs.json.runs, [], 'nothing was queued');

	for (const [body, re] of [
		[{ seed: 1 }, /^index: required/],
		[{ index: 3 }, /^seed: required/],
		[{ seed: 1, index: -1 }, /^index: expected an integer/],
		[{ seed: 1, index: 0, version: 99 }, /^version: this daemon's generator is version 3 only$/],
		[{ seed: 1, index: 0, flags: 3 }, /^unknown field "flags"/],
	]) {
		const r = await d.request('POST', '/api/generated', { body });
		assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
		assert.match(r.json.error.message, re, JSON.stringify(body));
	}
	const r = await d.request('GET', '/api/generated');
	assert.equal(r.status, 405);
});

test('200,000 generated cases on the default builds: progress, no mismatch, coverage, results in SQLite', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'gen-200k', db });
	const posted = await postRun(d, { suite: 'generated', seed: 20260101, count: 200000 });
	assert.equal(posted.suite, 'generated');
	assert.deepEqual(posted.params, { count: 200000, seed: 20260101 });
	const { run, seen } = await waitRun(d, posted.id);
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1000));
	assert.equal(run.error, null);
	assert.equal(run.total, 200000);
	assert.equal(run.done, 200000);
	// The two Debian builds' encoders agree: every case is the same.
	assert.deepEqual(run.counts, { same: 200000, differ: 0 });

	// Progress was visible on the way: done/total and a rate.
	const midway = seen.filter((r) => r.status === 'running' && r.done > 0 && r.done < r.total);
	assert.ok(midway.length > 0, `saw the run in progress (${seen.map((r) => `${r.status}:${r.done}`).join(' ')})`);
	assert.ok(midway.every((r) => r.summary && r.summary.rate >= 0 && r.summary.mismatches === 0));

	const s = run.summary;
	assert.equal(s.generator_version, 3);
	assert.equal(s.done, 200000);
	assert.equal(s.mismatches, 0);
	assert.equal(s.unconfirmed, 0);
	assert.match(s.corpus_hash, /^[0-9a-f]{16}$/);
	assert.match(s.corpus_hashes['20260101'], /^[0-9a-f]{16}$/);
	assert.ok(s.rate > 10000, `rate ${s.rate} cases/s`);
	for (const role of ['base', 'head']) {
		const b = s.builds[role];
		assert.equal(b.statuses.ok, 200000);
		assert.equal(b.failures, 0);
		assert.ok(b.cases_per_s > 10000, `${role}: ${b.cases_per_s} cases/s`);
		for (const e of ['JSON_ERROR_NONE', 'JSON_ERROR_DEPTH', 'JSON_ERROR_UTF8', 'JSON_ERROR_INF_OR_NAN',
			'JSON_ERROR_UNSUPPORTED_TYPE', 'JSON_ERROR_NON_BACKED_ENUM', 'JSON_ERROR_RECURSION']) {
			assert.ok(b.error_codes[e] > 0, `${role} reached ${e}: ${JSON.stringify(b.error_codes)}`);
		}
		assert.ok(b.exceptions > 0, 'exceptions (JSON_THROW_ON_ERROR, a throwing jsonSerialize) were reached');
	}
	assert.deepEqual(s.builds.base.error_codes, s.builds.head.error_codes);
	// Coverage: every piece class, shape, kind, feature, flag and class was reached.
	const cov = s.coverage;
	assert.equal(cov.cases, 200000);
	for (const group of ['piece', 'string', 'kind', 'feature', 'flag', 'class', 'enum']) {
		const entries = Object.entries(cov[group]);
		assert.ok(entries.length > 0, group);
		for (const [k, v] of entries) assert.ok(v > 0, `${group}.${k} never reached`);
	}
	for (const p of ['quote', 'backslash', 'slash', 'tag', 'amp', 'apos', 'control', 'del', 'utf8_2', 'utf8_3',
		'utf8_4', 'line_separator', 'invalid_lone_continuation', 'invalid_truncated', 'invalid_overlong',
		'invalid_surrogate', 'invalid_above_10ffff']) assert.ok(cov.piece[p] > 0, p);
	assert.equal(Object.keys(cov.flag).length, 15, 'the 14 encode flags and JSON_THROW_ON_ERROR');
	for (const v of Object.values(cov.flag).slice(0, 14)) assert.ok(Math.abs(v / 200000 - 0.25) < 0.01, 'p = 1/4');
	assert.equal(Object.keys(cov.class).length, 45);
	// The daemon's memory: small, and flat while the cases go by (the
	// slack is SQLite's page cache and WAL index filling up).
	// Not measured on an instrumented daemon (ASan, valgrind: helper.mjs).
	if (!INSTRUMENTED) {
		assert.ok(s.daemon.peak_rss_kb > 0 && s.daemon.peak_rss_kb < 64 * 1024, `peak RSS ${s.daemon.peak_rss_kb} KiB`);
		const early = midway[0].summary.daemon.rss_kb;
		assert.ok(s.daemon.peak_rss_kb - early < 8 * 1024,
			`resident ${early} KiB at ${midway[0].done} cases, peak ${s.daemon.peak_rss_kb} KiB at 200,000`);
	}

	// Every case's result is in SQLite; the listing of the run has no mismatch.
	assert.equal(sql(db, `SELECT count(*), sum(count), sum(length(hashes)) FROM generated_batches WHERE run_id = ${run.id}`),
		`25|200000|1600000`);
	const listed = await d.get(`/api/runs/${run.id}/cases?verdict=differ`);
	assert.deepEqual(listed.json.cases, []);
	// A run looks the same in the listing.
	const runs = await d.get('/api/runs');
	assert.deepEqual(runs.json.runs[0], run);
});

test('the same seed gives the same corpus across runs and across a daemon restart', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	let d = await start({ name: 'gen-same-1', db });
	const a = (await waitRun(d, (await postRun(d, { suite: 'generated', seeds: [7, 8], count: 30000 })).id)).run;
	const b = (await waitRun(d, (await postRun(d, { suite: 'generated', seed: 7, count: 30000 })).id)).run;
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
	d = await start({ name: 'gen-same-2', db });
	const c = (await waitRun(d, (await postRun(d, { suite: 'generated', seeds: [7, 8], count: 30000 })).id)).run;
	const other = (await waitRun(d, (await postRun(d, { suite: 'generated', seed: 9, count: 30000 })).id)).run;
	const shifted = (await waitRun(d, (await postRun(d, { suite: 'generated', seed: 7, count: 30000, start: 1 })).id)).run;
	for (const r of [a, b, c, other, shifted]) assert.equal(r.status, 'done', JSON.stringify(r).slice(0, 500));
	assert.equal(a.total, 60000);
	assert.equal(a.summary.corpus_hashes['7'], b.summary.corpus_hashes['7'], 'seed 7 alone and with seed 8');
	assert.equal(a.summary.corpus_hash, c.summary.corpus_hash, 'seeds [7, 8] before and after a restart');
	assert.deepEqual(a.summary.corpus_hashes, c.summary.corpus_hashes);
	assert.notEqual(a.summary.corpus_hashes['7'], a.summary.corpus_hashes['8']);
	assert.notEqual(other.summary.corpus_hashes['9'], a.summary.corpus_hashes['7']);
	assert.notEqual(shifted.summary.corpus_hashes['7'], b.summary.corpus_hashes['7'], 'another range of seed 7');
	// The run from before the restart still shows its summary.
	const old = await d.get(`/api/runs/${a.id}`);
	assert.equal(old.json.summary.corpus_hash, a.summary.corpus_hash);
});

test('mismatches on real builds: serialize_precision=17 on the head only', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'gen-ini', db, extraArgs: ['--ini', 'head:serialize_precision=17'] });
	assert.deepEqual(d.health.builds.map((b) => b.ini), [[], ['serialize_precision=17']]);
	const { run } = await waitRun(d, (await postRun(d, { suite: 'generated', seed: 5, count: 4000 })).id);
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 500));
	assert.equal(run.done, 4000);
	const differ = run.counts.differ;
	assert.ok(differ > 50 && differ < 2000, `floats encode differently in some cases: ${differ}`);
	assert.equal(run.counts.same + differ, 4000);
	assert.equal(run.summary.mismatches, differ);
	assert.equal(run.summary.unconfirmed, 0, 'every digest mismatch is a real one when run alone');
	assert.equal(run.summary.mismatch_list.length, Math.min(differ, 20));

	// Counted and listed by signature; only a bounded sample per signature
	// stored in full during the run.
	const sigs = run.summary.signatures;
	assert.equal(sigs.reduce((n, x) => n + x.mismatches, 0) + run.summary.other_signatures, differ);
	assert.ok(sigs.every((x) => x.samples.length === Math.min(x.mismatches, 8)), JSON.stringify(sigs));
	assert.ok(run.summary.stored_in_full <= sigs.length * 8 + 20);
	assert.ok(Number(sql(db, 'SELECT count(*) FROM generated_cases')) < differ);
	assert.equal(Number(sql(db, 'SELECT count(*) FROM generated_mismatches')), differ);

	// Listed, every mismatch is there, and listing writes nothing (issue 21):
	// one not stored in full has id null, its title, seed and index.
	const before = sql(db, 'SELECT (SELECT count(*) FROM generated_cases), (SELECT count(*) FROM comparisons), ' +
		'(SELECT count(*) FROM generated_mismatches WHERE case_id IS NOT NULL)');
	const cases = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ&limit=500`);
	assert.equal(cases.length, differ);
	assert.equal(sql(db, 'SELECT (SELECT count(*) FROM generated_cases), (SELECT count(*) FROM comparisons), ' +
		'(SELECT count(*) FROM generated_mismatches WHERE case_id IS NOT NULL)'), before, 'a GET stores nothing');
	const unstored = cases.filter((x) => x.id === null);
	assert.equal(unstored.length, differ - run.summary.stored_in_full);
	assert.ok(unstored.length > 0);
	for (const x of cases) {
		assert.equal(x.generated.version, 3);
		assert.equal(x.generated.seed, 5);
		assert.equal(x.title, `generated v3 seed 5 #${x.generated.index}`);
		assert.equal(x.verdict, 'differ');
		assert.equal(x.run_id, run.id);
	}
	// Stored in full on request: 201 with the case in the run, then 200 and the same case.
	const u = unstored[0];
	const s1 = await d.request('POST', `/api/runs/${run.id}/cases`, { body: { seed: 5, index: u.generated.index } });
	assert.equal(s1.status, 201, s1.text);
	assert.equal(s1.headers.location, `/api/cases/${s1.json.id}`);
	assert.equal(s1.json.run_id, run.id);
	assert.equal(s1.json.case.title, u.title);
	assert.notEqual(s1.json.results.base.output, s1.json.results.head.output);
	const s2 = await d.request('POST', `/api/runs/${run.id}/cases`, { body: { seed: 5, index: u.generated.index } });
	assert.equal(s2.status, 200, s2.text);
	assert.equal(s2.json.id, s1.json.id);
	assert.equal(s2.json.comparison_id, s1.json.comparison_id);
	// Only a listed mismatch of a generated run, named by a well-formed body.
	const sameIndex = [...Array(4000).keys()].find((i) => !cases.some((x) => x.generated.index === i));
	const refused = (runId, body, status, code) => refuses(d, 'POST', `/api/runs/${runId}/cases`, { body }, status, code);
	await refused(run.id, { seed: 5, index: sameIndex }, 404, 'not_found');
	await refused(run.id, { seed: 6, index: u.generated.index }, 404, 'not_found');
	await refused(run.id + 1000, { seed: 5, index: u.generated.index }, 404, 'not_found');
	await refused(run.id, { seed: 5 }, 400, 'bad_request');
	await refused(run.id, { seed: 5, index: -1 }, 400, 'bad_request');
	// A run made on a build this daemon does not have active is not made again on others.
	const builds = sql(db, `SELECT builds FROM runs WHERE id = ${run.id}`);
	const write = (q) => execFileSync('sqlite3', [db, q]);
	write(`INSERT INTO builds (name, lib_path, prefix, sha256) VALUES ('gone', '/x', '/x', 'x')`);
	write(`UPDATE runs SET builds = json_array(json_extract(builds, '$[0]'), (SELECT id FROM builds WHERE name = 'gone')) WHERE id = ${run.id}`);
	await refused(run.id, { seed: 5, index: unstored[1].generated.index }, 409, 'other_builds');
	write(`UPDATE runs SET builds = '${builds}' WHERE id = ${run.id}`);
	// Every one stored: each its own case, both results in full.
	await d.storeListed(cases);
	assert.equal(Number(sql(db, 'SELECT count(*) FROM generated_cases')), differ);
	const relisted = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ&limit=500`);
	assert.deepEqual(relisted.map((x) => x.id), cases.map((x) => x.id));
	assert.equal(new Set(relisted.map((x) => x.id)).size, differ);
	const first = run.summary.mismatch_list[0];
	const c = (await d.get(`/api/cases/${first.case_id}`)).json;
	assert.equal(c.case.title, `generated v3 seed 5 #${first.index}`);
	assert.equal(c.verdict, 'differ');
	assert.ok(c.differs.includes('output'), c.differs);
	assert.equal(c.run_id, run.id);
	assert.ok(c.case.code.length > 0);
	assert.ok(Array.isArray(c.case.flag_names));
	assert.ok(c.case.depth >= 1);
	assert.notEqual(c.results.base.output, c.results.head.output);
	// The head prints floats with 17 significant digits.
	assert.match(c.results.head.output, /\d\.\d{10,}|E[+-]?\d+|e[+-]?\d+/);

	// One call turns it into a submitted case run from its PHP source.
	const g = await d.request('POST', '/api/generated', { body: { seed: 5, index: first.index } });
	assert.equal(g.status, 201, g.text);
	assert.equal(g.json.verdict, 'differ');
	assert.deepEqual(g.json.generated, { version: 3, seed: 5, index: first.index, reproduces: { base: true, head: true } });
	assert.equal(g.json.id, first.case_id, 'the same case, with another comparison in its history');
	assert.equal(g.json.run_id, null);
	assert.equal(g.json.results.head.output, c.results.head.output);
	assert.match(g.json.phpt, /^--TEST--\ngenerated v3 seed 5 #\d+\n/);
	assert.match(g.json.phpt, /--VALUE--\n/);
	const again = await d.request('POST', '/api/generated?fail_on_differ=1', { body: { seed: 5, index: first.index } });
	assert.equal(again.status, 409);
});

test('the PHP source of a generated case reproduces its value on both builds', async () => {
	const d = await start({ name: 'gen-source' });
	let checked = 0;
	for (let i = 0; i < 150; i++) {
		const r = await d.request('POST', '/api/generated', { body: { seed: 31337, index: i } });
		assert.equal(r.status, 201, r.text);
		assert.deepEqual(r.json.generated.reproduces, { base: true, head: true },
			`index ${i}: ${r.json.case.code}\n${r.json.case.setup}`);
		assert.equal(r.json.verdict, 'same');
		checked++;
	}
	assert.equal(checked, 150);
	// Generator version 2's kinds, each rendered as its PHP: a reference
	// (&$h), a value that contains itself ($t = ...; $h = $t), a padded list,
	// the destructor that throws after jsonSerialize() returned, and the
	// built-in classes; version 3's: a sequence (two earlier calls, caught,
	// the second at depth 2), a jsonSerialize() calling json_encode(), a
	// 64 KiB block string, a list an element's jsonSerialize() writes into
	// through the list's own reference.  Each index is the first of seed
	// 31337 with it.
	const kinds = [
		[7, /&\$h\d+/], [7, /\$t\d+ = .*\$h\d+ = \$t\d+;/], [15, /^\[str_repeat\('x', \d+\), /],
		[158, /GenC40/, /class GenDtorThrow/], [41, /new WeakMap\(\)/], [10, /new ArrayObject\(/],
		[64, /new DateTimeImmutable\('@\d+'\)/],
		[2, /new DateInterval\('P\dD'\)/], [121, /new SplFixedArray\(\d\)/],
		[54, /^\$v = "zz\\\\\\x02x";\ntry \{ json_encode\(\$v, JSON_HEX_QUOT \| JSON_NUMERIC_CHECK \| JSON_UNESCAPED_LINE_TERMINATORS\); \} catch \(Throwable\) \{\}\ntry \{ json_encode\(\$v, JSON_HEX_AMP \| JSON_HEX_QUOT \| JSON_PRETTY_PRINT, 2\); \} catch \(Throwable\) \{\}\nreturn \$v;$/],
		[127, /new GenC42\(/, /GenC42 implements JsonSerializable[\s\S]*jsonSerialize\(\): mixed \{ return json_encode\(/],
		[14, /str_repeat\('a', 65540\) \. "\\x01a"/],
		[42, /^\(function \(\) \{ \$v = \[&\$h1\]; \$h1 = \[true, new GenC44\(\[.*\], \$h1\)\]; return \$v; \}\)\(\)$/, /GenC44 implements JsonSerializable[\s\S]*&\.\.\./],
	];
	for (const [i, code, setup] of kinds) {
		const r = await d.request('POST', '/api/generated', { body: { seed: 31337, index: i } });
		assert.equal(r.status, 201, r.text);
		assert.match(r.json.case.code, code, `index ${i}`);
		if (setup) assert.match(r.json.case.setup, setup, `index ${i}`);
		assert.deepEqual(r.json.generated.reproduces, { base: true, head: true },
			`index ${i}: ${r.json.case.code}\n${r.json.case.setup}`);
		assert.equal(r.json.verdict, 'same');
	}
	// Values that contain themselves (seed 31337's first five): recursion
	// detected (6) unless another error comes first (a resource: 8).
	const codes = [];
	for (const i of [7, 16, 35, 68, 103]) {
		const r = await d.request('POST', '/api/generated', { body: { seed: 31337, index: i } });
		assert.match(r.json.case.code, /\$h\d+ = \$t\d+;/, `index ${i}`);
		assert.deepEqual(r.json.generated.reproduces, { base: true, head: true }, `index ${i}: ${r.json.case.code}`);
		codes.push(r.json.results.base.error_code);
	}
	assert.ok(codes.includes(6), `JSON_ERROR_RECURSION among ${codes}`);
});

test('a crash and a timeout on one build are status mismatches; the run goes on', async () => {
	const d = await start({
		name: 'gen-faults', timeoutMs: 1500,
		extraArgs: ['--ini', 'head:phpcmp.gen_crash_at=1234', '--ini', 'base:phpcmp.gen_hang_at=77'],
	});
	const { run } = await waitRun(d, (await postRun(d, { suite: 'generated', seed: 3, count: 3000 })).id);
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 800));
	assert.equal(run.done, 3000);
	assert.deepEqual(run.counts, { same: 2998, differ: 2 });
	const list = run.summary.mismatch_list.sort((a, b) => a.index - b.index);
	assert.deepEqual(list.map((m) => m.index), [77, 1234]);
	assert.equal(run.summary.builds.base.failures, 1);
	assert.equal(run.summary.builds.head.failures, 1);
	assert.equal(run.summary.builds.base.statuses.timeout, 1);
	assert.equal(run.summary.builds.head.statuses.crash, 1);

	const hang = (await d.get(`/api/cases/${list[0].case_id}`)).json;
	assert.equal(hang.results.base.status, 'timeout');
	assert.equal(hang.results.head.status, 'ok');
	assert.ok(hang.differs.includes('status'));
	const crash = (await d.get(`/api/cases/${list[1].case_id}`)).json;
	assert.equal(crash.results.head.status, 'crash');
	assert.equal(crash.results.head.signal, 11);
	assert.match(crash.results.head.failure, /SIGSEGV/);
	assert.equal(crash.results.base.status, 'ok');
	assert.ok(crash.differs.includes('status'));
	// The workers were restarted and still answer.
	const h = (await d.get('/api/health')).json;
	for (const b of h.builds) assert.ok(b.worker.restarts >= 1, `${b.name} restarted`);
	const ok = await d.runCase({ code: '[1]' });
	assert.equal(ok.verdict, 'same');
});

test('a generated run can be cancelled while it runs', async () => {
	const d = await start({ name: 'gen-cancel' });
	const posted = await postRun(d, { suite: 'generated', seeds: [1, 2, 3, 4], count: 10000000 });
	for (;;) {
		const r = await d.get(`/api/runs/${posted.id}`);
		if (r.json.status === 'running' && r.json.done > 0) break;
		assert.ok(['queued', 'running'].includes(r.json.status), r.text);
		await sleep(20);
	}
	const c = await d.request('POST', `/api/runs/${posted.id}/cancel`);
	assert.equal(c.status, 200, c.text);
	const { run } = await waitRun(d, posted.id, 30_000);
	assert.equal(run.status, 'cancelled');
	assert.equal(run.total, 40000000);
	assert.ok(run.done > 0 && run.done < run.total, `done ${run.done}`);
	assert.equal(run.summary.done, run.done);
	const again = await d.request('POST', `/api/runs/${posted.id}/cancel`);
	assert.equal(again.status, 409);
});

test('a generated run resumes where it stopped, even after the daemon was killed', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const extraArgs = ['--ini', 'head:serialize_precision=17'];
	let d = await start({ name: 'gen-resume-1', db, extraArgs });
	const body = { suite: 'generated', seed: 11, count: 40000 };
	const ref = (await waitRun(d, (await postRun(d, body)).id)).run;
	assert.equal(ref.status, 'done');
	assert.ok(ref.counts.differ > 0);

	const posted = await postRun(d, body);
	for (;;) {
		const r = await d.get(`/api/runs/${posted.id}`);
		assert.notEqual(r.json.status, 'done', 'the run ended before it could be killed');
		// Past the first batch (8192 cases), most likely inside another.
		if (r.json.status === 'running' && r.json.done > 8192) break;
		await sleep(5);
	}
	// No goodbye: whatever the run was doing is cut short.
	d.proc.kill('SIGKILL');
	await d.exited;
	daemons.splice(daemons.indexOf(d), 1);

	d = await start({ name: 'gen-resume-2', db, extraArgs });
	const stopped = (await d.get(`/api/runs/${posted.id}`)).json;
	assert.equal(stopped.status, 'interrupted');
	assert.ok(stopped.done > 0 && stopped.done < 40000, `done ${stopped.done}`);
	const r = await d.request('POST', `/api/runs/${posted.id}/resume`);
	assert.equal(r.status, 202, r.text);
	const run = (await waitRun(d, posted.id)).run;
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 500));
	assert.equal(run.done, 40000);
	assert.deepEqual(run.counts, ref.counts, 'every case counted once');
	assert.equal(run.summary.corpus_hash, ref.summary.corpus_hash);
	assert.ok(run.summary.resumed_past > 0);
	assert.deepEqual(run.summary.coverage, ref.summary.coverage);
	// Every mismatch listed once; a bounded sample stored in full during
	// the run, the rest on request -- none twice.
	assert.equal(sql(db, `SELECT count(*) FROM generated_mismatches WHERE run_id = ${run.id}`),
		String(ref.counts.differ), 'no mismatch listed twice');
	assert.ok(Number(sql(db, `SELECT count(*) FROM comparisons WHERE run_id = ${run.id}`)) < ref.counts.differ,
		'not every mismatch stored in full during the run');
	const listed = await d.storeListed(await d.listAll(`/api/runs/${run.id}/cases?verdict=differ&limit=500`));
	assert.equal(listed.length, ref.counts.differ);
	assert.equal(new Set(listed.map((c) => c.id)).size, ref.counts.differ, 'each a case of its own');
	assert.equal(sql(db, `SELECT count(*) FROM comparisons WHERE run_id = ${run.id}`), String(ref.counts.differ),
		'no mismatch stored twice');
	assert.equal(sql(db, `SELECT sum(count) FROM generated_batches WHERE run_id = ${run.id}`), '40000');
});

// A run made by an older generator (its summary's generator_version) cannot
// be resumed here: the cases it did not run are gone with that version.
test('resuming a run of a generator version that is gone is a 409 that says so', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	let d = await start({ name: 'gen-gone-1', db });
	const run = (await waitRun(d, (await postRun(d, { suite: 'generated', seed: 3, count: 2000 })).id)).run;
	assert.equal(run.status, 'done');
	assert.equal(run.summary.generator_version, 3);
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
	// What a run of version 1 left behind: stopped half way.
	execFileSync('sqlite3', [db, `UPDATE runs SET status = 'interrupted', summary = json_set(summary, '$.generator_version', 1) WHERE id = ${run.id}`]);
	d = await start({ name: 'gen-gone-2', db });
	const r = await d.request('POST', `/api/runs/${run.id}/resume`);
	assert.equal(r.status, 409, r.text);
	assert.match(r.json.error.message, new RegExp(`^run ${run.id} was made with generator version 1, which is gone: this daemon's generator is version 3`));
	assert.equal((await d.get(`/api/runs/${run.id}`)).json.status, 'interrupted', 'left as it was');
	// The single-case endpoint says the same of version 1.
	const g = await d.request('POST', '/api/generated', { body: { seed: 3, index: 0, version: 1 } });
	assert.equal(g.status, 400, g.text);
	assert.match(g.json.error.message, /this daemon's generator is version 3 only/);
});

// Two definitions of "same" (server/core/gencore.c's result digest, compared
// by genrun.c, and server/daemon/model/result.c's verdict) must agree both ways:
// every digest mismatch is a verdict mismatch (unconfirmed 0), and cases
// whose digests matched are verdict-same when run alone, on both builds.
test('the digest and the verdict agree on what is the same, both ways', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await start({ name: 'gen-agree', db, extraArgs: ['--ini', 'head:serialize_precision=17'] });
	const { run } = await waitRun(d, (await postRun(d, { suite: 'generated', seed: 7, count: 1500 })).id);
	assert.equal(run.status, 'done');
	assert.ok(run.counts.differ > 0 && run.counts.same > 0, JSON.stringify(run.counts));
	assert.equal(run.summary.unconfirmed, 0, 'digest mismatch => verdict mismatch');
	const differ = new Set(sql(db, 'SELECT idx FROM generated_mismatches WHERE seed = 7').split('\n').filter(Boolean).map(Number));
	assert.equal(differ.size, run.counts.differ);
	let same = 0, checkedDiffer = 0;
	for (let i = 0; i < 1500 && (same < 25 || checkedDiffer < 5); i += 7) {
		if (differ.has(i) ? checkedDiffer >= 5 : same >= 25) continue;
		const g = await d.request('POST', '/api/generated', { body: { seed: 7, index: i } });
		assert.equal(g.status, 201, g.text);
		assert.deepEqual(g.json.generated.reproduces, { base: true, head: true }, `#${i} reproduces`);
		assert.equal(g.json.verdict, differ.has(i) ? 'differ' : 'same', `#${i}: the digests ${differ.has(i) ? 'differed' : 'matched'}`);
		if (differ.has(i)) checkedDiffer++;
		else same++;
	}
	assert.equal(same, 25);
	assert.ok(checkedDiffer > 0);
});
