/*
 * A paginated table of cases (GET /api/cases or /api/runs/ID/cases).
 */
import { clear, h, replace } from '../dom.js';
import { isAbort } from '../api.js';
import { navigate } from '../router.js';
import { tail } from '../format.js';
import { flagsText } from '../session.js';
import { differsList, errorBox, loading, timeEl, verdictBadge } from './ui.js';

/* Returns { el, reload(url) (the first page again), pages() (rows shown) }; "Load more" follows `next`. */
export function caseTable(ctx, emptyText) {
	const tbody = h('tbody');
	const table = h('table', { class: 'list cases', 'data-testid': 'case-list' },
		h('thead', null, h('tr', null,
			h('th', { scope: 'col', class: 'num' }, '#'),
			h('th', { scope: 'col' }, 'Title'),
			h('th', { scope: 'col' }, 'Verdict'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Flags'),
			h('th', { scope: 'col', class: 'hide-narrow' }, 'Source'),
			h('th', { scope: 'col' }, 'Created'))),
		tbody);
	const status = h('div', { class: 'list-status', 'aria-live': 'polite' });
	const more = h('div', { class: 'more' });
	const el = h('div', { class: 'case-table' }, h('div', { class: 'scroll-x' }, table), status, more);
	let gen = 0, shown = 0;

	const row = (c) => {
		/* source is "stored"/"submitted"/"reduced" (the reducer's minimal case)/"generated"
		 * (a generated run's); file the stored case's path (older daemons put the path in source). */
		const file = c.file || (c.source && !['stored', 'submitted', 'reduced', 'generated'].includes(c.source) ? c.source : null);
		const src = file ? file.replace(/^cases\//, '') : (c.generated ? 'generated' : c.source || 'submitted');
		const flags = flagsText(c.flags, c.flag_names);
		/* A generated run's mismatch not stored in full (id null): listed by its
		 * seed and index; opening it stores it (the listing itself never writes). */
		const stored = c.id !== null && c.id !== undefined;
		return h('tr', { 'data-testid': 'case-row', 'data-case-id': stored ? c.id : '', 'data-verdict': c.verdict || '' },
			h('td', { class: 'num' }, stored ? h('a', { href: `#/cases/${c.id}` }, c.id) : '–'),
			h('td', { class: 'title' }, stored ? h('a', { href: `#/cases/${c.id}` }, c.title || 'untitled')
				: [c.title || 'untitled', ' ', storeButton(c)]),
			h('td', { class: 'verdict-cell' }, verdictBadge(c.verdict), ' ', differsList(c.differs)),
			h('td', { class: 'mono hide-narrow flags', title: flags }, flags),
			h('td', { class: `hide-narrow src${file ? ' mono' : ''}`, title: file || '' }, file ? tail(src, 40) : src),
			h('td', { class: 'nowrap' }, timeEl(c.created_at)));
	};

	/* POST /api/runs/ID/cases {seed, index}: made again on the run's builds, then opened. */
	const storeButton = (c) => {
		const btn = h('button', {
			type: 'button', class: 'link', 'data-testid': 'store-case',
			title: 'Not stored in full yet: make it again from its seed and index on the run\'s builds, store it and open it',
		}, 'open');
		btn.addEventListener('click', () => {
			btn.disabled = true;
			btn.textContent = 'storing…';
			ctx.api(`/api/runs/${c.run_id}/cases`, { method: 'POST', body: { seed: c.generated.seed, index: c.generated.index } })
				.then((d) => navigate(`#/cases/${d.id}`), (e) => {
					if (isAbort(e)) return;
					btn.disabled = false;
					btn.textContent = 'open';
					btn.after(errorBox(e));
				});
		});
		return btn;
	};

	function load(url, first) {
		const my = first ? ++gen : gen;
		if (first) {
			replace(status, loading('cases'));
			clear(more);
		} else {
			replace(more, loading('more'));
		}
		return ctx.api(url).then((d) => {
			if (my !== gen) return;
			if (first) {
				clear(tbody);
				shown = 0;
			}
			const list = d.cases || [];
			for (const c of list) tbody.append(row(c));
			shown += list.length;
			table.hidden = shown === 0;
			replace(status, shown === 0 ? h('p', { class: 'empty', 'data-testid': 'empty' }, emptyText) : null);
			replace(more, d.next ? h('button', { type: 'button', 'data-testid': 'load-more', onclick: () => load(d.next, false) }, 'Load more') : null);
		}, (e) => {
			if (isAbort(e) || my !== gen) return;
			replace(first ? status : more, errorBox(e, () => load(url, first)));
		});
	}

	return { el, reload: (url) => load(url, true), pages: () => shown };
}
