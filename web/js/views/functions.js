/*
 * #/comparisons/ID/functions — where a measured workload's instructions
 * went: the base vs one candidate (?vs=ROLE, a switch between them),
 * file by file and function by function, per json_encode() call, the
 * largest change first (?show=changed|all, ?file=SUFFIX such as
 * json_encoder.c).  From GET /api/comparisons/ID/functions.
 */
import { h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { fmtNum, pctChange, plural, signedPct } from '../format.js';
import { FN_SHOW, functionRows, perCall, stripped } from '../functions.js';
import { hashFor, withParam } from '../router.js';
import { errorBox, filterBar, loading } from '../components/ui.js';

const deltaClass = (d) => (d > 0 ? 'bad-text' : d < 0 ? 'ok-text' : 'dim');

/* "+1,234.50" per call, signed with a real minus. */
function signedNum(v) {
	if (v === null || v === undefined) return '—';
	return `${v > 0 ? '+' : v < 0 ? '−' : '±'}${fmtNum(Math.abs(v))}`;
}

function filesTable(d, n) {
	const files = (d.files || []).filter((f) => f.base_self || f.candidate_self);
	if (!files.length) return h('p', { class: 'empty', 'data-testid': 'files-empty' }, 'No source files are known for these builds.');
	return h('div', { class: 'scroll-x' }, h('table', { class: 'list instr', 'data-testid': 'files-table' },
		h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'source file'), h('th', { scope: 'col', class: 'num' }, `${d.base.name} self`),
			h('th', { scope: 'col', class: 'num' }, `${d.candidate.name} self`), h('th', { scope: 'col', class: 'num' }, 'Δ'),
			h('th', { scope: 'col', class: 'num' }, 'Δ %'))),
		h('tbody', null, files.map((f) => h('tr', { 'data-testid': 'file-row', 'data-file': f.file },
			h('td', { class: 'mono' }, f.file),
			h('td', { class: 'num mono' }, fmtNum(perCall(f.base_self, n))),
			h('td', { class: 'num mono' }, fmtNum(perCall(f.candidate_self, n))),
			h('td', { class: `num mono ${deltaClass(f.delta)}` }, signedNum(perCall(f.delta, n))),
			h('td', { class: `num mono ${deltaClass(f.delta)}` }, signedPct(f.delta_pct, 1)))))));
}

function functionsTable(d, rows, n) {
	const cost = (side, k) => (side ? fmtNum(perCall(side[k], n)) : h('span', { class: 'dim' }, 'absent'));
	return h('div', { class: 'scroll-x' }, h('table', { class: 'list instr', 'data-testid': 'functions-table' },
		h('thead', null, h('tr', null,
			h('th', { scope: 'col' }, 'function'),
			h('th', { scope: 'col', class: 'num' }, `${d.base.name} self`),
			h('th', { scope: 'col', class: 'num' }, `${d.candidate.name} self`),
			h('th', { scope: 'col', class: 'num' }, 'Δ self'),
			h('th', { scope: 'col', class: 'num' }, 'Δ %'),
			h('th', { scope: 'col', class: 'num hide-narrow' }, `${d.base.name} inclusive`),
			h('th', { scope: 'col', class: 'num hide-narrow' }, `${d.candidate.name} inclusive`))),
		h('tbody', null, rows.map((f) => h('tr', { 'data-testid': 'function-row', 'data-name': f.name, 'data-change': f.change },
			h('td', { class: 'title' }, h('span', { class: 'mono' }, f.name),
				h('div', { class: 'dim small-text mono' }, f.file || `${f.object || '?'} (no source file)`)),
			h('td', { class: 'num mono' }, cost(f.base, 'self')),
			h('td', { class: 'num mono' }, cost(f.candidate, 'self')),
			h('td', { class: `num mono ${deltaClass(f.delta_self)}`, 'data-testid': 'delta-self' }, signedNum(perCall(f.delta_self, n))),
			h('td', { class: `num mono ${deltaClass(f.delta_self)}` }, signedPct(f.delta_self_pct, 1)),
			h('td', { class: 'num mono hide-narrow' }, cost(f.base, 'inclusive')),
			h('td', { class: 'num mono hide-narrow' }, cost(f.candidate, 'inclusive')))))));
}

export function functionsView(ctx, params, query) {
	const id = params[0];
	const path = `/comparisons/${id}/functions`;
	setTitle(`Where the instructions went, comparison #${id}`);
	let q = query, data = null, loadedFor = null;
	const body = h('div', null, loading('the function diff'));
	ctx.main.append(h('h1', null, 'Where the instructions went'), h('section', { class: 'panel', 'data-testid': 'functions-view' }, body));

	const load = () => {
		const vs = q.get('vs') || 'head', file = q.get('file');
		loadedFor = `${vs}|${file || ''}`;
		const qs = `vs=${encodeURIComponent(vs)}&limit=5000${file ? `&file=${encodeURIComponent(file)}` : ''}`;
		return ctx.api(`/api/comparisons/${id}/functions?${qs}`).then((d) => {
			data = d;
			draw();
		}, (e) => { if (!isAbort(e)) replace(body, errorBox(e, load)); });
	};

	const draw = () => {
		const d = data, n = d.iterations;
		const show = q.get('show') || 'changed';
		/* A stripped side: names are offsets, so "changed" functions are noise (report.md says so too). */
		const uncomparable = [d.base, d.candidate].filter(stripped).map((x) => x.name).join(' and ') || null;
		const rows = uncomparable && show === 'changed' ? [] : functionRows(d, show);
		const vsRole = d.candidate.role;
		const switcher = h('nav', { class: 'candidates', 'data-testid': 'fn-candidates', 'aria-label': 'Candidate' },
			'vs ', (d.builds || []).slice(1).map((b) => [h('a', {
				href: hashFor(path, withParam(q, 'vs', b.role)), class: b.role === vsRole ? 'cand current' : 'cand',
				'aria-current': b.role === vsRole ? 'true' : null, 'data-testid': `fn-vs-${b.name}`,
			}, b.name), ' ']));
		const enc = (side) => (side.json_encoder_c === null ? 'n/a' : fmtNum(perCall(side.json_encoder_c, n)));
		const notes = [d.base, d.candidate].filter(stripped).map((s) => h('p', { class: 'hint', 'data-testid': 'stripped-note' },
			`${s.name}: a stripped library — its functions by offset or exported symbol, no source files; json_encoder.c is unavailable (build from source to keep the symbols).`));
		const encDelta = d.base.json_encoder_c !== null && d.candidate.json_encoder_c !== null
			? pctChange(d.base.json_encoder_c, d.candidate.json_encoder_c) : null;
		replace(body, h('div', null,
			h('p', null, h('a', { href: `#/cases/${d.case_id}?comparison=${d.comparison_id}` }, d.title), ` · ${n} calls measured`),
			switcher,
			h('p', { 'data-testid': 'fn-summary' },
				`${d.base.name}: ${fmtNum(perCall(d.base.total, n))} instructions per call, json_encoder.c ${enc(d.base)}; `,
				`${d.candidate.name}: ${fmtNum(perCall(d.candidate.total, n))}, json_encoder.c ${enc(d.candidate)}`,
				h('span', { class: deltaClass(encDelta), 'data-testid': 'fn-enc-delta' }, encDelta === null ? '' : ` (${signedPct(encDelta, 1)} %)`),
				uncomparable ? '.' : `. ${d.counts.more} ${plural(d.counts.more, 'function')} cost${d.counts.more === 1 ? 's' : ''} more, ${d.counts.less} less, ${d.counts.same} the same.`),
			uncomparable ? h('p', { class: 'notice warning', 'data-testid': 'fn-uncomparable' },
				`Cannot compare function by function: ${uncomparable} ${uncomparable.includes(' and ') ? 'name their' : 'names its'} functions by offset or exported symbol only, `,
				'so the same function has another name in each build and the differences listed would be offsets, not costs. ',
				'Only the totals compare (as report.md says); build both from source to compare functions.') : null,
			notes,
			h('h2', null, 'By source file (self cost)'), filesTable(d, n),
			h('h2', null, 'By function'),
			filterBar('Show', 'show', FN_SHOW, path, q.get('show') ? q : withParam(q, 'show', 'changed'),
				{ changed: functionRows(d, 'changed').length, all: (d.functions || []).length }),
			h('p', { class: 'hint' }, 'Per call. Self: the function itself (inlined helpers included); inclusive: with what it called. Recursion levels merged.'),
			rows.length ? functionsTable(d, rows, n)
				: uncomparable ? h('p', { class: 'empty', 'data-testid': 'functions-empty' }, 'Nothing to list as changed: the names do not match across these builds (“all” lists each build\'s functions).')
					: h('p', { class: 'empty', 'data-testid': 'functions-empty' }, 'No function changed: the candidate spends its instructions exactly as the base does.')));
	};

	load();
	return {
		onQuery: (nq) => {
			q = nq;
			if (`${q.get('vs') || 'head'}|${q.get('file') || ''}` !== loadedFor) load();
			else if (data) draw();
		},
	};
}
