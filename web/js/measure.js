/*
 * The instruction-count table's rows (GET /api/runs/ID/measurements):
 * which workloads a filter shows and in what order.  Pure.
 */

/* The ?show= filters, the first the default. */
export const SHOW = ['significant', 'regressions', 'all'];

/* ?threshold= as a percentage >= 0; anything else is the default, 1. */
export function threshold(query) {
	const raw = query.get('threshold');
	const t = Number(raw);
	return raw !== null && Number.isFinite(t) && t >= 0 ? t : 1;
}

/* A workload's key in ?workload=: its file, or "case:ID". */
export const workloadKey = (w) => w.source || `case:${w.case_id}`;

/*
 * The rows shown for show (significant: regressions and improvements),
 * sorted by sort ('title', a build's role: its instructions, anything
 * else: delta_pct) in dir ('asc', 'desc'; default desc, asc for title).  Rows without the
 * sort value go last either way.
 */
export function workloadRows(workloads, { show = 'significant', sort = 'delta', dir } = {}) {
	dir = dir || (sort === 'title' ? 'asc' : 'desc');
	/* Any candidate's change counts (with two builds: the head's). */
	const changes = (w) => (w.candidates ? Object.values(w.candidates).map((c) => c.change) : [w.change]);
	const rows = (workloads || []).filter((w) => {
		const ch = changes(w);
		if (show === 'regressions') return ch.includes('regression') || w.change === 'regression';
		if (show === 'significant') return ch.some((x) => x === 'regression' || x === 'improvement') || w.change === 'regression' || w.change === 'improvement';
		return true;
	});
	const key = (w) => {
		if (sort === 'title') return (w.title || '').toLowerCase();
		const build = w[sort];
		if (build !== null && typeof build === 'object') return build.instructions;
		return w.delta_pct;
	};
	const sign = dir === 'asc' ? 1 : -1;
	return rows.sort((a, b) => {
		const x = key(a), y = key(b);
		if (x === null || x === undefined) return 1;
		if (y === null || y === undefined) return -1;
		return (x < y ? -1 : x > y ? 1 : 0) * sign;
	});
}

/*
 * A measure run's verdict in instructions, from GET /api/runs/ID/measurements'
 * counts: [{ kind, n }] for regressions, improvements, unchanged (and
 * unmeasured when any), the words a run's head shows instead of "differ 0".
 */
export function instructionCounts(counts) {
	const c = counts || {};
	const out = [
		{ kind: 'regression', n: c.regressions || 0, text: (n) => `${n} ${n === 1 ? 'regression' : 'regressions'}` },
		{ kind: 'improvement', n: c.improvements || 0, text: (n) => `${n} ${n === 1 ? 'improvement' : 'improvements'}` },
		{ kind: 'unchanged', n: c.unchanged || 0, text: (n) => `${n} unchanged` },
	];
	if (c.unmeasured) out.push({ kind: 'unmeasured', n: c.unmeasured, text: (n) => `${n} unmeasured` });
	return out.map(({ kind, n, text }) => ({ kind, n, text: text(n) }));
}
