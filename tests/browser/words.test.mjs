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
	d = await Daemon.start({ name: 'browser-words', reduce: true });
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

// "confirmed" is a triage state; the reducer's "run again, and it still
// differs" is another word: a new bucket whose minimal case is confirmed by
// the reducer shows "reproduced" in the bucket list and on the bucket page
// (the roots' tables use the same badge).
test('the reducer\'s confirmation reads "reproduced", never the triage state "confirmed"', async () => {
	let root;
	for (const deadline = Date.now() + 120_000; ;) {
		const roots = (await d.get('/api/roots')).json;
		root = (roots.roots || []).find((r) => r.minimal && r.minimal.state === 'done');
		if (root) break;
		assert.ok(Date.now() < deadline, `reduced within 2 minutes: ${JSON.stringify(roots)}`);
		await sleep(300);
	}
	assert.equal(root.minimal.confirmation, 'confirmed', 'the API\'s word is unchanged (docs/triage.md)');
	const b = (await d.get(`/api/buckets/${root.bucket_id}`)).json;
	assert.equal(b.state, 'new');
	await page.goto('about:blank');
	await page.goto(`${d.url}/#/`);
	const inList = page.locator(`[data-testid=bucket-list] [data-testid=bucket-row][data-bucket-id="${root.bucket_id}"] [data-testid=bucket-minimal-confirmation]`);
	await inList.waitFor();
	assert.equal(await inList.innerText(), 'reproduced');
	await page.goto(`${d.url}/#/buckets/${root.bucket_id}`);
	const h2 = page.locator('#h-minimal');
	await h2.waitFor();
	assert.equal(await h2.innerText(), 'Minimal case reproduced');
	assert.deepEqual(errors, []);
});
