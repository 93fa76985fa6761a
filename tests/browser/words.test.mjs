// Issue 46, "The page and the CLI", in headless Chromium on the default
// builds (Debian's 8.2.32 as base, 8.2.36 as head): what a person sees —
// computed style and text, not attributes.  A case whose value is
// PHP_VERSION differs between the two, so it makes a bucket of its own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

let d, browser, page;
const errors = [];
before(async () => {
	d = await Daemon.start({ name: 'browser-words' });
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

async function submit(body) {
	const r = await d.request('POST', '/api/cases', { body });
	assert.ok(r.status === 200 || r.status === 201, r.text);
	return r.json;
}

// A bucket alone (no other bucket joined its root) has nothing to unfold:
// "▸ 0 more buckets of this root cause (0 mismatches)" must not show.
// `hidden` alone did not hide it: `button { display: inline-block }` won.
test('a bucket with no other bucket under it shows no "0 more buckets" toggle', async () => {
	const c = await submit({ code: 'PHP_VERSION' });
	assert.equal(c.verdict, 'differ');
	await page.goto(`${d.url}/#/`);
	const row = page.locator('[data-testid=bucket-list] [data-testid=bucket-row]').first();
	await row.waitFor();
	const toggle = row.locator('[data-testid=bucket-group-toggle]');
	assert.equal(await toggle.count(), 1);
	assert.equal(await toggle.evaluate((e) => getComputedStyle(e).display), 'none');
	assert.ok(!(await toggle.isVisible()), 'the toggle is not visible');
	assert.doesNotMatch(await row.innerText(), /0 more buckets?/);
	assert.deepEqual(errors, []);
});
