// Issue 9: big outputs do not blow up the daemon's memory or its database.
// 64 concurrent cases each returning str_repeat("\x01", 600,000) (3.6 MB
// of JSON on both builds, 18 MB per answer if written out whole): the
// daemon's peak resident memory (VmHWM) stays under a ceiling; answers
// carry outputs over 64 KiB as a link to the full bytes, which serve them
// exactly; the two builds' identical outputs are stored once.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { Daemon, INSTRUMENTED } from './helper.mjs';

const CEILING_MB = 160;
// The ceiling is the plain daemon's: under valgrind (make memcheck) or an
// ASan build (the sanitizer pass) the process's memory holds the tool's own
// shadow and quarantine, so the figure says nothing there.  The plain pass
// of `make test` asserts it; those passes check the rest of this file.
let d;
before(async () => { d = await Daemon.start({ name: 'big-outputs', timeoutMs: 30000 }); });
after(async () => { await d?.stopClean(); });

const status = (pid) => fs.readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)[1]);

test('64 concurrent large outputs: the daemon stays under its memory ceiling', {
	skip: INSTRUMENTED && 'the daemon runs under valgrind or ASan: its memory is the tool\'s too (asserted in the plain pass)',
}, async () => {
	const expect = JSON.stringify('\x01'.repeat(600_000));
	const rssBefore = kb(status(d.proc.pid), 'VmRSS');
	const answers = await Promise.all(Array.from({ length: 64 }, (_, i) =>
		d.request('POST', '/api/cases', { body: { code: `[str_repeat("\\x01", 600000), ${i}][0]` }, timeoutMs: 600_000 })));
	const st = status(d.proc.pid);
	const hwm = kb(st, 'VmHWM'), rss = kb(st, 'VmRSS');
	console.log(`# daemon memory: VmRSS before ${(rssBefore / 1024).toFixed(1)} MiB, peak (VmHWM) ${(hwm / 1024).toFixed(1)} MiB, after ${(rss / 1024).toFixed(1)} MiB; answers ${answers.map((a) => a.raw.length).reduce((a, b) => Math.max(a, b))} bytes at most`);
	for (const a of answers) {
		assert.equal(a.status, 201, a.text.slice(0, 200));
		assert.ok(a.raw.length < 1 << 20, `an answer of ${a.raw.length} bytes`);
		for (const b of ['base', 'head']) {
			const r = a.json.results[b];
			assert.equal(r.status, 'ok');
			assert.equal(r.output, null, 'not inlined');
			assert.deepEqual(r.omitted, ['output']);
			assert.equal(r.output_size, expect.length);
		}
	}
	assert.ok(hwm / 1024 < CEILING_MB, `peak ${(hwm / 1024).toFixed(1)} MiB, ceiling ${CEILING_MB} MiB`);
	// The link serves the bytes exactly.
	const one = answers[5].json.results.head;
	const full = await d.get(one.output_url);
	assert.equal(full.status, 200);
	assert.equal(full.raw.length, expect.length);
	assert.equal(crypto.createHash('md5').update(full.raw).digest('hex'), crypto.createHash('md5').update(expect).digest('hex'));
	assert.equal(one.output_md5, crypto.createHash('md5').update(expect).digest('hex'));
});

test('identical outputs of the two builds are stored once', async () => {
	// Counted in the stored rows, not in file sizes: when SQLite checkpoints
	// its WAL is timing, so the files' growth is not a measure.
	const ids = [];
	for (let i = 0; i < 8; i++) ids.push((await d.postCase({ code: `[str_repeat("a", 1000000), ${1000 + i}][0]` })).json.id);
	const q = (sql) => execFileSync('sqlite3', ['-readonly', d.db, sql], { encoding: 'utf8' }).trim();
	const inCases = `comparison_id IN (SELECT id FROM comparisons WHERE case_id IN (${ids.map(Number).join(',')}))`;
	const stored = Number(q(`SELECT coalesce(sum(length(output)), 0) FROM results WHERE ${inCases}`));
	const shared = Number(q(`SELECT count(*) FROM results WHERE output_same = 1 AND ${inCases}`));
	// 8 outputs of 1 MB on each build: 8 MB if stored once, 16 MB twice.
	assert.equal(shared, 8, 'one result per case points at the other build\'s output');
	assert.equal(stored, 8 * 1000002, `${stored} output bytes stored for 8 outputs of 1 MB on two builds`);
	const c = await d.postCase({ code: `[str_repeat("a", 1000000), 1003][0]` });
	for (const b of ['base', 'head']) {
		const full = await d.get(c.json.results[b].output_url);
		assert.equal(full.raw.length, 1000002, b);
	}
});

test('small outputs stay inline, nothing omitted', async () => {
	const c = await d.runCase({ code: 'str_repeat("b", 1000)' });
	for (const b of ['base', 'head']) {
		assert.equal(c.results[b].output, JSON.stringify('b'.repeat(1000)));
		assert.deepEqual(c.results[b].omitted, []);
	}
});
