// Issue 46, "The page and the CLI", in headless Chromium on the default
// builds (Debian's 8.2.32 as base, 8.2.36 as head): what a person sees —
// computed style and text, not attributes.  A case whose value is
// PHP_VERSION differs between the two, so it makes a bucket of its own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

let d, browser, page;
const errors = [];
before(async () => {
	// head with serialize_precision=17 (docs/config.md, --ini): floats differ,
	// so a generated run has mismatches on the default builds.
	d = await Daemon.start({ name: 'browser-words', reduce: true, extraArgs: ['--ini', 'head:serialize_precision=17'] });
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

// A generated run's mismatches on the run page say where they come from:
// source "generated" (not "submitted") and their own flags (not 0); the API
// lists one not stored in full without "differs" (docs/api.md).
test('a generated run\'s cases: source generated, their flags, no differs until stored', async () => {
	const r = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'generated', seed: 7, count: 400 } });
	assert.equal(r.status, 200, r.text);
	assert.ok(r.json.counts.differ > 0, `floats differ with serialize_precision=17: ${JSON.stringify(r.json.counts)}`);
	const runId = r.json.id;
	const listed = (await d.get(`/api/runs/${runId}/cases?verdict=differ&limit=200`)).json.cases;
	const unstored = listed.filter((c) => c.id === null);
	assert.ok(unstored.length > 0, 'some mismatches are not stored in full');
	for (const c of listed) assert.equal(c.source, 'generated', JSON.stringify(c));
	for (const c of unstored) assert.ok(!('differs' in c), `no differs on a row not stored: ${JSON.stringify(c)}`);
	// The flags listed are the case's: storing it gives the same.
	const withFlags = unstored.find((c) => c.flags !== 0) || unstored[0];
	const stored = await d.request('POST', `/api/runs/${runId}/cases`, { body: withFlags.generated });
	assert.equal(stored.status, 201, stored.text);
	assert.equal(withFlags.flags, stored.json.case.flags);
	assert.deepEqual(withFlags.flag_names, stored.json.case.flag_names);
	assert.ok(unstored.some((c) => c.flags !== 0), 'some generated mismatch has flags');
	const again = (await d.get(`/api/runs/${runId}/cases?verdict=differ&limit=200`)).json.cases
		.find((c) => c.generated.index === withFlags.generated.index);
	assert.equal(again.id, stored.json.id);
	assert.equal(again.source, 'generated');
	assert.deepEqual(again.differs, stored.json.differs);

	await page.goto('about:blank');
	await page.goto(`${d.url}/#/runs/${runId}?verdict=differ`);
	const rows = page.locator('[data-testid=case-row]');
	await rows.first().waitFor();
	const seen = await rows.evaluateAll((trs) => trs.map((tr) => ({
		src: tr.querySelector('td.src').innerText, flags: tr.querySelector('td.flags').innerText })));
	assert.ok(seen.every((x) => x.src === 'generated'), JSON.stringify(seen.slice(0, 5)));
	assert.ok(seen.some((x) => x.flags !== '0' && x.flags !== '' && x.flags !== '—'), JSON.stringify(seen.slice(0, 5)));
	assert.deepEqual(errors, []);
});

// The "API" link opens the API reference — every route of the daemon's
// table (server/daemon/http/api.c) with what it does — not raw /api/health.
test('the API link opens the API reference, every route listed', async () => {
	const table = fs.readFileSync(path.join(ROOT, 'server/daemon/http/api.c'), 'utf8');
	const routes = [...table.matchAll(/\{ M_(GET|POST|DELETE), "(\/api\/[^"]*)"/g)]
		.map(([, m, p]) => `${m} ${p.replace(/:(\w+)/g, '{$1}')}`);
	assert.ok(routes.length > 30, `the route table read: ${routes.length}`);
	await page.goto('about:blank');
	await page.goto(`${d.url}/#/`);
	await page.getByRole('link', { name: 'API', exact: true }).click();
	await page.waitForURL(/\/api\.html$/);
	assert.equal(await page.locator('h1').innerText(), 'API reference');
	const listed = await page.locator('[data-testid=api-routes] tbody tr').evaluateAll((trs) =>
		trs.map((tr) => `${tr.cells[0].innerText} ${tr.cells[1].innerText}`));
	assert.deepEqual(listed, routes, 'the reference lists the daemon\'s routes, in its order');
	assert.ok(await page.locator('[data-testid=api-example]').isVisible());
	// Its live links answer.
	const health = await page.request.get(`${d.url}/api/health`);
	assert.equal(health.status(), 200);
	await page.locator('[data-testid=api-routes] a', { hasText: '/api/health' }).click();
	await page.waitForURL(/\/api\/health$/);
	assert.deepEqual(errors, []);
});

// "Nothing to triage on the default builds": the overview starts generated
// runs (seed and count) and phpt runs too, not only stored and measure.
test('the overview starts a generated run and a phpt run', async () => {
	await page.goto('about:blank');
	await page.goto(`${d.url}/#/`);
	const gen = page.locator('[data-testid=start-generated]');
	await gen.waitFor();
	assert.ok(await gen.isVisible());
	await page.locator('[data-testid=gen-seed]').fill('3');
	await page.locator('[data-testid=gen-count]').fill('300');
	const posted = page.waitForRequest((q) => q.method() === 'POST' && new URL(q.url()).pathname === '/api/runs');
	await gen.click();
	assert.deepEqual((await posted).postDataJSON(), { suite: 'generated', seed: 3, count: 300 });
	await page.waitForURL(/#\/runs\/\d+$/);
	const id = Number(page.url().match(/#\/runs\/(\d+)$/)[1]);
	let run;
	for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
		run = (await d.get(`/api/runs/${id}`)).json;
		if (!['queued', 'running'].includes(run.status)) break;
		assert.ok(Date.now() < deadline, 'the run ends within a minute');
	}
	assert.equal(run.suite, 'generated');
	assert.equal(run.total, 300);
	assert.ok(run.counts.differ > 0, 'head\'s serialize_precision=17 gives mismatches');

	await page.goto(`${d.url}/#/`);
	const phpt = page.locator('[data-testid=start-phpt]');
	await phpt.waitFor();
	await phpt.click();
	await page.waitForURL(/#\/runs\/\d+$/);
	const pid = Number(page.url().match(/#\/runs\/(\d+)$/)[1]);
	assert.equal((await d.get(`/api/runs/${pid}`)).json.suite, 'phpt');
	assert.deepEqual(errors, []);
});
