// web/js/bytes.js: the byte-exact display (runs of text and chips, hex
// rows, windows) and the byte diff, with the vendored jsdiff.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
	b64bytes, byteDiff, byteRuns, byteTokens, byteWindow, charStart, decodeAt, diffAgainstBase, diffMarks,
	DIFF_LIMIT, fieldBytes, hexRows, outputBytes, RENDER_LIMIT, sameBytes,
} from '../../web/js/bytes.js';
import { bytes, loadJsdiff, rangeTexts } from './helper.mjs';

const Diff = loadJsdiff();
const raw = (strings, ...subs) => bytes(String.raw(strings, ...subs));

/* A run's items as compact text: chips as [kind:text]. */
const show = (runs) => runs.map((r) => (r.ins ? '^' : (r.marked ? '<' : '') +
	r.items.map((it) => (typeof it === 'string' ? it : `[${it.kind}:${it.text}]`)).join('') + (r.marked ? '>' : ''))).join('|');

test('decodeAt: strict UTF-8, one code point and its length, or null', () => {
	assert.deepEqual(decodeAt(raw`A`, 0, 1), [0x41, 1]);
	assert.deepEqual(decodeAt(raw`\xc3\xa9`, 0, 2), [0xE9, 2]);
	assert.deepEqual(decodeAt(raw`\xe2\x80\xa8`, 0, 3), [0x2028, 3]);
	assert.deepEqual(decodeAt(raw`\xf0\x9f\x98\x80`, 0, 4), [0x1F600, 4]);
	assert.equal(decodeAt(raw`\xc0\x80`, 0, 2), null, 'overlong NUL');
	assert.equal(decodeAt(raw`\xe0\x80\xaf`, 0, 3), null, 'overlong 3-byte');
	assert.equal(decodeAt(raw`\xed\xa0\x80`, 0, 3), null, 'a surrogate');
	assert.equal(decodeAt(raw`\xf4\x90\x80\x80`, 0, 4), null, 'above U+10FFFF');
	assert.equal(decodeAt(raw`\xc3`, 0, 1), null, 'truncated');
	assert.equal(decodeAt(raw`\xe2\x80\xa8`, 0, 2), null, 'cut by the end of the window');
	assert.equal(decodeAt(raw`\xc3A`, 0, 2), null, 'not a continuation byte');
	assert.equal(decodeAt(raw`\x80`, 0, 1), null, 'a lone continuation byte');
	assert.equal(decodeAt(raw`\xff`, 0, 1), null);
});

test('byteRuns: printable ASCII and valid UTF-8 are text, invalid UTF-8 bytes are \\xNN chips', () => {
	assert.equal(show(byteRuns(raw`caf\xc3\xa9`, 0, 5, null)), 'café');
	assert.equal(show(byteRuns(raw`a\xffb`, 0, 3, null)), String.raw`a[bad:\xff]b`);
	/* Each byte of a broken sequence is its own chip. */
	assert.equal(show(byteRuns(raw`\xe2\x80x`, 0, 3, null)), String.raw`[bad:\xe2][bad:\x80]x`);
	assert.equal(show(byteRuns(raw`\xc0\x80`, 0, 2, null)), String.raw`[bad:\xc0][bad:\x80]`, 'overlong');
	assert.equal(show(byteRuns(raw`\xed\xa0\x80`, 0, 3, null)), String.raw`[bad:\xed][bad:\xa0][bad:\x80]`, 'surrogate');
	const [run] = byteRuns(raw`\xff`, 0, 1, null);
	assert.deepEqual(run.items[0], { kind: 'bad', text: '\\xff', title: 'invalid UTF-8 byte 0xff' });
});

test('byteRuns: control bytes, DEL, newlines and invisible code points are chips', () => {
	assert.equal(show(byteRuns(raw`a\x00\x09\x0d\x1b\x7fz`, 0, 7, null)),
		String.raw`a[ctl:\x00][ctl:\t][ctl:\r][ctl:\x1b][ctl:\x7f]z`);
	const runs = byteRuns(raw`\x00\x7f\x0a`, 0, 3, null);
	assert.deepEqual(runs[0].items.map((i) => i.title),
		['control byte 0x00 (NUL)', 'control byte 0x7f (DEL)', 'byte 0x0a (LF)']);
	assert.equal(runs[0].items[2].kind, 'nl');
	assert.equal(runs[0].items[2].text, '\n');
	const uni = byteRuns(raw`[\xe2\x80\xa8\xc2\xa0\xef\xbb\xbf]`, 0, 10, null);
	assert.equal(show(uni), '[[uni:U+2028][uni:U+00A0][uni:U+FEFF]]');
	assert.equal(uni[0].items[1].title, 'U+2028 LINE SEPARATOR');
	assert.equal(uni[0].items[3].title, 'U+FEFF ZERO WIDTH NO-BREAK SPACE (BOM)');
	/* A C1 control (U+0085) is invisible too; ordinary letters are not. */
	assert.equal(show(byteRuns(raw`\xc2\x85\xc3\xb8`, 0, 4, null)), '[uni:U+0085]ø');
});

test('byteRuns: bytes in a diff range are one marked run; an empty range marks an insertion point', () => {
	const b = raw`"8.2.32"`;
	const diff = { ranges: [{ start: 6, end: 7 }], first: 6 };
	assert.equal(show(byteRuns(b, 0, b.length, diff)), '"8.2.3|<2>|"');
	const ins = { ranges: [{ start: 3, end: 3 }], first: 3 };
	assert.equal(show(byteRuns(raw`abcd`, 0, 4, ins)), 'abc|^|d');
	assert.equal(show(byteRuns(raw`ab`, 0, 2, { ranges: [{ start: 2, end: 2 }] })), 'ab|^', 'at the very end');
	/* A character is marked when any of its bytes is. */
	assert.equal(show(byteRuns(raw`x\xc3\xa9y`, 0, 4, { ranges: [{ start: 2, end: 3 }] })), 'x|<é>|y');
	/* A chip inside a range is inside the mark. */
	assert.equal(show(byteRuns(raw`a\xffb`, 0, 3, { ranges: [{ start: 1, end: 2 }] })), String.raw`a|<[bad:\xff]>|b`);
	/* Only [from, to) is shown. */
	assert.equal(show(byteRuns(raw`abcdef`, 2, 4, null)), 'cd');
});

test('diffMarks: highlighted bytes relative to from, insertion points by offset', () => {
	const m = diffMarks({ ranges: [{ start: 1, end: 3 }, { start: 5, end: 5 }, { start: 9, end: 12 }] }, 2, 10);
	assert.deepEqual(Array.from(m.bytes), [1, 0, 0, 0, 0, 0, 0, 1]);
	assert.deepEqual(m.ins, { 5: true });
	assert.deepEqual(Array.from(diffMarks(null, 0, 3).bytes), [0, 0, 0]);
});

test('hexRows: 16 bytes a row from the row holding from, offsets, ASCII, marked cells', () => {
	const b = bytes('0123456789abcdef\x00\xff!');
	const rows = hexRows(b, 17, b.length, { ranges: [{ start: 17, end: 18 }] });
	assert.equal(rows.length, 1, 'starts at the row of byte 17');
	assert.equal(rows[0].offset, '00000010');
	assert.deepEqual(rows[0].cells.map((c) => c.hex), ['00', 'c3', 'bf', '21']);
	assert.deepEqual(rows[0].cells.map((c) => c.marked), [false, true, false, false]);
	assert.equal(rows[0].ascii, '...!');
	const all = hexRows(b, 0, b.length, null);
	assert.deepEqual(all.map((r) => r.offset), ['00000000', '00000010']);
	assert.equal(all[0].ascii, '0123456789abcdef');
	assert.equal(all[0].cells.length, 16);
});

test('byteWindow and charStart: large strings are shown around the first difference, never splitting a character', () => {
	const small = new Uint8Array(100);
	assert.deepEqual(byteWindow(small, null, false), { from: 0, to: 100 });
	const big = new Uint8Array(RENDER_LIMIT * 2).fill(0x61);
	assert.deepEqual(byteWindow(big, null, true), { from: 0, to: big.length });
	assert.deepEqual(byteWindow(big, null, false), { from: 0, to: RENDER_LIMIT });
	assert.deepEqual(byteWindow(big, { first: 200000 }, false), { from: 200000 - 1024, to: big.length });
	/* Put a 3-byte character across the cut. */
	big.set([0xE2, 0x80, 0xA8], 200000 - 1025);
	assert.equal(byteWindow(big, { first: 200000 }, false).from, 200000 - 1025);
	assert.equal(charStart(raw`a\xe2\x80\xa8`, 3), 1);
	assert.equal(charStart(raw`a\xe2\x80\xa8`, 0), 0);
	assert.equal(charStart(raw`\x80\x80\x80\x80\x80`, 4), 1, 'backs up at most three bytes');
});

test('byteTokens: an escape, a UTF-8 character or one byte per token', () => {
	const t = byteTokens(raw`a\u00e9\/\n\xc3\xa9\xff`, 0, 14);
	assert.deepEqual(t.keys, ['a', '\\u00e9', '\\/', '\\n', '\xc3\xa9', '\xff']);
	assert.deepEqual(t.starts, [0, 1, 7, 9, 11, 13]);
	assert.equal(t.end, 14);
	assert.deepEqual(byteTokens(raw`\u00`, 0, 4).keys, ['\\u00'], 'a cut escape is one token');
});

test('byteDiff: equal strings have no diff', () => {
	assert.equal(byteDiff(raw`abc`, raw`abc`, Diff), null);
	assert.equal(byteDiff(new Uint8Array(0), new Uint8Array(0), Diff), null);
});

test('byteDiff: "8.2.32" vs "8.2.36" highlights exactly the 2 and the 6', () => {
	const a = raw`"8.2.32"`, b = raw`"8.2.36"`;
	const d = byteDiff(a, b, Diff);
	assert.equal(d.engine, 'jsdiff');
	assert.equal(d.a.first, 6);
	assert.deepEqual(rangeTexts(a, d.a.ranges), ['2']);
	assert.deepEqual(rangeTexts(b, d.b.ranges), ['6']);
});

test('byteDiff: six separate \\u00e9 edits are six highlights of whole escapes', () => {
	const a = raw`["ete","ete","ete"]`;
	const b = raw`["\u00e9t\u00e9","\u00e9t\u00e9","\u00e9t\u00e9"]`;
	const d = byteDiff(a, b, Diff);
	assert.equal(d.engine, 'jsdiff');
	assert.deepEqual(rangeTexts(b, d.b.ranges), Array(6).fill('\\u00e9'));
	assert.deepEqual(rangeTexts(a, d.a.ranges), Array(6).fill('e'));
	assert.equal(d.a.first, 2);
});

test('byteDiff: "\\/" -> "/" three times is three marks, each an insertion point on the other side', () => {
	const a = raw`["a\/b","c\/d","e\/f"]`, b = raw`["a/b","c/d","e/f"]`;
	const d = byteDiff(a, b, Diff);
	assert.deepEqual(rangeTexts(a, d.a.ranges), ['\\/', '\\/', '\\/']);
	assert.deepEqual(rangeTexts(b, d.b.ranges), ['/', '/', '/']);
	const a2 = raw`[1,2]`, b2 = raw`[1,2,3]`;
	const d2 = byteDiff(a2, b2, Diff);
	assert.deepEqual(d2.a.ranges, [{ start: 4, end: 4 }], 'nothing on the left: an insertion point');
	assert.deepEqual(rangeTexts(b2, d2.b.ranges), [',3']);
});

test('byteDiff: the cut never splits a UTF-8 character or an escape', () => {
	/* é (c3 a9) vs è (c3 a8): the shared first byte belongs to the change. */
	const d = byteDiff(raw`x\xc3\xa9`, raw`x\xc3\xa8`, Diff);
	assert.deepEqual(d.a.ranges, [{ start: 1, end: 3 }]);
	assert.deepEqual(d.b.ranges, [{ start: 1, end: 3 }]);
	/* \u00e9 vs \u00e8: the whole escape, not its last digit. */
	const a = raw`"\u00e9"`, b = raw`"\u00e8"`;
	const e = byteDiff(a, b, Diff);
	assert.deepEqual(rangeTexts(a, e.a.ranges), ['\\u00e9']);
	assert.deepEqual(rangeTexts(b, e.b.ranges), ['\\u00e8']);
	/* An invalid byte vs its escape. */
	const f = byteDiff(raw`"a\xffb"`, raw`"a\ufffdb"`, Diff);
	assert.deepEqual(rangeTexts(raw`"a\xffb"`, f.a.ranges), ['\xff']);
	assert.deepEqual(rangeTexts(raw`"a\ufffdb"`, f.b.ranges), ['\\ufffd']);
});

test('byteDiff: without jsdiff, or past DIFF_LIMIT, the middle is one highlight', () => {
	const a = raw`["a\/b","c\/d"]`, b = raw`["a/b","c/d"]`;
	for (const engine of [null, {}]) {
		const d = byteDiff(a, b, engine);
		assert.equal(d.engine, 'prefix-suffix');
		assert.deepEqual(rangeTexts(a, d.a.ranges), ['\\/b","c\\/']);
		assert.deepEqual(rangeTexts(b, d.b.ranges), ['/b","c/']);
	}
	const big = (c) => Uint8Array.from({ length: 2 * DIFF_LIMIT }, (_, i) => (i % 100 === 0 ? c : 0x61));
	const d = byteDiff(big(0x62), big(0x63), Diff);
	assert.equal(d.engine, 'prefix-suffix');
	assert.equal(d.a.ranges.length, 1);
	assert.equal(d.a.ranges[0].start, 0);
	/* A jsdiff that throws is no jsdiff. */
	const broken = { diffArrays() { throw new Error('boom'); } };
	assert.equal(byteDiff(raw`ab`, raw`ac`, broken).engine, 'prefix-suffix');
});

test('diffAgainstBase: every build against the base; two builds are exactly byteDiff(base, head)', () => {
	const base = raw`"8.2.32"`, head = raw`"8.2.36"`;
	const [sa, sb] = diffAgainstBase([base, head], Diff);
	const d = byteDiff(base, head, Diff);
	assert.deepEqual(sa, { ...d.a, engine: 'jsdiff' });
	assert.deepEqual(sb, { ...d.b, engine: 'jsdiff' });
	assert.deepEqual(diffAgainstBase([base, base], Diff), [null, null], 'equal: nothing highlighted');
	assert.deepEqual(diffAgainstBase([base, null], Diff), [null, null], 'a side without output');
	assert.deepEqual(diffAgainstBase([null, head], Diff), [null, null]);
	assert.deepEqual(diffAgainstBase([base], Diff), [null]);
	/* Three builds: the base takes its side from the first candidate that differs. */
	const three = diffAgainstBase([base, base, raw`"8.2.35"`], Diff);
	assert.equal(three[1], null);
	assert.deepEqual(rangeTexts(raw`"8.2.35"`, three[2].ranges), ['5']);
	assert.deepEqual(rangeTexts(base, three[0].ranges), ['2']);
});

test('b64bytes, fieldBytes, outputBytes: the exact bytes of a result field', () => {
	assert.deepEqual(Array.from(b64bytes('AP9h')), [0x00, 0xFF, 0x61]);
	assert.equal(b64bytes(null), null);
	assert.deepEqual(Array.from(fieldBytes({ printed: 'x', printed_base64: 'AP8=' }, 'printed')), [0, 255], 'base64 wins');
	assert.deepEqual(Array.from(fieldBytes({ output: 'é' }, 'output')), [0xC3, 0xA9]);
	assert.equal(fieldBytes({}, 'output'), null);
	assert.equal(outputBytes({ output: false }), null);
	assert.equal(outputBytes(undefined), null);
	assert.ok(sameBytes(raw`ab`, raw`ab`));
	assert.ok(!sameBytes(raw`ab`, raw`ac`));
	assert.ok(!sameBytes(raw`ab`, raw`abc`));
});
