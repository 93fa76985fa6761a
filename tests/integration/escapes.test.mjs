// Escapes tried: hostile cases against the real daemon and both real builds.
// Each must end as a recorded result with the status the sandbox honestly
// gives it (docs/sandbox.md), nothing may happen outside the worker's
// private folder, and the daemon and the next case must be fine.
//
// Debian's embed builds have pcntl but neither posix nor sockets: pcntl's
// functions are removed by disable_functions, the others are simply absent;
// either way the case calls an undefined function.  The layers beneath PHP
// (seccomp, landlock, the network namespace, rlimits) are proved on their
// own by tests/unit/test_sandbox.c.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

const TIMEOUT_MS = 2000;
const sandboxDir = tmpDir('phpcmp-escapes-sandbox-');
const outside = path.join(tmpDir('phpcmp-escapes-outside-'), 'pwned');

let d;
before(async () => {
	d = await Daemon.start({ name: 'escapes', timeoutMs: TIMEOUT_MS, extraArgs: ['--sandbox-dir', sandboxDir] });
});
after(async () => {
	await d?.stopClean();
	// Every private folder is removed with its worker.
	assert.deepEqual(fs.readdirSync(sandboxDir), [], 'no private folder left after the daemon stopped');
	fs.rmSync(sandboxDir, { recursive: true, force: true });
	fs.rmSync(path.dirname(outside), { recursive: true, force: true });
});

function both(res, fn) {
	for (const name of ['base', 'head']) fn(res.results[name], name);
}

// After every escape: health is fine, both workers are ready, an ordinary
// case works and nothing appeared outside the folder.
async function daemonFine() {
	const h = await d.get('/api/health');
	assert.equal(h.status, 200);
	for (const b of h.json.builds) {
		assert.ok(['ready', 'stopped'].includes(b.worker.state), `${b.name} worker ${b.worker.state}`);
	}
	const res = await d.runCase({ code: "['next' => [1, 'é']]" });
	both(res, (x, name) => {
		assert.equal(x.status, 'ok', `${name} next case: ${x.failure}`);
		assert.equal(x.output, '{"next":[1,"\\u00e9"]}');
	});
	assert.equal(fs.existsSync(outside), false, `${outside} was written`);
}

// A case whose function is removed or absent: a fatal "undefined function".
async function undefinedFunction(code, fn) {
	const res = await d.runCase({ code });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`);
		assert.equal(x.output, false);
		assert.deepEqual(x.exception, { class: 'Error', message: `Call to undefined function ${fn}()` }, name);
		assert.match(x.failure, new RegExp(`Call to undefined function ${fn}\\(\\)`));
	});
	await daemonFine();
}

// A case that computes false with PHP's warning about why.
async function refusedWithWarning(code, warning) {
	const res = await d.runCase({ code });
	both(res, (x, name) => {
		assert.equal(x.status, 'ok', `${name}: ${JSON.stringify(x)}`);
		assert.equal(x.output, 'false', name);
		assert.ok(x.warnings.some((w) => warning.test(w)), `${name} warnings: ${JSON.stringify(x.warnings)}`);
	});
	assert.equal(res.verdict, 'same');
	await daemonFine();
}

test('health shows every sandbox layer in force on both workers', async () => {
	const h = await d.get('/api/health');
	for (const b of h.json.builds) {
		for (const layer of ['netns', 'caps', 'seccomp', 'landlock', 'rlimits', 'php']) {
			assert.match(b.sandbox, new RegExp(`\\b${layer}\\b(?!\\(off)`), `${b.name}: ${b.sandbox}`);
		}
	}
	// One private folder per worker, in the daemon's own folder (mode 0700)
	// under --sandbox-dir, named after the daemon.
	const own = fs.readdirSync(sandboxDir);
	assert.equal(own.length, 1, JSON.stringify(own));
	assert.match(own[0], new RegExp(`^phpcmp-${d.proc.pid}-[A-Za-z0-9]{6}$`));
	const dirs = fs.readdirSync(path.join(sandboxDir, own[0])).sort();
	assert.equal(dirs.length, 2, JSON.stringify(dirs));
	assert.match(dirs[0], /^base-/);
	assert.match(dirs[1], /^head-/);
});

test('which dangerous functions exist at all: none of them', async () => {
	const names = ['exec', 'shell_exec', 'system', 'passthru', 'popen', 'proc_open', 'pcntl_fork', 'pcntl_exec',
		'posix_kill', 'fsockopen', 'stream_socket_client', 'socket_create', 'curl_init',
		'symlink', 'chmod', 'dl', 'mail'];
	const res = await d.runCase({ code: `array_values(array_filter(${JSON.stringify(names)}, 'function_exists'))` });
	both(res, (x) => assert.equal(x.output, '[]', `functions left: ${x.output}`));
	// getmypid stays (harmless): it is the worker's own pid.
	const pid = await d.runCase({ code: 'getmypid()' });
	const h = await d.get('/api/health');
	both(pid, (x, name) => {
		assert.equal(Number(x.output), h.json.builds.find((b) => b.name === name).worker.pid);
	});
});

test('open a socket: fsockopen, stream_socket_client, socket_create to the daemon itself', async () => {
	await undefinedFunction(`fsockopen('127.0.0.1', ${d.port})`, 'fsockopen');
	await undefinedFunction(`stream_socket_client('tcp://127.0.0.1:${d.port}')`, 'stream_socket_client');
	await undefinedFunction('socket_create(2, 1, 6)', 'socket_create');
});

test('open a URL: http:// is off (allow_url_fopen=0)', async () => {
	await refusedWithWarning(`file_get_contents('http://127.0.0.1:${d.port}/api/health')`,
		/http:\/\/ wrapper is disabled in the server configuration by allow_url_fopen=0/);
});

test('file_put_contents outside the private folder: open_basedir refuses it', async () => {
	await refusedWithWarning(`file_put_contents('${outside}', 'pwned')`, /open_basedir restriction in effect/);
	await refusedWithWarning("fopen('/etc/phpcmp-escape', 'w')", /open_basedir restriction in effect/);
});

test('the private folder can be written, and is empty again for the next case', async () => {
	const w = await d.runCase({ code: "file_put_contents(sys_get_temp_dir() . '/inside.txt', 'abc')" });
	both(w, (x) => assert.equal(x.output, '3'));
	const r = await d.runCase({ code: "[sys_get_temp_dir() === ini_get('open_basedir'), file_exists(sys_get_temp_dir() . '/inside.txt')]" });
	both(r, (x) => assert.equal(x.output, '[true,false]'));
	await daemonFine();
});

test('exec, proc_open, shell_exec, backticks, system, passthru, popen, pcntl_exec', async () => {
	await undefinedFunction("exec('id')", 'exec');
	await undefinedFunction("proc_open('id', [], $pipes)", 'proc_open');
	await undefinedFunction("shell_exec('id')", 'shell_exec');
	await undefinedFunction('`id`', 'shell_exec');
	await undefinedFunction("system('id')", 'system');
	await undefinedFunction("passthru('id')", 'passthru');
	await undefinedFunction("popen('id', 'r')", 'popen');
	await undefinedFunction("pcntl_exec('/bin/sh')", 'pcntl_exec');
});

test('read /etc/passwd: open_basedir refuses file_get_contents, include and SplFileObject', async () => {
	await refusedWithWarning("file_get_contents('/etc/passwd')", /open_basedir restriction in effect\. File\(\/etc\/passwd\)/);
	await refusedWithWarning("include '/etc/passwd'", /open_basedir restriction in effect/);
	const res = await d.runCase({ code: "(new SplFileObject('/etc/passwd'))->fgets()" });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', name);
		assert.deepEqual(x.exception, { class: 'RuntimeException', message: "Cannot open file '/etc/passwd'" });
	});
	await daemonFine();
});

test('allocate 10 GB: memory_limit stops it, and without it the address-space limit', async () => {
	const res = await d.runCase({ code: "strlen(str_repeat('x', 10 * 1024 ** 3))" });
	both(res, (x, name) => {
		assert.equal(x.status, 'error', `${name}: ${JSON.stringify(x)}`);
		assert.match(x.failure, /Allowed memory size of 134217728 bytes exhausted \(tried to allocate 107374\d{5} bytes\)/);
	});
	await daemonFine();
	// memory_limit can be raised by the case itself (ini_set is PHP_INI_ALL):
	// RLIMIT_AS (limit-as 1G) is what holds.  8.2.32 reports it as a fatal
	// error; 8.2.36's allocator prints "Out of memory" and exits 1.
	const raw = await d.runCase({ code: "(function () { ini_set('memory_limit', '-1'); return strlen(str_repeat('x', 10 * 1024 ** 3)); })()" });
	const base = raw.results.base, head = raw.results.head;
	assert.equal(base.status, 'error', JSON.stringify(base));
	assert.match(base.failure, /^PHP Fatal error: Out of memory \(allocated \d+ bytes\) \(tried to allocate 107374\d{5} bytes\)/);
	assert.equal(head.status, 'crash', JSON.stringify(head));
	assert.equal(head.signal, 0);
	// What it printed before exiting follows, from the worker's stderr.
	assert.match(head.failure, /^worker exited with status 1\nworker stderr \(\d+ bytes\):\n[^]*Out of memory/);
	assert.equal(raw.verdict, 'differ');
	await daemonFine();
});

test('fork bomb: pcntl_fork in a loop', async () => {
	await undefinedFunction('while (true) { pcntl_fork(); } return 1;', 'pcntl_fork');
});

test(`infinite output: stopped by the time limit (${TIMEOUT_MS} ms), the worker replaced`, async () => {
	const h0 = (await d.get('/api/health')).json;
	const res = await d.runCase({ code: "while (true) { echo str_repeat('x', 65536); } return 1;" });
	both(res, (x, name) => {
		assert.equal(x.status, 'timeout', `${name}: ${JSON.stringify(x).slice(0, 300)}`);
		assert.equal(x.failure, `timed out after ${TIMEOUT_MS} ms; worker killed`);
	});
	await daemonFine();
	const h1 = (await d.get('/api/health')).json;
	for (let i = 0; i < 2; i++) assert.notEqual(h1.builds[i].worker.pid, h0.builds[i].worker.pid);
	// The killed workers' folders went with them: still one per worker.
	const own = fs.readdirSync(sandboxDir);
	assert.equal(own.length, 1, JSON.stringify(own));
	assert.equal(fs.readdirSync(path.join(sandboxDir, own[0])).length, 2);
});

test('exit() from the case', async () => {
	const res = await d.runCase({ code: 'exit(3)' });
	both(res, (x) => {
		assert.equal(x.status, 'error');
		assert.equal(x.failure, 'exit() called in value\n');
	});
	await daemonFine();
});

test('posix_kill of the parent (the daemon)', async () => {
	await undefinedFunction('posix_kill(posix_getppid(), 9)', 'posix_kill');
	assert.equal(d.exit, null, 'the daemon is alive');
});

test('loosening the sandbox from inside: ini_set of open_basedir, disable_functions, allow_url_fopen', async () => {
	const res = await d.runCase({ code: "[ini_set('open_basedir', '/'), ini_set('disable_functions', ''), ini_set('allow_url_fopen', '1'), ini_get('open_basedir') === sys_get_temp_dir()]" });
	both(res, (x) => assert.equal(x.output, '[false,false,false,true]'));
	await undefinedFunction("dl('sockets.so')", 'dl');
	await undefinedFunction("symlink('/etc/passwd', sys_get_temp_dir() . '/p')", 'symlink');
	await undefinedFunction("mail('a@example.org', 's', 'm')", 'mail');
});

test('a measured case runs under the same sandbox (the measuring worker, under valgrind)', async () => {
	const res = await d.runCase({
		code: `[@file_get_contents('/etc/passwd'), @file_put_contents('${outside}', 'x'), function_exists('exec'), [1, 2, 3]]`,
		measure: 10,
	});
	both(res, (x, name) => {
		assert.equal(x.status, 'ok', `${name}: ${JSON.stringify(x)}`);
		assert.equal(x.output, '[false,false,false,[1,2,3]]');
		assert.ok(x.instructions > 0, `${name} was measured`);
	});
	await undefinedFunction("exec('id')", 'exec');
});

test('stored cases run in the same sandbox (a case file is untrusted input too)', async () => {
	const cases = tmpDir('phpcmp-escapes-cases-');
	const files = {
		'passwd.phpt': "--TEST--\nescape: read /etc/passwd\n--VALUE--\nfile_get_contents('/etc/passwd')\n",
		'exec.phpt': "--TEST--\nescape: shell\n--VALUE--\nshell_exec('id > /tmp/phpcmp-escaped')\n",
		'write.phpt': `--TEST--\nescape: write outside\n--VALUE--\nfile_put_contents('${outside}', 'x')\n`,
		'socket.phpt': `--TEST--\nescape: socket\n--VALUE--\nstream_socket_client('tcp://127.0.0.1:${d.port}')\n`,
	};
	for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(cases, f), t);
	const sd = await Daemon.start({ name: 'escapes-stored', cases, extraArgs: ['--sandbox-dir', sandboxDir] });
	try {
		const r = await sd.request('POST', '/api/runs', { body: { suite: 'stored' } });
		assert.equal(r.status, 202, r.text);
		let run;
		for (let i = 0; i < 300; i++) {
			run = (await sd.get(`/api/runs/${r.json.id}`)).json;
			if (!['queued', 'running'].includes(run.status)) break;
			await new Promise((res) => setTimeout(res, 100));
		}
		assert.equal(run.status, 'done', JSON.stringify(run));
		assert.equal(run.total, 4);
		const rows = await sd.listAll(`/api/runs/${run.id}/cases?limit=50`);
		const byTitle = {};
		for (const row of rows) byTitle[row.title] = (await sd.get(`/api/cases/${row.id}`)).json.results;
		both({ results: byTitle['escape: read /etc/passwd'] }, (x) => {
			assert.equal(x.output, 'false');
			assert.ok(x.warnings.some((w) => /open_basedir restriction/.test(w)));
		});
		both({ results: byTitle['escape: shell'] }, (x) => assert.equal(x.exception.message, 'Call to undefined function shell_exec()'));
		both({ results: byTitle['escape: write outside'] }, (x) => assert.equal(x.output, 'false'));
		both({ results: byTitle['escape: socket'] }, (x) => assert.equal(x.exception.message, 'Call to undefined function stream_socket_client()'));
		assert.equal(fs.existsSync(outside), false);
		assert.equal(fs.existsSync('/tmp/phpcmp-escaped'), false);
	} finally {
		await sd.stopClean();
		fs.rmSync(cases, { recursive: true, force: true });
	}
});

test('settings the sandbox cannot work with are refused at startup, saying why', async () => {
	// 100 MB of address space cannot hold libphp and a 128M memory_limit:
	// the daemon refuses the combination before starting anything.
	await assert.rejects(Daemon.start({ name: 'escapes-tight', extraArgs: ['--limit-as', '100M'] }),
		/memory-limit 128M does not fit in limit-as 100 MB/);
	// A limit that refuses what PHP needs: the worker's probe case (run
	// under the sandbox before the worker says hello) cannot write its
	// 2-byte file with limit-fsize 0.  The worker says so and the daemon,
	// which starts every worker at startup, stops with that message.
	await assert.rejects(Daemon.start({ name: 'escapes-fsize0', extraArgs: ['--limit-fsize', '0'] }),
		/the worker cannot start: sandbox: the probe case failed under the sandbox \(netns .*php\): output 4; its 2-byte write into the private folder failed/);
});
