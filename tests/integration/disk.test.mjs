// Issue 9: what a worker may leave on disk is bounded in total (a tmpfs of
// --limit-disk in the worker's own mount namespace), its folder goes when
// the worker is reaped, and folders left by a daemon that was killed are
// removed (and logged) when the next one starts, however deep or
// unreadable their trees.  Each daemon's worker folders live in a folder of
// its own, phpcmp-PID-XXXXXX, mode 0700 (issue 19, item 6): the startup
// sweep removes only such folders of a gone daemon that are the daemon's
// user's, of mode 0700 and not locked; anything else named like them
// (another user's, a link, another mode, the older layout) stays.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

let d, sandboxDir, stale, gone, locker;
// Planted beside the stale folder, all left alone by the sweep.
const LEFT = {};
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
	gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
	// Its folder: phpcmp-PID-XXXXXX (0700), a worker's folder in it with a
	// 120-deep tree and an unreadable directory.
	stale = path.join(sandboxDir, `phpcmp-${gone}-AbC123`);
	fs.mkdirSync(stale, { mode: 0o700 });
	const worker = path.join(stale, 'base-XyZ789');
	let p = worker;
	for (let i = 0; i < 120; i++) p = path.join(p, 'd');
	fs.mkdirSync(p, { recursive: true });
	fs.writeFileSync(path.join(p, 'f'), 'left behind');
	fs.mkdirSync(path.join(worker, 'locked'));
	fs.writeFileSync(path.join(worker, 'locked', 'g'), 'x'.repeat(1 << 20));
	fs.chmodSync(path.join(worker, 'locked'), 0o300);
	const plant = (name, mode) => {
		const dir = path.join(sandboxDir, name);
		fs.mkdirSync(dir, { mode });
		fs.chmodSync(dir, mode);
		fs.writeFileSync(path.join(dir, 'keep'), name);
		return dir;
	};
	// Another user's look-alike (root can make one owned by nobody).
	if (process.getuid() === 0) {
		const nobody = plant(`phpcmp-${gone}-Nobody`, 0o700);
		fs.chownSync(path.join(nobody, 'keep'), 65534, 65534);
		fs.chownSync(nobody, 65534, 65534);
		LEFT.nobody = nobody;
	}
	LEFT.mode = plant(`phpcmp-${gone}-Mode75`, 0o755); // ours, but not of this layout's mode
	LEFT.old = plant(`phpcmp-${gone}-base-AbC123`, 0o700); // the layout before issue 19
	LEFT.locked = plant(`phpcmp-${gone}-Locked`, 0o700); // a live daemon's lock (another pid namespace)
	locker = spawn('flock', ['-x', LEFT.locked, 'sleep', '120'], { stdio: 'ignore' });
	const target = tmpDir('phpcmp-disk-target-');
	fs.writeFileSync(path.join(target, 'keep'), 'target');
	LEFT.link = path.join(sandboxDir, `phpcmp-${gone}-Linkxx`);
	fs.symlinkSync(target, LEFT.link);
	await sleep(300); // flock holds the lock
	d = await Daemon.start({ name: 'disk', timeoutMs: 5000, extraArgs: ['--sandbox-dir', sandboxDir] });
});
after(async () => {
	await d?.stopClean();
	locker?.kill();
	if (sandboxDir) {
		// Nothing of any worker is left once the daemon has stopped: only
		// what was planted and left alone.
		const left = fs.readdirSync(sandboxDir).sort();
		fs.rmSync(sandboxDir, { recursive: true, force: true });
		assert.deepEqual(left, Object.values(LEFT).map((f) => path.basename(f)).sort(), 'the sandbox folder holds only what the sweep left alone after the stop');
	}
});

// This daemon's folder in the sandbox folder, and the workers' in it.
function own(daemon = d) {
	const mine = fs.readdirSync(sandboxDir).filter((n) => n.startsWith(`phpcmp-${daemon.proc.pid}-`));
	assert.equal(mine.length, 1, JSON.stringify(mine));
	return path.join(sandboxDir, mine[0]);
}

test('folders of a daemon that is gone are removed at startup, and logged; look-alikes are left alone', async () => {
	assert.ok(!fs.existsSync(stale), `${stale} removed`);
	assert.match(d.output, new RegExp(`removed .*phpcmp-${gone}-AbC123: the folder of the workers of daemon ${gone}, which is gone`));
	for (const f of Object.values(LEFT)) assert.ok(fs.lstatSync(f), `${f} left alone`);
	for (const f of [LEFT.mode, LEFT.old, LEFT.locked, LEFT.nobody].filter(Boolean))
		assert.equal(fs.readFileSync(path.join(f, 'keep'), 'utf8'), path.basename(f), `${f}: its contents kept`);
	assert.equal(fs.readFileSync(path.join(LEFT.link, 'keep'), 'utf8'), 'target', 'the link\'s target kept');
	if (LEFT.nobody) {
		assert.equal(fs.statSync(LEFT.nobody).uid, 65534);
		assert.equal(fs.statSync(LEFT.nobody).mode & 0o7777, 0o700, 'its mode untouched');
		assert.match(d.output, new RegExp(`left .*phpcmp-${gone}-Nobody alone: named like the folder of daemon ${gone} but owned by another user`));
	}
	assert.match(d.output, new RegExp(`left .*phpcmp-${gone}-Mode75 alone: .* but not of mode 0700`));
	assert.match(d.output, new RegExp(`left .*phpcmp-${gone}-Linkxx alone: .* not a directory \\(a link\\?\\)`));
	assert.doesNotMatch(d.output, /phpcmp-\d+-(base-AbC123|Locked)/, 'the older layout and a locked folder: not even looked at');
});

test('the daemon\'s folder: mode 0700, its user\'s, the workers\' folders in it; a second daemon on the same folder leaves it be', async () => {
	const mine = own();
	assert.match(path.basename(mine), /^phpcmp-\d+-[A-Za-z0-9]{6}$/);
	const st = fs.statSync(mine);
	assert.equal(st.mode & 0o7777, 0o700);
	assert.equal(st.uid, process.getuid());
	const workers = fs.readdirSync(mine).sort();
	assert.equal(workers.length, 2, JSON.stringify(workers));
	assert.match(workers[0], /^base-[A-Za-z0-9]{6}$/);
	assert.match(workers[1], /^head-[A-Za-z0-9]{6}$/);
	// Nothing of the workers directly in the shared folder.
	for (const n of fs.readdirSync(sandboxDir)) assert.ok(n.startsWith('phpcmp-'), n);
	// Another daemon on the same sandbox folder: its own folder, ours kept.
	const d2 = await Daemon.start({ name: 'disk-2', extraArgs: ['--sandbox-dir', sandboxDir] });
	const theirs = own(d2);
	assert.notEqual(theirs, mine);
	assert.deepEqual(fs.readdirSync(mine).sort(), workers);
	assert.doesNotMatch(d2.output, /removed .*phpcmp-/);
	for (const x of [d, d2]) assert.equal((await x.runCase({ code: 'return 7;' })).results.head.output, '7', x.name);
	await d2.stopClean();
	assert.ok(!fs.existsSync(theirs), 'a daemon\'s folder goes when it stops');
	assert.deepEqual(fs.readdirSync(mine).sort(), workers);
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
	const before = fs.readdirSync(own()).sort();
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
	const now = fs.readdirSync(own()).sort();
	for (const f of before) assert.ok(!now.includes(f), `${f}: the reaped worker's folder is removed`);
	assert.ok(usage(sandboxDir) < 1 << 20);
});
