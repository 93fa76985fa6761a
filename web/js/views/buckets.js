/*
 * #/buckets — triage: every bucket, filtered by state (?state=open|new|…
 * |reappeared) and run (?run=ID), with bulk changes and the recent audit trail.
 */
import { h, replace, setTitle } from '../dom.js';
import { isAbort } from '../api.js';
import { BUCKET_FILTERS, bucketCounts } from '../triage.js';
import { errorBox, filterBar, loading } from '../components/ui.js';
import { auditTrail, bucketTable } from '../components/buckets.js';

export function bucketsView(ctx, params, query) {
	setTitle('Triage');
	const filters = h('div', { class: 'filters' });
	let q = query, counts = null;
	const draw = () => replace(filters, filterBar('State', 'state', BUCKET_FILTERS, '/buckets', q, counts));
	const table = bucketTable(ctx, {
		selectable: true, empty: 'No bucket matches. Mismatches are grouped here as runs find them.',
		onCounts: (c) => { counts = bucketCounts(c); draw(); },
	});
	const trail = h('div', null, loading('audit trail'));
	ctx.main.append(h('h1', null, 'Triage'),
		h('p', { class: 'lead' }, 'Mismatches that differ the same way are one bucket; its state, assignee and notes carry over to later runs.'),
		h('section', { class: 'panel', 'aria-labelledby': 'h-buckets' }, h('h2', { id: 'h-buckets' }, 'Buckets'), filters, table.el),
		h('section', { class: 'panel', 'aria-labelledby': 'h-trail' }, h('h2', { id: 'h-trail' }, 'Recent triage'), trail));
	const apiUrl = () => {
		const a = new URLSearchParams();
		if (q.get('state')) a.set('state', q.get('state'));
		if (q.get('run')) a.set('run', q.get('run'));
		a.set('limit', '50');
		return `/api/buckets?${a}`;
	};
	draw();
	table.reload(apiUrl());
	ctx.api('/api/triage/events?limit=20').then((d) => replace(trail, auditTrail(d.events, true)),
		(e) => { if (!isAbort(e)) replace(trail, errorBox(e)); });
	return {
		onQuery: (nq) => {
			q = nq;
			draw();
			table.reload(apiUrl());
		},
	};
}
