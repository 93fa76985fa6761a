// Unsupported on the page (issue 45): a case that compiles on one build only
// shows the verdict `unsupported`, on which build and why; the case view
// groups the builds by identical answer, as 3v4l groups versions.  Builds:
// the from-source 8.2.32 (--disable-all, no libxml) and Debian's 8.2.36
// (libxml built in: redeclaring its function is a compile error there).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, ROOT, srcBuild } from '../integration/helper.mjs';
import { openPage } from './browser.mjs';

const SHOTS = path.resolve(ROOT, process.env.PHPCMP_SCREENSHOTS || 'tests/artifacts/screenshots');
let d, browser, page;
const errors = [];
before(async () => {
	d = await Daemon.start({ name: 'browser-unsupported', builds: { base: srcBuild('src-8.2.32'), head: path.join(BUILDS, 'head') } });
	({ browser, page } = await openPage(errors));
});
after(async () => { await browser?.close(); await d?.stopClean(); });

test('unsupported: the verdict, which build and why; the answers grouped by build', async () => {
	const r = await d.postCase({ setup: "function libxml_use_internal_errors($x = null) { return 'mine'; }", code: 'libxml_use_internal_errors()' });
	assert.equal(r.status, 201, r.text);
	await page.goto(`${d.url}/#/cases/${r.json.id}`);
	const line = page.getByTestId('case-unsupported');
	await line.waitFor();
	assert.match((await line.textContent()).trim(), /^unsupported on head \(does not compile: Cannot redeclare libxml_use_internal_errors\(\)/);
	assert.equal(await page.locator('.verdict-line [data-testid="verdict"]').getAttribute('data-verdict'), 'unsupported');
	const groups = page.getByTestId('answer-group');
	assert.equal(await groups.count(), 2);
	assert.equal((await groups.nth(0).textContent()).trim(), 'base 8.2.32: "mine"');
	assert.match((await groups.nth(1).textContent()).trim(), /^head 8\.2\.\d+: unsupported: does not compile: Cannot redeclare/);

	// Builds that agree share one line.
	const same = await d.postCase({ code: '[1, 2]' });
	await page.goto(`${d.url}/#/cases/${same.json.id}`);
	await page.getByTestId('answers').waitFor();
	assert.equal(await page.getByTestId('answer-group').count(), 1);
	assert.match((await page.getByTestId('answer-group').textContent()).trim(), /^base 8\.2\.32, head 8\.2\.\d+: \[1,2\]$/);
	fs.mkdirSync(SHOTS, { recursive: true });
	await page.goto(`${d.url}/#/cases/${r.json.id}`);
	await page.getByTestId('answers').waitFor();
	await page.screenshot({ path: path.join(SHOTS, 'case-unsupported.png') });
	assert.deepEqual(errors, []);
});
