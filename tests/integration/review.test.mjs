// `phpcmp review` (issue 25, docs/review.md): from patches to the
// pull-request comment in one command, on real builds made by
// scripts/build-php.sh (cached; the series' prefixes are built over the
// from-source 8.2.32 tree the first time), a daemon of the review's own, the
// real runs.  The fixture series: commit 1 keys-fastpath.patch (a correct
// speed-up of keys), commit 2 escape-del.patch (a planted bug: DEL escaped),
// commit 3 escape-unroll.patch (a correct speed-up of long plain strings);
// keys-only is keys-fastpath.patch alone, a clean candidate.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BIN, Daemon, LOGS, ROOT, STATE, runCli, tmpDir } from './helper.mjs';

const patch = (name) => path.join(ROOT, 'tests/fixtures/patches', `${name}.patch`);
const SERIES = `pr=${patch('keys-fastpath')},${patch('escape-del')},${patch('escape-unroll')}`;
const CLEAN = `keys-only=${patch('keys-fastpath')}`;
const show = (r) => `exit ${r.code} signal ${r.signal}\nstdout: ${r.stdout.slice(-3000)}\nstderr: ${r.stderr.slice(-6000)}`;
const MINUTES = 60_000;

function review(args, timeoutMs = 20 * MINUTES) {
	return runCli(['review', '--state', STATE, ...args], { timeoutMs });
}

test('a 3-commit series and a clean candidate: the root is commit 2\'s, per-commit instruction columns, exit 1', async () => {
	const dir = tmpDir('phpcmp-review-');
	const out = path.join(dir, 'review.json');
	const r = await review(['--base', '8.2.32', '--candidate', SERIES, '--candidate', CLEAN,
		'--count', '20000', '--json', '--out', out, '--work', path.join(dir, 'work'), '--no-asan']);
	fs.writeFileSync(path.join(LOGS, 'review-series.log'), show(r));
	assert.equal(r.code, 1, show(r));
	const rep = JSON.parse(fs.readFileSync(out, 'utf8'));
	fs.copyFileSync(out, path.join(LOGS, 'review-series.json'));
	assert.equal(rep.verdict, 'differ');
	// progress on the terminal: each build, the daemon, each run
	for (const s of ['building pr@2 (2 patches)', 'building pr@3 (3 patches)', 'daemon ready at http://127.0.0.1:',
		'20000 generated cases (seed 1): done', 'ext/json/tests: done', 'the measure workloads: done', 'verdict: differences (exit 1)']) {
		assert.ok(r.stderr.includes(s), `stderr says "${s}"\n${show(r)}`);
	}

	// the builds: base, pr@1..3, keys-only, in that order, each commit numbered
	assert.deepEqual(rep.builds.map((b) => b.name), ['base', 'pr@1', 'pr@2', 'pr@3', 'keys-only']);
	const by = Object.fromEntries(rep.builds.map((b) => [b.name, b]));
	assert.deepEqual([by['pr@1'].commit, by['pr@2'].commit, by['pr@3'].commit], [1, 2, 3]);
	for (const name of ['pr@1', 'keys-only']) {
		assert.equal(by[name].differs, false, name);
		assert.equal(by[name].generated_mismatches, 0, name);
		assert.equal(by[name].roots, 0, name);
	}
	for (const name of ['pr@2', 'pr@3']) {
		assert.equal(by[name].differs, true, name);
		assert.ok(by[name].generated_mismatches > 0, name);
		// (2: the stored case 006-del.phpt is a root of its own unless a generated member
		// happens to share its bucket: a stored case has no plan to reduce.)
		assert.ok(by[name].roots >= 1 && by[name].roots <= 2, `${name}: ${by[name].roots} root causes`);
	}
	assert.equal(by['pr@2'].generated_mismatches, by['pr@3'].generated_mismatches, 'commit 3 adds no mismatch');

	// one cause, found on pr@2 and pr@3, attributed to commit 2 (and at most the
	// stored case's own, the same way)
	assert.ok(rep.causes.length >= 1 && rep.causes.length <= 2, JSON.stringify(rep.causes, null, 1).slice(0, 3000));
	for (const other of rep.causes.slice(1)) {
		assert.equal(other.minimal.found_as.title, 'DEL (0x7f) is not a control byte for JSON and passes through raw');
		assert.deepEqual(other.builds.sort(), ['pr@2', 'pr@3']);
		assert.equal(other.first_commits.pr.commit, 2);
	}
	const [cause] = rep.causes;
	assert.equal(cause.minimal.code, '"\\x7F"');
	assert.deepEqual(cause.minimal.flags, []);
	assert.deepEqual(cause.builds.sort(), ['pr@2', 'pr@3']);
	assert.deepEqual(cause.differs_on, ['pr@2', 'pr@3']);
	assert.equal(cause.first_commits.pr.commit, 2);
	assert.equal(path.basename(cause.first_commits.pr.patch), 'escape-del.patch');
	assert.equal(cause.results.base.output, '"\x7F"');
	assert.equal(cause.results['pr@1'].output, '"\x7F"');
	assert.equal(cause.results['pr@2'].output, '"\\u007f"');
	assert.equal(cause.results['keys-only'].output, '"\x7F"');

	// ext/json/tests on every build: the base's 74 passed, 2 skipped each
	for (const role of ['base', 'head', 'cand2', 'cand3', 'cand4']) {
		assert.equal(rep.phpt.counts[role].PASS, 74, role);
		assert.equal(rep.phpt.counts[role].SKIP, 2, role);
	}
	assert.deepEqual(rep.phpt.regressions, []);

	// instructions per commit: commit 1's key speed-up stays in 2 and 3;
	// commit 3 alone makes the long plain strings cheaper
	const w = (title) => rep.measurements.workloads.find((x) => x.title.includes(title));
	const delta = (wl, name) => wl.candidates[name].delta_pct;
	const ascii = w('200 ASCII chars'), rows = w('12 string keys');
	assert.ok(ascii && rows, 'the workloads are there');
	assert.equal(delta(ascii, 'pr@1'), 0);
	assert.equal(delta(ascii, 'pr@2'), 0);
	assert.ok(delta(ascii, 'pr@3') < -5, `commit 3: ${delta(ascii, 'pr@3')} %`);
	assert.ok(delta(rows, 'pr@1') < -3, `commit 1 on keys: ${delta(rows, 'pr@1')} %`);
	assert.equal(delta(rows, 'pr@2'), delta(rows, 'pr@1'), 'commit 2 changes no instruction count of a key workload');
	assert.equal(delta(rows, 'keys-only'), delta(rows, 'pr@1'), 'the same patch, the same count');

	// the Markdown comment: the verdict table, the root with its commit, the tables
	const md = rep.markdown;
	assert.match(md, /^### phpcmp review: \*\*differences\*\* from the base/);
	assert.match(md, /\| `pr@2` \| \*\*[\d,]+ differ\*\* of 20,000 \|/);
	assert.match(md, /\| `keys-only` \| identical on 20,000 \| identical on \d+ \| the base's results \(76 tests\) \| 0 \|/);
	assert.match(md, /#### Root cause 1, `pr`: first in commit 2 \(`escape-del\.patch`\)/);
	assert.match(md, /json_encode\("\\x7F"\);/);
	assert.match(md, /ext\/json\/tests: 76 — base 74 passed, 2 skipped; pr@1 74 passed/);
	assert.match(md, /\| json_encode\(\) of \| base \(instructions\) \| base json_encoder\.c \| pr@1 \| pr@1 json_encoder\.c \| pr@2 /);
	// the work folder asked for is kept: its database holds the runs
	assert.ok(fs.existsSync(path.join(dir, 'work/phpcmp.db')));
});

test('a clean candidate alone: exit 0, "every candidate gives the base\'s outputs", the temporary folder removed', async () => {
	const dir = tmpDir('phpcmp-review-');
	const out = path.join(dir, 'review.md');
	const before = fs.readdirSync(dir);
	const r = await review(['--base', '8.2.32', '--candidate', CLEAN, '--count', '5000', '--out', out, '--no-asan'],
		10 * MINUTES);
	fs.writeFileSync(path.join(LOGS, 'review-clean.log'), show(r));
	assert.equal(r.code, 0, show(r));
	const md = fs.readFileSync(out, 'utf8');
	assert.match(md, /^### phpcmp review: every candidate gives the base's outputs/);
	assert.match(md, /\| `keys-only` \| identical on 5,000 \|/);
	assert.doesNotMatch(md, /Root cause/);
	assert.match(md, /No asan sample: --no-asan\./);
	const work = /its log: (\S+)\/daemon\.log/.exec(r.stderr)?.[1];
	assert.ok(work, r.stderr);
	assert.equal(fs.existsSync(work), false, `${work} removed`);
	assert.deepEqual(fs.readdirSync(dir).sort(), [...before, 'review.md'].sort());
});

test('memory errors: a silent over-read is found by the asan sample, the output being right; exit 1', async () => {
	// overread.patch reads a byte past the string in the escaper and changes
	// no output: the release builds agree, the asan flavour (src-8.2.32-asan
	// and -asan-overread, cached by make php-builds) says memory-error.
	const dir = tmpDir('phpcmp-review-');
	const out = path.join(dir, 'review.json');
	const r = await review(['--base', '8.2.32', '--candidate', `over=${patch('overread')}`, '--count', '2000',
		'--asan-count', '60', '--json', '--out', out]);
	fs.writeFileSync(path.join(LOGS, 'review-asan.log'), show(r));
	assert.equal(r.code, 1, show(r));
	const rep = JSON.parse(fs.readFileSync(out, 'utf8'));
	const over = rep.builds.find((b) => b.name === 'over');
	assert.equal(over.generated_mismatches, 0, 'the release builds agree');
	assert.equal(over.roots, 0);
	assert.ok(over.asan_memory_errors > 0, `memory errors: ${over.asan_memory_errors}`);
	assert.equal(over.differs, true);
	assert.deepEqual(rep.asan.builds, ['base', 'over']);
	assert.equal(rep.asan.generated.builds.base.statuses['memory-error'] ?? 0, 0, 'none on the base');
	assert.ok(rep.asan.samples.length > 0 && rep.asan.samples.length <= 3);
	const sample = rep.asan.samples[0].results;
	assert.equal(sample.over.status, 'memory-error');
	assert.equal(sample.over.memory_error.kind, 'heap-buffer-overflow');
	assert.equal(sample.over.output, sample.base.output, 'the same output');
	assert.match(rep.markdown, /^### phpcmp review: \*\*differences\*\*/);
	assert.match(rep.markdown, /`over` \*\*[\d,]+ with a memory error\*\*/);
	// The report counts what the sample ran (it said "0 generated calls" before: issue 48).
	assert.match(rep.markdown, /The asan flavour of `base` and `over`, 60 generated calls \(seed 1,/);
	assert.match(rep.markdown, /\*\*memory-error\*\*: heap-buffer-overflow, READ of size 1 in php_json_escape_string json_encoder\.c:\d+/);
});

test('bad arguments: exit 2 and a precise message, nothing built', async () => {
	const cases = [
		[['--candidate', CLEAN], /--base: required/],
		[['--base', '8.2.32'], /--candidate: at least one/],
		[['--base', '8.2.32', '--candidate', 'nopatch'], /--candidate nopatch: expected NAME=PATCH/],
		[['--base', '8.2.32', '--candidate', 'x=/nonexistent.patch'], /--candidate x: \/nonexistent\.patch: No such file/],
		[['--base', '8.2.32', '--candidate', 'base=' + patch('escape-del')], /the name is the base's/],
		[['--base', '8.2.32', '--candidate', CLEAN, '--count', '0'], /--count: expected an integer 1 \.\. 10000000/],
		[['--base', '8.2.32', '--candidate', CLEAN, '--asan-count', 'x'], /--asan-count: expected an integer/],
		[['--base', '8.2.32', '--candidate', CLEAN, '--url', 'ftp://127.0.0.1:8080'], /--url ftp:\/\/127\.0\.0\.1:8080: expected http:\/\/HOST:PORT/],
		[['--base', '8.2.32', '--candidate', CLEAN, '--url', 'http://127.0.0.1:1'], /GET \/api\/builds failed/],
		[['--base', '8.2.32', '--candidate', CLEAN, '--label', 'a@b'], /--label a@b: 1 to 40 of/],
		[['--base', '8.2.99', '--candidate', CLEAN], /--base 8\.2\.99: neither 8\.2\.32/],
		[['--base', '8.2.32', '--candidate', `a=${patch('escape-del')},${patch('escape-del')},${patch('escape-del')},${patch('escape-del')},${patch('escape-del')},${patch('escape-del')},${patch('escape-del')},${patch('escape-del')}`], /9 builds: at most 8/],
	];
	for (const [args, re] of cases) {
		const r = await review(args, MINUTES);
		assert.equal(r.code, 2, `${args.join(' ')}\n${show(r)}`);
		assert.match(r.stderr, re, args.join(' '));
		assert.doesNotMatch(r.stderr, /building/, 'nothing built');
	}
});

test('--url: the review on a running daemon: its builds registered there, its runs and roots left for triage, the builds retired', async () => {
	const buildsDir = tmpDir('phpcmp-review-builds-');
	const d = await Daemon.start({ name: 'review-url', reduce: true, extraArgs: ['--builds-dir', buildsDir] });
	try {
		const dir = tmpDir('phpcmp-review-');
		const out = path.join(dir, 'review.json');
		const bug = `bug=${patch('escape-del')}`;
		const r = await review(['--url', d.url, '--base', '8.2.32', '--candidate', bug, '--candidate', CLEAN,
			'--count', '3000', '--json', '--out', out, '--no-asan'], 10 * MINUTES);
		fs.writeFileSync(path.join(LOGS, 'review-url.log'), show(r));
		assert.equal(r.code, 1, show(r));
		assert.ok(r.stderr.includes(`reviewing on ${d.url}: builds in ${buildsDir}, named review-*`), show(r));
		assert.doesNotMatch(r.stderr, /starting a daemon/);
		const rep = JSON.parse(fs.readFileSync(out, 'utf8'));
		const by = Object.fromEntries(rep.builds.map((b) => [b.name, b]));
		assert.deepEqual(Object.keys(by), ['base', 'bug', 'keys-only']);
		assert.ok(by.bug.generated_mismatches > 0 && by.bug.roots >= 1);
		assert.equal(by['keys-only'].differs, false);
		assert.equal(rep.causes[0].minimal.code, '"\\x7F"');
		assert.deepEqual(rep.causes[0].builds, ['bug']);
		assert.equal(rep.causes[0].results.bug.output, '"\\u007f"');
		// the report speaks of the review's names, not the daemon's
		assert.doesNotMatch(rep.markdown, /review-bug/);
		assert.match(rep.markdown, /ext\/json\/tests: 76 — base 74 passed, 2 skipped; bug 74 passed/);

		// On the daemon: the builds came and went; its own stayed; the runs are there.
		const builds = (await d.get('/api/builds')).json.builds.map((b) => [b.name, b.state]);
		assert.deepEqual(builds, [['base', 'active'], ['head', 'active'],
			['review-base', 'retired'], ['review-bug', 'retired'], ['review-keys-only', 'retired']]);
		for (const name of ['review-base', 'review-bug', 'review-keys-only'])
			assert.ok(fs.lstatSync(path.join(buildsDir, name)).isSymbolicLink(), `${name} in the builds folder`);
		const runs = (await d.get('/api/runs')).json.runs;
		assert.deepEqual(runs.map((x) => x.suite).sort(), ['generated', 'measure', 'phpt', 'stored']);
		for (const run of runs) {
			assert.equal(run.status, 'done');
			assert.deepEqual(run.build_list.map((b) => b.name), ['review-base', 'review-bug', 'review-keys-only']);
		}
		const gen = runs.find((x) => x.suite === 'generated');
		const roots = (await d.get(`/api/roots?run=${gen.id}`)).json.roots;
		assert.ok(roots.some((x) => x.minimal?.code === '"\\x7F"'), JSON.stringify(roots).slice(0, 2000));
		// The review itself is kept there: its verdict, builds by both names, runs and report.
		const kept1 = (await d.get('/api/reviews')).json.reviews;
		assert.equal(kept1.length, 1);
		assert.deepEqual([kept1[0].label, kept1[0].verdict], ['review', 'differ']);
		assert.deepEqual(kept1[0].builds.map((b) => [b.name, b.daemon_name, b.patches]),
			[['base', 'review-base', []], ['bug', 'review-bug', ['escape-del.patch']], ['keys-only', 'review-keys-only', ['keys-fastpath.patch']]]);
		assert.deepEqual(Object.values(kept1[0].runs).sort((a, b) => a - b), runs.map((x) => x.id).sort((a, b) => a - b));
		assert.ok(r.stderr.includes(`the review is kept on the daemon: ${d.url}/#/reviews/${kept1[0].id}`), show(r));
		const one = (await d.get(`/api/reviews/${kept1[0].id}`)).json;
		assert.equal(one.report_md, rep.markdown);

		// --keep-builds leaves them registered; another review under the same label then says so.
		const kept = await review(['--url', d.url, '--base', '8.2.32', '--candidate', CLEAN, '--count', '500',
			'--out', path.join(dir, 'kept.md'), '--no-asan', '--keep-builds'], 10 * MINUTES);
		assert.equal(kept.code, 0, show(kept));
		assert.deepEqual((await d.get('/api/reviews')).json.reviews.map((x) => x.verdict), ['same', 'differ']);
		assert.deepEqual((await d.get('/api/builds')).json.builds.filter((b) => b.state === 'active').map((b) => b.name),
			['base', 'head', 'review-base', 'review-keys-only']);
		const clash = await review(['--url', d.url, '--base', '8.2.32', '--candidate', CLEAN, '--no-asan'], MINUTES);
		assert.equal(clash.code, 2, show(clash));
		assert.match(clash.stderr, /a build named review-base is active there already \(another review with --label review\?\)/);
		assert.doesNotMatch(clash.stderr, /building/);
		assert.equal((await d.get('/api/reviews')).json.reviews.length, 2, 'a review that failed is not kept');
	} finally {
		await d.stopClean();
	}
});

test('the review\'s own daemon answers only the token the review made: no one else reads it, registers a build or cancels a run', async () => {
	// A review long enough to be caught while its daemon serves.
	const dir = tmpDir('phpcmp-review-token-');
	const p = spawn(BIN, ['review', '--state', STATE, '--base', '8.2.32', '--candidate', CLEAN, '--count', '5000000',
		'--out', path.join(dir, 'review.md'), '--work', path.join(dir, 'work'), '--no-asan'],
	{ cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
	let stderr = '';
	const url = await new Promise((resolve, reject) => {
		const t = setTimeout(() => reject(new Error(`no "daemon ready" within 10 minutes:\n${stderr}`)), 10 * MINUTES);
		p.stderr.on('data', (c) => {
			stderr += c;
			const m = stderr.match(/daemon ready at (http:\/\/127\.0\.0\.1:\d+)/);
			if (m) { clearTimeout(t); resolve(m[1]); }
		});
		p.on('exit', (code) => { clearTimeout(t); reject(new Error(`review exited ${code} first:\n${stderr}`)); });
	});
	try {
		const ask = (method, p2, body) => fetch(url + p2, { method,
			headers: method === 'POST' ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
		for (const [method, route, body] of [['GET', '/api/runs'], ['GET', '/api/cases?limit=1'], ['GET', '/api/builds'],
			['POST', '/api/builds', { name: 'intruder', prefix: 'base' }], ['POST', '/api/runs/1/cancel'],
			['POST', '/api/cases', { code: '1' }]]) {
			const r = await ask(method, route, body);
			assert.equal(r.status, 401, `${method} ${route}: ${r.status} ${await r.text()}`);
		}
		// A token of someone else's making is no better.
		const r = await fetch(`${url}/api/runs`, { headers: { Authorization: 'Bearer phpcmp_' + 'A'.repeat(43) } });
		assert.equal(r.status, 401);
		// Its database is the review's alone.
		assert.equal(fs.statSync(path.join(dir, 'work', 'phpcmp.db')).mode & 0o077, 0);
	} finally {
		process.kill(-p.pid, 'SIGKILL');
	}
});
