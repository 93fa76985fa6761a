/*
 * "Released PHP" (issue 49): a case's answers from every released PHP
 * (GET /api/cases/ID/references: php-7.4 … php-8.5 under WebAssembly),
 * grouped by identical answer as 3v4l groups versions ("Output for 8.1.34 –
 * 8.5.10"), each group with the builds it answers as and its output in the
 * page's byte view.  The panel is drawn at once and fills in when the
 * answers come (the first view of a case never waits for 7 runtimes).
 * groupReleased and versionLabel are pure, tested in tests/web.
 */
import { h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { fieldBytes, outputBytes } from '../bytes.js';
import { JSON_ERRORS } from '../format.js';
import { errorBox } from './ui.js';
import { bytesView } from './bytesview.js';

export const RELEASED_NOTE = 'no instruction counts, no memory-error oracle';

/* "8.1.34" before "8.10.0": numerically, part by part. */
export function versionCmp(a, b) {
	const x = String(a || '').split('.'), y = String(b || '').split('.');
	for (let i = 0; i < Math.max(x.length, y.length); i++) {
		const p = parseInt(x[i] || '0', 10) || 0, q = parseInt(y[i] || '0', 10) || 0;
		if (p !== q) return p < q ? -1 : 1;
	}
	return 0;
}

/* What a release answered, as a string equal for equal answers: every field
 * the daemon groups by; unsupported is one answer whatever the reason. */
export function releasedKey(r) {
	if (!r) return '';
	if (r.unsupported) return '["unsupported"]';
	const out = r.output === false ? false : (r.output_base64 ?? r.output ?? null);
	return JSON.stringify([r.status, r.signal ?? null, out, r.output_md5 ?? null, r.error_code ?? 0, r.error_msg ?? null,
		r.exception ?? null, r.warnings ?? [], r.printed_base64 ?? r.printed ?? '']);
}

const versionOf = (ref) => ref.php_version || String(ref.name || '').replace(/^php-/, '');

/* "7.4.33 – 8.0.30, 8.2.1": runs of neighbours (positions among those that answered). */
export function versionLabel(members, positions) {
	const parts = [];
	for (let k = 0; k < members.length;) {
		let j = k;
		while (j + 1 < members.length && positions[j + 1] === positions[j] + 1) j++;
		parts.push(j > k ? `${versionOf(members[k])} – ${versionOf(members[j])}` : versionOf(members[k]));
		k = j + 1;
	}
	return parts.join(', ');
}

/*
 * The references (the API's "references") grouped by identical answer:
 * { groups: [{label, refs, as, result}] oldest first, failed: [refs without
 * an answer] }.
 */
export function groupReleased(references) {
	const refs = [...(references || [])].sort((a, b) => versionCmp(versionOf(a), versionOf(b)) || String(a.name).localeCompare(String(b.name)));
	const answered = refs.filter((r) => r.result);
	const groups = new Map();
	answered.forEach((ref, pos) => {
		const k = releasedKey(ref.result);
		if (!groups.has(k)) groups.set(k, { refs: [], positions: [], as: ref.as || [], result: ref.result });
		const g = groups.get(k);
		g.refs.push(ref);
		g.positions.push(pos);
	});
	return {
		groups: [...groups.values()].map((g) => ({ label: versionLabel(g.refs, g.positions), refs: g.refs, as: g.as, result: g.result })),
		failed: refs.filter((r) => !r.result),
	};
}

/* The answer's fields beside its bytes: json_last_error, a throw, warnings, printed, how it ended. */
function answerDetails(r, testid) {
	const rows = [];
	if (r.unsupported) return h('p', { class: 'dim', 'data-testid': `${testid}-unsupported` }, `unsupported: ${r.unsupported}`);
	if (r.status !== 'ok') rows.push(h('div', null, h('strong', null, r.status), r.failure ? [': ', h('span', { class: 'mono' }, r.failure)] : null));
	if (r.error_code !== undefined && r.error_code !== null)
		rows.push(h('div', { class: 'mono', 'data-testid': `${testid}-error` }, `json_last_error() ${r.error_code}`,
			JSON_ERRORS[r.error_code] ? h('span', { class: 'dim' }, ` ${JSON_ERRORS[r.error_code]}`) : null,
			r.error_msg ? ` “${r.error_msg}”` : null));
	if (r.exception) rows.push(h('div', { class: 'mono' }, 'throws ', h('strong', null, r.exception.class), `: ${r.exception.message}`));
	const w = Array.isArray(r.warnings) ? r.warnings : (r.warnings ? String(r.warnings).split('\n') : []);
	if (w.length) rows.push(h('ul', { class: 'warnings mono', 'data-testid': `${testid}-warnings` }, w.map((x) => h('li', null, x))));
	const p = fieldBytes(r, 'printed');
	if (p && p.length) rows.push(h('div', null, h('span', { class: 'dim' }, 'printed '), bytesView(p, null, `${testid}-printed`)));
	return rows;
}

function groupEl(g, i) {
	const r = g.result || {}, testid = `released-group-${i}`;
	const b = r.unsupported ? null : outputBytes(r);
	let out = null;
	if (r.unsupported) out = null;
	else if (b === null) out = h('pre', { class: 'bytes false', 'data-testid': `${testid}-output` }, r.output_size ? `${r.output_size} bytes (md5 ${r.output_md5}), too large to show here` : 'false');
	else {
		const view = bytesView(b, null, `${testid}-output`);
		out = [view, h('div', { class: 'bytes-meta' }, `${b.length} bytes `, view.toggle)];
	}
	return h('li', { class: `released-group${r.unsupported ? ' unsupported' : ''}`, 'data-testid': 'released-group',
		'data-versions': g.refs.map(versionOf).join(' '), 'data-as': (g.as || []).join(' ') },
	h('h3', null, r.unsupported ? 'Unsupported on ' : 'Output for ', h('span', { 'data-testid': 'released-label' }, g.label),
		g.as && g.as.length ? h('span', { class: 'dim small-text', 'data-testid': 'released-as' }, ` · answers as ${g.as.join(', ')}`)
			: (r.unsupported ? null : h('span', { class: 'dim small-text', 'data-testid': 'released-as' }, ' · answers as no build'))),
	out, answerDetails(r, testid));
}

/* The panel's body once the answers are there. */
export function releasedBody(d) {
	const refs = d.references || [];
	if (!refs.length)
		return h('p', { class: 'empty', 'data-testid': 'released-none' }, 'No released PHP is installed on this daemon (make run installs them).');
	const { groups, failed } = groupReleased(refs);
	return [
		d.summary ? h('p', { class: 'released-summary', 'data-testid': 'released-summary' }, d.summary) : null,
		h('ul', { class: 'released-groups' }, groups.map(groupEl)),
		failed.length ? h('ul', { class: 'released-failed small-text', 'data-testid': 'released-failed' }, failed.map((ref) =>
			h('li', null, h('strong', null, ref.name), `: no answer${ref.error ? ` (${ref.error})` : ''}`))) : null,
	];
}

/* The panel, filling in as GET /api/cases/ID/references answers. */
export function releasedPanel(ctx, caseId) {
	const body = h('div', { 'aria-live': 'polite' },
		h('p', { class: 'loading', 'aria-busy': 'true', 'data-testid': 'released-loading' }, 'Asking every released PHP…'));
	const el = h('section', { class: 'panel released', 'aria-labelledby': 'h-released', 'data-testid': 'released' },
		h('h2', { id: 'h-released' }, 'Released PHP'),
		h('p', { class: 'small-text dim', 'data-testid': 'released-note' },
			`PHP 7.4 to 8.5 as released, under WebAssembly (php-wasm): their output, json_last_error() and exceptions; ${RELEASED_NOTE}.`),
		body);
	const load = () => ctx.api(`/api/cases/${encodeURIComponent(caseId)}/references`).then((d) => {
		el.dataset.state = 'done';
		replace(body, releasedBody(d));
	}, (e) => {
		if (isAbort(e)) return;
		el.dataset.state = 'error';
		replace(body, errorBox(e, load));
	});
	el.dataset.state = 'loading';
	load();
	return el;
}

/* Lines asked for, by case: a roots table drawn again while it polls asks once. */
const asked = new Map();

/* A root cause's line: the API's "released", else asked for its minimal case, filled in when known. */
export function releasedLine(ctx, released, caseId) {
	const el = h('div', { class: 'released-line small-text', 'data-testid': 'root-released' });
	if (released) {
		el.textContent = released;
		return el;
	}
	if (!caseId) return null;
	el.classList.add('dim');
	el.textContent = 'released PHP: asking…';
	if (!asked.has(caseId)) {
		const p = ctx.api(`/api/cases/${encodeURIComponent(caseId)}/references`);
		asked.set(caseId, p);
		p.catch(() => asked.delete(caseId));
	}
	asked.get(caseId).then((d) => {
		el.classList.remove('dim');
		el.textContent = d.summary || (d.references && d.references.length ? 'released PHP: no answer' : '');
	}, (e) => {
		if (!isAbort(e)) el.textContent = 'released PHP: not available';
	});
	return el;
}
