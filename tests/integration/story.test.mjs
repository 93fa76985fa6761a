// The reviewer's story (issue 11, docs/review.md) as one test: one daemon
// with base = libphp 8.2.32 built from Debian's pristine tarball and two
// candidates built from it with the fixture patches of
// tests/fixtures/patches/: keys-fastpath (a correct fast path for object
// keys that need no escaping; values untouched) and keys-wrong (the same
// with a planted bug).  A generated run of 200,000 cases finds no mismatch
// for the correct one and buckets the wrong one's; the measurements show the
// fast path cheaper on key-heavy workloads and exactly 0.0 % on value-only
// ones; the function diff puts the change in json_encoder.c's functions; the
// reviewer's table (report.md, with its json_encoder.c columns) has the
// seed's shape and signs.  The builds come from `make src-builds`; this file
// fails, not skips, when they are missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, LOGS } from './helper.mjs';

const COUNT = 200_000;
// What the run printed, for docs/review.md: tests/artifacts/story-*.
const artifact = (name, text) => {
	fs.mkdirSync(LOGS, { recursive: true });
	fs.writeFileSync(path.join(LOGS, `story-${name}`), text);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function prefixOf(name) {
	const p = path.join(BUILDS, name);
	if (!fs.existsSync(path.join(p, 'lib/libphp.so'))) {
		throw new Error(`${p}/lib/libphp.so is missing: run \`make src-builds\` (scripts/src-builds.sh) first`);
	}
	return p;
}

// The workloads of cases/workloads/ by what they encode: objects and arrays
// with string keys (the fast path's), or strings only (values: untouched).
const KEY_HEAVY = ['01-jsonobj', '02-array-5-keys', '03-objects-12-props', '04-rows-12-keys', '11-fhir-bundle'];
const VALUE_ONLY = ['05-ascii-200', '06-utf8-text', '07-urls', '08-quote-first', '09-quote-last', '10-a-slash-b'];
const kind = (w) => {
	const base = path.basename(w.source || '', '.phpt');
	return KEY_HEAVY.includes(base) ? 'keys' : VALUE_ONLY.includes(base) ? 'values' : null;
};

let d;
before(async () => {
	d = await Daemon.start({
		name: 'story',
		buildList: [
			['base', prefixOf('src-8.2.32')],
			['keys-fastpath', prefixOf('src-8.2.32-keys-fastpath')],
			['keys-wrong', prefixOf('src-8.2.32-keys-fastpath-wrong')],
		],
	});
});
after(async () => { await d?.stopClean(); });

async function waitRun(id, deadlineMs = 600_000) {
	const deadline = Date.now() + deadlineMs;
	for (;;) {
		const r = await d.get(`/api/runs/${id}`);
		assert.equal(r.status, 200, r.text);
		if (!['queued', 'running'].includes(r.json.status)) return r.json;
		assert.ok(Date.now() < deadline, `run ${id} still ${r.json.status}`);
		await sleep(250);
	}
}

test('three from-source builds: base, keys-fastpath (head), keys-wrong (cand2)', () => {
	assert.deepEqual(d.health.builds.map((b) => [b.name, b.role, b.php_version]),
		[['base', 'base', '8.2.32'], ['keys-fastpath', 'head', '8.2.32'], ['keys-wrong', 'cand2', '8.2.32']]);
});

test(`a generated run of ${COUNT.toLocaleString('en')} cases: 0 mismatches for keys-fastpath, keys-wrong's bucketed`, async () => {
	const t0 = Date.now();
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: COUNT } });
	assert.equal(post.status, 202, post.text);
	const run = await waitRun(post.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	const s = run.summary;
	assert.equal(s.done, COUNT);
	assert.match(s.corpus_hash, /^[0-9a-f]{16}$/);
	assert.equal(s.builds.head.build, 'keys-fastpath');
	assert.equal(s.builds.head.mismatches, 0, 'the correct fast path agrees with the base on every case');
	assert.equal(s.builds.cand2.build, 'keys-wrong');
	assert.ok(s.builds.cand2.mismatches > 0, JSON.stringify(s.builds.cand2));
	artifact('generated.json', JSON.stringify({ seconds: (Date.now() - t0) / 1000, summary: s }, null, 1));

	// Buckets know their candidate: keys-wrong's mismatches are all in its own.
	const wrong = await d.get('/api/buckets?candidate=keys-wrong&limit=200');
	assert.equal(wrong.status, 200, wrong.text);
	assert.ok(wrong.json.buckets.length >= 1);
	assert.ok(wrong.json.buckets.every((b) => b.candidate === 'keys-wrong'));
	// A generated run stores a bounded sample of each signature in full
	// (docs/generated.md): those are what the buckets hold; the run lists
	// every mismatch, and its signatures count them all.
	const bucketed = wrong.json.buckets.reduce((n, b) => n + b.mismatches, 0);
	assert.equal(bucketed, s.stored_in_full, 'every mismatch stored in full is in a keys-wrong bucket');
	assert.equal(s.signatures.reduce((n, g) => n + g.mismatches, 0) + s.other_signatures, s.builds.cand2.mismatches,
		'the signatures count every mismatch');
	artifact('buckets.json', JSON.stringify(wrong.json.buckets.map((b) => ({ id: b.id, mismatches: b.mismatches, differs: b.key && b.key.differs, title: b.title })), null, 1));
	const fast = await d.get('/api/buckets?candidate=head');
	assert.equal(fast.status, 200, fast.text);
	assert.deepEqual(fast.json.buckets, [], 'keys-fastpath has no bucket');
});

let measured;
test('measurements: keys-fastpath cheaper on key-heavy workloads, exactly 0.0 % on value-only ones', async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'measure' } });
	assert.equal(post.status, 202, post.text);
	const run = await waitRun(post.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	const t = await d.get(`/api/runs/${run.id}/measurements`);
	assert.equal(t.status, 200, t.text);
	measured = { run, table: t.json };
	assert.deepEqual(t.json.build_list.map((b) => [b.name, b.json_encoder_c]),
		[['base', true], ['keys-fastpath', true], ['keys-wrong', true]], 'from-source builds name json_encoder.c');
	const kinds = t.json.workloads.map(kind);
	assert.ok(!kinds.includes(null), `every workload is key-heavy or value-only: ${kinds}`);
	assert.equal(kinds.filter((k) => k === 'keys').length, KEY_HEAVY.length);
	for (const w of t.json.workloads) {
		const c = w.candidates['keys-fastpath'];
		assert.ok(w.base.json_encoder_c > 0 && w.base.json_encoder_c < w.base.instructions,
			`${w.title}: json_encoder.c is part of the whole`);
		if (kind(w) === 'keys') {
			assert.ok(c.delta_pct < -1, `${w.title}: ${c.delta_pct} %`);
			assert.equal(c.change, 'improvement');
			assert.ok(c.json_encoder_c_delta_pct < c.delta_pct,
				`${w.title}: json_encoder.c's share changes more (${c.json_encoder_c_delta_pct} %) than the whole (${c.delta_pct} %)`);
		} else {
			assert.equal(w.head.instructions, w.base.instructions, `${w.title}: the same count, to the instruction`);
			assert.equal(c.delta_pct, 0);
			assert.equal(c.json_encoder_c, w.base.json_encoder_c);
			assert.equal(c.json_encoder_c_delta_pct, 0);
		}
	}
	assert.deepEqual(t.json.candidate_counts['keys-fastpath'],
		{ regressions: 0, improvements: KEY_HEAVY.length, unchanged: VALUE_ONLY.length, unmeasured: 0 });
});

test('the function diff: the change is in json_encoder.c, keys no longer through php_json_escape_string', async () => {
	assert.ok(measured, 'the measurements ran');
	for (const w of measured.table.workloads) {
		const r = await d.get(`/api/comparisons/${w.comparison_id}/functions?vs=head&limit=5000`);
		assert.equal(r.status, 200, r.text);
		const f = r.json;
		assert.equal(f.candidate.name, 'keys-fastpath');
		assert.equal(f.iterations, w.iterations);
		assert.equal(f.base.total, w.base.instructions * w.iterations, `${w.title}: the functions add up to the count`);
		assert.equal(f.base.json_encoder_c, w.base.json_encoder_c * w.iterations);
		const changed = f.functions.filter((x) => x.delta_self !== 0);
		if (kind(w) === 'values') {
			assert.deepEqual(changed, [], `${w.title}: no function changed`);
			assert.deepEqual([f.counts.more, f.counts.less], [0, 0]);
			continue;
		}
		assert.deepEqual(changed.map((x) => [x.name, x.file, x.change]), [
			['php_json_escape_string', 'ext/json/json_encoder.c', 'less'],
			['php_json_encode_array', 'ext/json/json_encoder.c', 'more'],
		], `${w.title}: ${JSON.stringify(changed)}`);
		assert.equal(f.files[0].file, 'ext/json/json_encoder.c');
		assert.ok(f.files[0].delta < 0);
		assert.equal(f.files[0].base_self, f.base.json_encoder_c);
		assert.equal(f.files[0].candidate_self, f.candidate.json_encoder_c);
	}
	// The wrong variant's bug changes output, not instructions: the same diff.
	const w4 = measured.table.workloads.find((w) => w.source.endsWith('04-rows-12-keys.phpt'));
	const a = await d.get(`/api/comparisons/${w4.comparison_id}/functions?vs=head&file=json_encoder.c`);
	artifact('functions.json', JSON.stringify(a.json, null, 1));
	const b = await d.get(`/api/comparisons/${w4.comparison_id}/functions?vs=cand2&file=json_encoder.c`);
	assert.equal(b.json.candidate.name, 'keys-wrong');
	assert.deepEqual(b.json.functions, a.json.functions);
	assert.ok(a.json.functions.every((x) => x.file === 'ext/json/json_encoder.c'), 'file= keeps only that file');
	// Malformed requests: precise 4xx.
	for (const [q, status, re] of [
		['vs=base', 400, /vs: expected a candidate role/],
		['vs=cand3', 400, /vs: expected a candidate role/],
		['limit=0', 400, /limit: expected 1 to 5000/],
		['file=', 400, /file: expected a source file name/],
	]) {
		const r = await d.get(`/api/comparisons/${w4.comparison_id}/functions?${q}`);
		assert.equal(r.status, status, `${q}: ${r.text}`);
		assert.match(r.json.error.message, re);
	}
	assert.equal((await d.get('/api/comparisons/999999/functions')).status, 404);
});

test("the reviewer's table: report.md with json_encoder.c columns, the seed's shape and signs", async () => {
	assert.ok(measured, 'the measurements ran');
	const id = measured.run.id;
	const md = await d.get(`/api/runs/${id}/report.md?json_encoder=1`);
	assert.equal(md.status, 200, md.text);
	artifact('report.md', md.text);
	assert.match(md.text, /^\| json_encode\(\) of \| base \(instructions\) \| base json_encoder\.c \| keys-fastpath \| keys-fastpath json_encoder\.c \| keys-wrong \| keys-wrong json_encoder\.c \|$/m);
	assert.match(md.text, /^\|---\|---:\|---:\|---:\|---:\|---:\|---:\|$/m);
	const rows = md.text.split('\n').filter((l) => l.startsWith('| workload'));
	assert.equal(rows.length, measured.table.workloads.length);
	// whole counts as one (3,298), others with two decimals (issue 46)
	const num = '\\d{1,3}(?:,\\d{3})*(?:\\.\\d\\d)?';
	const down = '−\\d+\\.\\d %';
	for (const [i, r] of rows.entries()) {
		const w = measured.table.workloads[i];
		assert.ok(r.startsWith(`| ${w.title} |`), r);
		const cells = kind(w) === 'keys' ? `${down} \\| ${down}` : '0\\.0 % \\| 0\\.0 %';
		assert.match(r, new RegExp(`\\| ${num} \\| ${num} \\| ${cells} \\| ${cells} \\|$`), r);
	}
	for (const name of ['keys-fastpath', 'keys-wrong']) {
		assert.match(md.text, new RegExp(`^- ${name}: 0 regressions, ${KEY_HEAVY.length} improvements, ${VALUE_ONLY.length} unchanged$`, 'm'));
	}
	assert.doesNotMatch(md.text, /unavailable/, 'every build here has its symbols');
	// Without the option: the candidates' table, no json_encoder.c column.
	const plain = await d.get(`/api/runs/${id}/report.md`);
	assert.match(plain.text, /^\| json_encode\(\) of \| base \(instructions\) \| keys-fastpath \| keys-wrong \|$/m);
	const bad = await d.get(`/api/runs/${id}/report.md?json_encoder=yes`);
	assert.equal(bad.status, 400);
	assert.match(bad.json.error.message, /json_encoder: expected 1/);
	assert.equal((await d.get(`/api/runs/${id}/report.md?json_encoder=1&columns=builds`)).status, 400);
});
