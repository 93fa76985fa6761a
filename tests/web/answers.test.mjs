// web/js/components/answers.js: a case's builds grouped by identical answer (issue 45).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerKey, answerText, groupAnswers } from '../../web/js/components/answers.js';

const ok = (output, extra = {}) => ({ status: 'ok', output, output_base64: null, error_code: 0, error_msg: 'No error', exception: null, ...extra });

test('groupAnswers: builds with the same answer share a line, in role order', () => {
	const results = {
		cand2: { ...ok('[{}]'), build: 'rc1', php_version: '8.1.0RC1' },
		head: { ...ok('{}'), build: 'head', php_version: '8.2.36' },
		base: { ...ok('{}'), build: 'base', php_version: '8.2.32' },
	};
	const g = groupAnswers(results);
	assert.deepEqual(g.map((x) => x.roles), [['base', 'head'], ['cand2']]);
	assert.equal(answerText(g[0].result), '{}');
	assert.equal(answerText(g[1].result), '[{}]');
});

test('an unsupported build is a group of its own, with why; failures and throws say so', () => {
	const results = {
		base: ok('"mine"'),
		head: { status: 'error', output: false, failure: 'unsupported: does not compile: Cannot redeclare f()', unsupported: 'does not compile: Cannot redeclare f()' },
		cand2: { status: 'error', output: false, failure: 'unsupported: needs PHP 9.0 or newer', unsupported: 'needs PHP 9.0 or newer' },
	};
	const g = groupAnswers(results);
	assert.deepEqual(g.map((x) => x.roles), [['base'], ['head'], ['cand2']]);
	assert.equal(answerText(results.head), 'unsupported: does not compile: Cannot redeclare f()');
	assert.notEqual(answerKey(results.head), answerKey(results.cand2));
	assert.equal(answerText(ok(null, { exception: { class: 'RuntimeException', message: 'no' } })), 'throws RuntimeException: no');
	assert.equal(answerText(ok(false, { error_code: 5, error_msg: 'Malformed UTF-8' })), 'false (5: Malformed UTF-8)');
	assert.equal(answerText({ status: 'crash', failure: 'SIGSEGV' }), 'crash: SIGSEGV');
	// The same output but another error code is another answer.
	assert.notEqual(answerKey(ok(false, { error_code: 1 })), answerKey(ok(false, { error_code: 5 })));
});
