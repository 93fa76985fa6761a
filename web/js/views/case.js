/*
 * #/cases/ID — one case: its code and flags, every build's result side by
 * side (byte-exact, differing bytes highlighted), its bucket, exports (curl,
 * stored case file, .phpt) and its history (?comparison=ID shows an earlier
 * comparison).
 */
import { append, clear, h, replace, setTitle } from '../dom.js';
import { fetchText, isAbort } from '../api.js';
import { candidateVerdicts, rolesOf, shownRoles } from '../builds.js';
import { caseBody, curlFor } from '../export.js';
import { caseErrorText } from '../format.js';
import { navigate } from '../router.js';
import { flagNames, getFlags, haveHealth, refreshHealth } from '../session.js';
import { codeBlock, copyButton, differsList, errorBox, lazyText, loading, timeEl, verdictBadge } from '../components/ui.js';
import { caseBucketPanel } from '../components/buckets.js';
import { resultsGrid } from '../components/results.js';
import { answersPanel } from '../components/answers.js';
import { releasedPanel } from '../components/released.js';

export function caseView(ctx, params, query) {
	const id = params[0], cmp = query.get('comparison'), vs = query.get('vs');
	const main = ctx.main;
	setTitle(`Case #${id}`);
	main.append(loading(`case #${id}`));
	const load = () => {
		ctx.api(`/api/cases/${id}${cmp ? `?comparison=${encodeURIComponent(cmp)}` : ''}`)
			.then((d) => getFlags().catch(() => {}).then(() => d))
			.then((d) => {
				clear(main);
				renderCase(ctx, d, load, vs);
				if (window.scrollY) window.scrollTo(0, 0);
			}, (e) => {
				if (isAbort(e)) return;
				replace(main, [h('h1', null, `Case #${id}`), errorBox(e, load),
					h('p', null, h('a', { href: '#/' }, 'Back to the overview'))]);
			});
	};
	if (!haveHealth()) refreshHealth().catch(() => {});
	load();
}

/*
 * Each candidate's verdict against the base; with more than three builds a
 * switch between them (?vs=ROLE) so the results stay two or three columns
 * wide instead of scrolling sideways.
 */
function candidatesBar(id, cmp, cands, shown, switching) {
	if (cands.length < 2) return null;
	return h('nav', { class: 'candidates-bar', 'data-testid': 'candidates', 'aria-label': 'Candidates against the base' },
		h('span', { class: 'dim' }, switching ? 'base vs ' : 'against the base: '),
		cands.map((x) => {
			const label = [h('strong', null, x.name), ' ', verdictBadge(x.verdict), x.differs.length ? [' ', differsList(x.differs)] : null];
			const attrs = { class: `cand${shown.includes(x.role) ? ' current' : ''}`, 'data-testid': `candidate-${x.name}`, 'data-verdict': x.verdict };
			if (!switching) return h('span', attrs, label, ' ');
			const q = new URLSearchParams();
			if (cmp) q.set('comparison', cmp);
			q.set('vs', x.role);
			return h('a', { ...attrs, href: `#/cases/${id}?${q}`, 'aria-current': shown.includes(x.role) ? 'true' : null }, label);
		}));
}

function renderCase(ctx, d, reload, vs) {
	const c = d.case || d;
	const id = c.id !== undefined ? c.id : d.id;
	const verdict = d.verdict, differs = d.differs || [];
	const results = d.results || {};
	setTitle(`Case #${id}${c.title ? ` ${c.title}` : ''}`);
	const flagList = c.flag_names || flagNames(c.flags || 0) || [];
	const phptUrl = `/api/cases/${id}/phpt?comparison=${d.comparison_id}`;
	const roles = rolesOf(results), cands = candidateVerdicts(d.candidates);
	const shown = shownRoles(roles, cands, vs);
	const perRole = Object.fromEntries(cands.map((x) => [x.role, x.differs]));

	/* dom.js's append leaves out the null sections (Element.append would print "null"). */
	append(ctx.main, [
		h('div', { class: 'case-head' },
			h('h1', null, h('span', { class: 'dim' }, `Case #${id} `), c.title || 'untitled'),
			h('div', { class: 'verdict-line' }, verdictBadge(verdict), ' ',
				differs.length ? ['differs in ', differsList(differs)] :
					(verdict === 'same' ? (roles.length > 2 ? 'every build agrees' : 'both builds agree') : null),
				/* Some build could not run it (issue 45): which, and why. */
				verdict === 'unsupported' ? unsupportedLine(roles, results) : null,
				/* The same, but none ran to its end: said how (issue 46). */
				verdict === 'same' && d.ended ? [': ', h('strong', { class: 'ended', 'data-testid': 'case-ended' },
					`${roles.length > 2 ? 'all' : 'both'} ${d.ended}`)] : null),
			candidatesBar(id, d.comparison_id, cands, shown, shown.length < roles.length),
			/* A case error: nothing to compare, the case itself is wrong. */
			verdict === 'error' && d.case_error ? h('div', { class: 'notice error case-error', role: 'alert', 'data-testid': 'case-error' },
				h('strong', null, 'The case does not compile: '), caseErrorText(d.case_error)) : null),
		h('section', { class: 'panel case-spec', 'aria-labelledby': 'h-spec' },
			h('h2', { id: 'h-spec', class: 'visually-hidden' }, 'The case'),
			h('div', { class: 'spec-side' }, h('dl', { class: 'spec' },
				h('dt', null, 'Flags'),
				h('dd', { class: 'mono', 'data-testid': 'case-flags' },
					flagList.length ? flagList.join(' | ') : '0', h('span', { class: 'dim' }, ` (${c.flags || 0})`)),
				h('dt', null, 'Depth'), h('dd', { class: 'mono' }, c.depth !== undefined ? c.depth : 512),
				c.source ? [h('dt', null, 'Source'), h('dd', { class: 'mono' }, c.source)] : null,
				h('dt', null, 'Created'), h('dd', null, timeEl(c.created_at))),
			h('div', { class: 'actions' },
				/* A stored case is re-run by suite runs; re-POSTing it would file a
				 * separate submitted copy. */
				c.source ? null : runAgainButton(ctx, c),
				copyButton('Copy as curl', () => curlFor(c, location.origin), 'copy-curl'),
				copyButton('Copy as stored case', () => fetchText(`/api/cases/${id}/casefile`), 'copy-casefile'),
				d.comparison_id && d.results && d.results.base && d.results.base.status === 'ok' ?
					h('a', {
						class: 'button', href: phptUrl, download: '', 'data-testid': 'export-phpt',
						title: 'A php-src run-tests file for ext/json/tests, expecting the base build\'s output',
					}, 'Export .phpt') : null,
				h('a', { class: 'button', href: `#/new?from=${id}` }, 'Edit & resubmit'),
				h('a', { class: 'button', href: `/api/cases/${id}` }, 'JSON'))),
			h('div', { class: 'spec-main' },
				codeBlock('Setup', c.setup, 'case-setup'),
				codeBlock('Code', c.code, 'case-code'),
				c.expect !== null && c.expect !== undefined ? codeBlock(c.expectf ? 'Expectf (a pattern: run-tests\' placeholders)' : 'Expect', c.expect, 'case-expect') : null,
				h('details', { class: 'curl' }, h('summary', null, 'curl command'),
					h('pre', { class: 'code', 'data-testid': 'curl-text' }, curlFor(c, location.origin))),
				d.comparison_id ? lazyText('php-src test (.phpt), expecting base', phptUrl, 'phpt-text') : null,
				lazyText('stored case file', `/api/cases/${id}/casefile`, 'casefile-text'))),
		d.bucket ? caseBucketPanel(ctx, d.bucket, reload) : null,
		verdict === 'error' ? null : answersPanel(results),
		/* Every released PHP's answer, filling in as it comes (issue 49). */
		verdict === 'error' || !d.comparison_id ? null : releasedPanel(ctx, id),
		resultsGrid(shown, results, differs, { ...c, expected: d.expected }, perRole),
		historySection(d.history || [], d.comparison_id, id)]);
}

/* "unsupported on head (does not compile: …); the others agree". */
function unsupportedLine(roles, results) {
	const un = roles.filter((r) => results[r] && results[r].unsupported);
	return h('span', { 'data-testid': 'case-unsupported' }, 'unsupported on ',
		un.map((r, i) => [i ? ', ' : '', h('strong', null, results[r].build || r),
			h('span', { class: 'dim' }, ` (${results[r].unsupported})`)]),
		un.length < roles.length ? (roles.length - un.length > 1 ? '; the others agree' : '') : '');
}

function runAgainButton(ctx, c) {
	const msg = h('span', { class: 'copy-msg', role: 'status' });
	const btn = h('button', {
		type: 'button', 'data-testid': 'run-again',
		title: 'Run this case on both builds again; the new comparison joins its history',
	}, 'Run again');
	btn.addEventListener('click', () => {
		btn.disabled = true;
		msg.textContent = 'Running…';
		ctx.api('/api/cases', { method: 'POST', body: caseBody(c) }).then((d) => {
			navigate(`#/cases/${d.id !== undefined ? d.id : d.case && d.case.id}`);
		}, (e) => {
			if (isAbort(e)) return;
			btn.disabled = false;
			msg.textContent = '';
			btn.parentNode.after(errorBox(e));
		});
	});
	return h('span', { class: 'copy' }, btn, msg);
}

function historySection(history, currentId, caseId) {
	return h('section', { class: 'panel', 'aria-labelledby': 'h-history' },
		h('h2', { id: 'h-history' }, 'History'),
		history.length ? h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'history' },
			h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Comparison'),
				h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'When'))),
			h('tbody', null, history.map((x) => h('tr', { 'data-testid': 'history-row', class: x.comparison_id === currentId ? 'current' : null },
				h('td', { class: 'num' }, x.comparison_id === currentId ? [x.comparison_id, h('span', { class: 'dim' }, ' (shown)')] :
					h('a', { href: `#/cases/${caseId}?comparison=${x.comparison_id}` }, x.comparison_id)),
				h('td', null, x.run_id ? h('a', { href: `#/runs/${x.run_id}` }, `run #${x.run_id}`) : h('span', { class: 'dim' }, 'submitted')),
				h('td', null, verdictBadge(x.verdict, 'history-verdict'), ' ', differsList(x.differs)),
				h('td', null, timeEl(x.created_at))))))) : h('p', { class: 'empty' }, 'No earlier comparisons.'));
}
