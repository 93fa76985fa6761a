/*
 * Lists of builds.  Results, measurements and history points are keyed by
 * role ("base", "head"; later more candidates): every view takes its
 * columns from these helpers instead of naming two builds.  Pure.
 */

const ORDER = { base: 0, head: 1 };

/* Roles in display order: base, head, then the others by name. */
export function orderRoles(roles) {
	const rank = (r) => (r in ORDER ? ORDER[r] : 2);
	return [...roles].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/* The roles of an object keyed by role (a case's results, a run's builds). */
export const rolesOf = (byRole) => orderRoles(Object.keys(byRole || {}));

/*
 * The per-build entries of a measurement or history point: the keys whose
 * value is an object with instructions, e.g. { run_id, base: {…}, head: {…} }.
 */
export function pointRoles(point) {
	return orderRoles(Object.keys(point || {}).filter((k) => {
		const v = point[k];
		return v !== null && typeof v === 'object' && !Array.isArray(v) && 'instructions' in v;
	}));
}

/* Candidates: every role but the first (the base). */
export const candidates = (roles) => roles.slice(1);

/*
 * Whether each build's value differs from the base's (values[0]): a
 * candidate when it differs from the base, the base when any candidate
 * does.  same(x, y) compares two values.
 */
export function differsFromBase(values, same) {
	const out = values.map((v, i) => i > 0 && !same(values[0], v));
	out[0] = out.some(Boolean);
	return out;
}

/* A colour per build for charts, base first. */
export const BUILD_COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
export const buildColour = (i) => BUILD_COLOURS[i % BUILD_COLOURS.length];
