/*
 * A coverage run's line and branch coverage of ext/json (docs/coverage.md,
 * GET /api/runs/ID/coverage): per build and file, per function, the
 * downloads (gcovr's HTML, Cobertura XML, JSON), and the source of
 * json_encoder.c with each line's count, its unreached lines and the lines
 * with an unreached branch highlighted.
 */
import { h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { fmtInt } from '../format.js';
import { errorBox, loading } from './ui.js';

const SOURCE_FILE = 'ext/json/json_encoder.c';

const pct = (r) => (r && r.total ? `${(100 * r.hit / r.total).toFixed(1)} %` : '—');
const ratio = (r) => (r ? `${fmtInt(r.hit)} / ${fmtInt(r.total)}` : '—');

export function codeCoverage(ctx, runId) {
	const el = h('section', { class: 'panel', 'data-testid': 'code-coverage', 'aria-labelledby': 'h-code-coverage' },
		h('h2', { id: 'h-code-coverage' }, 'Code coverage of ext/json'), loading('coverage'));
	ctx.api(`/api/runs/${runId}/coverage`).then((c) => {
		replace(el, [h('h2', { id: 'h-code-coverage' }, 'Code coverage of ext/json'), ...(c.builds.length ? c.builds.map((b) => buildView(ctx, b))
			: [h('p', { class: 'empty' }, c.status === 'pending' ? 'Measured when the run ends.' : 'No coverage was measured.')])]);
	}, (e) => {
		if (!isAbort(e)) replace(el, errorBox(e));
	});
	return el;
}

function buildView(ctx, b) {
	if (b.error || !b.files) {
		return h('div', { class: 'notice warning', 'data-testid': 'coverage-error' },
			h('strong', null, `${b.build} (${b.role}): not measured. `), b.error || '');
	}
	const dl = b.downloads || {};
	const source = h('div', { 'data-testid': 'coverage-source' });
	const file = b.files.find((f) => f.file === SOURCE_FILE);
	if (file && dl.source && dl.source[SOURCE_FILE]) {
		replace(source, loading(SOURCE_FILE));
		ctx.api(dl.source[SOURCE_FILE]).then((s) => replace(source, sourceView(s, file)),
			(e) => { if (!isAbort(e)) replace(source, errorBox(e)); });
	}
	return h('div', { class: 'code-cov', 'data-role': b.role },
		h('p', null, h('span', { class: 'mono' }, b.build), ` (${b.role}) · `,
			h('a', { href: dl.html, class: 'button', 'data-testid': 'coverage-html', target: '_blank', rel: 'noopener' }, 'gcovr HTML'), ' ',
			h('a', { href: dl.cobertura, class: 'button', 'data-testid': 'coverage-cobertura', download: '' }, 'Cobertura XML'), ' ',
			h('a', { href: dl.json, class: 'button', download: '' }, 'gcovr JSON')),
		h('table', { class: 'list', 'data-testid': 'coverage-files' },
			h('thead', null, h('tr', null, h('th', null, 'File'), h('th', { class: 'num' }, 'Lines'), h('th', { class: 'num' }, ''),
				h('th', { class: 'num' }, 'Branches'), h('th', { class: 'num' }, ''))),
			h('tbody', null, b.files.map((f) => h('tr', { 'data-file': f.file },
				h('th', { scope: 'row', class: 'mono' }, f.file),
				h('td', { class: 'num mono', 'data-testid': 'lines' }, ratio(f.lines)), h('td', { class: 'num' }, pct(f.lines)),
				h('td', { class: 'num mono', 'data-testid': 'branches' }, ratio(f.branches)), h('td', { class: 'num' }, pct(f.branches)))))),
		b.files.map((f) => h('details', { class: 'cov-functions' }, h('summary', null, `${f.file}: per function`),
			h('table', { class: 'list cov' },
				h('thead', null, h('tr', null, h('th', null, 'Function'), h('th', { class: 'num' }, 'Calls'), h('th', { class: 'num' }, 'Lines'),
					h('th', { class: 'num' }, 'Branches'), h('th', null, 'Unreached lines'), h('th', null, 'Unreached branches (line:branch)'))),
				h('tbody', null, f.functions.map((fn) => h('tr', { class: fn.branches.hit < fn.branches.total || fn.lines.hit < fn.lines.total ? 'uncovered' : null },
					h('th', { scope: 'row', class: 'mono' }, fn.name), h('td', { class: 'num mono' }, fmtInt(fn.calls)),
					h('td', { class: 'num mono' }, ratio(fn.lines)), h('td', { class: 'num mono' }, ratio(fn.branches)),
					h('td', { class: 'mono small-text' }, fn.unreached_lines.join(' ')),
					h('td', { class: 'mono small-text' }, fn.unreached_branches.map((u) => `${u.line}:${u.branch}`).join(' ')))))))),
		source);
}

/* The source with counts: a line no case reached, or one with a branch no case took, stands out. */
function sourceView(s, file) {
	const missed = new Set(file.unreached_branches.map((u) => u.line));
	return h('details', { open: true }, h('summary', null, `${s.file}, ${fmtInt(missed.size)} lines with an unreached branch (highlighted)`),
		h('table', { class: 'cov-source mono', 'data-testid': 'coverage-source-table' },
			h('tbody', null, s.lines.map((l) => {
				const cls = l.count === null ? 'noncode' : l.count === 0 ? 'unreached' : missed.has(l.n) ? 'branch-missed' : 'reached';
				return h('tr', { class: cls, 'data-line': l.n },
					h('td', { class: 'num dim' }, String(l.n)),
					h('td', { class: 'num' }, l.count === null ? '' : fmtInt(l.count)),
					h('td', { class: 'branches', title: l.branches.length ? `branches taken: ${l.branches.join(', ')}` : null },
						l.branches.map((n) => h('span', { class: n ? 'br-hit' : 'br-miss' }, n ? '✓' : '✗'))),
					h('td', { class: 'src' }, l.text));
			}))));
}
