/*
 * A run's root causes (GET /api/roots?run=ID, docs/triage.md): one row per
 * root, most mismatches first — its minimal case, the base's and the
 * candidate's outputs of it, how many mismatches and buckets it explains,
 * its candidate, its bucket — and the reducer's progress.  Every string of
 * a case or an output is shown byte by byte (renderBytes: control bytes as
 * \xNN chips), never parsed as HTML.  The run page shows every root, the
 * overview the first few of the latest run with mismatches.  Apart from the
 * roots, the mismatches the reducer could not reduce ("unreduced": out of
 * budget, flaky, too slow, no simpler case), each with why and the case it
 * got to: on the run page listed, on the overview counted.
 */
import { clear, h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { orderRoles } from '../builds.js';
import { fmtInt, plural } from '../format.js';
import { me } from '../store.js';
import { notReducedText, rootTriageRequest, STATE_HELP, STATES, statesText, unreducedSummary, unreducedWord } from '../triage.js';
import { errorBox, loading } from './ui.js';
import { confirmationBadge, minimalCall } from './buckets.js';
import { renderBytes } from './bytesview.js';
import { needName } from './identity.js';
import { releasedLine } from './released.js';

const utf8 = (s) => new TextEncoder().encode(s);

/* A string as the page's byte view shows it; bytes from `marked` on are the difference. */
function bytesEl(s, testid, marked) {
	const b = utf8(s);
	const side = marked !== undefined && marked < b.length ? { ranges: [{ start: marked, end: b.length }] } : null;
	return h('pre', { class: 'bytes root-bytes', 'data-testid': testid }, renderBytes(b, 0, b.length, side));
}

/* What json_encode gave, as text: its output, `false`, or the status of a run that did not finish. */
function outputText(o) {
	if (!o) return '';
	if (o.status && o.status !== 'ok') return `(${o.status}${o.signal ? ` ${o.signal}` : ''})`;
	return o.output_is_false || o.output === null || o.output === undefined ? 'false' : String(o.output);
}

/* One build's result of the minimal case; what differs from the base's is marked. */
function outputCell(role, o, base) {
	if (!o) return h('td', { class: 'dim', 'data-testid': `root-output-${role === 'base' ? 'base' : 'candidate'}` }, '—');
	const t = outputText(o), bt = base ? outputText(base) : t;
	let marked;
	if (role !== 'base' && t !== bt) {
		const a = utf8(t), b = utf8(bt);
		marked = 0;
		while (marked < a.length && marked < b.length && a[marked] === b[marked]) marked++;
	}
	const extra = [];
	const errDiff = base && o.error_code !== base.error_code, excDiff = base && (o.exception || null) !== (base.exception || null);
	if (o.error_code || errDiff)
		extra.push(h('span', { class: errDiff && role !== 'base' ? 'bad-text' : null, title: o.error_msg || '' }, `json_last_error() ${o.error_code}`));
	if (o.exception || excDiff)
		extra.push(h('span', { class: excDiff && role !== 'base' ? 'bad-text' : null }, `exception ${o.exception || 'none'}`));
	return h('td', { class: 'root-output', 'data-testid': `root-output-${role === 'base' ? 'base' : 'candidate'}`, 'data-role': role },
		bytesEl(t, 'root-output-bytes', marked),
		extra.length ? h('div', { class: 'small-text dim' }, extra.map((e, i) => [i ? ' · ' : null, e])) : null);
}

/*
 * A root's triage: its buckets by state, and a state to set on all of them
 * at once (POST /api/roots/ID/triage: one request, an audit entry per bucket).
 */
function rootTriage(ctx, r, onSaved) {
	const msg = h('div', { class: 'small-text', 'aria-live': 'polite' });
	const sel = h('select', { 'aria-label': `State of root cause #${r.bucket_id} and its buckets`, 'data-testid': 'root-state' },
		h('option', { value: '' }, 'set state…'), STATES.map((s) => h('option', { value: s, title: STATE_HELP[s] }, s)));
	const n = r.buckets || 1;
	const save = h('button', { type: 'button', 'data-testid': 'root-triage', title: 'Set the state of every bucket of this root cause (each bucket\'s audit trail records it)' },
		n > 1 ? `Set on ${fmtInt(n)} buckets` : 'Set');
	save.addEventListener('click', () => {
		if (!sel.value) {
			replace(msg, h('span', { class: 'hint' }, 'Choose a state.'));
			return;
		}
		if (needName(msg)) return;
		save.disabled = true;
		const { path, body } = rootTriageRequest(r.bucket_id, { state: sel.value }, me());
		const state = sel.value;
		ctx.api(path, { method: 'POST', body }).then((d) => {
			save.disabled = false;
			clear(msg);
			/* Said above the table: the table is drawn again with the new states. */
			if (onSaved) onSaved(d, state);
		}, (e) => {
			if (isAbort(e)) return;
			save.disabled = false;
			replace(msg, errorBox(e));
		});
	});
	return h('td', { class: 'root-triage' },
		h('div', { class: 'small-text', 'data-testid': 'root-states' }, statesText(r.states)),
		h('div', { class: 'nowrap' }, sel, ' ', save), msg);
}

/* One root: its minimal case, both outputs, what it explains, its candidate and bucket. */
function rootRow(ctx, r, onSaved) {
	const m = r.minimal;
	const roles = m && m.outputs ? orderRoles(Object.keys(m.outputs)) : [];
	const cand = r.candidate || roles.find((x) => x !== 'base') || null;
	const href = `#/buckets/${r.bucket_id}`;
	let caseCell, outputs;
	if (!m) {
		caseCell = h('td', { class: 'dim', 'data-testid': 'root-minimal', 'data-state': 'pending' }, 'not reduced yet');
		outputs = [h('td', { class: 'dim' }, '—'), h('td', { class: 'dim' }, '—')];
	} else if (m.state !== 'done') {
		caseCell = h('td', { class: 'dim', 'data-testid': 'root-minimal', 'data-state': m.state }, notReducedText(m.state));
		outputs = [h('td', { class: 'dim' }, '—'), h('td', { class: 'dim' }, '—')];
	} else {
		caseCell = h('td', { class: 'root-case', 'data-testid': 'root-minimal', 'data-state': m.state },
			bytesEl(minimalCall(m), 'root-code'),
			m.setup ? h('details', { class: 'small-text' }, h('summary', null, 'setup'), bytesEl(m.setup, 'root-setup')) : null,
			confirmationBadge(m, 'root-confirmation'),
			/* What released PHP answers to it (issue 49): the API's line, else asked. */
			releasedLine(ctx, r.released, m.case_id));
		const o = m.outputs || {};
		outputs = [outputCell('base', o.base, null), outputCell(cand, cand ? o[cand] : null, o.base)];
	}
	return h('tr', { 'data-testid': 'root', 'data-bucket-id': r.bucket_id, 'data-mismatches': r.mismatches, 'data-buckets': r.buckets },
		caseCell, ...outputs,
		h('td', { class: 'num', 'data-testid': 'root-mismatches' }, fmtInt(r.mismatches),
			h('div', { class: 'dim small-text', 'data-testid': 'root-buckets' }, `${fmtInt(r.buckets)} ${plural(r.buckets, 'bucket')}`)),
		h('td', { class: 'mono', 'data-testid': 'root-candidate' }, cand || h('span', { class: 'dim' }, '—')),
		h('td', null, h('a', { href, 'data-testid': 'root-link' }, `bucket #${r.bucket_id}`)),
		rootTriage(ctx, r, onSaved));
}

/*
 * One mismatch left unreduced: why (a word, the server's sentence), the
 * case the reducer got to (folded: over 100 bytes), what it explains, its
 * candidate and bucket.
 */
function unreducedRow(r) {
	const m = r.minimal;
	const code = m && m.state === 'done' ? minimalCall(m) : null;
	return h('tr', { 'data-testid': 'unreduced', 'data-bucket-id': r.bucket_id, 'data-why': r.why || '' },
		h('td', { 'data-testid': 'unreduced-why' }, h('strong', null, unreducedWord(r.why)),
			h('div', { class: 'small-text dim', 'data-testid': 'unreduced-reason' }, r.reason || '')),
		h('td', { class: 'root-case', 'data-testid': 'unreduced-case' }, code === null ? h('span', { class: 'dim' }, m ? notReducedText(m.state) : '—')
			: h('details', null, h('summary', { class: 'small-text' }, `the case it got to${m.value_bytes ? ` (${fmtInt(m.value_bytes)} bytes)` : ''}`),
				bytesEl(code, 'unreduced-code'))),
		h('td', { class: 'num', 'data-testid': 'unreduced-mismatches' }, fmtInt(r.mismatches),
			h('div', { class: 'dim small-text' }, `${fmtInt(r.buckets)} ${plural(r.buckets, 'bucket')}`)),
		h('td', { class: 'mono', 'data-testid': 'unreduced-candidate' }, r.candidate || h('span', { class: 'dim' }, '—')),
		h('td', { class: 'nowrap' }, h('a', { href: `#/buckets/${r.bucket_id}`, 'data-testid': 'unreduced-link' }, `bucket #${r.bucket_id}`)));
}

/* The unreduced mismatches: listed (the run page), or their count and a link to the run (limit: the overview). */
function unreducedPart(list, run, limit) {
	if (!list || !list.length) return null;
	const sum = h('p', { class: 'meta', 'data-testid': 'unreduced-summary' }, unreducedSummary(list));
	if (limit)
		return h('div', { 'data-testid': 'unreduced-part' }, sum, h('p', { class: 'more' },
			h('a', { href: `#/runs/${run}`, 'data-testid': 'unreduced-more' }, `the unreduced ${plural(list.length, 'case', 'cases')} in run #${run}`)));
	return h('div', { 'data-testid': 'unreduced-part' }, h('h3', { id: `h-unreduced-${run}` }, 'Unreduced'), sum,
		h('div', { class: 'scroll-x' }, h('table', { class: 'list roots', 'data-testid': 'unreduced-list', 'aria-labelledby': `h-unreduced-${run}` },
			h('thead', null, h('tr', null,
				h('th', { scope: 'col' }, 'Why'),
				h('th', { scope: 'col' }, 'Its case'),
				h('th', { scope: 'col', class: 'num' }, 'Stored mismatches'),
				h('th', { scope: 'col' }, 'Candidate'),
				h('th', { scope: 'col' }, 'Bucket'))),
			h('tbody', null, list.map(unreducedRow)))));
}

/* "reducing: N buckets pending" while the reducer has work left for these buckets. */
function pendingNote(red) {
	const n = red ? red.buckets_pending : 0;
	if (!n) return null;
	const off = red.reducer && red.reducer.enabled === false;
	return h('p', { class: off ? 'notice warning' : 'loading', 'data-testid': 'roots-pending', 'data-pending': n, 'aria-busy': off ? null : 'true' },
		off ? `not reducing (the reducer is off): ${fmtInt(n)} ${plural(n, 'bucket')} pending` : `reducing: ${fmtInt(n)} ${plural(n, 'bucket')} pending`);
}

/* "3 root causes explain the 612 stored mismatches (of 31,193 in the run) in 29 buckets." */
function rootsSummary(n, stored, buckets, differ) {
	const of = differ !== null && differ !== undefined && differ > stored ? ` (of ${fmtInt(differ)} in the run)` : '';
	return `${fmtInt(n)} ${plural(n, 'root cause explains', 'root causes explain')} the ${fmtInt(stored)} stored ` +
		`${plural(stored, 'mismatch', 'mismatches')}${of} in ${fmtInt(buckets)} ${plural(buckets, 'bucket')}.`;
}

/*
 * The roots of run `run` as a table.  opts: { limit (show the first N, then
 * "N more" linking to the run page), empty (text when there is no root),
 * onData(d), onTriaged(answer) after a root's state was set, runDiffer()
 * the run's count of mismatches when known }.
 * Returns { el, reload() }; reload resolves to the number of
 * buckets pending (and polls itself every 2 s while some are).
 */
export function rootsTable(ctx, run, opts = {}) {
	const body = h('div', null, loading('root causes'));
	const note = h('div', { 'aria-live': 'polite' });
	const el = h('div', { class: 'roots', 'data-testid': 'roots', 'data-run-id': run }, note, body);
	let gen = 0, polling = false;
	const saved = (r) => (a, state) => {
		replace(note, h('p', { class: 'ok-text', role: 'status', 'data-testid': 'root-triage-done', 'data-bucket-id': r.bucket_id },
			`Root cause #${r.bucket_id}: ${fmtInt(a.changed || 0)} ${plural(a.changed, 'bucket')} changed to ${state}.`));
		load();
		if (opts.onTriaged) opts.onTriaged(a);
	};
	const draw = (d) => {
		const all = d.roots || [];
		const shown = opts.limit ? all.slice(0, opts.limit) : all;
		const total = all.reduce((n, r) => n + (r.mismatches || 0), 0);
		const unreduced = d.unreduced || [];
		const empty = unreduced.length ? 'No root cause: every mismatch was left unreduced.' : opts.empty || 'No root causes: no mismatches.';
		replace(body, [
			pendingNote(d.reduction),
			all.length ? h('p', { class: 'meta', 'data-testid': 'roots-summary' }, rootsSummary(all.length, total, d.buckets, opts.runDiffer ? opts.runDiffer() : null)) : null,
			all.length ? h('div', { class: 'scroll-x' }, h('table', { class: 'list roots', 'data-testid': 'root-list' },
				h('thead', null, h('tr', null,
					h('th', { scope: 'col' }, 'Minimal case'),
					h('th', { scope: 'col' }, 'Base gives'),
					h('th', { scope: 'col' }, 'Candidate gives'),
					h('th', { scope: 'col', class: 'num', title: 'mismatches stored in full in its buckets (a generated run stores a sample of each kind)' }, 'Stored mismatches'),
					h('th', { scope: 'col' }, 'Candidate'),
					h('th', { scope: 'col' }, 'Bucket'),
					h('th', { scope: 'col' }, 'Triage'))),
				h('tbody', null, shown.map((r) => rootRow(ctx, r, saved(r)))))) : h('p', { class: 'empty', 'data-testid': 'roots-empty' }, empty),
			all.length > shown.length ? h('p', { class: 'more' }, h('a', { href: `#/runs/${run}`, 'data-testid': 'roots-more' },
				`${fmtInt(all.length - shown.length)} more ${plural(all.length - shown.length, 'root cause')} in run #${run}`)) : null,
			unreducedPart(unreduced, run, opts.limit),
		]);
		if (opts.onData) opts.onData(d);
	};
	const load = () => {
		const my = ++gen;
		return ctx.api(`/api/roots?run=${encodeURIComponent(run)}`).then((d) => {
			if (my !== gen) return 0;
			draw(d);
			const red = d.reduction || {};
			/* With the reducer off nothing will change: no polling. */
			return red.reducer && red.reducer.enabled === false ? 0 : red.buckets_pending || 0;
		}, (e) => {
			if (!isAbort(e) && my === gen) replace(body, errorBox(e, load));
			return 0;
		});
	};
	const reload = () => load().then((pending) => {
		if (pending && !polling) {
			polling = true;
			ctx.poll(2000, () => load().then((p) => {
				if (!p) polling = false;
				return p > 0;
			}));
		}
		return pending;
	});
	return { el, reload };
}
