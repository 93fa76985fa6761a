// web/js/triage.js and export.js: bucket counts, triage requests, a case as
// a POST body and a curl command.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { BUCKET_FILTERS, bucketCounts, confirmationWord, NOT_REDUCED, notReducedText, rootTriageRequest, shapeWords, flagsThatMatter, STATE_HELP, STATES, statesText, storedText, triageRequest, UNREDUCED_WHY, unreducedSummary, unreducedWord } from '../../web/js/triage.js';
import { caseBody, curlFor, shellQuote } from '../../web/js/export.js';

test('bucketCounts: buckets per filter; open is new + confirmed + reappeared', () => {
	const c = bucketCounts({ new: { buckets: 3, mismatches: 10 }, confirmed: { buckets: 2, mismatches: 4 },
		fixed: { buckets: 1, mismatches: 1 }, reappeared: { buckets: 1, mismatches: 2 } });
	assert.deepEqual(c, { new: 3, confirmed: 2, expected: 0, ignored: 0, fixed: 1, reappeared: 1, open: 6 });
	assert.equal(bucketCounts(null), null);
	assert.deepEqual(bucketCounts({}).open, 0);
	for (const s of STATES) assert.ok(STATE_HELP[s], s);
	for (const f of BUCKET_FILTERS) assert.ok(f === '' || f === 'open' || f === 'reappeared' || STATES.includes(f), f);
});

test('confirmationWord: the reducer\'s confirmation is never the triage state\'s word', () => {
	assert.equal(confirmationWord('confirmed')[0], 'reproduced');
	assert.ok(!STATES.includes(confirmationWord('confirmed')[0]));
	assert.equal(confirmationWord('flaky')[0], 'flaky');
	assert.equal(confirmationWord('state-dependent')[0], 'state-dependent');
	assert.equal(confirmationWord(null), null);
	assert.equal(confirmationWord('other')[0], 'other');
});

test('triageRequest: one bucket, or several in one request', () => {
	assert.deepEqual(triageRequest([4], { state: 'confirmed', notes: 'x' }, 'ana'),
		{ path: '/api/buckets/4/triage', body: { by: 'ana', state: 'confirmed', notes: 'x' } });
	assert.deepEqual(triageRequest([4, 5], { state: 'fixed' }, 'ana'),
		{ path: '/api/buckets/triage', body: { by: 'ana', state: 'fixed', ids: [4, 5] } });
	assert.deepEqual(triageRequest([4], { bulk: true, assignee: 'bo' }, 'ana'),
		{ path: '/api/buckets/triage', body: { by: 'ana', assignee: 'bo', ids: [4] } }, 'the bulk bar always uses the bulk endpoint');
	assert.deepEqual(triageRequest([4], { assignee: null }, ''),
		{ path: '/api/buckets/4/triage', body: { by: '', assignee: null } }, 'null clears the assignee');
});

test('rootTriageRequest, joined, statesText: a state set on a root cause goes to its buckets', () => {
	assert.deepEqual(rootTriageRequest(7, { state: 'confirmed' }, 'ana'),
		{ path: '/api/roots/7/triage', body: { by: 'ana', state: 'confirmed' } });
	assert.deepEqual(triageRequest([4], { bulk: true, joined: true, state: 'fixed' }, 'ana'),
		{ path: '/api/buckets/triage', body: { by: 'ana', state: 'fixed', ids: [4], joined: true } });
	assert.deepEqual(triageRequest([4], { joined: true, state: 'fixed' }, 'ana').path, '/api/buckets/triage', 'joined: the bulk form');
	assert.equal(statesText({ confirmed: 1, new: 28, fixed: 0 }), '28 new · 1 confirmed');
	assert.equal(statesText({ fixed: 2, new: 2 }), '2 new · 2 fixed', 'ties in the states\' order');
	assert.equal(statesText(undefined), '');
});

test('storedText: a run\'s mismatches, the stored samples and the buckets add up in words', () => {
	assert.equal(storedText(31193, 612, 29), '31,193 mismatches in this run; 612 of them stored in full ' +
		'(a sample of each kind: the others are made again from seed and index when opened from the run\'s cases), in 29 buckets. ' +
		'A bucket\'s count is of its stored mismatches.');
	assert.equal(storedText(3, 3, 1), '3 mismatches in 1 bucket.', 'every one stored: nothing to explain');
	assert.equal(storedText(undefined, 1, 1), '1 mismatch in 1 bucket.');
});

test('shapeWords: a bucket key\'s output shape in words', () => {
	assert.equal(shapeWords(''), 'nothing');
	assert.equal(shapeWords('C'), 'a control byte or DEL');
	assert.equal(shapeWords('0'), 'digits');
	assert.equal(shapeWords('\\u'), 'a \\uXXXX escape');
	assert.equal(shapeWords('\\/'), 'the escape \\/');
	assert.equal(shapeWords('"a0~'), '“"”, letters, digits, … (cut)');
});

test('flagsThatMatter: the reduction\'s flags when reduced, else the key\'s guess', () => {
	const key = { flags: { JSON_UNESCAPED_SLASHES: false } };
	assert.deepEqual(flagsThatMatter(key, { state: 'done', flags: ['JSON_PRETTY_PRINT'], complete: true }),
		{ from: 'reduction', flags: ['JSON_PRETTY_PRINT'], complete: true });
	assert.deepEqual(flagsThatMatter(key, { state: 'done', flags: [], complete: false }), { from: 'reduction', flags: [], complete: false });
	assert.deepEqual(flagsThatMatter(key, { state: 'too_slow' }), { from: 'key', flags: { JSON_UNESCAPED_SLASHES: false } });
	assert.deepEqual(flagsThatMatter(key, null), { from: 'key', flags: { JSON_UNESCAPED_SLASHES: false } });
	assert.deepEqual(flagsThatMatter(null, undefined), { from: 'key', flags: {} });
});

test('caseBody: the POST body that reproduces a stored case', () => {
	assert.deepEqual(caseBody({ id: 3, title: 't', code: '1', flags: 64, depth: 512, setup: '', expect: null }),
		{ title: 't', code: '1', flags: 64, depth: 512 });
	assert.deepEqual(caseBody({ title: 't', code: '1', setup: 'class A {}', depth: 0, expect: '[]', measure: 200 }),
		{ title: 't', code: '1', setup: 'class A {}', flags: 0, depth: 0, expect: '[]', measure: 200 }, 'depth 0 is kept');
	assert.equal(caseBody({ title: 't', code: '1' }).depth, 512);
});

test('curlFor: flags by name, defaults left out, quoted for a POSIX shell', () => {
	const c = { title: "it's", code: "['a/b' => \"\\u{2028}\"]", flags: 320, flag_names: ['JSON_UNESCAPED_SLASHES', 'JSON_UNESCAPED_UNICODE'], depth: 512 };
	const cmd = curlFor(c, 'http://127.0.0.1:8080');
	assert.equal(cmd, "curl -sS --fail-with-body -H 'Content-Type: application/json' \\\n" +
		`  --data-binary '{"title":"it'\\''s","code":"['\\''a/b'\\'' => \\"\\\\u{2028}\\"]","flags":"JSON_UNESCAPED_SLASHES|JSON_UNESCAPED_UNICODE"}' \\\n` +
		"  'http://127.0.0.1:8080/api/cases?fail_on_differ=1'");
	assert.doesNotMatch(curlFor({ title: 't', code: '1', flags: 0, depth: 512 }, 'http://h'), /flags|depth/);
	assert.match(curlFor({ title: 't', code: '1', flags: 4, depth: 3 }, 'http://h'), /"flags":4,"depth":3/, 'no names: the number');
	assert.equal(shellQuote("a'b"), "'a'\\''b'");
	/* The shell reads the body back byte for byte. */
	const body = JSON.stringify(caseBody(c)).replace('320', '"JSON_UNESCAPED_SLASHES|JSON_UNESCAPED_UNICODE"').replace(',"depth":512', '');
	const echoed = execFileSync('sh', ['-c', `printf %s ${cmd.split('--data-binary ')[1].split(' \\\n')[0]}`]).toString();
	assert.equal(echoed, body);
});

test('unreducedWord, unreducedSummary: the mismatches left unreduced, apart from the roots, and why', () => {
	// Every why the store gives (server/daemon/store/db_reduce.c, dbr_unreduced; docs/triage.md "Unreduced").
	assert.deepEqual(Object.keys(UNREDUCED_WHY).sort(), ['budget', 'flaky', 'no_step', 'too_slow']);
	assert.equal(unreducedWord('budget'), 'out of budget');
	assert.equal(unreducedWord('no_step'), 'no simpler case');
	assert.equal(unreducedWord('later'), 'later');
	assert.equal(unreducedSummary([]), null);
	assert.equal(unreducedSummary(undefined), null);
	assert.equal(unreducedSummary([{ why: 'budget', mismatches: 1, buckets: 1 }, { why: 'flaky', mismatches: 3, buckets: 2 },
		{ why: 'budget', mismatches: 1, buckets: 1 }]),
	'5 mismatches in 4 buckets left unreduced, apart from the root causes: 2 out of budget · 1 flaky.');
	assert.equal(unreducedSummary([{ why: 'too_slow', mismatches: 1, buckets: 1 }]),
		'1 mismatch in 1 bucket left unreduced, apart from the root causes: 1 too slow.');
});

test('notReducedText: why a bucket has no minimal case, for each state the reducer stores', () => {
	assert.match(notReducedText('not_reproduced'), /^not reproduced when run alone: it needs the cases run before it/);
	assert.match(notReducedText('too_slow'), /slower than the reducer's time limit/);
	assert.equal(notReducedText('gone'), 'not reduced: gone');
	// Every state of the reductions table but done (schema.sql's CHECK).
	assert.deepEqual(Object.keys(NOT_REDUCED).sort(), ['not_reproduced', 'skipped', 'too_slow', 'unsupported']);
});
