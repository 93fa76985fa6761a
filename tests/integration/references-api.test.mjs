// Released PHP's answers to a case (issue 49, docs/api.md "Released PHP"):
// GET /api/cases/{id}/references and POST /api/cases?references=1 on a real
// daemon with real reference runtimes (@php-wasm/node-7-4, -8-0, -8-1, -8-5,
// installed by `npm ci`), answers kept in SQLite and served from there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';

const VERSIONS = ['7.4', '8.0', '8.1', '8.5'];
let d;

before(async () => {
	d = await Daemon.start({ name: 'references-api', extraArgs: ['--references', VERSIONS.join(',')], startDeadlineMs: 120_000 });
});
after(async () => {
	if (d) await d.stop();
});

const ENUM = { setup: "enum Suit: string { case Hearts = 'h'; }", code: 'Suit::Hearts' };
const SERIALIZE = { setup: 'class J implements JsonSerializable { function jsonSerialize() { return [1]; } }', code: 'new J' };

async function post(body) {
	const r = await d.request('POST', '/api/cases?references=1', { body, timeoutMs: 120_000 });
	assert.equal(r.status, 201, JSON.stringify(r.json));
	return r.json;
}

test('the daemon loads the references asked for, as builds of kind "reference"', async () => {
	const r = await d.request('GET', '/api/builds');
	const refs = r.json.builds.filter((b) => b.kind === 'reference').map((b) => b.name);
	assert.deepEqual(refs.sort(), VERSIONS.map((v) => `php-${v}`));
});

test('a backed enum: unsupported on 7.4 and 8.0, its value from 8.1, in two groups oldest first', async () => {
	const c = await post(ENUM);
	const refs = c.references;
	assert.ok(refs, 'references in the POST answer');
	assert.equal(refs.case_id, c.id);
	assert.match(refs.note, /no instruction counts, no memory-error oracle/);
	assert.deepEqual(refs.references.map((x) => x.name), VERSIONS.map((v) => `php-${v}`));
	for (const x of refs.references) {
		assert.equal(x.error, null, `${x.name}: ${x.error}`);
		assert.ok(x.php_version.startsWith(x.name.slice(4) + '.'), `${x.name} is PHP ${x.php_version}`);
		assert.equal(x.result.instructions, null, 'a reference counts no instructions');
	}
	const [r74, r80, r81, r85] = refs.references;
	assert.match(r74.result.unsupported, /^does not compile: /);
	assert.match(r80.result.unsupported, /^does not compile: /);
	assert.deepEqual(r74.as, []);
	assert.equal(r81.result.output, '"h"');
	assert.equal(r85.result.output, '"h"');
	assert.deepEqual(r81.as, ['base', 'head']);
	assert.equal(refs.groups.length, 2);
	assert.equal(refs.groups[0].label, `${r74.php_version} – ${r80.php_version}`);
	assert.deepEqual(refs.groups[0].names, ['php-7.4', 'php-8.0']);
	assert.equal(refs.groups[1].label, `${r81.php_version} – ${r85.php_version}`);
	assert.deepEqual(refs.groups[1].as, ['base', 'head']);
	assert.equal(refs.summary, `released ${r81.php_version}–${r85.php_version} all answer as both builds; unsupported before 8.1`);
});

test('jsonSerialize() without a return type: the deprecation from 8.1 on is a group of its own', async () => {
	const c = await post(SERIALIZE);
	const { groups } = c.references;
	assert.equal(groups.length, 2, JSON.stringify(groups.map((g) => g.label)));
	assert.deepEqual(groups[0].names, ['php-7.4', 'php-8.0']);
	assert.deepEqual(groups[0].result.warnings, []);
	assert.deepEqual(groups[1].names, ['php-8.1', 'php-8.5']);
	assert.match(groups[1].result.warnings.join('\n'), /Deprecated: Return type of J::jsonSerialize\(\)/);
	// The output is the same everywhere: both groups answer as both builds.
	for (const g of groups) {
		assert.equal(g.result.output, '[1]');
		assert.deepEqual(g.as, ['base', 'head']);
	}
});

test('the second GET is served from the store: the same answers, each marked stored, in SQLite', async () => {
	const c = await post({ code: '[1.0, "\\u{2028}"]', flags: 'JSON_PRESERVE_ZERO_FRACTION' });
	assert.ok(c.references.references.every((x) => x.stored === false), 'run for the POST');
	const t0 = performance.now();
	const again = await d.request('GET', `/api/cases/${c.id}/references`);
	const ms = performance.now() - t0;
	assert.equal(again.status, 200);
	assert.ok(again.json.references.every((x) => x.stored === true), JSON.stringify(again.json.references.map((x) => x.stored)));
	const strip = (o) => JSON.stringify({ ...o, references: o.references.map(({ stored, ...x }) => ({ ...x, result: { ...x.result, wall_ms: 0 } })) });
	assert.equal(strip(again.json), strip(c.references));
	assert.ok(ms < 1000, `${ms} ms from the store`);
	const rows = execFileSync('sqlite3', [d.db, `SELECT name || ' ' || php_version FROM reference_results WHERE case_id = ${c.id} ORDER BY name`], { encoding: 'utf8' })
		.trim().split('\n');
	assert.deepEqual(rows, c.references.references.map((x) => `${x.name} ${x.php_version}`));
});

test('an unknown case is a 404, a query parameter a 400, a bad id a 404; POST ?references=2 a 400', async () => {
	let r = await d.request('GET', '/api/cases/999999/references');
	assert.equal(r.status, 404);
	assert.deepEqual(r.json, { error: { code: 'not_found', message: 'no case 999999' } });
	r = await d.request('GET', '/api/cases/1/references?compute=0');
	assert.equal(r.status, 400);
	assert.equal(r.json.error.code, 'bad_request');
	assert.match(r.json.error.message, /compute/);
	r = await d.request('GET', '/api/cases/0/references');
	assert.equal(r.status, 404);
	r = await d.request('POST', '/api/cases?references=2', { body: { code: '1' } });
	assert.equal(r.status, 400);
	assert.match(r.json.error.message, /references/);
});
