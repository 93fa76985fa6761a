// GET /api/cases: newest first, keyset pagination, filters.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';

let d;
const submitted = []; // {id, verdict}, oldest first
before(async () => {
	d = await Daemon.start({ name: 'listing' });
	const codes = ['1', 'PHP_VERSION', "'two'", '[3]', '[PHP_VERSION]', "['five' => 5]", '6.5'];
	for (const code of codes) {
		const res = await d.runCase({ title: `listing ${code}`, code });
		submitted.push({ id: res.id, verdict: res.verdict, code });
	}
});
after(async () => { await d?.stopClean(); });

const ids = (list) => list.map((c) => c.id);
const desc = (xs) => [...xs].sort((a, b) => b - a);

test('newest first, with the summary fields', async () => {
	const r = await d.get('/api/cases?source=submitted');
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(ids(r.json.cases), desc(submitted.map((s) => s.id)));
	const newest = r.json.cases[0];
	const last = submitted[submitted.length - 1];
	assert.equal(newest.id, last.id);
	assert.equal(newest.title, `listing ${last.code}`);
	assert.equal(newest.verdict, 'same');
	assert.deepEqual(newest.differs, []);
	assert.equal(newest.flags, 0);
	assert.equal(newest.source, 'submitted');
	assert.match(newest.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
	const differ = r.json.cases.find((c) => c.id === submitted[1].id);
	assert.equal(differ.verdict, 'differ');
	assert.deepEqual(differ.differs, ['output']);
	assert.equal(r.json.next, null, 'everything fit on one page');
});

test('limit and next walk every page exactly once', async () => {
	const first = await d.get('/api/cases?source=submitted&limit=2');
	assert.equal(first.status, 200);
	assert.equal(first.json.cases.length, 2);
	assert.equal(typeof first.json.next, 'string');
	assert.match(first.json.next, /^\/api\/cases\?.*before=\d+/);
	assert.match(first.json.next, /limit=2/, 'next keeps the limit');
	assert.match(first.json.next, /source=submitted/, 'next keeps the filter');
	const all = await d.listAll('/api/cases?source=submitted&limit=2');
	assert.deepEqual(ids(all), desc(submitted.map((s) => s.id)), 'every case once, newest first');
	const pages = [];
	for (let url = '/api/cases?source=submitted&limit=2'; url;) {
		const r = await d.get(url);
		pages.push(r.json.cases.length);
		url = r.json.next;
	}
	assert.ok(pages.every((n) => n <= 2), `page sizes ${pages}`);
	assert.ok(pages.slice(0, -1).every((n) => n === 2), `only the last page is short: ${pages}`);
});

test('before= returns only older cases', async () => {
	const pivot = submitted[4].id;
	const r = await d.get(`/api/cases?source=submitted&before=${pivot}`);
	assert.equal(r.status, 200);
	assert.deepEqual(ids(r.json.cases), desc(submitted.slice(0, 4).map((s) => s.id)));
});

test('verdict filter', async () => {
	const differ = await d.listAll('/api/cases?source=submitted&verdict=differ&limit=1');
	assert.deepEqual(ids(differ), desc(submitted.filter((s) => s.verdict === 'differ').map((s) => s.id)));
	assert.equal(differ.length, 2);
	assert.ok(differ.every((c) => c.verdict === 'differ'));
	const same = await d.listAll('/api/cases?source=submitted&verdict=same&limit=3');
	assert.deepEqual(ids(same), desc(submitted.filter((s) => s.verdict === 'same').map((s) => s.id)));
	assert.ok(same.every((c) => c.verdict === 'same'));
});

test('all sources together include the submitted cases, newest first', async () => {
	const all = await d.listAll('/api/cases?limit=500');
	const got = ids(all);
	assert.deepEqual(got, desc(got), 'newest first');
	assert.equal(new Set(got).size, got.length, 'no duplicates');
	for (const s of submitted) assert.ok(got.includes(s.id), `case ${s.id} listed`);
	for (const c of all) assert.ok(['stored', 'submitted'].includes(c.source), `source ${c.source}`);
});

test('each listed case can be fetched by id', async () => {
	for (const s of submitted) {
		const r = await d.get(`/api/cases/${s.id}`);
		assert.equal(r.status, 200);
		assert.equal(r.json.case.id, s.id);
		assert.equal(r.json.case.code, s.code);
		assert.equal(r.json.verdict, s.verdict);
		assert.equal(r.json.results.base.build, 'base');
		assert.equal(r.json.results.head.build, 'head');
	}
});
