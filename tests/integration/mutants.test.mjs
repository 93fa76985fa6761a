// Mutation analysis, CI's fixed set (issue 20, docs/triage.md "Mutation
// analysis"): eleven mutants of ext/json's encoder (scripts/mutate.py), one
// per kind of bug the reducer must explain — keys, declared-property names,
// invalid UTF-8 under each error flag, error precedence, depth (twice),
// pretty print, numbers, a deleted statement.  Each is a one-file candidate
// built over the from-source 8.2.32 tree in `before` (scripts/build-php.sh,
// seconds each, cached in the build cache after the first time); daemons
// of five candidates each (base = src-8.2.32) run 20,000 generated
// cases (seed 1) and the reducer to its end.  Each mutant must be detected
// (≥ 1 mismatch) and explained: ≤ 3 roots, its lead case ≤ 40 bytes of
// value source and ≤ 2 flags (the reducer's target).
//
// Environment: PHPCMP_BUILD_PHP (the build script; default
// scripts/build-php.sh: it must be the one that built src-8.2.32, so that a
// mutant is built over that tree — a full build is refused),
// PHPCMP_MUTANTS_STRICT=1 (the roots/lead checks of the mutants listed in
// REDUCER_TODO as failures, not todos), PHPCMP_MUTANTS_SETTLE_MS (how long
// the reducer may take to settle after each run, default 600 s: about 150 s
// for five mutants' 580 buckets on 2 cores).
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, ROOT, tmpDir } from './helper.mjs';

const run = promisify(execFile);
const BASE = 'src-8.2.32';
const COUNT = 20000;
const PER_DAEMON = 5;
const SCRIPT = process.env.PHPCMP_BUILD_PHP || path.join(ROOT, 'scripts/build-php.sh');
const STRICT = process.env.PHPCMP_MUTANTS_STRICT === '1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// id (scripts/mutate.py --list) → the kind of bug it plants, from
// tests/fixtures/mutants.txt (shared with scripts/src-builds.sh).
const MUTANTS = fs.readFileSync(path.join(ROOT, 'tests/fixtures/mutants.txt'), 'utf8').split('\n')
	.filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
// Mutants whose roots/lead checks fail on today's reducer (docs/triage.md,
// "Mutation analysis"): todos unless PHPCMP_MUTANTS_STRICT=1.  Remove an id
// once the reducer meets the target in run after run.  None today:
// j216.43.logic-and (throws for every error: 31 roots before the normal
// form's error step, 6 after, 3 since what is left without a part explains
// a root) held 3 in the CI check of 2026-12-04 and in this file's
// run after the error step's recode (2026-12-05, session 10), and is
// asserted since.  e292.21.rel-ge (4 roots in CI, 2026-12-04) is 1–2 since
// what is left without a part is also tried at the plan's own depth.
const REDUCER_TODO = new Set([]);
const SETTLE_MS = Number(process.env.PHPCMP_MUTANTS_SETTLE_MS || (STRICT ? 1_800_000 : 600_000));

const results = new Map(); // id → {mismatches, roots: [...], buckets}
const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

function baseTree() {
	const prefix = path.join(BUILDS, BASE);
	if (!fs.existsSync(path.join(prefix, 'lib/libphp.so'))) {
		throw new Error(`${prefix}/lib/libphp.so is missing: run \`make src-builds\` first`);
	}
	const real = fs.realpathSync(prefix);
	return { prefix: real, src: path.join(path.dirname(real), 'src') };
}

// One mutant built over the base tree: its prefix, or null (compile failure).
async function buildMutant(id, src, dir) {
	const patch = path.join(dir, `${id}.patch`);
	execFileSync('python3', [path.join(ROOT, 'scripts/mutate.py'), '--source', src, '--patch', id, '-o', patch]);
	const name = `mut-${id}`;
	const builds = path.join(dir, 'builds');
	const plan = execFileSync(SCRIPT, ['--plan', '--name', name, '--patch', patch, '--builds', builds]).toString().trim();
	if (!/^(cached|reused) /.test(plan)) {
		throw new Error(`${name} would not be built over ${BASE}'s tree (${plan}): is ${SCRIPT} the script that built it? (PHPCMP_BUILD_PHP)`);
	}
	await run(SCRIPT, ['--name', name, '--patch', patch, '--builds', builds, '--jobs', '2'], { maxBuffer: 1 << 24 });
	return path.join(builds, name);
}

// A generated run to its end, then the reducer to its end (nothing pending,
// the count of reductions still for two polls).
async function runGroup(group, base) {
	const d = await Daemon.start({
		name: `mutants-${daemons.length + 1}`,
		reduce: true,
		startDeadlineMs: 600_000, // five new worker cores compiled first (then cached in the state folder)
		buildList: [['base', base], ...group.map(([id, prefix]) => [id, prefix])],
	});
	daemons.push(d);
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: COUNT } });
	assert.equal(post.status, 202, post.text);
	const id = post.json.id;
	const runDone = await d.waitRun(id, { deadlineMs: 600_000, pollMs: 200 });
	assert.equal(runDone.status, 'done', runDone.error);
	let last = -1, still = 0, roots, settled = false;
	for (const deadline = Date.now() + SETTLE_MS; ;) {
		roots = (await d.get(`/api/roots?run=${id}`)).json;
		const red = roots.reduction;
		// Settled: every bucket's representative reduced (roots are made of
		// those; the sampled members reduced after them only re-home), the
		// count of reductions read twice.
		if (red.buckets_pending === 0 && red.reductions === last) still++;
		else still = 0;
		if (still >= 1) {
			settled = true;
			break;
		}
		last = red.reductions;
		if (Date.now() >= deadline) break;
		await sleep(1000);
	}
	const pending = roots.reduction.buckets_pending;
	const s = (await d.get(`/api/runs/${id}`)).json.summary;
	const candOf = new Map();
	for (let url = `/api/buckets?run=${id}&limit=500`; url;) {
		const page = (await d.get(url)).json;
		for (const b of page.buckets) candOf.set(b.id, b.candidate);
		url = page.next;
	}
	for (const [mid] of group) {
		const role = Object.keys(s.builds).find((r) => s.builds[r].build === mid);
		const mine = roots.roots.filter((r) => [mid, role].includes(candOf.get(r.bucket_id)));
		results.set(mid, { mismatches: s.builds[role].mismatches ?? 0, roots: mine,
			buckets: mine.reduce((n, r) => n + r.buckets, 0), settled, pending });
	}
	await d.stopClean();
	daemons.splice(daemons.indexOf(d), 1);
}

before(async () => {
	const { prefix, src } = baseTree();
	const dir = tmpDir('phpcmp-mutants-');
	const built = [];
	for (const [id] of MUTANTS) built.push([id, await buildMutant(id, src, dir)]);
	for (let i = 0; i < built.length; i += PER_DAEMON) await runGroup(built.slice(i, i + PER_DAEMON), prefix);
}, { timeout: 1_800_000 });

test('mutate.py: 720 sites of eight kinds on 8.2.32, unique ids, a seeded sample, patches that apply', () => {
	const { src } = baseTree();
	const mutate = (...a) => execFileSync('python3', [path.join(ROOT, 'scripts/mutate.py'), '--source', src, ...a],
		{ stdio: ['ignore', 'pipe', 'pipe'] }).toString();
	const sites = JSON.parse(mutate('--list', '--json'));
	assert.equal(sites.length, 720);
	const kinds = {};
	for (const s of sites) kinds[s.kind] = (kinds[s.kind] || 0) + 1;
	assert.deepEqual(kinds, { rel: 57, arith: 20, logic: 24, const: 295, negate: 72, delete: 166, flag: 82, loop: 4 });
	assert.equal(new Set(sites.map((s) => s.id)).size, sites.length);
	for (const s of sites) assert.match(s.id, /^[ej][0-9]+\.[0-9]+\.[a-z0-9-]+$/);
	// Nothing from a comment or a preprocessor line (the recursion macros, #include <...>).
	assert.ok(!sites.some((s) => s.line >= 99 && s.line <= 111 && s.file.endsWith('json_encoder.c')));
	const byId = new Map(sites.map((s) => [s.id, s]));
	assert.deepEqual(byId.get('e292.21.rel-ge'), { id: 'e292.21.rel-ge', kind: 'rel', file: 'ext/json/json_encoder.c',
		line: 292, col: 21, before: '>', after: '>=' });
	for (const [id] of MUTANTS) assert.ok(byId.has(id), id);
	// The same seed, the same sample; another seed, another.
	const a = mutate('--sample', '20', '--seed', '1', '--json');
	assert.equal(mutate('--sample', '20', '--seed', '1', '--json'), a);
	assert.equal(JSON.parse(a).length, 20);
	assert.notEqual(mutate('--sample', '20', '--seed', '2', '--json'), a);
	// A patch touches one .c file and applies with patch -p1 to the source.
	const p = mutate('--patch', 'e292.21.rel-ge');
	assert.match(p, /^--- a\/ext\/json\/json_encoder\.c\n\+\+\+ b\/ext\/json\/json_encoder\.c\n/);
	assert.match(p, /^-\tif \(encoder->depth > encoder->max_depth\) \{$/m);
	assert.match(p, /^\+\tif \(encoder->depth >= encoder->max_depth\) \{$/m);
	execFileSync('patch', ['-d', src, '-p1', '--dry-run', '--batch', '-s'], { input: p });
	// Bad requests say what is wrong.
	assert.throws(() => mutate('--patch', 'e1.1.nope'), /no site e1\.1\.nope/);
});

// A jsonSerialize() that calls json_encode() itself (GenC41-43) shows a
// pretty-print bug through its inner call: what that call encodes, under its
// own flags, explains it (engine/reduce.c, reduce_each_part), so it joins the
// root `[null]` under JSON_PRETTY_PRINT instead of standing as a second root
// (`new GenC43(["日" => [null]])` was one in CI until 2026-12-05).
test('e62.35.const-m1: no root is a nested call\'s object: its inner case joins the pretty-print root', () => {
	const r = results.get('e62.35.const-m1');
	assert.ok(r && r.mismatches >= 1 && r.settled, 'detected and settled');
	assert.ok(r.roots.some((x) => x.minimal?.code === '[null]' && x.minimal.flags.join() === 'JSON_PRETTY_PRINT'),
		describe(r.roots));
	assert.ok(!r.roots.some((x) => /new GenC4[123]\(/.test(x.minimal?.code ?? '')), describe(r.roots));
});

// One depth bug, three kinds of mismatch under PARTIAL_OUTPUT_ON_ERROR and
// PRESERVE_ZERO_FRACTION: [[], INF] under PARTIAL_OUTPUT_ON_ERROR at depth 1
// (the candidate keeps the depth error's code) holds [[], null], which
// reduces to the root [[]] -- made by whichever bucket came first, so a
// root reduced before it joins it late (engine/reduce.c,
// reduce_keep_part_key).  Two roots at 150,000 cases; four before.
test('e294.19.flag-next: [[], INF] under PARTIAL_OUTPUT_ON_ERROR joins the root [[]], whichever came first', () => {
	const r = results.get('e294.19.flag-next');
	assert.ok(r && r.mismatches >= 1 && r.settled, 'detected and settled');
	const lead = (x) => `${x.minimal?.code} ${(x.minimal?.flags || []).join('|')}`;
	assert.ok(r.roots.some((x) => lead(x) === '[[]] JSON_PARTIAL_OUTPUT_ON_ERROR'), describe(r.roots));
	assert.ok(!r.roots.some((x) => lead(x) === '[[], INF] JSON_PARTIAL_OUTPUT_ON_ERROR'), describe(r.roots));
});

function describe(roots) {
	return roots.map((r) => `  ${r.buckets} buckets, ${r.mismatches} mismatches: ${r.minimal?.code} ` +
		`[${(r.minimal?.flags || []).join('|')}] (${r.minimal?.value_bytes} bytes)`).join('\n');
}

for (const [id, what] of MUTANTS) {
	test(`${id} (${what}): detected by 20,000 generated cases`, () => {
		const r = results.get(id);
		assert.ok(r, `no result for ${id}`);
		assert.ok(r.mismatches >= 1, `${id}: ${r.mismatches} mismatches`);
	});
	const todo = !STRICT && REDUCER_TODO.has(id) ? 'the reducer\'s target (issue 20): fails on today\'s reducer' : undefined;
	test(`${id}: ≤ 3 roots, the lead case ≤ 40 bytes of value source and ≤ 2 flags`, { todo }, () => {
		const r = results.get(id);
		assert.ok(r && r.mismatches >= 1, `${id} not detected`);
		console.log(`${id}: ${r.mismatches} mismatches, ${r.buckets} buckets, ${r.roots.length} roots\n${describe(r.roots)}`);
		assert.ok(r.settled, `the reducer did not settle within ${SETTLE_MS} ms (${r.pending} buckets of the run pending; PHPCMP_MUTANTS_SETTLE_MS)`);
		assert.ok(r.roots.length >= 1 && r.roots.length <= 3, `${id}: ${r.roots.length} roots\n${describe(r.roots)}`);
		const lead = [...r.roots].sort((a, b) => b.mismatches - a.mismatches)[0].minimal;
		assert.ok(lead, `${id}: the lead root is not reduced`);
		assert.ok(lead.value_bytes <= 40, `${id}: lead ${lead.code} is ${lead.value_bytes} bytes`);
		assert.ok(lead.flags.length <= 2, `${id}: lead flags ${lead.flags.join('|')}`);
	});
}
