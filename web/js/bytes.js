/*
 * Byte strings as the page shows them, and how two of them differ.  Pure:
 * no DOM (components/bytesview.js turns runs and hex rows into elements;
 * tests/web/bytes.test.mjs holds them to the bytes).
 *
 * The display is byte-exact: printable ASCII and valid UTF-8 are text,
 * newlines stay newlines (marked), while control bytes, DEL, invisible code
 * points and every byte of invalid UTF-8 become chips ("\xff", "\t",
 * "U+2028").  The diff uses jsdiff's diffArrays (the `diff` package, served
 * as /vendor/diff.js and read as the global `Diff`) over tokens: a
 * backslash escape, a whole UTF-8 character, or one byte.
 */

/* Bytes shown at once; larger strings get a window around the first difference. */
export const RENDER_LIMIT = 128 * 1024;

/* Bytes beyond which the middle of two outputs is highlighted whole instead of diffed. */
export const DIFF_LIMIT = 16384;

const C0 = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'TAB', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
	'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];
const C_ESC = { 9: '\\t', 13: '\\r' };
const UNI_NAMES = {
	0xA0: 'NO-BREAK SPACE', 0xAD: 'SOFT HYPHEN', 0x34F: 'COMBINING GRAPHEME JOINER',
	0x61C: 'ARABIC LETTER MARK', 0x200B: 'ZERO WIDTH SPACE', 0x200C: 'ZERO WIDTH NON-JOINER',
	0x200D: 'ZERO WIDTH JOINER', 0x200E: 'LEFT-TO-RIGHT MARK', 0x200F: 'RIGHT-TO-LEFT MARK',
	0x2028: 'LINE SEPARATOR', 0x2029: 'PARAGRAPH SEPARATOR', 0x2060: 'WORD JOINER',
	0xFEFF: 'ZERO WIDTH NO-BREAK SPACE (BOM)', 0xFFFD: 'REPLACEMENT CHARACTER',
};

export const hex2 = (n) => (n < 16 ? '0' : '') + n.toString(16);
export const cpLabel = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/* Base64 (the API's *_base64 fields) to bytes; null stays null. */
export function b64bytes(s) {
	if (s === null || s === undefined) return null;
	const bin = atob(s);
	const out = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
	return out;
}

/* Bytes of a result field: the base64 form is exact; fall back to the display string. */
export function fieldBytes(r, name) {
	const b = r[`${name}_base64`];
	if (typeof b === 'string') return b64bytes(b);
	const s = r[name];
	if (typeof s === 'string') return new TextEncoder().encode(s);
	return null;
}

/* A result's output bytes; null when there is no result or the output is false. */
export function outputBytes(r) {
	if (!r || r.output === false) return null;
	return fieldBytes(r, 'output');
}

/* Code points that would be invisible, ambiguous or layout-changing as text. */
export function invisibleCp(cp) {
	return (cp >= 0x80 && cp <= 0x9F) || cp === 0xA0 || cp === 0xAD || cp === 0x34F || cp === 0x61C ||
		cp === 0x115F || cp === 0x1160 || cp === 0x180E || (cp >= 0x2000 && cp <= 0x200F) ||
		(cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp === 0x3000 ||
		cp === 0x3164 || cp === 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFD);
}

/*
 * Strict UTF-8 at b[i] (no overlongs, surrogates or > U+10FFFF, nothing
 * past end): [codepoint, length] or null.
 */
export function decodeAt(b, i, end) {
	const c = b[i];
	let n, cp, min;
	if (c < 0x80) return [c, 1];
	if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; min = 0x80; }
	else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; min = 0x800; }
	else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; min = 0x10000; }
	else return null;
	if (i + n >= end) return null; /* truncated sequence */
	for (let k = 1; k <= n; k++) {
		const d = b[i + k];
		if ((d & 0xC0) !== 0x80) return null;
		cp = (cp << 6) | (d & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return null;
	return [cp, n + 1];
}

/* Which bytes of [from, to) are highlighted (bytes[i - from]) and where insertions are (ins[i]). */
export function diffMarks(diff, from, to) {
	const bytes = new Uint8Array(Math.max(0, to - from));
	const ins = {};
	for (const r of diff ? diff.ranges : []) {
		if (r.start === r.end) {
			if (r.start >= from && r.start <= to) ins[r.start] = true;
			continue;
		}
		for (let i = Math.max(r.start, from); i < Math.min(r.end, to); i++) bytes[i - from] = 1;
	}
	return { bytes, ins };
}

/*
 * What to show of bytes [from, to): a list of runs, each either
 * { ins: true } (the other side has bytes here) or { marked, items } with
 * marked true inside one of diff.ranges.  An item is text (a string) or a
 * chip { kind, text, title }: kind 'nl' (a newline, text "\n"), 'ctl' (a
 * control byte or DEL), 'bad' (a byte of invalid UTF-8), 'uni' (an
 * invisible code point).
 */
export function byteRuns(b, from, to, diff) {
	const runs = [];
	const marks = diffMarks(diff, from, to);
	let run = null;
	const runFor = (marked) => {
		if (!run || run.marked !== marked) {
			run = { marked, items: [] };
			runs.push(run);
		}
		return run;
	};
	const text = (marked, s) => {
		const items = runFor(marked).items;
		if (typeof items[items.length - 1] === 'string') items[items.length - 1] += s;
		else items.push(s);
	};
	const chip = (marked, kind, label, title) => runFor(marked).items.push({ kind, text: label, title });
	const ins = () => {
		run = null;
		runs.push({ ins: true });
	};
	let i = from;
	while (i < to) {
		if (marks.ins[i]) ins();
		const c = b[i], dec = decodeAt(b, i, to), len = dec ? dec[1] : 1;
		let d = false;
		for (let k = 0; k < len && !d; k++) d = marks.bytes[i + k - from] === 1;
		if (dec && c >= 0x20 && c < 0x7F) text(d, String.fromCharCode(c));
		else if (c === 0x0A) chip(d, 'nl', '\n', 'byte 0x0a (LF)');
		else if (c < 0x20 || c === 0x7F)
			chip(d, 'ctl', C_ESC[c] || `\\x${hex2(c)}`, `control byte 0x${hex2(c)} (${c === 0x7F ? 'DEL' : C0[c]})`);
		else if (!dec) chip(d, 'bad', `\\x${hex2(c)}`, `invalid UTF-8 byte 0x${hex2(c)}`);
		else if (invisibleCp(dec[0]))
			chip(d, 'uni', cpLabel(dec[0]), cpLabel(dec[0]) + (UNI_NAMES[dec[0]] ? ` ${UNI_NAMES[dec[0]]}` : ''));
		else text(d, String.fromCodePoint(dec[0]));
		i += len;
	}
	if (marks.ins[to]) ins();
	return runs;
}

/*
 * A hex dump of [from, to), from the 16-byte row holding `from`:
 * [{ offset: '00000010', cells: [{ hex: '7b', marked }, ... up to 16], ascii }].
 */
export function hexRows(b, from, to, diff) {
	from -= from % 16;
	const marks = diffMarks(diff, from, to);
	const rows = [];
	for (let row = from; row < to; row += 16) {
		const cells = [];
		let ascii = '';
		for (let i = row; i < Math.min(row + 16, to); i++) {
			cells.push({ hex: hex2(b[i]), marked: marks.bytes[i - from] === 1 });
			ascii += b[i] >= 0x20 && b[i] < 0x7F ? String.fromCharCode(b[i]) : '.';
		}
		rows.push({ offset: row.toString(16).padStart(8, '0'), cells, ascii });
	}
	return rows;
}

export function sameBytes(a, b) {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/* Back up to the start of a UTF-8 sequence so a window never splits one. */
export function charStart(b, i) {
	let k = 0;
	while (i > 0 && k < 3 && (b[i] & 0xC0) === 0x80) { i--; k++; }
	return i;
}

/*
 * The bytes [from, to) a view shows: everything when showAll, otherwise
 * RENDER_LIMIT bytes from the start, or around the first difference
 * (side.first) when that is further in; never splitting a character.
 */
export function byteWindow(b, side, showAll) {
	let from = 0, to = b.length;
	if (!showAll) {
		if (side && side.first > RENDER_LIMIT / 2) from = charStart(b, side.first - 1024);
		to = Math.min(b.length, from + RENDER_LIMIT);
		if (to < b.length) to = charStart(b, to);
	}
	return { from, to };
}

const isHex = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/*
 * Tokens of [from, to) for diffing: a backslash escape (\uXXXX or \c), a
 * whole UTF-8 character, or one byte.  Diffing whole tokens keeps a
 * highlight from splitting "\u00e9" into "\u00" and "9" around a shared
 * "e".  Returns { keys: [string], starts: [byte offset], end }.
 */
export function byteTokens(b, from, to) {
	const keys = [], starts = [];
	let i = from;
	while (i < to) {
		let len = 1;
		if (b[i] === 0x5C && i + 1 < to) {
			len = 2;
			if (b[i + 1] === 0x75)
				for (let k = 0; k < 4 && i + 2 + k < to && isHex(b[i + 2 + k]); k++) len++;
		} else if (b[i] >= 0x80) {
			const dec = decodeAt(b, i, to);
			if (dec) len = dec[1];
		}
		starts.push(i);
		keys.push(String.fromCharCode(...b.subarray(i, i + len)));
		i += len;
	}
	return { keys, starts, end: to };
}

const partCount = (part) => (part.count !== undefined ? part.count : part.value.length);

/*
 * The byte-level difference of two byte strings, or null when they are
 * equal: { a: { ranges, first }, b: { ranges, first }, engine }, a range
 * being { start, end } byte offsets (start === end: the other side has
 * bytes here).  The common prefix and suffix are cut off first (backed up
 * to a token start); jsdiff finds the edits between the tokens of what
 * remains, so each changed run is its own highlight ("\/" -> "/" three
 * times is three marks, not one long one).  Without jsdiff (engine null or
 * lacking diffArrays), or past DIFF_LIMIT, the whole middle is one
 * highlight and engine is 'prefix-suffix'.
 */
export function byteDiff(a, b, jsdiff = globalThis.Diff) {
	const n = Math.min(a.length, b.length);
	let p = 0, s = 0;
	while (p < n && a[p] === b[p]) p++;
	if (p === a.length && p === b.length) return null;
	while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
	/* Whole tokens at both ends: back up to the start of a character or of an escape
	 * begun in the prefix; go on to the end of one cut by the suffix (on both sides). */
	const inChar = (x) => p < x.length && (x[p] & 0xC0) === 0x80;
	for (let k = 0; k < 3 && p > 0 && (inChar(a) || inChar(b)); k++) p--;
	for (let q = p; q > 0 && p - q < 6; q--) {
		if (a[q - 1] !== 0x5C) continue;
		let bs = 0;
		while (q - 2 - bs >= 0 && a[q - 2 - bs] === 0x5C) bs++;
		if (bs % 2) continue;
		if (q - 1 + (a[q] === 0x75 ? 6 : 2) > p) p = q - 1;
		break;
	}
	let ea = a.length - s, eb = b.length - s;
	const tokenEnd = (x, from, at) => {
		if (at - from > DIFF_LIMIT) return at;
		const t = byteTokens(x, from, Math.min(x.length, at + 6));
		const next = t.starts.find((st) => st >= at);
		return next !== undefined ? next : t.end;
	};
	const grow = Math.min(Math.max(tokenEnd(a, p, ea) - ea, tokenEnd(b, p, eb) - eb), s);
	ea += grow;
	eb += grow;

	const A = { ranges: [], first: p }, B = { ranges: [], first: p };
	let engine = 'prefix-suffix', parts = null, ta = null, tb = null;
	if (jsdiff && jsdiff.diffArrays && ea - p <= DIFF_LIMIT && eb - p <= DIFF_LIMIT) {
		ta = byteTokens(a, p, ea);
		tb = byteTokens(b, p, eb);
		try {
			parts = jsdiff.diffArrays(ta.keys, tb.keys, { timeout: 300 });
		} catch {
			parts = null;
		}
	}
	if (parts) {
		engine = 'jsdiff';
		/* Token index -> byte offset (the end offset past the last token). */
		const offA = (i) => (i < ta.starts.length ? ta.starts[i] : ta.end);
		const offB = (i) => (i < tb.starts.length ? tb.starts[i] : tb.end);
		let ia = 0, ib = 0;
		for (let k = 0; k < parts.length; k++) {
			const part = parts[k], cnt = partCount(part);
			const next = parts[k + 1], nc = next ? partCount(next) : 0;
			if (part.removed && next && next.added) {
				A.ranges.push({ start: offA(ia), end: offA(ia + cnt) });
				B.ranges.push({ start: offB(ib), end: offB(ib + nc) });
				ia += cnt; ib += nc; k++;
			} else if (part.added && next && next.removed) {
				B.ranges.push({ start: offB(ib), end: offB(ib + cnt) });
				A.ranges.push({ start: offA(ia), end: offA(ia + nc) });
				ib += cnt; ia += nc; k++;
			} else if (part.removed) {
				A.ranges.push({ start: offA(ia), end: offA(ia + cnt) });
				B.ranges.push({ start: offB(ib), end: offB(ib) });
				ia += cnt;
			} else if (part.added) {
				B.ranges.push({ start: offB(ib), end: offB(ib + cnt) });
				A.ranges.push({ start: offA(ia), end: offA(ia) });
				ib += cnt;
			} else {
				ia += cnt; ib += cnt;
			}
		}
		if (!A.ranges.length && !B.ranges.length) engine = 'prefix-suffix';
	}
	if (!parts || (!A.ranges.length && !B.ranges.length)) {
		A.ranges.push({ start: p, end: ea });
		B.ranges.push({ start: p, end: eb });
	}
	return { a: A, b: B, engine };
}

/*
 * Every build's byte string against the base's (list[0]): for each index
 * the side of a byteDiff to highlight, as { ranges, first, engine }, or
 * null (no bytes, or equal to the base).  A candidate gets the second side
 * of its diff with the base; the base gets the first side of its diff with
 * the first candidate that differs from it.  With two builds that is
 * exactly byteDiff(base, head)'s a and b.
 */
export function diffAgainstBase(list, jsdiff = globalThis.Diff) {
	const out = list.map(() => null);
	const base = list[0];
	if (!base) return out;
	for (let i = 1; i < list.length; i++) {
		if (!list[i]) continue;
		const d = byteDiff(base, list[i], jsdiff);
		if (!d) continue;
		out[i] = { ...d.b, engine: d.engine };
		if (!out[0]) out[0] = { ...d.a, engine: d.engine };
	}
	return out;
}
