// Issue 46: a run's counts.broken (cases the same on every build, none of
// which ran to its end) is shown on the run page and the overview, in
// headless Chromium, by what a person sees: the count with what it means,
// a notice on the run page, and links that list the cases (among same).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

let d, browser, page, run;
const errors = [];
before(async () => {
	const dir = tmpDir();
	fs.writeFileSync(path.join(dir, 'exit.phpt'), '--TEST--\ncalls exit\n--VALUE--\nexit(3)\n');
	fs.writeFileSync(path.join(dir, 'good.phpt'), '--TEST--\nan array\n--VALUE--\n[1, 2]\n');
	d = await Daemon.start({ name: 'browser-broken', cases: dir });
	const r = await d.request('POST', '/api/runs?wait=60', { body: { suite: 'stored' } });
	assert.equal(r.status, 200, r.text);
	run = r.json;
	assert.equal(run.counts.broken, 1, r.text);
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

test('the run page says how many cases broke on every build, and lists them', async () => {
	await page.goto(`${d.url}/#/runs/${run.id}`);
	const notice = page.locator('[data-testid=run-broken]');
	await notice.waitFor();
	assert.ok(await notice.isVisible());
	assert.match(await notice.innerText(), /^1 case broke on every build: the builds agree \(verdict same\), but none ran to its end/);
	const count = page.locator('[data-testid=run-head] [data-testid=run-counts] [data-verdict=broken]');
	assert.ok(await count.isVisible());
	assert.equal((await count.innerText()).trim(), 'broken 1');
	assert.match(await count.getAttribute('title'), /no build ran to its end/);
	await count.locator('a').click();
	await page.waitForURL(/verdict=same/);
	await page.locator('[data-testid=case-row]').first().waitFor();
	assert.match(await page.locator('main').innerText(), /calls exit/);
	assert.deepEqual(errors, []);
});

test('the overview\'s runs show the broken count, linking to the same cases', async () => {
	await page.goto(`${d.url}/#/`);
	const count = page.locator(`[data-testid=run-row][data-run-id="${run.id}"] [data-verdict=broken]`);
	await count.waitFor();
	assert.equal((await count.innerText()).trim(), 'broken 1');
	assert.match(await count.locator('a').getAttribute('href'), new RegExp(`#/runs/${run.id}\\?verdict=same$`));
	assert.deepEqual(errors, []);
});
