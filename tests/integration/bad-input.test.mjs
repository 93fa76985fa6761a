// Every bad-input class of docs/api.md: the right status, a precise JSON
// error, and nothing written to the database.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';
import { refuses } from './refuse-helper.mjs';

let d;
before(async () => {
	d = await Daemon.start({ name: 'bad-input' });
	// Something in the database to compare against.
	await d.runCase({ code: '1' });
});
after(async () => { await d?.stopClean(); });

const rejects = (...a) => refuses(d, ...a);
const json = (v) => ({ body: JSON.stringify(v) });

test('malformed JSON -> 400 bad_json with line/column', async () => {
	await rejects('POST', '/api/cases', { body: '{"code": ' }, 400, 'bad_json', /line|column/i);
	await rejects('POST', '/api/cases', { body: '{"code": "1",}' }, 400, 'bad_json', /line|column/i);
	await rejects('POST', '/api/cases', { body: '' }, 400, 'bad_json');
	await rejects('POST', '/api/cases', { body: '{"code":"1"} trailing' }, 400, 'bad_json');
	await rejects('POST', '/api/runs', { body: '{' }, 400, 'bad_json');
});

test('wrong types and values -> 400 bad_request naming the field', async () => {
	await rejects('POST', '/api/cases', json([1]), 400, 'bad_request');
	await rejects('POST', '/api/cases', json('code'), 400, 'bad_request');
	await rejects('POST', '/api/cases', json({}), 400, 'bad_request', /code/);
	await rejects('POST', '/api/cases', json({ code: 5 }), 400, 'bad_request', /code/);
	await rejects('POST', '/api/cases', json({ code: null }), 400, 'bad_request', /code/);
	await rejects('POST', '/api/cases', json({ code: '1', title: 5 }), 400, 'bad_request', /title/);
	await rejects('POST', '/api/cases', json({ code: '1', setup: [] }), 400, 'bad_request', /setup/);
	await rejects('POST', '/api/cases', json({ code: '1', depth: 'deep' }), 400, 'bad_request', /depth/);
	await rejects('POST', '/api/cases', json({ code: '1', depth: 0 }), 400, 'bad_request', /depth/);
	await rejects('POST', '/api/cases', json({ code: '1', depth: 2147483648 }), 400, 'bad_request', /depth/);
	await rejects('POST', '/api/cases', json({ code: '1', depth: 1.5 }), 400, 'bad_request', /depth/);
	await rejects('POST', '/api/cases', json({ code: '1', flags: {} }), 400, 'bad_request', /flags/);
	await rejects('POST', '/api/cases', json({ code: '1', flags: -1 }), 400, 'bad_request', /flags/);
	await rejects('POST', '/api/cases', json({ code: '1', flags: [1] }), 400, 'bad_request', /flags/);
	await rejects('POST', '/api/cases', json({ code: '1', expect: 3 }), 400, 'bad_request', /expect/);
	await rejects('POST', '/api/cases', json({ code: '1', measure: 0 }), 400, 'bad_request', /measure/);
	await rejects('POST', '/api/cases', json({ code: '1', measure: 1000001 }), 400, 'bad_request', /measure/);
	// An unknown field is refused, naming it (a typo is not silently ignored).
	await rejects('POST', '/api/cases', json({ code: '1', flag: 'JSON_HEX_TAG' }), 400, 'bad_request', /flag/);
	// Strings may not hold NUL; a title is at most 512 bytes.
	await rejects('POST', '/api/cases', json({ code: '1', title: 'a\u0000b' }), 400, 'bad_request', /title/);
	await rejects('POST', '/api/cases', json({ code: '"a\u0000"' }), 400, 'bad_request', /code/);
	await rejects('POST', '/api/cases', json({ code: '1', title: 't'.repeat(513) }), 400, 'bad_request', /title/);
	await rejects('POST', '/api/runs', json({ suite: 'stored', extra: 1 }), 400, 'bad_request', /extra/);
	await rejects('POST', '/api/runs', json({ suite: 'nope' }), 400, 'bad_request', /suite/);
	await rejects('POST', '/api/runs', json({}), 400, 'bad_request', /suite/);
	await rejects('GET', '/api/cases?limit=0', {}, 400, 'bad_request', /limit/);
	await rejects('GET', '/api/cases?limit=501', {}, 400, 'bad_request', /limit/);
	await rejects('GET', '/api/cases?limit=abc', {}, 400, 'bad_request', /limit/);
	await rejects('GET', '/api/cases?verdict=maybe', {}, 400, 'bad_request', /verdict/);
	await rejects('GET', '/api/cases?before=x', {}, 400, 'bad_request', /before/);
});

test('unknown flag name -> 400 unknown_flag naming it', async () => {
	await rejects('POST', '/api/cases', json({ code: '1', flags: 'JSON_NOPE' }), 400, 'unknown_flag', /JSON_NOPE/);
	await rejects('POST', '/api/cases', json({ code: '1', flags: 'JSON_HEX_TAG|JSON_BOGUS' }), 400, 'unknown_flag', /JSON_BOGUS/);
	await rejects('POST', '/api/cases', json({ code: '1', flags: ['JSON_HEX_TAG', 'JSON_NOPE2'] }), 400, 'unknown_flag', /JSON_NOPE2/);
	// json_decode-only flag names are not encode flags.
	await rejects('POST', '/api/cases', json({ code: '1', flags: 'JSON_OBJECT_AS_ARRAY' }), 400, 'unknown_flag', /JSON_OBJECT_AS_ARRAY/);
});

test('body over 1 MiB -> 413 too_large', async () => {
	const big = JSON.stringify({ code: `'${'x'.repeat(1 << 20)}'` });
	assert.ok(Buffer.byteLength(big) > 1 << 20);
	await rejects('POST', '/api/cases', { body: big, raw: true }, 413, 'too_large');
	// Just over the limit (whitespace: valid JSON but for the size).
	const over = Buffer.concat([Buffer.from('{"code":"1"}'), Buffer.alloc((1 << 20) + 1 - 12, 0x20)]);
	assert.equal(over.length, (1 << 20) + 1);
	await rejects('POST', '/api/cases', { body: over, raw: true }, 413, 'too_large');
	// The same with no Content-Length to lean on: chunked.
	await rejects('POST', '/api/cases', { body: over, chunked: true, raw: true }, 413, 'too_large');
	// Exactly 1 MiB is not over the limit.
	const exact = over.subarray(0, 1 << 20);
	const r = await d.request('POST', '/api/cases', { body: exact, raw: true });
	assert.equal(r.status, 201, r.text.slice(0, 300));
});

test('code or setup over 256 KiB (body under 1 MiB) -> 413 too_large', async () => {
	const code = `'${'x'.repeat(256 << 10)}'`;
	await rejects('POST', '/api/cases', json({ code }), 413, 'too_large', /code/);
	await rejects('POST', '/api/cases', json({ code: '1', setup: `/*${'x'.repeat(256 << 10)}*/` }), 413, 'too_large', /setup/);
});

test('a body just under the limits is accepted', async () => {
	const code = `strlen('${'x'.repeat((256 << 10) - 100)}')`;
	const res = await d.runCase({ code });
	assert.equal(res.results.base.output, String((256 << 10) - 100));
});

test('a body that is not application/json -> 415', async () => {
	await rejects('POST', '/api/cases', { body: '{"code":"1"}', headers: { 'Content-Type': 'text/plain' } }, 415, 'unsupported_media_type');
	await rejects('POST', '/api/cases', { body: 'code=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }, 415, 'unsupported_media_type');
	// With a charset parameter it is still JSON.
	const r = await d.request('POST', '/api/cases', { body: '{"code":"1"}', headers: { 'Content-Type': 'application/json; charset=utf-8' } });
	assert.equal(r.status, 201, r.text);
});

test('wrong method -> 405 with an Allow header', async () => {
	const cases = [
		['PUT', '/api/cases', ['GET', 'POST']],
		['DELETE', '/api/cases', ['GET', 'POST']],
		['POST', '/api/health', ['GET']],
		['DELETE', '/api/health', ['GET']],
		['POST', '/api/flags', ['GET']],
		['PUT', '/api/runs', ['GET', 'POST']],
		['PATCH', '/api/cases/1', ['GET']],
		['POST', '/api/cases/1', ['GET']],
		['GET', '/api/runs/1/cancel', ['POST']],
		['POST', '/', ['GET']],
		['DELETE', '/index.html', ['GET']],
	];
	for (const [method, path, allowed] of cases) {
		const r = await rejects(method, path, method === 'PUT' || method === 'POST' || method === 'PATCH' ? json({ code: '1' }) : {}, 405, 'method_not_allowed');
		// HEAD is accepted wherever GET is; whether Allow lists it is not checked.
		const allow = (r.headers.allow || '').split(',').map((s) => s.trim()).filter((m) => m && m !== 'HEAD').sort();
		assert.deepEqual(allow, allowed, `${method} ${path}: Allow: ${r.headers.allow}`);
	}
});

test('unknown id -> 404 not_found', async () => {
	await rejects('GET', '/api/cases/999999999', {}, 404, 'not_found');
	await rejects('GET', '/api/runs/999999999', {}, 404, 'not_found');
	await rejects('GET', '/api/runs/999999999/cases', {}, 404, 'not_found');
	await rejects('GET', '/api/cases/0', {}, 404, 'not_found');
	await rejects('GET', '/api/cases/abc', {}, 404, 'not_found');
	await rejects('GET', '/api/cases/1abc', {}, 404, 'not_found');
	await rejects('GET', '/api/cases/99999999999999999999999', {}, 404, 'not_found');
});

test('more than 16 query parameters -> 400, not silently dropped', async () => {
	const q = (n) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
	assert.equal((await d.request('GET', `/api/cases?${q(16)}`)).status, 200, '16 are taken');
	await rejects('GET', `/api/cases?${q(17)}`, {}, 400, 'bad_request', /query parameters/);
	await rejects('GET', `/api/cases?${q(16)}&limit=1`, {}, 400, 'bad_request', /at most 16/);
	await rejects('GET', `/api/runs?${q(40)}`, {}, 400, 'bad_request');
	await rejects('POST', `/api/cases?${q(17)}`, json({ code: '1' }), 400, 'bad_request');
});

test('unknown path -> 404 not_found', async () => {
	await rejects('GET', '/api/nope', {}, 404, 'not_found');
	await rejects('GET', '/api/cases/1/nope', {}, 404, 'not_found');
	await rejects('POST', '/api/nope', json({ code: '1' }), 404, 'not_found');
	await rejects('GET', '/api', {}, 404, 'not_found');
});

test('a PHP parse error is a case error (422 case_error at the user\'s line and column), nothing stored', async () => {
	const r = await rejects('POST', '/api/cases', json({ code: '((' }), 422, 'case_error',
		/^the case does not compile: value, line 1, column 3: Unclosed '\('$/);
	assert.deepEqual([r.json.error.section, r.json.error.line, r.json.error.column], ['value', 1, 3]);
});

test('an unknown query parameter on a write -> 400 bad_request, nothing written', async () => {
	await rejects('POST', '/api/cases?fail_on_difer=1', json({ code: '1' }), 400, 'bad_request',
		/^unknown query parameter fail_on_difer on POST \/api\/cases \(accepted: fail_on_differ fail_on_error references\)$/);
	await rejects('POST', '/api/runs?fail_on_differ=1', json({ suite: 'stored' }), 400, 'bad_request',
		/^fail_on_differ: needs wait=SECONDS/);
});
