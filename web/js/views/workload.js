/*
 * #/workloads?source=FILE (or ?case=ID) — one workload's instructions per
 * call across runs.
 */
import { h, setTitle } from '../dom.js';
import { workloadHistory } from '../components/history.js';

export function workloadView(ctx, params, query) {
	const wl = query.get('source') || (query.get('case') ? `case:${query.get('case')}` : '');
	setTitle('Workload history');
	ctx.main.append(h('h1', null, 'Workload history'),
		h('section', { class: 'panel' }, wl ? workloadHistory(ctx, wl) :
			h('p', { class: 'empty' }, 'Which workload? Add ?source=FILE or ?case=ID.')));
}
