/*
 * Hash routes and permalinks.  Every view and filter lives in the URL's
 * hash: "#/runs/4/counts?show=all&sort=delta".  parseHash, hashFor,
 * withParam and matchRoute are pure (tests/web/router.test.mjs); start()
 * binds the routes to the page.
 */
import { clear, h, setTitle } from './dom.js';
import { api, isAbort } from './api.js';

/* "#/runs/4?verdict=differ" -> { path: '/runs/4', query: URLSearchParams }. */
export function parseHash(hash) {
	const raw = (hash || '').replace(/^#/, '');
	const q = raw.indexOf('?');
	const path = q < 0 ? raw : raw.slice(0, q);
	return { path: path || '/', query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

/* The hash of a path and its query: hashFor('/runs/4', q) -> "#/runs/4?verdict=differ". */
export function hashFor(path, query) {
	const qs = query ? query.toString() : '';
	return `#${path}${qs ? `?${qs}` : ''}`;
}

/* A copy of query with key set to value (deleted when value is null, undefined or ''). */
export function withParam(query, key, value) {
	const q = new URLSearchParams(query);
	if (value === null || value === undefined || value === '') q.delete(key);
	else q.set(key, value);
	return q;
}

/*
 * The first route whose pattern matches the whole path:
 * { route, params } (the pattern's groups), or null.
 */
export function matchRoute(routes, path) {
	for (const route of routes) {
		const m = route.re.exec(path);
		if (m) return { route, params: m.slice(1) };
	}
	return null;
}

/*
 * A view's lifetime: its fetches are aborted and its timers stopped when
 * the route changes.  `main` is the element the view fills.
 */
export class Ctx {
	constructor(main) {
		this.main = main;
		this.ctrl = new AbortController();
		this.signal = this.ctrl.signal;
		this.alive = true;
		this.timers = [];
	}

	close() {
		this.alive = false;
		this.ctrl.abort();
		this.timers.forEach(clearTimeout);
	}

	api(path, opts = {}) {
		return api(path, { ...opts, signal: this.signal });
	}

	/* Call fn every ms until it resolves to false; never two calls at once. */
	poll(ms, fn) {
		const tick = () => {
			if (!this.alive) return;
			Promise.resolve().then(fn).then((again) => again, (e) => !isAbort(e))
				.then((again) => {
					if (again !== false && this.alive) this.timers.push(setTimeout(tick, ms));
				});
		};
		this.timers.push(setTimeout(tick, ms));
	}
}

let routes = [], main = null;
let current = null; /* { route, path, ctx, handle } */

function route() {
	const loc = parseHash(location.hash);
	const found = matchRoute(routes, loc.path);
	const r = found ? found.route : null;
	/* Same page, only the query changed: let the view refilter in place. */
	if (current && r && current.path === loc.path && current.handle && current.handle.onQuery) {
		current.handle.onQuery(loc.query);
		return;
	}
	if (current) current.ctx.close();
	const ctx = new Ctx(main);
	current = { route: r, path: loc.path, ctx, handle: null };
	clear(main);
	document.querySelectorAll('[data-nav]').forEach((a) => {
		if (r && a.getAttribute('data-nav') === r.name) a.setAttribute('aria-current', 'page');
		else a.removeAttribute('aria-current');
	});
	if (!r) {
		setTitle('Not found');
		main.append(h('h1', null, 'Not found'),
			h('p', null, 'Nothing lives at ', h('code', null, `#${loc.path}`), '. ',
				h('a', { href: '#/' }, 'Back to the overview'), '.'));
		return;
	}
	current.handle = r.view(ctx, found.params, loc.query) || null;
}

/* Go to a hash; the same hash again renders the view again. */
export function navigate(hash) {
	if (location.hash === hash) route();
	else location.hash = hash;
}

/* Route by the hash from now on: routes is [{ re, name, view(ctx, params, query) }]. */
export function start(routeList, mainEl) {
	routes = routeList;
	main = mainEl;
	window.addEventListener('hashchange', () => {
		const before = current && current.path;
		route();
		if (current && current.path !== before) {
			window.scrollTo(0, 0);
			main.focus({ preventScroll: true });
		}
	});
	route();
}
