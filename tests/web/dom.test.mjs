// web/js/dom.js, components/bytesview.js and components/results.js on a
// fake DOM without any HTML parser: what a case prints stays text, bytes
// become chips and highlights, and the results grid has a column per build.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeElement, FakeText, installFakeDom } from './fakedom.mjs';
import { bytes, loadJsdiff } from './helper.mjs';

installFakeDom();
globalThis.Diff = loadJsdiff();
const { append, clear, h, replace, setTitle } = await import('../../web/js/dom.js');
const { renderBytes, renderHex, bytesView } = await import('../../web/js/components/bytesview.js');
const { resultsGrid } = await import('../../web/js/components/results.js');

const raw = (strings, ...subs) => bytes(String.raw(strings, ...subs));
const b64 = (s) => Buffer.from(s, 'latin1').toString('base64');

test('h: attributes, properties, listeners, and children as text nodes only', () => {
	const fn = () => {};
	const el = h('a', { href: '#/x', class: 'button', 'data-n': 3, hidden: true, title: null, disabled: false, value: 'v', onclick: fn },
		'<b>bold?</b>', 42, null, false, undefined, ['x', ['y']], h('span', { text: '<i>' }));
	assert.equal(el.tagName, 'A');
	assert.equal(el.getAttribute('href'), '#/x');
	assert.equal(el.className, 'button');
	assert.equal(el.getAttribute('data-n'), '3');
	assert.equal(el.getAttribute('hidden'), '', 'true is an empty attribute');
	assert.equal(el.getAttribute('title'), null, 'null is left out');
	assert.equal(el.getAttribute('disabled'), null, 'false is left out');
	assert.equal(el.value, 'v', 'value is a property');
	assert.deepEqual(el.listeners.click, [fn]);
	assert.ok(el.childNodes.slice(0, 4).every((c) => c instanceof FakeText), 'strings and numbers are text nodes');
	assert.equal(el.childNodes[0].data, '<b>bold?</b>', 'markup in text stays text');
	assert.equal(el.textContent, '<b>bold?</b>42xy<i>');
	assert.equal(el.childNodes.length, 5);
	replace(el, 'z');
	assert.equal(el.textContent, 'z');
	append(el, [null, 'w']);
	assert.equal(clear(el).childNodes.length, 0);
	setTitle('Run #4');
	assert.equal(document.title, 'Run #4 · phpcmp');
	setTitle('');
	assert.equal(document.title, 'phpcmp');
});

test('renderBytes: chips for invalid UTF-8 and control bytes, marks for differing bytes, HTML inert', () => {
	const wrap = h('pre');
	const b = raw`<b>\xff\x01\x0a\xe2\x80\xa8"2"`;
	wrap.append(renderBytes(b, 0, b.length, { ranges: [{ start: 10, end: 11 }], first: 10 }));
	const chips = wrap.findAll((e) => e.className.startsWith('chip') || e.className === 'nl');
	assert.deepEqual(chips.map((c) => [c.className, c.textContent]),
		[['chip bad', '\\xff'], ['chip ctl', '\\x01'], ['nl', '\n'], ['chip uni', 'U+2028']]);
	assert.equal(chips[0].getAttribute('title'), 'invalid UTF-8 byte 0xff');
	const marks = wrap.findAll((e) => e.tagName === 'MARK');
	assert.deepEqual(marks.map((m) => m.textContent), ['2']);
	assert.equal(marks[0].className, 'diff');
	assert.equal(wrap.textContent, '<b>\\xff\\x01\nU+2028"2"');
	assert.equal(wrap.findAll((e) => e.tagName === 'B').length, 0, 'no <b> element from the bytes');
	const ins = h('pre');
	ins.append(renderBytes(raw`ab`, 0, 2, { ranges: [{ start: 1, end: 1 }] }));
	assert.equal(ins.findAll((e) => e.className === 'diff ins').length, 1);
});

test('renderHex and bytesView: a hex dump with marked cells, the toggle, the window', () => {
	const pre = h('pre');
	pre.append(renderHex(raw`ab\xff`, 0, 3, { ranges: [{ start: 2, end: 3 }] }));
	assert.equal(pre.textContent, `00000000  61 62 ${'ff'} ${'   '.repeat(13)} ab.\n`);
	assert.deepEqual(pre.findAll((e) => e.tagName === 'MARK').map((m) => m.textContent), ['ff']);
	const view = bytesView(raw`a\xff`, null, 'output-base');
	const body = view.byTestId('output-base')[0];
	assert.equal(body.textContent, 'a\\xff');
	view.toggle.listeners.click[0]();
	assert.equal(view.toggle.getAttribute('aria-pressed'), 'true');
	assert.ok(body.classList.contains('hex'));
	assert.match(body.textContent, /^00000000 {2}61 ff/);
	const big = new Uint8Array(400 * 1024).fill(0x61);
	const bv = bytesView(big, { first: 200000, ranges: [{ start: 200000, end: 200001 }] }, 'big');
	assert.match(bv.childNodes[1].textContent, /^Showing bytes 198,976–330,048 of 409,600\. Show all$/);
});

function results(outputs, extra = {}) {
	const r = {};
	for (const [role, out] of Object.entries(outputs))
		r[role] = { build: role, status: 'ok', output: out, output_base64: b64(out), error_code: 0, error_msg: 'No error', ...extra[role] };
	return r;
}

test('resultsGrid: a column per build, base first; the differing bytes highlighted on both sides', () => {
	const res = results({ head: '"8.2.36"', base: '"8.2.32"' });
	const el = resultsGrid(['base', 'head'], res, ['output'], {});
	const cols = el.findAll((e) => e.tagName === 'SECTION' && e.getAttribute('data-build'));
	assert.deepEqual(cols.map((c) => c.getAttribute('data-build')), ['base', 'head']);
	const marked = (role) => el.byTestId(`output-${role}`)[0].findAll((e) => e.tagName === 'MARK').map((m) => m.textContent);
	assert.deepEqual(marked('base'), ['2']);
	assert.deepEqual(marked('head'), ['6']);
	assert.match(el.byTestId('diff-summary-head')[0].textContent, /differs from byte 6 \(1 change\)/);
	assert.equal(el.byTestId('diff-summary-base')[0].getAttribute('data-engine'), 'jsdiff');
	const outCells = el.findAll((e) => e.getAttribute('data-field') === 'output');
	assert.ok(outCells.every((c) => c.className.includes('differs')));
	assert.equal(el.findAll((e) => e.className === 'results')[0].style.props.get('--cols'), '2');
});

test('resultsGrid: three builds are three columns, each candidate against the base', () => {
	const res = results({ base: '"a/b"', head: '"a\\/b"', 'keys-only': '"a/b"' },
		{ head: { instructions: 110 }, base: { instructions: 100 }, 'keys-only': { instructions: 90, warnings: ['W'] } });
	const el = resultsGrid(['base', 'head', 'keys-only'], res, ['output'], {});
	const cols = el.findAll((e) => e.tagName === 'SECTION' && e.getAttribute('data-build'));
	assert.deepEqual(cols.map((c) => c.getAttribute('data-build')), ['base', 'head', 'keys-only']);
	assert.equal(el.findAll((e) => e.className === 'results')[0].style.props.get('--cols'), '3');
	const marks = (role) => el.byTestId(`output-${role}`)[0].findAll((e) => e.tagName === 'MARK').map((m) => m.className + ':' + m.textContent);
	assert.deepEqual(marks('head'), ['diff:\\/'], 'the whole escape');
	assert.deepEqual(marks('keys-only'), [], 'the same as the base: nothing marked');
	assert.deepEqual(marks('base'), ['diff:/'], 'the base against the first candidate that differs');
	const instr = cols.map((c) => c.findAll((e) => e.getAttribute('data-field') === 'instructions')[0].textContent);
	assert.deepEqual(instr, ['Instructions / call100', 'Instructions / call110 (+10.0 %)', 'Instructions / call90 (\u221210.0 %)']);
	const softWarn = cols.map((c) => c.findAll((e) => e.getAttribute('data-field') === 'warnings')[0].className.includes('differs-soft'));
	assert.deepEqual(softWarn, [true, false, true], 'warnings differ from the base on keys-only only');
});

test('resultsGrid: crash, false and no results', () => {
	const res = {
		base: { status: 'ok', output: false, error_code: 5, error_msg: 'Malformed UTF-8' },
		head: { status: 'crash', signal: 11, output: null, failure: 'worker died' },
	};
	const el = resultsGrid(['base', 'head'], res, ['status'], {});
	assert.equal(el.byTestId('output-base')[0].textContent, 'false');
	assert.equal(el.byTestId('output-head')[0].textContent, 'no output (crash)');
	assert.equal(el.byTestId('error-base')[0].textContent, '5 JSON_ERROR_UTF8“Malformed UTF-8”');
	assert.match(el.findAll((e) => e.getAttribute('data-testid') === 'status-head')[0].parentNode.textContent, /signal 11 \(SIGSEGV\)/);
	assert.equal(resultsGrid([], {}, [], {}).textContent, 'No results stored for this case yet.');
});
