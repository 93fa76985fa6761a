// A refused request, checked whole (bad-input.test.mjs, bad-ids.test.mjs):
// its status, a precise JSON error, and nothing written to the database.
import assert from 'node:assert/strict';
import { tableCounts } from './helper.mjs';

async function snapshot(d) {
	const cases = await d.listAll('/api/cases?limit=500');
	return { ids: cases.map((c) => c.id), tables: tableCounts(d.db) };
}

// Send a bad request to daemon d; check status, error code, message and
// that the database did not change.
export async function refuses(d, method, path, opts, status, code, messageRe) {
	const before = await snapshot(d);
	const r = await d.request(method, path, opts);
	const what = `${method} ${path} ${opts?.body !== undefined ? String(opts.body).slice(0, 80) : ''}`;
	assert.equal(r.status, status, `${what} -> ${r.status} ${r.text.slice(0, 300)}`);
	assert.match(r.headers['content-type'] || '', /^application\/json/, `${what}: error content type`);
	assert.ok(r.json && typeof r.json.error === 'object', `${what}: body is {"error":...}: ${r.text.slice(0, 300)}`);
	assert.equal(r.json.error.code, code, `${what}: error code`);
	assert.equal(typeof r.json.error.message, 'string');
	assert.ok(r.json.error.message.length > 0, 'a message');
	if (messageRe) assert.match(r.json.error.message, messageRe, `${what}: message`);
	const after = await snapshot(d);
	assert.deepEqual(after, before, `${what}: nothing written`);
	return r;
}
