// A case that does not compile, on the page (issue 23, item 1): its verdict
// is `error` with a badge of its own (not the green `same` it used to be),
// the case page says what did not compile, at the user's own line and
// column, and the run page's verdict filter has `error`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT, tmpDir } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
const cases = tmpDir('phpcmp-browser-case-error-');
fs.writeFileSync(path.join(cases, 'a-same.phpt'), '--TEST--\nan array\n--VALUE--\n[1, 2]\n');
fs.writeFileSync(path.join(cases, 'b-broken.phpt'), "--TEST--\nan unclosed array\n--VALUE--\n['a' => 1\n");

let d, browser, page;
const errors = [];
before(async () => {
	d = await Daemon.start({ name: 'browser-case-error', cases });
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

test('a case error shows as error, with what did not compile and where', async () => {
	const r = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' } });
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.counts, { same: 1, differ: 0, error: 1 });
	const listed = await d.get(`/api/runs/${r.json.id}/cases?verdict=error`);
	const id = listed.json.cases[0].id;

	await page.goto(`${d.url}/#/cases/${id}`);
	const box = page.getByTestId('case-error');
	await box.waitFor();
	assert.equal((await box.textContent()).trim(), "The case does not compile: value, line 1, column 10: Unclosed '[' (on base)");
	const badge = page.locator('.verdict-line [data-testid="verdict"]');
	assert.equal(await badge.getAttribute('data-verdict'), 'error');
	assert.match(await badge.getAttribute('class'), /\bverdict-error\b/);
	// Its own look: not the colours of same.
	const bg = await badge.evaluate((e) => getComputedStyle(e).backgroundColor);
	await page.goto(`${d.url}/#/runs/${r.json.id}`);
	await page.getByTestId('filter-verdict-error').waitFor();
	const sameBadge = page.locator('.count-item[data-verdict="same"] .badge');
	const errorBadge = page.locator('.count-item[data-verdict="error"] .badge');
	assert.notEqual(await sameBadge.evaluate((e) => getComputedStyle(e).backgroundColor), bg);
	assert.equal(await errorBadge.evaluate((e) => getComputedStyle(e).backgroundColor), bg);
	await page.getByTestId('filter-verdict-error').click();
	await page.waitForFunction(() => document.querySelectorAll('[data-testid="case-row"]').length === 1
		&& document.querySelector('[data-testid="case-row"]').dataset.verdict === 'error');
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.goto(`${d.url}/#/cases/${id}`);
	await page.getByTestId('case-error').waitFor();
	await page.screenshot({ path: path.join(SHOTS, 'case-error.png') });
	assert.deepEqual(errors, []);
});
