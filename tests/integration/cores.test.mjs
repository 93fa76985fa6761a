// Worker cores compiled side by side at startup (docs/builds.md): a cold
// start with four builds runs up to one compiler per CPU at a time and
// waits for all; one build's failing compiler names that build and its
// log, and leaves no half-written core; two daemons starting cold on the
// same state folder at once both come up, and neither clobbers the other's
// cores (each compiler writes a file of its own, renamed into place).
// PHPCMP_CC is a wrapper around cc that records when each compiler ran.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BUILDS, Daemon, srcBuild, tmpDir } from './helper.mjs';

const FOUR = [
	['base', path.join(BUILDS, 'base')],
	['head', path.join(BUILDS, 'head')],
	['src', srcBuild('src-8.2.32')],
	['keys', srcBuild('src-8.2.32-keys-fastpath')],
];

// A cc that logs "start PID NS" and "end PID NS STATUS" lines to $CORE_LOG,
// and fails (exit 7) when its arguments contain $CORE_FAIL.
function wrapper(dir) {
	const cc = path.join(dir, 'cc-wrapper');
	fs.writeFileSync(cc, `#!/bin/bash
echo "start $$ $(date +%s%N)" >> "$CORE_LOG"
if [ -n "\${CORE_FAIL:-}" ] && [[ "$*" == *"$CORE_FAIL"* ]]; then
	echo "cc-wrapper: planted failure" >&2
	echo "end $$ $(date +%s%N) 7" >> "$CORE_LOG"
	exit 7
fi
cc "$@"
rc=$?
echo "end $$ $(date +%s%N) $rc" >> "$CORE_LOG"
exit $rc
`, { mode: 0o755 });
	return cc;
}

// The most compilers that were running at the same instant.
function maxOverlap(log) {
	const ev = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' '))
		.map(([k, , ns]) => [BigInt(ns), k === 'start' ? 1 : -1])
		.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
	let n = 0, max = 0;
	for (const [, d] of ev) max = Math.max(max, (n += d));
	return max;
}

function setEnv(vars) {
	for (const [k, v] of Object.entries(vars)) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
}

test('a cold start with four builds compiles their cores side by side, one per CPU at most', async () => {
	const dir = tmpDir();
	const log = path.join(dir, 'cc.log');
	setEnv({ PHPCMP_CC: wrapper(dir), CORE_LOG: log, CORE_FAIL: undefined });
	const state = path.join(dir, 'state');
	const d = await Daemon.start({ name: 'cores-cold', buildList: FOUR, state });
	try {
		assert.deepEqual(d.health.builds.map((b) => [b.name, b.worker.state]),
			FOUR.map(([n]) => [n, 'ready']));
		const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
		assert.equal(lines.filter((l) => l.startsWith('start')).length, 4, lines.join('\n'));
		assert.ok(lines.filter((l) => l.startsWith('end')).every((l) => l.endsWith(' 0')), lines.join('\n'));
		const cpus = os.availableParallelism();
		const overlap = maxOverlap(log);
		assert.ok(overlap <= Math.min(cpus, 4), `${overlap} compilers at once on ${cpus} CPUs`);
		if (cpus >= 2) assert.ok(overlap >= 2, `compilers never overlapped: ${lines.join('\n')}`);
		const cores = fs.readdirSync(path.join(state, 'cores'));
		assert.equal(cores.filter((f) => f.endsWith('.so')).length, 4, cores.join(' '));
		assert.deepEqual(cores.filter((f) => f.endsWith('.tmp')), []);
	} finally {
		await d.stopClean();
	}
	// Warm: nothing compiled again.
	fs.writeFileSync(log, '');
	const w = await Daemon.start({ name: 'cores-warm', buildList: FOUR, state });
	await w.stopClean();
	assert.equal(fs.readFileSync(log, 'utf8'), '');
	setEnv({ PHPCMP_CC: undefined, CORE_LOG: undefined });
});

test('one build\'s compiler failing names that build and its log; the others are waited for', async () => {
	const dir = tmpDir();
	const log = path.join(dir, 'cc.log');
	const state = path.join(dir, 'state');
	// The keys build's headers are only in its own prefix: fail just its core.
	setEnv({ PHPCMP_CC: wrapper(dir), CORE_LOG: log, CORE_FAIL: fs.realpathSync(FOUR[3][1]) });
	try {
		await assert.rejects(Daemon.start({ name: 'cores-fail', buildList: FOUR, state }), (e) => {
			assert.match(e.message, /build keys: worker core: build keys: compiling the worker core failed \(exit 7\); see \S+\/cores\/keys-[0-9a-f]{16}\.so\.log/);
			return true;
		});
		const cores = fs.readdirSync(path.join(state, 'cores'));
		const logFile = cores.find((f) => /^keys-.*\.so\.log$/.test(f));
		assert.ok(logFile, cores.join(' '));
		assert.match(fs.readFileSync(path.join(state, 'cores', logFile), 'utf8'), /planted failure/);
		// Every compiler started ended before the daemon exited, none left a temporary file.
		const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
		assert.equal(lines.filter((l) => l.startsWith('start')).length, lines.filter((l) => l.startsWith('end')).length,
			lines.join('\n'));
		assert.deepEqual(cores.filter((f) => f.endsWith('.tmp')), []);
		assert.ok(!cores.some((f) => /^keys-.*\.so$/.test(f)), cores.join(' '));
	} finally {
		setEnv({ PHPCMP_CC: undefined, CORE_LOG: undefined, CORE_FAIL: undefined });
	}
});

test('two daemons starting cold on one state folder at once: both ready, cores whole', async () => {
	const dir = tmpDir();
	const state = path.join(dir, 'state');
	const [a, b] = await Promise.all([
		Daemon.start({ name: 'cores-twin-a', buildList: FOUR, state }),
		Daemon.start({ name: 'cores-twin-b', buildList: FOUR, state }),
	]);
	try {
		for (const d of [a, b]) {
			assert.deepEqual(d.health.builds.map((x) => x.worker.state), ['ready', 'ready', 'ready', 'ready']);
			const v = await d.runCase({ code: '["a" => 1]' });
			assert.equal(v.verdict, 'same', JSON.stringify(v));
		}
		const cores = fs.readdirSync(path.join(state, 'cores'));
		assert.equal(cores.filter((f) => f.endsWith('.so')).length, 4, cores.join(' '));
		assert.deepEqual(cores.filter((f) => f.endsWith('.tmp')), []);
	} finally {
		await a.stopClean();
		await b.stopClean();
	}
});
