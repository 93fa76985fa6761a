// Issue 46: report.md of a stored or generated run reports its verdicts
// (counts, broken cases, mismatches against --EXPECT--), its root causes
// with their minimal cases and its buckets, as `phpcmp review`'s report
// does — not an empty instruction table.  On the default builds with head's
// serialize_precision=17 (README, "A difference to triage"), so 0.1 is a
// real difference with a root the reducer reduces.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CASES = {
	'float.phpt': '--TEST--\na float in a list\n--VALUE--\n[1, 0.1, "a"]\n',
	'same.phpt': '--TEST--\nan array\n--VALUE--\n[1, 2]\n--EXPECT--\n[1,2]\n',
	'wrong.phpt': '--TEST--\nan expectation that is wrong\n--VALUE--\n[1, 2]\n--EXPECT--\n[1,3]\n',
	'exit.phpt': '--TEST--\ncalls exit\n--VALUE--\nexit(3)\n',
};
let d, run;

async function settled(id) {
	for (const deadline = Date.now() + 120_000; ; await sleep(300)) {
		const roots = (await d.get(`/api/roots?run=${id}`)).json;
		if (roots.reduction.buckets_pending === 0 && roots.reduction.reducer.busy_bucket_id === null) return roots;
		assert.ok(Date.now() < deadline, 'reduced within 2 minutes');
	}
}

before(async () => {
	const dir = tmpDir();
	for (const [name, text] of Object.entries(CASES)) fs.writeFileSync(path.join(dir, name), text);
	d = await Daemon.start({ name: 'run-report', reduce: true, cases: dir,
		extraArgs: ['--ini', 'head:serialize_precision=17'] });
	const r = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' }, timeoutMs: 130_000 });
	assert.equal(r.status, 200, r.text);
	run = r.json;
});
after(async () => { await d?.stopClean(); });

test('a stored run\'s report.md: its verdicts, broken and expected counts, its root and minimal case, its buckets', async () => {
	assert.equal(run.status, 'done');
	assert.deepEqual({ ...run.counts }, { same: 2, differ: 2, broken: 1 }, JSON.stringify(run.counts));
	const roots = await settled(run.id);
	const root = roots.roots.find((x) => x.minimal?.state === 'done' && x.candidate === 'head');
	assert.ok(root, JSON.stringify(roots));
	const r = await d.get(`/api/runs/${run.id}/report.md`);
	assert.equal(r.status, 200, r.text);
	assert.match(r.headers['content-type'], /^text\/markdown/);
	const md = r.text;
	assert.doesNotMatch(md, /regression|instructions per/, md);
	assert.match(md, new RegExp(`^### phpcmp run ${run.id} \\(stored\\): \\*\\*2 differ\\*\\* of 4 cases$`, 'm'), md);
	assert.match(md, /^\| same \| 2 \|$/m, md);
	assert.match(md, /^\| differ \| \*\*2\*\* \|$/m, md);
	assert.match(md, /^\| same, but no build ran to its end \(broken[^|]*\| \*\*1\*\* \|$/m, md);
	// [1,3] expected: both builds give [1,2], so each is a mismatch against it
	assert.match(md, /^Against the expectation \(`--EXPECT--`, `--EXPECTF--`\), cases whose output is not it: `base` \*\*1\*\*, `head` \*\*1\*\*\.$/m, md);
	// the head root's minimal case, as PHP, and each build's output of it
	assert.match(md, /^#### Root causes: \d+$/m, md);
	const code = root.minimal.code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	assert.match(md, new RegExp('```php\\njson_encode\\(' + code + '\\);\\n```'), md);
	assert.match(md, /^\| `head` \| `[^`]*0\.1000000000000000[0-9]*[^`]*` \| 0 \|$/m, md);
	assert.match(md, /^\| `base` \| `[^`]*0\.1[^0-9][^`]*` \| 0 \|$/m, md);
	assert.match(md, new RegExp(`^##### Root cause \\d+, on \`head\`: \\d+ mismatch(es)? in \\d+ buckets? \\(#${root.bucket_id}`, 'm'), md);
	// the buckets: the float's, and the expectation's on each build
	assert.match(md, /^#### Buckets: 3$/m, md);
	// head inserts digits after 0.1: nothing on the base, digits (class 0) on head, as the page says it
	assert.match(md, new RegExp(`^\\| #${root.bucket_id} \\| \\d+ \\| \`head\` \\| output ∅ → \`0\`( · [^|]*)? \\| new \\| 1 \\| #\\d+ a float in a list \\|$`, 'm'), md);
	assert.match(md, /^\| #\d+ \| \d+ \| `base` vs `--EXPECT--` \| .* \| 1 \| #\d+ an expectation that is wrong \|$/m, md);
	assert.match(md, /^Not reduced: a mismatch against the case's expectation has no other build to reduce against/m, md);
});

test('a generated run\'s report.md names its counts and roots; a measure run keeps its instruction table', async () => {
	const g = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'generated', seed: 1, count: 2000 }, timeoutMs: 130_000 });
	assert.equal(g.status, 200, g.text);
	await settled(g.json.id);
	const md = (await d.get(`/api/runs/${g.json.id}/report.md`)).text;
	assert.match(md, new RegExp(`^### phpcmp run ${g.json.id} \\(generated\\): `, 'm'), md);
	assert.match(md, new RegExp(`^\\| differ \\| (\\*\\*)?${g.json.counts.differ}(\\*\\*)? \\|$`, 'm'), md);
	assert.match(md, /^#### Root causes: \d+$/m, md);
	// it keeps a sample of each kind in full, and says so
	assert.match(md, new RegExp(`^${g.json.counts.differ} mismatches in this run; \\d+ of them stored in full`, 'm'), md);
	const m = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'measure' }, timeoutMs: 130_000 });
	assert.ok(m.status === 200 || m.status === 202, m.text);
	const mmd = (await d.get(`/api/runs/${m.json.id}/report.md`)).text;
	assert.match(mmd, /instructions per `json_encode\(\)` call/, mmd);
	assert.doesNotMatch(mmd, /Root causes/, mmd);
});
