// Issue 9: another site cannot write to the daemon through the user's
// browser.  In a real headless Chromium, a page served from a *different*
// loopback origin (another port of 127.0.0.1, and localhost) tries what any
// page may do without CORS — a no-cors fetch with a JSON body, a form POST
// (text/plain, which can carry a JSON-looking body, and urlencoded), a
// navigator.sendBeacon — against every kind of write; a page on a name that
// resolves to 127.0.0.1 (DNS rebinding, via --host-resolver-rules) is not
// served.  Nothing is created or changed.  The daemon's own page still writes.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { Daemon, tableCounts } from '../integration/helper.mjs';

const CHROMIUM = process.env.PHPCMP_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	'--disable-background-networking', '--disable-component-update', '--disable-sync',
	'--host-resolver-rules=MAP rebind.example 127.0.0.1'];

let d, browser, page, evil, evilPort;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The attacker's page: fires every kind of write it can at the daemon, then
// says so in its title.
function evilPage(target) {
	const body = JSON.stringify({ code: '"pwned"', title: 'cross-site' });
	return `<!doctype html><html><head><title>loading</title></head><body>
<form id="f1" method="POST" action="${target}/api/cases" enctype="text/plain" target="sink1">
<input name='{"code":"\\"pwned-form\\"","x":"' value='"}'></form>
<form id="f2" method="POST" action="${target}/api/runs" target="sink2"><input name="suite" value="stored"></form>
<form id="f3" method="POST" action="${target}/api/buckets/triage" enctype="text/plain" target="sink3">
<input name='{"ids":[1],"state":"ignored","by":"evil","x":"' value='"}'></form>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
<script>
(async () => {
	const out = [];
	const t = ${JSON.stringify(target)};
	const body = ${JSON.stringify(body)};
	for (const [path, b] of [['/api/cases', body], ['/api/runs', '{"suite":"stored"}'], ['/api/runs/1/cancel', ''],
		['/api/buckets/triage', '{"ids":[1],"state":"ignored","by":"evil"}']]) {
		try { await fetch(t + path, { method: 'POST', mode: 'no-cors', body: new Blob([b]) }); out.push('fetch-sent'); }
		catch (e) { out.push('fetch-error ' + e); }
		try { await fetch(t + path, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: b }); out.push('fetch-text-sent'); }
		catch (e) { out.push('fetch-error ' + e); }
		out.push('beacon ' + navigator.sendBeacon(t + path, b));
		out.push('beacon-blob ' + navigator.sendBeacon(t + path, new Blob([b], { type: 'text/plain' })));
	}
	// A CORS request with the JSON type: the preflight is never granted.
	try { await fetch(t + '/api/cases', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }); out.push('cors-ok'); }
	catch (e) { out.push('cors-refused'); }
	document.getElementById('f1').submit();
	document.getElementById('f2').submit();
	document.getElementById('f3').submit();
	await new Promise((r) => setTimeout(r, 1500));
	window.results = out;
	document.title = 'done';
})();
</script></body></html>`;
}

before(async () => {
	d = await Daemon.start({ name: 'cross-site' });
	// A bucket to aim triage at, and a run to aim cancel at.
	await d.runCase({ code: 'PHP_VERSION' });
	evil = http.createServer((req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
		res.end(evilPage(new URL(req.url, 'http://x').searchParams.get('target') || d.url));
	});
	await new Promise((r) => evil.listen(0, '127.0.0.1', r));
	evilPort = evil.address().port;
	browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	page = await (await browser.newContext()).newPage();
	page.setDefaultTimeout(20_000);
});

after(async () => {
	await browser?.close();
	await new Promise((r) => (evil ? evil.close(r) : r()));
	await d?.stopClean();
});

async function state() {
	const buckets = (await d.get('/api/buckets?limit=100')).json;
	return { tables: tableCounts(d.db), buckets: JSON.stringify(buckets) };
}

async function attack(pageUrl, target) {
	const before = await state();
	await page.goto(`${pageUrl}/?target=${encodeURIComponent(target)}`);
	await page.waitForFunction(() => document.title === 'done', null, { timeout: 30_000 });
	const results = await page.evaluate(() => window.results);
	await sleep(500); // beacons are sent in the background
	assert.deepEqual(await state(), before, `nothing written by a page on ${pageUrl}: ${results.join(', ')}`);
	return results;
}

test('a page on another loopback port cannot write: no-cors fetch, forms, beacons', async () => {
	const results = await attack(`http://127.0.0.1:${evilPort}`, d.url);
	assert.ok(results.includes('fetch-sent'), 'the no-cors fetches were sent');
	assert.ok(results.includes('beacon true'), 'the beacons were queued');
	assert.ok(results.includes('cors-refused'), 'a CORS write is never allowed');
});

test('a page on another loopback address cannot write either', async () => {
	await attack(`http://localhost:${evilPort}`, d.url);
});

test('a name rebound to 127.0.0.1 is not served: the page, the API, writes', async () => {
	const r = await page.goto(`http://rebind.example:${d.port}/`);
	assert.equal(r.status(), 403);
	const api = await page.goto(`http://rebind.example:${d.port}/api/cases`);
	assert.equal(api.status(), 403);
	assert.match(await api.text(), /host_not_allowed/);
	// The attacker's page on the rebound name, posting to its "own" origin.
	await attack(`http://127.0.0.1:${evilPort}`, `http://rebind.example:${d.port}`);
});

test('the daemon\'s own page still writes, body-less writes too', async () => {
	await page.goto(`${d.url}/#/`);
	const status = await page.evaluate(async () => {
		const r = await fetch('/api/cases', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"code":"\\"mine\\""}' });
		return r.status;
	});
	assert.equal(status, 201);
	// The page's own form.
	await page.goto(`${d.url}/#/new`);
	await page.fill('[data-testid=code-input]', '"from the page"');
	await page.click('[data-testid=submit-case]');
	await page.waitForURL(/#\/cases\/\d+$/);
	await page.locator('[data-testid=verdict][data-verdict=same]').waitFor();
});

test('an output too large to answer inline: the case page links to its bytes', async () => {
	const c = await d.runCase({ code: 'str_repeat("z", 100000)' });
	await page.goto(`${d.url}/#/cases/${c.id}`);
	const link = page.locator('[data-testid=output-link-base]');
	await link.waitFor();
	assert.match(await page.locator('[data-testid=output-base]').textContent(), /^100,002 bytes/);
	const href = await link.getAttribute('href');
	const r = await d.get(href);
	assert.equal(r.raw.length, 100002);
});
