// Case errors (issue 23, item 1): a case whose own code does not compile on
// a build — or whose value statements have no return, so json_encode would
// encode null — is no comparison: POST /api/cases answers 422 case_error
// against the user's own line and column (the worker core's wrapper taken
// off) and stores nothing; in a run it is verdict "error", counted apart,
// listed with ?verdict=error, in no bucket; fail_on_differ fails on it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, errorOf, tableCounts, tmpDir } from './helper.mjs';

const NO_RETURN = /^no return: the value's statements end without `return EXPR;`/;

// A cases folder: two good cases, three that are case errors.
const cases = tmpDir('phpcmp-case-errors-');
const files = {
	'010-same.phpt': '--TEST--\na list\n--VALUE--\n[1, 2, 3]\n',
	'020-differ.phpt': '--TEST--\nthe version\n--VALUE--\nPHP_VERSION\n',
	'030-unclosed.phpt': "--TEST--\nan unclosed array\n--VALUE--\n['a' => 1,\n 'b' => 2\n",
	'040-no-return.phpt': '--TEST--\nstatements and no return\n--VALUE--\n$a = [1];\n$a[] = 2;\n',
	'050-setup.phpt': '--TEST--\na setup that declares f twice\n--SETUP--\nfunction f() {}\nfunction f() {}\n--VALUE--\n1\n',
};
for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(cases, name), text);

let d;
before(async () => { d = await Daemon.start({ name: 'case-errors', cases }); });
after(async () => { await d?.stopClean(); });

// What a client can see of the stored cases, and every table's row count.
async function snapshot() {
	const r = await d.get('/api/cases?limit=200');
	assert.equal(r.status, 200, r.text);
	return { ids: r.json.cases.map((c) => c.id), tables: tableCounts(d.db) };
}

// [code, setup, section, line, column, detail]: PHP's own message, about
// the user's code only, at the user's own line and column.
const ERRORS = [
	// The wrapper `return (CODE\n);` made PHP say "Unclosed '[' on line 1 does
	// not match ')' in value on line 2": a ')' and a line the user never wrote.
	["['a' => 1", null, 'value', 1, 10, "Unclosed '['"],
	['[\n  1,\n  2\n  3\n]', null, 'value', 4, 3, 'syntax error, unexpected integer "3", expecting "]"'],
	['$x = 1;\nreturn [$x $x];', null, 'value', 2, 12, 'syntax error, unexpected variable "$x", expecting "]"'],
	['[1,\n 2,\n (', null, 'value', 3, 3, "Unclosed '('"],
	['1 +', null, 'value', 1, 4, 'syntax error, unexpected end of file'],
	['1)', null, 'value', 1, 2, "Unmatched ')'"],
	['1', 'class {', 'setup', 1, 7, 'syntax error, unexpected token "{", expecting identifier'],
	// A compile error that is no ParseError (E_COMPILE_ERROR): the line is known.
	['1', 'function f() {}\nfunction f() {}', 'setup', 2, null, 'Cannot redeclare f() (previously declared in setup:1)'],
];

test('a case that does not compile: 422 case_error with the user\'s line and column, nothing stored', async () => {
	const before = await snapshot();
	for (const [code, setup, section, line, column, detail] of ERRORS) {
		const body = setup ? { code, setup } : { code };
		const r = await d.postCase(body);
		const what = `${JSON.stringify(body)} -> ${r.status} ${r.text}`;
		assert.equal(r.status, 422, what);
		const e = errorOf(r);
		assert.equal(e.code, 'case_error', what);
		assert.equal(e.section, section, what);
		assert.equal(e.line, line, what);
		assert.equal(e.column, column, what);
		assert.equal(e.detail, detail, what);
		assert.equal(e.role, 'base', what);
		assert.equal(e.build, 'base', what);
		const where = `${section}, line ${line}${column ? `, column ${column}` : ''}`;
		assert.equal(e.message, `the case does not compile: ${where}: ${detail}`, what);
		// Nothing the user did not write: no wrapper line, no "in value on line".
		assert.doesNotMatch(e.message, /on line \d|in (value|setup) on line/, what);
	}
	assert.deepEqual(await snapshot(), before, 'no case, comparison or result stored');
});

test('fail_on_differ does not turn a case error into a verdict: still 422', async () => {
	const r = await d.postCase({ code: '[1, 2' }, '?fail_on_differ=1');
	assert.equal(r.status, 422, r.text);
	assert.equal(errorOf(r).code, 'case_error');
});

test('value statements with no return are a case error; return, throw and exit are not', async () => {
	const r = await d.postCase({ code: '$a = [1];\n$a[] = 2;' });
	assert.equal(r.status, 422, r.text);
	const e = errorOf(r);
	assert.equal(e.code, 'case_error');
	assert.equal(e.section, 'value');
	assert.equal(e.line, 2, 'the code\'s last line');
	assert.match(e.detail, NO_RETURN);
	// A `return` only in a comment is no return.
	const c = await d.postCase({ code: '$a = 1; // return $a;\n$b = 2;' });
	assert.equal(c.status, 422, c.text);
	assert.match(errorOf(c).detail, NO_RETURN);
	for (const code of ['$a = [1]; return $a;', 'if (true) { return 1; } $x = 2;', "throw new Exception('x');", 'exit(3);']) {
		const ok = await d.postCase({ code });
		assert.equal(ok.status, 201, `${code}: ${ok.text}`);
		assert.notEqual(ok.json.verdict, 'error', code);
		assert.equal(ok.json.case_error, null, code);
	}
	// The same value as an expression still encodes as before.
	const expr = await d.postCase({ code: '[1, 2]' });
	assert.equal(expr.status, 201);
	assert.equal(expr.json.results.base.output, '[1,2]');
});

test('a stored run: case errors are verdict error, counted apart, listed, in no bucket; fail_on_differ fails', async () => {
	const r = await d.request('POST', '/api/runs?wait=120', { body: { suite: 'stored' } });
	assert.equal(r.status, 200, r.text);
	const run = r.json;
	assert.equal(run.status, 'done');
	assert.equal(run.total, 5);
	assert.deepEqual(run.counts, { same: 1, differ: 1, error: 3 });

	const listed = await d.listAll(`/api/runs/${run.id}/cases?verdict=error`);
	assert.deepEqual(listed.map((c) => c.file).sort(), ['030-unclosed.phpt', '040-no-return.phpt', '050-setup.phpt']);
	for (const c of listed) assert.equal(c.verdict, 'error');
	const same = await d.listAll(`/api/runs/${run.id}/cases?verdict=same`);
	assert.deepEqual(same.map((c) => c.file), ['010-same.phpt']);
	const differ = await d.listAll(`/api/runs/${run.id}/cases?verdict=differ`);
	assert.deepEqual(differ.map((c) => c.file), ['020-differ.phpt']);
	const all = await d.listAll('/api/cases?verdict=error');
	assert.deepEqual(all.map((c) => c.file).sort(), listed.map((c) => c.file).sort());

	const byFile = Object.fromEntries(listed.map((c) => [c.file, c]));
	const want = {
		// The '[' opened on the user's line 1, the code ends on line 2.
		'030-unclosed.phpt': { section: 'value', line: 2, column: 10, message: "Unclosed '[' on line 1" },
		'040-no-return.phpt': { section: 'value', line: 2, column: null },
		'050-setup.phpt': { section: 'setup', line: 2, column: null, message: 'Cannot redeclare f() (previously declared in setup:1)' },
	};
	for (const [file, w] of Object.entries(want)) {
		const g = await d.get(`/api/cases/${byFile[file].id}?comparison=${byFile[file].comparison_id}`);
		assert.equal(g.status, 200, g.text);
		assert.equal(g.json.verdict, 'error', file);
		assert.equal(g.json.candidates.head.verdict, 'error', file);
		const e = g.json.case_error;
		assert.equal(e.section, w.section, `${file}: ${JSON.stringify(e)}`);
		assert.equal(e.line, w.line, `${file}: ${JSON.stringify(e)}`);
		assert.equal(e.column, w.column, `${file}: ${JSON.stringify(e)}`);
		if (w.message) assert.equal(e.message, w.message, file);
		else assert.match(e.message, NO_RETURN, file);
		assert.deepEqual([e.role, e.build], ['base', 'base']);
		// The results stay, for the page: the error on every build.
		for (const role of ['base', 'head']) assert.equal(g.json.results[role].status, 'error', `${file} ${role}`);
		const h = g.json.history.find((x) => x.comparison_id === byFile[file].comparison_id);
		assert.equal(h?.verdict, 'error', `${file}: the case's history says error too`);
	}
	// Only the real mismatch is triaged.
	const b = await d.get(`/api/buckets?run=${run.id}`);
	assert.equal(b.status, 200, b.text);
	const bucketed = b.json.buckets.reduce((n, x) => n + (x.mismatches ?? 0), 0);
	assert.equal(bucketed, 1, JSON.stringify(b.json.buckets));

	const f = await d.request('POST', '/api/runs?wait=120&fail_on_differ=1', { body: { suite: 'stored' } });
	assert.equal(f.status, 409, f.text);
	assert.deepEqual(f.json.counts, { same: 1, differ: 1, error: 3 });
});
