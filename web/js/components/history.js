/*
 * A workload's instructions per call across runs: a chart with a line per
 * build (uPlot, served as /vendor/uPlot.js and read as the global `uPlot`)
 * and the table of points.  Builds come from the points themselves.
 */
import { h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { buildColour, candidates, pointRoles } from '../builds.js';
import { fmtNum, pctChange, plainPct } from '../format.js';
import { errorBox, loading, timeEl } from './ui.js';

/* wl: a workload's source file, or "case:ID". */
export function workloadHistory(ctx, wl) {
	const box = h('div', { class: 'history', 'data-testid': 'workload-history', 'data-workload': wl }, loading('history'));
	const url = wl.startsWith('case:') ? `/api/workloads/history?case=${encodeURIComponent(wl.slice(5))}` :
		`/api/workloads/history?source=${encodeURIComponent(wl)}`;
	ctx.api(`${url}&limit=100`).then((d) => {
		const pts = (d.points || []).slice().reverse(); /* oldest first */
		if (!pts.length) {
			replace(box, h('p', { class: 'empty' }, 'No measurements of this workload yet.'));
			return;
		}
		const roles = pointRoles(pts[pts.length - 1]);
		const base = roles[0], cands = candidates(roles);
		const title = pts[pts.length - 1].title;
		const chart = h('div', { class: 'chart', 'data-testid': 'history-chart' });
		/* One Δ % column per candidate (named when there are several). */
		const deltaHead = (r) => (cands.length > 1 ? `Δ % ${r}` : 'Δ %');
		replace(box, [h('h3', null, title, ' ', h('span', { class: 'dim mono small-text' }, wl)), chart,
			h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'history-points' },
				h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Run'),
					roles.map((r) => [h('th', { scope: 'col' }, r), h('th', { scope: 'col', class: 'num' }, 'instr/call')]),
					cands.map((r) => h('th', { scope: 'col', class: 'num' }, deltaHead(r))))),
				h('tbody', null, pts.slice().reverse().map((p) => h('tr', null,
					h('td', null, h('a', { href: `#/runs/${p.run_id}/counts?workload=${encodeURIComponent(wl)}` }, `#${p.run_id}`), ' ', timeEl(p.run_created_at)),
					roles.map((r) => {
						const b = p[r] || {};
						return [h('td', { class: 'mono small-text', title: `sha256 ${b.sha256_prefix}` }, `${b.build} ${b.version}`),
							h('td', { class: 'num mono' }, fmtNum(b.instructions))];
					}),
					cands.map((r) => {
						const bi = p[base] && p[base].instructions, ci = p[r] ? p[r].instructions : null;
						return h('td', { class: 'num mono' }, plainPct(bi && ci !== null ? pctChange(bi, ci) : null, 2));
					}))))))]);
		drawHistoryChart(chart, pts, roles, ctx.main);
	}, (e) => { if (!isAbort(e)) replace(box, errorBox(e)); });
	return box;
}

function drawHistoryChart(el, pts, roles, main) {
	const uPlot = globalThis.uPlot;
	if (!uPlot) {
		replace(el, h('p', { class: 'notice warning' }, 'The chart library is not installed (make web-deps); the table below has the figures.'));
		return;
	}
	const xs = pts.map((p) => p.run_id);
	const lines = roles.map((r) => pts.map((p) => (p[r] ? p[r].instructions : null)));
	const width = Math.max(320, Math.min(900, ((main && main.clientWidth) || 900) - 64));
	const fg = getComputedStyle(document.documentElement).getPropertyValue('--fg').trim() || '#222';
	/* uPlot draws on a canvas; one line per build, x = run number. */
	const opts = {
		width, height: 260,
		scales: { x: { time: false } },
		legend: { live: true },
		cursor: { drag: { x: false, y: false } },
		axes: [
			{ label: 'run', stroke: fg, values: (u, vals) => vals.map((v) => (Number.isInteger(v) ? `#${v}` : '')) },
			{ label: 'instructions / call', stroke: fg, size: 70 },
		],
		series: [
			{ label: 'run' },
			...roles.map((r, i) => ({ label: r, stroke: buildColour(i), width: 2, points: { show: true, size: 6 } })),
		],
	};
	try {
		el.uplot = new uPlot(opts, [xs, ...lines], el);
	} catch (e) {
		replace(el, h('p', { class: 'notice warning' }, `Could not draw the chart: ${e.message}`));
	}
}
