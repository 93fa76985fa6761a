// "Released PHP" on the page (issue 49): a case's panel fills in after the
// case is shown (it never waits for the runtimes), groups the releases by
// identical answer as 3v4l does ("Output for 8.1.34 – 8.5.10"), says which
// builds each group answers as, and shows each answer in the byte view.
// Real references (@php-wasm/node-7-4, -8-0, -8-1, -8-5) on a real daemon.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
let d, browser, page;
const errors = [];
before(async () => {
	d = await Daemon.start({ name: 'browser-released', extraArgs: ['--references', '7.4,8.0,8.1,8.5'], startDeadlineMs: 120_000 });
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

test('a case page: the released panel fills in, two groups for a backed enum, the note says what a reference lacks', async () => {
	// Stored through the API without its references: the page asks for them.
	const r = await d.postCase({ setup: "enum Suit: string { case Hearts = 'h'; }", code: 'Suit::Hearts' });
	assert.equal(r.status, 201, r.text);
	await page.goto(`${d.url}/#/cases/${r.json.id}`);
	// The case is there before the references answer.
	await page.getByTestId('results').waitFor();
	const panel = page.getByTestId('released');
	await panel.waitFor();
	assert.match(await page.getByTestId('released-note').textContent(), /no instruction counts, no memory-error oracle/);
	await page.locator('[data-testid="released"][data-state="done"]').waitFor({ timeout: 120_000 });
	const groups = page.getByTestId('released-group');
	assert.equal(await groups.count(), 2);
	assert.match((await groups.nth(0).locator('h3').textContent()).trim(), /^Unsupported on 7\.4\.\d+ – 8\.0\.\d+$/);
	assert.match((await groups.nth(1).locator('h3').textContent()).trim(), /^Output for 8\.1\.\d+ – 8\.5\.\d+ · answers as base, head$/);
	assert.equal(await groups.nth(1).getAttribute('data-as'), 'base head');
	assert.equal((await page.getByTestId('released-group-1-output').textContent()).trim(), '"h"');
	assert.match(await page.getByTestId('released-summary').textContent(), /^released 8\.1\.\d+–8\.5\.\d+ all answer as both builds; unsupported before 8\.1$/);
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'case-released.png'), fullPage: true });
	assert.deepEqual(errors, []);
});
