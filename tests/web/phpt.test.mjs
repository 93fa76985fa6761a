// web/js/components/phpt.js: which tests of a phpt run each filter shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PHPT_FILTERS, phptCounts, phptFilter, phptMatches, phptRoles } from '../../web/js/components/phpt.js';

const roles = ['base', 'head', 'cand2'];
const row = (test, base, head, cand2, hv, cv) => ({
	test, base: { status: base }, head: { status: head, verdict: hv }, cand2: { status: cand2, verdict: cv },
});
const tests = [
	row('a.phpt', 'PASS', 'PASS', 'PASS', 'same', 'same'),
	row('reg.phpt', 'PASS', 'PASS', 'crash', 'same', 'regression'),
	row('imp.phpt', 'FAIL', 'PASS', 'FAIL', 'improvement', 'same'),
	row('skip.phpt', 'SKIP', 'SKIP', 'SKIP', 'same', 'same'),
	row('bork.phpt', 'BORK', 'BORK', 'BORK', 'same', 'same'),
];

test('phptRoles: the summary\'s builds in order, else base and head', () => {
	assert.deepEqual(phptRoles({ builds: [{ role: 'base' }, { role: 'head' }, { role: 'cand2' }] }), roles);
	assert.deepEqual(phptRoles({}), ['base', 'head']);
	assert.deepEqual(phptRoles(null), ['base', 'head']);
});

test('each filter: regressions and improvements on any candidate, failures and skips on any build', () => {
	const names = (f) => phptFilter(tests, f, roles).map((t) => t.test);
	assert.deepEqual(names(''), tests.map((t) => t.test));
	assert.deepEqual(names('regressions'), ['reg.phpt']);
	assert.deepEqual(names('improvements'), ['imp.phpt']);
	assert.deepEqual(names('failures'), ['reg.phpt', 'imp.phpt', 'bork.phpt']);
	assert.deepEqual(names('skips'), ['skip.phpt']);
	assert.deepEqual(names('nonsense'), []);
	// a candidate that is not a column does not count
	assert.equal(phptMatches(tests[1], 'regressions', ['base', 'head']), false);
	assert.deepEqual(phptCounts(tests, roles), { regressions: 1, improvements: 1, failures: 3, skips: 1 });
	assert.deepEqual(PHPT_FILTERS, ['', 'regressions', 'improvements', 'failures', 'skips']);
	assert.deepEqual(phptFilter(undefined, '', roles), []);
});
