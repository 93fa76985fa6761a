// phpcmp's phpt suite against php-src's own runner: run-tests.php (from the
// same 8.2.32 source) on the same folder, test by test (docs/phpt.md).
//
// The reference CLI: the from-source base build's own bin/php when the
// builds are from source (scripts/build-php.sh), compared with phpcmp's
// base; otherwise Debian's php8.2-cli, compared with the phpcmp build of
// the same PHP version (Debian ships no 8.2.32 CLI, but its 8.2.36 CLI is
// the head build's version).  Any difference fails the test, listed; the
// embed-vs-CLI differences that exist are in docs/phpt.md.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, Daemon, tmpDir } from './helper.mjs';
import { jsonTestsDir, runPhpt } from './phpt-helper.mjs';

let d;
after(async () => { if (d) await d.stopClean(); });

function cliVersion(php) {
	return execFileSync(php, ['-n', '-r', 'echo PHP_VERSION;'], { encoding: 'utf8' }).trim();
}

// The CLI to compare with, and which phpcmp build it stands for.
function reference(health) {
	for (const role of ['base', 'head']) {
		const own = path.join(BUILDS, role, 'bin', 'php');
		if (fs.existsSync(own)) return { php: own, role, why: `builds/${role}/bin/php, the build's own CLI` };
	}
	for (const php of ['/usr/bin/php8.2', '/usr/bin/php']) {
		if (!fs.existsSync(php)) continue;
		const v = cliVersion(php);
		for (const role of ['base', 'head']) {
			if (health.builds.find((b) => b.role === role || b.name === role)?.php_version === v) {
				return { php, role, why: `${php} (PHP ${v}), the ${role} build's version` };
			}
		}
	}
	return null;
}

// run-tests.php's status of every test: {name: 'PASS' | 'FAIL' | ...}.
function runTests(php, srcTop) {
	const top = tmpDir('phpcmp-runtests-');
	fs.copyFileSync(path.join(srcTop, 'run-tests.php'), path.join(top, 'run-tests.php'));
	fs.cpSync(path.join(srcTop, 'ext/json/tests'), path.join(top, 'ext/json/tests'), { recursive: true });
	const r = spawnSync(php, ['run-tests.php', '-p', php, '-q', '-j2', '--no-color', '--no-progress', 'ext/json/tests'], {
		cwd: top, encoding: 'utf8', env: { ...process.env, NO_INTERACTION: '1', TEST_PHP_EXECUTABLE: php },
		timeout: 300_000,
	});
	// "STATUS name [ext/json/tests/x.phpt] ...": a name may hold a newline,
	// so each [file] takes the status that last began a line before it.
	const statuses = {};
	const out = r.stdout || '';
	for (const m of out.matchAll(/\[ext\/json\/tests\/([^\]\n]+\.phpt)\]/g)) {
		const before = out.slice(0, m.index);
		const all = [...before.matchAll(/(?:^|\n)(PASS|FAIL|SKIP|BORK|WARN|XFAIL|LEAK|XLEAK) /g)];
		if (all.length) statuses[m[1]] = all[all.length - 1][1];
	}
	return { statuses, output: r.stdout + r.stderr };
}

test('run-tests.php and the phpt suite agree on ext/json/tests, test by test', async (t) => {
	const dir = jsonTestsDir();
	d = await Daemon.start({ name: 'phpt-runtests', phptDirs: [dir] });
	const ref = reference(d.health);
	if (!ref) {
		t.skip('no php-cli of either build\'s version (install php8.2-cli, or build from source)');
		return;
	}
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 1000));
	const ours = {};
	for (const x of run.summary.tests) ours[x.test] = x[ref.role].status;

	const { statuses, output } = runTests(ref.php, path.dirname(path.dirname(path.dirname(dir))));
	assert.equal(Object.keys(statuses).length, 76, `run-tests.php reported ${Object.keys(statuses).length} tests:\n${output.slice(-3000)}`);
	// run-tests' WARN of an XFAIL test that passes is phpcmp's XPASS.
	const theirs = Object.fromEntries(Object.entries(statuses).map(([k, v]) => [k, v === 'WARN' ? 'XPASS' : v]));
	const differences = Object.keys(theirs).filter((k) => theirs[k] !== ours[k])
		.map((k) => `${k}: run-tests.php ${theirs[k]}, phpcmp ${ours[k]}`);
	t.diagnostic(`reference: ${ref.why}; phpcmp build: ${ref.role}`);
	const count = (m) => Object.values(m).reduce((a, s) => ({ ...a, [s]: (a[s] || 0) + 1 }), {});
	t.diagnostic(`run-tests.php: ${JSON.stringify(count(theirs))}; phpcmp: ${JSON.stringify(count(ours))}`);
	assert.deepEqual(differences, [], `statuses differ:\n${differences.join('\n')}`);
	assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort());
});
