/*
 * Small pieces every view uses: loading and error notices, badges, times,
 * filter links, progress, verdict counts, copy buttons, code blocks.
 */
import { h, replace } from '../dom.js';
import { ApiError, fetchText } from '../api.js';
import { fmtInt, localTime, relTime } from '../format.js';
import { hashFor, withParam } from '../router.js';
import { codeText } from './bytesview.js';
import { instructionCounts } from '../measure.js';

export function loading(what) {
	return h('p', { class: 'loading', 'aria-busy': 'true' }, `Loading ${what || ''}…`);
}

/* An error notice with the API's code and message, and a Retry button if retry is given. */
export function errorBox(e, retry) {
	if (!(e instanceof ApiError)) e = new ApiError(0, 'client', String((e && e.message) || e));
	return h('div', { class: 'notice error', role: 'alert', 'data-testid': 'api-error' },
		h('strong', null, e.code), e.status ? ` (HTTP ${e.status})` : '', ': ', e.message,
		retry ? [' ', h('button', { type: 'button', class: 'link', onclick: retry }, 'Retry')] : null);
}

export function badge(kind, value, extra) {
	return h('span', { class: `badge ${kind}-${String(value).replace(/[^a-z0-9_]/gi, '')}`, ...extra }, value);
}

export function verdictBadge(v, testid) {
	return badge('verdict', v || 'unknown', { 'data-testid': testid || 'verdict', 'data-verdict': v || '' });
}

/* The fields a comparison differs in, as tags. */
export function differsList(list) {
	if (!list || !list.length) return null;
	return h('span', { class: 'differs', 'data-testid': 'differs' },
		list.map((f) => h('span', { class: 'field-tag' }, f)));
}

/* "3 min ago", the exact local and ISO time on hover. */
export function timeEl(iso) {
	if (!iso) return h('span', { class: 'dim' }, '—');
	const d = new Date(iso);
	if (Number.isNaN(d.getTime())) return h('span', null, iso);
	return h('time', { datetime: iso, title: `${localTime(d)} (${iso})` }, relTime(d));
}

/* Segmented filter links that edit one query parameter of the current hash. */
export function filterBar(label, param, options, path, query, counts) {
	const cur = query.get(param) || '';
	return h('div', { class: 'filter', role: 'group', 'aria-label': label },
		h('span', { class: 'filter-label' }, `${label}:`),
		options.map((o) => {
			const n = counts && o ? counts[o] : null;
			return h('a', {
				href: hashFor(path, withParam(query, param, o)), class: `seg${o ? ` seg-${o}` : ''}`,
				'aria-current': cur === o ? 'true' : null, 'data-testid': `filter-${param}-${o || 'all'}`,
			}, o || 'all', n !== null && n !== undefined ? h('span', { class: 'count' }, ` ${fmtInt(n)}`) : null);
		}));
}

export function progressBar(done, total, status) {
	const pct = total ? Math.min(100, Math.floor(100 * done / total)) : (status === 'done' ? 100 : 0);
	return h('div', { class: 'progress-wrap' },
		h('progress', {
			max: total || 1, value: total ? done : (status === 'done' ? 1 : 0), 'data-testid': 'run-progress',
			'aria-label': `Progress: ${fmtInt(done)} of ${fmtInt(total)} cases`, 'data-done': done, 'data-total': total,
		}),
		h('span', { class: 'progress-text' }, `${fmtInt(done)} / ${fmtInt(total)}${total ? ` (${pct}%)` : ''}`));
}

/* A run's counts by verdict ("same" last), each a link when linkFor(verdict) gives one. */
/* What a run's count means where its word alone does not say it (docs/api.md, "ended"). */
export const COUNT_HELP = {
	broken: 'the same on every build, but no build ran to its end (crashed, timed out, hit a limit, exit()…): counted among same too, listed with them',
	error: 'did not compile: not compared',
	unsupported: 'some build could not run it (it did not compile there, or it needs a newer PHP): the others agree',
};

/* The verdict a count's link lists: a broken case's verdict is same (GET /api/runs/ID/cases has no broken filter). */
export const countVerdict = (k) => (k === 'broken' ? 'same' : k);

export function countsView(counts, linkFor) {
	const keys = Object.keys(counts || {});
	if (!keys.length) return h('span', { class: 'dim' }, '—');
	keys.sort((a, b) => (a === 'same' ? 1 : b === 'same' ? -1 : a < b ? -1 : 1));
	return h('span', { class: 'counts', 'data-testid': 'run-counts' }, keys.map((k) => {
		const n = counts[k];
		const inner = [h('span', { class: `badge verdict-${k}${n ? '' : ' zero'}` }, k), ' ', fmtInt(n)];
		return h('span', { class: 'count-item', 'data-verdict': k, 'data-count': n, title: COUNT_HELP[k] || null },
			linkFor ? h('a', { href: linkFor(countVerdict(k)) }, inner) : inner);
	}));
}

/* A measure run's instruction counts: regressions first, linking to the table. */
export function instructionsView(runId, m) {
	const c = m && m.counts;
	if (!c) return null;
	return h('span', { class: 'counts instr-counts', 'data-testid': 'run-instructions', title: `instructions per call against the base, ±${m.threshold_pct} % is unchanged` },
		instructionCounts(c).map((x, i) => [i ? ' ' : null, h('a', {
			href: `#/runs/${runId}/counts${x.kind === 'regression' ? '?show=regressions' : x.kind === 'unchanged' ? '?show=all' : ''}`,
			class: `count-item instr-${x.kind}${x.n ? '' : ' zero'}`, 'data-kind': x.kind, 'data-count': x.n,
		}, x.text)]));
}

/* Put text on the clipboard; falls back to a hidden textarea off secure contexts. */
export function copyText(text) {
	if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
	return new Promise((resolve, reject) => {
		const ta = h('textarea', { class: 'offscreen', 'aria-hidden': 'true' });
		ta.value = text;
		document.body.append(ta);
		ta.select();
		let ok = false;
		try {
			ok = document.execCommand('copy');
		} catch {
			ok = false;
		}
		ta.remove();
		if (ok) resolve();
		else reject(new Error('copy refused by the browser'));
	});
}

/* getText may return a promise (text fetched from the daemon). */
export function copyButton(label, getText, testid) {
	const btn = h('button', { type: 'button', 'data-testid': testid }, label);
	const msg = h('span', { class: 'copy-msg', role: 'status', 'data-testid': `${testid}-msg` });
	btn.addEventListener('click', () => {
		Promise.resolve().then(getText).then(copyText).then(() => { msg.textContent = 'Copied.'; },
			(e) => { msg.textContent = `Could not copy (${e.message}); select the text below.`; });
		setTimeout(() => { msg.textContent = ''; }, 2500);
	});
	return h('span', { class: 'copy' }, btn, msg);
}

export function codeBlock(label, text, testid) {
	if (text === null || text === undefined || text === '') return null;
	return h('div', { class: 'code-block' }, h('div', { class: 'label' }, label),
		h('pre', { class: 'code', 'data-testid': testid }, codeText(text)));
}

/* A <details> whose text is fetched when it is first opened. */
export function lazyText(label, path, testid) {
	const pre = h('pre', { class: 'code', 'data-testid': testid }, 'Loading…');
	const d = h('details', { class: 'curl' }, h('summary', null, label), pre);
	let loaded = false;
	d.addEventListener('toggle', () => {
		if (!d.open || loaded) return;
		loaded = true;
		fetchText(path).then((t) => replace(pre, t), (e) => replace(pre, errorBox(e)));
	});
	return d;
}
