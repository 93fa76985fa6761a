// web/js/components/released.js: released PHP's answers grouped by identical answer (issue 49).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupReleased, releasedKey, versionCmp, versionLabel } from '../../web/js/components/released.js';

const ok = (output, extra = {}) => ({ status: 'ok', output, output_base64: Buffer.from(output).toString('base64'), error_code: 0,
	error_msg: 'No error', exception: null, warnings: [], printed: '', printed_base64: '', ...extra });
const unsupported = (why) => ({ status: 'error', output: false, error_code: 0, error_msg: null, unsupported: why, warnings: [] });
const ref = (name, php_version, result, as = []) => ({ name, php_version, result, as });

test('versionCmp orders versions part by part, numerically', () => {
	assert.ok(versionCmp('8.1.34', '8.10.0') < 0);
	assert.ok(versionCmp('7.4.33', '8.0.30') < 0);
	assert.equal(versionCmp('8.5.10', '8.5.10'), 0);
	assert.ok(versionCmp('8.5.10', '8.5.9') > 0);
});

test('a backed enum: unsupported before 8.1 is one group whatever the words, 8.1 on the value, oldest first', () => {
	const refs = [
		ref('php-8.5', '8.5.10', ok('"h"'), ['base', 'head']),
		ref('php-7.4', '7.4.33', unsupported('does not compile: syntax error, unexpected \'Suit\'')),
		ref('php-8.1', '8.1.34', ok('"h"'), ['base', 'head']),
		ref('php-8.0', '8.0.30', unsupported('does not compile: syntax error, unexpected identifier "Suit"')),
		ref('php-8.2', '8.2.29', ok('"h"'), ['base', 'head']),
	];
	const { groups, failed } = groupReleased(refs);
	assert.equal(failed.length, 0);
	assert.deepEqual(groups.map((g) => g.label), ['7.4.33 – 8.0.30', '8.1.34 – 8.5.10']);
	assert.deepEqual(groups.map((g) => g.refs.map((r) => r.name)), [['php-7.4', 'php-8.0'], ['php-8.1', 'php-8.2', 'php-8.5']]);
	assert.deepEqual(groups[1].as, ['base', 'head']);
	assert.ok(groups[0].result.unsupported);
});

test('a warning alone splits a group (jsonSerialize without a return type: deprecated from 8.1)', () => {
	const dep = ['Deprecated: Return type of J::jsonSerialize() should either be compatible with JsonSerializable::jsonSerialize(): mixed'];
	const refs = [
		ref('php-7.4', '7.4.33', ok('[1]')),
		ref('php-8.0', '8.0.30', ok('[1]')),
		ref('php-8.1', '8.1.34', ok('[1]', { warnings: dep })),
		ref('php-8.5', '8.5.10', ok('[1]', { warnings: dep })),
	];
	const { groups } = groupReleased(refs);
	assert.deepEqual(groups.map((g) => g.label), ['7.4.33 – 8.0.30', '8.1.34 – 8.5.10']);
	assert.notEqual(releasedKey(refs[0].result), releasedKey(refs[2].result));
});

test('the same answer apart is one group labelled by its runs; a failed worker is listed apart', () => {
	const refs = [
		ref('php-7.4', '7.4.33', ok('1.0')),
		ref('php-8.0', '8.0.30', ok('1')),
		ref('php-8.1', '8.1.34', ok('1.0')),
		ref('php-8.2', '8.2.29', ok('1.0')),
		{ name: 'php-8.3', php_version: '', result: null, as: [], error: 'worker did not start' },
		ref('php-8.4', '8.4.14', ok('1')),
	];
	const { groups, failed } = groupReleased(refs);
	assert.deepEqual(groups.map((g) => g.label), ['7.4.33, 8.1.34 – 8.2.29', '8.0.30, 8.4.14']);
	assert.deepEqual(failed.map((r) => r.name), ['php-8.3']);
	assert.equal(versionLabel([{ php_version: '8.5.10' }], [0]), '8.5.10');
});

test('outputs differing only in bytes the display would hide are two answers', () => {
	const a = { ...ok('"\u00e9"'), output_base64: Buffer.from('"\u00e9"').toString('base64') };
	const b = { ...ok('"\u00e9"'), output: '"\\xc3"', output_base64: Buffer.from([0x22, 0xc3, 0x22]).toString('base64') };
	assert.notEqual(releasedKey(a), releasedKey(b));
	assert.equal(releasedKey(a), releasedKey({ ...a }));
});
