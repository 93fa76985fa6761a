// Instruction counts (issue 4): phpcmp's figure equals the manual method's
// (valgrind on a loop of N calls + callgrind_annotate --inclusive=yes, the
// zif_json_encode line / N), counts repeat exactly, the measure suite and its
// reports, and the real 8.2.32 -> 8.2.36 difference.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT, WORKER, errorOf, tmpDir } from './helper.mjs';

const N = 200;
// micro_bench's JsonObj, as in cases/workloads/01-jsonobj.phpt.
const SETUP = `class JsonObj {
    public $id = 42;
    public $name = 'micro_bench';
    public $ratio = 0.5;
    public $active = true;
    public $tags = null;
}`;
const VALUE = 'new JsonObj';
const FLAGS = 0;
const DEPTH = 512;

let d;
before(async () => { d = await Daemon.start({ name: 'measure' }); });
after(async () => { await d?.stopClean(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitRun(id, deadlineMs = 240_000) {
	const t0 = Date.now();
	for (;;) {
		const r = await d.get(`/api/runs/${id}`);
		assert.equal(r.status, 200);
		if (!['queued', 'running'].includes(r.json.status)) return r.json;
		if (Date.now() - t0 > deadlineMs) throw new Error(`run ${id} still ${r.json.status}`);
		await sleep(200);
	}
}

// The reviewer's method, by hand: the same library, a PHP loop of `calls`
// calls, everything collected, then callgrind_annotate's inclusive count of
// zif_json_encode.  The worker's --eval mode only hosts the library; exit()
// ends the case before phpcmp's own encode.
function manualInclusive(build, calls) {
	const dir = tmpDir('phpcmp-manual-');
	const out = path.join(dir, 'callgrind.out');
	const code = `${SETUP}\n$v = ${VALUE};\nfor ($i = 0; $i < ${calls}; $i++) { json_encode($v, ${FLAGS}, ${DEPTH}); }\nexit();`;
	try {
		execFileSync('valgrind', ['-q', '--tool=callgrind', `--callgrind-out-file=${out}`,
			WORKER, '--lib', build.library, '--core', build.core, '--eval', code],
		{ cwd: ROOT, stdio: 'ignore', env: { PATH: process.env.PATH, LC_ALL: 'C', TZ: 'UTC' } });
	} catch (e) {
		// exit() makes the case an error: the loader exits 1 after it ran.
		if (e.status !== 1) throw e;
	}
	const annotate = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', out], { encoding: 'utf8' });
	fs.rmSync(dir, { recursive: true, force: true });
	// Debian's libphp is stripped: callgrind names the handler by its offset.
	const names = ['zif_json_encode', build.json_encode_offset];
	const line = annotate.split('\n').find((l) => names.some((n) => l.includes(`:${n} `) || l.endsWith(`:${n}`)));
	assert.ok(line, `no zif_json_encode line (${names.join(' or ')}) in callgrind_annotate's output`);
	const inclusive = Number(line.trim().split(/\s+/)[0].replace(/,/g, ''));
	assert.ok(inclusive > 0, line);
	return inclusive;
}

async function measured() {
	const r = await d.runCase({ title: 'measured JsonObj', setup: SETUP, code: VALUE, flags: FLAGS, depth: DEPTH, measure: N });
	for (const role of ['base', 'head']) {
		assert.equal(r.results[role].status, 'ok', JSON.stringify(r.results[role]));
		assert.equal(typeof r.results[role].instructions_total, 'number', `${role} was measured`);
	}
	return r;
}

// phpcmp counts N calls after a warm-up; the manual loop's total includes its
// first call, which costs more for an object (its property table is built on
// the first encode).  The manual method with that first call taken out --
// a loop of N+1 calls minus a loop of 1 -- must give phpcmp's count exactly.
test("phpcmp's count equals the manual callgrind_annotate method exactly, on both builds", async () => {
	const health = (await d.get('/api/health')).json;
	const r = await measured();
	for (const build of health.builds) {
		assert.match(build.json_encode_offset, /^0x[0-9a-f]{16}$/);
		assert.ok(fs.existsSync(build.core), 'the compiled core is where health says');
		const first = manualInclusive(build, 1);
		const manual = manualInclusive(build, N + 1) - first;
		const ours = r.results[build.role].instructions_total;
		assert.equal(ours, manual, `${build.name}: phpcmp ${ours} vs manual ${manual} over ${N} calls`);
		assert.equal(r.results[build.role].instructions, Math.round(manual / N));
	}
});

test('counts repeat exactly: the same workload twice gives the same count', async () => {
	const a = await measured();
	const b = await measured();
	for (const role of ['base', 'head']) {
		assert.equal(a.results[role].instructions_total, b.results[role].instructions_total, role);
	}
});

test("8.2.36's encoder does more work per call than 8.2.32's (the real difference shows)", async () => {
	const r = await measured();
	const base = r.results.base.instructions_total, head = r.results.head.instructions_total;
	assert.ok(head > base, `head ${head} > base ${base}`);
});

test('an unmeasured case has no instruction count', async () => {
	const r = await d.runCase({ code: '[1, 2, 3]' });
	assert.equal(r.results.base.instructions, null);
	assert.equal(r.results.base.instructions_total, null);
	// Nothing to say where its instructions went: 404 no_callgrind, by name.
	const f = await d.get(`/api/comparisons/${r.comparison_id}/functions`);
	assert.equal(f.status, 404, f.text);
	assert.equal(errorOf(f).code, 'no_callgrind');
	assert.match(errorOf(f).message, /has no callgrind file for base \(not a measured workload\?\)/);
});

test('the measure suite: every stored workload on both builds, JSON table, report.md, history, dumps', async () => {
	const workloads = fs.readdirSync(path.join(ROOT, 'cases/workloads')).filter((f) => f.endsWith('.phpt'));
	const post = await d.request('POST', '/api/runs', { body: { suite: 'measure' } });
	assert.equal(post.status, 202, post.text);
	const run = await waitRun(post.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.equal(run.total, workloads.length);

	const t = await d.get(`/api/runs/${run.id}/measurements`);
	assert.equal(t.status, 200, t.text);
	assert.equal(t.json.threshold_pct, 1);
	assert.equal(t.json.workloads.length, workloads.length);
	let regressions = 0;
	for (const w of t.json.workloads) {
		assert.ok(w.base.instructions > 0 && w.head.instructions > 0, JSON.stringify(w));
		const delta = (w.head.instructions - w.base.instructions) / w.base.instructions * 100;
		assert.ok(Math.abs(delta - w.delta_pct) < 0.01, `${w.title}: delta ${w.delta_pct} vs ${delta}`);
		const want = Math.abs(w.delta_pct) < 1 ? 'unchanged' : w.delta_pct > 0 ? 'regression' : 'improvement';
		assert.equal(w.change, want, w.title);
		if (want === 'regression') regressions++;
	}
	assert.equal(t.json.counts.regressions, regressions);
	assert.ok(regressions > 0, '8.2.36 is slower on some workloads');
	// A higher threshold makes fewer changes noteworthy.
	const t50 = await d.get(`/api/runs/${run.id}/measurements?threshold=50`);
	assert.equal(t50.json.counts.regressions, 0);
	assert.equal(t50.json.counts.unchanged, workloads.length);
	const bad = await d.get(`/api/runs/${run.id}/measurements?threshold=lots`);
	assert.equal(bad.status, 400);
	assert.equal(errorOf(bad).code, 'bad_request');

	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.equal(md.status, 200);
	assert.match(md.headers['content-type'], /^text\/markdown/);
	assert.match(md.text, /\| json_encode\(\) of \| base \| head \| Δ % \|/);
	assert.equal(md.text.split('\n').filter((l) => l.startsWith('| workload')).length, workloads.length);
	assert.match(md.text, new RegExp(`${regressions} regressions?, 0 improvements`));

	const first = t.json.workloads[0];
	const dump = await d.get(`/api/comparisons/${first.comparison_id}/callgrind/head`);
	assert.equal(dump.status, 200);
	assert.match(dump.headers['content-disposition'], /attachment; filename="callgrind\.out\./);
	assert.match(dump.text, /^# callgrind format/m);
	assert.match(dump.text, new RegExp(`^summary: ${Math.round(first.head.instructions * first.iterations)}$`, 'm'));
	assert.equal((await d.get(`/api/comparisons/${first.comparison_id}/callgrind/tail`)).status, 404);

	// Debian's stripped builds: json_encoder.c unknown, said so; the function
	// diff shows what resolves (exported symbols, offsets), no source file.
	assert.deepEqual(t.json.build_list.map((b) => b.json_encoder_c), [false, false]);
	assert.ok(t.json.workloads.every((w) => w.base.json_encoder_c === null && w.head.json_encoder_c === null));
	const enc = await d.get(`/api/runs/${run.id}/report.md?json_encoder=1`);
	assert.equal(enc.status, 200, enc.text);
	assert.match(enc.text, /^\| json_encode\(\) of \| base \(instructions\) \| base json_encoder\.c \| head \| head json_encoder\.c \|$/m);
	for (const r of enc.text.split('\n').filter((l) => l.startsWith('| workload'))) assert.match(r, /\| n\/a \| (?:[+−]\d+\.\d|0\.0) % \| n\/a \|$/, r);
	// A whole count per call as one, as docs/builds.md shows it (issue 46: not "3,298.00").
	for (const r of enc.text.split('\n').filter((l) => l.startsWith('| workload'))) assert.doesNotMatch(r, /\d\.00 \|/, r);
	for (const b of ['base', 'head']) assert.match(enc.text, new RegExp(`^- ${b}: json_encoder\\.c unavailable \\(n/a\\): .*stripped library`, 'm'));
	const fn = await d.get(`/api/comparisons/${first.comparison_id}/functions?limit=5000`);
	assert.equal(fn.status, 200, fn.text);
	assert.equal(fn.json.base.json_encoder_c, null);
	assert.equal(fn.json.base.total, Math.round(first.base.instructions * first.iterations), 'the functions add up to the count');
	assert.ok(fn.json.functions.some((f) => /^0x[0-9a-f]{16}$/.test(f.name) && f.file === null), 'static functions by offset');
	assert.ok(fn.json.functions.some((f) => f.name === 'zif_json_encode' || /^_?e?malloc|^zend_/.test(f.name)), 'exported symbols by name');
	assert.equal((await d.get(`/api/comparisons/${first.comparison_id}/functions?vs=cand2`)).status, 400);

	const h = await d.get(`/api/workloads/history?source=${encodeURIComponent(first.source)}`);
	assert.equal(h.status, 200, h.text);
	assert.ok(h.json.points.length >= 1);
	assert.equal(h.json.points[0].run_id, run.id);
	assert.equal(h.json.points[0].head.instructions, first.head.instructions);
	assert.equal((await d.get('/api/workloads/history')).status, 400);
});
