// scripts/build-php.sh's build sandbox (docs/builds.md#sandbox): a patch's
// configure and make run with no network, an unprivileged uid and only
// their own tree writable.  The hostile fixtures
// (tests/fixtures/patches/hostile/) try what a stranger's pull request
// could: write outside the tree, read /etc/shadow, connect to a listener
// this file opens; each must fail the build with the sandbox's message,
// leaving nothing behind.  A benign candidate still builds, and its files
// are root's afterwards.  Needs the base that `make src-builds` makes (this
// file fails when it is missing).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, ROOT, tmpDir } from './helper.mjs';

const SCRIPT = path.join(ROOT, 'scripts/build-php.sh');
const CACHE = path.resolve(ROOT, process.env.PHPCMP_PHP_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'phpcmp', 'php'));
const BASE = path.join(BUILDS, 'src-8.2.32');
const HOSTILE = path.join(ROOT, 'tests/fixtures/patches/hostile');
const MARKER = '/var/tmp/phpcmp-hostile-marker';
const PORT = 47219; // the one configure-escape.patch connects to
const ENCODER = 'ext/json/json_encoder.c';
const ROOTUSER = process.getuid() === 0;

// The test's own environment: never the switch that turns the sandbox off.
const env = { ...process.env };
delete env.PHPCMP_BUILD_SANDBOX;

function run(args, { timeoutMs = 600_000 } = {}) {
	return new Promise((resolve) => {
		execFile('bash', [SCRIPT, ...args], { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 16 << 20 },
			(err, stdout, stderr) => resolve({ code: err ? (err.code ?? -1) : 0, stdout, stderr }));
	});
}

const BASE_TREE = (() => {
	try {
		return path.dirname(fs.realpathSync(BASE));
	} catch {
		return null;
	}
})();

const linkDir = tmpDir('phpcmp-buildsandbox-');
const trees = [];
after(() => {
	for (const t of trees) {
		fs.rmSync(t, { recursive: true, force: true });
		fs.rmSync(`${t}.lock`, { force: true });
	}
	fs.rmSync(linkDir, { recursive: true, force: true });
	fs.rmSync(MARKER, { force: true });
});

async function keyOf(patch) {
	const r = await run(['--key', '--patch', patch]);
	assert.equal(r.code, 0, r.stderr);
	const t = path.join(CACHE, 'trees', r.stdout.trim());
	trees.push(t);
	return t;
}

// A listener on 127.0.0.1:PORT counting who connects.
async function listener() {
	const seen = [];
	const server = net.createServer((s) => {
		seen.push(s.remoteAddress);
		s.destroy();
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(PORT, '127.0.0.1', resolve);
	});
	return { seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

const logOf = (r) => {
	const m = /log: (\S+build\.log)$/m.exec(r.stderr);
	assert.ok(m, `no log named in:\n${r.stderr}`);
	return fs.readFileSync(m[1], 'utf8');
};

test('the base exists (make src-builds), /etc/shadow is a secret', () => {
	assert.ok(BASE_TREE && fs.existsSync(path.join(BASE_TREE, 'done')),
		`${BASE} is missing: run \`make src-builds\` first`);
	const mode = fs.statSync('/etc/shadow').mode & 0o777;
	assert.equal(mode & 0o004, 0, '/etc/shadow is world-readable here: nothing to test');
});

test('a patch whose configure writes outside its tree, reads /etc/shadow and connects out fails, and none of it happened', async () => {
	const patch = path.join(HOSTILE, 'configure-escape.patch');
	const tree = await keyOf(patch);
	fs.rmSync(MARKER, { force: true });
	const l = await listener();
	let r;
	try {
		r = await run(['--name', 'hostile-configure', '--builds', linkDir, '--patch', patch]);
	} finally {
		await l.close();
	}
	assert.notEqual(r.code, 0, `the build succeeded:\n${r.stderr}`);
	assert.match(r.stderr, /configure failed \(exit 1.*\) inside the build sandbox/);
	assert.match(r.stderr, /sandbox: docs\/builds\.md#sandbox/);
	assert.match(r.stderr, /the build wrote outside its tree/);
	const log = logOf(r);
	assert.match(log, /^hostile: configure runs as uid=/m, 'the hostile lines ran');
	if (ROOTUSER) assert.match(log, /^hostile: configure runs as uid=65533\b/m, 'as the build uid, not root');
	assert.doesNotMatch(log, /^hostile: (wrote|read|connected)/m);
	assert.ok(!fs.existsSync(MARKER), `${MARKER} was written`);
	assert.deepEqual(l.seen, [], 'the listener saw a connection');
	assert.ok(!fs.existsSync(path.join(linkDir, 'hostile-configure')));
	assert.ok(!fs.existsSync(path.join(tree, 'done')));
});

test('a .c patch that embeds /etc/shadow at compile time fails the candidate build', async () => {
	const patch = path.join(HOSTILE, 'incbin-shadow.patch');
	const tree = await keyOf(patch);
	const r = await run(['--name', 'hostile-incbin', '--builds', linkDir, '--patch', patch]);
	assert.notEqual(r.code, 0, `the build succeeded:\n${r.stderr}`);
	assert.match(r.stderr, /candidate .* over /, 'built as a candidate over the base tree');
	assert.match(r.stderr, /the candidate's build \(patch, make over \w+\) failed .*inside the build sandbox/);
	assert.match(r.stderr, /Error: file not found: \/etc\/shadow/, 'the assembler could not open it');
	assert.match(r.stderr, /sandbox: docs\/builds\.md#sandbox/);
	assert.ok(!fs.existsSync(path.join(linkDir, 'hostile-incbin')));
	assert.ok(!fs.existsSync(path.join(tree, 'done')));
	assert.ok(!fs.existsSync(path.join(tree, 'upper/obj/libs/libphp.so')), 'no library was linked');
});

test('a benign candidate builds in the sandbox; its tree and the base prefix are root\'s after', async () => {
	const dir = tmpDir('phpcmp-sandbox-nonce-');
	const nonce = crypto.randomBytes(4).toString('hex');
	const src = fs.readFileSync(path.join(BASE_TREE, 'src', ENCODER), 'utf8');
	const anchor = '\tif (len == 0) {\n\t\tsmart_str_appendl(buf, "\\"\\"", 2);\n\t\treturn SUCCESS;\n\t}\n';
	assert.ok(src.includes(anchor), 'anchor in json_encoder.c');
	const add = `\tif (len == ${7 + nonce.length} && memcmp(s, "phpcmp-${nonce}", len) == 0) {\n` +
		'\t\tsmart_str_appendl(buf, "\\"nonce\\"", 7);\n\t\treturn SUCCESS;\n\t}\n';
	fs.writeFileSync(path.join(dir, 'a.c'), src);
	fs.writeFileSync(path.join(dir, 'b.c'), src.replace(anchor, anchor + add));
	const diff = spawnSync('diff', ['-u', '--label', `a/${ENCODER}`, '--label', `b/${ENCODER}`,
		path.join(dir, 'a.c'), path.join(dir, 'b.c')], { encoding: 'utf8' }).stdout;
	const patch = path.join(dir, `nonce-${nonce}.patch`);
	fs.writeFileSync(patch, `A test patch of buildsandbox.test.mjs (nonce ${nonce}).\n${diff}`);
	const tree = await keyOf(patch);
	const r = await run(['--name', 'sandbox-nonce', '--builds', linkDir, '--patch', patch]);
	assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
	assert.match(r.stdout, /\(reused, [\d.]+ s\)$/m);
	const prefix = path.join(linkDir, 'sandbox-nonce');
	const out = spawnSync(path.join(prefix, 'bin/php'), ['-n', '-r', `echo json_encode("phpcmp-${nonce}");`],
		{ encoding: 'utf8' });
	assert.equal(out.stdout, '"nonce"', out.stderr);
	if (ROOTUSER) {
		// Nothing of the finished candidate, nor the base's prefix, stays
		// writable by the build uid.
		const notRoot = spawnSync('find', [tree, path.join(BASE_TREE, 'prefix'), '!', '-uid', '0', '-print', '-quit'],
			{ encoding: 'utf8' }).stdout;
		assert.equal(notRoot, '', `not root's: ${notRoot}`);
	}
	fs.rmSync(dir, { recursive: true, force: true });
});
