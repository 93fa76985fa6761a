// web/js/builds.js and measure.js: columns per build, differences against
// the base, the instruction-count table's filters and order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildColour, candidates, candidateVerdicts, differsFromBase, orderRoles, pointRoles, rolesOf, shownRoles } from '../../web/js/builds.js';
import { SHOW, threshold, workloadKey, workloadRows } from '../../web/js/measure.js';

test('orderRoles and rolesOf: base, head, then the other candidates by name', () => {
	assert.deepEqual(orderRoles(['head', 'base']), ['base', 'head']);
	assert.deepEqual(orderRoles(['pr-1234', 'head', 'base', 'keys-only']), ['base', 'head', 'keys-only', 'pr-1234']);
	assert.deepEqual(orderRoles(['b', 'a']), ['a', 'b']);
	const input = ['head', 'base'];
	orderRoles(input);
	assert.deepEqual(input, ['head', 'base'], 'the input is not sorted in place');
	assert.deepEqual(rolesOf({ head: {}, base: {} }), ['base', 'head']);
	assert.deepEqual(rolesOf(null), []);
	assert.deepEqual(candidates(['base', 'head', 'keys-only']), ['head', 'keys-only']);
});

test('pointRoles: the per-build entries of a history point or measured workload', () => {
	const p = {
		run_id: 4, run_created_at: '2026-12-01T10:00:00Z', case_id: 101, comparison_id: 230, title: 'x',
		head: { build: 'head', version: '8.2.36', sha256_prefix: 'ab', instructions: 28158 },
		base: { build: 'base', version: '8.2.32', sha256_prefix: 'cd', instructions: null },
		'keys-only': { build: 'keys-only', instructions: 27000 },
		tags: ['a'],
	};
	assert.deepEqual(pointRoles(p), ['base', 'head', 'keys-only'], 'a null count is still a build');
	assert.deepEqual(pointRoles({}), []);
	assert.deepEqual(pointRoles(null), []);
});

test('differsFromBase: a candidate differs from the base; the base differs if any candidate does', () => {
	const eq = (a, b) => a === b;
	assert.deepEqual(differsFromBase(['x', 'x'], eq), [false, false]);
	assert.deepEqual(differsFromBase(['x', 'y'], eq), [true, true]);
	assert.deepEqual(differsFromBase(['x', 'x', 'y'], eq), [true, false, true]);
	assert.deepEqual(differsFromBase(['x'], eq), [false]);
	assert.notEqual(buildColour(0), buildColour(1));
	assert.equal(buildColour(0), '#2563eb');
	assert.equal(buildColour(1), '#dc2626');
});

const W = [
	{ title: 'B strings', source: 'workloads/b.phpt', base: { instructions: 300 }, head: { instructions: 330 }, delta_pct: 10, change: 'regression' },
	{ title: 'a slash', source: 'workloads/a.phpt', base: { instructions: 100 }, head: { instructions: 99.5 }, delta_pct: -0.5, change: 'unchanged' },
	{ title: 'c objects', source: null, case_id: 9, base: { instructions: 200 }, head: { instructions: 150 }, delta_pct: -25, change: 'improvement' },
	{ title: 'd crash', source: 'workloads/d.phpt', base: { instructions: null }, head: { instructions: 10 }, delta_pct: null, change: 'unmeasured' },
	{ title: 'e urls', source: 'workloads/e.phpt', base: { instructions: 50 }, head: { instructions: 51 }, delta_pct: 2, change: 'regression' },
];
const titles = (rows) => rows.map((w) => w.title);

test('workloadRows: significant by default, regressions only, all', () => {
	assert.deepEqual(SHOW, ['significant', 'regressions', 'all']);
	assert.deepEqual(titles(workloadRows(W)), ['B strings', 'e urls', 'c objects'], 'by Δ %, biggest first');
	assert.deepEqual(titles(workloadRows(W, { show: 'regressions' })), ['B strings', 'e urls']);
	assert.equal(workloadRows(W, { show: 'all' }).length, 5);
	assert.deepEqual(W.map((w) => w.title)[0], 'B strings', 'the input keeps its order');
	assert.deepEqual(workloadRows(null), []);
});

test('workloadRows: sorted by title, by a build\'s count or by Δ %, missing values last', () => {
	const all = { show: 'all' };
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'title' })), ['a slash', 'B strings', 'c objects', 'd crash', 'e urls'], 'title: A to Z, ignoring case');
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'title', dir: 'desc' })), ['e urls', 'd crash', 'c objects', 'B strings', 'a slash']);
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'base', dir: 'asc' })), ['e urls', 'a slash', 'c objects', 'B strings', 'd crash'], 'no count: last');
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'base', dir: 'desc' })), ['B strings', 'c objects', 'a slash', 'e urls', 'd crash'], 'last either way');
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'head', dir: 'asc' })), ['d crash', 'e urls', 'a slash', 'c objects', 'B strings']);
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'delta', dir: 'asc' })), ['c objects', 'a slash', 'e urls', 'B strings', 'd crash']);
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'bogus' })), titles(workloadRows(W, { ...all, sort: 'delta' })), 'an unknown key sorts by Δ %');
	assert.deepEqual(titles(workloadRows(W, { ...all, sort: 'change' })), titles(workloadRows(W, { ...all, sort: 'delta' })), 'so does a field that is no build');
});

test('threshold and workloadKey: ?threshold= as a percentage, ?workload= keys', () => {
	const q = (s) => new URLSearchParams(s);
	assert.equal(threshold(q('')), 1);
	assert.equal(threshold(q('threshold=2.5')), 2.5);
	assert.equal(threshold(q('threshold=0')), 0);
	assert.equal(threshold(q('threshold=-1')), 1);
	assert.equal(threshold(q('threshold=abc')), 1);
	assert.equal(threshold(q('threshold=Infinity')), 1);
	assert.equal(threshold(q('threshold=')), 0, 'an empty value is Number(\'\') = 0, as before');
	assert.equal(workloadKey(W[0]), 'workloads/b.phpt');
	assert.equal(workloadKey(W[2]), 'case:9');
});

test('candidateVerdicts and shownRoles: every build up to three, else the base and one candidate', () => {
	const cands = candidateVerdicts({
		'keys-only': { role: 'cand3', verdict: 'differ', differs: ['output'] },
		head: { role: 'head', verdict: 'same', differs: [] },
		twin: { role: 'cand2', verdict: 'differ', differs: ['error_code'] },
	});
	assert.deepEqual(cands.map((x) => x.name), ['head', 'twin', 'keys-only'], 'in role order');
	assert.deepEqual(candidateVerdicts(undefined), []);
	assert.deepEqual(shownRoles(['base', 'head'], [], null), ['base', 'head']);
	assert.deepEqual(shownRoles(['base', 'head', 'cand2'], cands, 'cand2'), ['base', 'head', 'cand2'], 'three fit');
	const four = ['base', 'head', 'cand2', 'cand3'];
	assert.deepEqual(shownRoles(four, cands, null), ['base', 'cand2'], 'the first that differs');
	assert.deepEqual(shownRoles(four, cands, 'cand3'), ['base', 'cand3']);
	assert.deepEqual(shownRoles(four, cands, 'base'), ['base', 'cand2'], '?vs=base is no candidate');
	assert.deepEqual(shownRoles(four, cands, 'cand7'), ['base', 'cand2'], 'nor an absent one');
	assert.deepEqual(shownRoles(four, [], null), ['base', 'head']);
	assert.deepEqual(orderRoles(['cand3', 'cand2', 'head', 'base']), ['base', 'head', 'cand2', 'cand3']);
});

test('workloadRows: with candidates, any candidate\'s change makes a row significant', () => {
	const w = [
		{ title: 'x', delta_pct: 0.1, change: 'unchanged', candidates: { head: { change: 'unchanged' }, k: { change: 'improvement' } } },
		{ title: 'y', delta_pct: 0.0, change: 'unchanged', candidates: { head: { change: 'unchanged' }, k: { change: 'unchanged' } } },
		{ title: 'z', delta_pct: 0.0, change: 'unchanged', candidates: { head: { change: 'unchanged' }, k: { change: 'regression' } } },
	];
	assert.deepEqual(workloadRows(w).map((r) => r.title).sort(), ['x', 'z']);
	assert.deepEqual(workloadRows(w, { show: 'regressions' }).map((r) => r.title), ['z']);
});
