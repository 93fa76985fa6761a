/*
 * Where the instructions went (GET /api/comparisons/ID/functions): which
 * functions a view shows, and their costs per json_encode() call.  Pure.
 */

/* The ?show= filters, the first the default. */
export const FN_SHOW = ['changed', 'all'];

/* A count over the measured loop as instructions per call (null stays null). */
export function perCall(total, iterations) {
	if (total === null || total === undefined || !(iterations > 0)) return null;
	return total / iterations;
}

/* A function's row: changed (its self cost differs, or it is in one build only) or not. */
export const changed = (f) => f.delta_self !== 0 || f.change === 'new' || f.change === 'gone';

/* The functions shown for show ('changed': only those; 'all'), in the API's order (|Δ self| first). */
export function functionRows(data, show = 'changed') {
	const all = (data && data.functions) || [];
	return show === 'all' ? all : all.filter(changed);
}

/* A build whose dump names no json_encoder.c function: a stripped library
 * (Debian's), its functions by offset or exported symbol, no source files. */
export const stripped = (side) => !!side && side.json_encoder_c === null;
