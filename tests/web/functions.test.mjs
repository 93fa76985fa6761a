// web/js/functions.js: the function diff's rows and per-call figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changed, functionRows, perCall, stripped } from '../../web/js/functions.js';

const data = {
	functions: [
		{ name: 'php_json_escape_string', delta_self: -31441800, change: 'less' },
		{ name: 'php_json_encode_array', delta_self: 21602800, change: 'more' },
		{ name: 'zend_dtoa', delta_self: 0, change: 'same' },
		{ name: '0x1b45a0', delta_self: 0, change: 'new' },
	],
};

test('perCall divides by the iterations; null without a count or iterations', () => {
	assert.equal(perCall(141533600, 200), 707668);
	assert.equal(perCall(null, 200), null);
	assert.equal(perCall(5, 0), null);
});

test('functionRows: changed ones by default (a function only one build has counts as changed), all on request', () => {
	assert.deepEqual(functionRows(data).map((f) => f.name), ['php_json_escape_string', 'php_json_encode_array', '0x1b45a0']);
	assert.equal(functionRows(data, 'all').length, 4);
	assert.deepEqual(functionRows(null), []);
	assert.equal(changed({ delta_self: 0, change: 'gone' }), true);
	assert.equal(changed({ delta_self: 0, change: 'same' }), false);
});

test('stripped: a dump that names no json_encoder.c function', () => {
	assert.equal(stripped({ json_encoder_c: null, symbols: { functions: 36, named: 17, with_file: 8 } }), true);
	assert.equal(stripped({ json_encoder_c: 92180600, symbols: { functions: 37, named: 36, with_file: 35 } }), false);
	assert.equal(stripped(undefined), false);
});
