// web/js/api.js: what an answer of the daemon means.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, isAbort, parseAnswer } from '../../web/js/api.js';

const res = (status, statusText = '') => ({ status, ok: status >= 200 && status < 300, statusText });

test('parseAnswer: JSON data on success, the API\'s own error otherwise', () => {
	assert.deepEqual(parseAnswer(res(200), '{"id":1}', 'GET', '/api/cases/1'), { id: 1 });
	assert.equal(parseAnswer(res(204), '', 'POST', '/x'), null, 'an empty body');
	assert.throws(() => parseAnswer(res(409), '{"error":{"code":"base_failed","message":"the base build crashed"}}', 'GET', '/p'),
		(e) => e instanceof ApiError && e instanceof Error && e.status === 409 && e.code === 'base_failed' &&
			e.message === 'the base build crashed' && e.name === 'ApiError');
	assert.throws(() => parseAnswer(res(503), '{"error":{"message":"full"}}', 'POST', '/p'),
		(e) => e.code === 'error' && e.message === 'full', 'a message without a code');
	/* A success that is not JSON. */
	assert.throws(() => parseAnswer(res(200), '<html>', 'GET', '/api/health'),
		(e) => e.code === 'bad_response' && e.message === 'GET /api/health answered something that is not JSON');
	/* A failure without the API's error object. */
	assert.throws(() => parseAnswer(res(502, 'Bad Gateway'), 'upstream down', 'POST', '/api/cases'),
		(e) => e.code === 'http_502' && e.status === 502 && e.message === 'POST /api/cases failed: Bad Gateway — upstream down');
	assert.throws(() => parseAnswer(res(500), '', 'GET', '/x'), (e) => e.message === 'GET /x failed: HTTP 500');
	assert.throws(() => parseAnswer(res(404), 'x'.repeat(500), 'GET', '/x'), (e) => e.message.length === 'GET /x failed: HTTP 404 — '.length + 200);
	assert.throws(() => parseAnswer(res(400), '{"error":"plain"}', 'GET', '/x'), (e) => e.code === 'http_400');
});

test('isAbort: only an AbortError', () => {
	assert.ok(isAbort(Object.assign(new Error('x'), { name: 'AbortError' })));
	assert.ok(isAbort(new DOMException('aborted', 'AbortError')));
	assert.ok(!isAbort(new ApiError(0, 'unreachable', 'x')));
	assert.ok(!isAbort(null));
});
