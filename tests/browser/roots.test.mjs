// The page leads with root causes (issue 23, item 5), in headless Chromium:
// base = the from-source 8.2.32, head = its escape-del build (DEL escaped as
// \u007f); a small generated run, reduced.  The run page: "Root causes"
// first under the run's head (minimal case, both outputs byte by byte, how
// many mismatches and buckets, the candidate, a link to the bucket), then
// "Mismatches", then the coverage.  The overview leads with the same roots.
// Then the same daemon's page with /api/roots answered by the test (page.route):
// the reducer at work, "N more", and hostile strings shown as text and chips.
// Screenshots: tests/artifacts/screenshots/roots-run.png, roots-overview.png
// (and -section.png: the roots sections alone).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, ROOT } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';
import { shapeWords } from '../../web/js/triage.js';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let d, browser, page, runId, roots;
const errors = [];

before(async () => {
	d = await Daemon.start({
		name: 'browser-roots', reduce: true,
		builds: { base: path.join(BUILDS, 'src-8.2.32'), head: path.join(BUILDS, 'src-8.2.32-escape-del') },
		extraArgs: ['--reduce-sample', '0'],
	});
	const post = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 3000 } });
	assert.equal(post.status, 202);
	runId = post.json.id;
	await reduced();
	({ browser, page } = await openPage(errors));
});
after(async () => {
	if (browser) await browser.close();
	if (d) await d.stopClean();
});

// Until the run is done and every bucket of it reduced.
async function reduced() {
	for (const deadline = Date.now() + 300_000; ;) {
		const run = (await d.get(`/api/runs/${runId}`)).json;
		roots = (await d.get(`/api/roots?run=${runId}`)).json;
		if (run.status === 'done' && roots.reduction.buckets_pending === 0 && roots.roots.length > 0 &&
			roots.reduction.reducer.busy_bucket_id === null && roots.roots.every((r) => r.minimal)) return;
		assert.ok(Date.now() < deadline, 'the run is reduced within 5 minutes');
		await sleep(500);
	}
}

const top = (sel) => page.locator(sel).first().boundingBox().then((b) => b.y);

test('the run page: root causes first, each with its minimal case, outputs, counts and bucket; mismatches above coverage', async () => {
	const first = roots.roots[0];
	assert.equal(first.candidate, 'head', 'GET /api/roots names each root\'s candidate');
	assert.ok(roots.buckets > roots.roots.length, `several buckets (${roots.buckets}) under fewer roots (${roots.roots.length})`);
	await page.goto(`${d.url}/#/runs/${runId}`);
	await page.locator('[data-testid=run-roots] [data-testid=root]').first().waitFor();
	await page.locator('[data-testid=run-summary]').waitFor();

	// First under the run's head: the sections of the page in order.
	const order = await page.$$eval('main > section.panel, main > div > section.panel', (els) =>
		els.filter((e) => !e.hidden).map((e) => e.dataset.testid || e.getAttribute('aria-labelledby')));
	assert.equal(order[0], 'h-run-status');
	assert.equal(order[1], 'run-roots', `roots right under the run's head: ${order.join(', ')}`);
	assert.equal(await page.textContent('#h-run-roots'), 'Root causes');

	// One row per root, most mismatches first, as the API gives them.
	const rows = await page.$$eval('[data-testid=run-roots] [data-testid=root]', (trs) => trs.map((tr) => ({
		id: Number(tr.dataset.bucketId), mismatches: Number(tr.dataset.mismatches),
		code: tr.querySelector('[data-testid=root-code]')?.textContent ?? null,
		count: tr.querySelector('[data-testid=root-mismatches]').firstChild.textContent,
		buckets: tr.querySelector('[data-testid=root-buckets]').textContent,
		candidate: tr.querySelector('[data-testid=root-candidate]').textContent,
		href: tr.querySelector('[data-testid=root-link]').getAttribute('href'),
	})));
	assert.deepEqual(rows.map((r) => r.id), roots.roots.map((r) => r.bucket_id));
	for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].mismatches >= rows[i].mismatches, 'most mismatches first');
	assert.equal(rows[0].code, 'json_encode("\\x7F")');
	assert.equal(rows[0].count, first.mismatches.toLocaleString('en-US'));
	assert.equal(rows[0].buckets, `${first.buckets} bucket${first.buckets === 1 ? '' : 's'}`);
	assert.equal(rows[0].candidate, 'head');
	assert.equal(rows[0].href, `#/buckets/${first.bucket_id}`);
	assert.match(await page.textContent('[data-testid=roots-summary]'),
		new RegExp(`explains? the ${roots.roots.reduce((n, r) => n + r.mismatches, 0).toLocaleString('en-US')} stored mismatches( \\(of [0-9,]+ in the run\\))? in ${roots.buckets} buckets`));
	assert.equal(await page.locator('[data-testid=run-roots] [data-testid=roots-pending]').count(), 0, 'nothing pending once reduced');

	// The outputs of the minimal case: the base's DEL is a \x7f chip, not a raw byte; the candidate's escape is marked.
	const row = page.locator(`[data-testid=root][data-bucket-id="${first.bucket_id}"]`);
	assert.equal(await row.locator('[data-testid=root-output-base] .chip.ctl').textContent(), '\\x7f');
	assert.equal(await row.locator('[data-testid=root-output-base] [data-testid=root-output-bytes]').textContent(), '"\\x7f"');
	assert.equal(await row.locator('[data-testid=root-output-candidate] [data-testid=root-output-bytes]').textContent(), '"\\u007f"');
	assert.equal(await row.locator('[data-testid=root-output-candidate] mark.diff').textContent(), '\\u007f"');
	assert.equal(await row.locator('[data-testid=root-confirmation]').textContent(), 'reproduced');

	// Mismatches (the buckets) above the coverage.
	const yRoots = await top('[data-testid=run-roots]'), yBuckets = await top('[data-testid=run-buckets]');
	const yCoverage = await top('[data-testid=run-summary]');
	assert.ok(yRoots < yBuckets && yBuckets < yCoverage, `roots ${yRoots} < mismatches ${yBuckets} < coverage ${yCoverage}`);
	assert.ok(yBuckets < 900, `the mismatches start within the first screen (${yBuckets} px)`);

	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'roots-run.png'), fullPage: true });
	await page.locator('[data-testid=run-roots]').screenshot({ path: path.join(SHOTS, 'roots-run-section.png') });

	// The link opens the root's bucket page.
	await row.locator('[data-testid=root-link]').click();
	await page.waitForURL(new RegExp(`#/buckets/${first.bucket_id}$`));
	assert.equal(await page.textContent('[data-testid=minimal-code]'), 'json_encode("\\x7F")');
	// Issue 23 (d): the flags that matter come from the reduction — DEL differs with no flag —
	// not from the key's guess; the key's flags are said as what splits the bucket.
	const ftm = page.locator('[data-testid=flags-that-matter]');
	assert.equal(await ftm.getAttribute('data-from'), 'reduction');
	assert.match(await ftm.textContent(), /^none: the minimal case differs with no flag/);
	assert.equal(await page.locator('h1 [data-testid=needed-flags]').textContent(), 'needs no flag');
	assert.equal(await page.locator('[data-testid=key-flags]').count(), 1);
	assert.deepEqual(errors, []);
});

test('the overview leads with the root causes of the latest run with mismatches', async () => {
	await page.goto(`${d.url}/#/`);
	await page.locator('[data-testid=overview-roots] [data-testid=root]').first().waitFor();
	await page.locator('[data-testid=bucket-list] [data-testid=bucket-row]').first().waitFor();
	assert.equal(await page.getAttribute('[data-testid=roots-run]', 'href'), `#/runs/${runId}`);
	const ids = await page.$$eval('[data-testid=overview-roots] [data-testid=root]', (trs) => trs.map((tr) => Number(tr.dataset.bucketId)));
	assert.deepEqual(ids, roots.roots.slice(0, 3).map((r) => r.bucket_id));
	assert.equal(await page.locator('[data-testid=overview-roots] [data-testid=root-code]').first().textContent(), 'json_encode("\\x7F")');
	assert.equal(await page.locator('[data-testid=overview-roots] [data-testid=root-link]').first().getAttribute('href'), `#/buckets/${ids[0]}`);
	// Before the open buckets (which are still there).
	const yRoots = await top('[data-testid=overview-roots]'), yBuckets = await top('[data-testid=bucket-list]');
	assert.ok(yRoots < yBuckets, `roots ${yRoots} above the open buckets ${yBuckets}`);
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'roots-overview.png'), fullPage: true });
	await page.locator('[data-testid=overview-roots]').screenshot({ path: path.join(SHOTS, 'roots-overview-section.png') });
	assert.deepEqual(errors, []);
});

test('roots as the page shows them while reducing, "N more", and hostile strings as text', async () => {
	const hostile = '"<img src=x onerror=window.pwned=1>\u0001"';
	const fake = (i, minimal) => ({ bucket_id: 900 + i, candidate: i === 0 ? '<b>cand</b>' : 'head', buckets: 2, mismatches: 50 - i, bucket_ids: [900 + i], minimal });
	const answer = {
		roots: [
			fake(0, {
				state: 'done', code: hostile, setup: null, flags: ['JSON_PRETTY_PRINT'], depth: 512, confirmation: 'confirmed',
				outputs: {
					base: { status: 'ok', output: '"<script>window.pwned=2</script>\u0001"', output_is_false: false, error_code: 0, exception: null },
					'<b>cand</b>': { status: 'ok', output: null, output_is_false: true, error_code: 5, error_msg: 'Malformed', exception: null },
				},
			}),
			fake(1, null), fake(2, null), fake(3, null), fake(4, null),
		],
		buckets: 10,
		reduction: { buckets_pending: 4, reductions: 1, executions: 3, seconds: 0.1, reducer: { enabled: true } },
	};
	await page.route(/\/api\/roots\?/, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) }));
	try {
		await page.goto('about:blank'); // a fresh page (the last test left it on #/)
		await page.goto(`${d.url}/#/`);
		const box = page.locator('[data-testid=overview-roots]');
		await box.locator('[data-testid=root]').first().waitFor();
		assert.equal(await box.locator('[data-testid=roots-pending]').textContent(), 'reducing: 4 buckets pending');
		assert.equal(await box.locator('[data-testid=root]').count(), 3, 'the first three');
		assert.equal(await box.locator('[data-testid=roots-more]').textContent(), `2 more root causes in run #${runId}`);
		assert.equal(await box.locator('[data-testid=roots-more]').getAttribute('href'), `#/runs/${runId}`);
		assert.equal(await box.locator('[data-testid=root-minimal][data-state=pending]').first().textContent(), 'not reduced yet');
		// Hostile code and outputs are text; the control byte is a chip.
		const r0 = box.locator('[data-testid=root]').first();
		assert.equal(await r0.locator('[data-testid=root-code]').textContent(),
			'json_encode("<img src=x onerror=window.pwned=1>\\x01", JSON_PRETTY_PRINT)');
		assert.equal(await r0.locator('[data-testid=root-code] .chip.ctl').textContent(), '\\x01');
		assert.equal(await r0.locator('[data-testid=root-candidate]').textContent(), '<b>cand</b>');
		assert.equal(await r0.locator('[data-testid=root-output-candidate] [data-testid=root-output-bytes]').textContent(), 'false');
		assert.match(await r0.locator('[data-testid=root-output-candidate]').textContent(), /json_last_error\(\) 5/);
		assert.equal(await page.locator('main img, main script, main b').count(), 0, 'no markup from the data');
		assert.equal(await page.evaluate(() => window.pwned), undefined);

		// The run page lists every root, and says the reducer is at work.
		await page.goto(`${d.url}/#/runs/${runId}`);
		const run = page.locator('[data-testid=run-roots]');
		await run.locator('[data-testid=root]').first().waitFor();
		assert.equal(await run.locator('[data-testid=root]').count(), 5);
		assert.equal(await run.locator('[data-testid=roots-pending]').textContent(), 'reducing: 4 buckets pending');
		assert.equal(await run.locator('[data-testid=roots-more]').count(), 0);
		assert.equal(await page.evaluate(() => window.pwned), undefined);

		// The bucket page of such a root: its minimal case and outputs byte by byte,
		// control bytes as \xNN chips (not boxes), newlines and tabs of the setup kept.
		const bucket = {
			minimal: { ...answer.roots[0].minimal, code: '"a\u0001"', setup: 'class A {\n\tpublic $x = "\u0002";\n}', steps: 1, executions: 3, seconds: 0.01, complete: true,
				outputs: { base: { status: 'ok', output: '"a\u007f"', error_code: 0, exception: null }, head: { status: 'ok', output: '"a\\u007f"', error_code: 0, exception: null } } },
			id: 900, key: { v: 1, differs: ['output'], status: ['ok', 'ok'], error_code: [0, 0], exception: [null, null], output: ['C', '\\u'], flags: {} },
			state: 'new', assignee: null, notes: '', mismatches: 1, representative: {}, runs: [], events: [], root_id: null, joined: [], samples: [],
		};
		await page.route(/\/api\/buckets\/900(\/mismatches)?(\?.*)?$/, (route) => route.fulfill({ status: 200, contentType: 'application/json',
			body: JSON.stringify(/mismatches/.test(route.request().url()) ? { mismatches: [], next: null } : bucket) }));
		await page.goto(`${d.url}/#/buckets/900`);
		const code = page.locator('[data-testid=minimal-code]');
		await code.waitFor();
		assert.equal(await code.textContent(), 'json_encode("a\\x01", JSON_PRETTY_PRINT)');
		assert.equal(await code.locator('.chip.ctl').textContent(), '\\x01');
		assert.equal(await page.locator('[data-testid=minimal-setup]').textContent(), 'class A {\n\tpublic $x = "\\x02";\n}');
		const base = page.locator('[data-testid=minimal-outputs] tr[data-role=base] [data-testid=minimal-output]');
		assert.equal(await base.textContent(), '"a\\x7f"');
		assert.equal(await base.locator('.chip.ctl').textContent(), '\\x7f');
		assert.equal(await page.locator('[data-testid=minimal-outputs] tr[data-role=head] mark.diff').textContent(), '\\u007f"');
		assert.equal(await page.locator('[data-testid=flags-that-matter] .mono').textContent(), 'JSON_PRETTY_PRINT');
		assert.match(await page.locator('[data-testid=flags-that-matter]').textContent(), /the minimal case needs each of these/);
		assert.equal(await page.locator('h1 [data-testid=needed-flags]').textContent(), 'needs PRETTY_PRINT');
		await page.unroute(/\/api\/buckets\/900(\/mismatches)?(\?.*)?$/);
	} finally {
		await page.unroute(/\/api\/roots\?/);
	}
	assert.deepEqual(errors, []);
});

// Issue 23, item 5: a root's buckets are listed under it (folded), the run's
// figures add up on screen, and a state set on a root goes to each of its
// buckets in one request (POST /api/roots/{id}/triage), an audit entry each.
test('buckets under their root, counts that add up, and triage on a root applies to its buckets', async () => {
	const run = (await d.get(`/api/runs/${runId}`)).json;
	roots = (await d.get(`/api/roots?run=${runId}`)).json;
	const r = roots.roots.find((x) => x.buckets > 1);
	assert.ok(r, 'a root with several buckets');
	const member = r.bucket_ids.find((x) => x !== r.bucket_id);
	assert.deepEqual(r.states, { new: r.buckets }, 'GET /api/roots counts each root\'s buckets by state');

	// The API's refusals: a bucket that joined a root, no such bucket, fields of the bulk form.
	let res = await d.request('POST', `/api/roots/${member}/triage`, { body: { by: 'ana', state: 'confirmed' } });
	assert.equal(res.status, 409, res.text);
	assert.equal(res.json.error.code, 'not_a_root');
	assert.match(res.json.error.message, new RegExp(`bucket ${member} joined root ${r.bucket_id}`));
	res = await d.request('POST', '/api/roots/99999/triage', { body: { by: 'ana', state: 'confirmed' } });
	assert.equal(res.status, 404, res.text);
	res = await d.request('POST', `/api/roots/${r.bucket_id}/triage`, { body: { by: 'ana', state: 'confirmed', ids: [1] } });
	assert.equal(res.status, 400, res.text);
	assert.match(res.json.error.message, /unknown field "ids"/);
	res = await d.request('POST', '/api/buckets/triage', { body: { by: 'ana', state: 'new', ids: [r.bucket_id], joined: 'yes' } });
	assert.equal(res.status, 400, res.text);
	assert.equal((await d.get(`/api/triage/events?bucket=${member}`)).json.events.length, 0, 'nothing changed');

	await page.goto('about:blank');
	await page.goto(`${d.url}/#/runs/${runId}`);
	const list = page.locator('[data-testid=run-buckets] [data-testid=bucket-list]');
	await list.locator('[data-testid=bucket-row]').first().waitFor();
	await page.locator('[data-testid=run-stored]').waitFor();

	// One visible row per root; the root's other buckets folded under it, those of
	// later pages ("Load more") too.
	const rootRow = list.locator(`[data-testid=bucket-row][data-bucket-id="${r.bucket_id}"]`);
	const toggle = rootRow.locator('[data-testid=bucket-group-toggle]');
	const members = () => list.locator(`[data-testid=bucket-row][data-root-id="${r.bucket_id}"]`);
	assert.match(await toggle.textContent(), new RegExp(`^▸ ${await members().count()} more buckets? of this root cause`));
	const loaded = await members().count();
	if (loaded < r.buckets - 1)
		assert.equal(await rootRow.locator('[data-testid=bucket-group-rest]').textContent(), `${r.buckets - 1 - loaded} more not listed here`);
	for (let more = page.locator('[data-testid=run-buckets] [data-testid=buckets-more]'); await more.count();) {
		await more.click();
		await page.waitForFunction(() => !document.querySelector('[data-testid=run-buckets] .more .loading'));
	}
	assert.equal(await list.locator('[data-testid=bucket-row]').count(), roots.buckets, 'every bucket loaded');
	const visible = await list.locator('[data-testid=bucket-row]:visible').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.bucketId)));
	assert.deepEqual(visible.slice().sort((a, b) => a - b), roots.roots.map((x) => x.bucket_id).sort((a, b) => a - b),
		`one row per root cause (${roots.roots.length}), not one per bucket (${roots.buckets})`);
	assert.match(await toggle.textContent(), new RegExp(`^▸ ${r.buckets - 1} more buckets? of this root cause \\(`));
	assert.ok(await rootRow.locator('[data-testid=bucket-group-rest]').isHidden(), 'every one listed');
	assert.equal(await list.locator(`[data-testid=bucket-row][data-root-id="${r.bucket_id}"]:visible`).count(), 0);
	// The run page's roots and its buckets grouped under them (folded), in one picture.
	const abs = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().top + window.scrollY);
	const y0 = await abs('[data-testid=run-roots]'), y1 = await abs('[data-testid=run-buckets] [data-testid=bucket-list]');
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, 'roots-grouped.png'), fullPage: true, clip: { x: 0, y: y0 - 8, width: 1360, height: y1 - y0 + 260 } });
	await toggle.click();
	assert.equal(await list.locator(`[data-testid=bucket-row][data-root-id="${r.bucket_id}"]:visible`).count(), r.buckets - 1);
	// Right under the root.
	const order = await list.locator('[data-testid=bucket-row]').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.bucketId)));
	const at = order.indexOf(r.bucket_id);
	assert.deepEqual(order.slice(at + 1, at + r.buckets).sort((a, b) => a - b), r.bucket_ids.filter((x) => x !== r.bucket_id).sort((a, b) => a - b));
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.locator('[data-testid=run-buckets]').screenshot({ path: path.join(SHOTS, 'roots-buckets-grouped.png') });

	// The run's mismatches, the stored ones and the buckets, in words that add up.
	const stored = roots.roots.reduce((n, x) => n + x.mismatches, 0);
	const note = await page.textContent('[data-testid=run-stored]');
	assert.ok(run.counts.differ > stored, `a sample is stored (${stored} of ${run.counts.differ})`);
	assert.match(note, new RegExp(`^${run.counts.differ.toLocaleString('en-US')} mismatches in this run; ${stored.toLocaleString('en-US')} of them stored in full .* in ${roots.buckets} buckets\\.`));
	assert.match(await page.textContent('[data-testid=run-roots] [data-testid=roots-summary]'),
		new RegExp(`the ${stored.toLocaleString('en-US')} stored mismatches \\(of ${run.counts.differ.toLocaleString('en-US')} in the run\\) in ${roots.buckets} buckets`));
	assert.equal(await page.textContent('[data-testid=run-buckets] thead th.num:nth-of-type(4)'), 'Stored in this run');
	// The notation explained where it is shown: a legend under the list, words on each shape.
	const legend = page.locator('[data-testid=run-buckets] [data-testid=key-legend]');
	assert.ok(await legend.isVisible());
	assert.match(await legend.textContent(), /each part is base → candidate.*C a control byte or DEL.*∅ nothing/);
	const shape = rootRow.locator('[data-testid=key-summary] code.shape').first();
	const shown = await shape.textContent();
	assert.equal(await shape.getAttribute('title'), shapeWords(shown === '∅' ? '' : shown));

	// Triage on the root: one request, every bucket confirmed, an audit entry each naming the root.
	await page.locator('[data-testid=me-name]').first().fill('rootie');
	const rrow = page.locator(`[data-testid=run-roots] [data-testid=root][data-bucket-id="${r.bucket_id}"]`);
	assert.equal(await rrow.locator('[data-testid=root-states]').textContent(), `${r.buckets} new`);
	assert.equal(await rrow.locator('[data-testid=root-triage]').textContent(), `Set on ${r.buckets} buckets`);
	await rrow.locator('[data-testid=root-state]').selectOption('confirmed');
	const posts = [];
	page.on('request', (q) => { if (q.method() === 'POST') posts.push(new URL(q.url()).pathname); });
	await rrow.locator('[data-testid=root-triage]').click();
	assert.equal(await page.locator('[data-testid=run-roots] [data-testid=root-triage-done]').textContent(),
		`Root cause #${r.bucket_id}: ${r.buckets} buckets changed to confirmed.`);
	assert.deepEqual(posts, [`/api/roots/${r.bucket_id}/triage`], 'one request');
	for (const id of r.bucket_ids) {
		const b = (await d.get(`/api/buckets/${id}`)).json;
		assert.equal(b.state, 'confirmed', `bucket ${id}`);
		assert.equal(b.events.length, 1);
		assert.equal(b.events[0].by, 'rootie');
		assert.deepEqual(b.events[0].changes, { state: ['new', 'confirmed'], root: r.bucket_id });
	}
	// The page shows it: the root's states, and the buckets' rows (reloaded).
	await page.locator(`[data-testid=run-roots] [data-testid=root][data-bucket-id="${r.bucket_id}"] [data-testid=root-states]`)
		.filter({ hasText: `${r.buckets} confirmed` }).waitFor();
	await list.locator(`[data-testid=bucket-row][data-bucket-id="${r.bucket_id}"][data-state=confirmed]`).waitFor();

	// The bucket page says its count is of stored mismatches.
	await page.goto(`${d.url}/#/buckets/${r.bucket_id}`);
	const rb = (await d.get(`/api/buckets/${r.bucket_id}`)).json;
	assert.equal(await page.textContent('[data-testid=bucket-stored]'), `${rb.mismatches} stored mismatch${rb.mismatches === 1 ? '' : 'es'}`);
	await page.goto(`${d.url}/#/buckets/${member}`);
	assert.equal(await page.textContent('[data-testid=audit-entry][data-by=rootie] [data-testid=audit-root]'), `set on root cause #${r.bucket_id}`);

	// The bulk form's "joined": the root's row stands for its buckets.
	res = await d.request('POST', '/api/buckets/triage', { body: { by: 'ana', state: 'expected', ids: [r.bucket_id], joined: true } });
	assert.equal(res.status, 200, res.text);
	assert.equal(res.json.changed, r.buckets);
	assert.deepEqual(res.json.buckets.map((b) => b.state), r.bucket_ids.map(() => 'expected'));
	res = await d.request('POST', `/api/roots/${r.bucket_id}/triage`, { body: { by: 'ana', state: 'expected' } });
	assert.equal(res.status, 200, res.text);
	assert.equal(res.json.root_id, r.bucket_id);
	assert.equal(res.json.changed, 0, 'nothing differed: nothing recorded');
	assert.equal(res.json.buckets.length, r.buckets);
	assert.deepEqual(errors, []);
});

// Issue 23, item 6: the reducer's minimal cases ("minimal: …, reduced in N
// steps") do not flood the overview's Recent cases; they are source "reduced".
test('the reducer\'s minimal cases are source "reduced", left out of Recent cases', async () => {
	const minimal = new Set(roots.roots.map((x) => x.minimal && x.minimal.case_id).filter(Boolean));
	assert.ok(minimal.size > 0);
	const reduced = (await d.get('/api/cases?source=reduced&limit=500')).json.cases;
	assert.ok(reduced.length >= minimal.size);
	for (const c of reduced) {
		assert.equal(c.source, 'reduced');
		assert.match(c.title, /^minimal: .*, reduced in \d+ steps?$/);
	}
	for (const id of minimal) assert.ok(reduced.some((c) => c.id === id), `minimal case #${id} listed as reduced`);
	const others = (await d.get('/api/cases?source=stored,submitted&limit=500')).json.cases;
	assert.ok(others.length > 0);
	assert.ok(others.every((c) => c.source !== 'reduced' && !c.title.startsWith('minimal: ')));
	assert.equal((await d.get('/api/cases?source=reduced,bogus')).status, 400);
	const page1 = (await d.get('/api/cases?source=stored,submitted&limit=1')).json;
	assert.match(page1.next, /source=stored,submitted&limit=1&before=/, 'next keeps the filter');

	await page.goto('about:blank');
	await page.goto(`${d.url}/#/`);
	const rows = page.locator('[data-testid=case-row]');
	await rows.first().waitFor();
	assert.equal(await page.locator('[data-testid=case-row] td.title', { hasText: /^minimal: / }).count(), 0, 'no minimal case in Recent cases');
	assert.match(await page.textContent('[data-testid=reduced-hidden]'), /minimal cases are not listed here/);
	await page.click('[data-testid=filter-source-reduced]');
	await page.locator('[data-testid=case-row] td.title', { hasText: /^minimal: / }).first().waitFor();
	assert.equal(await rows.count(), Math.min(50, reduced.length));
	assert.deepEqual(errors, []);
});

// Issue 21: listing a generated run's cases writes nothing.  A mismatch the
// run did not store in full is a row without an id; "open" stores it
// (POST /api/runs/ID/cases) and shows its case page.
test('the run\'s cases: a mismatch not stored in full has no id until "open" stores and shows it', async () => {
	const listed = (await d.get(`/api/runs/${runId}/cases?verdict=differ&limit=50`)).json.cases;
	const unstored = listed.find((c) => c.id === null);
	assert.ok(unstored, 'a sample of each signature is stored: some of the first 50 mismatches are not');
	await page.goto('about:blank');
	await page.goto(`${d.url}/#/runs/${runId}?verdict=differ`);
	const row = page.locator('[data-testid=case-row]').filter({
		has: page.locator('td.title', { hasText: new RegExp(`^${unstored.title} open$`) }) });
	await row.waitFor();
	assert.equal(await row.getAttribute('data-case-id'), '');
	assert.equal(await row.locator('a').count(), 0, 'nothing to link to yet');
	await row.locator('[data-testid=store-case]').click();
	await page.waitForURL(/#\/cases\/\d+$/);
	const id = Number(page.url().match(/#\/cases\/(\d+)$/)[1]);
	await page.locator('h1', { hasText: unstored.title }).waitFor();
	const c = (await d.get(`/api/cases/${id}`)).json;
	assert.equal(c.case.title, unstored.title);
	assert.equal(c.run_id, runId);
	assert.equal(c.verdict, 'differ');
	const again = (await d.get(`/api/runs/${runId}/cases?verdict=differ&limit=50`)).json.cases;
	assert.equal(again.find((x) => x.generated.index === unstored.generated.index).id, id);
	assert.deepEqual(errors, []);
});
