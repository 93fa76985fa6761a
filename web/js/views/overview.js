/*
 * #/ — builds and their workers, recent runs with live progress, the root
 * causes of the latest run with mismatches (its first few: roots.js), open
 * mismatch buckets, the latest measurement's biggest changes, recent cases
 * (?verdict=&source=).
 */
import { h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { buildsText, duration, failureNote, fmtInt, isActive, signedPct, tail } from '../format.js';
import { navigate } from '../router.js';
import { getFlags, refreshHealth } from '../session.js';
import { badge, countsView, errorBox, filterBar, instructionsView, loading, progressBar, timeEl } from '../components/ui.js';
import { caseTable } from '../components/cases.js';
import { bucketTable } from '../components/buckets.js';
import { rootsTable } from '../components/roots.js';

/* How many root causes the overview shows; the rest are on the run's page. */
const ROOTS_SHOWN = 3;

/* A run whose buckets have root causes: it has mismatches and is not a phpt run (nothing to reduce). */
const hasRoots = (r) => r.suite !== 'phpt' && r.counts && r.counts.differ > 0;
/* A button that starts a run of suite on the builds picked (every active one
 * when picked() is null), with extra() fields (a generated run's seed and
 * count), and goes to its page. */
function startButton(ctx, suite, label, attrs, msgBox, before, picked, extra) {
	const btn = h('button', { type: 'button', ...attrs }, label);
	btn.addEventListener('click', () => {
		btn.disabled = true;
		if (before) before();
		const builds = picked ? picked() : null;
		const body = { suite, ...(extra ? extra() : {}), ...(builds ? { builds } : {}) };
		ctx.api('/api/runs', { method: 'POST', body }).then((run) => navigate(`#/runs/${run.id}`), (e) => {
			if (isAbort(e)) return;
			btn.disabled = false;
			replace(msgBox, errorBox(e));
		});
	});
	return btn;
}

export function overviewView(ctx, params, query) {
	setTitle('Overview');
	const buildsBox = h('div', null, loading('builds'));
	const runsBox = h('div', null, loading('runs'));
	const startMsg = h('div', { 'aria-live': 'polite' });
	/* The builds a run started here compares: the boxes of the build list
	 * (null: every active build, the daemon's default). */
	const picked = () => {
		const boxes = [...buildsBox.querySelectorAll('input[data-testid=build-pick]')];
		return boxes.every((b) => b.checked) ? null : boxes.filter((b) => b.checked).map((b) => b.value);
	};
	const startBtn = startButton(ctx, 'stored', 'Run stored suite', { class: 'primary', 'data-testid': 'start-run' }, startMsg,
		() => replace(startMsg, h('p', { class: 'loading' }, 'Starting…')), picked);
	const measureBtn = startButton(ctx, 'measure', 'Measure workloads', {
		'data-testid': 'start-measure', title: 'The 11 workloads under callgrind on the builds ticked (about half a minute)',
	}, startMsg, null, picked);
	/* Generated cases (docs/generated.md) and php-src's ext/json tests: the
	 * runs that find differences nobody wrote a case for. */
	const genSeed = h('input', { type: 'number', min: '0', step: '1', value: '1', class: 'num-input', 'aria-label': 'seed', 'data-testid': 'gen-seed' });
	const genCount = h('input', { type: 'number', min: '1', max: '10000000', step: '1', value: '20000', class: 'num-input', 'aria-label': 'cases', 'data-testid': 'gen-count' });
	const genBtn = startButton(ctx, 'generated', 'Generate cases', {
		'data-testid': 'start-generated', title: 'Generated json_encode cases from this seed on the builds ticked (docs/generated.md)',
	}, startMsg, null, picked, () => ({ seed: Number(genSeed.value), count: Number(genCount.value) }));
	const phptBtn = startButton(ctx, 'phpt', 'Run phpt tests', {
		'data-testid': 'start-phpt', title: 'php-src\'s ext/json/tests on the builds ticked (docs/phpt.md)',
	}, startMsg, null, picked);
	const filters = h('div', { class: 'filters' });
	const cases = caseTable(ctx, 'No cases match. Submit one, or run the stored suite.');
	const bucketsBox = bucketTable(ctx, { empty: 'No open buckets: every mismatch found so far is triaged (or there are none).' });
	const measureBox = h('div', { 'data-testid': 'latest-measurement' }, loading('the latest measurement'));
	const rootsBox = h('div');
	const rootsRun = h('span', { class: 'dim' });
	const rootsPanel = h('section', { class: 'panel', 'aria-labelledby': 'h-roots', 'data-testid': 'overview-roots', hidden: true },
		h('div', { class: 'panel-head' }, h('h2', { id: 'h-roots' }, 'Root causes', rootsRun)), rootsBox);
	let roots = null, rootsOf = null, rootsPolls = 0, rootsActive = false;

	ctx.main.append(
		h('h1', { class: 'visually-hidden' }, 'Overview'),
		h('section', { class: 'panel', 'aria-labelledby': 'h-builds' },
			h('h2', { id: 'h-builds' }, 'Builds'), buildsBox),
		h('section', { class: 'panel', 'aria-labelledby': 'h-runs' },
			h('div', { class: 'panel-head' }, h('h2', { id: 'h-runs' }, 'Recent runs'), h('span', { class: 'buttons' }, measureBtn, startBtn)),
			h('div', { class: 'run-more', 'data-testid': 'run-more' },
				h('label', null, 'seed ', genSeed), ' ', h('label', null, 'cases ', genCount), ' ', genBtn, ' ', phptBtn),
			startMsg, runsBox),
		rootsPanel,
		h('div', { class: 'two-col wide-first' },
			h('section', { class: 'panel', 'aria-labelledby': 'h-open' },
				h('div', { class: 'panel-head' }, h('h2', { id: 'h-open' }, 'Open mismatch buckets'),
					h('a', { href: '#/buckets?state=open', class: 'button', 'data-testid': 'all-buckets' }, 'Triage')),
				bucketsBox.el),
			h('section', { class: 'panel', 'aria-labelledby': 'h-measure' },
				h('h2', { id: 'h-measure' }, 'Instruction counts'), measureBox)),
		h('section', { class: 'panel', 'aria-labelledby': 'h-cases' },
			h('div', { class: 'panel-head' }, h('h2', { id: 'h-cases' }, 'Recent cases'),
				h('a', { href: '#/new', class: 'button' }, 'Submit a case')),
			filters, cases.el));

	/* The active builds with their workers (health), then the retired ones
	 * (GET /api/builds): their runs still name them. */
	Promise.all([refreshHealth(), ctx.api('/api/builds').catch(() => ({ builds: [] }))]).then(([d, all]) => {
		if (ctx.alive) replace(buildsBox, buildsTable(d, (all.builds || []).filter((b) => b.state === 'retired')));
	}, (e) => { if (ctx.alive) replace(buildsBox, errorBox(e)); });

	/* Measure runs' instruction counts by run id (fetched once each has ended). */
	const measured = new Map();
	const drawRuns = (runs) => replace(runsBox, runs.length ? runsTable(runs, measured) :
		h('p', { class: 'empty', 'data-testid': 'empty' }, 'No runs yet. “Run stored suite” runs every case under cases/ on both builds.'));
	const loadRuns = () => ctx.api('/api/runs?limit=10').then((d) => {
		const runs = d.runs || [];
		drawRuns(runs);
		for (const r of runs.filter((x) => x.suite === 'measure' && x.status === 'done' && !measured.has(x.id))) {
			measured.set(r.id, null);
			ctx.api(`/api/runs/${r.id}/measurements`).then((m) => {
				measured.set(r.id, m);
				if (ctx.alive) drawRuns(runs);
			}, () => measured.delete(r.id));
		}
		const withRoots = runs.find(hasRoots);
		if (withRoots) showRoots(withRoots);
		return runs.some((r) => isActive(r.status));
	}, (e) => {
		if (!isAbort(e)) replace(runsBox, errorBox(e, loadRuns));
		return false;
	});
	/* The root causes of run r (the latest with mismatches): again now and then while it runs. */
	const showRoots = (r) => {
		if (rootsOf !== r.id) {
			rootsOf = r.id;
			roots = rootsTable(ctx, r.id, { limit: ROOTS_SHOWN, empty: 'No root causes yet.', onTriaged: () => bucketsBox.reload() });
			replace(rootsRun, [' of ', h('a', { href: `#/runs/${r.id}`, 'data-testid': 'roots-run' }, `run #${r.id}`)]);
			replace(rootsBox, roots.el);
			rootsPanel.hidden = false;
			roots.reload();
		} else if (isActive(r.status) ? ++rootsPolls % 5 === 0 : rootsActive) {
			roots.reload();
		}
		rootsActive = isActive(r.status);
	};
	loadRuns().then((active) => {
		if (active) ctx.poll(1000, loadRuns);
		/* None of the last 10 runs has mismatches: look further back. */
		if (rootsOf === null) findRun(ctx, hasRoots).then((r) => { if (r && rootsOf === null && ctx.alive) showRoots(r); }, () => {});
	});
	bucketsBox.reload('/api/buckets?state=open&limit=10');
	latestMeasurement(ctx, measureBox);

	const applyQuery = (q) => {
		replace(filters, [
			filterBar('Verdict', 'verdict', ['', 'differ', 'error', 'same'], '/', q),
			filterBar('Source', 'source', ['', 'stored', 'submitted', 'reduced'], '/', q),
			/* The reducer's minimal cases belong to their root causes, not to the recent cases. */
			q.get('source') ? null : h('p', { class: 'hint', 'data-testid': 'reduced-hidden' },
				'The reducer\'s minimal cases are not listed here: they lead their root causes above and their buckets (Source: reduced lists them).'),
		]);
		const api = new URLSearchParams();
		if (q.get('verdict')) api.set('verdict', q.get('verdict'));
		api.set('source', q.get('source') || 'stored,submitted');
		api.set('limit', '50');
		cases.reload(`/api/cases?${api}`);
	};
	getFlags().catch(() => {}).then(() => { if (ctx.alive) applyQuery(query); });
	return { onQuery: applyQuery };
}

/* One row per build of /api/health, in the daemon's order, then the retired ones. */
function buildsTable(d, retired = []) {
	const builds = d.builds || [];
	if (!builds.length) return h('p', { class: 'empty' }, 'The daemon reports no builds.');
	return h('div', null,
		h('div', { class: 'scroll-x' }, h('table', { class: 'list builds', 'data-testid': 'builds' },
			h('thead', null, h('tr', null,
				h('th', { scope: 'col', title: 'The builds a run started here compares (the base always)' }, 'Runs'),
				h('th', { scope: 'col' }, 'Build'), h('th', { scope: 'col' }, 'PHP'),
				h('th', { scope: 'col' }, 'sha256'), h('th', { scope: 'col' }, 'Worker'),
				h('th', { scope: 'col', class: 'num hide-narrow' }, 'Cases run'),
				h('th', { scope: 'col', class: 'num hide-narrow' }, 'Restarts'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Library'))),
			h('tbody', null, builds.map((b) => {
				const w = b.worker || {};
				/* A failure says when it was, and ages out of sight (kept in the badge's title). */
				const fail = failureNote(w);
				return h('tr', { 'data-testid': 'build-row', 'data-build': b.name },
					h('td', null, h('input', { type: 'checkbox', value: b.name, checked: true, disabled: b.role === 'base',
						'data-testid': 'build-pick', 'aria-label': `${b.name} in the runs started here` })),
					h('th', { scope: 'row' }, b.name),
					h('td', { class: 'mono' }, b.php_version || '—'),
					h('td', { class: 'mono', title: b.sha256 || '' }, b.sha256 ? b.sha256.slice(0, 12) : '—'),
					h('td', null, badge('worker', w.state || 'unknown', { 'data-testid': 'worker-state', title: fail ? fail.text : null }),
						w.pid ? h('span', { class: 'dim pid' }, ` pid ${w.pid}`) : null,
						fail && fail.recent ? h('div', { class: 'failure small-text', 'data-testid': 'worker-failure', title: w.last_failure_at || '' }, fail.text) : null),
					h('td', { class: 'num hide-narrow' }, fmtInt(w.cases_run)),
					h('td', { class: 'num hide-narrow' }, fmtInt(w.restarts)),
					h('td', { class: 'mono hide-narrow path', title: b.library || '' }, tail(b.library || b.prefix || '—', 48)));
			}), retired.map((b) => h('tr', { class: 'retired dim', 'data-testid': 'build-row', 'data-build': b.name, 'data-state': 'retired' },
				h('td', null, ''),
				h('th', { scope: 'row' }, b.name),
				h('td', { class: 'mono' }, b.php_version || '—'),
				h('td', { class: 'mono', title: b.sha256 || '' }, b.sha256 ? b.sha256.slice(0, 12) : '—'),
				h('td', null, badge('state', 'retired', { 'data-testid': 'worker-state', title: 'No new case or run uses it; its runs still name it (DELETE /api/builds/NAME)' })),
				h('td', { class: 'num hide-narrow' }, '—'),
				h('td', { class: 'num hide-narrow' }, '—'),
				h('td', { class: 'mono hide-narrow path', title: b.library || '' }, tail(b.library || b.prefix || '—', 48))))))),
		h('p', { class: 'meta' }, `Daemon ${d.version || '?'} · database `, h('code', null, d.db || '?'),
			d.uptime_s !== undefined ? ` · up ${duration(new Date(Date.now() - d.uptime_s * 1000).toISOString())}` : ''));
}

function runsTable(runs, measured) {
	return h('div', { class: 'scroll-x' }, h('table', { class: 'list runs', 'data-testid': 'run-list' },
		h('thead', null, h('tr', null,
			h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Suite'),
			h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Progress'),
			h('th', { scope: 'col' }, 'Verdicts'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Builds'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Started'))),
		h('tbody', null, runs.map((r) => h('tr', { 'data-testid': 'run-row', 'data-run-id': r.id, 'data-status': r.status },
			h('td', { class: 'num' }, h('a', { href: `#/runs/${r.id}` }, r.id)),
			h('td', { class: 'hide-narrow' }, h('a', { href: `#/runs/${r.id}` }, r.suite || 'run')),
			h('td', null, badge('run', r.status || 'unknown', { 'data-testid': 'run-status' }),
				r.error ? h('div', { class: 'failure small-text' }, r.error) : null),
			h('td', { class: 'progress-cell' }, progressBar(r.done || 0, r.total || 0, r.status)),
			h('td', null, r.suite === 'measure' && measured.get(r.id) ?
				[instructionsView(r.id, measured.get(r.id)), h('div', { class: 'dim small-text' }, 'outputs: ',
					countsView(r.counts, (k) => `#/runs/${r.id}?verdict=${encodeURIComponent(k)}`))] :
				countsView(r.counts, (k) => `#/runs/${r.id}?verdict=${encodeURIComponent(k)}`)),
			h('td', { class: 'mono hide-narrow small-text' }, buildsText(r.builds, r.build_names)),
			h('td', { class: 'nowrap hide-narrow' }, timeEl(r.started_at || r.created_at)))))));
}

/* The latest run that `want` picks, within 500 runs (null if none). */
function findRun(ctx, want) {
	const find = (url, pages) => ctx.api(url).then((d) => {
		const r = (d.runs || []).find(want);
		if (r) return r;
		if (d.next && pages < 5) return find(d.next, pages + 1);
		return null;
	});
	return find('/api/runs?limit=100', 0);
}

/* The latest measurement's biggest changes (a measure run, done or running, within 500 runs). */
function latestMeasurement(ctx, box) {
	return findRun(ctx, (x) => x.suite === 'measure' && (x.status === 'done' || x.status === 'running')).then((run) => {
		if (!run) {
			replace(box, h('p', { class: 'empty', 'data-testid': 'no-measurement' }, 'No measurement yet. “Measure workloads” runs the 11 workloads under callgrind on both builds.'));
			return;
		}
		return ctx.api(`/api/runs/${run.id}/measurements`).then((d) => {
			const w = (d.workloads || []).filter((x) => x.delta_pct !== null);
			const reg = w.filter((x) => x.change === 'regression').sort((a, b) => b.delta_pct - a.delta_pct).slice(0, 3);
			const imp = w.filter((x) => x.change === 'improvement').sort((a, b) => a.delta_pct - b.delta_pct).slice(0, 3);
			const li = (x) => h('li', { 'data-testid': 'top-change' },
				h('a', { href: `#/runs/${run.id}/counts?show=all&workload=${encodeURIComponent(x.source || `case:${x.case_id}`)}` }, x.title), ' ',
				h('span', { class: `mono ${x.delta_pct > 0 ? 'bad-text' : 'ok-text'}` }, `${signedPct(x.delta_pct, 1)} %`));
			const c = d.counts || {};
			replace(box, [h('p', null, h('a', { href: `#/runs/${run.id}/counts`, 'data-testid': 'latest-counts' }, `Run #${run.id}`), ' ',
				timeEl(run.finished_at || run.started_at), ': ',
				h('span', { class: 'bad-text' }, `${c.regressions || 0} regressions`), ', ', h('span', { class: 'ok-text' }, `${c.improvements || 0} improvements`),
				`, ${c.unchanged || 0} within ±${d.threshold_pct} %.`),
			h('div', { class: 'two-col' },
				h('div', null, h('h3', null, 'Biggest regressions'), reg.length ? h('ol', { class: 'top' }, reg.map(li)) : h('p', { class: 'dim' }, 'none')),
				h('div', null, h('h3', null, 'Biggest improvements'), imp.length ? h('ol', { class: 'top' }, imp.map(li)) : h('p', { class: 'dim' }, 'none')))]);
		});
	}).catch((e) => { if (!isAbort(e)) replace(box, errorBox(e)); });
}
