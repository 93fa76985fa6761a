/*
 * Lists of builds.  Results, measurements and history points are keyed by
 * role ("base", "head", then "cand2".."cand7"): every view takes its
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

/*
 * A comparison's candidates ({NAME: {role, verdict, differs}}, GET
 * /api/cases/ID) as a list in role order: [{name, role, verdict, differs}].
 */
export function candidateVerdicts(byName) {
	const list = Object.entries(byName || {}).map(([name, c]) => ({ name, role: c.role, verdict: c.verdict, differs: c.differs || [] }));
	const order = orderRoles(list.map((x) => x.role));
	return list.sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role));
}

/* Up to this many builds side by side; beyond, the base and one candidate. */
export const MAX_SIDE_BY_SIDE = 3;

/*
 * The roles a case page shows: every one for up to three builds; else the
 * base and ?vs= (a candidate's role), or the first candidate that differs,
 * or the first.
 */
export function shownRoles(roles, cands, vs) {
	if (roles.length <= MAX_SIDE_BY_SIDE) return roles;
	if (vs && vs !== roles[0] && roles.includes(vs)) return [roles[0], vs];
	const differing = (cands || []).find((x) => x.verdict === 'differ' && roles.includes(x.role));
	return [roles[0], differing ? differing.role : roles[1]];
}
