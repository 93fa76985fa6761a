/*
 * #/reviews — the reviews kept by the daemon (phpcmp review --url): each
 * one's verdict, builds and runs; #/reviews/ID — one, with its report as
 * the command wrote it (shown as text: it came from a client).
 */
import { h, replace, setTitle } from '../dom.js';
import { badge, errorBox, loading, timeEl } from '../components/ui.js';

const verdictOf = (r) => badge('verdict', r.verdict === 'same' ? 'same' : 'differ', { 'data-testid': 'review-verdict' });
const buildNames = (r) => (r.builds || []).map((b) => b.name).join(' · ');

function runLinks(r) {
	const runs = Object.entries(r.runs || {});
	if (!runs.length) return '—';
	return h('span', null, runs.map(([what, id], i) => [i ? ' · ' : '', h('a', { href: `#/runs/${id}` }, `${what} #${id}`)]).flat());
}

export function reviewsView(ctx) {
	setTitle('Reviews');
	const box = h('div', null, loading('reviews'));
	ctx.main.append(h('h1', null, 'Reviews'),
		h('section', { class: 'panel' },
			h('p', { class: 'meta' }, 'Reviews run on this daemon with ', h('code', null, 'phpcmp review --url'),
				': their verdict, builds (retired once the review ended) and runs, newest first.'),
			box));
	ctx.api('/api/reviews?limit=50').then((d) => {
		if (!ctx.alive) return;
		const reviews = d.reviews || [];
		replace(box, !reviews.length ? h('p', { class: 'empty', 'data-testid': 'empty' }, 'No review yet.')
			: h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'review-list' },
				h('thead', null, h('tr', null,
					h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, 'Label'),
					h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'Builds'),
					h('th', { scope: 'col', class: 'hide-narrow' }, 'Runs'), h('th', { scope: 'col' }, 'When'))),
				h('tbody', null, reviews.map((r) => h('tr', { 'data-testid': 'review-row', 'data-review-id': r.id },
					h('td', { class: 'num' }, h('a', { href: `#/reviews/${r.id}` }, String(r.id))),
					h('td', null, h('a', { href: `#/reviews/${r.id}` }, r.label)),
					h('td', null, verdictOf(r)),
					h('td', { class: 'mono small-text' }, buildNames(r)),
					h('td', { class: 'hide-narrow small-text' }, runLinks(r)),
					h('td', null, timeEl(r.created_at))))))));
	}, (e) => { if (ctx.alive) replace(box, errorBox(e)); });
}

export function reviewView(ctx, params) {
	const id = params[0];
	setTitle(`Review #${id}`);
	const box = h('div', null, loading('the review'));
	ctx.main.append(box);
	ctx.api(`/api/reviews/${id}`).then((r) => {
		if (!ctx.alive) return;
		setTitle(`Review #${r.id}: ${r.label}`);
		replace(box, h('div', null,
			h('h1', null, `Review #${r.id} `, h('span', { class: 'dim' }, r.label), ' ', verdictOf(r)),
			h('section', { class: 'panel' },
				h('p', { class: 'meta' }, 'Builds: ', h('span', { class: 'mono', 'data-testid': 'review-builds' }, buildNames(r)),
					' · runs: ', runLinks(r), ' · ', timeEl(r.created_at), r.created_by ? ` by ${r.created_by}` : ''),
				h('pre', { class: 'report', 'data-testid': 'review-report' }, r.report_md || ''))));
	}, (e) => { if (ctx.alive) replace(box, errorBox(e)); });
}
