// Issue 9: nothing carries from one case to the next, whatever a case did:
// a folder the cleanup cannot list, a tree deeper than its depth, the ini
// baseline (display_errors), OpenSSL's error queue.  And what a worker sees
// of the daemon: no inherited descriptor but the protocol's, no
// pcntl_getpriority; warnings read as php-cli prints them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

let d, sandboxDir;
before(async () => {
	sandboxDir = tmpDir('phpcmp-isolation-');
	d = await Daemon.start({ name: 'isolation', extraArgs: ['--sandbox-dir', sandboxDir] });
});
after(async () => {
	await d?.stopClean();
	if (sandboxDir) fs.rmSync(sandboxDir, { recursive: true, force: true });
});

const both = (c, f) => { for (const b of ['base', 'head']) f(c.results[b], b); };

test('a folder the cleanup cannot list is gone for the next case', async () => {
	const first = await d.runCase({ code: `$t = sys_get_temp_dir();
mkdir("$t/x", 0300); file_put_contents("$t/x/f", "secret");
mkdir("$t/y", 0500 | 0200); file_put_contents("$t/y/g", "secret"); mkdir("$t/y/z", 0); 
mkdir("$t/w", 0700); file_put_contents("$t/w/h", "secret"); chmod_is_disabled: ;
return [is_file("$t/x/f"), is_file("$t/y/g")];` });
	both(first, (r, b) => assert.equal(r.output, '[true,true]', `${b}: ${JSON.stringify(r)}`));
	const next = await d.runCase({ code: `$t = sys_get_temp_dir(); return [@file_get_contents("$t/x/f"), @file_get_contents("$t/y/g"), is_dir("$t/x"), is_dir("$t/y"), scandir($t)];` });
	both(next, (r, b) => assert.equal(r.output, '[false,false,false,false,[".",".."]]', `${b}: ${JSON.stringify(r)}`));
});

test('a tree deeper than the cleanup\'s depth is gone for the next case', async () => {
	const first = await d.runCase({ code: `$t = sys_get_temp_dir(); $p = $t . str_repeat("/d", 150);
return [mkdir($p, 0700, true), file_put_contents("$p/f", "secret"), mkdir("$t/d" . str_repeat("/d", 80) . "/q", 0300, true)];` });
	both(first, (r, b) => assert.equal(r.output, '[true,6,true]', `${b}: ${JSON.stringify(r)}`));
	const next = await d.runCase({ code: `$t = sys_get_temp_dir(); return [@file_get_contents($t . str_repeat("/d", 150) . "/f"), scandir($t)];` });
	both(next, (r, b) => assert.equal(r.output, '[false,[".",".."]]', `${b}: ${JSON.stringify(r)}`));
	// Nothing left in the sandbox folder beyond the workers' own folders.
	for (const f of fs.readdirSync(sandboxDir)) {
		assert.match(f, /^phpcmp-\d+-[A-Za-z0-9]{6}$/, f);
		for (const w of fs.readdirSync(path.join(sandboxDir, f))) assert.match(w, /^(base|head)-[A-Za-z0-9]{6}$/, w);
	}
});

test('the ini baseline is restored exactly: display_errors, whatever a case set', async () => {
	const baseline = await d.runCase({ code: 'ini_get_all(null, false)' });
	for (const v of ['1', '0', 'stdout', 'stderr']) {
		const set = await d.runCase({ code: `ini_set('display_errors', '${v}'); ini_set('precision', '3'); ini_set('serialize_precision', '5'); error_reporting(0); ini_set('html_errors', '1'); return 1;` });
		both(set, (r, b) => assert.equal(r.status, 'ok', `${b}: ${JSON.stringify(r)}`));
		const warn = await d.runCase({ code: `trigger_error("w-${v}", E_USER_WARNING); return 0.1 + 0.2;` });
		both(warn, (r, b) => {
			assert.equal(r.printed, '', `${b}, after display_errors=${v}: a warning is not printed: ${JSON.stringify(r)}`);
			assert.equal(r.output, '0.30000000000000004', `${b}: serialize_precision back to -1`);
			assert.ok(r.warnings.some((w) => w.includes(`w-${v}`)), `${b}: the warning is recorded`);
		});
		const fatal = await d.runCase({ code: "str_repeat('x', 200 << 20)" });
		both(fatal, (r, b) => assert.equal(r.printed, '', `${b}: a fatal error is not printed: ${JSON.stringify(r)}`));
		const again = await d.runCase({ code: 'ini_get_all(null, false)' });
		both(again, (r, b) => assert.equal(r.output, baseline.results[b].output, `${b}: every ini value as before`));
	}
	both(baseline, (r, b) => assert.equal(JSON.parse(r.output).display_errors, '0', `${b}: display_errors is 0 in the baseline itself`));
});

test('the OpenSSL error queue does not carry into the next case', async (t) => {
	const has = await d.runCase({ code: "function_exists('openssl_error_string')" });
	if (has.results.base.output !== 'true') return t.skip('no openssl in these builds');
	const first = await d.runCase({ code: `@openssl_pkey_get_private("not a key"); @openssl_pkey_get_public("nope"); @openssl_x509_read("bad"); return 1;` });
	both(first, (r, b) => assert.equal(r.status, 'ok', b));
	const next = await d.runCase({ code: 'openssl_error_string()' });
	both(next, (r, b) => assert.equal(r.output, 'false', `${b}: ${JSON.stringify(r)}`));
});

test('warnings read as php-cli prints them, not "PHP Request Startup"', async () => {
	const c = await d.runCase({ code: "hex2bin('abc')" });
	both(c, (r, b) => {
		assert.ok(r.warnings.length > 0, b);
		assert.ok(!r.warnings.some((w) => /Request Startup/.test(w)), `${b}: ${JSON.stringify(r.warnings)}`);
		assert.ok(r.warnings.some((w) => w.includes('hex2bin(): Hexadecimal input string must have an even length')), `${b}: ${JSON.stringify(r.warnings)}`);
	});
	const f = await d.runCase({ code: "file_get_contents('/x')" });
	both(f, (r, b) => assert.match(r.warnings[0] || '', /^PHP Warning: {1,2}file_get_contents\(\): open_basedir restriction in effect/, `${b}: ${JSON.stringify(r.warnings)}`));
});

test('pcntl_getpriority is disabled: it would probe which pids exist', async () => {
	const c = await d.postCase({ code: 'pcntl_getpriority(1)' });
	assert.equal(c.status, 201);
	both(c.json, (r, b) => {
		assert.equal(r.status, 'error', `${b}: ${JSON.stringify(r)}`);
		assert.match(r.exception?.message || r.failure || '', /undefined function pcntl_getpriority/, b);
	});
});

test('a worker inherits no descriptor but its protocol socket', async () => {
	// Workers' pids from health; their open descriptors from /proc.
	const h = (await d.get('/api/health')).json;
	const pids = JSON.stringify(h).match(/"pid":(\d+)/g).map((m) => Number(m.split(':')[1])).filter((p) => p > 0);
	assert.ok(pids.length >= 2, JSON.stringify(h));
	for (const pid of pids) {
		const fds = fs.readdirSync(`/proc/${pid}/fd`).map(Number).sort((a, b) => a - b);
		const links = Object.fromEntries(fds.map((fd) => { try { return [fd, fs.readlinkSync(`/proc/${pid}/fd/${fd}`)]; } catch { return [fd, '?']; } }));
		// 0-2 (/dev/null or the log), 3 (the socket); PHP's and the sandbox's own are opened after exec.
		const inherited = fds.filter((fd) => fd > 3 && /socket:|pipe:|phpcmp\.db|anon_inode/.test(links[fd]) && !/\/dev\/(u?random|null|zero)/.test(links[fd]));
		assert.deepEqual(inherited.map((fd) => `${fd} -> ${links[fd]}`), [], `worker ${pid}: ${JSON.stringify(links)}`);
	}
});
