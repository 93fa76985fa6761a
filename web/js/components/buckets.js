/*
 * Buckets of alike mismatches and their triage: state badges, how a bucket
 * differs (its key, server/bucket.c), the triage form, the audit trail, a
 * paginated bucket table with bulk changes, the case page's bucket panel.
 */
import { clear, h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { fmtInt, JSON_ERRORS, plural, shortFlag } from '../format.js';
import { me } from '../store.js';
import { confirmationWord, flagsThatMatter, notReducedText, SHAPE_CLASSES, shapeWords, STATE_HELP, STATES, triageRequest } from '../triage.js';
import { badge, differsList, errorBox, loading, timeEl } from './ui.js';
import { identityBox, needName } from './identity.js';
import { codeText } from './bytesview.js';

export function stateBadge(b) {
	return [badge('state', b.state || 'new', { 'data-testid': 'bucket-state', 'data-state': b.state || '', title: STATE_HELP[b.state] || '' }),
		b.reappeared ? [' ', h('span', {
			class: 'badge reappeared', 'data-testid': 'bucket-reappeared',
			title: `marked fixed, then seen again${b.reappeared.run_id ? ` in run #${b.reappeared.run_id}` : ''}`,
		}, 'reappeared')] : null];
}

/* A difference's shape: "" is nothing at all on that side. */
function shapeEl(s) {
	return h('code', { class: `shape${s === '' ? ' empty' : ''}`, title: shapeWords(s) }, s === '' ? '∅' : s);
}

/* What a bucket's "how they differ" says, in words, under a list of buckets. */
export function keyLegend() {
	return h('p', { class: 'hint key-legend', 'data-testid': 'key-legend' },
		'How they differ: each part is base → candidate. ', h('code', null, 'output'),
		' shows the first bytes where the outputs differ, as classes: ',
		SHAPE_CLASSES.map(([c, w], i) => [i ? ' · ' : null, h('code', { class: 'shape' }, c), ` ${w}`]),
		'; other characters are themselves. ', h('code', null, 'status'), ', ', h('code', null, 'error'), ' (json_last_error()) and ',
		h('code', null, 'exception'), ' appear when they differ; “needs …” are the flags its minimal case needs (from the reduction), flags on/off the bucket key\'s split until it is reduced.');
}

function shortFlags(flags) {
	const names = Object.keys(flags || {});
	if (!names.length) return null;
	return h('span', { class: 'key-flags' }, names.map((n) =>
		h('span', { class: `flag-state ${flags[n] ? 'on' : 'off'}`, title: n + (flags[n] ? ' set' : ' not set') },
			shortFlag(n) + (flags[n] ? ' on' : ' off'))));
}

/* The flags a reduced bucket's minimal case needs, short: "needs PRETTY_PRINT" / "needs no flag". */
function neededFlags(names) {
	return h('span', { class: 'key-flags', 'data-testid': 'needed-flags', title: 'from the reduction: the minimal case needs these flags (without one, the difference goes)' },
		names.length ? names.map((n, i) => [i ? ' ' : 'needs ', h('span', { class: 'flag-state on' }, shortFlag(n))]) : h('span', { class: 'dim' }, 'needs no flag'));
}

/* How the mismatches of a bucket differ, from its key, on one line (flags: its reduction's when it has one). */
export function keySummary(key, minimal) {
	if (!key) return h('span', { class: 'dim' }, '—');
	/* a phpt regression or improvement (bucket_phpt_key): test, candidate, status pair */
	if (key.suite === 'phpt')
		return h('span', { class: 'key-summary', 'data-testid': 'key-summary', 'data-suite': 'phpt' },
			h('span', { class: 'key-part' }, 'phpt ', h('code', null, key.test)),
			h('span', { class: 'key-part' }, ' on ', h('strong', null, key.candidate), ' ',
				h('code', null, (key.status || [])[0]), ' → ', h('code', null, (key.status || [])[1])));
	const parts = [];
	const st = key.status || [], ec = key.error_code || [], ex = key.exception || [];
	if (key.output)
		parts.push(h('span', { class: 'key-part', title: `the first differing bytes: ${shapeWords(key.output[0])} on the base → ${shapeWords(key.output[1])} on the candidate` },
			'output ', shapeEl(key.output[0]), ' → ', shapeEl(key.output[1])));
	if (st[0] !== st[1] || st[0] !== 'ok') parts.push(h('span', { class: 'key-part' }, 'status ', h('code', null, st[0]), ' → ', h('code', null, st[1])));
	if (ec[0] !== ec[1])
		parts.push(h('span', { class: 'key-part', title: `${JSON_ERRORS[ec[0]] || ''} → ${JSON_ERRORS[ec[1]] || ''}` },
			'error ', h('code', null, String(ec[0])), ' → ', h('code', null, String(ec[1]))));
	if (ex[0] || ex[1]) parts.push(h('span', { class: 'key-part' }, 'exception ', h('code', null, ex[0] || 'none'), ' → ', h('code', null, ex[1] || 'none')));
	if (!key.output && !parts.length) parts.push(differsList(key.differs));
	const fm = flagsThatMatter(key, minimal);
	return h('span', { class: 'key-summary', 'data-testid': 'key-summary' }, parts,
		fm.from === 'reduction' ? [' ', neededFlags(fm.flags)] : shortFlags(key.flags));
}

/* A reduced case as the call it stands for: json_encode(code, flags, depth). */
export function minimalCall(m) {
	const flags = m.flags || [];
	return `json_encode(${m.code}${flags.length ? `, ${flags.join(' | ')}` : ''}${m.depth !== 512 ? `${flags.length ? '' : ', 0'}, ${m.depth}` : ''})`;
}

/* The reducer's confirmation of a minimal case as a badge ("reproduced", never the triage state's "confirmed"). */
export function confirmationBadge(m, testid) {
	const w = confirmationWord(m && m.confirmation);
	return w ? h('span', { class: 'badge', 'data-testid': testid, 'data-confirmation': m.confirmation, title: w[1] }, w[0]) : null;
}

/* A bucket's minimal case on one line of a list (docs/triage.md): the call, confirmation, the root it joined. */
function minimalInline(b) {
	const m = b.minimal;
	if (b.key && b.key.suite === 'phpt') return null;
	if (!m) return h('div', { class: 'minimal-inline dim small-text', 'data-testid': 'bucket-minimal', 'data-state': 'pending' }, 'not reduced yet');
	if (m.state !== 'done') return h('div', { class: 'minimal-inline dim small-text', 'data-testid': 'bucket-minimal', 'data-state': m.state }, notReducedText(m.state));
	return h('div', { class: 'minimal-inline small-text', 'data-testid': 'bucket-minimal', 'data-state': m.state },
		h('code', { 'data-testid': 'bucket-minimal-code', title: 'the minimal case this bucket reduces to' }, codeText(minimalCall(m))),
		m.confirmation ? [' ', confirmationBadge(m, 'bucket-minimal-confirmation')] : null,
		b.root_id ? [' ', h('span', { class: 'dim' }, 'joined ', h('a', { href: `#/buckets/${b.root_id}`, 'data-testid': 'bucket-root' }, `#${b.root_id}`))] : null);
}

/* The full key as a definition list (bucket page); the flags that matter from the reduction when there is one. */
export function keyTable(key, minimal) {
	if (!key) return h('p', { class: 'dim' }, 'No key.');
	if (key.suite === 'phpt')
		return h('dl', { class: 'spec key', 'data-testid': 'bucket-key' },
			h('dt', null, 'php-src test'), h('dd', { class: 'mono' }, key.test),
			h('dt', null, 'Candidate'), h('dd', null, key.candidate),
			h('dt', null, 'Status'), h('dd', null, h('code', null, (key.status || [])[0]), ' on the base → ',
				h('code', null, (key.status || [])[1]), ' on the candidate'));
	const flags = Object.keys(key.flags || {});
	const side = (v) => h('code', null, v === null ? 'none' : String(v));
	const pair = (v) => [side(v[0]), ' → ', side(v[1])];
	const ec = key.error_code || [];
	return h('dl', { class: 'spec key', 'data-testid': 'bucket-key' },
		h('dt', null, 'Differs in'), h('dd', null, differsList(key.differs) || '—'),
		key.output ? [h('dt', null, 'First differing bytes'), h('dd', null, 'base ', shapeEl(key.output[0]), ' → head ', shapeEl(key.output[1]),
			h('div', { class: 'hint' }, 'a letters · 0 digits · U a UTF-8 character · L U+2028/9 · X an invalid byte · C a control byte · _ space · N newline · \\u an escape'))] : null,
		h('dt', null, 'Status'), h('dd', null, pair(key.status || [])),
		h('dt', null, 'json_last_error()'), h('dd', null, pair(ec),
			ec[0] !== ec[1] ? h('span', { class: 'dim' }, ` ${JSON_ERRORS[ec[0]] || ''} → ${JSON_ERRORS[ec[1]] || ''}`) : null),
		h('dt', null, 'Exception'), h('dd', null, pair(key.exception || [null, null])),
		flagsRows(key, minimal, flags));
}

/* "Flags that matter": what the minimal case needs (the reduction), then the key's split. */
function flagsRows(key, minimal, keyFlags) {
	const fm = flagsThatMatter(key, minimal);
	const split = keyFlags.length ? shortFlags(key.flags) : h('span', { class: 'dim' }, 'none: the case\'s flags do not split this bucket');
	if (fm.from === 'key')
		return [h('dt', null, 'Flags that matter'), h('dd', { 'data-testid': 'flags-that-matter', 'data-from': 'key' }, split,
			h('div', { class: 'hint' }, 'guessed from the differing bytes until the bucket is reduced'))];
	return [
		h('dt', null, 'Flags that matter'),
		h('dd', { 'data-testid': 'flags-that-matter', 'data-from': 'reduction' },
			fm.flags.length ? h('span', { class: 'mono' }, fm.flags.join(' | ')) : h('span', null, 'none: the minimal case differs with no flag'),
			h('div', { class: 'hint' }, fm.complete ? 'from the reduction: the minimal case needs each of these (without one, the difference goes)'
				: 'from the reduction, which ran out of budget: it may need fewer')),
		h('dt', null, 'Bucket split by'), h('dd', { 'data-testid': 'key-flags' }, split),
	];
}

/* POST a triage change for the buckets ids; resolves to the daemon's answer. */
export function postTriage(ctx, ids, change) {
	const { path, body } = triageRequest(ids, change, me());
	return ctx.api(path, { method: 'POST', body });
}

/* The triage form of one bucket: state, assignee, notes. */
export function triageForm(ctx, b, onSaved) {
	const msg = h('div', { 'aria-live': 'polite' });
	let chosen = b.state;
	const stateBox = h('div', { class: 'states', role: 'radiogroup', 'aria-label': 'State' }, STATES.map((s) => {
		const id = `st-${s}`;
		return h('label', { class: `state-choice state-${s}`, for: id, title: STATE_HELP[s] },
			h('input', {
				type: 'radio', name: 'state', id, value: s, checked: s === b.state, 'data-testid': `triage-state-${s}`,
				onchange: () => { chosen = s; },
			}),
			' ', s, h('span', { class: 'hint' }, STATE_HELP[s]));
	}));
	const assignee = h('input', { type: 'text', id: 't-assignee', maxlength: '64', value: b.assignee || '', placeholder: 'nobody', 'data-testid': 'triage-assignee' });
	const notes = h('textarea', { id: 't-notes', rows: '3', 'data-testid': 'triage-notes', placeholder: 'what was found, links…' });
	notes.value = b.notes || '';
	const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'triage-save' }, 'Save');
	const form = h('form', { class: 'triage-form', 'data-testid': 'triage-form' },
		h('fieldset', { class: 'field' }, h('legend', null, 'State'), stateBox),
		h('div', { class: 'field' }, h('label', { for: 't-assignee' }, 'Assignee'), assignee),
		h('div', { class: 'field' }, h('label', { for: 't-notes' }, 'Notes'), notes),
		h('div', { class: 'actions' }, identityBox(), save), msg);
	form.addEventListener('submit', (e) => {
		e.preventDefault();
		if (needName(msg)) return;
		const change = {};
		/* Choosing a state again answers a reappearance; otherwise send what changed. */
		if (chosen !== b.state || b.reappeared) change.state = chosen;
		if (assignee.value.trim() !== (b.assignee || '')) change.assignee = assignee.value.trim() || null;
		if (notes.value !== (b.notes || '')) change.notes = notes.value;
		if (!Object.keys(change).length) {
			replace(msg, h('p', { class: 'hint' }, 'Nothing changed.'));
			return;
		}
		save.disabled = true;
		replace(msg, h('p', { class: 'loading' }, 'Saving…'));
		postTriage(ctx, [b.id], change).then((nb) => {
			replace(msg, h('p', { class: 'ok-text', role: 'status', 'data-testid': 'triage-saved' }, 'Saved.'));
			if (onSaved) onSaved(nb);
		}, (err) => {
			if (isAbort(err)) return;
			save.disabled = false;
			replace(msg, errorBox(err));
		});
	});
	return form;
}

function changeText(ev) {
	const c = ev.changes || {}, out = [];
	if (ev.action === 'reappeared') {
		const r = c.reappeared || {};
		return ['seen again after it was fixed: ',
			r.run_id ? h('a', { href: `#/runs/${r.run_id}` }, `run #${r.run_id}`) : 'a submitted case',
			r.comparison_id ? ` (comparison #${r.comparison_id})` : null];
	}
	const val = (v) => (v === null || v === undefined || v === '' ? h('span', { class: 'dim' }, 'none') : h('strong', null, String(v)));
	if (c.state) out.push(h('span', { class: 'change' }, 'state ', val(c.state[0]), ' → ', val(c.state[1])));
	if (c.assignee) out.push(h('span', { class: 'change' }, 'assignee ', val(c.assignee[0]), ' → ', val(c.assignee[1])));
	if (c.notes)
		out.push(h('span', { class: 'change' }, 'notes ',
			h('details', { class: 'inline' }, h('summary', null, 'changed'),
				h('div', { class: 'notes-diff' }, h('del', null, c.notes[0] || '(empty)'), h('ins', null, c.notes[1] || '(empty)')))));
	if (c.reappeared === false) out.push(h('span', { class: 'change' }, 'answered the reappearance'));
	/* Set on a root cause, for each of its buckets (POST /api/roots/ID/triage). */
	if (c.root) out.push(h('span', { class: 'change dim', 'data-testid': 'audit-root' }, 'set on ', h('a', { href: `#/buckets/${c.root}` }, `root cause #${c.root}`)));
	return out;
}

/* The audit trail: newest first. */
export function auditTrail(events, withBucket) {
	if (!events || !events.length) return h('p', { class: 'empty', 'data-testid': 'audit-empty' }, 'No triage yet.');
	return h('ol', { class: 'audit', 'data-testid': 'audit-trail' }, events.map((ev) =>
		h('li', { 'data-testid': 'audit-entry', 'data-by': ev.by, 'data-action': ev.action },
			timeEl(ev.at), ' ', h('strong', { class: `who${ev.action === 'reappeared' ? ' system' : ''}` }, ev.by), ' ',
			withBucket ? [h('a', { href: `#/buckets/${ev.bucket_id}` }, `bucket #${ev.bucket_id}`), ': '] : null,
			changeText(ev))));
}

/* A phpt bucket's representative: its test on the run's page (this run's, else the last one it was seen in). */
function phptRep(b, run) {
	const runId = run || (b.last_seen && b.last_seen.run_id);
	if (!b.key || b.key.suite !== 'phpt' || !runId) return null;
	return h('a', { href: `#/runs/${runId}?test=${encodeURIComponent(b.key.test)}`, 'data-testid': 'phpt-rep' }, b.key.test);
}

/*
 * A paginated table of buckets (GET /api/buckets...), optionally with
 * checkboxes and a bar to change every selected bucket at once.
 * opts: { run, selectable, empty, onCounts(counts), onChanged() }.
 * Returns { el, reload(url) } (reload() fetches the last URL again).
 */
export function bucketTable(ctx, opts) {
	const tbody = h('tbody');
	const runScoped = !!opts.run;
	const selectAll = opts.selectable ? h('input', { type: 'checkbox', 'aria-label': 'Select every bucket shown', 'data-testid': 'bucket-check-all' }) : null;
	const table = h('table', { class: 'list buckets', 'data-testid': 'bucket-list' },
		h('thead', null, h('tr', null,
			opts.selectable ? h('th', { scope: 'col', class: 'check' }, selectAll) : null,
			h('th', { scope: 'col', class: 'num' }, '#'),
			h('th', { scope: 'col' }, 'State'),
			h('th', { scope: 'col', class: 'num', title: runScoped ? 'mismatches of this bucket stored in full in this run (a sample of each kind), and in every run' : 'mismatches stored in full, in every run' },
				runScoped ? 'Stored in this run' : 'Stored mismatches'),
			h('th', { scope: 'col' }, 'How they differ'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Representative'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Seen'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Assignee'))),
		tbody);
	const status = h('div', { class: 'list-status', 'aria-live': 'polite' });
	const more = h('div', { class: 'more' });
	const selected = () => Array.from(tbody.querySelectorAll('input[type=checkbox]:checked'), (x) => Number(x.value));
	let gen = 0, shown = 0, lastUrl = null;
	/* Buckets grouped under their root cause (docs/triage.md): root id -> { row, last, members, open, toggle }. */
	let groups = new Map();

	const row = (b) => {
		const rep = runScoped && b.run ? b.run.representative : b.representative;
		const href = `#/buckets/${b.id}${runScoped && opts.run ? `?run=${opts.run}` : ''}`;
		const seen = [];
		if (b.first_seen && b.first_seen.run_id) seen.push('since ', h('a', { href: `#/runs/${b.first_seen.run_id}` }, `run #${b.first_seen.run_id}`));
		else seen.push('since a submitted case');
		if (runScoped && b.earlier_runs)
			seen.push(h('div', { class: 'small-text', 'data-testid': 'earlier-runs' },
				`in ${b.earlier_runs} earlier ${plural(b.earlier_runs, 'run')}${b.updated_by ? ` · triaged by ${b.updated_by}` : ''}`));
		return h('tr', { 'data-testid': 'bucket-row', 'data-bucket-id': b.id, 'data-state': b.state, 'data-root-id': b.root_id || null, class: b.reappeared ? 'reappeared' : null },
			opts.selectable ? h('td', { class: 'check' }, h('input', { type: 'checkbox', value: b.id, 'aria-label': `Select bucket #${b.id}`, 'data-testid': 'bucket-check' })) : null,
			h('td', { class: 'num' }, h('a', { href }, b.id)),
			h('td', { class: 'nowrap' }, stateBadge(b)),
			h('td', { class: 'num', 'data-testid': 'bucket-count' }, fmtInt(runScoped && b.run ? b.run.mismatches : b.mismatches),
				runScoped ? h('div', { class: 'dim small-text', 'data-testid': 'bucket-count-all' }, `${fmtInt(b.mismatches)} in every run`) : null),
			h('td', { class: 'how' }, h('a', { href, class: 'plain' }, keySummary(b.key, b.minimal)), minimalInline(b)),
			h('td', { class: 'hide-narrow title' }, phptRep(b, runScoped ? opts.run : null) || (rep && rep.case_id ?
				h('a', { href: `#/cases/${rep.case_id}?comparison=${rep.comparison_id}` }, rep.title || `case #${rep.case_id}`) : '—')),
			h('td', { class: 'hide-narrow small-text' }, seen),
			h('td', { class: 'hide-narrow' }, b.assignee || h('span', { class: 'dim' }, '—')));
	};

	const bulkBar = () => {
		const count = h('span', { class: 'bulk-count', 'data-testid': 'bulk-count' });
		const state = h('select', { 'aria-label': 'New state', 'data-testid': 'bulk-state' },
			h('option', { value: '' }, 'set state…'), STATES.map((s) => h('option', { value: s }, `${s} — ${STATE_HELP[s]}`)));
		const assignee = h('input', { type: 'text', maxlength: '64', placeholder: 'assignee (unchanged)', 'aria-label': 'Assignee', 'data-testid': 'bulk-assignee' });
		const apply = h('button', { type: 'button', class: 'primary', 'data-testid': 'bulk-apply' }, 'Apply');
		const msg = h('div', { 'aria-live': 'polite', class: 'bulk-msg' });
		const barEl = h('div', { class: 'bulk', 'data-testid': 'bulk-bar' }, count, state, assignee, apply, msg);
		const update = () => {
			const n = selected().length;
			count.textContent = n ? `${n} selected:` : 'Select buckets to change them together:';
			apply.disabled = n === 0;
		};
		apply.addEventListener('click', () => {
			/* A root's row stands for its buckets: they change with it. */
			const ids = selected(), change = { bulk: true, joined: true };
			if (state.value) change.state = state.value;
			if (assignee.value.trim()) change.assignee = assignee.value.trim();
			if (!ids.length) return;
			if (needName(msg)) return;
			if (!change.state && !change.assignee) {
				replace(msg, h('span', { class: 'hint' }, 'Choose a state or an assignee.'));
				return;
			}
			apply.disabled = true;
			replace(msg, h('span', { class: 'loading' }, 'Saving…'));
			postTriage(ctx, ids, change).then((d) => {
				replace(msg, h('span', { class: 'ok-text', role: 'status', 'data-testid': 'bulk-done' },
					`${d.changed || 0} ${plural(d.changed, 'bucket')} changed.`));
				state.value = '';
				assignee.value = '';
				load(lastUrl, true);
				if (opts.onChanged) opts.onChanged();
			}, (e) => {
				if (isAbort(e)) return;
				apply.disabled = false;
				replace(msg, errorBox(e));
			});
		});
		tbody.addEventListener('change', update);
		selectAll.addEventListener('change', () => {
			tbody.querySelectorAll('input[type=checkbox]').forEach((x) => { x.checked = selectAll.checked; });
			update();
		});
		update();
		return { el: h('div', null, barEl, identityBox()), update };
	};

	/*
	 * A bucket's row in its place: a bucket that joined a root shown here goes
	 * under it (folded until "N more buckets of this root cause" is opened);
	 * a root takes the buckets shown before it that joined it.
	 */
	const drawToggle = (g) => {
		const n = g.members.length;
		const total = g.members.reduce((t, tr) => t + Number(tr.dataset.count || 0), 0);
		g.toggle.textContent = `${g.open ? '▾' : '▸'} ${n} more ${plural(n, 'bucket')} of this root cause (${fmtInt(total)} ${plural(total, 'mismatch', 'mismatches')})`;
		g.toggle.setAttribute('aria-expanded', g.open ? 'true' : 'false');
		g.toggle.hidden = n === 0;
		/* Buckets that joined it but are not in this list (yet): later pages, other runs, other states. */
		const rest = g.joined - n;
		g.rest.textContent = rest > 0 ? `${n ? '' : 'this root cause has '}${fmtInt(rest)} ${n ? 'more' : plural(rest, 'other bucket', 'other buckets')} not listed here` : '';
		g.rest.hidden = rest <= 0;
	};
	const join = (g, tr) => {
		tr.classList.add('member');
		tr.hidden = !g.open;
		g.last.after(tr);
		g.last = tr;
		g.members.push(tr);
	};
	const place = (b) => {
		const tr = row(b);
		tr.dataset.count = String(runScoped && b.run ? b.run.mismatches : b.mismatches);
		const g = b.root_id ? groups.get(b.root_id) : null;
		if (g) {
			join(g, tr);
			drawToggle(g);
			return;
		}
		tbody.append(tr);
		if (b.root_id || (b.key && b.key.suite === 'phpt')) return;
		const ng = { row: tr, last: tr, members: [], open: false, joined: (b.joined || []).length };
		ng.rest = h('span', { class: 'dim', 'data-testid': 'bucket-group-rest', hidden: true });
		ng.toggle = h('button', { type: 'button', class: 'link group-toggle', 'data-testid': 'bucket-group-toggle', hidden: true,
			onclick: () => {
				ng.open = !ng.open;
				for (const m of ng.members) m.hidden = !ng.open;
				drawToggle(ng);
			} });
		tr.querySelector('td.how').append(h('div', { class: 'small-text' }, ng.toggle, ' ', ng.rest));
		groups.set(b.id, ng);
		for (const m of Array.from(tbody.querySelectorAll(`tr[data-root-id="${b.id}"]`))) if (!m.classList.contains('member')) join(ng, m);
		drawToggle(ng);
	};

	const bar = opts.selectable ? bulkBar() : null;
	const legend = keyLegend();
	legend.hidden = true;
	const el = h('div', { class: 'bucket-table' }, bar ? bar.el : null, h('div', { class: 'scroll-x' }, table), legend, status, more);

	function load(url, first) {
		const my = first ? ++gen : gen;
		if (first) {
			lastUrl = url;
			replace(status, loading('buckets'));
			clear(more);
		} else {
			replace(more, loading('more'));
		}
		return ctx.api(url).then((d) => {
			if (my !== gen) return d;
			if (first) {
				clear(tbody);
				groups = new Map();
				shown = 0;
				if (selectAll) selectAll.checked = false;
				if (bar) bar.update();
			}
			const list = d.buckets || [];
			for (const b of list) place(b);
			shown += list.length;
			table.hidden = shown === 0;
			legend.hidden = shown === 0;
			if (bar) bar.el.hidden = shown === 0;
			replace(status, shown === 0 ? h('p', { class: 'empty', 'data-testid': 'buckets-empty' }, opts.empty) : null);
			replace(more, d.next ? h('button', { type: 'button', 'data-testid': 'buckets-more', onclick: () => load(d.next, false) }, 'Load more') : null);
			if (opts.onCounts && d.counts) opts.onCounts(d.counts);
			return d;
		}, (e) => {
			if (isAbort(e) || my !== gen) return null;
			replace(first ? status : more, errorBox(e, () => load(url, first)));
			return null;
		});
	}

	return { el, reload: (url) => load(url || lastUrl, true) };
}

/* A case's bucket, on the case page: state, link, and a quick state change. */
export function caseBucketPanel(ctx, b, onSaved) {
	const msg = h('span', { 'aria-live': 'polite' });
	const sel = h('select', { 'aria-label': 'State of this bucket', 'data-testid': 'case-bucket-state' },
		STATES.map((s) => h('option', { value: s, selected: s === b.state }, s)));
	const save = h('button', { type: 'button', 'data-testid': 'case-bucket-save' }, 'Set');
	save.addEventListener('click', () => {
		if (needName(msg)) return;
		save.disabled = true;
		postTriage(ctx, [b.id], { state: sel.value }).then((nb) => {
			save.disabled = false;
			replace(msg, h('span', { class: 'ok-text', role: 'status' }, 'Saved.'));
			if (onSaved) onSaved(nb);
		}, (e) => {
			if (isAbort(e)) return;
			save.disabled = false;
			replace(msg, errorBox(e));
		});
	});
	return h('section', { class: 'panel bucket-panel', 'aria-labelledby': 'h-cbucket', 'data-testid': 'case-bucket' },
		h('h2', { id: 'h-cbucket' }, 'Triage: ', h('a', { href: `#/buckets/${b.id}`, 'data-testid': 'case-bucket-link' }, `bucket #${b.id}`), ' ',
			stateBadge(b), h('span', { class: 'dim' }, ` · ${fmtInt(b.mismatches)} ${plural(b.mismatches, 'mismatch', 'mismatches')} like this`)),
		h('p', null, keySummary(b.key), b.assignee ? [' · assigned to ', h('strong', null, b.assignee)] : null,
			b.notes ? h('div', { class: 'notes' }, b.notes) : null),
		b.key && b.key.suite !== 'phpt' ? h('details', { class: 'small-text' }, h('summary', null, 'what “output … → …” means'), keyLegend()) : null,
		h('div', { class: 'actions' }, sel, save, identityBox(), msg));
}
