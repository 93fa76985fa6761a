/*
 * phpcmp web page: a hash-routed client of the JSON API (docs/api.md).
 *
 *   #/                     overview: builds, runs, open buckets, the latest measurement
 *   #/new                  submit a case (?from=ID prefills from a stored case)
 *   #/cases/ID             one case, both builds' results side by side, its bucket,
 *                          exports (?comparison=ID shows an earlier comparison)
 *   #/runs/ID              one run: progress, counts, buckets, report and coverage (?verdict=)
 *   #/runs/ID/counts       instruction counts (?threshold=&show=significant|regressions|all
 *                          &sort=title|base|head|delta&dir=asc|desc&workload=FILE)
 *   #/buckets              triage: every bucket (?state=open|new|...|reappeared&run=ID)
 *   #/buckets/ID           one bucket: its key, triage form, audit trail, a representative diff
 *   #/workloads?source=F   one workload's instruction counts across runs
 *
 * Libraries from npm (package.json), served by the daemon under /vendor/:
 * `diff` (jsdiff) for byte-level diffs, uPlot for history charts.  The page
 * works without them (one highlight per difference, tables instead of
 * charts).  DOM is built with h(), never from HTML strings, so anything a
 * case prints is inert text.
 */
(function () {
	'use strict';

	/* ------------------------------------------------------------------ DOM */

	function h(tag, attrs) {
		var el = document.createElement(tag);
		if (attrs) {
			for (var k in attrs) {
				var v = attrs[k];
				if (v === null || v === undefined || v === false) continue;
				if (k === 'class') el.className = v;
				else if (k === 'text') el.textContent = v;
				else if (k.slice(0, 2) === 'on' && typeof v === 'function') el.addEventListener(k.slice(2), v);
				else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'required' || k === 'selected') el[k] = v;
				else el.setAttribute(k, v === true ? '' : String(v));
			}
		}
		for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
		return el;
	}

	function append(el, c) {
		if (c === null || c === undefined || c === false) return;
		if (Array.isArray(c)) { c.forEach(function (x) { append(el, x); }); return; }
		el.append(c instanceof Node ? c : String(c));
	}

	function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

	function replace(el, content) { clear(el); append(el, content); return el; }

	/* ------------------------------------------------------------------ API */

	function ApiError(status, code, message) {
		this.status = status;
		this.code = code;
		this.message = message;
	}
	ApiError.prototype = Object.create(Error.prototype);
	ApiError.prototype.name = 'ApiError';

	/* fetch + JSON; rejects with an ApiError carrying the API's own message. */
	function api(path, opts) {
		opts = opts || {};
		var init = { method: opts.method || 'GET', headers: { Accept: 'application/json' }, signal: opts.signal };
		/* An API token kept in this browser (see identityBox) goes with every request. */
		if (stored(TOKEN_KEY)) init.headers.Authorization = 'Bearer ' + stored(TOKEN_KEY);
		/* Every write says it is JSON, a body-less one too: the daemon refuses
		 * any other, which is what keeps other sites' forms and beacons out. */
		if (opts.body !== undefined || init.method === 'POST') init.headers['Content-Type'] = 'application/json';
		if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
		return fetch(path, init).then(function (res) {
			return res.text().then(function (text) {
				var data = null;
				try { data = text ? JSON.parse(text) : null; } catch (e) { data = undefined; }
				if (res.ok && data !== undefined) return data;
				if (data && data.error && data.error.message)
					throw new ApiError(res.status, data.error.code || 'error', data.error.message);
				if (res.ok)
					throw new ApiError(res.status, 'bad_response', method(init) + ' ' + path + ' answered something that is not JSON');
				throw new ApiError(res.status, 'http_' + res.status,
					method(init) + ' ' + path + ' failed: ' + (res.statusText || 'HTTP ' + res.status) +
					(text ? ' — ' + text.slice(0, 200) : ''));
			});
		}, function (e) {
			if (e && e.name === 'AbortError') throw e;
			throw new ApiError(0, 'unreachable', 'Cannot reach the phpcmp daemon at ' + location.host +
				' (' + (e && e.message ? e.message : e) + ')');
		});
	}
	function method(init) { return init.method; }

	function isAbort(e) { return e && e.name === 'AbortError'; }

	function errorBox(e, retry) {
		if (!(e instanceof ApiError)) e = new ApiError(0, 'client', String(e && e.message || e));
		return h('div', { class: 'notice error', role: 'alert', 'data-testid': 'api-error' },
			h('strong', null, e.code), e.status ? ' (HTTP ' + e.status + ')' : '', ': ', e.message,
			retry ? [' ', h('button', { type: 'button', class: 'link', onclick: retry }, 'Retry')] : null);
	}

	function loading(what) {
		return h('p', { class: 'loading', 'aria-busy': 'true' }, 'Loading ' + (what || '') + '…');
	}

	/* Cached lookups shared by views: flag names and the health answer. */
	var flagsList = null;
	function getFlags() {
		if (flagsList) return Promise.resolve(flagsList);
		return api('/api/flags').then(function (d) { flagsList = d.flags || []; return flagsList; });
	}
	function flagNames(value) {
		if (!flagsList) return null;
		var out = [];
		flagsList.forEach(function (f) { if (f.value && (value & f.value) === f.value) out.push(f.name); });
		return out;
	}

	var health = null;
	/* A build from /api/health by role (base/head, how results are keyed) or name. */
	function buildInfo(key) {
		if (!health || !health.builds) return null;
		for (var i = 0; i < health.builds.length; i++)
			if (health.builds[i].role === key) return health.builds[i];
		for (var j = 0; j < health.builds.length; j++)
			if (health.builds[j].name === key) return health.builds[j];
		return null;
	}

	/* ----------------------------------------------------------- formatting */

	function pad2(n) { return n < 10 ? '0' + n : '' + n; }

	function timeEl(iso) {
		if (!iso) return h('span', { class: 'dim' }, '—');
		var d = new Date(iso);
		if (isNaN(d)) return h('span', null, iso);
		var local = d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate()) + ' ' +
			pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
		return h('time', { datetime: iso, title: local + ' (' + iso + ')' }, relTime(d));
	}

	function relTime(d) {
		var s = Math.round((Date.now() - d.getTime()) / 1000);
		if (s < 5) return 'just now';
		if (s < 60) return s + ' s ago';
		if (s < 3600) return Math.floor(s / 60) + ' min ago';
		if (s < 86400) return Math.floor(s / 3600) + ' h ago';
		if (s < 86400 * 30) return Math.floor(s / 86400) + ' d ago';
		return d.toISOString().slice(0, 10);
	}

	function duration(a, b) {
		if (!a) return null;
		var ms = (b ? new Date(b) : new Date()) - new Date(a);
		if (isNaN(ms) || ms < 0) return null;
		if (ms < 1000) return '< 1 s'; /* timestamps have whole seconds */
		if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
		return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
	}

	function fmtInt(n) { return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'); }

	function tail(s, n) { return s.length > n ? '…' + s.slice(s.length - n + 1) : s; }

	function shortFlag(n) { return n.replace(/^JSON_/, ''); }

	function flagsText(value, names) {
		if (!names) names = typeof value === 'number' ? flagNames(value) : null;
		if (Array.isArray(value)) names = value;
		if (names && names.length) return names.map(shortFlag).join(' | ');
		if (typeof value === 'string') return value;
		return value ? String(value) : '0';
	}

	function badge(kind, value, extra) {
		var a = { class: 'badge ' + kind + '-' + String(value).replace(/[^a-z0-9_]/gi, '') };
		for (var k in extra || {}) a[k] = extra[k];
		return h('span', a, value);
	}

	function verdictBadge(v, testid) {
		return badge('verdict', v || 'unknown', { 'data-testid': testid || 'verdict', 'data-verdict': v || '' });
	}

	function differsList(list) {
		if (!list || !list.length) return null;
		return h('span', { class: 'differs', 'data-testid': 'differs' },
			list.map(function (f) { return h('span', { class: 'field-tag' }, f); }));
	}

	var SIGNALS = { 1: 'SIGHUP', 2: 'SIGINT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE',
		9: 'SIGKILL', 11: 'SIGSEGV', 13: 'SIGPIPE', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ', 31: 'SIGSYS' };

	var JSON_ERRORS = ['JSON_ERROR_NONE', 'JSON_ERROR_DEPTH', 'JSON_ERROR_STATE_MISMATCH', 'JSON_ERROR_CTRL_CHAR',
		'JSON_ERROR_SYNTAX', 'JSON_ERROR_UTF8', 'JSON_ERROR_RECURSION', 'JSON_ERROR_INF_OR_NAN',
		'JSON_ERROR_UNSUPPORTED_TYPE', 'JSON_ERROR_INVALID_PROPERTY_NAME', 'JSON_ERROR_UTF16'];

	/* ---------------------------------------------------------------- bytes */

	function b64bytes(s) {
		if (s === null || s === undefined) return null;
		var bin = atob(s), out = new Uint8Array(bin.length);
		for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
		return out;
	}

	/* Bytes of a result field: the base64 form is exact; fall back to the display string. */
	function fieldBytes(r, name) {
		var b = r[name + '_base64'];
		if (typeof b === 'string') return b64bytes(b);
		var s = r[name];
		if (typeof s === 'string') return new TextEncoder().encode(s);
		return null;
	}

	var C0 = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'TAB', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
		'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];
	var C_ESC = { 9: '\\t', 13: '\\r' };
	var UNI_NAMES = { 0xA0: 'NO-BREAK SPACE', 0xAD: 'SOFT HYPHEN', 0x34F: 'COMBINING GRAPHEME JOINER',
		0x61C: 'ARABIC LETTER MARK', 0x200B: 'ZERO WIDTH SPACE', 0x200C: 'ZERO WIDTH NON-JOINER',
		0x200D: 'ZERO WIDTH JOINER', 0x200E: 'LEFT-TO-RIGHT MARK', 0x200F: 'RIGHT-TO-LEFT MARK',
		0x2028: 'LINE SEPARATOR', 0x2029: 'PARAGRAPH SEPARATOR', 0x2060: 'WORD JOINER',
		0xFEFF: 'ZERO WIDTH NO-BREAK SPACE (BOM)', 0xFFFD: 'REPLACEMENT CHARACTER' };

	/* Code points that would be invisible, ambiguous or layout-changing as text. */
	function invisibleCp(cp) {
		return (cp >= 0x80 && cp <= 0x9F) || cp === 0xA0 || cp === 0xAD || cp === 0x34F || cp === 0x61C ||
			cp === 0x115F || cp === 0x1160 || cp === 0x180E || (cp >= 0x2000 && cp <= 0x200F) ||
			(cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp === 0x3000 ||
			cp === 0x3164 || cp === 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFD);
	}

	function hex2(n) { return (n < 16 ? '0' : '') + n.toString(16); }
	function cpLabel(cp) { var s = cp.toString(16).toUpperCase(); while (s.length < 4) s = '0' + s; return 'U+' + s; }

	/* Strict UTF-8 (no overlongs, surrogates or > U+10FFFF): [codepoint, length] or null. */
	function decodeAt(b, i, end) {
		var c = b[i], n, cp, min;
		if (c < 0x80) return [c, 1];
		if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; min = 0x80; }
		else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; min = 0x800; }
		else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; min = 0x10000; }
		else return null;
		if (i + n >= end) return null; /* truncated sequence */
		for (var k = 1; k <= n; k++) {
			var d = b[i + k];
			if ((d & 0xC0) !== 0x80) return null;
			cp = (cp << 6) | (d & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return null;
		return [cp, n + 1];
	}

	var RENDER_LIMIT = 128 * 1024;

	/*
	 * Render bytes [from, to) exactly: printable ASCII and valid UTF-8 as text,
	 * newlines as newlines (marked), control bytes, DEL, invisible code points
	 * and invalid UTF-8 bytes as chips.  Bytes inside one of diff.ranges are
	 * wrapped in <mark>; an empty range marks where the other side has bytes.
	 */
	function renderBytes(b, from, to, diff) {
		var root = document.createDocumentFragment(), seg = null, buf = '';
		var marks = diffMarks(diff, from, to);
		function flush() { if (buf) { seg.el.append(buf); buf = ''; } }
		function segFor(d) {
			if (seg && seg.d === d) return;
			if (seg) flush();
			seg = { d: d, el: d ? h('mark', { class: 'diff' }) : h('span') };
			root.append(seg.el);
		}
		function node(n, d) { segFor(d); flush(); seg.el.append(n); }
		function insMark() { if (seg) flush(); seg = null; root.append(h('mark', { class: 'diff ins', title: 'the other side has bytes here' })); }
		var i = from;
		while (i < to) {
			if (marks.ins[i]) insMark();
			var c = b[i], dec = decodeAt(b, i, to), len = dec ? dec[1] : 1;
			var d = false;
			for (var k = 0; k < len && !d; k++) d = marks.bytes[i + k - from] === 1;
			if (dec && c >= 0x20 && c < 0x7F) { segFor(d); buf += String.fromCharCode(c); }
			else if (c === 0x0A) node(h('span', { class: 'nl', title: 'byte 0x0a (LF)' }, '\n'), d);
			else if (c < 0x20 || c === 0x7F)
				node(h('span', { class: 'chip ctl', title: 'control byte 0x' + hex2(c) + ' (' + (c === 0x7F ? 'DEL' : C0[c]) + ')' },
					C_ESC[c] || '\\x' + hex2(c)), d);
			else if (!dec)
				node(h('span', { class: 'chip bad', title: 'invalid UTF-8 byte 0x' + hex2(c) }, '\\x' + hex2(c)), d);
			else if (invisibleCp(dec[0]))
				node(h('span', { class: 'chip uni', title: cpLabel(dec[0]) + (UNI_NAMES[dec[0]] ? ' ' + UNI_NAMES[dec[0]] : '') }, cpLabel(dec[0])), d);
			else { segFor(d); buf += String.fromCodePoint(dec[0]); }
			i += len;
		}
		if (marks.ins[to]) insMark();
		if (seg) flush();
		return root;
	}

	/* Which bytes of [from, to) are highlighted (bytes[i - from]) and where insertions are (ins[i]). */
	function diffMarks(diff, from, to) {
		var bytes = new Uint8Array(Math.max(0, to - from)), ins = {};
		(diff ? diff.ranges : []).forEach(function (r) {
			if (r.start === r.end) { if (r.start >= from && r.start <= to) ins[r.start] = true; return; }
			for (var i = Math.max(r.start, from); i < Math.min(r.end, to); i++) bytes[i - from] = 1;
		});
		return { bytes: bytes, ins: ins };
	}

	function sameBytes(a, b) {
		if (a.length !== b.length) return false;
		for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
		return true;
	}

	/* Bytes beyond which the middle of two outputs is highlighted whole instead of diffed. */
	var DIFF_LIMIT = 16384;

	/*
	 * Tokens of [from, to) for diffing: a backslash escape (\uXXXX or \c), a
	 * whole UTF-8 character, or one byte.  Diffing whole tokens keeps a
	 * highlight from splitting "\u00e9" into "\u00" and "9" around a shared
	 * "e".  Returns { keys: [string], starts: [byte offset], end }.
	 */
	function byteTokens(b, from, to) {
		var keys = [], starts = [], i = from, len, k;
		while (i < to) {
			len = 1;
			if (b[i] === 0x5C && i + 1 < to) {
				len = 2;
				if (b[i + 1] === 0x75) for (k = 0; k < 4 && i + 2 + k < to && /[0-9a-fA-F]/.test(String.fromCharCode(b[i + 2 + k])); k++) len++;
			} else if (b[i] >= 0x80) {
				var dec = decodeAt(b, i, to);
				if (dec) len = dec[1];
			}
			starts.push(i);
			keys.push(String.fromCharCode.apply(null, b.subarray(i, i + len)));
			i += len;
		}
		return { keys: keys, starts: starts, end: to };
	}

	/*
	 * The byte-level difference of two byte strings, or null when they are
	 * equal: { a: {ranges, first}, b: {ranges, first}, engine }.  The common
	 * prefix and suffix are cut off first (backed up to a token start);
	 * jsdiff (the `diff` package, served as /vendor/diff.js) finds the edits
	 * between the tokens of what remains, so each changed run is its own
	 * highlight ("\/" -> "/" three times is three marks, not one long one).
	 * Without jsdiff, or past DIFF_LIMIT, the whole middle is one highlight.
	 */
	function byteDiff(a, b) {
		var n = Math.min(a.length, b.length), p = 0, s = 0;
		while (p < n && a[p] === b[p]) p++;
		if (p === a.length && p === b.length) return null;
		while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
		/* Whole tokens at both ends: back up to the start of a character or of an escape
		 * begun in the prefix; go on to the end of one cut by the suffix (on both sides). */
		for (var k0 = 0; k0 < 3 && p > 0 && ((p < a.length && (a[p] & 0xC0) === 0x80) || (p < b.length && (b[p] & 0xC0) === 0x80)); k0++) p--;
		for (var q = p; q > 0 && p - q < 6; q--) {
			if (a[q - 1] !== 0x5C) continue;
			var bs = 0;
			while (q - 2 - bs >= 0 && a[q - 2 - bs] === 0x5C) bs++;
			if (bs % 2) continue;
			if (q - 1 + (a[q] === 0x75 ? 6 : 2) > p) p = q - 1;
			break;
		}
		var ea = a.length - s, eb = b.length - s;
		function tokenEnd(x, from, at) {
			if (at - from > DIFF_LIMIT) return at;
			var t = byteTokens(x, from, Math.min(x.length, at + 6));
			for (var i = 0; i < t.starts.length; i++) if (t.starts[i] >= at) return t.starts[i];
			return t.end;
		}
		var grow = Math.max(tokenEnd(a, p, ea) - ea, tokenEnd(b, p, eb) - eb);
		grow = Math.min(grow, s);
		ea += grow;
		eb += grow;
		var A = { ranges: [], first: p }, B = { ranges: [], first: p }, engine = 'prefix-suffix';
		var parts = null, ta = null, tb = null;
		if (window.Diff && window.Diff.diffArrays && ea - p <= DIFF_LIMIT && eb - p <= DIFF_LIMIT) {
			ta = byteTokens(a, p, ea);
			tb = byteTokens(b, p, eb);
			try {
				parts = window.Diff.diffArrays(ta.keys, tb.keys, { timeout: 300 });
			} catch (e) { parts = null; }
		}
		if (parts) {
			engine = 'jsdiff';
			/* Token index -> byte offset (the end offset past the last token). */
			var offA = function (i) { return i < ta.starts.length ? ta.starts[i] : ta.end; };
			var offB = function (i) { return i < tb.starts.length ? tb.starts[i] : tb.end; };
			var ia = 0, ib = 0;
			for (var k = 0; k < parts.length; k++) {
				var part = parts[k], cnt = part.count !== undefined ? part.count : part.value.length;
				var nextPart = parts[k + 1], nc = nextPart ? (nextPart.count !== undefined ? nextPart.count : nextPart.value.length) : 0;
				if (part.removed && nextPart && nextPart.added) {
					A.ranges.push({ start: offA(ia), end: offA(ia + cnt) }); B.ranges.push({ start: offB(ib), end: offB(ib + nc) });
					ia += cnt; ib += nc; k++;
				} else if (part.added && nextPart && nextPart.removed) {
					B.ranges.push({ start: offB(ib), end: offB(ib + cnt) }); A.ranges.push({ start: offA(ia), end: offA(ia + nc) });
					ib += cnt; ia += nc; k++;
				} else if (part.removed) {
					A.ranges.push({ start: offA(ia), end: offA(ia + cnt) }); B.ranges.push({ start: offB(ib), end: offB(ib) });
					ia += cnt;
				} else if (part.added) {
					B.ranges.push({ start: offB(ib), end: offB(ib + cnt) }); A.ranges.push({ start: offA(ia), end: offA(ia) });
					ib += cnt;
				} else { ia += cnt; ib += cnt; }
			}
			if (!A.ranges.length && !B.ranges.length) engine = 'prefix-suffix';
		}
		if (!parts || (!A.ranges.length && !B.ranges.length)) {
			A.ranges.push({ start: p, end: ea });
			B.ranges.push({ start: p, end: eb });
		}
		return { a: A, b: B, engine: engine };
	}

	/* Back up to the start of a UTF-8 sequence so a window never splits one. */
	function charStart(b, i) {
		var k = 0;
		while (i > 0 && k < 3 && (b[i] & 0xC0) === 0x80) { i--; k++; }
		return i;
	}

	/* A byte view with an exact/hex toggle, windowed for large outputs. */
	function bytesView(b, diff, testid) {
		var wrap = h('div', { class: 'bytes-wrap' });
		var mode = 'text', showAll = b.length <= RENDER_LIMIT;
		var body = h('pre', { class: 'bytes', 'data-testid': testid, tabindex: '0' });
		var note = h('div', { class: 'bytes-note' });
		function render() {
			var from = 0, to = b.length;
			if (!showAll) {
				if (diff && diff.first > RENDER_LIMIT / 2) from = charStart(b, diff.first - 1024);
				to = Math.min(b.length, from + RENDER_LIMIT);
				if (to < b.length) to = charStart(b, to);
			}
			clear(body);
			body.classList.toggle('hex', mode === 'hex');
			if (from > 0) body.append(h('span', { class: 'elided' }, '… ' + fmtInt(from) + ' bytes before …\n'));
			body.append(mode === 'hex' ? renderHex(b, from, to, diff) : renderBytes(b, from, to, diff));
			if (to < b.length) body.append(h('span', { class: 'elided' }, '\n… ' + fmtInt(b.length - to) + ' bytes after …'));
			replace(note, (from > 0 || to < b.length) ? [
				'Showing bytes ' + fmtInt(from) + '–' + fmtInt(to) + ' of ' + fmtInt(b.length) + '. ',
				h('button', { type: 'button', class: 'link', onclick: function () { showAll = true; render(); } }, 'Show all')
			] : null);
		}
		var toggle = h('button', { type: 'button', class: 'small', 'aria-pressed': 'false',
			title: 'Show the bytes as a hex dump', onclick: function () {
				mode = mode === 'hex' ? 'text' : 'hex';
				toggle.setAttribute('aria-pressed', mode === 'hex' ? 'true' : 'false');
				render();
			} }, 'hex');
		render();
		wrap.append(body, note);
		wrap.toggle = toggle;
		return wrap;
	}

	function renderHex(b, from, to, diff) {
		var root = document.createDocumentFragment();
		from -= from % 16;
		var marks = diffMarks(diff, from, to);
		for (var row = from; row < to; row += 16) {
			var line = h('span', { class: 'hexrow' });
			var off = row.toString(16);
			while (off.length < 8) off = '0' + off;
			line.append(h('span', { class: 'off' }, off), '  ');
			var ascii = '';
			for (var k = 0; k < 16; k++) {
				var i = row + k;
				if (i >= to) { line.append('   '); continue; }
				var x = hex2(b[i]), isd = marks.bytes[i - from] === 1;
				line.append(isd ? h('mark', { class: 'diff' }, x) : x, k === 7 ? '  ' : ' ');
				ascii += b[i] >= 0x20 && b[i] < 0x7F ? String.fromCharCode(b[i]) : '.';
			}
			line.append(' ', h('span', { class: 'ascii' }, ascii), '\n');
			root.append(line);
		}
		return root;
	}

	/* ---------------------------------------------------------------- router */

	var routes = [
		{ re: /^\/?$/, name: 'overview', view: overviewView },
		{ re: /^\/new$/, name: 'new', view: submitView },
		{ re: /^\/cases\/(\d+)$/, name: 'case', view: caseView },
		{ re: /^\/runs\/(\d+)$/, name: 'run', view: runView },
		{ re: /^\/runs\/(\d+)\/counts$/, name: 'counts', view: instructionsView },
		{ re: /^\/buckets$/, name: 'buckets', view: bucketsView },
		{ re: /^\/buckets\/(\d+)$/, name: 'bucket', view: bucketView },
		{ re: /^\/workloads$/, name: 'workload', view: workloadView }
	];

	function parseHash() {
		var raw = location.hash.replace(/^#/, '');
		var q = raw.indexOf('?');
		var path = q < 0 ? raw : raw.slice(0, q);
		var query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
		return { path: path || '/', query: query };
	}

	function hashFor(path, query) {
		var qs = query ? query.toString() : '';
		return '#' + path + (qs ? '?' + qs : '');
	}

	/* A view's lifetime: aborted (fetches, timers) when the route changes. */
	function Ctx() {
		this.ctrl = new AbortController();
		this.signal = this.ctrl.signal;
		this.alive = true;
		this.timers = [];
	}
	Ctx.prototype.close = function () {
		this.alive = false;
		this.ctrl.abort();
		this.timers.forEach(clearTimeout);
	};
	Ctx.prototype.api = function (path, opts) {
		opts = opts || {};
		opts.signal = this.signal;
		return api(path, opts);
	};
	/* Call fn every ms until it resolves to false; never two calls at once. */
	Ctx.prototype.poll = function (ms, fn) {
		var self = this;
		function tick() {
			if (!self.alive) return;
			Promise.resolve().then(fn).then(function (again) { return again; }, function (e) { return !isAbort(e); })
				.then(function (again) { if (again !== false && self.alive) self.timers.push(setTimeout(tick, ms)); });
		}
		self.timers.push(setTimeout(tick, ms));
	};

	var main = document.getElementById('main');
	var current = null; /* { route, path, ctx, handle } */

	function route() {
		var loc = parseHash(), m = null, r = null;
		for (var i = 0; i < routes.length && !m; i++) { m = routes[i].re.exec(loc.path); r = routes[i]; }
		if (!m) r = null;
		/* Same page, only the query changed: let the view refilter in place. */
		if (current && r && current.path === loc.path && current.handle && current.handle.onQuery) {
			current.handle.onQuery(loc.query);
			return;
		}
		if (current) current.ctx.close();
		var ctx = new Ctx();
		current = { route: r, path: loc.path, ctx: ctx, handle: null };
		clear(main);
		document.querySelectorAll('[data-nav]').forEach(function (a) {
			if (r && a.getAttribute('data-nav') === r.name) a.setAttribute('aria-current', 'page');
			else a.removeAttribute('aria-current');
		});
		if (!r) {
			setTitle('Not found');
			main.append(h('h1', null, 'Not found'),
				h('p', null, 'Nothing lives at ', h('code', null, '#' + loc.path), '. ', h('a', { href: '#/' }, 'Back to the overview'), '.'));
			return;
		}
		current.handle = r.view(ctx, m.slice(1), loc.query) || null;
	}

	function setTitle(t) { document.title = t ? t + ' · phpcmp' : 'phpcmp'; }

	function navigate(hash) {
		if (location.hash === hash) route();
		else location.hash = hash;
	}

	window.addEventListener('hashchange', function () {
		var before = current && current.path;
		route();
		if (current && current.path !== before) {
			window.scrollTo(0, 0);
			main.focus({ preventScroll: true });
		}
	});

	/* --------------------------------------------------------- header status */

	var daemonStatus = document.getElementById('daemon-status');
	function refreshHealth() {
		return api('/api/health').then(function (d) {
			health = d;
			var builds = d.builds || [];
			var ready = builds.filter(function (b) { return b.worker && (b.worker.state === 'ready' || b.worker.state === 'busy'); }).length;
			replace(daemonStatus, [
				h('span', { class: 'dot ' + (ready === builds.length ? 'ok' : 'warn'), 'aria-hidden': 'true' }),
				'daemon ' + (d.version || '') + ' · ' + ready + '/' + builds.length + ' workers up'
			]);
			return d;
		}, function (e) {
			replace(daemonStatus, [h('span', { class: 'dot bad', 'aria-hidden': 'true' }), 'daemon unreachable']);
			throw e;
		});
	}

	/* ------------------------------------------------------------ components */

	/* Segmented filter links that edit one query parameter of the current hash. */
	function filterBar(label, param, options, path, query, counts) {
		var cur = query.get(param) || '';
		return h('div', { class: 'filter', role: 'group', 'aria-label': label },
			h('span', { class: 'filter-label' }, label + ':'),
			options.map(function (o) {
				var q = new URLSearchParams(query);
				if (o) q.set(param, o); else q.delete(param);
				var n = counts && o ? counts[o] : null;
				return h('a', { href: hashFor(path, q), class: 'seg' + (o ? ' seg-' + o : ''),
					'aria-current': cur === o ? 'true' : null, 'data-testid': 'filter-' + param + '-' + (o || 'all') },
					o || 'all', n !== null && n !== undefined ? h('span', { class: 'count' }, ' ' + fmtInt(n)) : null);
			}));
	}

	/*
	 * A paginated table of cases (GET /api/cases or /api/runs/ID/cases).
	 * reload(url) fetches the first page again; "Load more" follows `next`.
	 */
	function caseTable(ctx, emptyText) {
		var tbody = h('tbody');
		var table = h('table', { class: 'list cases', 'data-testid': 'case-list' },
			h('thead', null, h('tr', null,
				h('th', { scope: 'col', class: 'num' }, '#'),
				h('th', { scope: 'col' }, 'Title'),
				h('th', { scope: 'col' }, 'Verdict'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Flags'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Source'),
				h('th', { scope: 'col' }, 'Created'))),
			tbody);
		var status = h('div', { class: 'list-status', 'aria-live': 'polite' });
		var more = h('div', { class: 'more' });
		var el = h('div', { class: 'case-table' }, h('div', { class: 'scroll-x' }, table), status, more);
		var gen = 0, shown = 0;

		function row(c) {
			/* source is "stored"/"submitted"; file the stored case's path (older
			 * daemons put the path in source). */
			var file = c.file || (c.source && c.source !== 'stored' && c.source !== 'submitted' ? c.source : null);
			var src = file ? file.replace(/^cases\//, '') : (c.source || 'submitted');
			return h('tr', { 'data-testid': 'case-row', 'data-case-id': c.id, 'data-verdict': c.verdict || '' },
				h('td', { class: 'num' }, h('a', { href: '#/cases/' + c.id }, c.id)),
				h('td', { class: 'title' }, h('a', { href: '#/cases/' + c.id }, c.title || 'untitled')),
				h('td', { class: 'verdict-cell' }, verdictBadge(c.verdict), ' ', differsList(c.differs)),
				h('td', { class: 'mono hide-narrow flags', title: flagsText(c.flags, c.flag_names) }, flagsText(c.flags, c.flag_names)),
				h('td', { class: 'hide-narrow src' + (file ? ' mono' : ''), title: file || '' }, file ? tail(src, 40) : src),
				h('td', { class: 'nowrap' }, timeEl(c.created_at)));
		}

		function load(url, first) {
			var my = first ? ++gen : gen;
			if (first) { replace(status, loading('cases')); clear(more); }
			else replace(more, loading('more'));
			return ctx.api(url).then(function (d) {
				if (my !== gen) return;
				if (first) { clear(tbody); shown = 0; }
				var list = d.cases || [];
				list.forEach(function (c) { tbody.append(row(c)); });
				shown += list.length;
				table.hidden = shown === 0;
				replace(status, shown === 0 ? h('p', { class: 'empty', 'data-testid': 'empty' }, emptyText) : null);
				replace(more, d.next ? h('button', { type: 'button', 'data-testid': 'load-more',
					onclick: function () { load(d.next, false); } }, 'Load more') : null);
			}, function (e) {
				if (isAbort(e) || my !== gen) return;
				var target = first ? status : more;
				replace(target, errorBox(e, function () { load(url, first); }));
			});
		}

		return { el: el, reload: function (url) { return load(url, true); }, pages: function () { return shown; } };
	}

	function progressBar(done, total, status) {
		var pct = total ? Math.min(100, Math.floor(100 * done / total)) : (status === 'done' ? 100 : 0);
		return h('div', { class: 'progress-wrap' },
			h('progress', { max: total || 1, value: total ? done : (status === 'done' ? 1 : 0), 'data-testid': 'run-progress',
				'aria-label': 'Progress: ' + fmtInt(done) + ' of ' + fmtInt(total) + ' cases', 'data-done': done, 'data-total': total }),
			h('span', { class: 'progress-text' }, fmtInt(done) + ' / ' + fmtInt(total) + (total ? ' (' + pct + '%)' : '')));
	}

	function countsView(counts, linkFor) {
		var keys = Object.keys(counts || {});
		if (!keys.length) return h('span', { class: 'dim' }, '—');
		keys.sort(function (a, b) { return a === 'same' ? 1 : b === 'same' ? -1 : a < b ? -1 : 1; });
		return h('span', { class: 'counts', 'data-testid': 'run-counts' }, keys.map(function (k) {
			var n = counts[k], inner = [h('span', { class: 'badge verdict-' + k + (n ? '' : ' zero') }, k), ' ', fmtInt(n)];
			return h('span', { class: 'count-item', 'data-verdict': k, 'data-count': n },
				linkFor ? h('a', { href: linkFor(k) }, inner) : inner);
		}));
	}

	/* "base 8.2.32 · head 8.2.36", naming builds whose name is not their role. */
	function buildsText(builds, names) {
		if (!builds) return '—';
		return Object.keys(builds).map(function (k) {
			var n = names && names[k] && names[k] !== k ? ' (' + names[k] + ')' : '';
			return k + n + ' ' + builds[k];
		}).join(' · ');
	}

	function isActive(status) { return status === 'running' || status === 'queued'; }

	/* Put text on the clipboard; falls back to a hidden textarea off secure contexts. */
	function copyText(text) {
		if (navigator.clipboard && window.isSecureContext)
			return navigator.clipboard.writeText(text);
		return new Promise(function (resolve, reject) {
			var ta = h('textarea', { class: 'offscreen', 'aria-hidden': 'true' });
			ta.value = text;
			document.body.append(ta);
			ta.select();
			var ok = false;
			try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
			ta.remove();
			if (ok) resolve(); else reject(new Error('copy refused by the browser'));
		});
	}

	/* getText may return a promise (text fetched from the daemon). */
	function copyButton(label, getText, testid) {
		var btn = h('button', { type: 'button', 'data-testid': testid }, label);
		var msg = h('span', { class: 'copy-msg', role: 'status', 'data-testid': testid + '-msg' });
		btn.addEventListener('click', function () {
			Promise.resolve().then(getText).then(copyText).then(function () { msg.textContent = 'Copied.'; },
				function (e) { msg.textContent = 'Could not copy (' + e.message + '); select the text below.'; });
			setTimeout(function () { msg.textContent = ''; }, 2500);
		});
		return h('span', { class: 'copy' }, btn, msg);
	}

	function shellQuote(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }

	/* The POST /api/cases body that reproduces a stored case exactly (same
	 * content, so the daemon files the new comparison under the same id). */
	function caseBody(c) {
		var body = { title: c.title, code: c.code };
		if (c.setup) body.setup = c.setup;
		body.flags = c.flags || 0;
		body.depth = c.depth !== undefined && c.depth !== null ? c.depth : 512;
		if (c.expect !== undefined && c.expect !== null) body.expect = c.expect;
		if (c.measure) body.measure = c.measure;
		return body;
	}

	function curlFor(c) {
		var body = caseBody(c);
		if (body.flags === 0) delete body.flags;
		else if (c.flag_names && c.flag_names.length) body.flags = c.flag_names.join('|');
		if (body.depth === 512) delete body.depth;
		return 'curl -sS --fail-with-body -H \'Content-Type: application/json\' \\\n  --data-binary ' +
			shellQuote(JSON.stringify(body)) + ' \\\n  ' + shellQuote(location.origin + '/api/cases?fail_on_differ=1');
	}

	/* -------------------------------------------------------------- overview */

	function overviewView(ctx, params, query) {
		setTitle('Overview');
		var buildsBox = h('div', null, loading('builds'));
		var runsBox = h('div', null, loading('runs'));
		var startMsg = h('div', { 'aria-live': 'polite' });
		var startBtn = h('button', { type: 'button', class: 'primary', 'data-testid': 'start-run' }, 'Run stored suite');
		startBtn.addEventListener('click', function () {
			startBtn.disabled = true;
			replace(startMsg, h('p', { class: 'loading' }, 'Starting…'));
			ctx.api('/api/runs', { method: 'POST', body: { suite: 'stored' } }).then(function (run) {
				navigate('#/runs/' + run.id);
			}, function (e) {
				if (isAbort(e)) return;
				startBtn.disabled = false;
				replace(startMsg, errorBox(e));
			});
		});
		var measureBtn = h('button', { type: 'button', 'data-testid': 'start-measure',
			title: 'The 11 workloads under callgrind on both builds (about half a minute)' }, 'Measure workloads');
		measureBtn.addEventListener('click', function () {
			measureBtn.disabled = true;
			ctx.api('/api/runs', { method: 'POST', body: { suite: 'measure' } }).then(function (run) {
				navigate('#/runs/' + run.id);
			}, function (e) {
				if (isAbort(e)) return;
				measureBtn.disabled = false;
				replace(startMsg, errorBox(e));
			});
		});
		var filters = h('div', { class: 'filters' });
		var cases = caseTable(ctx, 'No cases match. Submit one, or run the stored suite.');
		var bucketsBox = bucketTable(ctx, { empty: 'No open buckets: every mismatch found so far is triaged (or there are none).' });
		var measureBox = h('div', { 'data-testid': 'latest-measurement' }, loading('the latest measurement'));

		main.append(
			h('h1', { class: 'visually-hidden' }, 'Overview'),
			h('section', { class: 'panel', 'aria-labelledby': 'h-builds' },
				h('h2', { id: 'h-builds' }, 'Builds'), buildsBox),
			h('section', { class: 'panel', 'aria-labelledby': 'h-runs' },
				h('div', { class: 'panel-head' }, h('h2', { id: 'h-runs' }, 'Recent runs'), h('span', { class: 'buttons' }, measureBtn, startBtn)),
				startMsg, runsBox),
			h('div', { class: 'two-col wide-first' },
				h('section', { class: 'panel', 'aria-labelledby': 'h-open' },
					h('div', { class: 'panel-head' }, h('h2', { id: 'h-open' }, 'Open mismatch buckets'),
						h('a', { href: '#/buckets?state=open', class: 'button', 'data-testid': 'all-buckets' }, 'Triage')),
					bucketsBox.el),
				h('section', { class: 'panel', 'aria-labelledby': 'h-measure' },
					h('h2', { id: 'h-measure' }, 'Instruction counts'), measureBox)),
			h('section', { class: 'panel', 'aria-labelledby': 'h-cases' },
				h('div', { class: 'panel-head' }, h('h2', { id: 'h-cases' }, 'Recent cases'),
					h('a', { href: '#/new', class: 'button' }, 'Submit a case')),
				filters, cases.el));

		refreshHealth().then(function (d) {
			if (!ctx.alive) return;
			replace(buildsBox, buildsTable(d));
		}, function (e) { if (ctx.alive) replace(buildsBox, errorBox(e)); });

		function loadRuns() {
			return ctx.api('/api/runs?limit=10').then(function (d) {
				var runs = d.runs || [];
				replace(runsBox, runs.length ? runsTable(runs) :
					h('p', { class: 'empty', 'data-testid': 'empty' }, 'No runs yet. “Run stored suite” runs every case under cases/ on both builds.'));
				return runs.some(function (r) { return isActive(r.status); });
			}, function (e) {
				if (!isAbort(e)) replace(runsBox, errorBox(e, loadRuns));
				return false;
			});
		}
		loadRuns().then(function (active) {
			if (active) ctx.poll(1000, function () { return loadRuns(); });
		});
		bucketsBox.reload('/api/buckets?state=open&limit=10');
		latestMeasurement(ctx, measureBox);

		function applyQuery(q) {
			replace(filters, [
				filterBar('Verdict', 'verdict', ['', 'differ', 'same'], '/', q),
				filterBar('Source', 'source', ['', 'stored', 'submitted'], '/', q)
			]);
			var api = new URLSearchParams();
			if (q.get('verdict')) api.set('verdict', q.get('verdict'));
			if (q.get('source')) api.set('source', q.get('source'));
			api.set('limit', '50');
			cases.reload('/api/cases?' + api.toString());
		}
		getFlags().catch(function () {}).then(function () { if (ctx.alive) applyQuery(query); });
		return { onQuery: applyQuery };
	}

	function buildsTable(d) {
		var builds = d.builds || [];
		if (!builds.length) return h('p', { class: 'empty' }, 'The daemon reports no builds.');
		return h('div', null,
			h('div', { class: 'scroll-x' }, h('table', { class: 'list builds', 'data-testid': 'builds' },
				h('thead', null, h('tr', null,
					h('th', { scope: 'col' }, 'Build'), h('th', { scope: 'col' }, 'PHP'),
					h('th', { scope: 'col' }, 'sha256'), h('th', { scope: 'col' }, 'Worker'),
					h('th', { scope: 'col', class: 'num hide-narrow' }, 'Cases run'),
					h('th', { scope: 'col', class: 'num hide-narrow' }, 'Restarts'),
					h('th', { scope: 'col', class: 'hide-narrow' }, 'Library'))),
				h('tbody', null, builds.map(function (b) {
					var w = b.worker || {};
					return h('tr', { 'data-testid': 'build-row', 'data-build': b.name },
						h('th', { scope: 'row' }, b.name),
						h('td', { class: 'mono' }, b.php_version || '—'),
						h('td', { class: 'mono', title: b.sha256 || '' }, b.sha256 ? b.sha256.slice(0, 12) : '—'),
						h('td', null, badge('worker', w.state || 'unknown', { 'data-testid': 'worker-state' }),
							w.pid ? h('span', { class: 'dim pid' }, ' pid ' + w.pid) : null,
							w.last_failure ? h('div', { class: 'failure small-text' }, 'last failure: ' + w.last_failure) : null),
						h('td', { class: 'num hide-narrow' }, fmtInt(w.cases_run)),
						h('td', { class: 'num hide-narrow' }, fmtInt(w.restarts)),
						h('td', { class: 'mono hide-narrow path', title: b.library || '' }, tail(b.library || b.prefix || '—', 48)));
				})))),
			h('p', { class: 'meta' }, 'Daemon ' + (d.version || '?') + ' · database ', h('code', null, d.db || '?'),
				d.uptime_s !== undefined ? ' · up ' + duration(new Date(Date.now() - d.uptime_s * 1000).toISOString()) : ''));
	}

	function runsTable(runs) {
		return h('div', { class: 'scroll-x' }, h('table', { class: 'list runs', 'data-testid': 'run-list' },
			h('thead', null, h('tr', null,
				h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Suite'),
				h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Progress'),
				h('th', { scope: 'col' }, 'Verdicts'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Builds'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Started'))),
			h('tbody', null, runs.map(function (r) {
				return h('tr', { 'data-testid': 'run-row', 'data-run-id': r.id, 'data-status': r.status },
					h('td', { class: 'num' }, h('a', { href: '#/runs/' + r.id }, r.id)),
					h('td', { class: 'hide-narrow' }, h('a', { href: '#/runs/' + r.id }, r.suite || 'run')),
					h('td', null, badge('run', r.status || 'unknown', { 'data-testid': 'run-status' }),
						r.error ? h('div', { class: 'failure small-text' }, r.error) : null),
					h('td', { class: 'progress-cell' }, progressBar(r.done || 0, r.total || 0, r.status)),
					h('td', null, countsView(r.counts, function (k) { return '#/runs/' + r.id + '?verdict=' + encodeURIComponent(k); })),
					h('td', { class: 'mono hide-narrow small-text' }, buildsText(r.builds, r.build_names)),
					h('td', { class: 'nowrap hide-narrow' }, timeEl(r.started_at || r.created_at)));
			}))));
	}

	/* ---------------------------------------------------------------- submit */

	function submitView(ctx, params, query) {
		setTitle('Submit a case');
		var flagsBox = h('div', { class: 'flag-grid' }, loading('flags'));
		var flagsValue = h('output', { class: 'mono', 'aria-live': 'polite' }, '0');
		var title = h('input', { id: 'f-title', name: 'title', type: 'text', maxlength: '512', placeholder: 'submitted case', autocomplete: 'off' });
		var code = h('textarea', { id: 'f-code', name: 'code', rows: '6', required: true, spellcheck: 'false',
			class: 'code-input', placeholder: "['a' => \"\\u{2028}\", 'b' => \"\\xff\"]", 'data-testid': 'code-input' });
		var setup = h('textarea', { id: 'f-setup', name: 'setup', rows: '3', spellcheck: 'false', class: 'code-input',
			placeholder: 'class A { public $x = 1; }' });
		var depth = h('input', { id: 'f-depth', name: 'depth', type: 'number', min: '1', max: '2147483647', value: '512', required: true });
		var submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'submit-case' }, 'Run on both builds');
		var msg = h('div', { 'aria-live': 'polite' });
		var form = h('form', { class: 'case-form', 'data-testid': 'case-form', novalidate: false },
			h('div', { class: 'field' }, h('label', { for: 'f-title' }, 'Title'), title),
			h('div', { class: 'field' }, h('label', { for: 'f-code' }, 'Code ',
				h('span', { class: 'hint' }, 'an expression, or statements ending in ', h('code', null, 'return …;'))), code),
			h('div', { class: 'field' }, h('label', { for: 'f-setup' }, 'Setup ',
				h('span', { class: 'hint' }, 'optional, runs first in the same request (classes, functions)')), setup),
			h('fieldset', { class: 'field' }, h('legend', null, 'Flags = ', flagsValue), flagsBox),
			h('div', { class: 'field inline' }, h('label', { for: 'f-depth' }, 'Depth'), depth),
			h('div', { class: 'actions' }, submit, h('span', { class: 'hint' }, 'Ctrl+Enter submits')),
			msg);

		function checked() {
			return Array.prototype.slice.call(flagsBox.querySelectorAll('input[type=checkbox]:checked'))
				.map(function (x) { return x.value; });
		}
		function updateFlags() {
			var v = 0;
			flagsBox.querySelectorAll('input[type=checkbox]:checked').forEach(function (x) { v |= Number(x.getAttribute('data-value')); });
			flagsValue.textContent = String(v);
		}
		flagsBox.addEventListener('change', updateFlags);

		form.addEventListener('keydown', function (e) {
			if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
		});
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			if (!code.value.trim()) { replace(msg, errorBox(new ApiError(0, 'bad_request', 'code is required'))); code.focus(); return; }
			var body = { code: code.value, flags: checked(), depth: Number(depth.value) };
			if (title.value.trim()) body.title = title.value.trim();
			if (setup.value) body.setup = setup.value;
			submit.disabled = true;
			replace(msg, h('p', { class: 'loading', 'aria-busy': 'true' }, 'Running on both builds…'));
			ctx.api('/api/cases', { method: 'POST', body: body }).then(function (d) {
				var id = d.id !== undefined ? d.id : d.case && d.case.id;
				navigate('#/cases/' + id);
			}, function (err) {
				if (isAbort(err)) return;
				submit.disabled = false;
				replace(msg, errorBox(err));
			});
		});

		main.append(h('h1', null, 'Submit a case'),
			h('p', { class: 'lead' }, 'Runs one ', h('code', null, 'json_encode()'), ' call on both builds now, stores it and shows the verdict.'),
			h('section', { class: 'panel' }, form));

		var prefill = query.get('from');
		Promise.all([
			getFlags(),
			prefill ? ctx.api('/api/cases/' + encodeURIComponent(prefill)) : null
		]).then(function (res) {
			var flags = res[0], from = res[1] && (res[1].case || res[1]);
			var on = {};
			if (from) {
				title.value = from.title || '';
				code.value = from.code || '';
				setup.value = from.setup || '';
				depth.value = from.depth || 512;
				(from.flag_names || flagNames(from.flags || 0) || []).forEach(function (n) { on[n] = true; });
			}
			replace(flagsBox, flags.map(function (f) {
				var id = 'flag-' + f.name;
				return h('label', { class: 'check', for: id, title: f.name + ' = ' + f.value },
					h('input', { type: 'checkbox', id: id, value: f.name, 'data-value': f.value, checked: !!on[f.name] }),
					' ', shortFlag(f.name), h('span', { class: 'dim' }, ' ' + f.value));
			}));
			updateFlags();
		}, function (e) {
			if (!isAbort(e)) replace(flagsBox, errorBox(e));
		});
		code.focus();
	}

	/* ------------------------------------------------------------------ case */

	var FIELD_ROWS = [
		{ key: 'status', label: 'Status', differs: ['status'] },
		{ key: 'output', label: 'Output', differs: ['output'] },
		{ key: 'error', label: 'json_last_error()', differs: ['error_code', 'error_msg'] },
		{ key: 'exception', label: 'Exception', differs: ['exception'] },
		{ key: 'printed', label: 'Printed', differs: ['printed'] },
		{ key: 'warnings', label: 'Warnings', differs: ['warnings'] },
		{ key: 'wall', label: 'Wall time', differs: [] },
		{ key: 'instructions', label: 'Instructions / call', differs: [] }
	];

	function caseView(ctx, params, query) {
		var id = params[0], cmp = query.get('comparison');
		setTitle('Case #' + id);
		main.append(loading('case #' + id));
		function load() {
			ctx.api('/api/cases/' + id + (cmp ? '?comparison=' + encodeURIComponent(cmp) : '')).then(function (d) {
				return getFlags().catch(function () {}).then(function () { return d; });
			}).then(function (d) {
				clear(main);
				renderCase(ctx, d, load);
				if (window.scrollY) window.scrollTo(0, 0);
			}, function (e) {
				if (isAbort(e)) return;
				replace(main, [h('h1', null, 'Case #' + id), errorBox(e, load),
					h('p', null, h('a', { href: '#/' }, 'Back to the overview'))]);
			});
		}
		if (!health) refreshHealth().catch(function () {});
		load();
	}

	function renderCase(ctx, d, reload) {
		var c = d.case || d;
		var id = c.id !== undefined ? c.id : d.id;
		var verdict = d.verdict, differs = d.differs || [];
		var results = d.results || {};
		var names = Object.keys(results).sort(function (a, b) {
			var o = { base: 0, head: 1 };
			return (a in o ? o[a] : 2) - (b in o ? o[b] : 2) || (a < b ? -1 : 1);
		});
		setTitle('Case #' + id + (c.title ? ' ' + c.title : ''));
		var flagList = c.flag_names || flagNames(c.flags || 0) || [];

		main.append(
			h('div', { class: 'case-head' },
				h('h1', null, h('span', { class: 'dim' }, 'Case #' + id + ' '), c.title || 'untitled'),
				h('div', { class: 'verdict-line' }, verdictBadge(verdict), ' ',
					differs.length ? ['differs in ', differsList(differs)] : (verdict === 'same' ? 'both builds agree' : null))),
			h('section', { class: 'panel case-spec', 'aria-labelledby': 'h-spec' },
				h('h2', { id: 'h-spec', class: 'visually-hidden' }, 'The case'),
				h('div', { class: 'spec-side' }, h('dl', { class: 'spec' },
					h('dt', null, 'Flags'),
					h('dd', { class: 'mono', 'data-testid': 'case-flags' },
						flagList.length ? flagList.join(' | ') : '0', h('span', { class: 'dim' }, ' (' + (c.flags || 0) + ')')),
					h('dt', null, 'Depth'), h('dd', { class: 'mono' }, c.depth !== undefined ? c.depth : 512),
					c.source ? [h('dt', null, 'Source'), h('dd', { class: 'mono' }, c.source)] : null,
					h('dt', null, 'Created'), h('dd', null, timeEl(c.created_at))),
				h('div', { class: 'actions' },
					/* A stored case is re-run by suite runs; re-POSTing it would file a
					 * separate submitted copy. */
					c.source ? null : runAgainButton(ctx, c, id),
					copyButton('Copy as curl', function () { return curlFor(c); }, 'copy-curl'),
					copyButton('Copy as stored case', function () { return fetchText('/api/cases/' + id + '/casefile'); }, 'copy-casefile'),
					d.comparison_id && d.results && d.results.base && d.results.base.status === 'ok' ?
						h('a', { class: 'button', href: '/api/cases/' + id + '/phpt?comparison=' + d.comparison_id, download: '',
							'data-testid': 'export-phpt', title: 'A php-src run-tests file for ext/json/tests, expecting the base build\'s output' }, 'Export .phpt') : null,
					h('a', { class: 'button', href: '#/new?from=' + id }, 'Edit & resubmit'),
					h('a', { class: 'button', href: '/api/cases/' + id }, 'JSON'))),
				h('div', { class: 'spec-main' },
					codeBlock('Setup', c.setup, 'case-setup'),
					codeBlock('Code', c.code, 'case-code'),
					c.expect !== null && c.expect !== undefined ? codeBlock('Expect', c.expect, 'case-expect') : null,
					h('details', { class: 'curl' }, h('summary', null, 'curl command'),
						h('pre', { class: 'code', 'data-testid': 'curl-text' }, curlFor(c))),
					d.comparison_id ? lazyText('php-src test (.phpt), expecting base', '/api/cases/' + id + '/phpt?comparison=' + d.comparison_id, 'phpt-text') : null,
					lazyText('stored case file', '/api/cases/' + id + '/casefile', 'casefile-text'))),
			d.bucket ? caseBucketPanel(ctx, d.bucket, reload) : null,
			resultsGrid(names, results, differs, c),
			historySection(d.history || [], d.comparison_id, id));
	}

	/* GET a text (not JSON) answer; rejects with an ApiError. */
	function fetchText(path) {
		var headers = {};
		if (stored(TOKEN_KEY)) headers.Authorization = 'Bearer ' + stored(TOKEN_KEY);
		return fetch(path, { headers: headers }).then(function (res) {
			return res.text().then(function (t) {
				if (res.ok) return t;
				var err = null;
				try { err = JSON.parse(t).error; } catch (e) { err = null; }
				throw new ApiError(res.status, err ? err.code : 'http_' + res.status, err ? err.message : t.slice(0, 200));
			});
		});
	}

	/* A <details> whose text is fetched when it is first opened. */
	function lazyText(label, path, testid) {
		var pre = h('pre', { class: 'code', 'data-testid': testid }, 'Loading…');
		var d = h('details', { class: 'curl' }, h('summary', null, label), pre);
		var loaded = false;
		d.addEventListener('toggle', function () {
			if (!d.open || loaded) return;
			loaded = true;
			fetchText(path).then(function (t) { replace(pre, t); }, function (e) { replace(pre, errorBox(e)); });
		});
		return d;
	}

	function runAgainButton(ctx, c, id) {
		var msg = h('span', { class: 'copy-msg', role: 'status' });
		var btn = h('button', { type: 'button', 'data-testid': 'run-again',
			title: 'Run this case on both builds again; the new comparison joins its history' }, 'Run again');
		btn.addEventListener('click', function () {
			btn.disabled = true;
			msg.textContent = 'Running…';
			ctx.api('/api/cases', { method: 'POST', body: caseBody(c) }).then(function (d) {
				var nid = d.id !== undefined ? d.id : d.case && d.case.id;
				navigate('#/cases/' + nid);
			}, function (e) {
				if (isAbort(e)) return;
				btn.disabled = false;
				msg.textContent = '';
				btn.parentNode.after(errorBox(e));
			});
		});
		return h('span', { class: 'copy' }, btn, msg);
	}

	function codeBlock(label, text, testid) {
		if (text === null || text === undefined || text === '') return null;
		return h('div', { class: 'code-block' }, h('div', { class: 'label' }, label),
			h('pre', { class: 'code', 'data-testid': testid }, text));
	}

	/*
	 * Both results side by side.  Each build is its own <section> (a column);
	 * CSS subgrid lines their rows up, and on narrow screens they stack.
	 */
	function resultsGrid(names, results, differs, c) {
		if (!names.length) return h('section', { class: 'panel' }, h('p', { class: 'empty' }, 'No results stored for this case yet.'));
		var bytes = {}, printed = {};
		names.forEach(function (n) { bytes[n] = outputBytes(results[n]); printed[n] = fieldBytes(results[n], 'printed'); });
		var outDiff = null, prDiff = null, warnDiff = false;
		if (names.length === 2) {
			var a = names[0], b = names[1];
			if (bytes[a] && bytes[b]) outDiff = byteDiff(bytes[a], bytes[b]);
			if (printed[a] && printed[b]) prDiff = byteDiff(printed[a], printed[b]);
			var wa = results[a] && results[a].warnings, wb = results[b] && results[b].warnings;
			warnDiff = JSON.stringify(wa || []) !== JSON.stringify(wb || []);
		}
		var first = names.length ? results[names[0]] : null;
		var expectBytes = c.expect !== null && c.expect !== undefined ? new TextEncoder().encode(c.expect) : null;

		var grid = h('div', { class: 'results', 'data-testid': 'results' });
		/* CSSOM, not a style attribute, so a strict CSP can't break the layout. */
		grid.style.setProperty('--cols', String(names.length));
		grid.style.setProperty('--rows', String(FIELD_ROWS.length + 1));
		names.forEach(function (n, idx) {
			var r = results[n] || {};
			var info = buildInfo(n), label = n + (info && info.name !== n ? ' (' + info.name + ')' : '');
			var col = h('section', { class: 'result', 'data-testid': 'result-' + n, 'data-build': n, 'aria-label': 'Result on ' + label },
				h('h2', { class: 'result-head' }, label, info && info.php_version ? h('span', { class: 'dim' }, ' PHP ' + info.php_version) : null));
			FIELD_ROWS.forEach(function (f) {
				var isDiff = f.differs.some(function (x) { return differs.indexOf(x) >= 0; });
				/* Printed output and warnings may differ without counting in the verdict. */
				var soft = !isDiff && ((f.key === 'printed' && prDiff) || (f.key === 'warnings' && warnDiff));
				col.append(h('div', { class: 'cell cell-' + f.key + (isDiff ? ' differs' : soft ? ' differs-soft' : ''), 'data-field': f.key },
					h('div', { class: 'label' }, f.label,
						isDiff ? h('span', { class: 'diff-flag', title: 'differs between the builds' },
							h('span', { 'aria-hidden': 'true' }, ' ≠'), h('span', { class: 'visually-hidden' }, ' (differs)')) : null,
						soft ? h('span', { class: 'diff-flag', title: 'differs between the builds, not counted in the verdict' },
							h('span', { 'aria-hidden': 'true' }, ' ≠'), h('span', { class: 'visually-hidden' }, ' (differs, not in the verdict)')) : null),
					h('div', { class: 'value' }, cellValue(f.key, n, r, idx))));
			});
			grid.append(col);
		});

		function side(d, idx) { return d ? (idx === 0 ? d.a : d.b) : null; }

		function cellValue(key, n, r, idx) {
			switch (key) {
			case 'status':
				return [badge('status', r.status || 'unknown', { 'data-testid': 'status-' + n }),
					r.signal ? h('span', { class: 'mono' }, ' signal ' + r.signal + (SIGNALS[r.signal] ? ' (' + SIGNALS[r.signal] + ')' : '')) : null,
					r.failure ? h('pre', { class: 'failure', 'data-testid': 'failure-' + n }, r.failure) : null];
			case 'output': {
				var b = bytes[n];
				if (r.status && r.status !== 'ok' && b === null)
					return h('span', { class: 'dim', 'data-testid': 'output-' + n }, 'no output (' + r.status + ')');
				if (b === null)
					return h('div', { class: 'bytes-wrap' }, h('pre', { class: 'bytes false', 'data-testid': 'output-' + n }, 'false'));
				var view = bytesView(b, side(outDiff, idx), 'output-' + n);
				var meta = [fmtInt(b.length) + ' bytes',
					r.output_utf8 === false ? h('span', { class: 'warn-text' }, ' · not valid UTF-8') : ' · UTF-8'];
				if (outDiff) meta.push(h('span', { 'data-testid': 'diff-summary-' + n, 'data-engine': outDiff.engine },
					' · differs from byte ' + fmtInt(outDiff.a.first) + ' (' + side(outDiff, idx).ranges.length + ' change' +
					(side(outDiff, idx).ranges.length === 1 ? '' : 's') + ')'));
				if (expectBytes) {
					var ok = sameBytes(expectBytes, b);
					meta.push(' · ', h('span', { class: ok ? 'ok-text' : 'bad-text', 'data-testid': 'expect-' + n },
						ok ? 'matches expect' : 'does not match expect'));
				}
				return [view, h('div', { class: 'bytes-meta' }, meta, ' ', view.toggle)];
			}
			case 'error': {
				var code = r.error_code;
				if (r.status && r.status !== 'ok' && (r.error_msg === null || r.error_msg === undefined))
					return h('span', { class: 'dim', 'data-testid': 'error-' + n }, 'not reached (' + r.status + ')');
				return h('span', { class: 'mono', 'data-testid': 'error-' + n },
					code === undefined || code === null ? '—' : String(code),
					JSON_ERRORS[code] ? h('span', { class: 'dim' }, ' ' + JSON_ERRORS[code]) : null,
					r.error_msg ? h('div', null, '“' + r.error_msg + '”') : null);
			}
			case 'exception':
				if (!r.exception) return h('span', { class: 'dim' }, 'none');
				return h('div', { class: 'mono', 'data-testid': 'exception-' + n },
					h('strong', null, r.exception['class']), ': ', r.exception.message);
			case 'printed': {
				var p = printed[n];
				if (!p || !p.length) return h('span', { class: 'dim' }, 'nothing');
				return bytesView(p, side(prDiff, idx), 'printed-' + n);
			}
			case 'warnings': {
				var w = r.warnings;
				if (typeof w === 'string') w = w ? w.split('\n') : [];
				if (!w || !w.length) return h('span', { class: 'dim' }, 'none');
				return h('ul', { class: 'warnings mono', 'data-testid': 'warnings-' + n }, w.map(function (x) {
					return h('li', null, typeof x === 'string' ? x : JSON.stringify(x));
				}));
			}
			case 'wall':
				return h('span', { class: 'mono' }, r.wall_ms === null || r.wall_ms === undefined ? '—' : Number(r.wall_ms).toFixed(2) + ' ms');
			case 'instructions': {
				if (r.instructions === null || r.instructions === undefined) return h('span', { class: 'dim' }, 'not measured');
				var delta = null;
				if (idx > 0 && first && first.instructions) {
					var pct = 100 * (r.instructions - first.instructions) / first.instructions;
					delta = h('span', { class: pct > 0 ? 'bad-text' : pct < 0 ? 'ok-text' : 'dim' },
						' (' + (pct > 0 ? '+' : pct < 0 ? '−' : '±') + Math.abs(pct).toFixed(1) + ' %)');
				}
				return h('span', { class: 'mono' }, fmtInt(r.instructions), delta);
			}
			}
			return null;
		}

		return h('section', { class: 'panel results-panel', 'aria-labelledby': 'h-results' },
			h('h2', { id: 'h-results' }, 'Results'),
			h('p', { class: 'legend small-text' }, 'Output is shown byte-exact: ',
				h('span', { class: 'chip ctl' }, '\\x0b'), ' control byte, ',
				h('span', { class: 'chip bad' }, '\\xff'), ' invalid UTF-8 byte, ',
				h('span', { class: 'chip uni' }, 'U+2028'), ' invisible character, ',
				h('span', { class: 'nl' }, ''), ' newline, ',
				h('mark', { class: 'diff' }, 'highlight'), ' the region where the builds differ.'),
			grid);
	}

	function outputBytes(r) {
		if (!r || r.output === false) return null;
		return fieldBytes(r, 'output');
	}

	function historySection(history, currentId, caseId) {
		return h('section', { class: 'panel', 'aria-labelledby': 'h-history' },
			h('h2', { id: 'h-history' }, 'History'),
			history.length ? h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'history' },
				h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Comparison'),
					h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'When'))),
				h('tbody', null, history.map(function (x) {
					return h('tr', { 'data-testid': 'history-row', class: x.comparison_id === currentId ? 'current' : null },
						h('td', { class: 'num' }, x.comparison_id === currentId ? [x.comparison_id, h('span', { class: 'dim' }, ' (shown)')] :
							h('a', { href: '#/cases/' + caseId + '?comparison=' + x.comparison_id }, x.comparison_id)),
						h('td', null, x.run_id ? h('a', { href: '#/runs/' + x.run_id }, 'run #' + x.run_id) : h('span', { class: 'dim' }, 'submitted')),
						h('td', null, verdictBadge(x.verdict, 'history-verdict'), ' ', differsList(x.differs)),
						h('td', null, timeEl(x.created_at)));
				})))) : h('p', { class: 'empty' }, 'No earlier comparisons.'));
	}

	/* ------------------------------------------------------------------- run */

	function runView(ctx, params, query) {
		var id = params[0];
		setTitle('Run #' + id);
		var headBox = h('div', null, loading('run #' + id));
		var filters = h('div', { class: 'filters' });
		var cases = caseTable(ctx, 'No cases in this run match.');
		var actionMsg = h('div', { 'aria-live': 'polite' });
		var lastRun = null, q = query, cancelling = false;
		var buckets = bucketTable(ctx, { run: id, selectable: true,
			empty: 'No mismatches in this run (so far): nothing to triage.' });
		var extraBox = h('div');
		main.append(
			h('h1', null, 'Run #' + id, h('span', { id: 'run-suite', class: 'dim' })),
			h('section', { class: 'panel', 'aria-labelledby': 'h-run-status' },
				h('h2', { id: 'h-run-status', class: 'visually-hidden' }, 'Status'), headBox, actionMsg),
			extraBox,
			h('section', { class: 'panel', 'aria-labelledby': 'h-run-buckets' },
				h('h2', { id: 'h-run-buckets' }, 'Mismatches, in buckets'),
				h('p', { class: 'hint' }, 'Mismatches that differ the same way are one bucket; a bucket seen in earlier runs keeps its triage.'),
				buckets.el),
			h('section', { class: 'panel', 'aria-labelledby': 'h-run-cases' },
				h('h2', { id: 'h-run-cases' }, 'Cases'), filters, cases.el));
		var bucketsUrl = '/api/buckets?run=' + id + '&limit=50';

		/* What a suite adds: the measure suite's counts, a generated run's report and coverage. */
		function drawExtra(r) {
			var sum = r.summary || null, parts = [];
			if (r.suite === 'measure')
				parts.push(h('section', { class: 'panel' }, h('h2', null, 'Instruction counts'),
					h('p', null, h('a', { href: '#/runs/' + id + '/counts', class: 'button', 'data-testid': 'counts-link' }, 'Instruction counts table'),
						' ', h('a', { href: '/api/runs/' + id + '/report.md', class: 'button' }, 'report.md'))));
			/* Seeds, rate, corpus hash and error codes are in the run's head (generatedSummary). */
			if (sum && typeof sum === 'object') {
				var cov = sum.coverage ? coverageView(sum.coverage) : null;
				parts.push(h('section', { class: 'panel', 'data-testid': 'run-summary' },
					h('h2', null, 'Coverage', sum.coverage && sum.coverage.cases !== undefined ? h('span', { class: 'dim' }, ' of ' + fmtInt(sum.coverage.cases) + ' cases') : null),
					cov || h('p', { class: 'empty' }, 'This run reported no coverage.'),
					h('details', null, h('summary', null, 'Everything the run reported (JSON)'), h('pre', { class: 'code' }, JSON.stringify(sum, null, 2)))));
			}
			replace(extraBox, parts);
		}

		function casesUrl() {
			var api = new URLSearchParams();
			if (q.get('verdict')) api.set('verdict', q.get('verdict'));
			api.set('limit', '50');
			return '/api/runs/' + id + '/cases?' + api.toString();
		}
		function drawFilters() {
			replace(filters, filterBar('Verdict', 'verdict', ['', 'differ', 'same'], '/runs/' + id, q, lastRun && lastRun.counts));
		}

		var polls = 0;
		function loadRun() {
			return ctx.api('/api/runs/' + id).then(function (r) {
				var wasActive = lastRun && isActive(lastRun.status);
				lastRun = r;
				document.getElementById('run-suite').textContent = ' · ' + (r.suite || 'run');
				if (!wasActive || !isActive(r.status) || polls % 5 === 0) drawExtra(r);
				replace(headBox, runHead(r, function (k) {
					var qq = new URLSearchParams(q); qq.set('verdict', k); return hashFor('/runs/' + id, qq);
				}, isActive(r.status) ? cancelButton() : null));
				drawFilters();
				var active = isActive(r.status);
				/* While running, refresh the first page of cases now and then
				 * (unless the reader has paged further); once more at the end. */
				polls++;
				if ((wasActive && !active) || (active && polls % 3 === 0 && cases.pages() <= 50)) cases.reload(casesUrl());
				if ((wasActive && !active) || (active && polls % 3 === 0)) buckets.reload(bucketsUrl);
				return active;
			}, function (e) {
				if (isAbort(e)) return false;
				/* Keep polling if the run was there a moment ago (daemon restarting);
				 * otherwise stop and offer a retry. */
				replace(headBox, errorBox(e, lastRun ? null : function () { loadRun().then(startPolling); }));
				return !!lastRun;
			});
		}
		function cancelButton() {
			return h('button', { type: 'button', class: 'danger', 'data-testid': 'cancel-run', disabled: cancelling,
				title: 'A queued run stops at once, a running one after its current case',
				onclick: function () {
					cancelling = true;
					this.disabled = true;
					replace(actionMsg, null);
					ctx.api('/api/runs/' + id + '/cancel', { method: 'POST' }).then(function () {
						return loadRun();
					}, function (e) {
						if (isAbort(e)) return;
						cancelling = false;
						replace(actionMsg, errorBox(e));
						return loadRun();
					});
				} }, cancelling ? 'Cancelling…' : 'Cancel run');
		}
		function startPolling(active) { if (active) ctx.poll(1000, loadRun); }
		loadRun().then(function (active) {
			if (lastRun) { cases.reload(casesUrl()); buckets.reload(bucketsUrl); }
			startPolling(active);
		});
		drawFilters();

		return { onQuery: function (nq) { q = nq; drawFilters(); cases.reload(casesUrl()); } };
	}

	function runHead(r, linkFor, action) {
		var dur = duration(r.started_at, r.finished_at);
		return h('div', { class: 'run-head', 'data-testid': 'run-head', 'data-status': r.status },
			h('div', { class: 'run-line' },
				badge('run', r.status || 'unknown', { 'data-testid': 'run-status' }),
				progressBar(r.done || 0, r.total || 0, r.status),
				countsView(r.counts, linkFor), action),
			r.error ? h('div', { class: 'notice ' + (r.status === 'failed' ? 'error' : 'warning'), role: 'alert', 'data-testid': 'run-error' },
				h('strong', null, r.status === 'failed' ? 'Run failed: ' : r.status === 'interrupted' ? 'Interrupted: ' : 'Note: '), r.error) : null,
			h('dl', { class: 'spec' },
				h('dt', null, 'Builds'), h('dd', { class: 'mono' }, buildsText(r.builds, r.build_names)),
				h('dt', null, 'Created'), h('dd', null, timeEl(r.created_at)),
				h('dt', null, 'Started'), h('dd', null, timeEl(r.started_at)),
				h('dt', null, 'Finished'), h('dd', null, timeEl(r.finished_at)),
				dur ? [h('dt', null, isActive(r.status) ? 'Running for' : 'Took'), h('dd', null, dur)] : null,
				r.suite === 'generated' && r.summary ? generatedSummary(r.summary) : null));
	}

	/* A generated run's summary (docs/generated.md): seeds, speed, corpus
	 * hash, and what the cases covered. */
	function generatedSummary(s) {
		var perBuild = ['base', 'head'].map(function (role) {
			var b = (s.builds || {})[role];
			return b ? role + ' ' + fmtInt(Math.round(b.cases_per_s)) + '/s' : null;
		}).filter(Boolean).join(', ');
		var errors = ['base', 'head'].map(function (role) {
			var b = (s.builds || {})[role] || {};
			var codes = Object.keys(b.error_codes || {}).map(function (k) {
				return k.replace(/^JSON_ERROR_/, '') + ' ' + fmtInt(b.error_codes[k]);
			});
			return role + ': ' + codes.join(', ') + (b.exceptions ? ', exceptions ' + fmtInt(b.exceptions) : '');
		});
		var cov = s.coverage || {};
		var groups = Object.keys(cov).filter(function (g) { return typeof cov[g] === 'object'; });
		return [
			h('dt', null, 'Seeds'), h('dd', { class: 'mono' }, (s.seeds || []).join(', ') + ' × ' + fmtInt(s.count) +
				(s.start ? ' from index ' + fmtInt(s.start) : '') + ' (generator v' + s.generator_version + ')'),
			h('dt', null, 'Rate'), h('dd', { 'data-testid': 'run-rate' }, fmtInt(Math.round(s.rate || 0)) + ' cases/s' +
				(perBuild ? ' (' + perBuild + ' while busy)' : '')),
			h('dt', null, 'Corpus hash'), h('dd', { class: 'mono' }, s.corpus_hash || 'when the run is done'),
			h('dt', null, 'Error codes'), h('dd', { class: 'mono' }, errors.map(function (e) { return h('div', null, e); })),
			h('dt', null, 'Coverage'), h('dd', null, groups.length ? 'how many cases used each piece, flag, class…: see “Coverage” below' : '—')
		];
	}

	/* ------------------------------------------------------------- identity */

	/*
	 * Who is triaging: a name kept in this browser, sent as "by" with every
	 * triage change (the daemon records it in the audit trail).  An API token
	 * (issue 6) may be kept too: it goes with every request, and then the
	 * daemon takes the token's owner as the person.
	 */
	var ME_KEY = 'phpcmp.by', TOKEN_KEY = 'phpcmp.token';
	function stored(key) { try { return localStorage.getItem(key) || ''; } catch (e) { return ''; } }
	function store(key, v) { try { if (v) localStorage.setItem(key, v); else localStorage.removeItem(key); } catch (e) { /* private mode */ } }
	function me() { return stored(ME_KEY).trim(); }

	function identityBox() {
		var name = h('input', { type: 'text', id: 'me-name', class: 'me-name', maxlength: '64', autocomplete: 'username',
			placeholder: 'your name', value: me(), 'data-testid': 'me-name', 'aria-describedby': 'me-hint' });
		name.addEventListener('input', function () {
			store(ME_KEY, name.value.trim());
			document.querySelectorAll('input.me-name').forEach(function (x) { if (x !== name) x.value = name.value; });
		});
		var tok = h('input', { type: 'password', class: 'me-token', autocomplete: 'off', placeholder: 'API token (optional)',
			value: stored(TOKEN_KEY), 'aria-label': 'API token' });
		tok.addEventListener('change', function () { store(TOKEN_KEY, tok.value.trim()); });
		return h('div', { class: 'identity' },
			h('label', { for: 'me-name' }, 'You are '), name,
			h('details', { class: 'token' }, h('summary', null, 'token'), tok,
				h('p', { class: 'hint', id: 'me-hint' }, 'Your name goes in the audit trail of every change you make. ',
					'With an API token (phpcmp token add NAME), the daemon takes the name from the token.')));
	}

	/* ---------------------------------------------------------------- triage */

	var STATES = ['new', 'confirmed', 'expected', 'ignored', 'fixed'];
	var STATE_HELP = {
		'new': 'not looked at yet',
		confirmed: 'a real regression, to fix',
		expected: 'an intended change',
		ignored: 'not worth fixing',
		fixed: 'fixed; flagged if it shows up again'
	};

	function stateBadge(b) {
		return [badge('state', b.state || 'new', { 'data-testid': 'bucket-state', 'data-state': b.state || '', title: STATE_HELP[b.state] || '' }),
			b.reappeared ? [' ', h('span', { class: 'badge reappeared', 'data-testid': 'bucket-reappeared',
				title: 'marked fixed, then seen again' + (b.reappeared.run_id ? ' in run #' + b.reappeared.run_id : '') }, 'reappeared')] : null];
	}

	/* A difference's shape: "" is nothing at all on that side. */
	function shapeEl(s) {
		return h('code', { class: 'shape' + (s === '' ? ' empty' : '') }, s === '' ? '∅' : s);
	}

	function shortFlags(flags) {
		var names = Object.keys(flags || {});
		if (!names.length) return null;
		return h('span', { class: 'key-flags' }, names.map(function (n) {
			return h('span', { class: 'flag-state ' + (flags[n] ? 'on' : 'off'), title: n + (flags[n] ? ' set' : ' not set') },
				shortFlag(n) + (flags[n] ? ' on' : ' off'));
		}));
	}

	/* How the mismatches of a bucket differ, from its key (server/bucket.c). */
	function keySummary(key) {
		if (!key) return h('span', { class: 'dim' }, '—');
		var parts = [];
		var st = key.status || [], ec = key.error_code || [], ex = key.exception || [];
		if (key.output) parts.push(h('span', { class: 'key-part' }, 'output ', shapeEl(key.output[0]), ' → ', shapeEl(key.output[1])));
		if (st[0] !== st[1] || st[0] !== 'ok') parts.push(h('span', { class: 'key-part' }, 'status ', h('code', null, st[0]), ' → ', h('code', null, st[1])));
		if (ec[0] !== ec[1]) parts.push(h('span', { class: 'key-part', title: (JSON_ERRORS[ec[0]] || '') + ' → ' + (JSON_ERRORS[ec[1]] || '') },
			'error ', h('code', null, String(ec[0])), ' → ', h('code', null, String(ec[1]))));
		if (ex[0] || ex[1]) parts.push(h('span', { class: 'key-part' }, 'exception ', h('code', null, ex[0] || 'none'), ' → ', h('code', null, ex[1] || 'none')));
		if (!key.output && !parts.length) parts.push(differsList(key.differs));
		return h('span', { class: 'key-summary', 'data-testid': 'key-summary' }, parts, shortFlags(key.flags));
	}

	/* The full key as a definition list (bucket page). */
	function keyTable(key) {
		if (!key) return h('p', { class: 'dim' }, 'No key.');
		var flags = Object.keys(key.flags || {});
		function pair(v) { return [h('code', null, v[0] === null ? 'none' : String(v[0])), ' → ', h('code', null, v[1] === null ? 'none' : String(v[1]))]; }
		return h('dl', { class: 'spec key', 'data-testid': 'bucket-key' },
			h('dt', null, 'Differs in'), h('dd', null, differsList(key.differs) || '—'),
			key.output ? [h('dt', null, 'First differing bytes'), h('dd', null, 'base ', shapeEl(key.output[0]), ' → head ', shapeEl(key.output[1]),
				h('div', { class: 'hint' }, 'a letters · 0 digits · U a UTF-8 character · L U+2028/9 · X an invalid byte · C a control byte · _ space · N newline · \\u an escape'))] : null,
			h('dt', null, 'Status'), h('dd', null, pair(key.status || [])),
			h('dt', null, 'json_last_error()'), h('dd', null, pair(key.error_code || []),
				(key.error_code || [])[0] !== (key.error_code || [])[1] ? h('span', { class: 'dim' }, ' ' + (JSON_ERRORS[key.error_code[0]] || '') + ' → ' + (JSON_ERRORS[key.error_code[1]] || '')) : null),
			h('dt', null, 'Exception'), h('dd', null, pair(key.exception || [null, null])),
			h('dt', null, 'Flags that matter'), h('dd', null, flags.length ? shortFlags(key.flags) : h('span', { class: 'dim' }, 'none: the case\'s flags do not split this bucket')));
	}

	/* POST a triage change; resolves to the daemon's answer. */
	function postTriage(ctx, ids, change) {
		var body = { by: me() };
		for (var k in change) body[k] = change[k];
		if (ids.length === 1 && !change.bulk) return ctx.api('/api/buckets/' + ids[0] + '/triage', { method: 'POST', body: body });
		delete body.bulk;
		body.ids = ids;
		return ctx.api('/api/buckets/triage', { method: 'POST', body: body });
	}

	function needName(msgBox) {
		if (me()) return false;
		replace(msgBox, h('div', { class: 'notice error', role: 'alert', 'data-testid': 'need-name' },
			'Say who you are first (“You are …”): every triage change is recorded with a name.'));
		var input = document.querySelector('input.me-name');
		if (input) input.focus();
		return true;
	}

	/* The triage form of one bucket: state, assignee, notes. */
	function triageForm(ctx, b, onSaved) {
		var msg = h('div', { 'aria-live': 'polite' });
		var chosen = b.state;
		var stateBox = h('div', { class: 'states', role: 'radiogroup', 'aria-label': 'State' }, STATES.map(function (s) {
			var id = 'st-' + s;
			return h('label', { class: 'state-choice state-' + s, for: id, title: STATE_HELP[s] },
				h('input', { type: 'radio', name: 'state', id: id, value: s, checked: s === b.state, 'data-testid': 'triage-state-' + s,
					onchange: function () { chosen = s; } }),
				' ', s, h('span', { class: 'hint' }, STATE_HELP[s]));
		}));
		var assignee = h('input', { type: 'text', id: 't-assignee', maxlength: '64', value: b.assignee || '', placeholder: 'nobody',
			'data-testid': 'triage-assignee' });
		var notes = h('textarea', { id: 't-notes', rows: '3', 'data-testid': 'triage-notes', placeholder: 'what was found, links…' });
		notes.value = b.notes || '';
		var save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'triage-save' }, 'Save');
		var form = h('form', { class: 'triage-form', 'data-testid': 'triage-form' },
			h('fieldset', { class: 'field' }, h('legend', null, 'State'), stateBox),
			h('div', { class: 'field' }, h('label', { for: 't-assignee' }, 'Assignee'), assignee),
			h('div', { class: 'field' }, h('label', { for: 't-notes' }, 'Notes'), notes),
			h('div', { class: 'actions' }, identityBox(), save), msg);
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			if (needName(msg)) return;
			var change = {};
			/* Choosing a state again answers a reappearance; otherwise send what changed. */
			if (chosen !== b.state || b.reappeared) change.state = chosen;
			if (assignee.value.trim() !== (b.assignee || '')) change.assignee = assignee.value.trim() || null;
			if (notes.value !== (b.notes || '')) change.notes = notes.value;
			if (!Object.keys(change).length) { replace(msg, h('p', { class: 'hint' }, 'Nothing changed.')); return; }
			save.disabled = true;
			replace(msg, h('p', { class: 'loading' }, 'Saving…'));
			postTriage(ctx, [b.id], change).then(function (nb) {
				replace(msg, h('p', { class: 'ok-text', role: 'status', 'data-testid': 'triage-saved' }, 'Saved.'));
				if (onSaved) onSaved(nb);
			}, function (err) {
				if (isAbort(err)) return;
				save.disabled = false;
				replace(msg, errorBox(err));
			});
		});
		return form;
	}

	function changeText(ev) {
		var c = ev.changes || {}, out = [];
		if (ev.action === 'reappeared') {
			var r = c.reappeared || {};
			return ['seen again after it was fixed: ',
				r.run_id ? h('a', { href: '#/runs/' + r.run_id }, 'run #' + r.run_id) : 'a submitted case',
				r.comparison_id ? ' (comparison #' + r.comparison_id + ')' : null];
		}
		function val(v) { return v === null || v === undefined || v === '' ? h('span', { class: 'dim' }, 'none') : h('strong', null, String(v)); }
		if (c.state) out.push(h('span', { class: 'change' }, 'state ', val(c.state[0]), ' → ', val(c.state[1])));
		if (c.assignee) out.push(h('span', { class: 'change' }, 'assignee ', val(c.assignee[0]), ' → ', val(c.assignee[1])));
		if (c.notes) out.push(h('span', { class: 'change' }, 'notes ',
			h('details', { class: 'inline' }, h('summary', null, 'changed'),
				h('div', { class: 'notes-diff' }, h('del', null, c.notes[0] || '(empty)'), h('ins', null, c.notes[1] || '(empty)')))));
		if (c.reappeared === false) out.push(h('span', { class: 'change' }, 'answered the reappearance'));
		return out;
	}

	/* The audit trail: newest first. */
	function auditTrail(events, withBucket) {
		if (!events || !events.length) return h('p', { class: 'empty', 'data-testid': 'audit-empty' }, 'No triage yet.');
		return h('ol', { class: 'audit', 'data-testid': 'audit-trail' }, events.map(function (ev) {
			return h('li', { 'data-testid': 'audit-entry', 'data-by': ev.by, 'data-action': ev.action },
				timeEl(ev.at), ' ', h('strong', { class: 'who' + (ev.action === 'reappeared' ? ' system' : '') }, ev.by), ' ',
				withBucket ? [h('a', { href: '#/buckets/' + ev.bucket_id }, 'bucket #' + ev.bucket_id), ': '] : null,
				changeText(ev));
		}));
	}

	/*
	 * A paginated table of buckets (GET /api/buckets...), optionally with
	 * checkboxes and a bar to change every selected bucket at once.
	 */
	function bucketTable(ctx, opts) {
		var tbody = h('tbody');
		var runScoped = !!opts.run;
		var selectAll = opts.selectable ? h('input', { type: 'checkbox', 'aria-label': 'Select every bucket shown', 'data-testid': 'bucket-check-all' }) : null;
		var table = h('table', { class: 'list buckets', 'data-testid': 'bucket-list' },
			h('thead', null, h('tr', null,
				opts.selectable ? h('th', { scope: 'col', class: 'check' }, selectAll) : null,
				h('th', { scope: 'col', class: 'num' }, '#'),
				h('th', { scope: 'col' }, 'State'),
				h('th', { scope: 'col', class: 'num' }, runScoped ? 'In this run' : 'Mismatches'),
				h('th', { scope: 'col' }, 'How they differ'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Representative'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Seen'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Assignee'))),
			tbody);
		var status = h('div', { class: 'list-status', 'aria-live': 'polite' });
		var more = h('div', { class: 'more' });
		var bar = opts.selectable ? bulkBar() : null;
		var el = h('div', { class: 'bucket-table' }, bar ? bar.el : null, h('div', { class: 'scroll-x' }, table), status, more);
		var gen = 0, shown = 0, lastUrl = null;

		function row(b) {
			var rep = runScoped && b.run ? b.run.representative : b.representative;
			var href = '#/buckets/' + b.id + (runScoped && opts.run ? '?run=' + opts.run : '');
			var seen = [];
			if (b.first_seen && b.first_seen.run_id) seen.push('since ', h('a', { href: '#/runs/' + b.first_seen.run_id }, 'run #' + b.first_seen.run_id));
			else seen.push('since a submitted case');
			if (runScoped && b.earlier_runs) seen.push(h('div', { class: 'small-text', 'data-testid': 'earlier-runs' }, 'in ' + b.earlier_runs + ' earlier run' + (b.earlier_runs === 1 ? '' : 's') +
				(b.updated_by ? ' · triaged by ' + b.updated_by : '')));
			return h('tr', { 'data-testid': 'bucket-row', 'data-bucket-id': b.id, 'data-state': b.state, class: b.reappeared ? 'reappeared' : null },
				opts.selectable ? h('td', { class: 'check' }, h('input', { type: 'checkbox', value: b.id, 'aria-label': 'Select bucket #' + b.id, 'data-testid': 'bucket-check' })) : null,
				h('td', { class: 'num' }, h('a', { href: href }, b.id)),
				h('td', { class: 'nowrap' }, stateBadge(b)),
				h('td', { class: 'num', 'data-testid': 'bucket-count' }, fmtInt(runScoped && b.run ? b.run.mismatches : b.mismatches),
					runScoped ? h('div', { class: 'dim small-text' }, 'of ' + fmtInt(b.mismatches)) : null),
				h('td', null, h('a', { href: href, class: 'plain' }, keySummary(b.key))),
				h('td', { class: 'hide-narrow title' }, rep && rep.case_id ?
					h('a', { href: '#/cases/' + rep.case_id + '?comparison=' + rep.comparison_id }, rep.title || 'case #' + rep.case_id) : '—'),
				h('td', { class: 'hide-narrow small-text' }, seen),
				h('td', { class: 'hide-narrow' }, b.assignee || h('span', { class: 'dim' }, '—')));
		}

		function load(url, first) {
			var my = first ? ++gen : gen;
			if (first) { lastUrl = url; replace(status, loading('buckets')); clear(more); }
			else replace(more, loading('more'));
			return ctx.api(url).then(function (d) {
				if (my !== gen) return d;
				if (first) { clear(tbody); shown = 0; if (selectAll) selectAll.checked = false; if (bar) bar.update(); }
				(d.buckets || []).forEach(function (b) { tbody.append(row(b)); });
				shown += (d.buckets || []).length;
				table.hidden = shown === 0;
				if (bar) bar.el.hidden = shown === 0;
				replace(status, shown === 0 ? h('p', { class: 'empty', 'data-testid': 'buckets-empty' }, opts.empty) : null);
				replace(more, d.next ? h('button', { type: 'button', 'data-testid': 'buckets-more',
					onclick: function () { load(d.next, false); } }, 'Load more') : null);
				if (opts.onCounts && d.counts) opts.onCounts(d.counts);
				return d;
			}, function (e) {
				if (isAbort(e) || my !== gen) return null;
				replace(first ? status : more, errorBox(e, function () { load(url, first); }));
				return null;
			});
		}

		function selected() {
			return Array.prototype.map.call(tbody.querySelectorAll('input[type=checkbox]:checked'), function (x) { return Number(x.value); });
		}

		function bulkBar() {
			var count = h('span', { class: 'bulk-count', 'data-testid': 'bulk-count' });
			var state = h('select', { 'aria-label': 'New state', 'data-testid': 'bulk-state' },
				h('option', { value: '' }, 'set state…'), STATES.map(function (s) { return h('option', { value: s }, s + ' — ' + STATE_HELP[s]); }));
			var assignee = h('input', { type: 'text', maxlength: '64', placeholder: 'assignee (unchanged)', 'aria-label': 'Assignee', 'data-testid': 'bulk-assignee' });
			var apply = h('button', { type: 'button', class: 'primary', 'data-testid': 'bulk-apply' }, 'Apply');
			var msg = h('div', { 'aria-live': 'polite', class: 'bulk-msg' });
			var barEl = h('div', { class: 'bulk', 'data-testid': 'bulk-bar' }, count, state, assignee, apply, msg);
			function update() {
				var n = selected().length;
				count.textContent = n ? n + ' selected:' : 'Select buckets to change them together:';
				apply.disabled = n === 0;
			}
			apply.addEventListener('click', function () {
				var ids = selected(), change = { bulk: true };
				if (state.value) change.state = state.value;
				if (assignee.value.trim()) change.assignee = assignee.value.trim();
				if (!ids.length) return;
				if (needName(msg)) return;
				if (!change.state && !change.assignee) { replace(msg, h('span', { class: 'hint' }, 'Choose a state or an assignee.')); return; }
				apply.disabled = true;
				replace(msg, h('span', { class: 'loading' }, 'Saving…'));
				postTriage(ctx, ids, change).then(function (d) {
					replace(msg, h('span', { class: 'ok-text', role: 'status', 'data-testid': 'bulk-done' },
						(d.changed || 0) + ' bucket' + (d.changed === 1 ? '' : 's') + ' changed.'));
					state.value = ''; assignee.value = '';
					load(lastUrl, true);
					if (opts.onChanged) opts.onChanged();
				}, function (e) {
					if (isAbort(e)) return;
					apply.disabled = false;
					replace(msg, errorBox(e));
				});
			});
			tbody.addEventListener('change', update);
			selectAll.addEventListener('change', function () {
				tbody.querySelectorAll('input[type=checkbox]').forEach(function (x) { x.checked = selectAll.checked; });
				update();
			});
			update();
			return { el: h('div', null, barEl, identityBox()), update: update };
		}

		return { el: el, reload: function (url) { return load(url || lastUrl, true); } };
	}

	var BUCKET_FILTERS = ['open', '', 'new', 'confirmed', 'expected', 'ignored', 'fixed', 'reappeared'];

	function bucketCounts(c) {
		if (!c) return null;
		var out = {};
		STATES.forEach(function (s) { out[s] = c[s] ? c[s].buckets : 0; });
		out.reappeared = c.reappeared ? c.reappeared.buckets : 0;
		out.open = out['new'] + out.confirmed + out.reappeared;
		return out;
	}

	/* #/buckets?state=open&run=ID: every bucket, filtered. */
	function bucketsView(ctx, params, query) {
		setTitle('Triage');
		var filters = h('div', { class: 'filters' });
		var q = query, counts = null;
		var table = bucketTable(ctx, { selectable: true, empty: 'No bucket matches. Mismatches are grouped here as runs find them.',
			onCounts: function (c) { counts = bucketCounts(c); draw(); } });
		var trail = h('div', null, loading('audit trail'));
		main.append(h('h1', null, 'Triage'),
			h('p', { class: 'lead' }, 'Mismatches that differ the same way are one bucket; its state, assignee and notes carry over to later runs.'),
			h('section', { class: 'panel', 'aria-labelledby': 'h-buckets' }, h('h2', { id: 'h-buckets' }, 'Buckets'), filters, table.el),
			h('section', { class: 'panel', 'aria-labelledby': 'h-trail' }, h('h2', { id: 'h-trail' }, 'Recent triage'), trail));
		function draw() {
			replace(filters, filterBar('State', 'state', BUCKET_FILTERS, '/buckets', q, counts));
		}
		function apiUrl() {
			var a = new URLSearchParams();
			if (q.get('state')) a.set('state', q.get('state'));
			if (q.get('run')) a.set('run', q.get('run'));
			a.set('limit', '50');
			return '/api/buckets?' + a.toString();
		}
		function loadTrail() {
			ctx.api('/api/triage/events?limit=20').then(function (d) { replace(trail, auditTrail(d.events, true)); },
				function (e) { if (!isAbort(e)) replace(trail, errorBox(e)); });
		}
		draw();
		table.reload(apiUrl());
		loadTrail();
		return { onQuery: function (nq) { q = nq; draw(); table.reload(apiUrl()); } };
	}

	/* #/buckets/ID: one bucket, its triage, its audit trail, a representative diff. */
	function bucketView(ctx, params, query) {
		var id = params[0], runFilter = query.get('run');
		setTitle('Bucket #' + id);
		main.append(loading('bucket #' + id));
		function load() {
			return ctx.api('/api/buckets/' + id).then(function (b) {
				clear(main);
				render(b);
			}, function (e) {
				if (isAbort(e)) return;
				replace(main, [h('h1', null, 'Bucket #' + id), errorBox(e, load)]);
			});
		}
		function render(b) {
			var repBox = h('div', null, loading('the representative mismatch'));
			var rep = b.representative || {};
			var mism = mismatchTable(ctx, b, runFilter);
			main.append(
				h('div', { class: 'case-head' },
					h('h1', null, h('span', { class: 'dim' }, 'Bucket #' + b.id + ' '), keySummary(b.key)),
					h('div', { class: 'verdict-line' }, stateBadge(b), ' ', fmtInt(b.mismatches) + ' mismatch' + (b.mismatches === 1 ? '' : 'es'),
						' in ' + (b.runs || []).length + ' run' + ((b.runs || []).length === 1 ? '' : 's') + ' (or submitted)',
						b.assignee ? [' · assigned to ', h('strong', { 'data-testid': 'bucket-assignee' }, b.assignee)] : null)),
				b.reappeared ? h('div', { class: 'notice error', role: 'alert', 'data-testid': 'reappeared-notice' },
					h('strong', null, 'Fixed, but seen again: '), 'a mismatch of this bucket was stored ',
					b.reappeared.run_id ? ['in ', h('a', { href: '#/runs/' + b.reappeared.run_id }, 'run #' + b.reappeared.run_id)] : 'from a submitted case',
					' ', timeEl(b.reappeared.at), ' after it was marked fixed. Set a state to answer it.') : null,
				h('div', { class: 'two-col' },
					h('section', { class: 'panel', 'aria-labelledby': 'h-key' }, h('h2', { id: 'h-key' }, 'How these mismatches differ'), keyTable(b.key),
						h('p', { class: 'meta' }, 'First seen ', timeEl(b.first_seen && b.first_seen.at),
							b.first_seen && b.first_seen.run_id ? [' in ', h('a', { href: '#/runs/' + b.first_seen.run_id }, 'run #' + b.first_seen.run_id)] : '',
							' · last seen ', timeEl(b.last_seen && b.last_seen.at),
							b.last_seen && b.last_seen.run_id ? [' in ', h('a', { href: '#/runs/' + b.last_seen.run_id }, 'run #' + b.last_seen.run_id)] : '')),
					h('section', { class: 'panel', 'aria-labelledby': 'h-triage' }, h('h2', { id: 'h-triage' }, 'Triage'),
						triageForm(ctx, b, function () { load(); }))),
				h('section', { class: 'panel', 'aria-labelledby': 'h-audit' }, h('h2', { id: 'h-audit' }, 'Audit trail'), auditTrail(b.events)),
				h('section', { class: 'panel', 'aria-labelledby': 'h-rep' },
					h('h2', { id: 'h-rep' }, 'Representative: ', rep.case_id ? h('a', { href: '#/cases/' + rep.case_id + '?comparison=' + rep.comparison_id }, rep.title || 'case #' + rep.case_id) : '—'),
					repBox),
				h('section', { class: 'panel', 'aria-labelledby': 'h-bruns' }, h('h2', { id: 'h-bruns' }, 'Runs'),
					(b.runs || []).length ? h('table', { class: 'list', 'data-testid': 'bucket-runs' },
						h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col', class: 'num' }, 'Mismatches'), h('th', { scope: 'col' }, 'Started'))),
						h('tbody', null, b.runs.map(function (r) {
							var qq = new URLSearchParams(); if (r.run_id) qq.set('run', r.run_id); else qq.set('run', 'submitted');
							return h('tr', null, h('td', null, r.run_id ? h('a', { href: '#/runs/' + r.run_id }, 'run #' + r.run_id) : 'submitted cases'),
								h('td', { class: 'num' }, h('a', { href: hashFor('/buckets/' + b.id, qq) }, fmtInt(r.mismatches))),
								h('td', null, timeEl(r.run_created_at)));
						}))) : h('p', { class: 'empty' }, 'None.')),
				h('section', { class: 'panel', 'aria-labelledby': 'h-mism' },
					h('h2', { id: 'h-mism' }, 'Mismatches', runFilter ? h('span', { class: 'dim' }, ' in ' + (runFilter === 'submitted' ? 'submitted cases' : 'run #' + runFilter) + ' ') : null,
						runFilter ? h('a', { href: '#/buckets/' + b.id, class: 'small-text' }, '(all)') : null), mism.el));
			setTitle('Bucket #' + b.id + ' (' + b.state + ')');
			if (rep.case_id) {
				ctx.api('/api/cases/' + rep.case_id + '?comparison=' + rep.comparison_id).then(function (d) {
					var results = d.results || {};
					replace(repBox, resultsGrid(sortedRoles(results), results, d.differs || [], d.case || {}));
				}, function (e) { if (!isAbort(e)) replace(repBox, errorBox(e)); });
			}
		}
		load();
		return { onQuery: function (nq) { runFilter = nq.get('run'); clear(main); main.append(loading('bucket #' + id)); load(); } };
	}

	function mismatchTable(ctx, b, run) {
		var tbody = h('tbody'), more = h('div', { class: 'more' }), status = h('div');
		var table = h('table', { class: 'list', 'data-testid': 'mismatch-list' },
			h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Case'), h('th', { scope: 'col' }, 'Title'),
				h('th', { scope: 'col', class: 'hide-narrow' }, 'Flags'), h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'When'))), tbody);
		function load(url) {
			replace(more, loading('mismatches'));
			ctx.api(url).then(function (d) {
				(d.mismatches || []).forEach(function (m) {
					tbody.append(h('tr', { 'data-testid': 'mismatch-row' },
						h('td', { class: 'num' }, h('a', { href: '#/cases/' + m.case_id + '?comparison=' + m.comparison_id }, m.case_id)),
						h('td', { class: 'title' }, h('a', { href: '#/cases/' + m.case_id + '?comparison=' + m.comparison_id }, m.title || 'untitled')),
						h('td', { class: 'mono hide-narrow flags' }, flagsText(m.flags, m.flag_names)),
						h('td', null, m.run_id ? h('a', { href: '#/runs/' + m.run_id }, '#' + m.run_id) : h('span', { class: 'dim' }, 'submitted')),
						h('td', { class: 'nowrap' }, timeEl(m.created_at))));
				});
				if (!tbody.firstChild) replace(status, h('p', { class: 'empty' }, 'None.'));
				replace(more, d.next ? h('button', { type: 'button', onclick: function () { load(d.next); } }, 'Load more') : null);
			}, function (e) { if (!isAbort(e)) replace(more, errorBox(e)); });
		}
		load('/api/buckets/' + b.id + '/mismatches?limit=50' + (run ? '&run=' + encodeURIComponent(run) : ''));
		return { el: h('div', null, h('div', { class: 'scroll-x' }, table), status, more) };
	}

	function sortedRoles(results) {
		return Object.keys(results).sort(function (a, b) {
			var o = { base: 0, head: 1 };
			return (a in o ? o[a] : 2) - (b in o ? o[b] : 2) || (a < b ? -1 : 1);
		});
	}

	/* A case's bucket, on the case page: state, link, and a quick state change. */
	function caseBucketPanel(ctx, b, onSaved) {
		var msg = h('span', { 'aria-live': 'polite' });
		var sel = h('select', { 'aria-label': 'State of this bucket', 'data-testid': 'case-bucket-state' },
			STATES.map(function (s) { return h('option', { value: s, selected: s === b.state }, s); }));
		var save = h('button', { type: 'button', 'data-testid': 'case-bucket-save' }, 'Set');
		save.addEventListener('click', function () {
			if (needName(msg)) return;
			save.disabled = true;
			postTriage(ctx, [b.id], { state: sel.value }).then(function (nb) {
				save.disabled = false;
				replace(msg, h('span', { class: 'ok-text', role: 'status' }, 'Saved.'));
				if (onSaved) onSaved(nb);
			}, function (e) { if (!isAbort(e)) { save.disabled = false; replace(msg, errorBox(e)); } });
		});
		return h('section', { class: 'panel bucket-panel', 'aria-labelledby': 'h-cbucket', 'data-testid': 'case-bucket' },
			h('h2', { id: 'h-cbucket' }, 'Triage: ', h('a', { href: '#/buckets/' + b.id, 'data-testid': 'case-bucket-link' }, 'bucket #' + b.id), ' ',
				stateBadge(b), h('span', { class: 'dim' }, ' · ' + fmtInt(b.mismatches) + ' mismatch' + (b.mismatches === 1 ? '' : 'es') + ' like this')),
			h('p', null, keySummary(b.key), b.assignee ? [' · assigned to ', h('strong', null, b.assignee)] : null,
				b.notes ? h('div', { class: 'notes' }, b.notes) : null),
			h('div', { class: 'actions' }, sel, save, identityBox(), msg));
	}

	/* --------------------------------------------------- instruction counts */

	var SHOW = ['significant', 'regressions', 'all'];

	/* #/runs/ID/counts?threshold=1&show=significant&sort=delta&dir=desc&workload=FILE */
	function instructionsView(ctx, params, query) {
		var id = params[0];
		setTitle('Instruction counts, run #' + id);
		var q = query, data = null, lastThreshold = null;
		var head = h('div', null, loading('instruction counts'));
		var filters = h('div', { class: 'filters' });
		var tableBox = h('div');
		var chartBox = h('div', { 'data-testid': 'chart-box' });
		main.append(h('h1', null, 'Instruction counts ', h('span', { class: 'dim' }, '· ', h('a', { href: '#/runs/' + id }, 'run #' + id))),
			h('section', { class: 'panel', 'aria-labelledby': 'h-counts' }, h('h2', { id: 'h-counts', class: 'visually-hidden' }, 'Workloads'),
				head, filters, tableBox),
			h('section', { class: 'panel', 'aria-labelledby': 'h-chart' }, h('h2', { id: 'h-chart' }, 'History'), chartBox));

		function threshold() { var t = Number(q.get('threshold')); return q.get('threshold') !== null && isFinite(t) && t >= 0 ? t : 1; }
		function setQuery(k, v) { var qq = new URLSearchParams(q); if (v === null || v === '') qq.delete(k); else qq.set(k, v); navigate(hashFor('/runs/' + id + '/counts', qq)); }

		function load() {
			lastThreshold = threshold();
			return ctx.api('/api/runs/' + id + '/measurements?threshold=' + encodeURIComponent(lastThreshold)).then(function (d) {
				data = d;
				draw();
			}, function (e) { if (!isAbort(e)) replace(head, errorBox(e, load)); });
		}

		function draw() {
			var d = data, c = d.counts || {};
			var tInput = h('input', { type: 'number', min: '0', max: '1000', step: '0.1', value: String(threshold()), class: 'threshold', 'data-testid': 'threshold',
				'aria-label': 'Threshold in percent' });
			tInput.addEventListener('change', function () { setQuery('threshold', tInput.value === '1' ? null : tInput.value); });
			replace(head, h('div', { class: 'counts-head' },
				h('p', null, 'base ', h('strong', null, (d.builds && d.builds.base.name) + ' ' + (d.builds && d.builds.base.version)),
					' vs head ', h('strong', null, (d.builds && d.builds.head.name) + ' ' + (d.builds && d.builds.head.version)),
					': instructions per json_encode() call (callgrind, inclusive, ÷ iterations). ', badge('run', d.status)),
				h('p', { class: 'count-line', 'data-testid': 'count-line' },
					h('span', { class: 'bad-text' }, fmtInt(c.regressions) + ' regression' + (c.regressions === 1 ? '' : 's')), ' · ',
					h('span', { class: 'ok-text' }, fmtInt(c.improvements) + ' improvement' + (c.improvements === 1 ? '' : 's')), ' · ',
					fmtInt(c.unchanged) + ' within ±', h('label', null, tInput, ' %'),
					c.unmeasured ? ' · ' + c.unmeasured + ' not measured' : '', ' · ',
					h('a', { href: '/api/runs/' + id + '/report.md?threshold=' + threshold(), 'data-testid': 'report-md' }, 'report.md'))));
			replace(filters, filterBar('Show', 'show', SHOW, '/runs/' + id + '/counts', withDefault(q, 'show', 'significant'),
				{ significant: (c.regressions || 0) + (c.improvements || 0), regressions: c.regressions, all: (d.workloads || []).length }));
			drawTable();
			drawChart();
		}

		function withDefault(qq, k, v) { var x = new URLSearchParams(qq); if (!x.get(k)) x.set(k, v); return x; }

		function drawTable() {
			var show = q.get('show') || 'significant', sort = q.get('sort') || 'delta', dir = q.get('dir') || (sort === 'title' ? 'asc' : 'desc');
			var rows = (data.workloads || []).filter(function (w) {
				if (show === 'regressions') return w.change === 'regression';
				if (show === 'significant') return w.change === 'regression' || w.change === 'improvement';
				return true;
			});
			function key(w) {
				if (sort === 'title') return (w.title || '').toLowerCase();
				if (sort === 'base') return w.base.instructions;
				if (sort === 'head') return w.head.instructions;
				return w.delta_pct;
			}
			rows.sort(function (a, b) {
				var x = key(a), y = key(b);
				if (x === null || x === undefined) return 1;
				if (y === null || y === undefined) return -1;
				return (x < y ? -1 : x > y ? 1 : 0) * (dir === 'asc' ? 1 : -1);
			});
			function th(label, k, cls) {
				var active = sort === k, nextDir = active && dir === 'desc' ? 'asc' : 'desc';
				var qq = new URLSearchParams(q); qq.set('sort', k); qq.set('dir', nextDir);
				return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (dir === 'asc' ? 'ascending' : 'descending') : null },
					h('a', { href: hashFor('/runs/' + id + '/counts', qq), class: 'sort', 'data-testid': 'sort-' + k }, label, active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''));
			}
			var wl = q.get('workload');
			var allQ = new URLSearchParams(q); allQ.set('show', 'all');
			replace(tableBox, rows.length ? h('div', { class: 'scroll-x' }, h('table', { class: 'list instr', 'data-testid': 'counts-table' },
				h('thead', null, h('tr', null, th('Workload', 'title'), th('base', 'base', 'num'), th('head', 'head', 'num'), th('Δ %', 'delta', 'num'),
					h('th', { scope: 'col', class: 'hide-narrow' }, 'callgrind'))),
				h('tbody', null, rows.map(function (w) {
					var qq = new URLSearchParams(q); qq.set('workload', w.source || ('case:' + w.case_id));
					var cls = w.change === 'regression' ? 'bad-text' : w.change === 'improvement' ? 'ok-text' : 'dim';
					return h('tr', { 'data-testid': 'counts-row', 'data-change': w.change, 'data-source': w.source || '',
						class: (w.source || 'case:' + w.case_id) === wl ? 'current' : null },
						h('td', { class: 'title' }, h('a', { href: hashFor('/runs/' + id + '/counts', qq), title: 'Show its history', 'data-testid': 'workload-link' }, w.title),
							w.source ? h('div', { class: 'dim small-text mono' }, w.source) : null),
						h('td', { class: 'num mono' }, fmtNum(w.base.instructions)),
						h('td', { class: 'num mono' }, fmtNum(w.head.instructions)),
						h('td', { class: 'num mono ' + cls, 'data-testid': 'delta' }, w.delta_pct === null ? '—' : (w.delta_pct > 0 ? '+' : w.delta_pct < 0 ? '−' : '±') + Math.abs(w.delta_pct).toFixed(2)),
						h('td', { class: 'hide-narrow small-text' },
							w.base.callgrind_url ? h('a', { href: w.base.callgrind_url }, 'base') : null, ' ',
							w.head.callgrind_url ? h('a', { href: w.head.callgrind_url }, 'head') : null, ' ',
							h('a', { href: '#/cases/' + w.case_id + '?comparison=' + w.comparison_id }, 'case')));
				})))) : h('p', { class: 'empty', 'data-testid': 'counts-empty' },
				(data.workloads || []).length ? 'No workload changed by ' + threshold() + ' % or more. ' : 'This run measured no workloads (run the measure suite).',
				(data.workloads || []).length ? h('a', { href: hashFor('/runs/' + id + '/counts', allQ), 'data-testid': 'show-all' }, 'Show all') : null));
		}

		var chartFor = null;
		function drawChart() {
			var wl = q.get('workload');
			if (!wl) {
				var first = (data.workloads || [])[0];
				replace(chartBox, h('p', { class: 'hint' }, 'Choose a workload above to see its instructions per call across runs, per build.'));
				chartFor = null;
				return first;
			}
			if (chartFor === wl) return;
			chartFor = wl;
			replace(chartBox, workloadHistory(ctx, wl));
		}

		load();
		return { onQuery: function (nq) {
			q = nq;
			if (threshold() !== lastThreshold) { load(); return; }
			if (data) draw();
		} };
	}

	function fmtNum(v) { return v === null || v === undefined ? '—' : Number(v).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }); }

	/* A workload's instructions per call across runs: a chart per build (uPlot) and the table. */
	function workloadHistory(ctx, wl) {
		var box = h('div', { class: 'history', 'data-testid': 'workload-history', 'data-workload': wl }, loading('history'));
		var url = wl.indexOf('case:') === 0 ? '/api/workloads/history?case=' + encodeURIComponent(wl.slice(5)) :
			'/api/workloads/history?source=' + encodeURIComponent(wl);
		ctx.api(url + '&limit=100').then(function (d) {
			var pts = (d.points || []).slice().reverse();   /* oldest first */
			if (!pts.length) { replace(box, h('p', { class: 'empty' }, 'No measurements of this workload yet.')); return; }
			var title = pts[pts.length - 1].title;
			var chart = h('div', { class: 'chart', 'data-testid': 'history-chart' });
			replace(box, [h('h3', null, title, ' ', h('span', { class: 'dim mono small-text' }, wl)), chart,
				h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'history-points' },
					h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'base'), h('th', { scope: 'col', class: 'num' }, 'instr/call'),
						h('th', { scope: 'col' }, 'head'), h('th', { scope: 'col', class: 'num' }, 'instr/call'), h('th', { scope: 'col', class: 'num' }, 'Δ %'))),
					h('tbody', null, pts.slice().reverse().map(function (p) {
						var b = p.base.instructions, hd = p.head.instructions;
						var dp = b && hd !== null ? 100 * (hd - b) / b : null;
						return h('tr', null, h('td', null, h('a', { href: '#/runs/' + p.run_id + '/counts?workload=' + encodeURIComponent(wl) }, '#' + p.run_id), ' ', timeEl(p.run_created_at)),
							h('td', { class: 'mono small-text', title: 'sha256 ' + p.base.sha256_prefix }, p.base.build + ' ' + p.base.version),
							h('td', { class: 'num mono' }, fmtNum(b)),
							h('td', { class: 'mono small-text', title: 'sha256 ' + p.head.sha256_prefix }, p.head.build + ' ' + p.head.version),
							h('td', { class: 'num mono' }, fmtNum(hd)),
							h('td', { class: 'num mono' }, dp === null ? '—' : (dp > 0 ? '+' : '') + dp.toFixed(2)));
					}))))]);
			drawHistoryChart(chart, pts);
		}, function (e) { if (!isAbort(e)) replace(box, errorBox(e)); });
		return box;
	}

	function drawHistoryChart(el, pts) {
		if (!window.uPlot) {
			replace(el, h('p', { class: 'notice warning' }, 'The chart library is not installed (make web-deps); the table below has the figures.'));
			return;
		}
		var xs = pts.map(function (p) { return p.run_id; });
		var base = pts.map(function (p) { return p.base.instructions; });
		var head = pts.map(function (p) { return p.head.instructions; });
		var width = Math.max(320, Math.min(900, (main.clientWidth || 900) - 64));
		var css = getComputedStyle(document.documentElement);
		var fg = css.getPropertyValue('--fg').trim() || '#222';
		/* uPlot draws on a canvas; one line per build, x = run number. */
		var opts = {
			width: width, height: 260,
			scales: { x: { time: false } },
			legend: { live: true },
			cursor: { drag: { x: false, y: false } },
			axes: [
				{ label: 'run', stroke: fg, values: function (u, vals) { return vals.map(function (v) { return Number.isInteger(v) ? '#' + v : ''; }); } },
				{ label: 'instructions / call', stroke: fg, size: 70 }
			],
			series: [
				{ label: 'run' },
				{ label: 'base', stroke: '#2563eb', width: 2, points: { show: true, size: 6 } },
				{ label: 'head', stroke: '#dc2626', width: 2, points: { show: true, size: 6 } }
			]
		};
		try {
			el.uplot = new window.uPlot(opts, [xs, base, head], el);
		} catch (e) {
			replace(el, h('p', { class: 'notice warning' }, 'Could not draw the chart: ' + e.message));
		}
	}

	/* #/workloads?source=FILE (or ?case=ID): one workload's history. */
	function workloadView(ctx, params, query) {
		var wl = query.get('source') || (query.get('case') ? 'case:' + query.get('case') : '');
		setTitle('Workload history');
		main.append(h('h1', null, 'Workload history'),
			h('section', { class: 'panel' }, wl ? workloadHistory(ctx, wl) : h('p', { class: 'empty' }, 'Which workload? Add ?source=FILE or ?case=ID.')));
	}

	/* Overview: the latest measurement's biggest changes. */
	function latestMeasurement(ctx, box) {
		function find(url, pages) {
			return ctx.api(url).then(function (d) {
				var r = (d.runs || []).filter(function (x) { return x.suite === 'measure' && (x.status === 'done' || x.status === 'running'); })[0];
				if (r) return r;
				if (d.next && pages < 5) return find(d.next, pages + 1);
				return null;
			});
		}
		return find('/api/runs?limit=100', 0).then(function (run) {
			if (!run) {
				replace(box, h('p', { class: 'empty', 'data-testid': 'no-measurement' }, 'No measurement yet. “Measure workloads” runs the 11 workloads under callgrind on both builds.'));
				return;
			}
			return ctx.api('/api/runs/' + run.id + '/measurements').then(function (d) {
				var w = (d.workloads || []).filter(function (x) { return x.delta_pct !== null; });
				var reg = w.filter(function (x) { return x.change === 'regression'; }).sort(function (a, b) { return b.delta_pct - a.delta_pct; }).slice(0, 3);
				var imp = w.filter(function (x) { return x.change === 'improvement'; }).sort(function (a, b) { return a.delta_pct - b.delta_pct; }).slice(0, 3);
				function li(x) {
					return h('li', { 'data-testid': 'top-change' }, h('a', { href: '#/runs/' + run.id + '/counts?show=all&workload=' + encodeURIComponent(x.source || 'case:' + x.case_id) }, x.title), ' ',
						h('span', { class: 'mono ' + (x.delta_pct > 0 ? 'bad-text' : 'ok-text') }, (x.delta_pct > 0 ? '+' : '−') + Math.abs(x.delta_pct).toFixed(1) + ' %'));
				}
				var c = d.counts || {};
				replace(box, [h('p', null, h('a', { href: '#/runs/' + run.id + '/counts', 'data-testid': 'latest-counts' }, 'Run #' + run.id), ' ', timeEl(run.finished_at || run.started_at), ': ',
					h('span', { class: 'bad-text' }, (c.regressions || 0) + ' regressions'), ', ', h('span', { class: 'ok-text' }, (c.improvements || 0) + ' improvements'),
					', ' + (c.unchanged || 0) + ' within ±' + d.threshold_pct + ' %.'),
				h('div', { class: 'two-col' },
					h('div', null, h('h3', null, 'Biggest regressions'), reg.length ? h('ol', { class: 'top' }, reg.map(li)) : h('p', { class: 'dim' }, 'none')),
					h('div', null, h('h3', null, 'Biggest improvements'), imp.length ? h('ol', { class: 'top' }, imp.map(li)) : h('p', { class: 'dim' }, 'none')))]);
			});
		}).catch(function (e) { if (!isAbort(e)) replace(box, errorBox(e)); });
	}

	/* A generated run's coverage report (run.summary.coverage): how often each piece, flag... was used. */
	function coverageView(cov) {
		var groups = Object.keys(cov || {});
		if (!groups.length) return null;
		var flat = {}, grouped = {};
		groups.forEach(function (g) { if (typeof cov[g] === 'number') flat[g] = cov[g]; else grouped[g] = cov[g]; });
		var sections = Object.keys(grouped).map(function (g) {
			var items = grouped[g], names = Object.keys(items);
			var max = Math.max.apply(null, names.map(function (n) { return items[n]; }).concat([1]));
			var zero = names.filter(function (n) { return !items[n]; });
			return h('div', { class: 'cov-group', 'data-testid': 'coverage-group', 'data-group': g },
				h('h3', null, g, h('span', { class: 'dim small-text' }, ' · ' + names.length + ' kinds' + (zero.length ? ', ' + zero.length + ' never used' : ', every one used'))),
				h('table', { class: 'list cov' }, h('tbody', null, names.map(function (n) {
					var v = items[n];
					return h('tr', { class: v ? null : 'uncovered' }, h('th', { scope: 'row', class: 'mono small-text' }, n),
						h('td', { class: 'num mono' }, fmtInt(v)),
						h('td', { class: 'bar-cell' }, h('span', { class: 'bar', style: null, 'data-w': Math.round(100 * v / max) })));
				}))));
		});
		var el = h('div', { class: 'coverage', 'data-testid': 'coverage' },
			Object.keys(flat).length ? h('p', null, Object.keys(flat).map(function (k, i) { return [i ? ' · ' : null, h('span', { class: 'mono' }, k), ' ' + fmtInt(flat[k])]; })) : null,
			sections);
		/* Widths through CSSOM, not style attributes. */
		el.querySelectorAll('.bar').forEach(function (b) { b.style.width = b.getAttribute('data-w') + '%'; });
		return el;
	}

	/* ------------------------------------------------------------------ start */

	refreshHealth().catch(function () {});
	setInterval(function () { refreshHealth().catch(function () {}); }, 15000);
	route();
})();
