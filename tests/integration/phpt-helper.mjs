// Shared by the phpt suite's tests (phpt.test.mjs, phpt-runtests.test.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tmpDir } from './helper.mjs';

const RUN_DEADLINE_MS = 120_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The folder of the 8.2.32 source's ext/json/tests (scripts/php-tests.sh
// extracts it from the source tarball on first use).
export function jsonTestsDir() {
	const top = execFileSync(path.join(ROOT, 'scripts/php-tests.sh'), { encoding: 'utf8' }).trim();
	return path.join(top, 'ext/json/tests');
}

// A phpt run reads only the folders its daemon serves (--phpt-dir, given at
// startup; docs/phpt.md): one folder per test process, made at first use, to
// pass as Daemon.start({ phptDirs: [servedRoot()] }), and folders of tests
// made beneath it (servedDir) while the daemon runs.
let served = null;
export function servedRoot() {
	if (!served) served = tmpDir('phpcmp-phpt-served-');
	return served;
}
export function servedDir(prefix = 'tests-') {
	return fs.mkdtempSync(path.join(servedRoot(), prefix));
}

// POST /api/runs {"suite":"phpt", ...body} and wait for its end: the run.
export async function runPhpt(daemon, body) {
	const r = await daemon.request('POST', '/api/runs', { body: { suite: 'phpt', ...body } });
	assert.equal(r.status, 202, r.text);
	const deadline = Date.now() + RUN_DEADLINE_MS;
	for (;;) {
		const g = await daemon.get(`/api/runs/${r.json.id}`);
		assert.equal(g.status, 200, g.text);
		if (!['queued', 'running'].includes(g.json.status)) return g.json;
		assert.ok(Date.now() < deadline, `run still ${g.json.status}`);
		await sleep(100);
	}
}
