/*
 * A byte string on the page: bytes.js's runs and hex rows as elements,
 * with an exact/hex toggle and a window for large strings.  Every byte is a
 * text node or a chip built with h(): nothing is parsed as HTML.
 */
import { clear, h, replace } from '../dom.js';
import { byteRuns, byteWindow, hexRows, RENDER_LIMIT } from '../bytes.js';
import { fmtInt } from '../format.js';

/* Bytes [from, to) as text and chips, differing bytes in <mark>. */
export function renderBytes(b, from, to, side) {
	const root = document.createDocumentFragment();
	for (const run of byteRuns(b, from, to, side)) {
		if (run.ins) {
			root.append(h('mark', { class: 'diff ins', title: 'the other side has bytes here' }));
			continue;
		}
		const el = run.marked ? h('mark', { class: 'diff' }) : h('span');
		for (const it of run.items) {
			if (typeof it === 'string') el.append(it);
			else el.append(h('span', { class: it.kind === 'nl' ? 'nl' : `chip ${it.kind}`, title: it.title }, it.text));
		}
		root.append(el);
	}
	return root;
}

/*
 * Source code (a case's code, setup, a minimal case) as text with the page's
 * chips for its control bytes, DEL, invalid UTF-8 and invisible characters
 * (\xNN, never a box); its newlines and tabs stay as they are.
 */
export function codeText(s) {
	const root = document.createDocumentFragment();
	for (const part of String(s).split(/([\n\t]+)/)) {
		if (/^[\n\t]+$/.test(part)) root.append(part);
		else if (part) {
			const b = new TextEncoder().encode(part);
			root.append(renderBytes(b, 0, b.length, null));
		}
	}
	return root;
}

/* Bytes [from, to) as a hex dump, 16 to a row. */
export function renderHex(b, from, to, side) {
	const root = document.createDocumentFragment();
	for (const row of hexRows(b, from, to, side)) {
		const line = h('span', { class: 'hexrow' }, h('span', { class: 'off' }, row.offset), '  ');
		for (let k = 0; k < 16; k++) {
			const cell = row.cells[k];
			if (!cell) {
				line.append('   ');
				continue;
			}
			line.append(cell.marked ? h('mark', { class: 'diff' }, cell.hex) : cell.hex, k === 7 ? '  ' : ' ');
		}
		line.append(' ', h('span', { class: 'ascii' }, row.ascii), '\n');
		root.append(line);
	}
	return root;
}

/*
 * A byte view with an exact/hex toggle, windowed for large outputs.  side
 * is this string's side of a byte diff (bytes.js), or null.  Returns the
 * element; its toggle button is el.toggle (placed by the caller).
 */
export function bytesView(b, side, testid) {
	const wrap = h('div', { class: 'bytes-wrap' });
	let mode = 'text', showAll = b.length <= RENDER_LIMIT;
	const body = h('pre', { class: 'bytes', 'data-testid': testid, tabindex: '0' });
	const note = h('div', { class: 'bytes-note' });
	const render = () => {
		const { from, to } = byteWindow(b, side, showAll);
		clear(body);
		body.classList.toggle('hex', mode === 'hex');
		if (from > 0) body.append(h('span', { class: 'elided' }, `… ${fmtInt(from)} bytes before …\n`));
		body.append(mode === 'hex' ? renderHex(b, from, to, side) : renderBytes(b, from, to, side));
		if (to < b.length) body.append(h('span', { class: 'elided' }, `\n… ${fmtInt(b.length - to)} bytes after …`));
		replace(note, (from > 0 || to < b.length) ? [
			`Showing bytes ${fmtInt(from)}–${fmtInt(to)} of ${fmtInt(b.length)}. `,
			h('button', { type: 'button', class: 'link', onclick: () => { showAll = true; render(); } }, 'Show all'),
		] : null);
	};
	const toggle = h('button', {
		type: 'button', class: 'small', 'aria-pressed': 'false', title: 'Show the bytes as a hex dump',
		onclick: () => {
			mode = mode === 'hex' ? 'text' : 'hex';
			toggle.setAttribute('aria-pressed', mode === 'hex' ? 'true' : 'false');
			render();
		},
	}, 'hex');
	render();
	wrap.append(body, note);
	wrap.toggle = toggle;
	return wrap;
}
