// Cases that hurt: crash, timeout, parse error, fatal error, exceptions,
// memory limit, exit.  Each is a result (never a server error), and the next
// ordinary case on the same daemon still works.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';

// The timeout test's bound; every other case gets CRASH_TIMEOUT_MS, so a
// 200,000-deep array has time to be built and crash on a busy machine (at
// load ~10 it took over a second: a timeout, not the crash under test).
const TIMEOUT_MS = 1000;
const CRASH_TIMEOUT_MS = 15000;

let d, short;
before(async () => {
	d = await Daemon.start({ name: 'hazards', timeoutMs: CRASH_TIMEOUT_MS });
	short = await Daemon.start({ name: 'hazards-timeout', timeoutMs: TIMEOUT_MS });
});
after(async () => {
	await d?.stopClean();
	await short?.stopClean();
});

async function health() {
	const r = await d.get('/api/health');
	assert.equal(r.status, 200);
	return Object.fromEntries(r.json.builds.map((b) => [b.name, b.worker]));
}

// The ordinary case every hazard is followed by.
async function stillWorks(daemon = d) {
	const res = await daemon.runCase({ code: "['a' => 1, 'b' => [1, 2, 3]]" });
	assert.equal(res.verdict, 'same', 'the next case is same');
	for (const name of ['base', 'head']) {
		const x = res.results[name];
		assert.equal(x.status, 'ok', `${name} next case status (failure: ${x.failure})`);
		assert.equal(x.output, '{"a":1,"b":[1,2,3]}', `${name} next case output`);
	}
}

function both(res, fn) {
	for (const name of ['base', 'head']) fn(res.results[name], name);
}

test('crash: a 200,000-deep array kills the encoder -> status crash with the signal', async () => {
	const w0 = await health();
	const res = await d.runCase({ code: '$a = []; for ($i = 0; $i < 200000; $i++) { $a = [$a]; } return $a;' });
	both(res, (x, name) => {
		assert.equal(x.status, 'crash', `${name}: ${JSON.stringify(x)}`);
		assert.equal(x.signal, 11, `${name} signal`);
		assert.match(x.failure, /signal 11|SIGSEGV/);
		assert.equal(x.output, false);
	});
	assert.equal(res.verdict, 'same', 'both crashed the same way');
	await stillWorks();
	const w1 = await health();
	for (const name of ['base', 'head']) {
		assert.ok(w1[name].restarts > w0[name].restarts, `${name} worker restarted (${w0[name].restarts} -> ${w1[name].restarts})`);
		assert.notEqual(w1[name].pid, w0[name].pid, `${name} worker is a new process`);
		assert.equal(w1[name].state, 'ready');
		assert.equal(typeof w1[name].last_failure, 'string');
		// When it failed (issue 23: the page says so and lets it age out).
		assert.match(w1[name].last_failure_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
		assert.ok(Math.abs(Date.parse(w1[name].last_failure_at) - Date.now()) < 120_000, w1[name].last_failure_at);
		assert.ok(w1[name].last_failure_age_s >= 0 && w1[name].last_failure_age_s < 120, String(w1[name].last_failure_age_s));
	}
	assert.equal(w0.base.last_failure_at ?? null, w0.base.last_failure ? w0.base.last_failure_at : null);
});

test('crash: what the worker wrote to stderr during the case is in the failure text, bounded', async () => {
	// A case before it writes to stderr too: not this crash's.
	const quiet = await d.runCase({ code: 'file_put_contents("php://stderr", "an earlier case\\n"); return 1;' });
	assert.equal(quiet.verdict, 'same');
	both(quiet, (x, name) => assert.equal(x.status, 'ok', `${name}: ${JSON.stringify(x)}`));
	const res = await d.runCase({
		code: 'file_put_contents("php://stderr", "said first\\n" . str_repeat("A", 3000) . str_repeat("B", 3000) . "\\nsaid last\\n");'
			+ ' $a = []; for ($i = 0; $i < 200000; $i++) { $a = [$a]; } return $a;',
	});
	both(res, (x, name) => {
		// (On a machine too busy to build the array within --timeout-ms
		// it is a timeout: its stderr is kept the same way.)
		assert.ok(['crash', 'timeout'].includes(x.status), `${name}: ${JSON.stringify(x)}`);
		const m = /^(?:killed by signal 11 \(SIGSEGV\)|timed out after \d+ ms; worker killed)\nworker stderr \((\d+) bytes\):\nsaid first\nA+\n\[\.\.\. (\d+) bytes left out \.\.\.\]\nB+\nsaid last$/.exec(x.failure);
		assert.ok(m, `${name}: ${x.failure.slice(0, 300)} ... ${x.failure.slice(-300)}`);
		assert.equal(Number(m[1]), 6022, `${name}: all its bytes counted`);
		assert.equal(Number(m[2]), 6022 - 4096, `${name}: the first and last 2 KB kept`);
		assert.doesNotMatch(x.failure, /an earlier case/);
	});
	await stillWorks();
});

test(`timeout: while (true); is stopped after --timeout-ms ${TIMEOUT_MS}`, async () => {
	const t0 = Date.now();
	const res = await short.runCase({ code: 'while (true); return 1;' });
	const elapsed = Date.now() - t0;
	both(res, (x, name) => {
		assert.equal(x.status, 'timeout', `${name}: ${JSON.stringify(x)}`);
		assert.equal(x.signal, null);
		assert.match(x.failure, new RegExp(`timed out after ${TIMEOUT_MS} ms`));
		assert.equal(x.output, false);
	});
	assert.ok(elapsed >= TIMEOUT_MS, `took ${elapsed} ms`);
	assert.ok(elapsed < TIMEOUT_MS * 2 + 8000, `took ${elapsed} ms: the builds should time out side by side, promptly`);
	await stillWorks(short);
});

test('parse error in the code: a case error (422), not a verdict, not a server error', async () => {
	const r = await d.postCase({ code: "['a' => 1" });
	assert.equal(r.status, 422, r.text);
	assert.equal(r.json.error.code, 'case_error');
	assert.deepEqual([r.json.error.section, r.json.error.line, r.json.error.column], ['value', 1, 10]);
	assert.match(r.json.error.detail, /Unclosed '\['/);
	await stillWorks();
});

test('parse error in the setup code: a case error (422)', async () => {
	const r = await d.postCase({ setup: 'class {', code: '1' });
	assert.equal(r.status, 422, r.text);
	assert.equal(r.json.error.code, 'case_error');
	assert.equal(r.json.error.section, 'setup');
	assert.match(r.json.error.detail, /syntax error/);
	await stillWorks();
});

test('fatal error: calling an undefined function -> status error', async () => {
	const res = await d.runCase({ code: 'no_such_function_phpcmp()' });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`);
		assert.match(x.failure, /no_such_function_phpcmp/);
	});
	assert.equal(res.verdict, 'same');
	await stillWorks();
});

test('an uncaught exception in the case code -> status error', async () => {
	const res = await d.runCase({ code: 'throw new LogicException("from the case")' });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`);
		assert.match(x.failure, /LogicException|from the case/);
	});
	await stillWorks();
});

test('JSON_THROW_ON_ERROR: the JsonException is recorded as the result', async () => {
	const res = await d.runCase({ code: '"\\xff"', flags: 'JSON_THROW_ON_ERROR' });
	both(res, (x, name) => {
		assert.equal(x.status, 'ok', `${name}: ${JSON.stringify(x)}`);
		assert.deepEqual(x.exception, {
			class: 'JsonException',
			message: 'Malformed UTF-8 characters, possibly incorrectly encoded',
		});
		assert.equal(x.output, false);
		assert.equal(x.error_code, 0, 'JSON_THROW_ON_ERROR leaves json_last_error() alone');
	});
	assert.equal(res.verdict, 'same');
	await stillWorks();
});

test('memory limit exhausted -> status error, and the worker survives it', async () => {
	const res = await d.runCase({ code: "str_repeat('x', 1 << 30)" });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`);
		assert.match(x.failure, /Allowed memory size/);
	});
	await stillWorks();
	// A case needing real memory works right after.
	const big = await d.runCase({ code: "strlen(str_repeat('x', 16 << 20))" });
	both(big, (x) => assert.equal(x.output, String(16 << 20)));
});

test('exit() in the case -> status error', async () => {
	const res = await d.runCase({ code: 'exit(3);' });
	both(res, (x, name) => assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`));
	await stillWorks();
});

test('a case that leaves output buffers open is still captured', async () => {
	const res = await d.runCase({ code: 'ob_start(); ob_start(); echo "buffered"; return 7;' });
	both(res, (x, name) => {
		assert.equal(x.status, 'ok', `${name}: ${x.failure}`);
		assert.equal(x.output, '7');
		assert.equal(Buffer.from(x.printed_base64, 'base64').toString(), 'buffered');
	});
	await stillWorks();
});

test('a crash followed at once by another crash, then normal cases', async () => {
	const code = '$a = []; for ($i = 0; $i < 200000; $i++) { $a = [$a]; } return $a;';
	for (let i = 0; i < 2; i++) {
		const res = await d.runCase({ code });
		both(res, (x, name) => assert.equal(x.status, 'crash', `${name} crash #${i + 1}`));
	}
	await stillWorks();
	await stillWorks();
});
