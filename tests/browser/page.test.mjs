// The page in a real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core from npm), against the real daemon with both real builds:
// every page opened, a case that differs submitted through the form and its
// byte-level highlight checked, copy as curl / as a stored case, a .phpt
// exported and run, buckets triaged one by one and in bulk, the state kept
// across reloads, a fixed bucket flagged when it reappears, the instruction
// counts table sorted and filtered through the URL, a history chart drawn.
// Screenshots of each page go to tests/artifacts/screenshots/.
//
// The daemon gets a cases folder made here: cases whose value depends on the
// PHP version (so 8.2.32 and 8.2.36 really differ, in four different ways),
// a few that agree, and three of the stored workloads for the measure suite.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { Daemon, ROOT, tmpDir } from '../integration/helper.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
// The flags this machine needs (closed network: no background connections).
const WORKLOADS = ['01-jsonobj.phpt', '10-a-slash-b.phpt'];

let d, browser, context, page, casesDir;
const pageErrors = [];

// Cases that differ between 8.2.32 and 8.2.36 in four ways (four buckets), and three that agree.
function writeCases(dir) {
	const c = (name, title, value, flags) => fs.writeFileSync(path.join(dir, name),
		`--TEST--\n${title}\n${flags ? `--FLAGS--\n${flags}\n` : ''}--VALUE--\n${value}\n`);
	for (let i = 1; i <= 4; i++) c(`b0${i}-version.phpt`, `the PHP version, ${i}`, `['version' => PHP_VERSION, 'n' => ${i}]`);
	for (let i = 1; i <= 3; i++) c(`b1${i}-utf8.phpt`, `invalid UTF-8 on head only, ${i}`, `PHP_VERSION_ID >= 80236 ? "bad \\xff byte ${i}" : "ok ${i}"`);
	for (let i = 1; i <= 2; i++) c(`b2${i}-accent.phpt`, `an accent on head only, ${i}`, `array_fill(0, 3, PHP_VERSION_ID >= 80236 ? "caf\\u{e9}${i}" : "cafe${i}")`);
	c('b30-throw.phpt', 'NAN on head throws', 'PHP_VERSION_ID >= 80236 ? NAN : 0.5', 'JSON_THROW_ON_ERROR');
	c('s01-same.phpt', 'an array, the same on both', "['a' => 1, 'b' => [true, null]]");
	c('s02-same.phpt', 'a slash, the same on both', "'a/b'");
	c('s03-same.phpt', 'a line separator, the same on both', '"\\u{2028}"', 'JSON_UNESCAPED_UNICODE');
	fs.mkdirSync(path.join(dir, 'workloads'));
	for (const w of WORKLOADS) fs.copyFileSync(path.join(ROOT, 'cases/workloads', w), path.join(dir, 'workloads', w));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(method, p, body) {
	const r = await d.request(method, p, body !== undefined ? { body } : {});
	if (r.status >= 300) throw new Error(`${method} ${p} -> ${r.status} ${r.text}`);
	return r.json;
}

async function waitRun(id, deadlineMs = 120_000) {
	const t0 = Date.now();
	for (;;) {
		const r = await api('GET', `/api/runs/${id}`);
		if (!['queued', 'running'].includes(r.status)) return r;
		if (Date.now() - t0 > deadlineMs) throw new Error(`run ${id} still ${r.status}`);
		await sleep(150);
	}
}

async function shot(name) {
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function open(hash) {
	await page.goto(`${d.url}/${hash}`);
}

before(async () => {
	casesDir = tmpDir('phpcmp-browser-cases-');
	writeCases(casesDir);
	d = await Daemon.start({ name: 'browser', cases: casesDir });
	browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
	await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
	page = await context.newPage();
	page.setDefaultTimeout(20_000);
	page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
	page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });
});

after(async () => {
	await browser?.close();
	await d?.stopClean();
	if (casesDir) fs.rmSync(casesDir, { recursive: true, force: true });
});

/* Text nodes of the page's main that are only "null" (Element.append(null) makes them). */
const nullTexts = () => page.evaluate(() => {
	const w = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
	let n = 0;
	while (w.nextNode()) if (w.currentNode.nodeValue.trim() === 'null') n++;
	return n;
});

test('the daemon serves the npm libraries, and nothing else of node_modules', async () => {
	for (const f of ['/vendor/diff.js', '/vendor/uPlot.js', '/vendor/uPlot.css']) {
		const r = await d.get(f);
		assert.equal(r.status, 200, f);
		assert.ok(r.raw.length > 1000, `${f} is the library itself`);
	}
	for (const f of ['/vendor/', '/vendor/diff', '/vendor/package.json', '/node_modules/diff/package.json',
		'/vendor/..%2fpackage.json', '/../node_modules/diff/dist/diff.js', '/vendor/diff.min.js']) {
		const r = await d.get(f);
		assert.ok(r.status === 404 || r.status === 400, `${f} -> ${r.status}`);
	}
});

test('overview: builds, latest runs with counts, open buckets, the latest measurement', async () => {
	const stored = await api('POST', '/api/runs', { suite: 'stored' });
	await waitRun(stored.id);
	for (let i = 0; i < 2; i++) await waitRun((await api('POST', '/api/runs', { suite: 'measure' })).id);
	await open('#/');
	await page.locator('[data-testid=build-row]').first().waitFor();
	assert.deepEqual(await page.locator('[data-testid=build-row] td.mono').first().textContent(), '8.2.32');
	assert.equal(await page.locator('[data-testid=build-row]').count(), 2);
	const runRow = page.locator(`[data-testid=run-row][data-run-id="${stored.id}"]`);
	await runRow.waitFor();
	assert.equal(await runRow.locator('.count-item[data-verdict=differ]').getAttribute('data-count'), '10');
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	assert.equal(await page.locator('[data-testid=bucket-row]').count(), 4, 'four ways of differing, four open buckets');
	await page.locator('[data-testid=latest-counts]').waitFor();
	assert.ok(await page.locator('[data-testid=latest-measurement]').textContent().then((t) => /regressions/.test(t)));
	await shot('overview');
});

test('a case that differs, submitted in the page: the byte-level highlight', async () => {
	await open('#/new');
	await page.fill('[data-testid=code-input]', 'PHP_VERSION');
	await page.click('[data-testid=submit-case]');
	await page.waitForURL(/#\/cases\/\d+$/);
	await page.locator('[data-testid=verdict][data-verdict=differ]').waitFor();
	const base = page.locator('[data-testid=output-base] mark.diff');
	const head = page.locator('[data-testid=output-head] mark.diff');
	assert.equal(await base.count(), 1);
	assert.equal(await base.textContent(), '2', 'base: 8.2.3[2]');
	assert.equal(await head.textContent(), '6', 'head: 8.2.3[6]');
	assert.equal(await page.locator('[data-testid=diff-summary-base]').getAttribute('data-engine'), 'jsdiff');
	// Its bucket, shown on the case page.
	await page.locator('[data-testid=case-bucket]').waitFor();
	assert.equal(await page.locator('[data-testid=case-bucket] [data-testid=bucket-state]').textContent(), 'new');

	// Several separate changes are several highlights (jsdiff), not one span.
	await open('#/new');
	await page.fill('[data-testid=code-input]', 'array_fill(0, 3, PHP_VERSION_ID >= 80236 ? "\\u{e9}t\\u{e9}" : "ete")');
	await page.click('[data-testid=submit-case]');
	await page.waitForURL(/#\/cases\/\d+$/);
	await page.locator('[data-testid=verdict][data-verdict=differ]').waitFor();
	const marks = await page.locator('[data-testid=output-head] mark.diff:not(.ins)').allTextContents();
	assert.equal(marks.length, 6, `six escapes on head, each its own highlight: ${JSON.stringify(marks)}`);
	assert.ok(marks.every((m) => m === '\\u00e9'), JSON.stringify(marks));
	assert.deepEqual(await page.locator('[data-testid=output-base] mark.diff:not(.ins)').allTextContents(), ['e', 'e', 'e', 'e', 'e', 'e']);
	await shot('case');
});

test('copy as curl, copy as a stored case file, export a .phpt that php-src can run', async () => {
	await open('#/new');
	await page.fill('[data-testid=code-input]', "['path' => 'a/b', 'v' => PHP_MAJOR_VERSION]");
	await page.check('#flag-JSON_UNESCAPED_SLASHES');
	await page.click('[data-testid=submit-case]');
	await page.waitForURL(/#\/cases\/\d+$/);
	await page.locator('[data-testid=verdict][data-verdict=same]').waitFor();
	const caseId = page.url().match(/cases\/(\d+)/)[1];

	await page.click('[data-testid=copy-curl]');
	await page.locator('[data-testid=copy-curl-msg]', { hasText: 'Copied' }).waitFor();
	const curl = await page.evaluate(() => navigator.clipboard.readText());
	assert.match(curl, /^curl .*--data-binary/s);
	assert.match(curl, /JSON_UNESCAPED_SLASHES/);
	assert.ok(curl.includes(`${d.url}/api/cases?fail_on_differ=1`));

	await page.click('[data-testid=copy-casefile]');
	await page.locator('[data-testid=copy-casefile-msg]', { hasText: 'Copied' }).waitFor();
	const casefile = await page.evaluate(() => navigator.clipboard.readText());
	// titled by its first line of code (issue 46: not every case "submitted case")
	assert.match(casefile, /^--TEST--\n\['path' => 'a\/b', 'v' => PHP_MAJOR_VERSION\]\n/);
	assert.match(casefile, /--FLAGS--\nJSON_UNESCAPED_SLASHES\n/);
	assert.match(casefile, /--VALUE--\n\['path' => 'a\/b', 'v' => PHP_MAJOR_VERSION\]/);

	const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-phpt]')]);
	assert.match(download.suggestedFilename(), new RegExp(`^json_encode_phpcmp_${caseId}.*\\.phpt$`));
	const phpt = fs.readFileSync(await download.path(), 'utf8');
	assert.match(phpt, /^--TEST--\njson_encode\(\): \['path' => 'a\/b', 'v' => PHP_MAJOR_VERSION\]\n/);
	assert.match(phpt, /--FILE--\n<\?php\n\$value = \['path' => 'a\/b', 'v' => PHP_MAJOR_VERSION\];\nvar_dump\(json_encode\(\$value, JSON_UNESCAPED_SLASHES\)\);/);
	assert.match(phpt, /--EXPECT--\nstring\(20\) "\{"path":"a\/b","v":8\}"\nint\(0\)\nstring\(8\) "No error"\n$/);
	// php-src's run-tests runs --FILE-- and compares trimmed output with --EXPECT--.
	let php = null;
	try { php = execFileSync('sh', ['-c', 'command -v php8.2 || command -v php'], { encoding: 'utf8' }).trim(); } catch { php = null; }
	if (php) {
		const file = phpt.match(/--FILE--\n([\s\S]*?)--EXPECT--\n/)[1];
		const expect = phpt.split('--EXPECT--\n')[1];
		const dir = tmpDir('phpcmp-phpt-');
		fs.writeFileSync(path.join(dir, 't.php'), file);
		const out = execFileSync(php, ['-n', path.join(dir, 't.php')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
		fs.rmSync(dir, { recursive: true, force: true });
		assert.equal(out.trim(), expect.trim(), `the exported test passes on ${php}`);
	}
	// Nothing prints a literal "null" where a section is left out (issue 23).
	assert.equal(await nullTexts(), 0, 'no "null" on a case page whose verdict is same');
	await page.locator('details.curl summary', { hasText: 'php-src test' }).click();
	await page.locator('[data-testid=phpt-text]', { hasText: '--EXPECT--' }).waitFor();
});

test('control bytes in a case\'s code and setup are \\xNN chips, newlines and tabs kept (issue 23)', async () => {
	const c = await api('POST', '/api/cases', { title: 'a control byte in the code', setup: 'class K {\n\tpublic $v = "\u0002";\n}', code: '["a\u0001b", (new K)->v, "\u007f"]' });
	await open(`#/cases/${c.id ?? c.case.id}`);
	const code = page.locator('[data-testid=case-code]');
	await code.waitFor();
	assert.deepEqual(await code.locator('.chip.ctl').allTextContents(), ['\\x01', '\\x7f']);
	assert.equal(await code.textContent(), '["a\\x01b", (new K)->v, "\\x7f"]');
	const setup = page.locator('[data-testid=case-setup]');
	assert.equal(await setup.locator('.chip.ctl').textContent(), '\\x02');
	assert.equal(await setup.textContent(), 'class K {\n\tpublic $v = "\\x02";\n}', 'newlines and tabs as they are');
});

test('run page: progress, counts, buckets; bulk triage; the state survives a reload', async () => {
	await open('#/');
	await page.click('[data-testid=start-run]');
	await page.waitForURL(/#\/runs\/\d+$/);
	const runId = page.url().match(/runs\/(\d+)/)[1];
	await page.locator('[data-testid=run-head][data-status=done]').waitFor({ timeout: 60_000 });
	assert.equal(await page.locator('[data-testid=run-progress]').getAttribute('data-done'), '15', '10 + 3 cases, 2 workloads');
	assert.equal(await page.locator('[data-testid=run-counts] .count-item[data-verdict=differ]').getAttribute('data-count'), '10');
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	const counts = await page.locator('[data-testid=bucket-row] [data-testid=bucket-count]').evaluateAll((tds) => tds.map((td) => td.firstChild.textContent));
	assert.deepEqual(counts.map((t) => parseInt(t, 10)), [4, 3, 2, 1], 'most mismatches first');
	assert.equal(await page.locator('[data-testid=earlier-runs]').count(), 4, 'every bucket was seen in the first run too');

	// Without a name, nothing is sent.
	await page.evaluate(() => localStorage.removeItem('phpcmp.by'));
	await page.reload();
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	await page.locator('[data-testid=bucket-check]').nth(1).check();
	await page.selectOption('[data-testid=bulk-state]', 'confirmed');
	await page.click('[data-testid=bulk-apply]');
	await page.locator('[data-testid=need-name]').waitFor();

	await page.locator('[data-testid=me-name]').first().fill('alice');
	await page.locator('[data-testid=bucket-check]').nth(2).check();
	await page.fill('[data-testid=bulk-assignee]', 'bob');
	await page.click('[data-testid=bulk-apply]');
	await page.locator('[data-testid=bulk-done]', { hasText: '2 buckets changed' }).waitFor();
	await page.reload();
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	const states = await page.locator('[data-testid=bucket-row]').evaluateAll((rows) => rows.map((r) => r.dataset.state));
	assert.deepEqual(states, ['new', 'confirmed', 'confirmed', 'new']);
	await shot('run');
	const b = await api('GET', `/api/buckets?run=${runId}`);
	assert.equal(b.buckets[1].assignee, 'bob');
	assert.equal(b.buckets[1].updated_by, 'alice');
});

test('bucket page: triage form, audit trail, a fixed bucket that reappears is flagged', async () => {
	const buckets = (await api('GET', '/api/buckets?limit=50')).buckets;
	const version = buckets.find((x) => x.key.output && x.key.output[0] === '0' && x.mismatches >= 8);
	assert.ok(version, 'the PHP_VERSION bucket');
	await open(`#/buckets/${version.id}`);
	await page.locator('[data-testid=triage-form]').waitFor();
	assert.equal(await page.locator('[data-testid=bucket-key]').count(), 1);
	await page.locator('[data-testid=results]').waitFor();   // the representative's diff
	assert.equal(await nullTexts(), 0, 'no "null" on a bucket page');
	await page.check('[data-testid=triage-state-fixed]');
	await page.fill('[data-testid=triage-notes]', 'PHP_VERSION differs by design; fixed in the test data');
	await page.click('[data-testid=triage-save]');
	await page.locator('[data-testid=audit-entry][data-by=alice]').first().waitFor();
	await page.reload();
	await page.locator('[data-testid=triage-form]').waitFor();
	assert.equal(await page.locator('.verdict-line [data-testid=bucket-state]').textContent(), 'fixed');
	assert.equal(await page.locator('[data-testid=triage-notes]').inputValue(), 'PHP_VERSION differs by design; fixed in the test data');

	// A later run finds it again: flagged on the page, noted in the trail by the daemon.
	await waitRun((await api('POST', '/api/runs', { suite: 'stored' })).id);
	await page.reload();
	await page.locator('[data-testid=reappeared-notice]').waitFor();
	await page.locator('[data-testid=audit-entry][data-by=phpcmp][data-action=reappeared]').waitFor();
	await shot('bucket');

	await open('#/buckets?state=reappeared');
	await page.locator('[data-testid=bucket-row]').first().waitFor();
	assert.deepEqual(await page.locator('[data-testid=bucket-row]').evaluateAll((r) => r.map((x) => Number(x.dataset.bucketId))), [version.id]);
	await open('#/buckets?state=confirmed');
	await page.locator('[data-testid=filter-state-confirmed][aria-current=true]').waitFor();
	// The list is drawn after the filter: wait for a list of confirmed rows
	// only (the reappeared list's row may still be there on a slow daemon).
	await page.waitForFunction(() => {
		const rows = [...document.querySelectorAll('[data-testid=bucket-row]')];
		return rows.length > 0 && rows.every((x) => x.dataset.state === 'confirmed');
	}, null, { timeout: 15_000 }).catch(() => {});
	assert.ok((await page.locator('[data-testid=bucket-row]').evaluateAll((r) => r.map((x) => x.dataset.state))).every((s) => s === 'confirmed'));
	await page.locator('[data-testid=audit-trail]').waitFor();
	await shot('triage');
});

test('instruction counts: the table sorts and filters through the URL; a history chart per build', async () => {
	const runs = (await api('GET', '/api/runs?limit=50')).runs.filter((r) => r.suite === 'measure');
	const run = runs[0];
	// Issue 23: a measure run says its verdict in instructions (regressions...), its
	// outputs' "differ 0 / same N" only as outputs — on its page and the overview.
	const m = await api('GET', `/api/runs/${run.id}/measurements`);
	const words = (c) => `${c.regressions} regression${c.regressions === 1 ? '' : 's'} ${c.improvements} improvement${c.improvements === 1 ? '' : 's'} ${c.unchanged} unchanged${c.unmeasured ? ` ${c.unmeasured} unmeasured` : ''}`;
	await open(`#/runs/${run.id}`);
	const head = page.locator('[data-testid=run-head] [data-testid=run-instructions]');
	await head.waitFor();
	assert.equal(await head.textContent(), words(m.counts));
	assert.equal(await head.locator('[data-kind=regression]').getAttribute('href'), `#/runs/${run.id}/counts?show=regressions`);
	assert.match(await page.textContent('[data-testid=run-head] .run-line'), /outputs: /);
	await open('#/');
	await page.locator(`[data-testid=run-row][data-run-id="${run.id}"] [data-testid=run-instructions]`).waitFor();
	assert.equal(await page.textContent(`[data-testid=run-row][data-run-id="${run.id}"] [data-testid=run-instructions]`), words(m.counts));
	await open(`#/runs/${run.id}/counts`);
	await page.locator('[data-testid=count-line]').waitFor();
	const all = (await api('GET', `/api/runs/${run.id}/measurements`)).workloads;
	const significant = all.filter((w) => w.change === 'regression' || w.change === 'improvement');
	if (significant.length) assert.equal(await page.locator('[data-testid=counts-row]').count(), significant.length, 'significant only by default');
	else await page.locator('[data-testid=counts-empty]').waitFor();
	await page.click('[data-testid=filter-show-all]');
	await page.waitForURL(/show=all/);
	await page.locator('[data-testid=counts-row]').nth(all.length - 1).waitFor();
	assert.equal(await page.locator('[data-testid=counts-row]').count(), all.length);
	await page.click('[data-testid=sort-delta]');
	await page.waitForURL(/sort=delta/);
	const dir = new URL(page.url().replace('#/', 'x/'), d.url).searchParams.get('dir');
	await page.locator(`th[aria-sort=${dir === 'asc' ? 'ascending' : 'descending'}] [data-testid=sort-delta]`).waitFor();
	const deltas = await page.locator('[data-testid=delta]').allTextContents();
	const nums = deltas.map((t) => Number(t.replace('−', '-').replace('+', '').replace('±', '')));
	const sorted = [...nums].sort((a, b) => (dir === 'asc' ? a - b : b - a));
	assert.deepEqual(nums, sorted, `sorted by delta, ${dir}`);
	await page.locator('[data-testid=workload-link]').first().click();
	await page.waitForURL(/workload=/);
	await page.locator('[data-testid=history-chart] canvas').waitFor();
	assert.equal(await page.locator('[data-testid=history-points] tbody tr').count(), 2, 'two measure runs, two points');
	// The URL is the permalink: a reload shows the same view.
	const url = page.url();
	await page.reload();
	await page.locator('[data-testid=history-chart] canvas').waitFor();
	assert.equal(page.url(), url);
	assert.equal(await page.locator('[data-testid=counts-row]').count(), all.length);
	await shot('counts');
});

test('a generated run: live progress, then its coverage report', async () => {
	const run = await api('POST', '/api/runs', { suite: 'generated', seed: 7, count: 3000 });
	await open(`#/runs/${run.id}`);
	await page.locator('[data-testid=run-progress]').waitFor();
	await page.locator('[data-testid=run-head][data-status=done]').waitFor({ timeout: 60_000 });
	await page.locator('[data-testid=coverage-group]').first().waitFor();
	const groups = await page.locator('[data-testid=coverage-group]').evaluateAll((g) => g.map((x) => x.dataset.group));
	const summary = (await api('GET', `/api/runs/${run.id}`)).summary;
	assert.deepEqual(groups, Object.keys(summary.coverage).filter((k) => typeof summary.coverage[k] === 'object'));
	// Issue 23: each group's table stays in its card (a long feature name wraps),
	// and its longest bar has room (the flags' bars were 2-3 px, the features' 0).
	const sizes = await page.locator('[data-testid=coverage-group]').evaluateAll((gs) => gs.map((g) => ({
		group: g.dataset.group, card: g.getBoundingClientRect().width, table: g.querySelector('table').getBoundingClientRect().width,
		bar: Math.max(...[...g.querySelectorAll('.bar')].map((b) => b.getBoundingClientRect().width)) })));
	for (const x of sizes) {
		assert.ok(x.table <= x.card + 0.5, `${x.group}: the table (${x.table} px) within its card (${x.card} px)`);
		assert.ok(x.bar >= 50, `${x.group}: the longest bar is ${x.bar} px`);
	}
	assert.equal(await page.locator('[data-testid=coverage-group][data-group=feature] th', { hasText: 'json_serializable_destructor_throws' }).count(), 1);
	await shot('generated');
});

test('a worker\'s last failure says when it was, and ages out of the overview (issue 23)', async () => {
	const real = await api('GET', '/api/health');
	const fake = structuredClone(real);
	fake.builds[0].worker = { ...fake.builds[0].worker, last_failure: 'request timed out after 1000 ms', last_failure_at: new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z'), last_failure_age_s: 120 };
	fake.builds[1].worker = { ...fake.builds[1].worker, last_failure: 'killed by signal 11', last_failure_at: '2026-01-01T00:00:00Z', last_failure_age_s: 7200 };
	await page.route(/\/api\/health$/, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fake) }));
	try {
		await page.goto('about:blank');
		await open('#/');
		const rows = page.locator('[data-testid=build-row]');
		await rows.first().waitFor();
		assert.equal(await rows.nth(0).locator('[data-testid=worker-failure]').textContent(), 'last failure 2 min ago: request timed out after 1000 ms');
		assert.equal(await rows.nth(1).locator('[data-testid=worker-failure]').count(), 0, 'two hours ago: aged out');
		assert.equal(await rows.nth(1).locator('[data-testid=worker-state]').getAttribute('title'), 'last failure 2 h ago: killed by signal 11');
	} finally {
		await page.unroute(/\/api\/health$/);
	}
});

test('no script errors on any page', async () => {
	await open('#/workloads?source=workloads/01-jsonobj.phpt');
	await page.locator('[data-testid=history-chart] canvas').waitFor();
	await open('#/nowhere');
	await page.locator('h1', { hasText: 'Not found' }).waitFor();
	assert.deepEqual(pageErrors, []);
});
