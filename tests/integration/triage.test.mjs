// Triage (docs/api.md): mismatches in buckets by a key that holds across
// runs, states with assignee and notes, bulk changes, the audit trail, a
// fixed bucket that reappears, precise 4xx errors that change nothing, the
// person from "by" or from an API token, buckets for mismatches stored before
// buckets existed (the startup backfill); and the exports of a case (php-src
// .phpt, stored case file).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, Daemon, errorOf, HEAD_VERSION, runCli, tableCounts, tmpDir } from './helper.mjs';

let d, casesDir;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sql = (db, q) => execFileSync('sqlite3', [db, q], { encoding: 'utf8' }).trim();

// Cases whose value depends on the PHP version: 8.2.32 and 8.2.36 differ in three ways.
function writeCases(dir) {
	const c = (name, title, value, flags) => fs.writeFileSync(path.join(dir, name),
		`--TEST--\n${title}\n${flags ? `--FLAGS--\n${flags}\n` : ''}--VALUE--\n${value}\n`);
	for (let i = 1; i <= 3; i++) c(`v${i}.phpt`, `version ${i}`, `['v' => PHP_VERSION, 'i' => ${i}]`);
	for (let i = 1; i <= 2; i++) c(`u${i}.phpt`, `utf8 ${i}`, `PHP_VERSION_ID >= 80236 ? "x\\xff${i}" : "x${i}"`);
	c('t1.phpt', 'throws on head', 'PHP_VERSION_ID >= 80236 ? NAN : 0.5', 'JSON_THROW_ON_ERROR');
	c('s1.phpt', 'same', "['a' => 1]");
}

async function run(suite = 'stored') {
	const r = await d.request('POST', '/api/runs', { body: { suite } });
	assert.equal(r.status, 202, r.text);
	for (const t0 = Date.now(); ;) {
		const g = await d.get(`/api/runs/${r.json.id}`);
		if (!['queued', 'running'].includes(g.json.status)) return g.json;
		if (Date.now() - t0 > 60_000) throw new Error('run did not finish');
		await sleep(100);
	}
}

const triage = (id, body, headers) => d.request('POST', `/api/buckets/${id}/triage`, { body, headers });

before(async () => {
	casesDir = tmpDir('phpcmp-triage-cases-');
	writeCases(casesDir);
	d = await Daemon.start({ name: 'triage', cases: casesDir });
});
after(async () => {
	await d?.stopClean();
	if (casesDir) fs.rmSync(casesDir, { recursive: true, force: true });
});

test('a run\'s mismatches in buckets: one per way of differing, most first, keys without ids', async () => {
	const r1 = await run();
	assert.equal(r1.counts.differ, 6);
	const b = await d.get(`/api/buckets?run=${r1.id}`);
	assert.equal(b.status, 200, b.text);
	assert.deepEqual(b.json.buckets.map((x) => x.run.mismatches), [3, 2, 1]);
	assert.equal(b.json.next, null);
	const [version, utf8, thrown] = b.json.buckets;
	assert.deepEqual(version.key, { v: 1, differs: ['output'], status: ['ok', 'ok'], error_code: [0, 0],
		exception: [null, null], output: ['0', '0'], flags: { JSON_NUMERIC_CHECK: false, JSON_PRESERVE_ZERO_FRACTION: false } });
	assert.deepEqual(utf8.key.differs, ['output', 'error_code', 'error_msg']);
	assert.deepEqual(utf8.key.error_code, [0, 5]);
	assert.deepEqual(utf8.key.output, ['string', 'false']);
	assert.deepEqual(thrown.key.exception, [null, 'JsonException']);
	assert.equal(thrown.key.flags.JSON_THROW_ON_ERROR, true);
	for (const x of b.json.buckets) {
		assert.equal(x.state, 'new');
		assert.equal(x.earlier_runs, 0);
		assert.equal(x.first_seen.run_id, r1.id);
		assert.ok(x.run.representative.case_id > 0 && x.run.representative.title);
	}
	assert.equal(b.json.counts.new.buckets, 3);
	assert.equal(b.json.counts.new.mismatches, 6);
	// Each mismatch of the run is in its bucket's listing.
	const m = await d.get(`/api/buckets/${version.id}/mismatches?run=${r1.id}`);
	assert.deepEqual(m.json.mismatches.map((x) => x.title).sort(), ['version 1', 'version 2', 'version 3']);
	// A case shows its comparison's bucket.
	const c = await d.get(`/api/cases/${m.json.mismatches[0].case_id}`);
	assert.equal(c.json.bucket.id, version.id);
	assert.equal(c.json.bucket.state, 'new');
});

test('triage one bucket: state, assignee, notes, an audit entry naming who and what', async () => {
	const [version] = (await d.get('/api/buckets')).json.buckets.filter((x) => x.key.output?.[0] === '0');
	let r = await triage(version.id, { by: 'alice', state: 'confirmed', assignee: 'bob', notes: 'PHP_VERSION, by design' });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.state, 'confirmed');
	assert.equal(r.json.assignee, 'bob');
	assert.equal(r.json.updated_by, 'alice');
	assert.equal(r.json.changed, true);
	assert.deepEqual(r.json.events[0].changes, { state: ['new', 'confirmed'], assignee: [null, 'bob'], notes: ['', 'PHP_VERSION, by design'] });
	assert.equal(r.json.events[0].by, 'alice');
	assert.match(r.json.events[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
	// The same values again: nothing changes, nothing is recorded.
	r = await triage(version.id, { by: 'carol', assignee: 'bob' });
	assert.equal(r.json.changed, false);
	assert.equal(r.json.events.length, 1);
	// Clearing the assignee.
	r = await triage(version.id, { by: 'carol', assignee: null });
	assert.equal(r.json.assignee, null);
	assert.deepEqual(r.json.events[0].changes, { assignee: ['bob', null] });
	const ev = await d.get(`/api/triage/events?bucket=${version.id}&limit=1`);
	assert.equal(ev.json.events.length, 1);
	assert.equal(ev.json.events[0].by, 'carol');
	assert.ok(ev.json.next);
	const ev2 = await d.get(ev.json.next);
	assert.equal(ev2.json.events[0].by, 'alice');
	assert.equal(ev2.json.next, null);
});

test('a later run: the same buckets, their triage kept, linked to the earlier runs', async () => {
	const before = (await d.get('/api/buckets')).json.buckets;
	const r2 = await run();
	const b = (await d.get(`/api/buckets?run=${r2.id}`)).json.buckets;
	assert.deepEqual(b.map((x) => x.id).sort(), before.map((x) => x.id).sort(), 'no new buckets');
	for (const x of b) assert.equal(x.earlier_runs, 1);
	const version = b.find((x) => x.key.output?.[0] === '0');
	assert.equal(version.state, 'confirmed');
	assert.equal(version.mismatches, 6);
	assert.equal(version.run.mismatches, 3);
	const full = (await d.get(`/api/buckets/${version.id}`)).json;
	assert.deepEqual(full.runs.map((x) => x.run_id), [r2.id, r2.id - 1]);
	assert.equal(full.first_seen.run_id, r2.id - 1);
	assert.equal(full.last_seen.run_id, r2.id);
});

test('bulk: every listed bucket in one transaction; a missing id changes nothing', async () => {
	const all = (await d.get('/api/buckets')).json.buckets;
	const ids = all.filter((x) => x.state === 'new').map((x) => x.id);
	assert.equal(ids.length, 2);
	const counts = tableCounts(d.db);
	let r = await d.request('POST', '/api/buckets/triage', { body: { by: 'alice', ids: [...ids, 9999], state: 'ignored' } });
	assert.equal(r.status, 404);
	assert.match(errorOf(r).message, /no bucket 9999 \(nothing was changed\)/);
	assert.deepEqual(tableCounts(d.db), counts);
	r = await d.request('POST', '/api/buckets/triage', { body: { by: 'alice', ids: [...ids, ids[0]], state: 'expected', assignee: 'dave' } });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.changed, 2);
	assert.deepEqual(r.json.buckets.map((x) => [x.state, x.assignee]), [['expected', 'dave'], ['expected', 'dave']]);
	const listed = await d.get('/api/buckets?state=expected,confirmed');
	assert.equal(listed.json.buckets.length, 3);
	assert.equal((await d.get('/api/buckets?state=new')).json.buckets.length, 0);
});

test('fixed, then seen again: flagged, noted by the daemon, answered by setting a state', async () => {
	const version = (await d.get('/api/buckets')).json.buckets.find((x) => x.key.output?.[0] === '0');
	let r = await triage(version.id, { by: 'alice', state: 'fixed' });
	assert.equal(r.json.reappeared, null);
	assert.equal((await d.get('/api/buckets?state=reappeared')).json.buckets.length, 0);
	// A submitted case of the same difference, after it was marked fixed.
	const c = await d.runCase({ code: "['v' => PHP_VERSION, 'i' => 99]" });
	assert.equal(c.verdict, 'differ');
	r = await d.get(`/api/buckets/${version.id}`);
	assert.equal(r.json.state, 'fixed');
	assert.equal(r.json.reappeared.comparison_id, c.comparison_id);
	assert.equal(r.json.reappeared.run_id, null);
	assert.deepEqual(r.json.events[0], { ...r.json.events[0], by: 'phpcmp', action: 'reappeared' });
	const open = (await d.get('/api/buckets?state=open')).json.buckets.map((x) => x.id);
	assert.ok(open.includes(version.id), 'a reappeared fixed bucket is open');
	assert.equal((await d.get('/api/buckets?state=reappeared')).json.counts.reappeared.buckets, 1);
	// Setting fixed again answers it (and re-arms it).
	r = await triage(version.id, { by: 'alice', state: 'fixed' });
	assert.equal(r.json.changed, true);
	assert.equal(r.json.reappeared, null);
	assert.deepEqual(r.json.events[0].changes, { state: ['fixed', 'fixed'], reappeared: false });
});

test('bad input: precise 4xx errors, nothing written', async () => {
	const id = (await d.get('/api/buckets')).json.buckets[0].id;
	const cases = [
		[`/api/buckets/${id}/triage`, { state: 'confirmed' }, 400, /^by: required/],
		[`/api/buckets/${id}/triage`, { by: '  ', state: 'confirmed' }, 400, /^by: must not be empty/],
		[`/api/buckets/${id}/triage`, { by: 'x'.repeat(65), state: 'confirmed' }, 400, /^by: at most 64 bytes/],
		[`/api/buckets/${id}/triage`, { by: 'a\nb', state: 'confirmed' }, 400, /control characters/],
		[`/api/buckets/${id}/triage`, { by: 7, state: 'confirmed' }, 400, /^by: expected a person's name/],
		[`/api/buckets/${id}/triage`, { by: 'alice' }, 400, /^nothing to change/],
		[`/api/buckets/${id}/triage`, { by: 'alice', state: 'done' }, 400, /^state: expected one of/],
		[`/api/buckets/${id}/triage`, { by: 'alice', status: 'fixed' }, 400, /^unknown field "status"/],
		[`/api/buckets/${id}/triage`, { by: 'alice', ids: [id], state: 'fixed' }, 400, /^unknown field "ids"/],
		[`/api/buckets/${id}/triage`, { by: 'alice', notes: 'x'.repeat(16385) }, 400, /^notes: at most 16384 bytes/],
		[`/api/buckets/${id}/triage`, { by: 'alice', notes: 5 }, 400, /^notes: expected a string/],
		[`/api/buckets/${id}/triage`, { by: 'alice', assignee: '' + 'y'.repeat(70) }, 400, /^assignee: at most 64 bytes/],
		['/api/buckets/triage', { by: 'alice', state: 'fixed' }, 400, /^ids: required/],
		['/api/buckets/triage', { by: 'alice', state: 'fixed', ids: [] }, 400, /^ids: required/],
		['/api/buckets/triage', { by: 'alice', state: 'fixed', ids: [1, 'x'] }, 400, /^ids\[1\]: expected a positive integer/],
		['/api/buckets/99999/triage', { by: 'alice', state: 'fixed' }, 404, /^no bucket 99999/],
		['/api/buckets/abc/triage', { by: 'alice', state: 'fixed' }, 404, /^no bucket abc/],
		[`/api/buckets/${id}/triage`, '{"by": "alice", "state": ', 400, /^body is not valid JSON/],
		[`/api/buckets/${id}/triage`, '[1]', 400, /^body: expected a JSON object/],
	];
	const counts = tableCounts(d.db);
	for (const [p, body, status, re] of cases) {
		const r = await d.request('POST', p, { body });
		assert.equal(r.status, status, `${p} ${JSON.stringify(body).slice(0, 80)} -> ${r.status} ${r.text}`);
		assert.match(errorOf(r).message, re, r.text);
	}
	let r = await d.request('POST', `/api/buckets/${id}/triage`, { body: '{"by":"a","state":"fixed"}', headers: { 'Content-Type': 'text/plain' } });
	assert.equal(r.status, 415);
	r = await d.request('GET', `/api/buckets/${id}/triage`);
	assert.equal(r.status, 405);
	assert.equal(r.headers.allow, 'POST');
	assert.deepEqual(tableCounts(d.db), counts, 'nothing written');
	for (const [p, re] of [['/api/buckets?state=new,bogus', /^state: "bogus"/], ['/api/buckets?limit=0', /^limit/],
		['/api/buckets?run=x', /^run: expected a run id/], ['/api/buckets?cursor=zz', /^cursor/],
		[`/api/buckets/${id}/mismatches?before=-1`, /^before/], ['/api/triage/events?bucket=0', /^bucket/]]) {
		r = await d.get(p);
		assert.equal(r.status, 400, `${p} -> ${r.status}`);
		assert.match(errorOf(r).message, re);
	}
	assert.equal((await d.get('/api/buckets?run=424242')).status, 404);
	assert.equal((await d.get('/api/buckets/424242')).status, 404);
	assert.equal((await d.get('/api/buckets/424242/mismatches')).status, 404);
});

test('keyset pages: every bucket and every mismatch exactly once', async () => {
	const all = (await d.get('/api/buckets?limit=500')).json.buckets.map((x) => x.id);
	const paged = (await d.listAll('/api/buckets?limit=1', 'buckets')).map((x) => x.id);
	assert.deepEqual(paged, all);
	const runId = (await d.get('/api/runs?limit=1')).json.runs[0].id;
	const inRun = (await d.listAll(`/api/buckets?run=${runId}&limit=1`, 'buckets')).map((x) => x.run.mismatches);
	assert.deepEqual(inRun, [3, 2, 1]);
	const version = (await d.get('/api/buckets')).json.buckets.find((x) => x.key.output?.[0] === '0');
	const ms = await d.listAll(`/api/buckets/${version.id}/mismatches?limit=2`, 'mismatches');
	assert.equal(ms.length, version.mismatches);
	assert.equal(new Set(ms.map((x) => x.comparison_id)).size, ms.length);
	const sub = await d.get(`/api/buckets/${version.id}/mismatches?run=submitted`);
	assert.deepEqual(sub.json.mismatches.map((x) => x.run_id), [null]);
});

test('with an API token, the token names the person; "by" may not name another', async () => {
	const token = (await runCli(['token', 'add', 'erin', '--db', d.db])).stdout.trim();
	assert.match(token, /^phpcmp_/);
	const auth = { Authorization: `Bearer ${token}` };
	const id = (await d.get('/api/buckets')).json.buckets[0].id;
	let r = await triage(id, { notes: 'from erin' }, auth);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.events[0].by, 'erin');
	r = await triage(id, { by: 'erin', notes: 'again' }, auth);
	assert.equal(r.status, 200, r.text);
	r = await triage(id, { by: 'mallory', notes: 'not me' }, auth);
	assert.equal(r.status, 400);
	assert.match(errorOf(r).message, /^by: "mallory" is not the token's owner "erin"/);
	r = await triage(id, { by: 'erin', notes: 'no token' });
	assert.equal(r.status, 401, 'once a token exists, writes need one');
	await runCli(['token', 'revoke', 'erin', '--db', d.db]);
});

test('exports: a .phpt expecting base, the stored case file', async () => {
	const c = await d.runCase({ title: 'slash\nand version', code: "['p' => 'a/b', 'v' => PHP_VERSION]", flags: 'JSON_UNESCAPED_SLASHES|JSON_PRETTY_PRINT', depth: 8 });
	let r = await d.get(`/api/cases/${c.id}/phpt`);
	assert.equal(r.status, 200);
	assert.match(r.headers['content-type'], /^text\/plain/);
	assert.match(r.headers['content-disposition'], new RegExp(`^attachment; filename="json_encode_phpcmp_${c.id}_slash_and_version\\.phpt"$`));
	assert.equal(r.text, [
		'--TEST--', 'json_encode(): slash and version', '--DESCRIPTION--',
		`Exported from phpcmp case #${c.id} (comparison #${c.comparison_id}).`,
		`Expected output: build base (PHP ${BASE_VERSION}).`, `Build head (PHP ${HEAD_VERSION}) differs in: output.`,
		'--EXTENSIONS--', 'json', '--FILE--', '<?php',
		"$value = ['p' => 'a/b', 'v' => PHP_VERSION];",
		'var_dump(json_encode($value, JSON_UNESCAPED_SLASHES | JSON_PRETTY_PRINT, 8));',
		'var_dump(json_last_error(), json_last_error_msg());', '?>', '--EXPECT--',
		`string(${31 + BASE_VERSION.length}) "{`, '    "p": "a/b",', `    "v": "${BASE_VERSION}"`, '}"', 'int(0)', 'string(8) "No error"', ''].join('\n'));
	// Statements run as the core runs them (eval in the global scope), setup first, a thrown exception.
	const s = await d.runCase({ setup: 'class P implements JsonSerializable { function jsonSerialize(): mixed { echo "ser\\n"; throw new RuntimeException("no"); } }',
		code: '$p = new P;\nreturn [$p];' });
	r = await d.get(`/api/cases/${s.id}/phpt`);
	assert.match(r.text, /--FILE--\n<\?php\nclass P implements JsonSerializable \{.*\}\n\n\$value = eval\(<<<'CODE'\n\$p = new P;\nreturn \[\$p\];\nCODE\);\ntry \{\n/s);
	assert.match(r.text, /--EXPECT--\nser\nRuntimeException: no\n$/);
	// An earlier comparison by id; one of another case is a 404.
	r = await d.get(`/api/cases/${c.id}/phpt?comparison=${s.comparison_id}`);
	assert.equal(r.status, 404);
	r = await d.get(`/api/cases/${c.id}/phpt?comparison=x`);
	assert.equal(r.status, 400);
	// base crashed: nothing to expect.
	const crash = await d.runCase({ code: '$a = []; for ($i = 0; $i < 200000; $i++) { $a = [$a]; } return $a;' });
	r = await d.get(`/api/cases/${crash.id}/phpt`);
	assert.equal(r.status, 409);
	assert.match(errorOf(r).message, /^the base build's result is "crash"/);
	// The stored format, as cases/ holds it.
	r = await d.get(`/api/cases/${c.id}/casefile`);
	assert.equal(r.status, 200);
	assert.match(r.text, /^--TEST--\nslash and version\n--FLAGS--\nJSON_UNESCAPED_SLASHES\|JSON_PRETTY_PRINT\n--DEPTH--\n8\n--VALUE--\n\['p' => 'a\/b', 'v' => PHP_VERSION\]\n$/);
	assert.equal((await d.get('/api/cases/424242/phpt')).status, 404);
	assert.equal((await d.get(`/api/cases/${c.id}/other`)).status, 404);
	// GET /api/cases/{id}?comparison=
	r = await d.get(`/api/cases/${c.id}?comparison=${c.comparison_id}`);
	assert.equal(r.json.comparison_id, c.comparison_id);
	assert.equal((await d.get(`/api/cases/${c.id}?comparison=${s.comparison_id}`)).status, 404);
});

test('buckets for mismatches stored before buckets existed: made at startup, the same', async () => {
	const before = (await d.get('/api/buckets?limit=500')).json.buckets.map((x) => [x.key, x.mismatches]);
	await d.stopClean();
	sql(d.db, 'UPDATE comparisons SET bucket_id = NULL; DELETE FROM triage_events; DELETE FROM bucket_runs; DELETE FROM buckets;');
	d = await Daemon.start({ name: 'triage-backfill', db: d.db, cases: casesDir });
	assert.match(d.output, /put \d+ earlier mismatches in buckets/);
	const after = (await d.get('/api/buckets?limit=500')).json.buckets.map((x) => [x.key, x.mismatches]);
	const norm = (l) => l.map((x) => JSON.stringify(x)).sort();
	assert.deepEqual(norm(after), norm(before));
	for (const b of (await d.get('/api/buckets?limit=500')).json.buckets) assert.equal(b.state, 'new');
});

// One way to show a title that is not all UTF-8 (server/daemon/model/text.c): the
// bucket and its mismatches show it as the case does, valid UTF-8 as is and
// only the bad byte as \xNN (triage showed every byte >= 0x80 as \xNN).
test('a title with a bad byte reads the same in a bucket, its mismatches and the case', async () => {
	const dir = tmpDir('phpcmp-title-cases-');
	fs.writeFileSync(path.join(dir, 'title.phpt'), Buffer.concat([
		Buffer.from('--TEST--\nJos\u00e9 ', 'utf8'), Buffer.from([0xff]), Buffer.from(' M\u00fcller\n--VALUE--\nPHP_VERSION\n', 'utf8')]));
	const t = await Daemon.start({ name: 'triage-title', cases: dir });
	try {
		const r = await t.request('POST', '/api/runs', { body: { suite: 'stored' } });
		assert.equal(r.status, 202, r.text);
		for (const t0 = Date.now(); ;) {
			const g = await t.get(`/api/runs/${r.json.id}`);
			if (!['queued', 'running'].includes(g.json.status)) break;
			if (Date.now() - t0 > 60_000) throw new Error('run did not finish');
			await sleep(100);
		}
		const want = 'Jos\u00e9 \\xff M\u00fcller';
		const b = (await t.get('/api/buckets')).json.buckets;
		assert.equal(b.length, 1);
		const c = (await t.get(`/api/cases/${b[0].representative.case_id}`)).json;
		assert.equal(c.case.title, want, 'the case');
		assert.equal(b[0].representative.title, want, 'the bucket listing');
		assert.equal((await t.get(`/api/buckets/${b[0].id}`)).json.representative.title, want, 'the bucket');
		const m = (await t.get(`/api/buckets/${b[0].id}/mismatches`)).json.mismatches;
		assert.equal(m[0].title, want, 'its mismatches');
	} finally {
		await t.stopClean();
	}
});
