// Where the instructions went, on the page (issue 11), in headless Chromium:
// base = 8.2.32 built from source, head = the same with keys-fastpath.patch,
// deb = Debian's stripped 8.2.32.  The counts page's json_encoder.c toggle
// (n/a for the stripped build, said so), a workload row opening its function
// diff, the switch between candidates, a value-only workload with no changed
// function.  Screenshot: tests/artifacts/screenshots/functions-diff.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, ROOT, tmpDir } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
const WORKLOADS = ['04-rows-12-keys.phpt', '10-a-slash-b.phpt'];
const ROWS = 'workloads/04-rows-12-keys.phpt', SLASH = 'workloads/10-a-slash-b.phpt';

function prefixOf(name) {
	const p = path.join(BUILDS, name);
	if (!fs.existsSync(path.join(p, 'lib/libphp.so'))) {
		throw new Error(`${p}/lib/libphp.so is missing: run \`make src-builds\` (scripts/src-builds.sh) first`);
	}
	return p;
}

let d, browser, page, casesDir, runId;
const pageErrors = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function shot(name) {
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

before(async () => {
	casesDir = tmpDir('phpcmp-browser-fn-');
	fs.mkdirSync(path.join(casesDir, 'workloads'));
	for (const w of WORKLOADS) fs.copyFileSync(path.join(ROOT, 'cases/workloads', w), path.join(casesDir, 'workloads', w));
	d = await Daemon.start({
		name: 'browser-functions', cases: casesDir,
		buildList: [['base', prefixOf('src-8.2.32')], ['keys-fastpath', prefixOf('src-8.2.32-keys-fastpath')], ['deb', path.join(BUILDS, 'base')]],
	});
	const post = await d.request('POST', '/api/runs', { body: { suite: 'measure' } });
	assert.equal(post.status, 202, post.text);
	for (const t0 = Date.now(); ;) {
		const r = await d.get(`/api/runs/${post.json.id}`);
		if (!['queued', 'running'].includes(r.json.status)) {
			assert.equal(r.json.status, 'done', r.text);
			break;
		}
		if (Date.now() - t0 > 600_000) throw new Error('the measure run did not finish');
		await sleep(200);
	}
	runId = post.json.id;
	({ browser, page } = await openPage(pageErrors));
});

after(async () => {
	await browser?.close();
	await d?.stopClean();
	if (casesDir) fs.rmSync(casesDir, { recursive: true, force: true });
});

const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
const row = (source) => page.locator(`[data-testid=counts-row][data-source="${source}"]`);

test('the counts page: json_encoder.c on request, n/a for the stripped build and said so', async () => {
	await page.goto(`${d.url}/#/runs/${runId}/counts?show=all`);
	await page.locator('[data-testid=counts-table][data-shape=candidates]').waitFor();
	assert.equal(await page.locator('[data-testid=enc-delta]').count(), 0, 'no json_encoder.c figures until asked');
	await page.locator('[data-testid=encoder-toggle]').click();
	await page.locator('[data-testid=enc-delta]').first().waitFor();
	assert.match(page.url(), /encoder=1/);
	assert.match(await row(ROWS).locator('[data-testid=enc-delta][data-candidate=keys-fastpath]').textContent(), /^enc −\d+\.\d$/);
	assert.equal(await row(SLASH).locator('[data-testid=enc-delta][data-candidate=keys-fastpath]').textContent(), 'enc ±0.0');
	assert.equal(await row(ROWS).locator('[data-testid=enc-delta][data-candidate=deb]').textContent(), 'enc n/a');
	assert.match(await row(ROWS).locator('[data-testid=enc-base]').textContent(), /^json_encoder\.c \d{1,3}(,\d{3})*(\.\d\d)?$/);
	assert.match(await page.locator('[data-testid=encoder-unavailable]').textContent(), /^deb: json_encoder\.c unavailable — a stripped library/);
	assert.match(await page.locator('[data-testid=report-md]').getAttribute('href'), /json_encoder=1/);
	assert.ok(await noSidewaysScroll(), 'the json_encoder.c figures add no column');
	assert.deepEqual(pageErrors, []);
});

test('a workload row opens its function diff: json_encoder.c\'s two functions, the switch to another candidate', async () => {
	await page.goto(`${d.url}/#/runs/${runId}/counts?show=all`);
	await row(ROWS).locator('[data-testid=functions-link][data-vs=head]').click();
	await page.locator('[data-testid=functions-table]').waitFor();
	assert.match(page.url(), /#\/comparisons\/\d+\/functions\?vs=head$/);
	const fns = page.locator('[data-testid=function-row]');
	assert.equal(await fns.count(), 2, 'only the changed functions by default');
	assert.deepEqual([await fns.nth(0).getAttribute('data-name'), await fns.nth(0).getAttribute('data-change')], ['php_json_escape_string', 'less']);
	assert.deepEqual([await fns.nth(1).getAttribute('data-name'), await fns.nth(1).getAttribute('data-change')], ['php_json_encode_array', 'more']);
	assert.match(await fns.nth(0).locator('[data-testid=delta-self]').textContent(), /^−\d{1,3}(,\d{3})*(\.\d\d)?$/);
	assert.equal(await page.locator('[data-testid=file-row]').first().getAttribute('data-file'), 'ext/json/json_encoder.c');
	assert.match(await page.locator('[data-testid=fn-enc-delta]').textContent(), /^ \(−\d+\.\d %\)$/);
	assert.equal(await page.locator('[data-testid=stripped-note]').count(), 0);
	assert.ok(await noSidewaysScroll());
	await shot('functions-diff');

	// All functions on request; then the stripped candidate.
	await page.locator('a[href*="show=all"]').first().click();
	await page.waitForFunction(() => document.querySelectorAll('[data-testid=function-row]').length > 2);
	await page.locator('[data-testid=fn-vs-deb]').click();
	await page.locator('[data-testid=stripped-note]').waitFor();
	assert.match(page.url(), /vs=cand2/);
	assert.match(await page.locator('[data-testid=stripped-note]').textContent(), /^deb: a stripped library/);
	assert.match(await page.locator('[data-testid=fn-summary]').textContent(), /json_encoder\.c n\/a/);
	// Offsets where the library has no symbol for a function.
	assert.ok(await page.locator('[data-testid=function-row][data-name^="0x"]').count() > 0);
	// Issue 23: no "N functions cost more, N less" of offsets: it says it cannot compare,
	// and lists nothing as changed (every build's functions under "all").
	assert.doesNotMatch(await page.locator('[data-testid=fn-summary]').textContent(), /cost(s)? more/);
	assert.match(await page.locator('[data-testid=fn-uncomparable]').textContent(), /^Cannot compare function by function: deb names its functions by offset/);
	await page.locator('a[href*="show=changed"]').first().click();
	await page.locator('[data-testid=functions-empty]').waitFor();
	assert.equal(await page.locator('[data-testid=function-row]').count(), 0);
	assert.equal(await page.locator('[data-testid=fn-uncomparable]').count(), 1);
	assert.deepEqual(pageErrors, []);
});

test('a value-only workload: no function changed', async () => {
	await page.goto(`${d.url}/#/runs/${runId}/counts?show=all`);
	await row(SLASH).locator('[data-testid=functions-link][data-vs=head]').click();
	await page.locator('[data-testid=functions-empty]').waitFor();
	assert.equal(await page.locator('[data-testid=function-row]').count(), 0);
	assert.deepEqual(pageErrors, []);
});
