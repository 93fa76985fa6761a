// A build's library is opened only inside the worker's sandbox (issue 44,
// item 1): its constructors and PHP's start-up run with the layers already
// in force, never with the daemon's privileges.  A hostile library
// (tests/fixtures/hostile/shim.c) tries, from its constructor, to write a
// marker outside the private folder, to read /etc/shadow and to connect to
// a port on loopback:
//  - alone (no PHP in it), it is refused as not_a_build, and the message
//    says the library was loaded inside the sandbox;
//  - loading the real libphp after its constructor, it is accepted and
//    answers cases as the real build does;
// and in both the marker never appears and the listener sees no connection.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BUILDS, Daemon, tmpDir } from './helper.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const dir = tmpDir('phpcmp-loadsandbox-');
const markers = tmpDir('phpcmp-loadsandbox-markers-');

// The real library of the default base, and its headers (Debian's layout).
const realLib = fs.readdirSync(path.join(BUILDS, 'base', 'usr/lib')).find((f) => /^libphp.*\.so$/.test(f));
assert.ok(realLib, 'builds/base has a libphp*.so');

let listener, port, connections = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Connections are counted as the listener's events arrive: give them time.
async function settledConnections() {
	await sleep(500);
	return connections;
}

// A prefix holding the shim as its libphp (SONAME libphp.so, as PHP's own),
// the real headers, and (real: true) a copy of the real library the shim
// then loads from its own prefix.
function hostilePrefix(name, { real }) {
	const prefix = path.join(dir, name);
	fs.mkdirSync(path.join(prefix, 'usr/lib'), { recursive: true });
	fs.symlinkSync(path.join(BUILDS, 'base', 'usr/include'), path.join(prefix, 'usr/include'));
	const defs = [`-DMARKER="${path.join(markers, name)}"`, `-DPORT=${port}`];
	if (real) {
		fs.mkdirSync(path.join(prefix, 'usr/lib/real'));
		const copy = path.join(prefix, 'usr/lib/real', realLib);
		fs.copyFileSync(path.join(BUILDS, 'base', 'usr/lib', realLib), copy);
		defs.push(`-DREAL="${copy}"`);
	}
	execFileSync('cc', ['-shared', '-fPIC', '-O1', '-Wl,-soname,libphp.so', ...defs,
		'-o', path.join(prefix, 'usr/lib', realLib), path.join(ROOT, 'tests/fixtures/hostile/shim.c'), '-ldl']);
	return name;
}

let d;
before(async () => {
	listener = net.createServer((s) => { connections++; s.destroy(); });
	await new Promise((r) => listener.listen(0, '127.0.0.1', r));
	port = listener.address().port;
	d = await Daemon.start({ name: 'loadsandbox', extraArgs: ['--builds-dir', dir] });
});
after(async () => {
	if (d) await d.stopClean();
	if (listener) listener.close();
});

test('the hostile shim does what it says outside the sandbox (the test can fail)', async () => {
	// Loaded by a plain process, its constructor writes the marker.
	const name = hostilePrefix('plain', { real: false });
	const lib = path.join(dir, name, 'usr/lib', realLib);
	execFileSync('python3', ['-c', 'import ctypes, sys; ctypes.CDLL(sys.argv[1])', lib]);
	assert.ok(fs.existsSync(path.join(markers, name)), 'the shim wrote its marker when loaded unconfined');
	assert.match(fs.readFileSync(path.join(markers, name), 'utf8'), /constructor ran/);
	for (let i = 0; i < 50 && connections === 0; i++) await sleep(100);
	assert.equal(connections > 0, true, 'the shim connected when loaded unconfined');
	connections = 0;
});

test('a library that is no PHP: refused, loaded inside the sandbox, nothing written, read or sent', async () => {
	const name = hostilePrefix('shim-alone', { real: false });
	const r = await d.request('POST', '/api/builds', { body: { name: 'shim-alone', prefix: name } });
	assert.equal(r.status, 422, r.text);
	assert.equal(r.json.error.code, 'not_a_build');
	assert.match(r.json.error.message, /inside the sandbox: netns.*landlock.*caps/);
	assert.equal(fs.existsSync(path.join(markers, name)), false, 'the constructor wrote outside its folder');
	assert.equal(await settledConnections(), 0, 'the constructor reached a port on loopback');
});

test('a library that loads the real PHP after its constructor: served, and still nothing written, read or sent', async () => {
	const name = hostilePrefix('shim-real', { real: true });
	const r = await d.request('POST', '/api/builds', { body: { name: 'shim-real', prefix: name } });
	assert.equal(r.status, 201, r.text);
	assert.equal(r.json.worker.state, 'ready');
	const c = await d.postCase({ code: '["a" => 1.5, "b" => "\\u{e9}"]' });
	assert.equal(c.status, 201, c.text);
	assert.equal(c.json.results.cand2.build, 'shim-real');
	assert.equal(c.json.results.cand2.output, c.json.results.base.output);
	assert.equal(c.json.results.cand2.output, '{"a":1.5,"b":"\\u00e9"}');
	assert.equal(fs.existsSync(path.join(markers, name)), false, 'the constructor wrote outside its folder');
	assert.equal(await settledConnections(), 0, 'the constructor reached a port on loopback');
	// Its workers report the layers they started under.
	const h = (await d.get('/api/health')).json.builds.find((b) => b.name === 'shim-real');
	assert.match(JSON.stringify(h), /landlock/);
});

test('headers that include /etc/shadow: the core does not compile, and nothing of the file reaches its log', async () => {
	// The compiler of the worker core reads a build's headers: it runs under
	// the worker's sandbox too (phpcmp-worker --sandbox-exec).
	const name = 'shadow-headers';
	const prefix = path.join(dir, name);
	fs.mkdirSync(path.join(prefix, 'usr/lib'), { recursive: true });
	fs.cpSync(path.join(BUILDS, 'base', 'usr/include'), path.join(prefix, 'usr/include'), { recursive: true, dereference: true });
	fs.copyFileSync(path.join(BUILDS, 'base', 'usr/lib', realLib), path.join(prefix, 'usr/lib', realLib));
	const api = fs.readdirSync(path.join(prefix, 'usr/include/php'))[0];
	const phpH = path.join(prefix, 'usr/include/php', api, 'main/php.h');
	fs.appendFileSync(phpH, '\n#include "/etc/shadow"\n');
	const r = await d.request('POST', '/api/builds', { body: { name, prefix: name } });
	assert.equal(r.status, 422, r.text);
	assert.match(r.json.error.message, /compiling the worker core failed/);
	const log = r.json.error.message.match(/see (\S+\.log)/)[1];
	const text = fs.readFileSync(log, 'utf8');
	assert.match(text, /\/etc\/shadow/, 'the log names the include that failed');
	const firstLine = fs.readFileSync('/etc/shadow', 'utf8').split('\n')[0].split(':')[0];
	assert.ok(!text.includes(`${firstLine}:`), `the log holds a line of /etc/shadow:\n${text}`);
});
