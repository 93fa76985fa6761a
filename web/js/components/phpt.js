/*
 * A phpt run's tests (docs/phpt.md) on the run page: a status column per
 * build, each candidate's verdict against the base, filters in the URL
 * (?phpt=regressions|improvements|failures|skips) and the test opened from
 * its row (?test=NAME): every build's status, run-tests' .diff, the base's
 * output beside each candidate's, and the test's sections as run.
 * phptFilter and phptCounts are pure (tests/web/phpt.test.mjs).
 */
import { h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { fmtInt, plural } from '../format.js';
import { hashFor, withParam } from '../router.js';
import { badge, errorBox, filterBar, loading } from './ui.js';

export const PHPT_FILTERS = ['', 'regressions', 'improvements', 'failures', 'skips'];
const FAILING = new Set(['FAIL', 'BORK', 'crash', 'timeout', 'error', 'memory-error']);

/* The run's roles, base first, from its summary (older summaries: base and head). */
export function phptRoles(sum) {
	if (sum && Array.isArray(sum.builds) && sum.builds.length) return sum.builds.map((b) => b.role);
	return ['base', 'head'];
}

/* Does a test (a row of summary.tests) pass the filter? */
export function phptMatches(t, filter, roles) {
	const cands = roles.slice(1);
	switch (filter || '') {
	case '': return true;
	case 'regressions': return cands.some((r) => t[r] && t[r].verdict === 'regression');
	case 'improvements': return cands.some((r) => t[r] && t[r].verdict === 'improvement');
	case 'failures': return roles.some((r) => t[r] && FAILING.has(t[r].status));
	case 'skips': return roles.some((r) => t[r] && t[r].status === 'SKIP');
	default: return false;
	}
}

export const phptFilter = (tests, filter, roles) => (tests || []).filter((t) => phptMatches(t, filter, roles));

/* How many tests each filter shows. */
export function phptCounts(tests, roles) {
	const out = {};
	for (const f of PHPT_FILTERS) if (f) out[f] = phptFilter(tests, f, roles).length;
	return out;
}

const statusBadge = (r, extra) => (r ? badge('phpt', r.status, { 'data-status': r.status, title: r.reason || null, ...extra }) : h('span', { class: 'dim' }, '—'));

function verdictCell(t, roles) {
	const marks = roles.slice(1).filter((r) => t[r] && (t[r].verdict === 'regression' || t[r].verdict === 'improvement'));
	if (!marks.length) return h('span', { class: `badge verdict-${t.verdict}`, 'data-testid': 'phpt-verdict' }, t.verdict);
	return marks.map((r) => h('span', { class: `badge verdict-${t[r].verdict}`, 'data-testid': 'phpt-verdict', 'data-role': r },
		`${t[r].verdict} · ${r}`));
}

/*
 * The panel: path is the run page's path ("/runs/4"); query its hash query.
 * Returns { el, update(summary, query) }.
 */
export function phptPanel(ctx, runId, path) {
	const lineBox = h('div', { 'data-testid': 'phpt-candidates' });
	const filters = h('div', { class: 'filters' });
	const tableBox = h('div', { class: 'scroll-x' });
	const detailBox = h('div', { 'data-testid': 'phpt-detail-box' });
	const el = h('section', { class: 'panel', 'aria-labelledby': 'h-phpt', 'data-testid': 'phpt-panel' },
		h('h2', { id: 'h-phpt' }, 'php-src tests'),
		h('p', { class: 'hint' }, 'run-tests.php\'s statuses on every build; a regression passes on the base and fails, borks, crashes or times out on a candidate.'),
		lineBox, filters, tableBox, detailBox);
	let sum = null, q = new URLSearchParams(), openTest = null, builds = {};

	const drawLine = () => {
		const roles = phptRoles(sum);
		const names = Object.fromEntries((sum.builds || []).map((b) => [b.role, b.name]));
		builds = names;
		replace(lineBox, h('ul', { class: 'phpt-builds' }, roles.map((r) => {
			const c = (sum.counts || {})[r] || {};
			const parts = Object.keys(c).filter((k) => c[k]).map((k) => `${fmtInt(c[k])} ${k}`).join(', ');
			const cand = (sum.candidates || {})[r];
			return h('li', { 'data-testid': 'phpt-build', 'data-role': r },
				h('strong', null, names[r] || r), h('span', { class: 'dim' }, ` (${r}) `), parts || 'nothing run',
				cand ? [' — ', cand.regressions.length
					? h('span', { class: 'bad-text', 'data-testid': 'phpt-regressions' }, `${cand.regressions.length} ${plural(cand.regressions.length, 'regression')}: ${cand.regressions.join(', ')}`)
					: h('span', { 'data-testid': 'phpt-regressions' }, 'no regression'),
				cand.improvements.length ? `, ${cand.improvements.length} ${plural(cand.improvements.length, 'improvement')}: ${cand.improvements.join(', ')}` : null] : null);
		})));
	};

	const drawTable = () => {
		const roles = phptRoles(sum), filter = q.get('phpt') || '';
		const shown = phptFilter(sum.tests, filter, roles);
		replace(filters, filterBar('Tests', 'phpt', PHPT_FILTERS, path, q, phptCounts(sum.tests, roles)));
		const rowHref = (t) => hashFor(path, withParam(q, 'test', t.test));
		const table = h('table', { class: 'list phpt', 'data-testid': 'phpt-list', 'data-filter': filter },
			h('thead', null, h('tr', null,
				h('th', { scope: 'col' }, 'Test'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Name'),
				roles.map((r) => h('th', { scope: 'col', 'data-role': r }, builds[r] || r)),
				h('th', { scope: 'col' }, 'Verdict'))),
			h('tbody', null, shown.map((t) => h('tr', {
				'data-testid': 'phpt-row', 'data-test': t.test, class: t.test === openTest ? 'current' : null,
			},
			h('td', { class: 'mono path' }, h('a', { href: rowHref(t), 'data-testid': 'phpt-open' }, t.test)),
			h('td', { class: 'title hide-narrow' }, t.name),
			roles.map((r) => h('td', { 'data-role': r }, statusBadge(t[r], { 'data-testid': 'phpt-status', 'data-role': r }))),
			h('td', null, verdictCell(t, roles))))));
		replace(tableBox, shown.length ? table : h('p', { class: 'empty', 'data-testid': 'phpt-empty' },
			filter ? `No test of this run is in “${filter}”.` : 'No tests (yet).'));
	};

	let gen = 0;
	const drawDetail = () => {
		const test = q.get('test');
		if (test === openTest && detailBox.firstChild) return;
		openTest = test;
		if (!test) {
			replace(detailBox, null);
			return;
		}
		const my = ++gen;
		replace(detailBox, loading(test));
		ctx.api(`/api/runs/${runId}/phpt?test=${encodeURIComponent(test)}`).then((d) => {
			if (my === gen) replace(detailBox, testDetail(d, hashFor(path, withParam(q, 'test', null))));
		}, (e) => { if (!isAbort(e) && my === gen) replace(detailBox, errorBox(e)); });
	};

	return {
		el,
		update(summary, query) {
			if (summary) sum = summary;
			if (query) q = query;
			if (!sum || !Array.isArray(sum.tests)) {
				replace(tableBox, loading('the tests'));
				return;
			}
			drawLine();
			drawDetail();
			drawTable();
		},
	};
}

const pre = (text, testid) => h('pre', { class: 'code', 'data-testid': testid }, text === null || text === undefined ? '' : text);

/* One test, opened: statuses, .diff and output per build, the sections. */
function testDetail(d, closeHref) {
	const builds = d.builds || [];
	const base = builds[0] || {};
	return h('div', { class: 'phpt-detail', 'data-testid': 'phpt-detail', 'data-test': d.test },
		h('h3', null, h('span', { class: 'mono' }, d.test), ' ', h('span', { class: 'dim' }, d.name || ''), ' ',
			h('a', { href: closeHref, class: 'small-text', 'data-testid': 'phpt-close' }, '(close)')),
		d.bork ? h('div', { class: 'notice warning' }, 'BORK: ', d.bork) : null,
		h('table', { class: 'list' },
			h('thead', null, h('tr', null, ['Build', 'Status', 'Why', 'Verdict', 'Bucket', 'ms'].map((x) => h('th', { scope: 'col' }, x)))),
			h('tbody', null, builds.map((b) => h('tr', { 'data-testid': 'phpt-detail-build', 'data-role': b.role },
				h('td', null, h('strong', null, b.build || b.role), h('span', { class: 'dim' }, ` ${b.role}`)),
				h('td', null, statusBadge(b)),
				h('td', { class: 'small-text' }, b.reason || ''),
				h('td', null, b.verdict ? h('span', { class: `badge verdict-${b.verdict}` }, b.verdict) : h('span', { class: 'dim' }, 'base')),
				h('td', null, b.bucket_id ? h('a', { href: `#/buckets/${b.bucket_id}`, 'data-testid': 'phpt-bucket' }, `#${b.bucket_id}`) : ''),
				h('td', { class: 'num' }, b.wall_ms !== null && b.wall_ms !== undefined ? b.wall_ms.toFixed(1) : ''))))),
		builds.filter((b) => b.diff).map((b) => h('div', { class: 'code-block' },
			h('div', { class: 'label' }, `${b.build || b.role}: run-tests' .diff (expected −, actual +)`), pre(b.diff, 'phpt-diff'))),
		builds.slice(1).filter((b) => b.status !== base.status || b.output !== base.output).map((b) =>
			h('div', { class: 'two-col phpt-outputs', 'data-testid': 'phpt-outputs', 'data-role': b.role },
				h('div', { class: 'code-block' }, h('div', { class: 'label' }, `${base.build || 'base'} printed`), pre(base.output, 'phpt-output-base')),
				h('div', { class: 'code-block' }, h('div', { class: 'label' }, `${b.build || b.role} printed`), pre(b.output, 'phpt-output-cand')))),
		h('details', { class: 'phpt-sections', 'data-testid': 'phpt-sections', open: true },
			h('summary', null, `Sections (${(d.sections || []).length})`),
			(d.sections || []).map((s) => h('div', { class: 'code-block', 'data-section': s.name },
				h('div', { class: 'label mono' }, `--${s.name}--`), pre(s.text, 'phpt-section')))));
}
