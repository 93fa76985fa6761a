// A base and several candidates (issue 11): one daemon with four builds —
// base = 8.2.32, head = 8.2.36, twin = 8.2.32 with serialize_precision=17 (a
// difference only it has), same = 8.2.32 again (the same library under
// another name: a candidate that must agree with the base everywhere, to the
// instruction).  Every case, stored run, generated run and measurement runs
// on all three; each candidate is compared with the base; the two-build
// fields stay (results.base, results.head, differs) with per-candidate
// detail beside them.  Also: --base NAME, 8 builds at once, 9 refused, an
// old (two-build) database migrating.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, BIN, BUILDS, Daemon, HEAD_VERSION, ROOT, tmpDir } from './helper.mjs';

const BASE = path.join(BUILDS, 'base');
const HEAD = path.join(BUILDS, 'head');

let d;
const others = [];
before(async () => {
	d = await Daemon.start({
		name: 'candidates',
		buildList: [['base', BASE], ['head', HEAD], ['twin', BASE], ['same', BASE]],
		// The twin rounds floats differently: a difference only it has.
		extraArgs: ['--ini', 'twin:serialize_precision=17'],
	});
});
after(async () => {
	for (const o of others) await o.stopClean();
	if (d) await d.stopClean();
});


test('health lists the builds by role, base first', () => {
	const b = d.health.builds;
	assert.deepEqual(b.map((x) => [x.name, x.role, x.php_version]),
		[['base', 'base', BASE_VERSION], ['head', 'head', HEAD_VERSION], ['twin', 'cand2', BASE_VERSION], ['same', 'cand3', BASE_VERSION]]);
});

test('a case on three builds: which candidates differ, and in which fields', async () => {
	const v = await d.runCase({ code: 'PHP_VERSION' });
	assert.equal(v.verdict, 'differ');
	assert.deepEqual(v.differs, ['output']);
	assert.equal(v.results.base.output, `"${BASE_VERSION}"`);
	assert.equal(v.results.head.output, `"${HEAD_VERSION}"`);
	assert.equal(v.results.cand2.output, `"${BASE_VERSION}"`);
	assert.equal(v.results.cand2.build, 'twin');
	assert.deepEqual(v.candidates, {
		head: { role: 'head', verdict: 'differ', differs: ['output'] },
		twin: { role: 'cand2', verdict: 'same', differs: [] },
		same: { role: 'cand3', verdict: 'same', differs: [] },
	});

	const f = await d.runCase({ code: '0.1' });
	assert.equal(f.verdict, 'differ');
	assert.equal(f.candidates.head.verdict, 'same');
	assert.equal(f.candidates.twin.verdict, 'differ');
	assert.equal(f.results.cand2.output, '0.10000000000000001');

	const s = await d.runCase({ code: '[1, "a" => 2]' });
	assert.equal(s.verdict, 'same');
	assert.deepEqual(Object.keys(s.candidates), ['head', 'twin', 'same']);

	// GET answers the same thing POST did.
	const g = await d.get(`/api/cases/${f.id}`);
	assert.deepEqual(g.json.candidates, f.candidates);
	assert.equal(g.json.results.cand2.output, '0.10000000000000001');
});

test('buckets know their candidate; ?candidate= filters them', async () => {
	const all = await d.get('/api/buckets');
	assert.equal(all.status, 200, all.text);
	const names = all.json.buckets.map((b) => b.candidate);
	assert.ok(names.includes('head') && names.includes('twin'), JSON.stringify(names));
	const twin = await d.get('/api/buckets?candidate=twin');
	assert.ok(twin.json.buckets.length >= 1);
	assert.ok(twin.json.buckets.every((b) => b.candidate === 'twin'));
	assert.equal(twin.json.buckets[0].key.candidate, 'twin');
	const head = await d.get('/api/buckets?candidate=head');
	assert.ok(head.json.buckets.every((b) => b.candidate === 'head' && b.key.candidate === undefined));
	assert.equal((await d.get('/api/buckets?candidate=no%20such')).status, 400);
});

test('a stored run on three builds: the run lists them all', async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'stored' } });
	assert.equal(post.status, 202, post.text);
	const run = await d.waitRun(post.json.id, { deadlineMs: 400_000 });
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.deepEqual(run.build_list.map((b) => [b.role, b.name]), [['base', 'base'], ['head', 'head'], ['cand2', 'twin'], ['cand3', 'same']]);
	assert.equal(run.build_names.cand2, 'twin');
	assert.equal(run.builds.cand2, BASE_VERSION);
	const list = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ&limit=200`);
	assert.ok(list.length > 0);
	const one = await d.get(`/api/cases/${list[0].id}?comparison=${list[0].comparison_id}`);
	assert.equal(one.status, 200, one.text);
	assert.ok(one.json.results.cand2, 'every result of the run is stored');
});

test('a generated run sends each batch to every build: one corpus hash, mismatches per candidate', async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 11, count: 3000 } });
	assert.equal(post.status, 202, post.text);
	const run = await d.waitRun(post.json.id, { deadlineMs: 400_000 });
	assert.equal(run.status, 'done', JSON.stringify(run));
	const s = run.summary;
	assert.equal(s.done, 3000);
	assert.match(s.corpus_hash, /^[0-9a-f]{16}$/);
	assert.deepEqual(Object.keys(s.builds), ['base', 'head', 'cand2', 'cand3']);
	assert.equal(s.builds.cand3.mismatches, 0, 'the same library agrees on every case');
	assert.equal(s.builds.cand2.build, 'twin');
	for (const b of Object.values(s.builds)) assert.equal(b.statuses.ok + b.statuses.error + b.statuses.crash + b.statuses.timeout, 3000);
	// The twin differs on floats (serialize_precision), the head hardly.
	assert.ok(s.builds.cand2.mismatches > 0, JSON.stringify(s.builds.cand2));
	assert.equal(s.mismatches >= s.builds.cand2.mismatches, true);
	assert.equal(run.counts.differ, s.mismatches);
	// Every mismatch listed in bulk, once per case, with the candidates
	// that differ and every build's digest (issue 14).
	const q = (sql) => execFileSync('sqlite3', ['-readonly', d.db, sql], { encoding: 'utf8' }).trim();
	const where = `FROM generated_mismatches WHERE run_id = ${run.id}`;
	assert.equal(Number(q(`SELECT count(*) ${where}`)), s.mismatches);
	assert.equal(Number(q(`SELECT count(*) ${where} AND length(digests) != 4 * 32`)), 0);
	for (const [role, name] of [['head', 'head'], ['cand2', 'twin'], ['cand3', 'same']]) {
		const n = Number(q(`SELECT count(*) ${where} AND instr(',' || candidates || ',', ',${role},') > 0`));
		assert.equal(n, s.builds[role].mismatches, `${name}'s mismatches listed`);
	}
	// Signatures: the first candidate's part unnamed (as with two builds), a later one's by its role.
	assert.ok(s.signatures.length > 0);
	let total = 0;
	for (const x of s.signatures) {
		total += x.mismatches;
		for (const part of x.signature.split(';')) assert.match(part, /^(cand2:)?[a-z_,]+\|[a-z]+,\d+,\d+\|[a-z]+,\d+,\d+$/, x.signature);
	}
	assert.equal(total + s.other_signatures, s.mismatches);
	assert.ok(s.signatures.some((x) => x.signature.startsWith('cand2:')), JSON.stringify(s.signatures));
	// A mismatch made again on demand holds every build's result.
	const page = (await d.get(`/api/runs/${run.id}/cases?verdict=differ&limit=3`)).json;
	assert.equal(page.cases.length, 3);
	for (const c of await d.storeListed(page.cases)) {
		const full = (await d.get(`/api/cases/${c.id}?comparison=${c.comparison_id}`)).json;
		assert.deepEqual(Object.keys(full.results).sort(), ['base', 'cand2', 'cand3', 'head']);
	}
});

test('measurements: a column per candidate; the same library is 0.0 % everywhere', async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'measure' } });
	assert.equal(post.status, 202, post.text);
	const run = await d.waitRun(post.json.id, { deadlineMs: 900_000 });
	assert.equal(run.status, 'done', JSON.stringify(run));
	const t = await d.get(`/api/runs/${run.id}/measurements`);
	assert.equal(t.status, 200, t.text);
	assert.deepEqual(t.json.build_list.map((b) => b.name), ['base', 'head', 'twin', 'same']);
	for (const w of t.json.workloads) {
		assert.ok(w.base.instructions > 0 && w.cand2.instructions > 0, JSON.stringify(w));
		assert.equal(w.candidates.same.delta_pct, 0, `${w.title}: the same library counts the same`);
		assert.equal(w.candidates.same.change, 'unchanged');
		assert.equal(w.cand3.instructions, w.base.instructions);
		assert.equal(w.candidates.head.delta_pct, w.delta_pct);
	}
	assert.equal(t.json.candidate_counts.same.unchanged, t.json.workloads.length);
	assert.equal(t.json.candidate_counts.head.regressions, t.json.counts.regressions);

	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.equal(md.status, 200);
	assert.match(md.text, /^\| json_encode\(\) of \| base \(instructions\) \| head \| twin \| same \|$/m);
	const rows = md.text.split('\n').filter((l) => l.startsWith('| workload'));
	assert.equal(rows.length, t.json.workloads.length);
	for (const r of rows) assert.match(r, /\| (?:[+−]\d+\.\d|0\.0) % \| (?:[+−]\d+\.\d|0\.0) % \| 0\.0 % \|$/, r);
	assert.match(md.text, new RegExp(`^- same: 0 regressions, 0 improvements, ${rows.length} unchanged$`, 'm'));
	// The two-build shape on request.
	const two = await d.get(`/api/runs/${run.id}/report.md?columns=builds`);
	assert.match(two.text, /\| json_encode\(\) of \| base \| head \| Δ % \|/);
	assert.equal((await d.get(`/api/runs/${run.id}/report.md?columns=sideways`)).status, 400);
	// Every build's callgrind file, by role.
	const w0 = t.json.workloads[0];
	const dump = await d.get(`/api/comparisons/${w0.comparison_id}/callgrind/cand2`);
	assert.equal(dump.status, 200);
	assert.match(dump.text, /^# callgrind format/m);
});

test('--base NAME picks the base; 8 builds start, a 9th is refused', async () => {
	const picked = await Daemon.start({
		name: 'candidates-base',
		buildList: [['head', HEAD], ['base', BASE]],
		extraArgs: ['--base', 'base'],
	});
	others.push(picked);
	assert.deepEqual(picked.health.builds.map((b) => [b.name, b.role]), [['base', 'base'], ['head', 'head']]);

	const eight = [['base', BASE]];
	for (let i = 1; i < 8; i++) eight.push([`c${i}`, i % 2 ? HEAD : BASE]);
	const t0 = Date.now();
	const big = await Daemon.start({ name: 'candidates-8', buildList: eight });
	others.push(big);
	assert.equal(big.health.builds.length, 8);
	console.log(`# 8 builds: first /api/health after ${Date.now() - t0} ms`);
	const v = await big.runCase({ code: 'PHP_VERSION' });
	assert.equal(Object.keys(v.results).length, 8);
	assert.deepEqual(Object.entries(v.candidates).filter(([, c]) => c.verdict === 'differ').map(([n]) => n), ['c1', 'c3', 'c5', 'c7']);

	const nine = [...eight, ['c8', BASE]].flatMap(([n, p]) => ['--build', `${n}=${p}`]);
	let out = '';
	try {
		execFileSync(BIN, ['serve', '--port', '0', '--db', path.join(tmpDir(), 'x.db'), ...nine], { cwd: ROOT, stdio: 'pipe' });
	} catch (e) {
		out = String(e.stderr);
	}
	assert.match(out, /at most 8 builds/);
});

test('an old two-build database migrates: its cases read back, new ones get every build', async () => {
	const dir = tmpDir();
	const db = path.join(dir, 'old.db');
	// The schema as it was before migrations 6 and 7, with a stored comparison.
	const schema = fs.readFileSync(path.join(ROOT, 'schema.sql'), 'utf8');
	const old = schema.slice(0, schema.indexOf('-- @migration 6'));
	execFileSync('sqlite3', [db], {
		input: `${old}
INSERT INTO builds (id, name, php_version, lib_path, prefix, sha256) VALUES (1, 'base', '8.2.32', 'l', 'p', 'aa'), (2, 'head', '8.2.36', 'l', 'p', 'bb');
INSERT INTO runs (id, suite, status, base_build_id, head_build_id, total, done, differ) VALUES (1, 'stored', 'done', 1, 2, 1, 1, 1);
INSERT INTO cases (id, title, code, content_hash) VALUES (1, 'old case', 'PHP_VERSION', 'x');
INSERT INTO comparisons (id, case_id, run_id, verdict, differs) VALUES (1, 1, 1, 'differ', 'output');
INSERT INTO results (comparison_id, role, build_id, status, output) VALUES (1, 'base', 1, 'ok', '"8.2.32"'), (1, 'head', 2, 'ok', '"8.2.36"');
`,
	});
	const m = await Daemon.start({ name: 'candidates-migrate', db, buildList: [['base', BASE], ['head', HEAD], ['twin', BASE]] });
	others.push(m);
	const c = await m.get('/api/cases/1');
	assert.equal(c.status, 200, c.text);
	assert.equal(c.json.results.base.output, '"8.2.32"');
	assert.equal(c.json.results.head.output, '"8.2.36"');
	assert.deepEqual(Object.keys(c.json.candidates), ['head']);
	const r = await m.get('/api/runs/1');
	assert.deepEqual(r.json.build_list.map((b) => b.name), ['base', 'head']);
	const b = await m.get('/api/buckets');
	assert.equal(b.json.buckets.length, 1, 'the old mismatch got its bucket');
	const v = execFileSync('sqlite3', [db, 'PRAGMA user_version'], { encoding: 'utf8' }).trim();
	assert.ok(Number(v) >= 7, v);
	const n = await m.runCase({ code: 'PHP_VERSION' });
	assert.equal(n.results.cand2.output, `"${BASE_VERSION}"`);
});
