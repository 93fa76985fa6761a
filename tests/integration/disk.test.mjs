// Issue 9: what a worker may leave on disk is bounded in total (a tmpfs of
// --limit-disk in the worker's own mount namespace), its folder goes when
// the worker is reaped, and folders left by a daemon that was killed are
// removed (and logged) when the next one starts, however deep or
// unreadable their trees.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

let d, sandboxDir, stale;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Bytes under dir as the host sees them (st_blocks), not following links.
function usage(dir) {
	let n = 0;
	const walk = (p) => {
		let st;
		try { st = fs.lstatSync(p); } catch { return; }
		n += st.blocks * 512;
		if (st.isDirectory()) {
			let names = [];
			try { names = fs.readdirSync(p); } catch { return; }
			for (const f of names) walk(path.join(p, f));
		}
	};
	walk(dir);
	return n;
}

before(async () => {
	sandboxDir = tmpDir('phpcmp-disk-');
	// A daemon that is gone: a pid that exited.
	const gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
	stale = path.join(sandboxDir, `phpcmp-${gone}-base-AbC123`);
	let p = stale;
	for (let i = 0; i < 120; i++) p = path.join(p, 'd');
	fs.mkdirSync(p, { recursive: true });
	fs.writeFileSync(path.join(p, 'f'), 'left behind');
	fs.mkdirSync(path.join(stale, 'locked'));
	fs.writeFileSync(path.join(stale, 'locked', 'g'), 'x'.repeat(1 << 20));
	fs.chmodSync(path.join(stale, 'locked'), 0o300);
	d = await Daemon.start({ name: 'disk', timeoutMs: 5000, extraArgs: ['--sandbox-dir', sandboxDir] });
});
after(async () => {
	await d?.stopClean();
	if (sandboxDir) {
		// Nothing of any worker is left once the daemon has stopped.
		const left = fs.readdirSync(sandboxDir);
		fs.rmSync(sandboxDir, { recursive: true, force: true });
		assert.deepEqual(left, [], 'the sandbox folder is empty after the stop');
	}
});

test('folders of a daemon that is gone are removed at startup, and logged', async () => {
	assert.ok(!fs.existsSync(stale), `${stale} removed`);
	assert.match(d.output, /removed .*phpcmp-\d+-base-AbC123: the private folder of a worker of daemon \d+, which is gone/);
});

test('a worker\'s folder holds at most --limit-disk in all, and the host\'s disk none of it', async (t) => {
	const h = (await d.get('/api/health')).json;
	const sandbox = JSON.stringify(h).match(/"sandbox":"([^"]*)"/)?.[1] || '';
	if (/disk\(off/.test(sandbox)) return t.skip(`no tmpfs here: ${sandbox}`);
	assert.match(sandbox, /disk\(64M\)/, sandbox);
	const c = await d.runCase({ code: `$t = sys_get_temp_dir(); $n = 0;
for ($i = 0; $i < 10; $i++) { $r = @file_put_contents("$t/f$i", str_repeat("x", 16 << 20)); if ($r === false) break; $n += $r; }
for ($i = 0; $i < 20000; $i++) if (!@mkdir("$t/d$i")) break;
return [$n, $i];` });
	for (const b of ['base', 'head']) {
		assert.equal(c.results[b].status, 'ok', `${b}: ${JSON.stringify(c.results[b]).slice(0, 600)}`);
		const [bytes, dirs] = JSON.parse(c.results[b].output);
		assert.ok(bytes <= 64 << 20 && bytes >= 48 << 20, `${b}: ${bytes} bytes written, at most 64 MiB`);
		assert.ok(dirs < 20000, `${b}: ${dirs} folders, bounded`);
	}
	// The next case starts from an empty folder again, with room again.
	const next = await d.runCase({ code: `$t = sys_get_temp_dir(); return [scandir($t), file_put_contents("$t/a", str_repeat("y", 1 << 20))];` });
	for (const b of ['base', 'head']) assert.equal(next.results[b].output, '[[".",".."],1048576]', b);
});

test('a case that fills its folder and hangs: the host sees nothing, the folder goes with the worker', async () => {
	const before = fs.readdirSync(sandboxDir).sort();
	const pending = d.postCase({ code: `$t = sys_get_temp_dir(); mkdir("$t/x", 0300); @mkdir($t . str_repeat("/d", 100), 0700, true);
for ($i = 0; $i < 6; $i++) @file_put_contents("$t/f$i", str_repeat("x", 8 << 20)); while (true); return 1;` });
	await sleep(2500);
	const during = usage(sandboxDir);
	assert.ok(during < 1 << 20, `the host's disk holds ${during} bytes of the workers' folders while the case runs`);
	const r = await pending;
	assert.equal(r.json.results.base.status, 'timeout');
	// A fork server's timeout kills only the child serving cases (the
	// worker, and so its folder, stay): the next case starts from an
	// empty folder all the same.
	const next = await d.runCase({ code: 'return scandir(sys_get_temp_dir());' });
	for (const b of ['base', 'head']) assert.equal(next.results[b].output, '[".",".."]', b);
	assert.ok(usage(sandboxDir) < 1 << 20);
	// The folder goes with the worker: kill the workers from outside; the
	// next case starts others and the old folders are removed.
	// (Health names the process serving cases: a fork server's child, whose
	// parent is the worker when that is a phpcmp-worker too.)
	const workers = (await d.get('/api/health')).json.builds.map((b) => b.worker.pid).filter((p) => p > 0)
		.map((pid) => {
			const ppid = Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^PPid:\s*(\d+)/m)[1]);
			return /phpcmp-worker/.test(fs.readFileSync(`/proc/${ppid}/cmdline`, 'utf8')) ? ppid : pid;
		});
	for (const pid of workers) process.kill(pid, 'SIGKILL');
	await sleep(200);
	const again = await d.runCase({ code: 'return 1;' });
	for (const b of ['base', 'head']) assert.equal(again.results[b].status, 'ok', b);
	const now = fs.readdirSync(sandboxDir).sort();
	for (const f of before) assert.ok(!now.includes(f), `${f}: the reaped worker's folder is removed`);
	assert.ok(usage(sandboxDir) < 1 << 20);
});
