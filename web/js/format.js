/*
 * Formatting for the page: numbers, percentages, times and durations,
 * json_encode flags, signals, json_last_error() names.  Pure: no DOM, no
 * fetches (unit-tested in tests/web/format.test.mjs).
 */

export const SIGNALS = {
	1: 'SIGHUP', 2: 'SIGINT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE',
	9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ', 31: 'SIGSYS',
};

/* json_last_error() codes, indexed by value. */
export const JSON_ERRORS = ['JSON_ERROR_NONE', 'JSON_ERROR_DEPTH', 'JSON_ERROR_STATE_MISMATCH', 'JSON_ERROR_CTRL_CHAR',
	'JSON_ERROR_SYNTAX', 'JSON_ERROR_UTF8', 'JSON_ERROR_RECURSION', 'JSON_ERROR_INF_OR_NAN',
	'JSON_ERROR_UNSUPPORTED_TYPE', 'JSON_ERROR_INVALID_PROPERTY_NAME', 'JSON_ERROR_UTF16'];

const MINUS = '\u2212';

export const pad2 = (n) => (n < 10 ? `0${n}` : `${n}`);

/* "2026-12-01 09:22:26" in the browser's time zone. */
export function localTime(d) {
	return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
		`${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/* "just now", "12 s ago", "3 min ago", "5 h ago", "2 d ago", or the date. */
export function relTime(d, now = Date.now()) {
	const s = Math.round((now - d.getTime()) / 1000);
	if (s < 5) return 'just now';
	if (s < 60) return `${s} s ago`;
	if (s < 3600) return `${Math.floor(s / 60)} min ago`;
	if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
	if (s < 86400 * 30) return `${Math.floor(s / 86400)} d ago`;
	return d.toISOString().slice(0, 10);
}

/* From a to b (ISO strings; b missing: until now), or null. */
export function duration(a, b, now = Date.now()) {
	if (!a) return null;
	const ms = (b ? new Date(b) : new Date(now)) - new Date(a);
	if (Number.isNaN(ms) || ms < 0) return null;
	if (ms < 1000) return '< 1 s'; /* timestamps have whole seconds */
	if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
	return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/* 1234567 -> "1,234,567"; null/undefined -> "—". */
export const fmtInt = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'));

/* Instructions per call, grouped: a whole count as one ("3,298", as the docs
 * show it), else two decimals ("3,470.46"). */
export const fmtNum = (v) => (v === null || v === undefined ? '—' :
	Number(v).toLocaleString('en-US', Number.isInteger(Number(v)) ? { maximumFractionDigits: 0 }
		: { minimumFractionDigits: 2, maximumFractionDigits: 2 }));

/* The relative change from base to value in %, or null without a base. */
export function pctChange(base, value) {
	if (!base || value === null || value === undefined) return null;
	return 100 * (value - base) / base;
}

/* "+1.8", "−2.5" (a real minus sign), "±0.0"; null -> "—". */
export function signedPct(pct, digits = 1) {
	if (pct === null || pct === undefined) return '—';
	return (pct > 0 ? '+' : pct < 0 ? MINUS : '±') + Math.abs(pct).toFixed(digits);
}

/* "+1.82", "-2.50", "0.00" (the history table's form); null -> "—". */
export function plainPct(pct, digits = 2) {
	if (pct === null || pct === undefined) return '—';
	return (pct > 0 ? '+' : '') + pct.toFixed(digits);
}

/* "…" and the last n - 1 characters of a string longer than n. */
export const tail = (s, n) => (s.length > n ? `…${s.slice(s.length - n + 1)}` : s);

export const plural = (n, one, many = `${one}s`) => (n === 1 ? one : many);

export const shortFlag = (n) => n.replace(/^JSON_/, '');

/* The names of the flags set in value, given /api/flags' list; null without a list. */
export function flagNames(value, list) {
	if (!list) return null;
	return list.filter((f) => f.value && (value & f.value) === f.value).map((f) => f.name);
}

/*
 * A case's flags for a table: "UNESCAPED_SLASHES | PRETTY_PRINT".  value is
 * a number, a string or a list of names; names (the API's flag_names) wins
 * over working them out from list (/api/flags).
 */
export function flagsText(value, names, list) {
	if (!names) names = typeof value === 'number' ? flagNames(value, list) : null;
	if (Array.isArray(value)) names = value;
	if (names && names.length) return names.map(shortFlag).join(' | ');
	if (typeof value === 'string') return value;
	return value ? String(value) : '0';
}

/* "11 (SIGSEGV)" */
export const signalText = (sig) => `${sig}${SIGNALS[sig] ? ` (${SIGNALS[sig]})` : ''}`;

/* A run's builds: "base 8.2.32 · head 8.2.36", naming builds whose name is not their role. */
export function buildsText(builds, names) {
	if (!builds) return '—';
	return Object.keys(builds).map((k) => {
		const n = names && names[k] && names[k] !== k ? ` (${names[k]})` : '';
		return `${k}${n} ${builds[k]}`;
	}).join(' · ');
}

export const isActive = (status) => status === 'running' || status === 'queued';

/*
 * A case error (GET /api/cases/ID's case_error: the case's code did not
 * compile, or its value statements have no return) in words, against the
 * user's own lines: "value, line 2, column 4: syntax error, ...".
 */
export function caseErrorText(e) {
	if (!e) return '';
	const where = [e.section || 'code'];
	if (Number.isInteger(e.line)) where.push(`line ${e.line}`);
	if (Number.isInteger(e.column)) where.push(`column ${e.column}`);
	const on = e.build ? ` (on ${e.build})` : '';
	return `${where.join(', ')}: ${e.message || e.detail || 'does not compile'}${on}`;
}

/* How long a worker's last failure stays on the overview (then it ages out). */
export const FAILURE_FRESH_S = 15 * 60;

/*
 * A worker's last failure as the overview says it (GET /api/health's
 * worker: last_failure, last_failure_at, last_failure_age_s): null when
 * there is none, { recent, text } else — recent while it is younger than
 * FAILURE_FRESH_S ("last failure 2 min ago: …"); an older daemon that gives
 * no time: recent, as before.
 */
export function failureNote(w, now = Date.now()) {
	if (!w || !w.last_failure) return null;
	if (!w.last_failure_at) return { recent: true, text: `last failure: ${w.last_failure}` };
	const age = typeof w.last_failure_age_s === 'number' ? w.last_failure_age_s : Math.round((now - new Date(w.last_failure_at).getTime()) / 1000);
	const when = relTime(new Date(now - age * 1000), now);
	return { recent: age < FAILURE_FRESH_S, text: `last failure ${when}: ${w.last_failure}` };
}
