/*
 * phpcmp web page: a small hash-routed client of the JSON API (docs/api.md).
 *
 *   #/                 overview: builds, recent runs, recent cases (?verdict=&source=)
 *   #/new              submit a case (?from=ID prefills from a stored case)
 *   #/cases/ID         one case, both builds' results side by side
 *   #/runs/ID          one run: progress, counts, its cases (?verdict=)
 *
 * No build step and no libraries: DOM is built with h(), never from HTML
 * strings, so anything a case prints is inert text.
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
		if (opts.body !== undefined) {
			init.headers['Content-Type'] = 'application/json';
			init.body = JSON.stringify(opts.body);
		}
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
	 * and invalid UTF-8 bytes as chips.  Bytes in [diff.start, diff.end) are
	 * wrapped in <mark>; an empty diff range marks the insertion point.
	 */
	function renderBytes(b, from, to, diff) {
		var root = document.createDocumentFragment(), seg = null, buf = '';
		function flush() { if (buf) { seg.el.append(buf); buf = ''; } }
		function segFor(d) {
			if (seg && seg.d === d) return;
			if (seg) flush();
			seg = { d: d, el: d ? h('mark', { class: 'diff' }) : h('span') };
			root.append(seg.el);
		}
		function node(n, d) { segFor(d); flush(); seg.el.append(n); }
		function insMark() { if (seg) flush(); seg = null; root.append(h('mark', { class: 'diff ins', title: 'the other side has bytes here' })); }
		var ds = diff ? diff.start : -1, de = diff ? diff.end : -1;
		var i = from;
		while (i < to) {
			if (diff && ds === de && i === ds) insMark();
			var c = b[i], dec = decodeAt(b, i, to), len = dec ? dec[1] : 1;
			var d = diff ? (i < de && i + len > ds) : false;
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
		if (diff && ds === de && ds === to) insMark();
		if (seg) flush();
		return root;
	}

	/* Common prefix / common suffix: the differing region on each side, or null if equal. */
	function diffRange(a, b) {
		var n = Math.min(a.length, b.length), p = 0, s = 0;
		while (p < n && a[p] === b[p]) p++;
		if (p === a.length && p === b.length) return null;
		while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
		return { start: p, endA: a.length - s, endB: b.length - s };
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
				if (diff && diff.start > RENDER_LIMIT / 2) from = charStart(b, diff.start - 1024);
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
		var ds = diff ? diff.start : -1, de = diff ? diff.end : -1;
		from -= from % 16;
		for (var row = from; row < to; row += 16) {
			var line = h('span', { class: 'hexrow' });
			var off = row.toString(16);
			while (off.length < 8) off = '0' + off;
			line.append(h('span', { class: 'off' }, off), '  ');
			var ascii = '';
			for (var k = 0; k < 16; k++) {
				var i = row + k;
				if (i >= to) { line.append('   '); continue; }
				var x = hex2(b[i]), isd = diff && i >= ds && i < de;
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
		{ re: /^\/runs\/(\d+)$/, name: 'run', view: runView }
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

	function copyButton(label, getText, testid) {
		var btn = h('button', { type: 'button', 'data-testid': testid }, label);
		var msg = h('span', { class: 'copy-msg', role: 'status' });
		btn.addEventListener('click', function () {
			copyText(getText()).then(function () { msg.textContent = 'Copied.'; },
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
		var filters = h('div', { class: 'filters' });
		var cases = caseTable(ctx, 'No cases match. Submit one, or run the stored suite.');

		main.append(
			h('h1', { class: 'visually-hidden' }, 'Overview'),
			h('section', { class: 'panel', 'aria-labelledby': 'h-builds' },
				h('h2', { id: 'h-builds' }, 'Builds'), buildsBox),
			h('section', { class: 'panel', 'aria-labelledby': 'h-runs' },
				h('div', { class: 'panel-head' }, h('h2', { id: 'h-runs' }, 'Recent runs'), startBtn),
				startMsg, runsBox),
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

	function caseView(ctx, params) {
		var id = params[0];
		setTitle('Case #' + id);
		main.append(loading('case #' + id));
		function load() {
			ctx.api('/api/cases/' + id).then(function (d) {
				return getFlags().catch(function () {}).then(function () { return d; });
			}).then(function (d) {
				clear(main);
				renderCase(ctx, d);
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

	function renderCase(ctx, d) {
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
					h('a', { class: 'button', href: '#/new?from=' + id }, 'Edit & resubmit'),
					h('a', { class: 'button', href: '/api/cases/' + id }, 'JSON'))),
				h('div', { class: 'spec-main' },
					codeBlock('Setup', c.setup, 'case-setup'),
					codeBlock('Code', c.code, 'case-code'),
					c.expect !== null && c.expect !== undefined ? codeBlock('Expect', c.expect, 'case-expect') : null,
					h('details', { class: 'curl' }, h('summary', null, 'curl command'),
						h('pre', { class: 'code', 'data-testid': 'curl-text' }, curlFor(c))))),
			resultsGrid(names, results, differs, c),
			historySection(d.history || [], d.comparison_id));
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
			if (bytes[a] && bytes[b]) outDiff = diffRange(bytes[a], bytes[b]);
			if (printed[a] && printed[b]) prDiff = diffRange(printed[a], printed[b]);
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

		function side(d, idx) { return d ? { start: d.start, end: idx === 0 ? d.endA : d.endB } : null; }

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
				if (outDiff) meta.push(' · differs from byte ' + fmtInt(outDiff.start));
				if (expectBytes) {
					var ok = !diffRange(expectBytes, b);
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

	function historySection(history, currentId) {
		return h('section', { class: 'panel', 'aria-labelledby': 'h-history' },
			h('h2', { id: 'h-history' }, 'History'),
			history.length ? h('div', { class: 'scroll-x' }, h('table', { class: 'list', 'data-testid': 'history' },
				h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Comparison'),
					h('th', { scope: 'col' }, 'Run'), h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'When'))),
				h('tbody', null, history.map(function (x) {
					return h('tr', { 'data-testid': 'history-row', class: x.comparison_id === currentId ? 'current' : null },
						h('td', { class: 'num' }, x.comparison_id, x.comparison_id === currentId ? h('span', { class: 'dim' }, ' (shown)') : null),
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
		main.append(
			h('h1', null, 'Run #' + id, h('span', { id: 'run-suite', class: 'dim' })),
			h('section', { class: 'panel', 'aria-labelledby': 'h-run-status' },
				h('h2', { id: 'h-run-status', class: 'visually-hidden' }, 'Status'), headBox, actionMsg),
			h('section', { class: 'panel', 'aria-labelledby': 'h-run-cases' },
				h('h2', { id: 'h-run-cases' }, 'Cases'), filters, cases.el));

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
				replace(headBox, runHead(r, function (k) {
					var qq = new URLSearchParams(q); qq.set('verdict', k); return hashFor('/runs/' + id, qq);
				}, isActive(r.status) ? cancelButton() : null));
				drawFilters();
				var active = isActive(r.status);
				/* While running, refresh the first page of cases now and then
				 * (unless the reader has paged further); once more at the end. */
				polls++;
				if ((wasActive && !active) || (active && polls % 3 === 0 && cases.pages() <= 50)) cases.reload(casesUrl());
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
			if (lastRun) cases.reload(casesUrl());
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
			h('dt', null, 'Coverage'), h('dd', null, h('details', null,
				h('summary', null, fmtInt(cov.cases) + ' cases: how many used each piece, flag, class…'),
				groups.map(function (g) {
					return h('div', { class: 'mono' }, h('strong', null, g + ': '), Object.keys(cov[g]).map(function (k) {
						return k + ' ' + fmtInt(cov[g][k]);
					}).join(', '));
				})))
		];
	}

	/* ------------------------------------------------------------------ start */

	refreshHealth().catch(function () {});
	setInterval(function () { refreshHealth().catch(function () {}); }, 15000);
	route();
})();
