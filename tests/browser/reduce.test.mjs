// The bucket page leads with its minimal case (docs/triage.md), in headless
// Chromium: base = the from-source 8.2.32, head = its escape-del build; a
// small generated run, its biggest bucket's page after reduction.
// Screenshot: tests/artifacts/screenshots/reduce-bucket.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { chromium } from 'playwright-core';
import { BUILDS, Daemon, ROOT } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const CHROMIUM = process.env.PHPCMP_CHROMIUM || '/usr/bin/chromium';
const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let d, browser, browser2;
after(async () => {
	if (browser) await browser.close();
	if (browser2) await browser2.close();
	if (d) await d.stopClean();
});

test('the bucket page: the minimal case, its outputs with the difference marked, found as, .phpt', async () => {
	d = await Daemon.start({
		name: 'browser-reduce', reduce: true,
		builds: { base: path.join(BUILDS, 'src-8.2.32'), head: path.join(BUILDS, 'src-8.2.32-escape-del') },
		extraArgs: ['--reduce-sample', '0'],
	});
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 3000 } });
	assert.equal(post.status, 202);
	let roots;
	for (const deadline = Date.now() + 300_000; ;) {
		const run = (await d.get(`/api/runs/${post.json.id}`)).json;
		roots = (await d.get(`/api/roots?run=${post.json.id}`)).json;
		if (run.status === 'done' && roots.reduction.buckets_pending === 0 && roots.roots.length > 0 && roots.roots[0].minimal) break;
		assert.ok(Date.now() < deadline);
		await sleep(500);
	}
	const id = roots.roots[0].bucket_id;
	browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	await page.goto(`${d.url}/#/buckets/${id}`);
	await page.waitForSelector('[data-testid=minimal-code]');
	assert.equal(await page.textContent('[data-testid=minimal-code]'), 'json_encode("\\x7F")');
	const marked = await page.textContent('[data-testid=minimal-outputs] mark');
	assert.equal(marked, '\\u007f"');
	assert.ok(await page.isVisible('[data-testid=minimal] a[href$="/phpt"]'));
	assert.match(await page.textContent('[data-testid=minimal]'), /Found as generated v3 seed 1 #\d+, reduced in \d+ steps/);
	assert.match(await page.textContent('[data-testid=minimal]'), /^Minimal case reproduced/);
	// The minimal case comes right under the title, before the bucket's key and triage.
	const order = await page.evaluate(() => {
		const m = document.querySelector('[data-testid=minimal]'), head = document.getElementById('h-key');
		return Boolean(m.compareDocumentPosition(head) & Node.DOCUMENT_POSITION_FOLLOWING);
	});
	assert.ok(order);
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'reduce-bucket.png'), fullPage: true });
	assert.doesNotMatch(await page.textContent('main'), /^null$/m, 'no stray "null" text');
	assert.deepEqual(errors, []);
});

// The overview's bucket list shows each bucket's minimal case inline (the
// same daemon: every bucket of the run above is reduced).
test('the overview: each open bucket shows its minimal case inline', async () => {
	assert.ok(d, 'the daemon of the test above');
	const errors = [];
	const opened = await openPage(errors);
	browser2 = opened.browser;
	const page = opened.page;
	await page.goto(`${d.url}/#/`);
	await page.waitForSelector('[data-testid=bucket-list] [data-testid=bucket-minimal-code]');
	const rows = await page.$$eval('[data-testid=bucket-list] [data-testid=bucket-row]', (trs) => trs.map((tr) => ({
		id: Number(tr.dataset.bucketId),
		code: tr.querySelector('[data-testid=bucket-minimal-code]')?.textContent ?? null,
		confirmation: tr.querySelector('[data-testid=bucket-minimal-confirmation]')?.textContent ?? null,
		root: tr.querySelector('[data-testid=bucket-root]')?.textContent ?? null,
	})));
	const api = (await d.get('/api/buckets?state=open&limit=10')).json.buckets;
	assert.equal(rows.length, api.length);
	assert.ok(rows.length >= 2, `several buckets listed: ${rows.length}`);
	for (const r of rows) {
		assert.equal(r.code, 'json_encode("\\x7F")', `bucket #${r.id}`);
		assert.equal(r.confirmation, 'reproduced');
		const b = api.find((x) => x.id === r.id);
		assert.equal(r.root, b.root_id ? `#${b.root_id}` : null, 'a joined bucket names its root');
	}
	assert.ok(rows.some((r) => r.root !== null), 'joined buckets link their root');
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'reduce-overview.png'), fullPage: true });
	assert.deepEqual(errors, []);
});
