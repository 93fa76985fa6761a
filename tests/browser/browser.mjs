// What the browser tests share: Debian's headless Chromium through
// playwright-core, and a page whose script errors are collected.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.PHPCMP_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
	'--disable-background-networking', '--disable-component-update', '--disable-sync'];

// A browser and one page (1360 x 900, 30 s timeouts); every page error and
// console error goes into `errors`, for a test to assert there are none.
export async function openPage(errors) {
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
	const page = await context.newPage();
	page.setDefaultTimeout(30_000);
	page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
	// A failed load's text does not say which URL: its location does.
	page.on('console', (m) => {
		if (m.type() === 'error') errors.push(`console: ${m.text()}${m.location()?.url ? ` (${m.location().url})` : ''}`);
	});
	return { browser, page };
}
