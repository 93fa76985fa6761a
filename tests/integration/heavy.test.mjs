// Runs that find bugs (issue 14): a mismatch-heavy and a crash-heavy
// generated run on from-source planted-bug builds (scripts/build-php.sh,
// tests/fixtures/patches/; made by `make src-builds`) finish with exact
// counts.  The counts are checked against the hand method over the same
// cases: build/tests/genphp writes the generated cases as a PHP script
// printing `index json_last_error md5(output)`, run with each build's own
// bin/php and diffed -- only the generator is shared with phpcmp, not the
// workers, their digests or the daemon's comparison.  A build that crashes
// kills its script; the script goes on from the case after the last line
// printed, and the case it died on is a crash.  A third run has both bugs
// as candidates of one base: each candidate's counts exact, each case listed
// once with the candidates that differ on it.  Another runs crash-control
// (~8 % of cases crash): every crash counted, listed and timed.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, Daemon, INSTRUMENTED, ROOT, tmpDir } from './helper.mjs';

// The daemon's memory is the plain build's figure: under ASan or valgrind
// the process holds the tool's shadow memory too (asserted in the plain pass).
const flatMemory = (kb) => INSTRUMENTED || kb < 64 * 1024;

function sql(db, query) {
	return execFileSync('sqlite3', ['-readonly', db, query], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim();
}

const BASE = 'src-8.2.32';
const GENPHP = path.join(process.env.PHPCMP_BIN ? path.dirname(process.env.PHPCMP_BIN) : path.join(ROOT, 'build'),
	'tests/genphp');
const CHUNK = 2000;
// A crashing build's script starts again after each crash and PHP parses
// the whole chunk each time: the crash tests use smaller chunks, every
// build of one test the same (a chunk's script is shared by its builds).
const CRASH_CHUNK = 250;

// builds/NAME, or NAME in a folder of PHPCMP_SRC_BUILDS (colon-separated;
// scripts/build-php.sh --builds DIR puts a build there).
function prefixOf(name) {
	const dirs = [BUILDS, ...(process.env.PHPCMP_SRC_BUILDS || '').split(':').filter(Boolean)];
	for (const dir of dirs) {
		const p = path.join(dir, name);
		if (fs.existsSync(path.join(p, 'lib/libphp.so')) && fs.existsSync(path.join(p, 'bin/php'))) return p;
	}
	throw new Error(`${name} is in none of ${dirs.join(', ')}: run \`make src-builds\` (scripts/src-builds.sh) first`);
}

const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

// The hand method on one build: index -> line, and the indexes it died on.
// (A smaller chunk: a crash-heavy build restarts its script often.)
function hand(php, seed, count, dir, chunk = CHUNK) {
	const lines = new Map();
	const crashed = [];
	for (let start = 0; start < count; start += chunk) {
		const n = Math.min(chunk, count - start);
		const script = path.join(dir, `s${seed}-${start}-${n}.php`);
		if (!fs.existsSync(script)) {
			const g = spawnSync(GENPHP, [String(seed), String(start), String(n)], { maxBuffer: 1 << 28 });
			assert.equal(g.status, 0, `genphp: ${g.stderr}`);
			fs.writeFileSync(script, g.stdout);
		}
		for (let from = start; from < start + n;) {
			const r = spawnSync(php, ['-n', script, String(from)], { maxBuffer: 1 << 28 });
			const out = r.stdout.toString('latin1').split('\n').filter(Boolean);
			for (const l of out) lines.set(Number(l.split(' ')[0]), l);
			if (r.status === 0) break;
			assert.ok(r.signal, `${php} ended with status ${r.status}, not a signal: ${r.stderr}`);
			const last = out.length ? Number(out[out.length - 1].split(' ')[0]) : from - 1;
			crashed.push(last + 1);
			from = last + 2;
		}
	}
	return { lines, crashed };
}

// The base's lines as the crashing build's processes ran them: after each
// crash the next case starts a fresh CLI process, and a case's line can
// depend on the cases before it in one process (json_last_error() is left
// as it was by a JSON_THROW_ON_ERROR call, over more than one case), so the
// base runs each such stretch -- from the case after a crash to the next
// crash or the chunk's end -- in a fresh process too: like for like.
function freshStretches(basePhp, crashes, seed, count, dir, lines, chunk) {
	const crashed = new Set(crashes);
	const out = new Map(lines);
	for (const k of crashes) {
		const i = k + 1;
		if (i >= count || crashed.has(i)) continue;
		const start = i - (i % chunk), chunkEnd = Math.min(start + chunk, count);
		const next = crashes.filter((c) => c > k).reduce((m, c) => Math.min(m, c), chunkEnd);
		const script = path.join(dir, `s${seed}-${start}-${chunkEnd - start}.php`);
		const r = spawnSync(basePhp, ['-n', script, String(i)], { maxBuffer: 1 << 28 });
		for (const l of r.stdout.toString('latin1').split('\n').filter(Boolean)) {
			const x = Number(l.split(' ')[0]);
			if (x >= next) break;
			out.set(x, l);
		}
	}
	return out;
}

async function run(d, body) {
	const p = await d.request('POST', '/api/runs', { body });
	assert.equal(p.status, 202, p.text);
	for (;;) {
		const r = (await d.get(`/api/runs/${p.json.id}`)).json;
		if (r.status !== 'queued' && r.status !== 'running') return r;
		await new Promise((res) => setTimeout(res, 50));
	}
}

async function daemonFor(patch, db) {
	const d = await Daemon.start({
		name: `heavy-${patch}`, db,
		builds: { base: prefixOf(BASE), head: prefixOf(`${BASE}-${patch}`) },
	});
	daemons.push(d);
	return d;
}

test('mismatch-heavy: escape-del on 60,000 cases, every mismatch counted and listed, exactly the hand method\'s', async () => {
	const seed = 1, count = 60000;
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await daemonFor('escape-del', db);
	const r = await run(d, { suite: 'generated', seed, count });
	assert.equal(r.status, 'done', r.error);
	assert.equal(r.done, count);

	const dir = tmpDir();
	const base = hand(path.join(prefixOf(BASE), 'bin/php'), seed, count, dir);
	const head = hand(path.join(prefixOf(`${BASE}-escape-del`), 'bin/php'), seed, count, dir);
	assert.deepEqual([base.crashed, head.crashed], [[], []]);
	assert.equal(base.lines.size, count);
	const differ = [];
	for (const [i, l] of base.lines) if (head.lines.get(i) !== l) differ.push(i);
	assert.ok(differ.length > count / 20, `a mismatch-heavy candidate: ${differ.length}`);

	assert.deepEqual(r.counts, { same: count - differ.length, differ: differ.length });
	assert.equal(r.summary.mismatches, differ.length);
	// Listed, each one, at its (seed, index): the same cases as the hand method's.
	const listed = sql(db, `SELECT idx FROM generated_mismatches WHERE run_id = ${r.id} AND seed = ${seed} ORDER BY idx`)
		.split('\n').filter(Boolean).map(Number);
	assert.deepEqual(listed, differ.sort((a, b) => a - b));
	// Stored in full: a bounded sample per signature, not every mismatch.
	const full = Number(sql(db, `SELECT count(*) FROM comparisons WHERE run_id = ${r.id}`));
	assert.ok(full <= r.summary.signatures.length * 8 + 20, `${full} stored in full`);
	// The bug changes output bytes only: the same status, error code and
	// exception on both builds in every signature (the codes are the
	// value's other errors, with JSON_PARTIAL_OUTPUT_ON_ERROR).
	for (const x of r.summary.signatures) {
		const [fields, b, h] = x.signature.split('|');
		assert.equal(fields, 'output', x.signature);
		assert.equal(b, h, x.signature);
		assert.ok(b.startsWith('ok,'), x.signature);
	}
	// The rest in full when asked for: the first page of the run's cases,
	// each stored (POST) with both results, the head escaping DEL.
	const page = (await d.get(`/api/runs/${r.id}/cases?verdict=differ&limit=30`)).json;
	assert.equal(page.cases.length, 30);
	assert.ok(page.next);
	for (const c of await d.storeListed(page.cases)) {
		assert.equal(c.verdict, 'differ');
		const full1 = (await d.get(`/api/cases/${c.id}`)).json;
		assert.equal(full1.run_id, r.id);
		assert.match(full1.results.head.output, /\\u007f/, c.title);
		assert.doesNotMatch(full1.results.base.output ?? '', /\\u007f/);
	}
	assert.ok(flatMemory(r.summary.daemon.peak_rss_kb), `daemon peak ${r.summary.daemon.peak_rss_kb} KiB`);
});

test('crash-heavy: crash-byte on 20,000 cases finishes every case, each crash counted and listed, exactly the hand method\'s', async () => {
	const seed = 2, count = 20000;
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await daemonFor('crash-byte', db);
	const r = await run(d, { suite: 'generated', seed, count });
	assert.equal(r.status, 'done', r.error);
	assert.equal(r.done, count);

	const dir = tmpDir();
	const base = hand(path.join(prefixOf(BASE), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	const head = hand(path.join(prefixOf(`${BASE}-crash-byte`), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	assert.deepEqual(base.crashed, []);
	assert.ok(head.crashed.length > 50, `a crash-heavy candidate: ${head.crashed.length} crashes`);
	const crashed = new Set(head.crashed);
	// The case after a crash ran first in a fresh CLI process on the head;
	// a case's result can depend on the cases before it in one process
	// (seen here: a JSON_ERROR_UTF8 that shows only after its predecessor
	// ran), so compare it with the base's run of it first in a fresh
	// process too: like for like.
	base.lines = freshStretches(path.join(prefixOf(BASE), 'bin/php'), head.crashed, seed, count, dir, base.lines,
		CRASH_CHUNK);
	const other = [...base.lines.keys()].filter((i) => !crashed.has(i) && head.lines.get(i) !== base.lines.get(i));

	const h = r.summary.builds.head;
	assert.equal(h.statuses.crash, head.crashed.length);
	assert.equal(h.failures, head.crashed.length);
	assert.equal(r.summary.builds.base.statuses.crash, 0);
	assert.deepEqual(r.counts, { same: count - crashed.size - other.length, differ: crashed.size + other.length });
	const listed = sql(db, `SELECT idx FROM generated_mismatches WHERE run_id = ${r.id} AND signature LIKE 'status%|crash,%' ORDER BY idx`)
		.split('\n').filter(Boolean).map(Number);
	assert.deepEqual(listed, head.crashed.sort((a, b) => a - b));
	// A crash in full, on demand: the head's child died of SIGSEGV, the base encoded \u001e.
	// (The first one whose base encoded a value: a case failing on the base
	// too, an error of its own beside the byte, has no output to show it.)
	const page = (await d.get(`/api/runs/${r.id}/cases?verdict=differ&limit=20`)).json;
	assert.equal(page.cases.length, 20);
	let c = null;
	for (const x of await d.storeListed(page.cases)) {
		c = (await d.get(`/api/cases/${x.id}`)).json;
		if (typeof c.results.base.output === 'string') break;
	}
	assert.equal(c.results.head.status, 'crash');
	assert.equal(c.results.head.signal, 11);
	assert.match(c.results.base.output, /\\u001e/);
	// The worker was replaced by a fork each time, not started again.
	const health = (await d.get('/api/health')).json.builds[1].worker;
	assert.equal(health.state, 'ready');
	assert.ok(health.restarts >= head.crashed.length, `restarts ${health.restarts}`);

	// Stopping on crashes is a policy, asked for.
	const capped = await run(d, { suite: 'generated', seed, count, max_failures: 10 });
	assert.equal(capped.status, 'failed');
	assert.match(capped.error, /more than 10 generated cases \(max_failures\)/);
	assert.ok(capped.done < count);
});

test('crash-heavy: crash-control (~8 % of cases crash) on 5,000 cases finishes every case, each crash counted and listed, exactly the hand method\'s', async () => {
	const seed = 4, count = 5000;
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await daemonFor('crash-control', db);
	const r = await run(d, { suite: 'generated', seed, count });
	assert.equal(r.status, 'done', r.error);
	assert.equal(r.done, count);

	const dir = tmpDir();
	const head = hand(path.join(prefixOf(`${BASE}-crash-control`), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	assert.ok(head.crashed.length > count * 0.06 && head.crashed.length < count * 0.10,
		`~8 % crash: ${head.crashed.length} of ${count}`);
	const h = r.summary.builds.head;
	assert.equal(h.statuses.crash, head.crashed.length);
	assert.equal(h.failures, head.crashed.length);
	assert.equal(r.summary.builds.base.statuses.crash, 0);
	// Every crash listed at its index, a crash signature each, no other.
	const listed = sql(db, `SELECT idx FROM generated_mismatches WHERE run_id = ${r.id} AND signature LIKE 'status%|ok,%|crash,%' ORDER BY idx`)
		.split('\n').filter(Boolean).map(Number);
	assert.deepEqual(listed, head.crashed.sort((a, b) => a - b));
	const crashSigs = r.summary.signatures.filter((x) => /\|crash,/.test(x.signature));
	assert.equal(crashSigs.reduce((n, x) => n + x.mismatches, 0), head.crashed.length);
	// Each crash replaced by a fork server's spare child, timed on the
	// progress page: the child was ready before the batch resumed on it.
	const cc = h.crash_ms;
	assert.ok(cc && cc.crashes > head.crashed.length / 2, JSON.stringify(cc));
	for (const k of ['died_to_noticed', 'noticed_to_resent', 'died_to_child_ready', 'died_to_resumed']) {
		assert.ok(cc[k] >= 0, `${k} ${cc[k]}`);
	}
	assert.ok(cc.died_to_child_ready <= cc.died_to_resumed, JSON.stringify(cc));
	const health = (await d.get('/api/health')).json.builds[1].worker;
	assert.equal(health.state, 'ready');
	assert.ok(health.restarts >= head.crashed.length, `restarts ${health.restarts}`);
	assert.ok(flatMemory(r.summary.daemon.peak_rss_kb), `daemon peak ${r.summary.daemon.peak_rss_kb} KiB`);
});

test('several candidates at once: escape-del and crash-byte in one run, each candidate\'s mismatches and crashes exact', async () => {
	const seed = 3, count = 12000;
	const db = path.join(tmpDir(), 'phpcmp.db');
	const d = await Daemon.start({
		name: 'heavy-multi', db,
		buildList: [['base', prefixOf(BASE)], ['escape', prefixOf(`${BASE}-escape-del`)], ['crash', prefixOf(`${BASE}-crash-byte`)]],
	});
	daemons.push(d);
	const r = await run(d, { suite: 'generated', seed, count });
	assert.equal(r.status, 'done', r.error);
	assert.equal(r.done, count);

	const dir = tmpDir();
	const base = hand(path.join(prefixOf(BASE), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	const esc = hand(path.join(prefixOf(`${BASE}-escape-del`), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	const cr = hand(path.join(prefixOf(`${BASE}-crash-byte`), 'bin/php'), seed, count, dir, CRASH_CHUNK);
	assert.deepEqual([base.crashed, esc.crashed], [[], []]);
	assert.ok(cr.crashed.length > 20, `crashes: ${cr.crashed.length}`);
	const escDiffer = new Set([...base.lines.keys()].filter((i) => esc.lines.get(i) !== base.lines.get(i)));
	// The crash build: the case after a crash ran first in a fresh process
	// (see the crash-heavy test): compared with the base's fresh run of it.
	const crashed = new Set(cr.crashed);
	const fresh = freshStretches(path.join(prefixOf(BASE), 'bin/php'), cr.crashed, seed, count, dir, base.lines,
		CRASH_CHUNK);
	const crDiffer = new Set([...fresh.keys()].filter((i) => crashed.has(i) || cr.lines.get(i) !== fresh.get(i)));
	const union = new Set([...escDiffer, ...crDiffer]);

	const s = r.summary;
	assert.deepEqual(Object.keys(s.builds), ['base', 'head', 'cand2']);
	assert.equal(s.builds.head.mismatches, escDiffer.size);
	assert.equal(s.builds.cand2.mismatches, crDiffer.size);
	assert.equal(s.builds.cand2.statuses.crash, crashed.size);
	assert.equal(s.builds.head.statuses.crash, 0);
	assert.equal(s.mismatches, union.size);
	assert.deepEqual(r.counts, { same: count - union.size, differ: union.size });
	// Listed once per case, with the candidates that differ on it.
	const rows = sql(db, `SELECT idx, candidates, length(digests) FROM generated_mismatches WHERE run_id = ${r.id} ORDER BY idx`)
		.split('\n').filter(Boolean).map((l) => l.split('|'));
	assert.deepEqual(rows.map((x) => Number(x[0])), [...union].sort((a, b) => a - b));
	for (const [i, cands, len] of rows) {
		const want = [escDiffer.has(Number(i)) && 'head', crDiffer.has(Number(i)) && 'cand2'].filter(Boolean).join(',');
		assert.equal(cands, want, `case ${i}`);
		assert.equal(Number(len), 3 * 32);
	}
	// Signatures: the crash build's parts named by its role.
	const crashParts = s.signatures.filter((x) => /(^|;)cand2:status[^|]*\|ok,\d+,\d+\|crash,/.test(x.signature))
		.reduce((n, x) => n + x.mismatches, 0);
	assert.equal(crashParts, crashed.size);
	assert.ok(flatMemory(s.daemon.peak_rss_kb), `daemon peak ${s.daemon.peak_rss_kb} KiB`);
});
