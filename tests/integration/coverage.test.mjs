// Line and branch coverage of ext/json for a run's corpus (issue 15,
// docs/coverage.md): the real daemon with base = libphp 8.2.32 built from
// source (release) and head = the same source built --coverage, with the
// whole sandbox (issue 19: landlock stays on, its rules let a coverage
// build's worker write files in its counters' folder).  A generated run of
// seed 1 × 2,000 cases with "coverage": true gives exact figures for
// json_encoder.c and json.c; a second identical run gives the same ones
// (the counters are the run's own: single cases in between and the first
// run's counters do not carry over), and the shared build tree is never
// written.  The other build's results are unchanged (0 mismatches).  The stored and
// phpt suites have their own figures; a cancelled and resumed run ends with
// the uninterrupted one's.  A case on the coverage build still writes
// nowhere but its private folder and its counters' folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, STATE, srcBuild } from './helper.mjs';

// What seed 1 × 2,000 (generator version 3) reaches, measured with gcovr 5.2
// (version 1: json_encoder.c lines 327, branches 306; json.c 53 and 33;
// version 2: lines 346, branches 336; json.c 55 and 34).
const EXPECT = {
	'ext/json/json_encoder.c': { lines: { hit: 343, total: 349 }, branches: { hit: 336, total: 425 } },
	'ext/json/json.c': { lines: { hit: 58, total: 134 }, branches: { hit: 39, total: 113 } },
};

let d;
const daemons = [];
const tree = () => path.dirname(fs.realpathSync(srcBuild('src-8.2.32-coverage', 'flavour-builds')));
// Every .gcda of the shared tree with its mtime: what a run must not touch.
function treeCounters() {
	const out = {};
	const walk = (dir) => {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (e.name.endsWith('.gcda')) out[p] = fs.statSync(p).mtimeMs;
		}
	};
	walk(path.join(tree(), 'obj/ext/json'));
	return out;
}

before(async () => {
	d = await Daemon.start({
		name: 'coverage',
		builds: { base: srcBuild('src-8.2.32', 'src-builds'), head: srcBuild('src-8.2.32-coverage', 'flavour-builds') },
	});
	daemons.push(d);
});

after(async () => {
	for (const x of daemons) await x.stopClean();
});

function figures(cov) {
	assert.equal(cov.builds.length, 1, JSON.stringify(cov).slice(0, 500));
	const b = cov.builds[0];
	assert.equal(b.role, 'head');
	assert.equal(b.error, null, b.error);
	return Object.fromEntries(b.files.map((f) => [f.file, { lines: f.lines, branches: f.branches }]));
}

async function coverageRun(body) {
	const run = await d.runToEnd(body);
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1000));
	assert.equal(run.error, null);
	const cov = await d.get(`/api/runs/${run.id}/coverage`);
	assert.equal(cov.status, 200, cov.text);
	assert.equal(cov.json.requested, true);
	assert.equal(cov.json.status, 'done');
	return { run, cov: cov.json };
}

test('seed 1 × 2,000 with coverage: exact figures, twice the same, 0 mismatches, the build tree untouched', async () => {
	// The default sandbox: every layer in force on the coverage build's
	// worker, landlock included (before issue 19: a coverage run was 409).
	const head = d.health.builds.find((b) => b.name === 'head');
	for (const layer of ['netns', 'caps', 'seccomp', 'landlock', 'rlimits', 'php'])
		assert.match(head.sandbox, new RegExp(`\\b${layer}\\b(?!\\(off)`), head.sandbox);
	const before = treeCounters();
	const first = await coverageRun({ suite: 'generated', seed: 1, count: 2000, coverage: true });
	assert.deepEqual(first.run.counts, { same: 2000, differ: 0 }, 'coverage changes no result');
	assert.deepEqual(figures(first.cov), EXPECT);

	// Per function: the figures add up to the file's, and what was not
	// reached is listed.
	const enc = first.cov.builds[0].files.find((f) => f.file === 'ext/json/json_encoder.c');
	const names = enc.functions.map((f) => f.name);
	for (const n of ['php_json_encode_zval', 'php_json_escape_string', 'php_json_encode_array', 'php_json_encode_serializable_object'])
		assert.ok(names.includes(n), `${n} in ${names}`);
	const sum = (k, part) => enc.functions.reduce((a, f) => a + f[k][part], 0);
	assert.equal(sum('branches', 'total'), 425);
	assert.equal(sum('branches', 'hit'), 336);
	assert.equal(sum('lines', 'hit'), 343);
	assert.equal(enc.unreached_branches.length, 425 - 336);
	assert.equal(enc.unreached_lines.length, 349 - 343);
	assert.deepEqual(enc.functions.flatMap((f) => f.unreached_lines), enc.unreached_lines);
	const esc = enc.functions.find((f) => f.name === 'php_json_escape_string');
	assert.ok(esc.calls > 2000, `escape_string calls ${esc.calls}`);

	// Single cases between runs go to other workers: they change nothing.
	for (const code of ['[1 => NAN]', '"\\xff"', '[[[[1]]]]'])
		await d.runCase({ code, flags: 'JSON_PARTIAL_OUTPUT_ON_ERROR|JSON_PRETTY_PRINT', depth: 2 });
	const second = await coverageRun({ suite: 'generated', seed: 1, count: 2000, coverage: true });
	assert.deepEqual(figures(second.cov), EXPECT, 'a second identical run: the same figures (no counters carried over)');
	assert.deepEqual(second.cov.builds[0].files, first.cov.builds[0].files);
	assert.deepEqual(treeCounters(), before, 'the shared build tree is never written');
});

// The sample that stands for the default corpus (seeds 1, 2, 3 × 200,000,
// measured: the same 340/425): seed 1 × 20,000 reaches json_encoder.c's
// branches but the 85 listed in docs/coverage.md, each with why no PHP
// input reaches it (the `!buf->s` arm of an append after the buffer exists,
// NULL and immutable tables the encoder never gets...).
const UNREACHABLE = ['38.1', '51.0', '62.0', '79.3', '90.5', '134.0', '138.1', '146.0', '149.3', '159.0', '170.1', '172.0', '175.0', '180.1', '185.1', '198.0', '207.0', '208.3', '208.4', '208.6', '232.0', '239.1', '247.0', '258.0', '260.0', '264.0', '272.0', '274.0', '277.0', '283.1', '284.3', '284.4', '284.6', '295.3', '295.4', '308.0', '310.0', '313.2', '313.4', '340.1', '351.0', '365.0', '370.0', '386.0', '388.0', '394.0', '405.0', '414.0', '423.0', '439.0', '441.0', '446.0', '451.0', '453.0', '458.0', '462.0', '466.0', '470.0', '474.0', '479.0', '481.0', '487.0', '489.0', '495.0', '497.0', '503.0', '505.0', '510.0', '511.0', '525.0', '538.1', '541.0', '546.1', '550.1', '551.0', '559.1', '559.3', '571.1', '571.3', '578.1', '578.3', '583.0', '583.2', '602.0', '639.1'];
test('seed 1 × 20,000 (the default corpus) reaches 340/425 of json_encoder.c; the rest is the unreachable list', async () => {
	const { run, cov } = await coverageRun({ suite: 'generated', seed: 1, count: 20000, coverage: true });
	assert.deepEqual(run.counts, { same: 20000, differ: 0 });
	const enc = cov.builds[0].files.find((f) => f.file === 'ext/json/json_encoder.c');
	assert.deepEqual(enc.branches, { hit: 340, total: 425 });
	assert.deepEqual(enc.lines, { hit: 347, total: 349 });
	assert.deepEqual(enc.unreached_branches.map((b) => `${b.line}.${b.branch}`), UNREACHABLE);
});

test('the downloads: gcovr HTML, Cobertura XML, JSON, the annotated source; report.md has the figures', async () => {
	const { run, cov } = await coverageRun({ suite: 'generated', seed: 1, count: 2000, coverage: true });
	const dl = cov.builds[0].downloads;
	assert.equal(dl.html, `/api/runs/${run.id}/coverage/head/index.html`);
	const html = await d.get(dl.html);
	assert.equal(html.status, 200);
	assert.match(html.headers['content-type'], /^text\/html/);
	assert.match(html.text, /json_encoder\.c/);
	assert.match(html.text, /gcovr/);
	const xml = await d.get(dl.cobertura);
	assert.equal(xml.status, 200);
	assert.match(xml.headers['content-type'], /^application\/xml/);
	assert.match(xml.headers['content-disposition'], /attachment; filename="phpcmp-run-\d+-head-cobertura\.xml"/);
	assert.match(xml.text, /<class name="json_encoder_c" filename="ext\/json\/json_encoder\.c" line-rate="0\.9828\d*" branch-rate="0\.7905\d*"/);
	const json = await d.get(dl.json);
	assert.equal(json.status, 200);
	assert.deepEqual(json.json.files.map((f) => f.file).sort(), ['ext/json/json.c', 'ext/json/json_encoder.c']);
	const src = await d.get(dl.source['ext/json/json_encoder.c']);
	assert.equal(src.status, 200);
	assert.equal(src.json.file, 'ext/json/json_encoder.c');
	const source = fs.readFileSync(path.join(tree(), 'src/ext/json/json_encoder.c'), 'utf8').split('\n');
	assert.equal(src.json.lines.length, source.length - (source.at(-1) === '' ? 1 : 0));
	assert.equal(src.json.lines[37].text, source[37]);
	const code = src.json.lines.filter((l) => l.count !== null);
	assert.equal(code.length, 349);
	assert.equal(code.filter((l) => l.count > 0).length, 343);
	assert.equal(src.json.lines.flatMap((l) => l.branches).filter((n) => n > 0).length, 336);

	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.equal(md.status, 200);
	assert.match(md.text, /Coverage of ext\/json on head \(gcov\): `ext\/json\/json_encoder\.c` lines 343\/349 \(98\.3 %\), branches 336\/425 \(79\.1 %\); `ext\/json\/json\.c` lines 58\/134 \(43\.3 %\), branches 39\/113 \(34\.5 %\)\./);
});

test('the stored and phpt suites with coverage: their own figures; a run without coverage has none', async () => {
	const { run, cov } = await coverageRun({ suite: 'stored', coverage: true });
	assert.deepEqual(run.counts, { same: run.total, differ: 0 });
	const f = figures(cov)['ext/json/json_encoder.c'];
	assert.equal(f.branches.total, 425);
	assert.ok(f.branches.hit > 200 && f.branches.hit < 425, JSON.stringify(f));
	// php-src's own ext/json tests (the phpt suite, 76 tests).
	const phpt = await coverageRun({ suite: 'phpt', coverage: true });
	assert.deepEqual(phpt.run.counts, { same: 76, differ: 0 });
	assert.deepEqual(figures(phpt.cov), {
		'ext/json/json_encoder.c': { lines: { hit: 323, total: 349 }, branches: { hit: 296, total: 425 } },
		'ext/json/json.c': { lines: { hit: 108, total: 134 }, branches: { hit: 83, total: 113 } },
	});
	const plain = await d.runToEnd({ suite: 'generated', seed: 1, count: 100 });
	const none = await d.get(`/api/runs/${plain.id}/coverage`);
	assert.equal(none.status, 200);
	assert.deepEqual(none.json, { run_id: plain.id, requested: false, status: 'not_requested', builds: [] });
});

test('malformed and impossible requests: precise errors', async () => {
	const bad = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 10, coverage: 'yes' } });
	assert.equal(bad.status, 400);
	assert.deepEqual(bad.json.error.message, 'coverage: expected true or false');
	const measure = await d.request('POST', '/api/runs', { body: { suite: 'measure', coverage: true } });
	assert.equal(measure.status, 400);
	assert.match(measure.json.error.message, /unknown field "coverage" for suite measure/);
	assert.equal((await d.get('/api/runs/999999/coverage')).status, 404);
	const role = await d.get('/api/runs/1/coverage/nobody/index.html');
	assert.equal(role.status, 400);
	assert.match(role.json.error.message, /unknown role "nobody"/);
	for (const name of ['..', '.hidden', 'gcovr.log', 'index.html%00'])
		assert.equal((await d.get(`/api/runs/1/coverage/head/${name}`)).status, 400, name);
	// A folder in the name is no route at all.
	assert.equal((await d.get('/api/runs/1/coverage/head/a%2Fb')).status, 404);
	assert.equal((await d.get('/api/runs/1/coverage/head/nothing.html')).status, 404);

	// No coverage build: refused.
	const plain = await Daemon.start({
		name: 'coverage-none',
		builds: { base: srcBuild('src-8.2.32', 'src-builds'), head: srcBuild('src-8.2.32', 'src-builds') },
	});
	daemons.push(plain);
	const r = await plain.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 10, coverage: true } });
	assert.equal(r.status, 409);
	assert.match(r.json.error.message, /no build of the run is a coverage flavour/);
	// With landlock on (this file's daemons) a coverage run is no longer
	// refused: the 409 it got before issue 19 is gone.
	const ok = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 10, coverage: true } });
	assert.equal(ok.status, 202, ok.text);
	assert.equal((await d.waitRun(ok.json.id)).status, 'done');
});

// Landlock kept (issue 19, item 1): the counters' folder is the one place
// besides its private folder where the coverage build's worker may write
// (files only: no folder, no link); the build tree, the state dir, the
// coverage folder above its own and /tmp stay out of reach.  The php
// layer's open_basedir alone already refuses every path outside the
// private folder, so a second daemon runs without it: what is refused there
// is refused by landlock.
test('a case on the coverage build writes nowhere but its private folder and its counters\' folder', async () => {
	const before = treeCounters();
	const tag = `pwned-${process.pid}`;
	const gcno = path.join(tree(), 'obj/ext/json/.libs/json_encoder.gcno');
	const targets = {
		tree: path.join(tree(), 'obj', tag),
		treeGcda: path.join(tree(), 'obj/ext/json/.libs/json_encoder.gcda'),
		state: path.join(STATE, tag),
		tmp: path.join('/tmp', tag),
	};
	const code = `(function () {
		$p = getenv('GCOV_PREFIX');
		$r = ['prefix' => $p];
		foreach (json_decode('${JSON.stringify(targets)}', true) as $k => $f) $r[$k] = @file_put_contents($f, 'x', FILE_APPEND) !== false;
		$r['coverage_dir'] = @file_put_contents(dirname($p, 2) . '/${tag}', 'x') !== false;
		$r['private'] = @file_put_contents(sys_get_temp_dir() . '/ok', 'x') !== false;
		$r['counters'] = @file_put_contents($p . '/obj/${tag}.gcda', 'x') !== false;
		$r['counters_dir'] = @mkdir($p . '/obj/${tag}');
		$r['counters_link'] = function_exists('link') && @link('${gcno}', $p . '/obj/${tag}.link');
		$r['counters_symlink'] = function_exists('symlink') && @symlink('${gcno}', $p . '/obj/${tag}.sym');
		return $r;
	})()`;
	const refused = { tree: false, treeGcda: false, state: false, tmp: false, coverage_dir: false, counters_dir: false, counters_link: false, counters_symlink: false };
	const ll = await Daemon.start({
		name: 'coverage-landlock-alone',
		builds: { base: srcBuild('src-8.2.32', 'src-builds'), head: srcBuild('src-8.2.32-coverage', 'flavour-builds') },
		extraArgs: ['--sandbox', 'netns,caps,seccomp,landlock,rlimits'],
	});
	daemons.push(ll);
	const prefixes = [];
	// (without the php layer sys_get_temp_dir() is /tmp, not the private folder)
	for (const [daemon, counters, priv] of [[d, false, true], [ll, true, false]]) {
		const h = (await daemon.runCase({ code })).results.head;
		assert.equal(h.status, 'ok', JSON.stringify(h).slice(0, 800));
		const got = JSON.parse(h.output);
		assert.match(got.prefix, /\/coverage\/db-[0-9a-f]{8}\/idle\/head$/, got.prefix);
		prefixes.push(got.prefix);
		// the default sandbox: open_basedir refuses the counters' folder too;
		// landlock alone lets a file be written there, and nothing else
		assert.deepEqual(got, { prefix: got.prefix, ...refused, private: priv, counters }, daemon.name);
	}
	for (const f of [targets.tree, targets.state, targets.tmp, ...prefixes.flatMap((p) => [path.join(path.dirname(path.dirname(p)), tag), path.join(p, 'obj', tag), path.join(p, 'obj', `${tag}.link`), path.join(p, 'obj', `${tag}.sym`)])])
		assert.equal(fs.existsSync(f), false, f);
	assert.deepEqual(treeCounters(), before, 'the shared build tree is never written');
	for (const p of prefixes) fs.rmSync(path.join(p, 'obj', `${tag}.gcda`), { force: true });
});

test('a cancelled and resumed coverage run adds to its counters: the uninterrupted run\'s figures', async () => {
	const body = { suite: 'generated', seed: 1, count: 100000, coverage: true };
	const full = await coverageRun(body);
	const post = await d.request('POST', '/api/runs', { body });
	assert.equal(post.status, 202, post.text);
	await d.waitRun(post.json.id, { done: (r) => r.done >= 20000 || !['queued', 'running'].includes(r.status) });
	assert.equal((await d.request('POST', `/api/runs/${post.json.id}/cancel`)).status, 200);
	const cancelled = await d.waitRun(post.json.id);
	assert.equal(cancelled.status, 'cancelled');
	assert.ok(cancelled.done < 100000, `cancelled at ${cancelled.done}`);
	// A cancelled run has the figures of what it ran.
	const part = (await d.get(`/api/runs/${post.json.id}/coverage`)).json;
	const partEnc = part.builds[0].files.find((f) => f.file === 'ext/json/json_encoder.c');
	assert.equal(partEnc.branches.total, 425);
	assert.equal((await d.request('POST', `/api/runs/${post.json.id}/resume`)).status, 202);
	const resumed = await d.waitRun(post.json.id);
	assert.equal(resumed.status, 'done');
	const cov = (await d.get(`/api/runs/${post.json.id}/coverage`)).json;
	assert.deepEqual(figures(cov), figures(full.cov));
	// The calls add up: the batch in flight at the cancel runs again on
	// resume, so a few calls may count twice, none is lost.
	const calls = (c) => c.builds[0].files.find((f) => f.file === 'ext/json/json_encoder.c').functions.map((f) => f.calls);
	const [a, b] = [calls(cov), calls(full.cov)];
	for (let i = 0; i < a.length; i++) {
		assert.ok(a[i] >= b[i] && a[i] <= b[i] * 1.01 + 10, `function ${i}: ${a[i]} calls after resume, ${b[i]} uninterrupted`);
	}
});
