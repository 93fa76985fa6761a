// A coverage run's page (issue 15, docs/coverage.md) in headless Chromium:
// base = 8.2.32 built from source, head = the same built --coverage, a
// generated run of seed 1 × 2,000 with "coverage": true.  The run page
// shows the figures per file (json_encoder.c 327/349 lines, 306/425
// branches), per function, the downloads, and json_encoder.c's source with
// each line's count: the lines no case reached and those with a branch no
// case took highlighted, as many as the API lists.
// Screenshot: tests/artifacts/screenshots/coverage-run.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT, srcBuild } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');

let d, browser, page;
const pageErrors = [];

before(async () => {
	d = await Daemon.start({
		name: 'browser-coverage',
		builds: { base: srcBuild('src-8.2.32', 'src-builds'), head: srcBuild('src-8.2.32-coverage', 'flavour-builds') },
		extraArgs: ['--sandbox', 'netns,caps,seccomp,rlimits,php'],
	});
	({ browser, page } = await openPage(pageErrors));
});

after(async () => {
	await browser?.close();
	await d?.stopClean();
});

test('a coverage run\'s page: figures per file and function, downloads, json_encoder.c with unreached lines and branches highlighted', async () => {
	const run = await d.runToEnd({ suite: 'generated', seed: 1, count: 2000, coverage: true });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 500));
	const api = (await d.get(`/api/runs/${run.id}/coverage`)).json;
	const enc = api.builds[0].files.find((f) => f.file === 'ext/json/json_encoder.c');

	await page.goto(`${d.url}/#/runs/${run.id}`);
	const panel = page.locator('[data-testid=code-coverage]');
	await panel.locator('[data-testid=coverage-files]').waitFor();
	const row = panel.locator('[data-testid=coverage-files] tr[data-file="ext/json/json_encoder.c"]');
	assert.equal(await row.locator('[data-testid=lines]').textContent(), '343 / 349');
	assert.equal(await row.locator('[data-testid=branches]').textContent(), '336 / 425');
	assert.match(await row.textContent(), /98\.3 %.*79\.1 %/);
	const jsonRow = panel.locator('[data-testid=coverage-files] tr[data-file="ext/json/json.c"]');
	assert.equal(await jsonRow.locator('[data-testid=branches]').textContent(), '39 / 113');

	// The downloads are the API's, and they answer.
	const html = await panel.locator('[data-testid=coverage-html]').getAttribute('href');
	assert.equal(html, `/api/runs/${run.id}/coverage/head/index.html`);
	assert.equal((await d.get(html)).status, 200);
	const xml = await panel.locator('[data-testid=coverage-cobertura]').getAttribute('href');
	assert.equal((await d.get(xml)).status, 200);

	// The source: every line of the file, the unreached ones and those
	// with an unreached branch marked as the API says.
	const table = panel.locator('[data-testid=coverage-source-table]');
	await table.waitFor();
	const src = (await d.get(api.builds[0].downloads.source['ext/json/json_encoder.c'])).json;
	assert.equal(await table.locator('tr').count(), src.lines.length);
	assert.equal(await table.locator('tr.unreached').count(), enc.unreached_lines.length);
	const branchLines = new Set(enc.unreached_branches.map((u) => u.line));
	const unreached = new Set(enc.unreached_lines);
	const expectMissed = [...branchLines].filter((n) => !unreached.has(n)).length;
	assert.equal(await table.locator('tr.branch-missed').count(), expectMissed);
	assert.equal(await table.locator('span.br-miss').count(), enc.unreached_branches.length);
	// Line 38 (`if (myht)` of php_json_determine_array_type): reached 383,039
	// times (generator v3; v2: 382,657, its padded lists; v1: 2,782), one
	// branch never taken.
	const l38 = table.locator('tr[data-line="38"]');
	assert.equal(await l38.getAttribute('class'), 'branch-missed');
	assert.match(await l38.textContent(), /383,?039/);
	assert.equal(await l38.locator('span.br-miss').count(), 1);
	const bg = await l38.locator('td').first().evaluate((e) => getComputedStyle(e).backgroundColor);
	assert.notEqual(bg, 'rgba(0, 0, 0, 0)', 'highlighted');

	fs.mkdirSync(SHOTS, { recursive: true });
	await panel.scrollIntoViewIfNeeded();
	await page.screenshot({ path: path.join(SHOTS, 'coverage-run.png'), fullPage: false });
	await table.locator('tr[data-line="130"]').scrollIntoViewIfNeeded();
	await page.screenshot({ path: path.join(SHOTS, 'coverage-source.png'), fullPage: false });
	assert.deepEqual(pageErrors, []);
});
