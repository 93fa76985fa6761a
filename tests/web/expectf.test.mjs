// A case's --EXPECTF-- on the page (issue 46): the daemon matches the
// pattern (run-tests' placeholders), so the results grid says each build's
// match from the answer's "expected", never by comparing the pattern's
// bytes; the curl body reproduces it with "expectf".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installFakeDom } from './fakedom.mjs';
import { loadJsdiff } from './helper.mjs';

const b64 = (s) => Buffer.from(s, 'latin1').toString('base64');

installFakeDom();
globalThis.Diff = loadJsdiff();
const { resultsGrid } = await import('../../web/js/components/results.js');
const { caseBody } = await import('../../web/js/export.js');

const res = (out) => ({ build: 'x', status: 'ok', output: out, output_base64: b64(out), error_code: 0, error_msg: 'No error' });

test('resultsGrid: an --EXPECTF-- case says each build\'s match from the daemon\'s "expected"', () => {
	const c = { expect: '[%d,%d]', expectf: true, expected: { verdict: 'differ', differ: ['head'] } };
	const el = resultsGrid(['base', 'head'], { base: res('[1,2]'), head: res('[1,2,3]') }, ['expected'], c);
	assert.equal(el.byTestId('expect-base')[0].textContent, 'matches the --EXPECTF-- pattern');
	assert.equal(el.byTestId('expect-head')[0].textContent, 'does not match the --EXPECTF-- pattern');
	const exact = resultsGrid(['base'], { base: res('[1,2]') }, [], { expect: '[1,2]' });
	assert.equal(exact.byTestId('expect-base')[0].textContent, 'matches expect', 'an exact --EXPECT-- as before');
	const unknown = resultsGrid(['base'], { base: res('[1,2]') }, [], { expect: '[%d,%d]', expectf: true });
	assert.equal(unknown.byTestId('expect-base').length, 0, 'no "expected" (a bucket\'s representative): nothing said');
});

test('caseBody: "expectf" with an --EXPECTF-- pattern, left out otherwise', () => {
	assert.equal(caseBody({ title: 't', code: '[1]', expect: '[%d]', expectf: true }).expectf, true);
	assert.equal('expectf' in caseBody({ title: 't', code: '[1]', expect: '[1]', expectf: false }), false);
});
