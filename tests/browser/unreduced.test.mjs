// The page lists the unreduced cases and why (issue 47, item 3; docs/triage.md,
// "Unreduced"), in headless Chromium: the default builds, head given
// serialize_precision=17, a reducer whose budget is two executions (as
// tests/integration/reduce-tail.test.mjs), so the originals of over 100
// bytes are left unreduced ("budget").  The run page shows them under the
// root causes, apart from them: why in a word and the server's sentence, the
// case the reducer got to (folded), what each explains, its bucket; the
// overview counts them and links to the run.
// Screenshot: tests/artifacts/screenshots/unreduced-run-section.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT } from '../integration/helper.mjs';
import { runAndReduce } from '../integration/reduce-wait.mjs';
import { openPage } from './browser.mjs';
import { unreducedSummary, unreducedWord } from '../../web/js/triage.js';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
let d, browser, page, id, roots;
const errors = [];

before(async () => {
	d = await Daemon.start({
		name: 'browser-unreduced', reduce: true,
		extraArgs: ['--ini', 'head:serialize_precision=17', '--reduce-sample', '0', '--reduce-max-executions', '2'],
	});
	({ id, roots } = await runAndReduce(d, 2000));
	({ browser, page } = await openPage(errors));
});
after(async () => {
	if (browser) await browser.close();
	if (d) await d.stopClean();
});

test('the run page: the unreduced cases apart from the roots, each with why, its case and its bucket', async () => {
	assert.ok(roots.unreduced.length >= 1, 'the budget leaves cases unreduced');
	await page.goto(`${d.url}/#/runs/${id}`);
	const part = page.locator('[data-testid=run-roots] [data-testid=unreduced-part]');
	await part.locator('[data-testid=unreduced]').first().waitFor();

	assert.equal(await part.locator('h3').textContent(), 'Unreduced');
	assert.equal(await part.locator('[data-testid=unreduced-summary]').textContent(), unreducedSummary(roots.unreduced));
	assert.match(await part.locator('[data-testid=unreduced-summary]').textContent(), /left unreduced, apart from the root causes: \d+ out of budget\.$/);
	const rows = await part.locator('[data-testid=unreduced]').evaluateAll((trs) => trs.map((tr) => ({
		id: Number(tr.dataset.bucketId), why: tr.dataset.why,
		word: tr.querySelector('[data-testid=unreduced-why] strong').textContent,
		reason: tr.querySelector('[data-testid=unreduced-reason]').textContent,
		summary: tr.querySelector('[data-testid=unreduced-case] summary')?.textContent ?? null,
		code: tr.querySelector('[data-testid=unreduced-code]')?.textContent ?? null,
		mismatches: tr.querySelector('[data-testid=unreduced-mismatches]').firstChild.textContent,
		href: tr.querySelector('[data-testid=unreduced-link]').getAttribute('href'),
	})));
	assert.deepEqual(rows.map((r) => r.id), roots.unreduced.map((r) => r.bucket_id), 'one row per unreduced case, in the API\'s order');
	for (const [i, r] of rows.entries()) {
		const u = roots.unreduced[i];
		assert.equal(r.why, 'budget');
		assert.equal(r.word, unreducedWord(u.why));
		assert.equal(r.reason, u.reason);
		assert.match(r.reason, /budget/);
		assert.equal(r.mismatches, u.mismatches.toLocaleString('en-US'));
		assert.equal(r.href, `#/buckets/${u.bucket_id}`);
		// The case it got to: folded, its size said, over 100 bytes.
		assert.equal(r.summary, `the case it got to (${u.minimal.value_bytes.toLocaleString('en-US')} bytes)`);
		assert.ok(u.minimal.value_bytes > 100);
		assert.match(r.code, /^json_encode\(/);
	}
	// Folded until opened.
	const first = part.locator('[data-testid=unreduced]').first();
	assert.equal(await first.locator('[data-testid=unreduced-code]').isVisible(), false);
	await first.locator('[data-testid=unreduced-case] summary').click();
	assert.equal(await first.locator('[data-testid=unreduced-code]').isVisible(), true);

	// Not among the roots: the two lists are apart, and the roots' count is of roots only.
	const rootIds = await page.locator('[data-testid=run-roots] [data-testid=root]').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.bucketId)));
	assert.deepEqual(rootIds, roots.roots.map((r) => r.bucket_id));
	for (const u of roots.unreduced) assert.ok(!rootIds.includes(u.bucket_id), `bucket ${u.bucket_id} is not a root`);
	if (roots.roots.length)
		assert.match(await page.textContent('[data-testid=run-roots] [data-testid=roots-summary]'),
			new RegExp(`^${roots.roots.length} root causes? explains? the ${roots.roots.reduce((n, r) => n + r.mismatches, 0).toLocaleString('en-US')} stored`));

	fs.mkdirSync(SHOTS, { recursive: true });
	await part.screenshot({ path: path.join(SHOTS, 'unreduced-run-section.png') });

	// The link opens the bucket.
	await first.locator('[data-testid=unreduced-link]').click();
	await page.waitForURL(new RegExp(`#/buckets/${roots.unreduced[0].bucket_id}$`));
	assert.deepEqual(errors, []);
});

test('the overview counts the unreduced cases of the run and links to them', async () => {
	await page.goto(`${d.url}/#/`);
	const box = page.locator('[data-testid=overview-roots]');
	await box.locator('[data-testid=unreduced-summary]').waitFor();
	assert.equal(await box.locator('[data-testid=unreduced-summary]').textContent(), unreducedSummary(roots.unreduced));
	assert.equal(await box.locator('[data-testid=unreduced]').count(), 0, 'counted, not listed');
	assert.equal(await box.locator('[data-testid=unreduced-more]').getAttribute('href'), `#/runs/${id}`);
	assert.deepEqual(errors, []);
});
