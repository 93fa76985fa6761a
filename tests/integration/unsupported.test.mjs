// Unsupported (issue 45, part 2): a case that compiles on one build and not
// on another is `unsupported` on the other -- a verdict of its own, not
// differ, not same -- and a stored case's --MIN_PHP-- newer than a build's
// PHP is unsupported there without running.  Only 8.2 builds exist here, so
// the compile difference is an honest one between two 8.2.32 builds: the
// from-source build (--disable-all: no libxml) lets a case declare
// libxml_use_internal_errors(); Debian's (libxml built in) refuses to
// redeclare it ("Cannot redeclare"), a compile error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, runCli, srcBuild, tmpDir } from './helper.mjs';

const cases = tmpDir('phpcmp-unsupported-');
const files = {
	'010-same.phpt': '--TEST--\na list\n--VALUE--\n[1, 2, 3]\n',
	'020-future.phpt': '--TEST--\nfor PHP 9 only\n--MIN_PHP--\n9.0\n--VALUE--\n[1]\n',
	'030-now.phpt': '--TEST--\nfor 8.2 and newer\n--MIN_PHP--\n8.2\n--VALUE--\n[2]\n',
};
for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(cases, name), text);

const REDECLARE = {
	setup: "function libxml_use_internal_errors($x = null) { return 'mine'; }",
	code: 'libxml_use_internal_errors()',
};

let d;
before(async () => {
	d = await Daemon.start({
		name: 'unsupported',
		cases,
		builds: { base: srcBuild('src-8.2.32'), head: path.join(BUILDS, 'head') },
	});
});
after(async () => { await d?.stopClean(); });

test('a case that compiles on one build only: unsupported on the other, in the API', async () => {
	const r = await d.postCase(REDECLARE);
	assert.equal(r.status, 201, r.text);
	assert.equal(r.json.verdict, 'unsupported', r.text);
	assert.deepEqual(r.json.differs, []);
	assert.equal(r.json.case_error, null);
	assert.equal(r.json.results.base.output, '"mine"');
	assert.equal(r.json.results.base.unsupported, null);
	assert.match(r.json.results.head.unsupported, /^does not compile: Cannot redeclare libxml_use_internal_errors\(\)/);
	assert.equal(r.json.results.head.status, 'error');
	const cand = Object.values(r.json.candidates);
	assert.deepEqual(cand.map((c) => c.verdict), ['unsupported']);
	// Read back: the same verdict and reason.
	const g = await d.get(`/api/cases/${r.json.id}`);
	assert.equal(g.json.verdict, 'unsupported');
	assert.match(g.json.results.head.unsupported, /^does not compile: Cannot redeclare/);
});

test('a case that compiles nowhere is still a case error (422); min_php in POST /api/cases', async () => {
	const r = await d.postCase({ code: '[1,' });
	assert.equal(r.status, 422, r.text);
	for (const bad of ['eight', '8', '8.1.2.3', '8.x', 81]) {
		const b = await d.postCase({ code: '1', min_php: bad });
		assert.equal(b.status, 400, `${bad}: ${b.text}`);
		assert.match(b.json.error.message, /^min_php: expected a PHP version/);
	}
	const f = await d.postCase({ code: '[5]', min_php: '8.3' });
	assert.equal(f.status, 201, f.text);
	assert.equal(f.json.verdict, 'unsupported');
	assert.equal(f.json.results.base.unsupported, `needs PHP 8.3 or newer (--MIN_PHP--); this build is PHP ${f.json.results.base.php_version}`);
	const now = await d.postCase({ code: '[6]', min_php: '8.2.0' });
	assert.equal(now.json.verdict, 'same', now.text);
});

test('phpcmp submit: the summary line and the counts say unsupported; --MIN_PHP-- reaches the daemon', async () => {
	const dir = tmpDir('phpcmp-unsupported-submit-');
	fs.writeFileSync(path.join(dir, 'a-redeclare.phpt'),
		`--TEST--\nredeclare\n--SETUP--\n${REDECLARE.setup}\n--VALUE--\n${REDECLARE.code}\n`);
	fs.writeFileSync(path.join(dir, 'b-future.phpt'), '--TEST--\nfuture\n--MIN_PHP--\n9.0\n--VALUE--\n[3]\n');
	fs.writeFileSync(path.join(dir, 'c-same.phpt'), '--TEST--\nsame\n--VALUE--\n[4]\n');
	const out = await runCli(['submit', '--url', d.url, dir]);
	assert.equal(out.code, 0, out.stdout + out.stderr);
	assert.match(out.stdout, /^unsupported: redeclare$/m, out.stdout);
	assert.match(out.stdout, /^unsupported: future$/m, out.stdout);
	assert.match(out.stdout, /\[unsupported: needs PHP 9\.0 or newer/, out.stdout);
	assert.match(out.stdout, /^3 cases: 1 same, 0 differ, 2 unsupported, 0 errors$/m, out.stdout);
});

test('a stored run: --MIN_PHP-- above every build is unsupported on both without running; counted; listed', async () => {
	const r = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' } });
	assert.equal(r.status, 200, r.text);
	const run = r.json;
	assert.equal(run.status, 'done', r.text);
	assert.deepEqual(run.counts, { same: 2, differ: 0, unsupported: 1 });
	const listed = await d.listAll(`/api/runs/${run.id}/cases?verdict=unsupported`);
	assert.deepEqual(listed.map((c) => c.file), ['020-future.phpt']);
	const c = await d.get(`/api/cases/${listed[0].id}`);
	assert.equal(c.json.verdict, 'unsupported');
	for (const role of ['base', 'head']) {
		assert.match(c.json.results[role].unsupported, /^needs PHP 9\.0 or newer \(--MIN_PHP--\); this build is PHP 8\.2\.\d+$/);
		assert.equal(c.json.results[role].output, false);
	}
	const same = await d.listAll(`/api/runs/${run.id}/cases?verdict=same`);
	assert.deepEqual(same.map((x) => x.file).sort(), ['010-same.phpt', '030-now.phpt']);
});
