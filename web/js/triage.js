/*
 * Triage states and bucket counts (docs/api.md, "Triage").  Pure.
 */
import { fmtInt, plural } from './format.js';

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
 * /api/buckets/triage with ids for several (or when change.bulk is set;
 * change.joined: also every bucket that joined one of them).
 * Returns { path, body }.
 */
export function triageRequest(ids, change, by) {
	const { bulk, joined, ...fields } = change;
	const body = { by, ...fields };
	if (ids.length === 1 && !bulk && !joined) return { path: `/api/buckets/${ids[0]}/triage`, body };
	return { path: '/api/buckets/triage', body: joined ? { ...body, ids, joined: true } : { ...body, ids } };
}

/* A change to a root cause and every bucket that joined it: POST /api/roots/ID/triage. */
export function rootTriageRequest(rootId, change, by) {
	return { path: `/api/roots/${rootId}/triage`, body: { by, ...change } };
}

/*
 * The reducer's confirmation of a minimal case (docs/triage.md,
 * "Confirmation") in a word of its own: the API's `confirmed` is shown as
 * "reproduced", so that "confirmed" is only ever the triage state.
 * Returns [word, what it means] or null.
 */
export const CONFIRMATION = {
	confirmed: ['reproduced', 'the minimal case run again, on the reducer\'s workers and on fresh ones: both builds show the difference'],
	'state-dependent': ['state-dependent', 'the minimal case shows the difference only after other cases ran (not on fresh workers)'],
	flaky: ['flaky', 'the minimal case run again did not show the difference every time'],
};

export function confirmationWord(c) {
	if (!c) return null;
	return CONFIRMATION[c] || [c, 'the minimal case run again'];
}

/* A root's buckets by state ({ new: 28, confirmed: 1 }) as "28 new · 1 confirmed", most first. */
/*
 * Why a bucket has no minimal case, in words (its reduction's state other
 * than done; docs/triage.md).  Mismatches not reproduced alone share one
 * root per candidate: nothing tells them apart.
 */
export const NOT_REDUCED = {
	not_reproduced: 'not reproduced when run alone: it needs the cases run before it, or is not deterministic',
	too_slow: 'not reduced: its case is slower than the reducer\'s time limit of a case',
	unsupported: 'not reduced: nothing to reduce it to',
	skipped: 'not reduced: skipped, too many submitted cases were waiting',
};

export function notReducedText(state) {
	return NOT_REDUCED[state] || `not reduced: ${state}`;
}

/*
 * Why a mismatch was left unreduced, apart from the roots (GET /api/roots'
 * "unreduced", each with its why and the server's sentence; docs/triage.md,
 * "Unreduced"), in a word.
 */
export const UNREDUCED_WHY = {
	budget: 'out of budget',
	flaky: 'flaky',
	too_slow: 'too slow',
	no_step: 'no simpler case',
};

export function unreducedWord(why) {
	return UNREDUCED_WHY[why] || why || 'unreduced';
}

/* "3 mismatches in 2 buckets left unreduced, apart from the root causes: 1 out of budget · 1 flaky." */
export function unreducedSummary(list) {
	const n = (list || []).length;
	if (!n) return null;
	const mismatches = list.reduce((t, r) => t + (r.mismatches || 0), 0);
	const buckets = list.reduce((t, r) => t + (r.buckets || 1), 0);
	const whys = {};
	for (const r of list) whys[unreducedWord(r.why)] = (whys[unreducedWord(r.why)] || 0) + 1;
	const by = Object.entries(whys).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([w, k]) => `${k} ${w}`).join(' · ');
	return `${fmtInt(mismatches)} ${plural(mismatches, 'mismatch', 'mismatches')} in ${fmtInt(buckets)} ${plural(buckets, 'bucket')} ` +
		`left unreduced, apart from the root causes: ${by}.`;
}

export function statesText(states) {
	return Object.entries(states || {}).filter(([, n]) => n > 0)
		.sort((a, b) => b[1] - a[1] || STATES.indexOf(a[0]) - STATES.indexOf(b[0]))
		.map(([s, n]) => `${n} ${s}`).join(' · ');
}

/*
 * What a run's buckets hold, in words that add up with the run's own count:
 * differ mismatches in the run (counts.differ), stored of them kept in full
 * (a generated run keeps a sample of each kind; the rest are made again
 * from seed and index when opened), in buckets buckets.
 */
export function storedText(differ, stored, buckets) {
	const inB = `in ${fmtInt(buckets)} ${plural(buckets, 'bucket')}`;
	if (differ === null || differ === undefined || stored >= differ)
		return `${fmtInt(stored)} ${plural(stored, 'mismatch', 'mismatches')} ${inB}.`;
	return `${fmtInt(differ)} ${plural(differ, 'mismatch', 'mismatches')} in this run; ${fmtInt(stored)} of them stored in full ` +
		`(a sample of each kind: the others are made again from seed and index when opened from the run's cases), ${inB}. ` +
		'A bucket\'s count is of its stored mismatches.';
}

/* The classes of a bucket key's output shape (docs/api.md, "The bucket key"). */
export const SHAPE_CLASSES = [
	['a', 'letters'], ['0', 'digits'], ['_', 'space'], ['N', 'newline'], ['T', 'tab'], ['C', 'a control byte or DEL'],
	['U', 'a UTF-8 character'], ['L', 'U+2028/U+2029'], ['X', 'a byte that is not UTF-8'], ['\\u', 'a \\uXXXX escape'], ['∅', 'nothing'],
];
const SHAPE_WORDS = Object.fromEntries(SHAPE_CLASSES.filter(([c]) => c.length === 1));

/*
 * A shape in words: "" → "nothing", "0" → "digits", "\\u" → "a \\uXXXX
 * escape", "\\/" → "the escape \\/", "a0~" → "letters, digits, … (cut)";
 * other punctuation is itself, quoted.
 */
export function shapeWords(s) {
	if (s === '' || s === null || s === undefined) return 'nothing';
	const out = [];
	for (let i = 0; i < s.length; i++) {
		const c = s[i];
		if (c === '\\' && s[i + 1] === 'u') {
			out.push('a \\uXXXX escape');
			i++;
		} else if (c === '\\' && i + 1 < s.length) {
			out.push(`the escape \\${s[++i]}`);
		} else if (c === '~') {
			out.push('… (cut)');
		} else {
			out.push(SHAPE_WORDS[c] || `“${c}”`);
		}
	}
	return out.join(', ');
}

/*
 * The flags that matter to a bucket: from its reduction when it has one
 * (the minimal case keeps a flag only when the difference goes without it:
 * { from: 'reduction', flags: names, complete }), else the bucket key's
 * guess from the differing bytes ({ from: 'key', flags: { NAME: on } }).
 */
export function flagsThatMatter(key, minimal) {
	if (minimal && minimal.state === 'done' && Array.isArray(minimal.flags))
		return { from: 'reduction', flags: minimal.flags.slice(), complete: minimal.complete !== false };
	return { from: 'key', flags: (key && key.flags) || {} };
}
