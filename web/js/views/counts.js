/*
 * #/runs/ID/counts — instruction counts per workload, a column per build
 * (?threshold=&show=significant|regressions|all&sort=title|delta|ROLE
 * &dir=asc|desc&workload=FILE: the chosen workload's history below).
 */
import { h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { rolesOf } from '../builds.js';
import { fmtInt, fmtNum, plural, signedPct } from '../format.js';
import { SHOW, threshold, workloadKey, workloadRows } from '../measure.js';
import { hashFor, navigate, withParam } from '../router.js';
import { badge, errorBox, filterBar, loading } from '../components/ui.js';
import { workloadHistory } from '../components/history.js';

const changeClass = (change) => (change === 'regression' ? 'bad-text' : change === 'improvement' ? 'ok-text' : 'dim');

/* With several candidates: each one's regressions and improvements. */
function candidateCounts(d) {
	const cc = d.candidate_counts || {};
	const names = Object.keys(cc);
	if (names.length < 2) return null;
	return h('ul', { class: 'candidate-counts', 'data-testid': 'candidate-counts' }, names.map((n) => h('li', { 'data-candidate': n },
		h('strong', null, n), ': ',
		h('span', { class: 'bad-text' }, `${fmtInt(cc[n].regressions)} ${plural(cc[n].regressions, 'regression')}`), ' · ',
		h('span', { class: 'ok-text' }, `${fmtInt(cc[n].improvements)} ${plural(cc[n].improvements, 'improvement')}`), ' · ',
		`${fmtInt(cc[n].unchanged)} unchanged`)));
}

/*
 * The reviewer's table: the base's instructions per call, then a Δ % column
 * per candidate (its instructions in the cell's title).
 */
function candidatesTable(data, rows, roles, th, wl, path, q) {
	const names = roles.slice(1).map((r) => (data.builds[r] || {}).name || r);
	return h('div', { class: 'scroll-x' }, h('table', { class: 'list instr', 'data-testid': 'counts-table', 'data-shape': 'candidates' },
		h('thead', null, h('tr', null, th('json_encode() of', 'title'), th(`${(data.builds.base || {}).name || 'base'} (instructions)`, roles[0], 'num'),
			names.map((n, i) => th(`${n} Δ %`, roles[i + 1], 'num')),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'callgrind'))),
		h('tbody', null, rows.map((w) => {
			const key = workloadKey(w);
			return h('tr', { 'data-testid': 'counts-row', 'data-change': w.change, 'data-source': w.source || '', class: key === wl ? 'current' : null },
				h('td', { class: 'title' }, h('a', { href: hashFor(path, withParam(q, 'workload', key)), title: 'Show its history', 'data-testid': 'workload-link' }, w.title),
					w.source ? h('div', { class: 'dim small-text mono' }, w.source) : null),
				h('td', { class: 'num mono' }, fmtNum(w[roles[0]] && w[roles[0]].instructions)),
				names.map((n) => {
					const c = (w.candidates || {})[n] || {};
					return h('td', { class: `num mono ${changeClass(c.change)}`, 'data-testid': 'delta', 'data-candidate': n,
						title: c.instructions !== undefined && c.instructions !== null ? `${fmtNum(c.instructions)} instructions` : null },
					signedPct(c.delta_pct, 1));
				}),
				h('td', { class: 'hide-narrow small-text' },
					roles.map((r) => [w[r] && w[r].callgrind_url ? h('a', { href: w[r].callgrind_url }, r) : null, ' ']),
					h('a', { href: `#/cases/${w.case_id}?comparison=${w.comparison_id}` }, 'case')));
		}))));
}

export function instructionsView(ctx, params, query) {
	const id = params[0];
	const path = `/runs/${id}/counts`;
	setTitle(`Instruction counts, run #${id}`);
	let q = query, data = null, lastThreshold = null, chartFor = null;
	const head = h('div', null, loading('instruction counts'));
	const filters = h('div', { class: 'filters' });
	const tableBox = h('div');
	const chartBox = h('div', { 'data-testid': 'chart-box' });
	ctx.main.append(h('h1', null, 'Instruction counts ', h('span', { class: 'dim' }, '· ', h('a', { href: `#/runs/${id}` }, `run #${id}`))),
		h('section', { class: 'panel', 'aria-labelledby': 'h-counts' }, h('h2', { id: 'h-counts', class: 'visually-hidden' }, 'Workloads'),
			head, filters, tableBox),
		h('section', { class: 'panel', 'aria-labelledby': 'h-chart' }, h('h2', { id: 'h-chart' }, 'History'), chartBox));

	const setQuery = (k, v) => navigate(hashFor(path, withParam(q, k, v)));

	const load = () => {
		lastThreshold = threshold(q);
		return ctx.api(`/api/runs/${id}/measurements?threshold=${encodeURIComponent(lastThreshold)}`).then((d) => {
			data = d;
			draw();
		}, (e) => { if (!isAbort(e)) replace(head, errorBox(e, load)); });
	};

	const draw = () => {
		const d = data, c = d.counts || {}, builds = d.builds || {};
		const t = threshold(q);
		const tInput = h('input', {
			type: 'number', min: '0', max: '1000', step: '0.1', value: String(t), class: 'threshold', 'data-testid': 'threshold',
			'aria-label': 'Threshold in percent',
		});
		tInput.addEventListener('change', () => setQuery('threshold', tInput.value === '1' ? null : tInput.value));
		/* "base NAME VERSION vs head NAME VERSION" */
		const vs = rolesOf(builds).map((r, i) => [i ? ` vs ${r} ` : `${r} `, h('strong', null, `${builds[r].name} ${builds[r].version}`)]);
		replace(head, h('div', { class: 'counts-head' },
			h('p', null, vs, ': instructions per json_encode() call (callgrind, inclusive, ÷ iterations). ', badge('run', d.status)),
			candidateCounts(d),
			h('p', { class: 'count-line', 'data-testid': 'count-line' },
				h('span', { class: 'bad-text' }, `${fmtInt(c.regressions)} ${plural(c.regressions, 'regression')}`), ' · ',
				h('span', { class: 'ok-text' }, `${fmtInt(c.improvements)} ${plural(c.improvements, 'improvement')}`), ' · ',
				`${fmtInt(c.unchanged)} within ±`, h('label', null, tInput, ' %'),
				c.unmeasured ? ` · ${c.unmeasured} not measured` : '', ' · ',
				h('a', { href: `/api/runs/${id}/report.md?threshold=${t}`, 'data-testid': 'report-md' }, 'report.md'))));
		replace(filters, filterBar('Show', 'show', SHOW, path, q.get('show') ? q : withParam(q, 'show', 'significant'),
			{ significant: (c.regressions || 0) + (c.improvements || 0), regressions: c.regressions, all: (d.workloads || []).length }));
		drawTable();
		drawChart();
	};

	const drawTable = () => {
		const roles = rolesOf(data.builds);
		const sort = q.get('sort') || 'delta', dir = q.get('dir') || (sort === 'title' ? 'asc' : 'desc');
		const all = data.workloads || [];
		const rows = workloadRows(all, { show: q.get('show') || 'significant', sort, dir });
		const th = (label, k, cls) => {
			const active = sort === k, nextDir = active && dir === 'desc' ? 'asc' : 'desc';
			const qq = withParam(withParam(q, 'sort', k), 'dir', nextDir);
			return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (dir === 'asc' ? 'ascending' : 'descending') : null },
				h('a', { href: hashFor(path, qq), class: 'sort', 'data-testid': `sort-${k}` }, label, active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''));
		};
		const wl = q.get('workload');
		if (!rows.length) {
			replace(tableBox, h('p', { class: 'empty', 'data-testid': 'counts-empty' },
				all.length ? `No workload changed by ${threshold(q)} % or more. ` : 'This run measured no workloads (run the measure suite).',
				all.length ? h('a', { href: hashFor(path, withParam(q, 'show', 'all')), 'data-testid': 'show-all' }, 'Show all') : null));
			return;
		}
		if (roles.length > 2) {
			replace(tableBox, candidatesTable(data, rows, roles, th, wl, path, q));
			return;
		}
		replace(tableBox, h('div', { class: 'scroll-x' }, h('table', { class: 'list instr', 'data-testid': 'counts-table' },
			h('thead', null, h('tr', null, th('Workload', 'title'), roles.map((r) => th(r, r, 'num')), th('Δ %', 'delta', 'num'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'callgrind'))),
			h('tbody', null, rows.map((w) => {
				const key = workloadKey(w);
				const cls = w.change === 'regression' ? 'bad-text' : w.change === 'improvement' ? 'ok-text' : 'dim';
				return h('tr', { 'data-testid': 'counts-row', 'data-change': w.change, 'data-source': w.source || '', class: key === wl ? 'current' : null },
					h('td', { class: 'title' }, h('a', { href: hashFor(path, withParam(q, 'workload', key)), title: 'Show its history', 'data-testid': 'workload-link' }, w.title),
						w.source ? h('div', { class: 'dim small-text mono' }, w.source) : null),
					roles.map((r) => h('td', { class: 'num mono' }, fmtNum(w[r] && w[r].instructions))),
					h('td', { class: `num mono ${cls}`, 'data-testid': 'delta' }, signedPct(w.delta_pct, 2)),
					h('td', { class: 'hide-narrow small-text' },
						roles.map((r) => [w[r] && w[r].callgrind_url ? h('a', { href: w[r].callgrind_url }, r) : null, ' ']),
						h('a', { href: `#/cases/${w.case_id}?comparison=${w.comparison_id}` }, 'case')));
			})))));
	};

	const drawChart = () => {
		const wl = q.get('workload');
		if (!wl) {
			replace(chartBox, h('p', { class: 'hint' }, 'Choose a workload above to see its instructions per call across runs, per build.'));
			chartFor = null;
			return;
		}
		if (chartFor === wl) return;
		chartFor = wl;
		replace(chartBox, workloadHistory(ctx, wl));
	};

	load();
	return {
		onQuery: (nq) => {
			q = nq;
			if (threshold(q) !== lastThreshold) {
				load();
				return;
			}
			if (data) draw();
		},
	};
}
