// The page with a base and several candidates (issue 11), in headless
// Chromium: base = 8.2.32, head = 8.2.36, twin = 8.2.32 with
// serialize_precision=17 (a difference only it has).  A case page shows a
// column per build and each candidate's verdict; with four builds it shows
// the base and one candidate with a switch between them (?vs=ROLE), never a
// sideways scroll; the counts page is the reviewer's table: the base's
// figure and a Δ % column per candidate, with counts per candidate.
// Screenshots: tests/artifacts/screenshots/candidates-*.png (docs/review.md).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, ROOT, tmpDir } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
const BASE = path.join(BUILDS, 'base'), HEAD = path.join(BUILDS, 'head');
const WORKLOADS = ['01-jsonobj.phpt', '10-a-slash-b.phpt'];

let d, four, browser, page, casesDir;
const pageErrors = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function shot(name) {
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function waitRun(daemon, id, deadlineMs = 600_000) {
	const t0 = Date.now();
	for (;;) {
		const r = await daemon.get(`/api/runs/${id}`);
		if (!['queued', 'running'].includes(r.json.status)) return r.json;
		if (Date.now() - t0 > deadlineMs) throw new Error(`run ${id} still ${r.json.status}`);
		await sleep(200);
	}
}

before(async () => {
	casesDir = tmpDir('phpcmp-browser-cand-');
	fs.mkdirSync(path.join(casesDir, 'workloads'));
	for (const w of WORKLOADS) fs.copyFileSync(path.join(ROOT, 'cases/workloads', w), path.join(casesDir, 'workloads', w));
	d = await Daemon.start({
		name: 'browser-candidates', cases: casesDir,
		buildList: [['base', BASE], ['head', HEAD], ['twin', BASE]],
		extraArgs: ['--ini', 'twin:serialize_precision=17'],
	});
	({ browser, page } = await openPage(pageErrors));
});

after(async () => {
	await browser?.close();
	await four?.stopClean();
	await d?.stopClean();
	if (casesDir) fs.rmSync(casesDir, { recursive: true, force: true });
});

const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

test('a case on three builds: a column each, each candidate\'s verdict', async () => {
	const v = (await d.postCase({ code: '[PHP_VERSION, 0.1]', title: 'version and a float' })).json;
	await page.goto(`${d.url}/#/cases/${v.id}`);
	await page.locator('[data-testid=result-cand2]').waitFor();
	assert.equal(await page.locator('[data-testid=results] > section.result').count(), 3);
	assert.equal(await page.locator('[data-testid=candidate-head]').getAttribute('data-verdict'), 'differ');
	assert.equal(await page.locator('[data-testid=candidate-twin]').getAttribute('data-verdict'), 'differ');
	assert.match(await page.locator('[data-testid=output-cand2]').textContent(), /0\.10000000000000001/);
	assert.ok(await noSidewaysScroll(), 'three columns fit');
	await shot('candidates-case');

	const s = (await d.postCase({ code: 'PHP_VERSION', title: 'the version' })).json;
	await page.goto(`${d.url}/#/cases/${s.id}`);
	await page.locator('[data-testid=candidate-twin]').waitFor();
	assert.equal(await page.locator('[data-testid=candidate-twin]').getAttribute('data-verdict'), 'same');
	// The twin's column is not flagged where only the head differs.
	assert.equal(await page.locator('[data-testid=result-cand2] .cell-output.differs').count(), 0);
	assert.equal(await page.locator('[data-testid=result-head] .cell-output.differs').count(), 1);
	assert.deepEqual(pageErrors, []);
});

test('the counts page with three builds: the base\'s figure and a Δ % column per candidate', async () => {
	const post = await d.request('POST', '/api/runs', { body: { suite: 'measure' } });
	assert.equal(post.status, 202, post.text);
	const run = await waitRun(d, post.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	await page.goto(`${d.url}/#/runs/${run.id}/counts?show=all`);
	await page.locator('[data-testid=counts-table][data-shape=candidates]').waitFor();
	const heads = await page.locator('[data-testid=counts-table] thead th').allTextContents();
	assert.match(heads[1], /^base \(instructions\)/);
	assert.match(heads[2], /^head Δ %/);
	assert.match(heads[3], /^twin Δ %/);
	assert.equal(await page.locator('[data-testid=counts-row]').count(), WORKLOADS.length);
	for (const n of ['head', 'twin'])
		for (const t of await page.locator(`[data-testid=delta][data-candidate=${n}]`).allTextContents())
			assert.match(t, /^[±+−]\d+\.\d$/, `${n}: a signed percentage`);
	// 'a/b' holds no float: the twin (another serialize_precision) counts as the base.
	const slash = page.locator('[data-testid=counts-row][data-source="workloads/10-a-slash-b.phpt"] [data-candidate=twin]');
	assert.equal(await slash.textContent(), '±0.0');
	assert.equal(await page.locator('[data-testid=candidate-counts] li').count(), 2);
	assert.ok(await noSidewaysScroll());
	await shot('candidates-counts');
	assert.deepEqual(pageErrors, []);
});

test('four builds: the base and one candidate, switched with ?vs=', async () => {
	four = await Daemon.start({
		name: 'browser-four',
		buildList: [['base', BASE], ['head', HEAD], ['twin', BASE], ['keys-only', HEAD]],
		extraArgs: ['--ini', 'twin:serialize_precision=17'],
	});
	const v = (await four.postCase({ code: '0.1', title: 'a float' })).json;
	await page.goto(`${four.url}/#/cases/${v.id}`);
	await page.locator('[data-testid=candidates] a.cand').first().waitFor();
	// Two columns: the base and the first candidate that differs (the twin).
	assert.equal(await page.locator('[data-testid=results] > section.result').count(), 2);
	await page.locator('[data-testid=result-cand2]').waitFor();
	assert.equal(await page.locator('[data-testid=candidates] a.cand').count(), 3);
	await page.locator('[data-testid=candidate-keys-only]').click();
	await page.locator('[data-testid=result-cand3]').waitFor();
	assert.match(page.url(), /vs=cand3/);
	assert.equal(await page.locator('[data-testid=results] > section.result').count(), 2);
	assert.ok(await noSidewaysScroll());
	await shot('candidates-four');
	assert.deepEqual(pageErrors, []);
});

test('builds registered and retired while the daemon runs show on the overview', async () => {
	// builds/head is in the daemon's builds folder (the default, builds/).
	const added = await d.request('POST', '/api/builds', { body: { name: 'pr@1', prefix: 'head' } });
	assert.equal(added.status, 201, added.text);
	await page.goto(`${d.url}/#/`);
	const row = page.locator('[data-testid=build-row][data-build="pr@1"]');
	await row.waitFor();
	assert.equal(await row.locator('[data-testid=worker-state]').textContent(), 'ready');
	assert.equal(await page.locator('[data-testid=build-row]').count(), 4);

	assert.equal((await d.request('DELETE', '/api/builds/pr@1')).status, 200);
	await page.reload();
	await page.locator('[data-testid=build-row][data-state=retired]').waitFor();
	assert.equal(await row.locator('[data-testid=worker-state]').textContent(), 'retired');
	// Still four rows: the three active builds, then the retired one last.
	const names = await page.locator('[data-testid=build-row]').evaluateAll((rows) => rows.map((r) => r.dataset.build));
	assert.deepEqual(names, ['base', 'head', 'twin', 'pr@1']);
	assert.ok(await noSidewaysScroll());
	await shot('builds-retired');
	assert.deepEqual(pageErrors, []);
});

test('the reviews page lists the reviews kept on the daemon; a review shows its report as text', async () => {
	const run = (await d.get('/api/runs')).json.runs[0];
	const md = '### phpcmp review: **differences** from the base\n\n<img src=x onerror="window.pwned=1">\n| build | generated calls |\n';
	const posted = await d.request('POST', '/api/reviews', { body: {
		label: 'pr-1234', verdict: 'differ', runs: { measure: run.id }, report_md: md,
		builds: [{ name: 'base', daemon_name: 'review-base' }, { name: 'pr@1', daemon_name: 'review-pr@1', commit: 1 }] } });
	assert.equal(posted.status, 201, posted.text);
	await page.goto(`${d.url}/#/reviews`);
	const row = page.locator(`[data-testid=review-row][data-review-id="${posted.json.id}"]`);
	await row.waitFor();
	assert.equal(await row.locator('[data-testid=review-verdict]').textContent(), 'differ');
	assert.match(await row.textContent(), /pr-1234.*base · pr@1.*measure #\d+/);
	await row.locator('a').first().click();
	const report = page.locator('[data-testid=review-report]');
	await report.waitFor();
	// The client's Markdown is shown as it came, never as HTML.
	assert.equal(await report.textContent(), md);
	assert.equal(await page.evaluate(() => window.pwned), undefined);
	assert.equal(await page.locator('img[src=x]').count(), 0);
	assert.match(page.url(), new RegExp(`#/reviews/${posted.json.id}$`));
	assert.ok(await noSidewaysScroll());
	await shot('review');
	assert.deepEqual(pageErrors, []);
});

test('the overview\'s build list picks the builds a run started there compares (the base always)', async () => {
	await page.goto(`${d.url}/#/`);
	const pick = (name) => page.locator(`[data-testid=build-row][data-build="${name}"] [data-testid=build-pick]`);
	await pick('twin').waitFor();
	assert.equal(await pick('base').isDisabled(), true);
	assert.equal(await pick('head').isChecked(), true);
	await pick('twin').uncheck();
	await page.locator('[data-testid=start-run]').click();
	await page.waitForURL(/#\/runs\/\d+$/);
	const id = /#\/runs\/(\d+)$/.exec(page.url())[1];
	const run = (await d.get(`/api/runs/${id}`)).json;
	assert.deepEqual(run.build_list.map((b) => [b.role, b.name]), [['base', 'base'], ['head', 'head']]);
	await d.waitRun(Number(id), { deadlineMs: 120_000 });
	assert.deepEqual(pageErrors, []);
});
