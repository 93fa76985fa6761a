/*
 * #/buckets/ID — one bucket: its key, triage form, audit trail, the runs it
 * was seen in, its mismatches (?run=ID or ?run=submitted), and its
 * representative mismatch's results side by side.
 */
import { append, clear, h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { rolesOf } from '../builds.js';
import { fmtInt, plural } from '../format.js';
import { hashFor } from '../router.js';
import { flagsText } from '../session.js';
import { errorBox, loading, timeEl } from '../components/ui.js';
import { auditTrail, confirmationBadge, keySummary, keyTable, minimalCall, stateBadge, triageForm } from '../components/buckets.js';
import { notReducedText } from '../triage.js';
import { resultsGrid } from '../components/results.js';
import { codeText, renderBytes } from '../components/bytesview.js';

// Two outputs with what follows their common prefix marked (the difference).
const enc = (s) => new TextEncoder().encode(String(s));

function markedOutputs(outputs) {
	const roles = Object.keys(outputs || {});
	const text = (o) => (o.status !== 'ok' ? `(${o.status}${o.signal ? ` ${o.signal}` : ''})` : o.output_is_false ? 'false' : o.output);
	const base = outputs && outputs.base ? text(outputs.base) : '';
	return h('table', { class: 'list', 'data-testid': 'minimal-outputs' },
		h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Build'), h('th', { scope: 'col' }, 'json_encode'),
			h('th', { scope: 'col', class: 'num' }, 'json_last_error()'), h('th', { scope: 'col' }, 'Exception'))),
		h('tbody', null, roles.map((role) => {
			/* Byte by byte, as the results show them: a DEL is a \x7f chip, not a box. */
			const o = outputs[role], tb = enc(text(o)), bb = enc(base);
			let p = 0;
			while (p < tb.length && p < bb.length && tb[p] === bb[p]) p++;
			const marked = role !== 'base' && text(o) !== base && p < tb.length;
			return h('tr', { 'data-role': role }, h('td', null, role),
				h('td', null, h('code', { 'data-testid': 'minimal-output' }, renderBytes(tb, 0, tb.length, marked ? { ranges: [{ start: p, end: tb.length }] } : null))),
				h('td', { class: 'num' }, String(o.error_code)), h('td', null, o.exception || ''));
		})));
}

// The bucket's minimal reproducer first: code, flags, outputs, how it was found.
function minimalPanel(m) {
	if (!m) return h('section', { class: 'panel', 'data-testid': 'minimal' }, h('h2', null, 'Minimal case'), h('p', { class: 'empty' }, 'Not reduced yet.'));
	if (m.state !== 'done') return h('section', { class: 'panel', 'data-testid': 'minimal' }, h('h2', null, 'Minimal case'), h('p', null, `None: ${notReducedText(m.state)}.`));
	return h('section', { class: 'panel', 'aria-labelledby': 'h-minimal', 'data-testid': 'minimal' },
		h('h2', { id: 'h-minimal' }, 'Minimal case ', confirmationBadge(m, 'minimal-confirmation')),
		h('pre', { 'data-testid': 'minimal-code' }, codeText(minimalCall(m))),
		m.setup ? h('details', null, h('summary', null, 'setup'), h('pre', { 'data-testid': 'minimal-setup' }, codeText(m.setup))) : null,
		markedOutputs(m.outputs),
		h('p', { class: 'meta' }, 'Found as ', m.found_as && m.found_as.case_id ? h('a', { href: comparisonHref(m.found_as.case_id, m.found_as.comparison_id) }, m.found_as.title) : '—',
			`, reduced in ${fmtInt(m.steps)} ${plural(m.steps, 'step')} (${fmtInt(m.executions)} ${plural(m.executions, 'execution')}, ${m.seconds.toFixed(2)} s${m.complete ? '' : ', budget reached'})`,
			m.case_id ? [' · ', h('a', { href: `#/cases/${m.case_id}` }, 'the case'), ' · ', h('a', { href: m.phpt_url }, '.phpt')] : null));
}

const runLink = (runId) => h('a', { href: `#/runs/${runId}` }, `run #${runId}`);
const comparisonHref = (caseId, comparisonId) => `#/cases/${caseId}?comparison=${comparisonId}`;

export function bucketView(ctx, params, query) {
	const id = params[0], main = ctx.main;
	let runFilter = query.get('run');
	setTitle(`Bucket #${id}`);
	main.append(loading(`bucket #${id}`));

	const render = (b) => {
		const repBox = h('div', null, loading('the representative mismatch'));
		const rep = b.representative || {};
		const runs = b.runs || [];
		const mism = mismatchTable(ctx, b, runFilter);
		/* dom.js's append leaves out the null sections (Element.append would print "null"). */
		append(main, [
			h('div', { class: 'case-head' },
				h('h1', null, h('span', { class: 'dim' }, `Bucket #${b.id} `), keySummary(b.key, b.minimal)),
				h('div', { class: 'verdict-line' }, stateBadge(b), ' ', h('span', { 'data-testid': 'bucket-stored', title: 'mismatches stored in full: a generated run stores a sample of each kind' },
					`${fmtInt(b.mismatches)} stored ${plural(b.mismatches, 'mismatch', 'mismatches')}`),
					` in ${runs.length} ${plural(runs.length, 'run')} (or submitted)`,
					b.assignee ? [' · assigned to ', h('strong', { 'data-testid': 'bucket-assignee' }, b.assignee)] : null)),
			minimalPanel(b.minimal),
			h('div', { 'data-testid': 'root-cause' },
				b.root_id ? h('p', { class: 'notice' }, 'The same root cause as ', h('a', { href: `#/buckets/${b.root_id}` }, `bucket #${b.root_id}`), '.') : null,
				b.joined && b.joined.length ? h('p', { class: 'meta' }, `${b.joined.length} more ${plural(b.joined.length, 'bucket')} of this root cause: `,
				b.joined.slice(0, 20).map((j, i) => [i ? ', ' : '', h('a', { href: `#/buckets/${j.id}` }, `#${j.id}`)])) : null),
			b.reappeared ? h('div', { class: 'notice error', role: 'alert', 'data-testid': 'reappeared-notice' },
				h('strong', null, 'Fixed, but seen again: '), 'a mismatch of this bucket was stored ',
				b.reappeared.run_id ? ['in ', runLink(b.reappeared.run_id)] : 'from a submitted case',
				' ', timeEl(b.reappeared.at), ' after it was marked fixed. Set a state to answer it.') : '',
			h('div', { class: 'two-col' },
				h('section', { class: 'panel', 'aria-labelledby': 'h-key' }, h('h2', { id: 'h-key' }, 'How these mismatches differ'), keyTable(b.key, b.minimal),
					h('p', { class: 'meta' }, 'First seen ', timeEl(b.first_seen && b.first_seen.at),
						b.first_seen && b.first_seen.run_id ? [' in ', runLink(b.first_seen.run_id)] : '',
						' · last seen ', timeEl(b.last_seen && b.last_seen.at),
						b.last_seen && b.last_seen.run_id ? [' in ', runLink(b.last_seen.run_id)] : '')),
				h('section', { class: 'panel', 'aria-labelledby': 'h-triage' }, h('h2', { id: 'h-triage' }, 'Triage'),
					triageForm(ctx, b, () => load()))),
			h('section', { class: 'panel', 'aria-labelledby': 'h-audit' }, h('h2', { id: 'h-audit' }, 'Audit trail'), auditTrail(b.events)),
			b.phpt_tests ? phptTests(b.phpt_tests) : h('section', { class: 'panel', 'aria-labelledby': 'h-rep' },
				h('h2', { id: 'h-rep' }, 'Representative: ', rep.case_id ?
					h('a', { href: comparisonHref(rep.case_id, rep.comparison_id) }, rep.title || `case #${rep.case_id}`) : '—'),
				repBox),
			h('section', { class: 'panel', 'aria-labelledby': 'h-bruns' }, h('h2', { id: 'h-bruns' }, 'Runs'),
				runs.length ? h('table', { class: 'list', 'data-testid': 'bucket-runs' },
					h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col', class: 'num', title: 'a generated run stores a sample of each kind in full' }, 'Stored mismatches'), h('th', { scope: 'col' }, 'Started'))),
					h('tbody', null, runs.map((r) => h('tr', null,
						h('td', null, r.run_id ? runLink(r.run_id) : 'submitted cases'),
						h('td', { class: 'num' }, h('a', { href: hashFor(`/buckets/${b.id}`, new URLSearchParams({ run: r.run_id || 'submitted' })) }, fmtInt(r.mismatches))),
						h('td', null, timeEl(r.run_created_at)))))) : h('p', { class: 'empty' }, 'None.')),
			b.phpt_tests ? null : h('section', { class: 'panel', 'aria-labelledby': 'h-mism' },
				h('h2', { id: 'h-mism' }, 'Mismatches',
					runFilter ? h('span', { class: 'dim' }, ` in ${runFilter === 'submitted' ? 'submitted cases' : `run #${runFilter}`} `) : null,
					runFilter ? h('a', { href: `#/buckets/${b.id}`, class: 'small-text' }, '(all)') : null), mism.el)]);
		setTitle(`Bucket #${b.id} (${b.state})`);
		if (rep.case_id) {
			ctx.api(`/api/cases/${rep.case_id}?comparison=${rep.comparison_id}`).then((d) => {
				const results = d.results || {};
				replace(repBox, resultsGrid(rolesOf(results), results, d.differs || [], d.case || {}));
			}, (e) => { if (!isAbort(e)) replace(repBox, errorBox(e)); });
		}
	};

	function load() {
		return ctx.api(`/api/buckets/${id}`).then((b) => {
			clear(main);
			render(b);
		}, (e) => {
			if (isAbort(e)) return;
			replace(main, [h('h1', null, `Bucket #${id}`), errorBox(e, load)]);
		});
	}
	load();
	return {
		onQuery: (nq) => {
			runFilter = nq.get('run');
			clear(main);
			main.append(loading(`bucket #${id}`));
			load();
		},
	};
}

/* A phpt bucket's tests (GET /api/buckets/{id} phpt_tests), each opening on its run's page. */
function phptTests(list) {
	return h('section', { class: 'panel', 'aria-labelledby': 'h-phpt-tests' },
		h('h2', { id: 'h-phpt-tests' }, 'php-src tests in this bucket'),
		h('table', { class: 'list', 'data-testid': 'bucket-phpt-tests' },
			h('thead', null, h('tr', null, ['Run', 'Test', 'Name', 'Candidate', 'Base', 'Candidate status', 'Why'].map((x) => h('th', { scope: 'col' }, x)))),
			h('tbody', null, list.map((t) => h('tr', { 'data-testid': 'bucket-phpt-test' },
				h('td', null, runLink(t.run_id)),
				h('td', { class: 'mono path' }, h('a', { href: hashFor(`/runs/${t.run_id}`, new URLSearchParams({ test: t.test })) }, t.test)),
				h('td', { class: 'title' }, t.name || ''),
				h('td', null, t.role),
				h('td', null, h('span', { class: `badge phpt-${t.base_status}` }, t.base_status)),
				h('td', null, h('span', { class: `badge phpt-${t.status}` }, t.status)),
				h('td', { class: 'small-text' }, t.reason || ''))))));
}

/* A bucket's mismatches, 50 at a time, optionally of one run. */
function mismatchTable(ctx, b, run) {
	const tbody = h('tbody'), more = h('div', { class: 'more' }), status = h('div');
	const table = h('table', { class: 'list', 'data-testid': 'mismatch-list' },
		h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Case'), h('th', { scope: 'col' }, 'Title'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Flags'), h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'When'))), tbody);
	const load = (url) => {
		replace(more, loading('mismatches'));
		ctx.api(url).then((d) => {
			for (const m of d.mismatches || []) {
				const href = comparisonHref(m.case_id, m.comparison_id);
				tbody.append(h('tr', { 'data-testid': 'mismatch-row' },
					h('td', { class: 'num' }, h('a', { href }, m.case_id)),
					h('td', { class: 'title' }, h('a', { href }, m.title || 'untitled')),
					h('td', { class: 'mono hide-narrow flags' }, flagsText(m.flags, m.flag_names)),
					h('td', null, m.run_id ? h('a', { href: `#/runs/${m.run_id}` }, `#${m.run_id}`) : h('span', { class: 'dim' }, 'submitted')),
					h('td', { class: 'nowrap' }, timeEl(m.created_at))));
			}
			if (!tbody.firstChild) replace(status, h('p', { class: 'empty' }, 'None.'));
			replace(more, d.next ? h('button', { type: 'button', onclick: () => load(d.next) }, 'Load more') : null);
		}, (e) => { if (!isAbort(e)) replace(more, errorBox(e)); });
	};
	load(`/api/buckets/${b.id}/mismatches?limit=50${run ? `&run=${encodeURIComponent(run)}` : ''}`);
	return { el: h('div', null, h('div', { class: 'scroll-x' }, table), status, more) };
}
