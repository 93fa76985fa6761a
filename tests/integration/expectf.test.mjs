// Issue 46: a stored case's --EXPECTF-- is checked the way --EXPECT-- is (a
// third oracle: a build whose output does not match is a mismatch against
// "expected"), with run-tests.php's placeholders, matched by the phpt
// runner's own code (phpt_expectf_match): %d %s %f %r...%r, trimmed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, runCli, tmpDir } from './helper.mjs';

const MATCH = '--TEST--\na pattern met\n--VALUE--\n[PHP_INT_SIZE, 0.5, "ab", PHP_MAJOR_VERSION . ".2"]\n--EXPECTF--\n[%d,%f,"%s","%d.%d"]\n';
const MISS = '--TEST--\na pattern missed\n--VALUE--\n[1, 2]\n--EXPECTF--\n[%d]\n';
const REGEX = '--TEST--\na %r regex %r\n--VALUE--\n"abc"\n--EXPECTF--\n"%ra+b?c%r"\n';
const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
let d, dir;

before(async () => {
	dir = tmpDir();
	fs.writeFileSync(path.join(dir, 'match.phpt'), MATCH);
	fs.writeFileSync(path.join(dir, 'miss.phpt'), MISS);
	fs.writeFileSync(path.join(dir, 'regex.phpt'), REGEX);
	d = await Daemon.start({ name: 'expectf', cases: dir });
});
after(async () => { await d?.stopClean(); });

test('a stored run: a met --EXPECTF-- is same, a missed one differs against "expected", bucketed per build', async () => {
	const run = await d.request('POST', '/api/runs?wait=60', { body: { suite: 'stored' } });
	assert.equal(run.status, 200, run.text);
	assert.deepEqual({ ...run.json.counts }, { same: 2, differ: 1 }, run.text);
	const cases = (await d.get(`/api/runs/${run.json.id}/cases`)).json.cases;
	const by = Object.fromEntries(cases.map((c) => [c.file, c]));
	assert.equal(by['match.phpt'].verdict, 'same');
	assert.equal(by['regex.phpt'].verdict, 'same');
	assert.equal(by['miss.phpt'].verdict, 'differ');
	assert.deepEqual(by['miss.phpt'].differs, ['expected']);
	const c = (await d.get(`/api/cases/${by['miss.phpt'].id}`)).json;
	assert.equal(c.case.expect, '[%d]');
	assert.equal(c.case.expectf, true);
	assert.deepEqual(c.expected, { verdict: 'differ', differ: ['base', 'head'] });
	const m = (await d.get(`/api/cases/${by['match.phpt'].id}`)).json;
	assert.deepEqual(m.expected, { verdict: 'same', differ: [] });
	const buckets = (await d.get(`/api/buckets?run=${run.json.id}`)).json.buckets;
	assert.deepEqual(buckets.map((b) => b.candidate).sort(), ['expected:base', 'expected:head']);
	// the stored-case export writes it back as --EXPECTF--
	const file = await d.get(`/api/cases/${by['miss.phpt'].id}/casefile`);
	assert.match(file.text, /^--EXPECTF--\n\[%d\]\n$/m, file.text);
});

test('POST /api/cases with "expectf": the same oracle; phpcmp submit of an --EXPECTF-- file', async () => {
	const met = await d.request('POST', '/api/cases?fail_on_differ=1', { body: { code: '[1, 2]', expect: '[%d,%d]', expectf: true } });
	assert.equal(met.status, 201, met.text);
	assert.deepEqual(met.json.expected, { verdict: 'same', differ: [] });
	assert.equal(met.json.case.expectf, true);
	const exact = await d.request('POST', '/api/cases?fail_on_differ=1', { body: { code: '[1, 2]', expect: '[%d,%d]' } });
	assert.equal(exact.status, 409, 'without expectf, %d is itself');
	assert.equal(exact.json.case.expectf, false);
	assert.notEqual(exact.json.id, met.json.id, 'an --EXPECT-- and an --EXPECTF-- of the same text are two cases');
	const bad = await d.request('POST', '/api/cases', { body: { code: '1', expectf: true } });
	assert.equal(bad.status, 400, bad.text);
	assert.match(bad.json.error.message, /^expectf: true needs expect/);
	const s = await runCli(['submit', '--url', d.url, path.join(dir, 'miss.phpt')]);
	assert.equal(s.code, 1, show(s));
	assert.match(s.stdout, /^differ \(expected\): a pattern missed$/m, show(s));
	const ok = await runCli(['submit', '--url', d.url, path.join(dir, 'match.phpt')]);
	assert.equal(ok.code, 0, show(ok));
});
