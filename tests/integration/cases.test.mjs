// POST /api/cases: verdicts, byte-exact results, flags, isolation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BASE_VERSION, Daemon, HEAD_VERSION, b64 } from './helper.mjs';

let d;
before(async () => { d = await Daemon.start({ name: 'cases' }); });
after(async () => { await d?.stopClean(); });

function bothBuilds(res, fn) {
	assert.deepEqual(Object.keys(res.results).sort(), ['base', 'head']);
	for (const name of ['base', 'head']) fn(res.results[name], name);
}

test('an ordinary case: same verdict, byte-exact output, stored with a Location', async () => {
	const expected = '{"a":1,"b":[1,2,3]}';
	const r = await d.postCase({ title: 'ordinary', code: "['a' => 1, 'b' => [1, 2, 3]]" });
	assert.equal(r.status, 201, r.text);
	const res = r.json;
	assert.ok(Number.isInteger(res.id) && res.id > 0);
	assert.equal(r.headers.location, `/api/cases/${res.id}`);
	assert.equal(res.api_url, `/api/cases/${res.id}`);
	assert.equal(res.url, `/#/cases/${res.id}`);
	assert.equal(res.verdict, 'same');
	assert.deepEqual(res.differs, []);
	assert.ok(Number.isInteger(res.comparison_id));
	assert.equal(res.case.id, res.id);
	assert.equal(res.case.title, 'ordinary');
	assert.equal(res.case.code, "['a' => 1, 'b' => [1, 2, 3]]");
	assert.equal(res.case.flags, 0);
	assert.deepEqual(res.case.flag_names, []);
	assert.equal(res.case.depth, 512);
	assert.equal(res.case.measure, null);
	assert.equal(res.case.source, null);
	assert.equal(res.run_id, null);
	assert.match(res.case.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
	bothBuilds(res, (x, name) => {
		assert.equal(x.build, name);
		assert.equal(x.status, 'ok');
		assert.equal(x.signal, null);
		assert.equal(x.output, expected);
		assert.equal(x.output_base64, b64(expected));
		assert.equal(x.output_utf8, true);
		assert.equal(x.error_code, 0);
		assert.equal(x.error_msg, 'No error');
		assert.equal(x.exception, null);
		assert.equal(x.printed, '');
		assert.deepEqual(x.warnings, []);
		assert.equal(x.failure, null);
		assert.equal(x.instructions, null);
		assert.equal(typeof x.wall_ms, 'number');
	});
});

// Issue 46: not every case "submitted case": the first line of its code.
test('default title: the first line of the code, trimmed, "…" when more follows or it is cut', async () => {
	const res = await d.runCase({ code: '[]' });
	assert.equal(res.case.title, '[]');
	bothBuilds(res, (x) => assert.equal(x.output, '[]'));
	const two = await d.runCase({ code: '\n  \n  $a = [1, 2];  \nreturn $a;\n' });
	assert.equal(two.case.title, '$a = [1, 2];…');
	const long = await d.runCase({ code: `'${'é'.repeat(50)}'` });
	assert.equal(long.case.title, `'${'é'.repeat(35)}…`, 'cut at 72 bytes, at a character');
	assert.equal((await d.runCase({ code: '1', title: 'mine' })).case.title, 'mine');
});

test('a real differ between the builds: PHP_VERSION', async () => {
	const res = await d.runCase({ code: 'PHP_VERSION' });
	assert.equal(res.verdict, 'differ');
	assert.deepEqual(res.differs, ['output']);
	assert.equal(res.results.base.output, `"${BASE_VERSION}"`);
	assert.equal(res.results.head.output, `"${HEAD_VERSION}"`);
	assert.equal(res.results.base.status, 'ok');
	assert.equal(res.results.head.status, 'ok');
});

test('?fail_on_differ=1: 409 on differ (case still stored), 201 on same', async () => {
	const r = await d.postCase({ code: 'PHP_VERSION' }, '?fail_on_differ=1');
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.verdict, 'differ');
	assert.deepEqual(r.json.differs, ['output']);
	const stored = await d.get(`/api/cases/${r.json.id}`);
	assert.equal(stored.status, 200);
	assert.equal(stored.json.verdict, 'differ');

	const s = await d.postCase({ code: '[1, 2]' }, '?fail_on_differ=1');
	assert.equal(s.status, 201, s.text);
	assert.equal(s.json.verdict, 'same');

	const t = await d.postCase({ code: '[PHP_VERSION, 1]' }, '?fail_on_differ=true');
	assert.equal(t.status, 409, t.text);
	const plain = await d.postCase({ code: '[PHP_VERSION, 2]' });
	assert.equal(plain.status, 201, 'without the parameter a differ is still 201');
	assert.equal(plain.json.verdict, 'differ');
});

test('printed bytes that are not UTF-8 come back exact in printed_base64', async () => {
	const bytes = Buffer.from([0xff, 0xfe, 0x68, 0x69, 0x00, 0x41, 0xc3, 0x28]);
	const res = await d.runCase({ code: 'echo "\\xff\\xfehi\\x00A\\xc3\\x28"; return 1;' });
	assert.equal(res.verdict, 'same');
	bothBuilds(res, (x) => {
		assert.equal(x.status, 'ok');
		assert.equal(x.output, '1');
		assert.equal(x.printed_base64, b64(bytes));
		assert.equal(typeof x.printed, 'string');
		assert.ok(x.printed.includes('hi'), `display form keeps valid text: ${JSON.stringify(x.printed)}`);
		assert.ok(/\\xff/i.test(x.printed), `display form shows invalid bytes as \\xNN: ${JSON.stringify(x.printed)}`);
		assert.equal(x.printed_utf8, false);
	});
});

test('non-ASCII output is byte-exact (UTF-8 and U+2028 with JSON_UNESCAPED_UNICODE)', async () => {
	// "José\u{2028}€😀" — U+2028 stays escaped unless JSON_UNESCAPED_LINE_TERMINATORS.
	const code = '"Jos\\u{e9}\\u{2028}\\u{20ac}\\u{1f600}"';
	const res = await d.runCase({ code, flags: 'JSON_UNESCAPED_UNICODE' });
	const want = Buffer.from('"José\\u2028€😀"', 'utf8');
	bothBuilds(res, (x) => {
		assert.equal(x.output_base64, b64(want));
		assert.equal(x.output, want.toString('utf8'));
		assert.equal(x.output_utf8, true);
	});
	const res2 = await d.runCase({ code, flags: 'JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_LINE_TERMINATORS' });
	const want2 = Buffer.from('"José\u2028€😀"', 'utf8');
	bothBuilds(res2, (x) => assert.equal(x.output_base64, b64(want2)));
});

test('invalid UTF-8 input: false + error 5, or substituted with a flag', async () => {
	const res = await d.runCase({ code: '"a\\xffb"' });
	assert.equal(res.verdict, 'same');
	bothBuilds(res, (x) => {
		assert.equal(x.status, 'ok');
		assert.equal(x.output, false);
		assert.equal(x.output_base64, null);
		assert.equal(x.error_code, 5);
		assert.equal(x.error_msg, 'Malformed UTF-8 characters, possibly incorrectly encoded');
	});
	const sub = await d.runCase({ code: '"a\\xffb"', flags: ['JSON_INVALID_UTF8_SUBSTITUTE', 'JSON_UNESCAPED_UNICODE'] });
	bothBuilds(sub, (x) => {
		assert.equal(x.output_base64, b64(Buffer.from('"a\uFFFDb"', 'utf8')));
		assert.equal(x.error_code, 0);
	});
});

test('flags as int, "A|B" string and list all reach json_encode', async () => {
	const code = "'<a&b>'";
	const want = '"\\u003Ca\\u0026b\\u003E"';
	for (const flags of [3, 'JSON_HEX_TAG|JSON_HEX_AMP', ['JSON_HEX_TAG', 'JSON_HEX_AMP'], 'JSON_HEX_AMP | JSON_HEX_TAG']) {
		const res = await d.runCase({ code, flags });
		assert.equal(res.case.flags, 3, `flags ${JSON.stringify(flags)}`);
		assert.deepEqual(res.case.flag_names, ['JSON_HEX_TAG', 'JSON_HEX_AMP']);
		bothBuilds(res, (x) => assert.equal(x.output, want, `flags ${JSON.stringify(flags)}`));
	}
	const plain = await d.runCase({ code });
	bothBuilds(plain, (x) => assert.equal(x.output, '"<a&b>"'));
});

test('pretty print and depth reach json_encode', async () => {
	const res = await d.runCase({ code: "['a' => [1]]", flags: 'JSON_PRETTY_PRINT' });
	bothBuilds(res, (x) => assert.equal(x.output, '{\n    "a": [\n        1\n    ]\n}'));
	const deep = await d.runCase({ code: '[[1]]', depth: 1 });
	assert.equal(deep.case.depth, 1);
	assert.equal(deep.verdict, 'same');
	bothBuilds(deep, (x) => {
		assert.equal(x.status, 'ok');
		assert.equal(x.output, false);
		assert.equal(x.error_code, 1);
		assert.equal(x.error_msg, 'Maximum stack depth exceeded');
	});
});

test('statements ending in return, and setup code', async () => {
	const res = await d.runCase({
		setup: 'class P { public $x = 1; protected $y = 2; private $z = 3; public $n = null; }',
		code: '$p = new P; $p->x = "\\u{e9}"; return [$p, 1.0, 0.1];',
		flags: 'JSON_PRESERVE_ZERO_FRACTION',
	});
	assert.equal(res.verdict, 'same');
	bothBuilds(res, (x) => assert.equal(x.output, '[{"x":"\\u00e9","n":null},1.0,0.1]'));
});

test('each case runs in its own request: no classes or globals leak', async () => {
	const setup = 'class Leak { public $v = 1; }';
	const a = await d.runCase({ setup, code: '$GLOBALS["leaked"] = 42; return new Leak;' });
	bothBuilds(a, (x) => assert.equal(x.output, '{"v":1}'));
	const b = await d.runCase({ setup, code: '[isset($GLOBALS["leaked"]), new Leak]' });
	bothBuilds(b, (x) => {
		assert.equal(x.status, 'ok', x.failure);
		assert.equal(x.output, '[false,{"v":1}]');
	});
});

test('warnings raised by the case are reported', async () => {
	const res = await d.runCase({ code: '$a = []; return $a["nope"];' });
	bothBuilds(res, (x) => {
		assert.equal(x.status, 'ok');
		assert.equal(x.output, 'null');
		assert.equal(x.warnings.length, 1, JSON.stringify(x.warnings));
		assert.match(x.warnings[0], /Undefined array key "nope"/);
	});
	assert.equal(res.verdict, 'same');
});

test('an exception thrown by jsonSerialize is a result, not a failure', async () => {
	const res = await d.runCase({
		setup: 'class T implements JsonSerializable { function jsonSerialize(): mixed { throw new RuntimeException("boom"); } }',
		code: 'new T',
	});
	assert.equal(res.verdict, 'same');
	bothBuilds(res, (x) => {
		assert.equal(x.status, 'ok', x.failure);
		assert.deepEqual(x.exception, { class: 'RuntimeException', message: 'boom' });
		assert.equal(x.output, false);
	});
});

test('concurrent submissions each get their own result', async () => {
	const n = 8;
	const rs = await Promise.all(
		Array.from({ length: n }, (_, i) => d.postCase({ code: `['i' => ${i}, 's' => str_repeat('x', ${i})]` })),
	);
	const ids = new Set();
	rs.forEach((r, i) => {
		assert.equal(r.status, 201, r.text);
		ids.add(r.json.id);
		const want = JSON.stringify({ i, s: 'x'.repeat(i) });
		bothBuilds(r.json, (x) => assert.equal(x.output, want));
	});
	assert.equal(ids.size, n, 'distinct ids');
});

test('GET /api/cases/{id} returns the stored case, its results and history', async () => {
	const posted = await d.runCase({ title: 'get me', code: "['k' => \"\\xff\"]", flags: 'JSON_INVALID_UTF8_IGNORE' });
	const r = await d.get(`/api/cases/${posted.id}`);
	assert.equal(r.status, 200, r.text);
	const g = r.json;
	assert.equal(g.case.id, posted.id);
	assert.equal(g.case.title, 'get me');
	assert.equal(g.case.code, posted.case.code);
	assert.equal(g.case.flags, 1048576);
	assert.equal(g.verdict, 'same');
	assert.deepEqual(g.differs, []);
	assert.deepEqual(g.results, posted.results, 'stored results are what the POST returned');
	assert.ok(Array.isArray(g.history) && g.history.length === 1, JSON.stringify(g.history));
	assert.equal(g.history[0].comparison_id, posted.comparison_id);
	assert.equal(g.history[0].run_id, null);
	assert.equal(g.history[0].verdict, 'same');
	bothBuilds(g, (x) => assert.equal(x.output, '{"k":""}'));
});

test('the same case submitted again is one case with a growing history', async () => {
	const c = { title: 'twice', code: "['twice' => true]", flags: 'JSON_FORCE_OBJECT' };
	const a = await d.runCase(c);
	const b = await d.runCase(c);
	assert.equal(b.id, a.id, 'same content, same case');
	assert.notEqual(b.comparison_id, a.comparison_id, 'a new comparison');
	const g = (await d.get(`/api/cases/${a.id}`)).json;
	assert.deepEqual(g.history.map((h) => h.comparison_id).sort((x, y) => x - y), [a.comparison_id, b.comparison_id].sort((x, y) => x - y));
	// A different flag makes a different case.
	const other = await d.runCase({ ...c, flags: 0 });
	assert.notEqual(other.id, a.id);
});
