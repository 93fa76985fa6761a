// Issue 46: serve and token say what to do, and make nothing when they stop.
// serve run outside the repository root names where it looked and how to
// fix it; serve on a port in use creates no database; `token add` without
// --db does not make a ./phpcmp.db of its own beside a daemon serving
// another file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { BIN, BUILDS, tmpDir } from './helper.mjs';

const run = (args, cwd) => spawnSync(BIN, args, { cwd, encoding: 'utf8', timeout: 60_000 });

test('serve outside the repository root: where it looked, what to do, no database made', () => {
	const cwd = tmpDir('phpcmp-elsewhere-');
	const db = path.join(cwd, 'phpcmp.db');
	const r = run(['serve', '--port', '0', '--db', db], cwd);
	assert.equal(r.status, 1, r.stderr);
	assert.ok(r.stderr.includes(`build base: prefix builds/base: No such file or directory (in ${fs.realpathSync(cwd)}, where serve runs: ` +
		'run it from the repository root, where `make builds` puts the default builds in builds/, or give --build base=/absolute/prefix)'), r.stderr);
	assert.ok(!fs.existsSync(db), 'no database made');
});

test('serve on a port in use: "nothing was started" and no database created', async () => {
	const holder = net.createServer();
	await new Promise((resolve, reject) => {
		holder.once('error', reject);
		holder.listen(0, '127.0.0.1', resolve);
	});
	try {
		const db = path.join(tmpDir(), 'phpcmp.db');
		const r = run(['serve', '--listen', '127.0.0.1', '--port', String(holder.address().port), '--db', db,
			'--state', tmpDir('phpcmp-port-state-'),
			'--build', `base=${path.join(BUILDS, 'base')}`, '--build', `head=${path.join(BUILDS, 'head')}`]);
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, /Address already in use.*nothing was started/s);
		assert.ok(!fs.existsSync(db), 'the database was not created');
	} finally {
		await new Promise((resolve) => holder.close(resolve));
	}
});

test('token add without --db: no ./phpcmp.db made, told to name the daemon\'s', () => {
	const cwd = tmpDir('phpcmp-token-');
	const r = run(['token', 'add', 'ci'], cwd);
	assert.equal(r.status, 1, r.stderr);
	assert.match(r.stderr, /^phpcmp token: database phpcmp\.db: No such file or directory; give the daemon's with --db PATH \(its startup line says "database PATH"\)\n$/);
	assert.ok(!fs.existsSync(path.join(cwd, 'phpcmp.db')));
	assert.equal(r.stdout, '', 'no token printed');
	// Named, it is made (a new file is fine when asked for).
	const db = path.join(cwd, 'other.db');
	const ok = run(['token', 'add', 'ci', '--db', db], cwd);
	assert.equal(ok.status, 0, ok.stderr);
	assert.ok(fs.existsSync(db));
	// With ./phpcmp.db there, no --db uses it as before.
	fs.copyFileSync(db, path.join(cwd, 'phpcmp.db'));
	const here = run(['token', 'list'], cwd);
	assert.equal(here.status, 0, here.stderr);
	assert.match(here.stdout, /ci/);
});
