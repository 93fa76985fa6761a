// Shared by the page's unit tests (tests/web/*.test.mjs): the page's
// modules are imported straight from web/js/; jsdiff is the very file the
// daemon serves as /vendor/diff.js (node_modules/diff/dist/diff.min.js,
// make web-deps), run as the browser runs it, defining the global Diff.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WEB = path.join(ROOT, 'web/js');

/* The vendored jsdiff, as the page sees it (the global Diff of a classic script). */
export function loadJsdiff() {
	const file = path.join(ROOT, 'node_modules/diff/dist/diff.min.js');
	const sandbox = {};
	sandbox.globalThis = sandbox;
	vm.runInNewContext(fs.readFileSync(file, 'utf8'), sandbox, { filename: file });
	if (!sandbox.Diff || typeof sandbox.Diff.diffArrays !== 'function')
		throw new Error(`${file} did not define Diff.diffArrays`);
	return sandbox.Diff;
}

/* Bytes from a string of "\xNN" escapes and plain characters (UTF-8 encoded). */
export function bytes(s) {
	const out = [];
	const enc = new TextEncoder();
	for (let i = 0; i < s.length;) {
		if (s[i] === '\\' && s[i + 1] === 'x') {
			out.push(parseInt(s.slice(i + 2, i + 4), 16));
			i += 4;
		} else {
			const cp = s.codePointAt(i);
			const ch = String.fromCodePoint(cp);
			out.push(...enc.encode(ch));
			i += ch.length;
		}
	}
	return Uint8Array.from(out);
}

/* The text of [start, end) ranges of b, for readable assertions. */
export function rangeTexts(b, ranges) {
	return ranges.map((r) => Buffer.from(b.subarray(r.start, r.end)).toString('latin1'));
}
