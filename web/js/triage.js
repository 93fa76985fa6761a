/*
 * Triage states and bucket counts (docs/api.md, "Triage").  Pure.
 */

export const STATES = ['new', 'confirmed', 'expected', 'ignored', 'fixed'];

export const STATE_HELP = {
	new: 'not looked at yet',
	confirmed: 'a real regression, to fix',
	expected: 'an intended change',
	ignored: 'not worth fixing',
	fixed: 'fixed; flagged if it shows up again',
};

/* The triage page's state filters, in order ('' is every bucket). */
export const BUCKET_FILTERS = ['open', '', 'new', 'confirmed', 'expected', 'ignored', 'fixed', 'reappeared'];

/*
 * Buckets per filter from GET /api/buckets' counts
 * ({ new: { buckets, mismatches }, ..., reappeared: {...} }): open is new +
 * confirmed + reappeared.  null stays null.
 */
export function bucketCounts(c) {
	if (!c) return null;
	const out = {};
	for (const s of STATES) out[s] = c[s] ? c[s].buckets : 0;
	out.reappeared = c.reappeared ? c.reappeared.buckets : 0;
	out.open = out.new + out.confirmed + out.reappeared;
	return out;
}

/*
 * The body of a triage change: POST /api/buckets/ID/triage for one bucket,
 * /api/buckets/triage with ids for several (or when change.bulk is set).
 * Returns { path, body }.
 */
export function triageRequest(ids, change, by) {
	const { bulk, ...fields } = change;
	const body = { by, ...fields };
	if (ids.length === 1 && !bulk) return { path: `/api/buckets/${ids[0]}/triage`, body };
	return { path: '/api/buckets/triage', body: { ...body, ids } };
}
