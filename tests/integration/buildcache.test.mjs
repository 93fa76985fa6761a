// scripts/build-php.sh's cache: a request for a build that is done does no
// work; a candidate that differs from its donor by a patch to one file is
// built over the donor's tree (no configure, no full make), side by side
// with another, without touching the donor.  Needs the base that
// `make src-builds` makes (this file fails when it is missing).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUILDS, ROOT, sha256File, tmpDir } from './helper.mjs';

const SCRIPT = path.join(ROOT, 'scripts/build-php.sh');
const CACHE = path.resolve(ROOT, process.env.PHPCMP_PHP_CACHE ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'phpcmp', 'php'));
const BASE = path.join(BUILDS, 'src-8.2.32');
const ENCODER = 'ext/json/json_encoder.c';

function run(args, { timeoutMs = 600_000 } = {}) {
	return new Promise((resolve) => {
		execFile('bash', [SCRIPT, ...args], { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 << 20 },
			(err, stdout, stderr) => resolve({ code: err ? (err.code ?? -1) : 0, stdout, stderr }));
	});
}

function must(r, what) {
	assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
	return r;
}

// "build-php: NAME = LINK -> TREE/prefix (MODE, SECONDS s)"
function resultOf(r) {
	const m = /^build-php: (\S+) = (\S+) -> (\S+)\/prefix \((cached|full|reused), ([\d.]+) s\)$/m.exec(r.stdout);
	assert.ok(m, `no result line in:\n${r.stdout}\n${r.stderr}`);
	return { name: m[1], link: m[2], tree: m[3], mode: m[4], seconds: Number(m[5]) };
}

const steps = (tree) => fs.readFileSync(path.join(tree, 'steps'), 'utf8').trim().split('\n');

// A patch that gives json_encode a new behaviour no other tree has: the
// string "phpcmp-<nonce>" is encoded as the string "nonce".  A fresh nonce
// per run makes a fresh key, so the reuse path runs every time.
function noncePatch(dir, nonce) {
	const src = fs.readFileSync(path.join(BASE_TREE, 'src', ENCODER), 'utf8');
	const anchor = '\tif (len == 0) {\n\t\tsmart_str_appendl(buf, "\\"\\"", 2);\n\t\treturn SUCCESS;\n\t}\n';
	assert.ok(src.includes(anchor), 'anchor in json_encoder.c');
	const add = `\tif (len == ${7 + nonce.length} && memcmp(s, "phpcmp-${nonce}", len) == 0) {\n` +
		'\t\tsmart_str_appendl(buf, "\\"nonce\\"", 7);\n\t\treturn SUCCESS;\n\t}\n';
	const a = path.join(dir, 'a.c'), b = path.join(dir, 'b.c');
	fs.writeFileSync(a, src);
	fs.writeFileSync(b, src.replace(anchor, anchor + add));
	const file = path.join(dir, `nonce-${nonce}.patch`);
	const diff = spawnSyncText('diff', ['-u', '--label', `a/${ENCODER}`, '--label', `b/${ENCODER}`, a, b]);
	fs.writeFileSync(file, `A test patch of buildcache.test.mjs (nonce ${nonce}).\n${diff}`);
	return file;
}

function spawnSyncText(cmd, args) {
	const r = spawnSync(cmd, args, { encoding: 'utf8' });
	return r.stdout;
}

const BASE_TREE = (() => {
	try {
		return path.dirname(fs.realpathSync(BASE));
	} catch {
		return null;
	}
})();

const made = [];
const linkDir = tmpDir('phpcmp-buildcache-');
after(() => {
	for (const t of made) {
		fs.rmSync(t, { recursive: true, force: true });
		fs.rmSync(`${t}.lock`, { force: true });
	}
	fs.rmSync(linkDir, { recursive: true, force: true });
});

test('the base exists (make src-builds)', () => {
	assert.ok(BASE_TREE && fs.existsSync(path.join(BASE, 'lib/libphp.so')),
		`${BASE} is missing: run \`make src-builds\` first`);
	assert.ok(fs.existsSync(path.join(BASE_TREE, 'done')));
});

test('a second request for a done build is a no-op: cached, no step runs, the library untouched', async () => {
	const before = steps(BASE_TREE);
	const lib = path.join(BASE_TREE, 'prefix/lib/libphp.so');
	const stat = fs.statSync(lib);
	const r = resultOf(must(await run(['--name', 'cache-again', '--builds', linkDir]), 'again'));
	assert.equal(r.mode, 'cached');
	assert.equal(fs.realpathSync(r.tree), fs.realpathSync(BASE_TREE));
	assert.deepEqual(steps(BASE_TREE), before, 'no new step in the tree');
	assert.equal(fs.statSync(lib).mtimeMs, stat.mtimeMs);
	assert.equal(fs.realpathSync(path.join(linkDir, 'cache-again')), fs.realpathSync(path.join(BASE_TREE, 'prefix')));
	// The key is a function of the request: the same request, the same key;
	// another flavour or a patch, another key.
	const k1 = must(await run(['--key']), 'key').stdout.trim();
	assert.equal(k1, path.basename(BASE_TREE));
	const k2 = must(await run(['--key', '--flavour', 'debug']), 'key debug').stdout.trim();
	assert.notEqual(k2, k1);
});

test('two one-file candidates at once: each built over the base tree, no configure, the base unchanged', async () => {
	const dir = tmpDir('phpcmp-nonce-');
	const nonces = [crypto.randomBytes(4).toString('hex'), crypto.randomBytes(4).toString('hex')];
	const patches = nonces.map((n) => noncePatch(dir, n));
	const baseSteps = steps(BASE_TREE);
	const baseLibSha = sha256File(path.join(BASE, 'lib/libphp.so'));
	const baseSrcSha = sha256File(path.join(BASE_TREE, 'src', ENCODER));
	const results = await Promise.all(patches.map((p, i) =>
		run(['--name', `cand-${i}`, '--builds', linkDir, '--patch', p]).then((r) => resultOf(must(r, `cand-${i}`)))));
	for (const r of results) made.push(r.tree);
	for (const [i, r] of results.entries()) {
		assert.equal(r.mode, 'reused', `cand-${i}`);
		const s = steps(r.tree);
		assert.ok(s.includes(`overlay ${path.basename(BASE_TREE)}`), `cand-${i} steps: ${s}`);
		assert.ok(!s.some((x) => /configure|extract/.test(x)), `cand-${i} ran no configure: ${s}`);
		assert.ok(s.includes('make'));
		const prefix = path.join(linkDir, `cand-${i}`);
		const lib = path.join(prefix, 'lib/libphp.so');
		assert.notEqual(sha256File(lib), baseLibSha, `cand-${i} has its own library`);
		assert.notEqual(fs.statSync(lib).ino, fs.statSync(path.join(BASE, 'lib/libphp.so')).ino);
		// The candidate's own CLI shows its own behaviour, and only its own.
		const php = path.join(prefix, 'bin/php');
		const out = spawnSync(php, ['-n', '-r', `echo json_encode("phpcmp-${nonces[i]}"), json_encode("phpcmp-${nonces[1 - i]}");`],
			{ encoding: 'utf8' });
		assert.equal(out.stdout, `"nonce""phpcmp-${nonces[1 - i]}"`, `cand-${i} bin/php: ${out.stderr}`);
		const info = fs.readFileSync(path.join(prefix, 'phpcmp-build.txt'), 'utf8');
		assert.match(info, /^mode=reused$/m);
		assert.match(info, new RegExp(`^donor=${path.basename(BASE_TREE)}$`, 'm'));
	}
	// The donor is exactly as it was.
	assert.deepEqual(steps(BASE_TREE), baseSteps);
	assert.equal(sha256File(path.join(BASE, 'lib/libphp.so')), baseLibSha);
	assert.equal(sha256File(path.join(BASE_TREE, 'src', ENCODER)), baseSrcSha);
	const base = spawnSync(path.join(BASE, 'bin/php'), ['-n', '-r', `echo json_encode("phpcmp-${nonces[0]}");`], { encoding: 'utf8' });
	assert.equal(base.stdout, `"phpcmp-${nonces[0]}"`);
	// And a second request for a candidate is cached.
	const again = resultOf(must(await run(['--name', 'cand-0', '--builds', linkDir, '--patch', patches[0]]), 'again'));
	assert.equal(again.mode, 'cached');
	assert.equal(again.tree, results[0].tree);
	fs.rmSync(dir, { recursive: true, force: true });
});

test('--plan: what would be reused and what needs a full build, and why', async () => {
	const dir = tmpDir('phpcmp-plan-');
	const src = path.join(BASE_TREE, 'src');
	// A patch adding a comment line at the top of FILE (of the base's source).
	const patchOf = (name, file, line) => {
		const a = path.join(dir, 'a'), b = path.join(dir, 'b');
		const text = fs.readFileSync(path.join(src, file), 'utf8');
		fs.writeFileSync(a, text);
		fs.writeFileSync(b, `${line}\n${text}`);
		const p = path.join(dir, `${name}.patch`);
		fs.writeFileSync(p, spawnSyncText('diff', ['-u', '--label', `a/${file}`, '--label', `b/${file}`, a, b]));
		return p;
	};
	const plan = async (...args) => must(await run(['--plan', ...args]), `plan ${args}`).stdout.trim();
	const donor = path.basename(BASE_TREE);
	assert.equal(await plan(), `cached ${donor}`);
	assert.equal(await plan('--patch', patchOf('c', ENCODER, '/* c */')), `reused ${donor} install=fast`);
	assert.equal(await plan('--patch', patchOf('re', 'ext/json/json_scanner.re', '/* re */')), `reused ${donor} install=fast`);
	assert.equal(await plan('--patch', patchOf('h', 'ext/json/php_json.h', '/* h */')), `reused ${donor} install=full`);
	assert.match(await plan('--patch', patchOf('m4', 'ext/json/config.m4', 'dnl m4')), /^full: m4\.patch changes the build system \(ext\/json\/config\.m4\)$/);
	assert.match(await plan('--patch', patchOf('mk', 'ext/json/Makefile.frag', '# mk')), /^full: mk\.patch changes the build system/);
	const added = path.join(dir, 'new.patch');
	fs.writeFileSync(added, '--- /dev/null\n+++ b/ext/json/json_new.c\n@@ -0,0 +1 @@\n+int json_new;\n');
	assert.equal(await plan('--patch', added), 'full: new.patch adds ext/json/json_new.c');
	assert.equal(await plan('--full', '--patch', patchOf('c2', ENCODER, '/* c2 */')), 'full: --full');
	// The instrumented flavours: ext/json (and the patched files) compiled
	// again over this same release tree; the whole tree instrumented only
	// when asked (--instrument-all: its own full tree, which may not be built
	// yet here; a coverage candidate of it is always a full build).
	for (const flavour of ['asan', 'coverage']) {
		assert.match(await plan('--flavour', flavour),
			new RegExp(`^(reused ${donor} install=fast instrumented=ext/json|cached [0-9a-f]{20})$`));
		assert.equal(await plan('--flavour', flavour, '--patch', patchOf(`${flavour}3`, ENCODER, `/* ${flavour} */`)),
			`reused ${donor} install=fast instrumented=ext/json`);
		assert.equal(await plan('--flavour', flavour, '--full', '--patch', patchOf(`${flavour}4`, ENCODER, `/* ${flavour}4 */`)),
			'full: --full');
	}
	assert.match(await plan('--flavour', 'coverage', '--instrument-all', '--patch', patchOf('c3', ENCODER, '/* c3 */')),
		/^full(: coverage flavour| donor [0-9a-f]{20} first, then decide)$/);
	assert.match(await plan('--flavour', 'asan', '--instrument-all'), /^(cached|full) [0-9a-f]{20}$/);
	fs.rmSync(dir, { recursive: true, force: true });
});

test('a link is only made over a link: a real folder of that name is refused', async () => {
	fs.mkdirSync(path.join(linkDir, 'real'));
	const r = await run(['--name', 'real', '--builds', linkDir]);
	assert.notEqual(r.code, 0);
	assert.match(r.stderr, /exists and is not a link/);
});
