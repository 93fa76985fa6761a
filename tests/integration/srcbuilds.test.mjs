// From-source builds (scripts/build-php.sh, docs/builds.md): the real daemon
// with base = libphp 8.2.32 built from Debian's pristine tarball and head =
// the same source plus one fixture patch of tests/fixtures/patches/.  The
// builds are made by `make src-builds` (which `make test` runs first); this
// file fails, not skips, when they are missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Daemon, sha256File, srcBuild, srcBuildInfo } from './helper.mjs';

const BASE = 'src-8.2.32';
const cand = (patch) => `${BASE}-${patch}`;



const daemons = [];
after(async () => {
	for (const d of daemons) await d.stopClean();
});

// One daemon per candidate: base = the from-source 8.2.32, head = the
// candidate; started on first use, kept for the file's other tests.
const byPatch = new Map();
async function daemonFor(patch) {
	if (!byPatch.has(patch)) {
		const d = await Daemon.start({
			name: `srcbuilds-${patch}`,
			builds: { base: srcBuild(BASE), head: srcBuild(cand(patch)) },
		});
		daemons.push(d);
		byPatch.set(patch, d);
	}
	return byPatch.get(patch);
}

test('the from-source builds are what they say: 8.2.32 release, the patch applied, own libraries', () => {
	const base = srcBuildInfo(BASE);
	assert.equal(base.flavour, 'release');
	assert.deepEqual(base.patch, []);
	assert.equal(base.source_sha256, 'e02aa173c236c12791696254d607da680e6d5516f8f5c2339642de7c4f944bd2');
	for (const p of ['keys-fastpath', 'escape-del', 'error-not-set', 'crash-byte', 'flag-ignored']) {
		const c = srcBuildInfo(cand(p));
		assert.deepEqual(c.patch, [`${p}.patch`], `${p}: patch list`);
		assert.equal(c.source_sha256, base.source_sha256, `${p}: same source`);
		assert.notEqual(sha256File(path.join(srcBuild(cand(p)), 'lib/libphp.so')),
			sha256File(path.join(srcBuild(BASE), 'lib/libphp.so')), `${p}: its own library`);
	}
});

test('health: both from-source builds, 8.2.32, their make-install prefixes', async () => {
	const d = await daemonFor('escape-del');
	const h = d.health;
	assert.deepEqual(h.builds.map((b) => b.name), ['base', 'head']);
	for (const b of h.builds) {
		assert.equal(b.php_version, '8.2.32', `${b.name} php_version`);
		assert.match(b.library, /lib\/libphp\.so$/);
	}
	assert.equal(h.builds[0].sha256, sha256File(path.join(srcBuild(BASE), 'lib/libphp.so')));
	assert.equal(h.builds[1].sha256, sha256File(path.join(srcBuild(cand('escape-del')), 'lib/libphp.so')));
});

test('escape-del: DEL escaped as \\u007f by the candidate -> differ in output only', async () => {
	const d = await daemonFor('escape-del');
	const res = await d.runCase({ code: '"a\\x7fb"' });
	assert.equal(res.verdict, 'differ');
	assert.deepEqual(res.differs, ['output']);
	assert.equal(res.results.base.output, '"a\x7fb"');
	assert.equal(res.results.head.output, '"a\\u007fb"');
	assert.equal(res.results.base.error_code, 0);
	assert.equal(res.results.head.error_code, 0);
	// Away from the bug both agree.
	const ok = await d.runCase({ code: '["a" => "b\\n", "c" => [1.5, null]]' });
	assert.equal(ok.verdict, 'same', JSON.stringify(ok.results));
});

test('error-not-set: INF gives "0" and no error on the candidate -> differ in output, error code and message', async () => {
	const d = await daemonFor('error-not-set');
	const res = await d.runCase({ code: '[INF]' });
	assert.equal(res.verdict, 'differ');
	assert.deepEqual(res.differs, ['output', 'error_code', 'error_msg']);
	assert.equal(res.results.base.output, false);
	assert.equal(res.results.base.error_code, 7); // JSON_ERROR_INF_OR_NAN
	assert.equal(res.results.head.output, '[0]');
	assert.equal(res.results.head.error_code, 0);
	// NAN still sets the error on both.
	const nan = await d.runCase({ code: '[NAN]' });
	assert.equal(nan.verdict, 'same');
	assert.equal(nan.results.head.error_code, 7);
});

test('flag-ignored: JSON_PRESERVE_ZERO_FRACTION lost inside lists only', async () => {
	const d = await daemonFor('flag-ignored');
	const res = await d.runCase({ code: '[1.0, 2.5]', flags: 'JSON_PRESERVE_ZERO_FRACTION' });
	assert.equal(res.verdict, 'differ');
	assert.deepEqual(res.differs, ['output']);
	assert.equal(res.results.base.output, '[1.0,2.5]');
	assert.equal(res.results.head.output, '[1,2.5]');
	for (const code of ['1.0', '["a" => 1.0]']) {
		const same = await d.runCase({ code, flags: 'JSON_PRESERVE_ZERO_FRACTION' });
		assert.equal(same.verdict, 'same', `${code}: ${JSON.stringify(same.results)}`);
	}
});

test('crash-byte: byte 0x1e in a string kills the candidate\'s worker -> differ in status, then it recovers', async () => {
	const d = await daemonFor('crash-byte');
	const res = await d.runCase({ code: '"record\\x1eseparator"' });
	assert.equal(res.verdict, 'differ');
	assert.ok(res.differs.includes('status'), JSON.stringify(res.differs));
	assert.equal(res.results.base.status, 'ok');
	assert.equal(res.results.base.output, '"record\\u001eseparator"');
	assert.equal(res.results.head.status, 'crash');
	assert.equal(res.results.head.signal, 11);
	const after = await d.runCase({ code: '"\\x1f"' });
	assert.equal(after.verdict, 'same', JSON.stringify(after.results));
	assert.equal(after.results.head.output, '"\\u001f"');
});

test('keys-fastpath (a correct candidate): the same results on keys and values of every kind', async () => {
	const d = await daemonFor('keys-fastpath');
	const cases = [
		{ code: '["a" => 1, "b" => 2, "c" => [ "d" => "e" ]]' },
		{ code: '["a/b" => "c/d", "<x>" => "&\'", "q\\"uote" => 1, "back\\\\slash" => 2]' },
		{ code: '["a/b" => 1, "<&\'>" => 2]', flags: 'JSON_UNESCAPED_SLASHES|JSON_HEX_TAG|JSON_HEX_AMP|JSON_HEX_APOS' },
		{ code: '["\\x7f" => 1, "\\x1f" => 2, "" => 3, "é" => 4, "\\u{2028}" => 5]', flags: 'JSON_UNESCAPED_UNICODE' },
		{ code: '["\\xff" => 1]' },
		{ code: '["\\xff" => 1]', flags: 'JSON_INVALID_UTF8_SUBSTITUTE|JSON_PARTIAL_OUTPUT_ON_ERROR' },
		{ code: '["123" => 1, "1.5" => 2]', flags: 'JSON_NUMERIC_CHECK|JSON_FORCE_OBJECT' },
		{ setup: 'class P { public $plain = 1; public $with_slash_value = "a/b"; protected $hidden = 2; }', code: 'new P' },
		{ code: '(object) ["x y" => 1, "z" => ["k" => true]]', flags: 'JSON_PRETTY_PRINT' },
	];
	for (const c of cases) {
		const res = await d.runCase(c);
		assert.equal(res.verdict, 'same', `${JSON.stringify(c)}: ${JSON.stringify(res.results)}`);
	}
});

test('keys-fastpath-wrong (a wrong candidate): a "/" in a key is not escaped -> differ in output', async () => {
	const d = await daemonFor('keys-fastpath-wrong');
	const res = await d.runCase({ code: '["a/b" => "c/d"]' });
	assert.equal(res.verdict, 'differ');
	assert.deepEqual(res.differs, ['output']);
	assert.equal(res.results.base.output, '{"a\\/b":"c\\/d"}');
	assert.equal(res.results.head.output, '{"a/b":"c\\/d"}');
	const same = await d.runCase({ code: '["a/b" => 1]', flags: 'JSON_UNESCAPED_SLASHES' });
	assert.equal(same.verdict, 'same');
});

// The phpt suite on the from-source builds (docs/phpt.md): base 8.2.32 and
// three planted bugs at once.  error-not-set breaks php-src's own
// inf_nan_error.phpt (INF encodes as 0 with no error), flag-ignored its
// bug50224.phpt (JSON_PRESERVE_ZERO_FRACTION lost in lists): a regression
// on that candidate only, each in a bucket of its own, with run-tests' .diff.
// escape-del (DEL escaped) is caught by no test of ext/json/tests: none
// encodes a 0x7f byte, so every test agrees there.
test('phpt suite: ext/json/tests on base + escape-del + error-not-set + flag-ignored: inf_nan_error.phpt and bug50224.phpt regress, bucketed', async () => {
	const { jsonTestsDir, runPhpt } = await import('./phpt-helper.mjs');
	const d = await Daemon.start({
		name: 'srcbuilds-phpt',
		buildList: [[BASE, srcBuild(BASE)], ['escape-del', srcBuild(cand('escape-del'))], ['error-not-set', srcBuild(cand('error-not-set'))],
			['flag-ignored', srcBuild(cand('flag-ignored'))]],
		phptDirs: [jsonTestsDir()],
	});
	daemons.push(d);
	const run = await runPhpt(d, { dir: jsonTestsDir() });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.equal(run.total, 76);
	assert.deepEqual(run.summary.counts.base.PASS, 74);
	assert.deepEqual(run.summary.counts.head.PASS, 74);
	assert.deepEqual(run.summary.counts.cand2.PASS, 73);
	assert.deepEqual(run.summary.counts.cand2.FAIL, 1);
	assert.deepEqual(run.summary.candidates.head, { name: 'escape-del', regressions: [], improvements: [], same: 76, differ: 0 });
	assert.deepEqual(run.summary.candidates.cand2, { name: 'error-not-set', regressions: ['inf_nan_error.phpt'], improvements: [], same: 75, differ: 0 });
	assert.deepEqual(run.summary.candidates.cand3, { name: 'flag-ignored', regressions: ['bug50224.phpt'], improvements: [], same: 75, differ: 0 });
	assert.deepEqual(run.summary.regressions, ['bug50224.phpt', 'inf_nan_error.phpt']);
	const t = run.summary.tests.find((x) => x.test === 'inf_nan_error.phpt');
	assert.deepEqual([t.base.status, t.head.status, t.cand2.status, t.cand3.status], ['PASS', 'PASS', 'FAIL', 'PASS']);
	// run-tests' .diff: INF encoded as "0" with no error, where 8.2.32 gives false and error 7
	assert.match(t.cand2.diff, /^002\+ string\(1\) "0"\n003\+ int\(0\)\n004\+ string\(8\) "No error"\n/);
	assert.match(t.cand2.diff, /\n002- bool\(false\)\n003- int\(7\)\n004- string\(34\) "Inf and NaN cannot be JSON encoded"\n/);
	const z = run.summary.tests.find((x) => x.test === 'bug50224.phpt');
	assert.deepEqual([z.base.status, z.head.status, z.cand2.status, z.cand3.status], ['PASS', 'PASS', 'PASS', 'FAIL']);
	assert.match(z.cand3.output, /"\[12,12,12\.3\]"/, z.cand3.output);  // 12.0 in a list came out as 12
	// their buckets: the candidate, the test, PASS -> FAIL
	const b = await d.get(`/api/buckets?run=${run.id}`);
	assert.equal(b.status, 200, b.text);
	const keys = b.json.buckets.map((x) => x.key).sort((p, q) => (p.test < q.test ? -1 : 1));
	assert.deepEqual(keys, [
		{ candidate: 'flag-ignored', status: ['PASS', 'FAIL'], suite: 'phpt', test: 'bug50224.phpt', v: 1 },
		{ candidate: 'error-not-set', status: ['PASS', 'FAIL'], suite: 'phpt', test: 'inf_nan_error.phpt', v: 1 }]);
	assert.equal(b.json.buckets.find((x) => x.key.test === 'inf_nan_error.phpt').id, t.cand2.bucket_id);
	assert.equal(b.json.buckets.find((x) => x.key.test === 'bug50224.phpt').id, z.cand3.bucket_id);
	const md = await d.get(`/api/runs/${run.id}/report.md`);
	assert.match(md.text, /ext\/json\/tests: 76 — src-8\.2\.32 74 passed, 2 skipped; escape-del 74 passed, 2 skipped; error-not-set 73 passed, \*\*1 failed\*\* \(inf_nan_error\.phpt\), 2 skipped; flag-ignored 73 passed, \*\*1 failed\*\* \(bug50224\.phpt\), 2 skipped/);
});
