// Issue 45, part 1: a build of a PHP the worker cores were never compiled
// against (before 8.0, after the newest server/core/compat.h handles) is
// refused when it is found — at startup and when registered on a running
// daemon — with its version and where the supported ones are listed
// (docs/builds.md#versions), not by a compiler error or a crash.  The
// builds here are prefixes with headers that say their version and a
// libphp.so that is not one: the version is checked before anything else
// is read.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, BUILDS, Daemon, tmpDir } from './helper.mjs';

// A `make install` prefix of PHP `version` (PHP_VERSION_ID `id`), headers only.
function fakePrefix(dir, version, id) {
	fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
	fs.mkdirSync(path.join(dir, 'include/php/main'), { recursive: true });
	fs.writeFileSync(path.join(dir, 'lib/libphp.so'), 'not a library\n');
	fs.writeFileSync(path.join(dir, 'include/php/main/php.h'), '/* headers only */\n');
	fs.writeFileSync(path.join(dir, 'include/php/main/php_version.h'),
		`#define PHP_MAJOR_VERSION ${Math.floor(id / 10000)}\n#define PHP_VERSION "${version}"\n#define PHP_VERSION_ID ${id}\n`);
	return dir;
}

const dir = tmpDir('phpcmp-versions-');
const old = fakePrefix(path.join(dir, 'php74'), '7.4.33', 70433);
const newer = fakePrefix(path.join(dir, 'php90'), '9.0.0-dev', 90000);
const OLD_MSG = "PHP 7.4.33 is older than 8.0, the oldest PHP phpcmp's cores support (docs/builds.md#versions)";
const NEW_MSG = "PHP 9.0.0-dev is newer than 8.6, the newest PHP phpcmp's cores are written for (docs/builds.md#versions)";

const serve = (name, prefix) => spawnSync(BIN, ['serve', '--listen', '127.0.0.1', '--port', '0',
	'--db', path.join(tmpDir(), 'phpcmp.db'), '--state', tmpDir('phpcmp-versions-state-'),
	'--build', `base=${path.join(BUILDS, 'base')}`, '--build', `${name}=${prefix}`],
{ encoding: 'utf8', timeout: 60_000 });

test('serve with a PHP 7.4 build: refused at startup, saying so', () => {
	const r = serve('old', old);
	assert.equal(r.status, 1, r.stderr);
	assert.ok(r.stderr.includes(`build old: ${OLD_MSG}`), r.stderr);
	assert.doesNotMatch(r.stderr, /compil/, 'refused before its core is compiled');
});

test('serve with a PHP 9.0 build: refused at startup, saying so', () => {
	const r = serve('next', newer);
	assert.equal(r.status, 1, r.stderr);
	assert.ok(r.stderr.includes(`build next: ${NEW_MSG}`), r.stderr);
});

let d;
before(async () => {
	d = await Daemon.start({ name: 'versions', extraArgs: ['--builds-dir', dir] });
});
after(async () => {
	if (d) await d.stopClean();
});

test('POST /api/builds with a PHP 7.4 or 9.0 prefix: 422 not_a_build with the version, the daemon unchanged', async () => {
	for (const [name, prefix, msg] of [['old', 'php74', OLD_MSG], ['next', 'php90', NEW_MSG]]) {
		const r = await d.request('POST', '/api/builds', { body: { name, prefix } });
		assert.equal(r.status, 422, r.text);
		assert.equal(r.json.error.code, 'not_a_build');
		assert.equal(r.json.error.message, `build ${name}: ${msg}`);
	}
	const list = (await d.get('/api/builds')).json.builds.map((b) => [b.name, b.state]);
	assert.deepEqual(list, [['base', 'active'], ['head', 'active']]);
});
