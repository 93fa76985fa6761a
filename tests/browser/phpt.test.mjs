// A phpt run's page in headless Chromium (docs/phpt.md): base = 8.2.32,
// head = 8.2.36, twin = 8.2.32 again.  The tests are listed with a status
// column per build and each candidate's verdict; the filters (regressions,
// improvements, failures, skips) live in the URL; a row opens the test:
// every build's status, run-tests' .diff, the base's output beside the
// candidate's, its sections; a regression's bucket opens on the bucket page
// (its tests, its triage).  Screenshots: tests/artifacts/screenshots/phpt-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_VERSION, BUILDS, Daemon, HEAD_VERSION, ROOT } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';
import { runPhpt, servedDir, servedRoot } from '../integration/phpt-helper.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');

let d, browser, page, run;
const pageErrors = [];

async function shot(name) {
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const rowsShown = () => page.locator('[data-testid=phpt-row]').evaluateAll((rows) => rows.map((r) => r.dataset.test));

before(async () => {
	d = await Daemon.start({
		name: 'browser-phpt', timeoutMs: 2000,
		buildList: [['base', path.join(BUILDS, 'base')], ['head', path.join(BUILDS, 'head')], ['twin', path.join(BUILDS, 'base')]],
		phptDirs: [servedRoot()],
	});
	const dir = servedDir('phpcmp-browser-phpt-');
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	put('is-base.phpt', `--TEST--\nthe base version\n--FILE--\n<?php echo PHP_VERSION, "\\n<b>not markup</b>";\n--EXPECT--\n${BASE_VERSION}\n<b>not markup</b>\n`);
	put('is-head.phpt', `--TEST--\nthe head version\n--FILE--\n<?php echo PHP_VERSION;\n--EXPECT--\n${HEAD_VERSION}\n`);
	put('same.phpt', '--TEST--\nsame everywhere\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n');
	put('skip.phpt', '--TEST--\nskipped\n--SKIPIF--\n<?php die("skip not here");\n--FILE--\n<?php\n--EXPECT--\n');
	put('bork.phpt', '--TEST--\nno expectation\n--FILE--\n<?php echo 1;\n');
	run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1000));
	({ browser, page } = await openPage(pageErrors));
});

after(async () => {
	await browser?.close();
	await d?.stopClean();
});

test('the run page lists the tests: a status column per build, verdicts per candidate, no cases panel', async () => {
	await page.goto(`${d.url}/#/runs/${run.id}`);
	await page.locator('[data-testid=phpt-list]').waitFor();
	assert.deepEqual(await page.locator('[data-testid=phpt-list] thead th').allTextContents(), ['Test', 'Name', 'base', 'head', 'twin', 'Verdict']);
	assert.deepEqual(await rowsShown(), ['bork.phpt', 'is-base.phpt', 'is-head.phpt', 'same.phpt', 'skip.phpt']);
	const statuses = (t) => page.locator(`[data-testid=phpt-row][data-test="${t}"] [data-testid=phpt-status]`).evaluateAll((b) => b.map((x) => x.dataset.status));
	assert.deepEqual(await statuses('is-base.phpt'), ['PASS', 'FAIL', 'PASS']);
	assert.deepEqual(await statuses('is-head.phpt'), ['FAIL', 'PASS', 'FAIL']);
	assert.deepEqual(await statuses('bork.phpt'), ['BORK', 'BORK', 'BORK']);
	assert.equal(await page.locator('[data-testid=phpt-row][data-test="is-base.phpt"] [data-testid=phpt-verdict]').textContent(), 'regression · head');
	assert.equal(await page.locator('[data-testid=phpt-build][data-role=head] [data-testid=phpt-regressions]').textContent(), '1 regression: is-base.phpt');
	assert.equal(await page.locator('[data-testid=phpt-build][data-role=cand2] [data-testid=phpt-regressions]').textContent(), 'no regression');
	assert.equal(await page.locator('#h-run-cases').isVisible(), false, 'a phpt run has no cases panel');
	// the regressions and improvement are buckets on the same page
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	assert.equal(await page.locator('[data-testid=bucket-row]').count(), 2);
	assert.match(await page.locator('[data-testid=bucket-row] [data-testid=key-summary][data-suite=phpt]').first().textContent(), /^phpt (is-base|is-head)\.phpt on head (PASS → FAIL|FAIL → PASS)$/);
	assert.deepEqual((await page.locator('[data-testid=bucket-row] [data-testid=phpt-rep]').allTextContents()).sort(), ['is-base.phpt', 'is-head.phpt']);
	await shot('phpt-run');
	assert.deepEqual(pageErrors, []);
});

test('filters in the URL: regressions, failures, skips; a link to a filter opens it', async () => {
	await page.goto(`${d.url}/#/runs/${run.id}`);
	await page.locator('[data-testid=phpt-list]').waitFor();
	assert.match(await page.locator('[data-testid=filter-phpt-regressions]').textContent(), /regressions 1/);
	await page.click('[data-testid=filter-phpt-regressions]');
	await page.locator('[data-testid=phpt-list][data-filter=regressions]').waitFor();
	assert.match(page.url(), /[?&]phpt=regressions/);
	assert.deepEqual(await rowsShown(), ['is-base.phpt']);
	await page.click('[data-testid=filter-phpt-failures]');
	await page.locator('[data-testid=phpt-list][data-filter=failures]').waitFor();
	assert.deepEqual(await rowsShown(), ['bork.phpt', 'is-base.phpt', 'is-head.phpt']);
	await page.click('[data-testid=filter-phpt-improvements]');
	await page.locator('[data-testid=phpt-list][data-filter=improvements]').waitFor();
	assert.deepEqual(await rowsShown(), ['is-head.phpt']);
	// a permalink: a fresh page opens on the filter
	await page.goto('about:blank');
	await page.goto(`${d.url}/#/runs/${run.id}?phpt=skips`);
	await page.locator('[data-testid=phpt-list][data-filter=skips]').waitFor();
	assert.deepEqual(await rowsShown(), ['skip.phpt']);
	assert.equal(await page.locator('[data-testid=filter-phpt-skips]').getAttribute('aria-current'), 'true');
	await page.click('[data-testid=filter-phpt-all]');
	await page.locator('[data-testid=phpt-list][data-filter=""]').waitFor();
	assert.equal((await rowsShown()).length, 5);
	assert.deepEqual(pageErrors, []);
});

test('a row opens the test: statuses, .diff, base vs candidate output, sections; its bucket opens', async () => {
	await page.goto(`${d.url}/#/runs/${run.id}?phpt=regressions`);
	await page.locator('[data-testid=phpt-row][data-test="is-base.phpt"] [data-testid=phpt-open]').click();
	await page.locator('[data-testid=phpt-detail][data-test="is-base.phpt"]').waitFor();
	assert.match(page.url(), /test=is-base\.phpt/);
	assert.match(page.url(), /phpt=regressions/, 'the filter stays');
	assert.equal(await page.locator('[data-testid=phpt-row].current').getAttribute('data-test'), 'is-base.phpt');
	const builds = await page.locator('[data-testid=phpt-detail-build]').evaluateAll((r) => r.map((x) => x.dataset.role));
	assert.deepEqual(builds, ['base', 'head', 'cand2']);
	assert.equal(await page.locator('[data-testid=phpt-diff]').textContent(), `001+ ${HEAD_VERSION}\n001- ${BASE_VERSION}\n     <b>not markup</b>`);
	assert.equal(await page.locator('[data-testid=phpt-outputs][data-role=head] [data-testid=phpt-output-base]').textContent(), `${BASE_VERSION}\n<b>not markup</b>`);
	assert.equal(await page.locator('[data-testid=phpt-outputs][data-role=head] [data-testid=phpt-output-cand]').textContent(), `${HEAD_VERSION}\n<b>not markup</b>`);
	assert.equal(await page.locator('[data-testid=phpt-detail] b').count(), 0, 'printed text is text, never markup');
	assert.equal(await page.locator('[data-testid=phpt-outputs]').count(), 1, 'the twin printed what the base printed');
	assert.deepEqual(await page.locator('[data-testid=phpt-sections] [data-section]').evaluateAll((s) => s.map((x) => x.dataset.section)), ['TEST', 'EXPECT', 'FILE']);
	await shot('phpt-test');
	// its bucket: the bucket page with the test and the triage form
	await page.click('[data-testid=phpt-bucket]');
	await page.locator('[data-testid=bucket-phpt-tests]').waitFor();
	assert.match(await page.locator('[data-testid=bucket-key]').textContent(), /is-base\.phpt.*head.*PASS on the base → FAIL on the candidate/);
	assert.equal(await page.locator('[data-testid=bucket-phpt-test]').count(), 1);
	await page.locator('[data-testid=triage-form]').waitFor();
	await page.locator('[data-testid=me-name]').first().fill('alice');
	await page.check('[data-testid=triage-state-confirmed]');
	await page.fill('[data-testid=triage-notes]', 'head is 8.2.36');
	await page.click('[data-testid=triage-save]');
	await page.locator('[data-testid=audit-entry][data-by=alice]').first().waitFor();
	const bucketId = Number(page.url().match(/buckets\/(\d+)/)[1]);
	const b = await d.get(`/api/buckets/${bucketId}`);
	assert.equal(b.json.state, 'confirmed');
	assert.equal(b.json.notes, 'head is 8.2.36');
	await shot('phpt-bucket');
	// back to the run, on the test
	await page.locator('[data-testid=bucket-phpt-test] a[href*="test="]').click();
	await page.locator('[data-testid=phpt-detail][data-test="is-base.phpt"]').waitFor();
	await page.click('[data-testid=phpt-close]');
	await page.locator('[data-testid=phpt-detail]').waitFor({ state: 'detached' });
	assert.doesNotMatch(page.url(), /test=/);
	assert.deepEqual(pageErrors, []);
});
