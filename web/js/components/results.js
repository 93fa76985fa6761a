/*
 * A comparison's results side by side: one column (<section>) per build,
 * base first, one row per field; CSS subgrid lines the rows up, and on
 * narrow screens the columns stack.  Columns come from the results' roles,
 * so a third build is a third column.
 */
import { h } from '../dom.js';
import { diffAgainstBase, fieldBytes, outputBytes, sameBytes } from '../bytes.js';
import { differsFromBase } from '../builds.js';
import { fmtInt, JSON_ERRORS, pctChange, signalText, signedPct } from '../format.js';
import { buildInfo } from '../session.js';
import { badge } from './ui.js';
import { bytesView } from './bytesview.js';

const FIELD_ROWS = [
	{ key: 'status', label: 'Status', differs: ['status'] },
	{ key: 'output', label: 'Output', differs: ['output'] },
	{ key: 'error', label: 'json_last_error()', differs: ['error_code', 'error_msg'] },
	{ key: 'exception', label: 'Exception', differs: ['exception'] },
	{ key: 'printed', label: 'Printed', differs: ['printed'] },
	{ key: 'warnings', label: 'Warnings', differs: ['warnings'] },
	{ key: 'wall', label: 'Wall time', differs: [] },
	{ key: 'instructions', label: 'Instructions / call', differs: [] },
];

/* A sanitizer's report in brief (docs/sandbox.md): kind, access, top frames;
 * the whole report is the failure text below it. */
function memoryError(m, n) {
	if (!m) return null;
	return h('div', { class: 'memory-error', 'data-testid': `memory-error-${n}` },
		h('strong', {}, m.kind || 'memory error'), m.access ? ` · ${m.access}` : '',
		m.frames && m.frames.length
			? h('ol', { class: 'frames mono small-text' }, m.frames.map((f) => h('li', {}, f))) : null);
}

const warningsKey = (r) => JSON.stringify((r && r.warnings) || []);

function diffFlag(title, hidden) {
	return h('span', { class: 'diff-flag', title },
		h('span', { 'aria-hidden': 'true' }, ' ≠'), h('span', { class: 'visually-hidden' }, hidden));
}

/*
 * names: the roles in column order (builds.js orderRoles), results keyed by
 * role, differs the comparison's differing fields, c the case (its expect;
 * an --EXPECTF-- pattern, c.expectf, is matched by the daemon: c.expected,
 * the answer's "expected", says which builds miss it);
 * perRole (optional): each candidate role's own differing fields against the
 * base, so a column is flagged only where that candidate differs.
 */
export function resultsGrid(names, results, differs, c, perRole) {
	if (!names.length) return h('section', { class: 'panel' }, h('p', { class: 'empty' }, 'No results stored for this case yet.'));
	const rs = names.map((n) => results[n] || {});
	const bytes = names.map((n) => outputBytes(results[n]));
	const printed = names.map((n) => fieldBytes(results[n] || {}, 'printed'));
	/* Each build's side of its byte diff with the base (or null). */
	const outSides = diffAgainstBase(bytes);
	const printedSides = diffAgainstBase(printed);
	/* Printed output and warnings may differ without counting in the verdict. */
	const warnDiffers = differsFromBase(names.map((n) => warningsKey(results[n])), (x, y) => x === y);
	const base = rs[0];
	const hasExpect = c.expect !== null && c.expect !== undefined;
	const expectBytes = hasExpect && !c.expectf ? new TextEncoder().encode(c.expect) : null;
	const expectfMissed = hasExpect && c.expectf && c.expected ? new Set(c.expected.differ || []) : null;

	const grid = h('div', { class: 'results', 'data-testid': 'results' });
	/* CSSOM, not a style attribute, so a strict CSP can't break the layout. */
	grid.style.setProperty('--cols', String(names.length));
	grid.style.setProperty('--rows', String(FIELD_ROWS.length + 1));

	const cellValue = (key, idx) => {
		const n = names[idx], r = rs[idx];
		switch (key) {
		case 'status':
			return [badge('status', r.status || 'unknown', { 'data-testid': `status-${n}` }),
				r.signal ? h('span', { class: 'mono' }, ` signal ${signalText(r.signal)}`) : null,
				memoryError(r.memory_error, n),
				r.failure ? h('pre', { class: 'failure', 'data-testid': `failure-${n}` }, r.failure) : null];
		case 'output': {
			const b = bytes[idx], side = outSides[idx];
			/* Over 64 KiB the answer links to the bytes instead of holding them. */
			if (r.output_url)
				return h('div', { class: 'bytes-meta', 'data-testid': `output-${n}` },
					`${fmtInt(r.output_size)} bytes (md5 ${r.output_md5}), too large to show here · `,
					h('a', { href: r.output_url, 'data-testid': `output-link-${n}` }, 'the bytes'));
			if (r.status && r.status !== 'ok' && b === null)
				return h('span', { class: 'dim', 'data-testid': `output-${n}` }, `no output (${r.status})`);
			if (b === null)
				return h('div', { class: 'bytes-wrap' }, h('pre', { class: 'bytes false', 'data-testid': `output-${n}` }, 'false'));
			const view = bytesView(b, side, `output-${n}`);
			const meta = [`${fmtInt(b.length)} bytes`,
				r.output_utf8 === false ? h('span', { class: 'warn-text' }, ' · not valid UTF-8') : ' · UTF-8'];
			if (side)
				meta.push(h('span', { 'data-testid': `diff-summary-${n}`, 'data-engine': side.engine },
					` · differs from byte ${fmtInt(side.first)} (${side.ranges.length} change${side.ranges.length === 1 ? '' : 's'})`));
			if (expectBytes) {
				const ok = sameBytes(expectBytes, b);
				meta.push(' · ', h('span', { class: ok ? 'ok-text' : 'bad-text', 'data-testid': `expect-${n}` },
					ok ? 'matches expect' : 'does not match expect'));
			} else if (expectfMissed) {
				const ok = !expectfMissed.has(n);
				meta.push(' · ', h('span', { class: ok ? 'ok-text' : 'bad-text', 'data-testid': `expect-${n}` },
					ok ? 'matches the --EXPECTF-- pattern' : 'does not match the --EXPECTF-- pattern'));
			}
			return [view, h('div', { class: 'bytes-meta' }, meta, ' ', view.toggle)];
		}
		case 'error': {
			const code = r.error_code;
			if (r.status && r.status !== 'ok' && (r.error_msg === null || r.error_msg === undefined))
				return h('span', { class: 'dim', 'data-testid': `error-${n}` }, `not reached (${r.status})`);
			return h('span', { class: 'mono', 'data-testid': `error-${n}` },
				code === undefined || code === null ? '—' : String(code),
				JSON_ERRORS[code] ? h('span', { class: 'dim' }, ` ${JSON_ERRORS[code]}`) : null,
				r.error_msg ? h('div', null, `“${r.error_msg}”`) : null);
		}
		case 'exception':
			if (!r.exception) return h('span', { class: 'dim' }, 'none');
			return h('div', { class: 'mono', 'data-testid': `exception-${n}` },
				h('strong', null, r.exception.class), ': ', r.exception.message);
		case 'printed': {
			const p = printed[idx];
			if (r.printed_url)
				return h('div', { class: 'bytes-meta', 'data-testid': `printed-${n}` },
					`${fmtInt(r.printed_size)} bytes, too large to show here · `,
					h('a', { href: r.printed_url, 'data-testid': `printed-link-${n}` }, 'the bytes'));
			if (!p || !p.length) return h('span', { class: 'dim' }, 'nothing');
			return bytesView(p, printedSides[idx], `printed-${n}`);
		}
		case 'warnings': {
			let w = r.warnings;
			if (typeof w === 'string') w = w ? w.split('\n') : [];
			if (!w || !w.length) return h('span', { class: 'dim' }, 'none');
			return h('ul', { class: 'warnings mono', 'data-testid': `warnings-${n}` },
				w.map((x) => h('li', null, typeof x === 'string' ? x : JSON.stringify(x))));
		}
		case 'wall':
			return h('span', { class: 'mono' }, r.wall_ms === null || r.wall_ms === undefined ? '—' : `${Number(r.wall_ms).toFixed(2)} ms`);
		case 'instructions': {
			if (r.instructions === null || r.instructions === undefined) return h('span', { class: 'dim' }, 'not measured');
			const pct = idx > 0 && base.instructions ? pctChange(base.instructions, r.instructions) : null;
			const delta = pct === null ? null :
				h('span', { class: pct > 0 ? 'bad-text' : pct < 0 ? 'ok-text' : 'dim' }, ` (${signedPct(pct, 1)} %)`);
			return h('span', { class: 'mono' }, fmtInt(r.instructions), delta);
		}
		default:
			return null;
		}
	};

	names.forEach((n, idx) => {
		const info = buildInfo(n), label = n + (info && info.name !== n ? ` (${info.name})` : '');
		const col = h('section', { class: 'result', 'data-testid': `result-${n}`, 'data-build': n, 'aria-label': `Result on ${label}` },
			h('h2', { class: 'result-head' }, label, info && info.php_version ? h('span', { class: 'dim' }, ` PHP ${info.php_version}`) : null));
		for (const f of FIELD_ROWS) {
			const own = idx > 0 && perRole && perRole[n] ? perRole[n] : differs;
			const isDiff = f.differs.some((x) => own.includes(x));
			const soft = !isDiff && ((f.key === 'printed' && !!printedSides[idx]) || (f.key === 'warnings' && warnDiffers[idx]));
			col.append(h('div', { class: `cell cell-${f.key}${isDiff ? ' differs' : soft ? ' differs-soft' : ''}`, 'data-field': f.key },
				h('div', { class: 'label' }, f.label,
					isDiff ? diffFlag('differs between the builds', ' (differs)') : null,
					soft ? diffFlag('differs between the builds, not counted in the verdict', ' (differs, not in the verdict)') : null),
				h('div', { class: 'value' }, cellValue(f.key, idx))));
		}
		grid.append(col);
	});

	return h('section', { class: 'panel results-panel', 'aria-labelledby': 'h-results' },
		h('h2', { id: 'h-results' }, 'Results'),
		h('p', { class: 'legend small-text' }, 'Output is shown byte-exact: ',
			h('span', { class: 'chip ctl' }, '\\x0b'), ' control byte, ',
			h('span', { class: 'chip bad' }, '\\xff'), ' invalid UTF-8 byte, ',
			h('span', { class: 'chip uni' }, 'U+2028'), ' invisible character, ',
			h('span', { class: 'nl' }, ''), ' newline, ',
			h('mark', { class: 'diff' }, 'highlight'), ' the region where the builds differ.'),
		grid);
}
