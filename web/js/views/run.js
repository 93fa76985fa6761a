/*
 * #/runs/ID — one run: live progress, counts by verdict, its root causes
 * (each root's minimal case and outputs: roots.js), its mismatches in
 * buckets (with bulk triage), what its suite adds (the measure suite's
 * counts, a generated run's summary and coverage, a phpt run's tests with a
 * status per build: ?phpt=, ?test=, phpt.js), its cases (?verdict=).
 */
import { h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { orderRoles } from '../builds.js';
import { buildsText, duration, fmtInt, isActive, plural } from '../format.js';
import { hashFor, withParam } from '../router.js';
import { badge, countsView, errorBox, filterBar, instructionsView, loading, progressBar, timeEl } from '../components/ui.js';
import { caseTable } from '../components/cases.js';
import { bucketTable } from '../components/buckets.js';
import { phptPanel } from '../components/phpt.js';
import { codeCoverage } from '../components/codecov.js';
import { rootsTable } from '../components/roots.js';
import { STATES, storedText } from '../triage.js';

export function runView(ctx, params, query) {
	const id = params[0];
	setTitle(`Run #${id}`);
	const headBox = h('div', null, loading(`run #${id}`));
	const suiteEl = h('span', { id: 'run-suite', class: 'dim' });
	const filters = h('div', { class: 'filters' });
	const cases = caseTable(ctx, 'No cases in this run match.');
	const actionMsg = h('div', { 'aria-live': 'polite' });
	let lastRun = null, q = query, cancelling = false, polls = 0, codeCov = null;
	/* A measure run's verdict is in instructions (its measurements' counts), fetched once it has ended. */
	let measured = null, measuring = false;
	/* The run's mismatches, those stored in full, and the buckets, in words that add up. */
	const bucketsNote = h('p', { class: 'meta', 'data-testid': 'run-stored' });
	let bucketCountsOf = null;
	const drawStored = () => {
		if (!bucketCountsOf) return;
		let stored = 0, n = 0;
		for (const k of STATES) {
			stored += (bucketCountsOf[k] || {}).mismatches || 0;
			n += (bucketCountsOf[k] || {}).buckets || 0;
		}
		replace(bucketsNote, n ? storedText(lastRun && lastRun.counts ? lastRun.counts.differ : null, stored, n) : null);
	};
	const buckets = bucketTable(ctx, {
		run: id, selectable: true, empty: 'No mismatches in this run (so far): nothing to triage.',
		onCounts: (c) => { bucketCountsOf = c; drawStored(); },
	});
	/* A phpt run's tests and a measure run's counts lead; a generated run's
	 * coverage report comes after its root causes and mismatches. */
	const extraBox = h('div'), reportBox = h('div');
	const roots = rootsTable(ctx, id, {
		onData: (d) => { rootsPanel.hidden = !(d.roots || []).length && !(d.reduction || {}).buckets_pending; },
		onTriaged: () => buckets.reload(),
		runDiffer: () => (lastRun && lastRun.counts ? lastRun.counts.differ : null),
	});
	const rootsPanel = h('section', { class: 'panel', 'aria-labelledby': 'h-run-roots', 'data-testid': 'run-roots', hidden: true },
		h('h2', { id: 'h-run-roots' }, 'Root causes'),
		h('p', { class: 'hint' }, 'Buckets whose mismatches reduce to the same minimal case are one root cause; most mismatches first. ',
			'A state set on a root cause is set on each of its buckets.'),
		roots.el);
	const phpt = phptPanel(ctx, id, `/runs/${id}`);
	const casesPanel = h('section', { class: 'panel', 'aria-labelledby': 'h-run-cases' },
		h('h2', { id: 'h-run-cases' }, 'Cases'), filters, cases.el);
	ctx.main.append(
		h('h1', null, `Run #${id}`, suiteEl),
		h('section', { class: 'panel', 'aria-labelledby': 'h-run-status' },
			h('h2', { id: 'h-run-status', class: 'visually-hidden' }, 'Status'), headBox, actionMsg),
		rootsPanel,
		extraBox,
		h('section', { class: 'panel', 'aria-labelledby': 'h-run-buckets', 'data-testid': 'run-buckets' },
			h('h2', { id: 'h-run-buckets' }, 'Mismatches, in buckets'),
			h('p', { class: 'hint' }, 'Mismatches that differ the same way are one bucket; a bucket seen in earlier runs keeps its triage; ',
				'a bucket that joined a root cause is listed under it.'),
			bucketsNote, buckets.el),
		reportBox,
		casesPanel);
	const bucketsUrl = `/api/buckets?run=${id}&limit=50`;

	/* What a suite adds: the measure suite's counts, a generated run's report and coverage. */
	const drawExtra = (r) => {
		const sum = r.summary || null, parts = [];
		/* A coverage run's gcov figures (docs/coverage.md), once it has ended. */
		if (r.params && r.params.coverage === true && !isActive(r.status) && !codeCov) codeCov = codeCoverage(ctx, id);
		/* A phpt run has tests, not cases: its panel instead of the cases' and the JSON summary. */
		if (r.suite === 'phpt') {
			casesPanel.hidden = true;
			phpt.update(sum, q);
			replace(extraBox, [phpt.el, codeCov]);
			return;
		}
		const report = [];
		if (r.suite === 'measure')
			parts.push(h('section', { class: 'panel' }, h('h2', null, 'Instruction counts'),
				h('p', null, h('a', { href: `#/runs/${id}/counts`, class: 'button', 'data-testid': 'counts-link' }, 'Instruction counts table'),
					' ', h('a', { href: `/api/runs/${id}/report.md`, class: 'button' }, 'report.md'))));
		/* Seeds, rate, corpus hash and error codes are in the run's head (generatedSummary). */
		if (sum && typeof sum === 'object') {
			const cov = sum.coverage ? coverageView(sum.coverage) : null;
			report.push(h('section', { class: 'panel', 'data-testid': 'run-summary' },
				h('h2', null, 'Coverage', sum.coverage && sum.coverage.cases !== undefined ? h('span', { class: 'dim' }, ` of ${fmtInt(sum.coverage.cases)} cases`) : null),
				cov || h('p', { class: 'empty' }, 'This run reported no coverage.'),
				h('details', null, h('summary', null, 'Everything the run reported (JSON)'), h('pre', { class: 'code' }, JSON.stringify(sum, null, 2)))));
		}
		report.push(codeCov);
		replace(extraBox, parts);
		replace(reportBox, report);
	};

	/* A phpt run's buckets are not reduced (they have no case): no roots. */
	const reloadRoots = () => {
		if (lastRun && lastRun.suite !== 'phpt') roots.reload();
	};

	const casesUrl = () => {
		const api = new URLSearchParams();
		if (q.get('verdict')) api.set('verdict', q.get('verdict'));
		api.set('limit', '50');
		return `/api/runs/${id}/cases?${api}`;
	};
	const drawFilters = () => {
		replace(filters, filterBar('Verdict', 'verdict', ['', 'differ', 'error', 'unsupported', 'same'], `/runs/${id}`, q, lastRun && lastRun.counts));
	};

	const loadRun = () => ctx.api(`/api/runs/${id}`).then((r) => {
		const wasActive = lastRun && isActive(lastRun.status);
		lastRun = r;
		drawStored();
		suiteEl.textContent = ` · ${r.suite || 'run'}`;
		if (!wasActive || !isActive(r.status) || polls % 5 === 0) drawExtra(r);
		const drawHead = () => replace(headBox, runHead(r, (k) => hashFor(`/runs/${id}`, withParam(q, 'verdict', k)),
			isActive(r.status) ? cancelButton() : null, measured));
		drawHead();
		if (r.suite === 'measure' && r.status === 'done' && !measured && !measuring) {
			measuring = true;
			ctx.api(`/api/runs/${id}/measurements`).then((m) => {
				measured = m;
				if (lastRun === r) drawHead();
			}, () => { measuring = false; });
		}
		drawFilters();
		const active = isActive(r.status);
		/* While running, refresh the first page of cases now and then
		 * (unless the reader has paged further); once more at the end. */
		polls++;
		if ((wasActive && !active) || (active && polls % 3 === 0 && cases.pages() <= 50)) cases.reload(casesUrl());
		if ((wasActive && !active) || (active && polls % 3 === 0)) {
			buckets.reload(bucketsUrl);
			reloadRoots();
		}
		return active;
	}, (e) => {
		if (isAbort(e)) return false;
		/* Keep polling if the run was there a moment ago (daemon restarting);
		 * otherwise stop and offer a retry. */
		replace(headBox, errorBox(e, lastRun ? null : () => loadRun().then(startPolling)));
		return !!lastRun;
	});

	const cancelButton = () => h('button', {
		type: 'button', class: 'danger', 'data-testid': 'cancel-run', disabled: cancelling,
		title: 'A queued run stops at once, a running one after its current case',
		onclick: (ev) => {
			cancelling = true;
			ev.currentTarget.disabled = true;
			replace(actionMsg, null);
			ctx.api(`/api/runs/${id}/cancel`, { method: 'POST' }).then(() => loadRun(), (e) => {
				if (isAbort(e)) return;
				cancelling = false;
				replace(actionMsg, errorBox(e));
				return loadRun();
			});
		},
	}, cancelling ? 'Cancelling…' : 'Cancel run');

	const startPolling = (active) => { if (active) ctx.poll(1000, loadRun); };
	loadRun().then((active) => {
		if (lastRun) {
			cases.reload(casesUrl());
			buckets.reload(bucketsUrl);
			reloadRoots();
		}
		startPolling(active);
	});
	drawFilters();

	return {
		onQuery: (nq) => {
			q = nq;
			if (lastRun && lastRun.suite === 'phpt') {
				phpt.update(null, q);
				return;
			}
			drawFilters();
			cases.reload(casesUrl());
		},
	};
}

function runHead(r, linkFor, action, measured) {
	const dur = duration(r.started_at, r.finished_at);
	const instr = r.suite === 'measure' ? instructionsView(r.id, measured) : null;
	return h('div', { class: 'run-head', 'data-testid': 'run-head', 'data-status': r.status },
		h('div', { class: 'run-line' },
			badge('run', r.status || 'unknown', { 'data-testid': 'run-status' }),
			progressBar(r.done || 0, r.total || 0, r.status),
			/* A measure run: instructions first; its outputs' verdicts said as such. */
			instr, instr ? h('span', { class: 'dim small-text' }, 'outputs: ') : null,
			countsView(r.counts, linkFor), action),
		r.counts && r.counts.broken > 0 ? h('div', { class: 'notice warning', 'data-testid': 'run-broken' },
			h('strong', null, `${fmtInt(r.counts.broken)} ${plural(r.counts.broken, 'case')} broke on every build: `),
			'the builds agree (verdict same), but none ran to its end — crashed, timed out, hit a limit, called exit()… ',
			h('a', { href: linkFor('same') }, 'Listed among same'), '; each case\'s page says how it ended.') : null,
		r.error ? h('div', { class: `notice ${r.status === 'failed' ? 'error' : 'warning'}`, role: 'alert', 'data-testid': 'run-error' },
			h('strong', null, r.status === 'failed' ? 'Run failed: ' : r.status === 'interrupted' ? 'Interrupted: ' : 'Note: '), r.error) : null,
		h('dl', { class: 'spec' },
			h('dt', null, 'Builds'), h('dd', { class: 'mono' }, buildsText(r.builds, r.build_names)),
			h('dt', null, 'Created'), h('dd', null, timeEl(r.created_at)),
			h('dt', null, 'Started'), h('dd', null, timeEl(r.started_at)),
			h('dt', null, 'Finished'), h('dd', null, timeEl(r.finished_at)),
			dur ? [h('dt', null, isActive(r.status) ? 'Running for' : 'Took'), h('dd', null, dur)] : null,
			r.suite === 'generated' && r.summary ? generatedSummary(r.summary, Object.keys(r.builds || {})) : null));
}

/*
 * A generated run's summary (docs/generated.md): seeds, speed per build,
 * corpus hash, error codes; runRoles are the run's builds.
 */
function generatedSummary(s, runRoles) {
	const builds = s.builds || {};
	const roles = orderRoles(runRoles.length ? runRoles : Object.keys(builds));
	const perBuild = roles.filter((role) => builds[role])
		.map((role) => `${role} ${fmtInt(Math.round(builds[role].cases_per_s))}/s`).join(', ');
	const errors = roles.map((role) => {
		const b = builds[role] || {};
		const codes = Object.entries(b.error_codes || {}).map(([k, n]) => `${k.replace(/^JSON_ERROR_/, '')} ${fmtInt(n)}`);
		return `${role}: ${codes.join(', ')}${b.exceptions ? `, exceptions ${fmtInt(b.exceptions)}` : ''}`;
	});
	const cov = s.coverage || {};
	const groups = Object.keys(cov).filter((g) => typeof cov[g] === 'object');
	return [
		h('dt', null, 'Seeds'), h('dd', { class: 'mono' }, `${(s.seeds || []).join(', ')} × ${fmtInt(s.count)}` +
			`${s.start ? ` from index ${fmtInt(s.start)}` : ''} (generator v${s.generator_version})`),
		h('dt', null, 'Rate'), h('dd', { 'data-testid': 'run-rate' }, `${fmtInt(Math.round(s.rate || 0))} cases/s` +
			(perBuild ? ` (${perBuild} while busy)` : '')),
		h('dt', null, 'Corpus hash'), h('dd', { class: 'mono' }, s.corpus_hash || 'when the run is done'),
		h('dt', null, 'Error codes'), h('dd', { class: 'mono' }, errors.map((e) => h('div', null, e))),
		h('dt', null, 'Coverage'), h('dd', null, groups.length ? 'how many cases used each piece, flag, class…: see “Coverage” below' : '—'),
	];
}

/* A generated run's coverage report (run.summary.coverage): how often each piece, flag... was used. */
function coverageView(cov) {
	const groups = Object.keys(cov || {});
	if (!groups.length) return null;
	const flat = {}, grouped = {};
	for (const g of groups) {
		if (typeof cov[g] === 'number') flat[g] = cov[g];
		else grouped[g] = cov[g];
	}
	const sections = Object.entries(grouped).map(([g, items]) => {
		const names = Object.keys(items);
		const max = Math.max(...names.map((n) => items[n]), 1);
		const zero = names.filter((n) => !items[n]);
		return h('div', { class: 'cov-group', 'data-testid': 'coverage-group', 'data-group': g },
			h('h3', null, g, h('span', { class: 'dim small-text' }, ` · ${names.length} kinds${zero.length ? `, ${zero.length} never used` : ', every one used'}`)),
			h('table', { class: 'list cov' }, h('tbody', null, names.map((n) => {
				const v = items[n];
				const w = Math.round(100 * v / max);
				const bar = h('span', { class: 'bar', 'data-w': w });
				/* Widths through CSSOM, not style attributes. */
				bar.style.width = `${w}%`;
				/* A line break allowed after each underscore. */
				const name = n.split('_').map((p, i, all) => [p, i < all.length - 1 ? ['_', h('wbr')] : null]);
				return h('tr', { class: v ? null : 'uncovered' }, h('th', { scope: 'row', class: 'mono small-text' }, name),
					h('td', { class: 'num mono' }, fmtInt(v)),
					h('td', { class: 'bar-cell' }, bar));
			}))));
	});
	return h('div', { class: 'coverage', 'data-testid': 'coverage' },
		Object.keys(flat).length ? h('p', null, Object.keys(flat).map((k, i) => [i ? ' · ' : null, h('span', { class: 'mono' }, k), ` ${fmtInt(flat[k])}`])) : null,
		sections);
}
