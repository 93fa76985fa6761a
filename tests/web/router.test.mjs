// web/js/router.js and routes.js: hashes, query parameters, permalinks,
// which view a path opens, a view's lifetime.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ctx, hashFor, matchRoute, parseHash, withParam } from '../../web/js/router.js';
import { routes } from '../../web/js/routes.js';

test('parseHash: the path and its query parameters', () => {
	const a = parseHash('#/runs/4/counts?threshold=2.5&show=all&sort=delta&dir=asc&workload=workloads%2F10-a-slash-b.phpt');
	assert.equal(a.path, '/runs/4/counts');
	assert.equal(a.query.get('threshold'), '2.5');
	assert.equal(a.query.get('show'), 'all');
	assert.equal(a.query.get('dir'), 'asc');
	assert.equal(a.query.get('workload'), 'workloads/10-a-slash-b.phpt', 'decoded');
	assert.equal(a.query.get('missing'), null);
	assert.equal(parseHash('').path, '/');
	assert.equal(parseHash('#').path, '/');
	assert.equal(parseHash(undefined).path, '/');
	assert.equal(parseHash('#?verdict=differ').path, '/', 'the overview with a filter');
	assert.equal(parseHash('#?verdict=differ').query.get('verdict'), 'differ');
	assert.equal(parseHash('#/buckets').query.toString(), '');
	const b = parseHash('#/cases/7?comparison=12&q=a+b%26c&q=2');
	assert.deepEqual(b.query.getAll('q'), ['a b&c', '2']);
	assert.equal(b.query.get('comparison'), '12');
	assert.equal(parseHash('#/new?from=3?x=1').query.get('from'), '3?x=1', 'only the first ? splits');
});

test('hashFor and withParam: permalinks that read back the same', () => {
	const q = new URLSearchParams('state=open&run=4');
	assert.equal(hashFor('/buckets', q), '#/buckets?state=open&run=4');
	assert.equal(hashFor('/buckets', new URLSearchParams()), '#/buckets');
	assert.equal(hashFor('/buckets', null), '#/buckets');
	const q2 = withParam(q, 'state', 'fixed');
	assert.equal(q2.toString(), 'state=fixed&run=4');
	assert.equal(q.toString(), 'state=open&run=4', 'the original is left alone');
	assert.equal(withParam(q, 'state', '').toString(), 'run=4', "'' removes the parameter");
	assert.equal(withParam(q, 'run', null).toString(), 'state=open');
	assert.equal(withParam(q, 'page', 2).toString(), 'state=open&run=4&page=2');
	const w = withParam(new URLSearchParams(), 'workload', 'workloads/a b&c.phpt');
	const back = parseHash(hashFor('/runs/2/counts', w));
	assert.equal(back.path, '/runs/2/counts');
	assert.equal(back.query.get('workload'), 'workloads/a b&c.phpt', 'round trip through the hash');
});

test('matchRoute: every view of the page by its path', () => {
	const name = (p) => {
		const m = matchRoute(routes, parseHash(p).path);
		return m ? [m.route.name, ...m.params] : null;
	};
	assert.deepEqual(name('#/'), ['overview']);
	assert.deepEqual(name(''), ['overview']);
	assert.deepEqual(name('#/new?from=5'), ['new']);
	assert.deepEqual(name('#/cases/17?comparison=21'), ['case', '17']);
	assert.deepEqual(name('#/runs/3'), ['run', '3']);
	assert.deepEqual(name('#/runs/3/counts?show=all'), ['counts', '3']);
	assert.deepEqual(name('#/buckets?state=reappeared'), ['buckets']);
	assert.deepEqual(name('#/buckets/12'), ['bucket', '12']);
	assert.deepEqual(name('#/workloads?source=workloads/01-jsonobj.phpt'), ['workload']);
	for (const bad of ['#/cases/abc', '#/cases/', '#/cases/1/x', '#/runs/1/counts/2', '#/nowhere', '#cases/1', '#/Cases/1'])
		assert.equal(name(bad), null, bad);
	for (const r of routes) assert.equal(typeof r.view, 'function', r.name);
	assert.equal(new Set(routes.map((r) => r.name)).size, routes.length, 'names are unique (the header\'s data-nav)');
});

test('Ctx: polls until told to stop, never twice at once; close aborts fetches and timers', async () => {
	const ctx = new Ctx(null);
	let calls = 0, running = 0, overlap = false;
	await new Promise((resolve) => {
		ctx.poll(1, async () => {
			calls++;
			if (running++) overlap = true;
			await new Promise((r) => setTimeout(r, 5));
			running--;
			if (calls === 3) {
				resolve();
				return false;
			}
			return true;
		});
	});
	await new Promise((r) => setTimeout(r, 20));
	assert.equal(calls, 3, 'false stops the polling');
	assert.equal(overlap, false);

	const ctx2 = new Ctx(null);
	let n = 0;
	ctx2.poll(1, () => { n++; return true; });
	await new Promise((r) => setTimeout(r, 15));
	ctx2.close();
	const seen = n;
	assert.ok(seen >= 1);
	await new Promise((r) => setTimeout(r, 15));
	assert.equal(n, seen, 'nothing runs after close');
	assert.ok(ctx2.signal.aborted);
	assert.equal(ctx2.alive, false);

	/* A failing poll goes on (the daemon may be restarting), an aborted one stops. */
	const ctx3 = new Ctx(null);
	let m = 0;
	await new Promise((resolve) => {
		ctx3.poll(1, () => {
			m++;
			if (m === 2) throw new Error('unreachable');
			if (m === 3) { resolve(); throw Object.assign(new Error('aborted'), { name: 'AbortError' }); }
			return true;
		});
	});
	await new Promise((r) => setTimeout(r, 15));
	assert.equal(m, 3);
	ctx.close();
	ctx3.close();
});
