// A phpt run reads only what the daemon serves (issue 19, docs/phpt.md "Which
// tests a run reads", docs/hardening.md): tests in the folders given at
// startup (--phpt-dir, and the default ext/json/tests), one refusal for any
// other path whether it exists or not (no probing as root), nothing through
// /proc/<pid>/root; --INI-- only from an allow-list of settings that name no
// file (error_log and browscap made as the system's would write and read as
// root); support files and the tests themselves opened beneath their folder
// without following a symbolic link, regular files only (a FIFO cannot hang
// the run).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';
import { jsonTestsDir, runPhpt, servedDir, servedRoot } from './phpt-helper.mjs';

let d;
let jsonDir;
before(async () => {
	jsonDir = jsonTestsDir();
	process.env.PHPCMP_PHPT_DIR = jsonDir; // the daemon's default folder
	d = await Daemon.start({ name: 'phpt-confine', timeoutMs: 2000, phptDirs: [servedRoot()] });
});
after(async () => {
	if (d) await d.stopClean();
	fs.rmSync(servedRoot(), { recursive: true, force: true });
});

const byTest = (run) => Object.fromEntries(run.summary.tests.map((t) => [t.test.split('/').pop(), t]));
const post = (body) => d.request('POST', '/api/runs', { body: { suite: 'phpt', ...body } });
const sql = (q) => execFileSync('sqlite3', [d.db, q], { encoding: 'utf8', maxBuffer: 64 << 20 });
const PASSING = '--TEST--\nplain\n--FILE--\n<?php echo "ok";\n--EXPECT--\nok\n';

// Everything a run left readable: its summary, report, each test's stored
// results (outputs, diffs, reasons), as text.
async function everything(run) {
	const parts = [JSON.stringify(run), (await d.get(`/api/runs/${run.id}/report.md`)).text];
	parts.push(sql(`SELECT quote(output), quote(diff), reason FROM phpt_results WHERE run_id = ${run.id}`));
	for (const t of run.summary.tests) parts.push((await d.get(`/api/runs/${run.id}/phpt?test=${encodeURIComponent(t.test)}`)).text);
	return parts.join('\n');
}

test('a folder or file outside the served ones: one refusal, the same whether it exists or not', async () => {
	const outside = tmpDir('phpcmp-phpt-unserved-'); // not under --phpt-dir
	fs.writeFileSync(path.join(outside, 'x.phpt'), PASSING);
	const bodies = [
		{ dir: outside },
		{ dir: path.join(outside, 'missing') },
		{ dir: '/etc' },
		{ dir: '/nonexistent/folder' },
		{ dir: path.join(servedRoot(), '..') },
		{ dir: path.join(servedRoot(), 'not-made-yet') },
		{ files: [path.join(outside, 'x.phpt')] },
		{ files: [path.join(outside, 'missing.phpt')] },
		{ files: [path.join(jsonDir, '001.phpt'), path.join(outside, 'x.phpt')] },
	];
	const answers = [];
	for (const body of bodies) {
		const r = await post(body);
		assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
		assert.equal(r.json.error.code, 'phpt_dir_not_served', r.text);
		// the served folders are named; the path asked for is not
		assert.ok(r.json.error.message.includes(fs.realpathSync(servedRoot())), r.text);
		assert.ok(r.json.error.message.includes(fs.realpathSync(jsonDir)), r.text);
		assert.ok(!r.json.error.message.includes(outside) && !r.json.error.message.includes('/etc'), r.text);
		answers.push(r.text.replace(/files\[\d+\]/, 'files'));
	}
	// existing and missing paths give byte-identical answers
	assert.equal(new Set(answers.slice(0, 6)).size, 1, answers.slice(0, 6).join('\n'));
	assert.equal(new Set(answers.slice(6)).size, 1, answers.slice(6).join('\n'));
	// a symbolic link inside a served folder that points out of it
	const link = path.join(servedRoot(), 'link-out');
	fs.symlinkSync(outside, link);
	const r = await post({ dir: link });
	assert.equal(r.status, 400, r.text);
	assert.equal(r.json.error.code, 'phpt_dir_not_served');
	const f = await post({ files: [path.join(link, 'x.phpt')] });
	assert.equal(f.json?.error?.code, 'phpt_dir_not_served', f.text);
	// nothing was queued
	assert.equal((await d.get('/api/runs')).json.runs.filter((x) => x.suite === 'phpt').length, 0);
});

test('/proc/<pid>/root/...: refused, even where it leads back into a served folder', async () => {
	const dir = servedDir('proc-');
	fs.writeFileSync(path.join(dir, 'x.phpt'), PASSING);
	const pid = d.proc.pid;
	for (const p of [`/proc/${pid}/root${dir}`, `/proc/self/root${dir}`, `//proc/${pid}/root${dir}`,
		`/./proc/${pid}/cwd`, `/tmp/../proc/${pid}/root${dir}`, `/proc`]) {
		for (const body of [{ dir: p }, { files: [`${p}/x.phpt`] }]) {
			const r = await post(body);
			assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
			assert.equal(r.json.error.code, 'phpt_dir_not_served', r.text);
		}
	}
	// the same folder by its own path runs
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done');
	assert.equal(byTest(run)['x.phpt'].base.status, 'PASS');
});

test('the issue\'s attack: a case writes x.phpt in its private folder; running it through /proc/<pid>/root is refused', async () => {
	const h = await d.get('/api/health');
	const worker = h.json.builds.find((b) => b.name === 'base').worker.pid;
	const text = '--TEST--\\nwritten by a case\\n--INI--\\nerror_log=/tmp/phpcmp-pwned\\n--FILE--\\n<?php error_log(PHP_VERSION);\\n--EXPECT--\\n';
	// the case writes the test, then waits while the run is asked for
	const pending = d.postCase({ code: `(function () { file_put_contents(sys_get_temp_dir() . "/x.phpt", "${text}"); usleep(1500000); return sys_get_temp_dir(); })()` });
	let folder = null;
	const deadline = Date.now() + 1200;
	while (!folder && Date.now() < deadline) {
		// the worker's folder: in the daemon's own one, /tmp/phpcmp-PID-XXXXXX/base-XXXXXX
		folder = fs.readdirSync('/tmp').filter((n) => n.startsWith(`phpcmp-${d.proc.pid}-`))
			.flatMap((n) => fs.readdirSync(path.join('/tmp', n)).map((w) => path.join('/tmp', n, w)))
			.find((p) => path.basename(p).startsWith('base-') && fs.existsSync(`/proc/${worker}/root${p}/x.phpt`)) || null;
		if (!folder) await new Promise((r) => setTimeout(r, 50));
	}
	if (process.getuid() === 0) assert.ok(folder, 'the test file is there, through /proc/<worker>/root');
	folder ||= `/tmp/phpcmp-${d.proc.pid}-xxxxxx/base-x`;
	for (const body of [{ files: [`/proc/${worker}/root${folder}/x.phpt`] }, { dir: `/proc/${worker}/root${folder}` }, { files: [`${folder}/x.phpt`] }]) {
		const r = await post(body);
		assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
		assert.equal(r.json.error.code, 'phpt_dir_not_served');
	}
	const c = await pending;
	assert.equal(c.status, 201, c.text);
	assert.equal(fs.existsSync('/tmp/phpcmp-pwned'), false);
});

test('--INI-- that names files is refused: error_log writes nothing, browscap reads nothing', async () => {
	const dir = servedDir('ini-');
	const out = tmpDir('phpcmp-phpt-ini-target-');
	const log = path.join(out, 'written-by-error_log');
	const secretFile = path.join(out, 'browscap.ini');
	fs.writeFileSync(secretFile, '[SECRET-BROWSCAP-LINE]\nParent=x\n');
	fs.chmodSync(secretFile, 0o600);
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	const cases = {
		'error-log.phpt': [`--TEST--\nerror_log names a file\n--INI--\nerror_log=${log}\nlog_errors=1\n--FILE--\n<?php error_log("PWNED-LINE"); echo "done";\n--EXPECT--\ndone\n`, 'BORK', /^INI error_log: refused/],
		'browscap.phpt': [`--TEST--\nbrowscap names a file\n--INI--\nbrowscap=${secretFile}\n--FILE--\n<?php var_dump(get_browser("x", true));\n--EXPECT--\nx\n`, 'BORK', /^INI browscap: refused/],
		'prepend.phpt': ['--TEST--\nauto_prepend_file\n--INI--\nauto_prepend_file=/etc/passwd\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI auto_prepend_file: refused, it names a file/],
		'include-path.phpt': ['--TEST--\ninclude_path\n--INI--\ninclude_path=/etc\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI include_path: refused/],
		'opcache-file.phpt': ['--TEST--\nopcache.file_cache\n--INI--\nopcache.file_cache=/tmp\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI opcache\.file_cache: refused/],
		'xdebug.phpt': ['--TEST--\nxdebug.log\n--INI--\nprecision=14\nxdebug.log=/tmp/x\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI xdebug\.log: refused/],
		'mail-log.phpt': ['--TEST--\nmail.log\n--INI--\nmail.log=/tmp/x\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI mail\.log: refused/],
		'user-ini.phpt': ['--TEST--\nuser_ini.filename\n--INI--\nuser_ini.filename=x\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI user_ini\.filename: refused/],
		'memory.phpt': ['--TEST--\nunbounded memory_limit\n--INI--\nmemory_limit=-1\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'BORK', /^INI memory_limit: at most 1G/],
		// the sandbox's own settings: SKIP with the reason, as before
		'save-path.phpt': ['--TEST--\nsession.save_path\n--INI--\nsession.save_path=/root\n--FILE--\n<?php echo 1;\n--EXPECT--\n1\n', 'SKIP', /^INI session\.save_path: held by phpcmp's sandbox$/],
		// settings on the list still work
		'allowed.phpt': ['--TEST--\nallowed settings\n--INI--\nprecision=4\nserialize_precision=5\ndate.timezone=Europe/Paris\nmemory_limit=64M\nzend.assertions=1\ndisplay_errors=1\n--FILE--\n<?php echo 1/3, " ", json_encode(1/3), " ", ini_get("date.timezone"), " ", ini_get("memory_limit");\n--EXPECT--\n0.3333 0.33333 Europe/Paris 64M\n', 'PASS'],
		// the refusal is in the test's own INI only, not SKIPIF's or CLEAN's defaults
		'plain.phpt': [PASSING, 'PASS'],
	};
	for (const [name, [text]] of Object.entries(cases)) put(name, text);
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	const t = byTest(run);
	for (const [name, [, status, reason]] of Object.entries(cases)) {
		for (const role of ['base', 'head']) {
			assert.equal(t[name][role].status, status, `${name} on ${role}: ${JSON.stringify(t[name][role])}`);
			if (reason) assert.match(t[name][role].reason || '', reason, `${name} on ${role}`);
		}
	}
	assert.equal(fs.existsSync(log), false, 'error_log created no file');
	const all = await everything(run);
	assert.ok(!all.includes('SECRET-BROWSCAP-LINE'), 'the browscap file was not read');
	assert.ok(!all.includes('PWNED-LINE') || !fs.existsSync(log));
});

test('support files: a symbolic link out gives BORK with the reason, never the secret', async () => {
	const secretDir = tmpDir('phpcmp-phpt-secret-');
	const secret = path.join(secretDir, 'secret');
	fs.writeFileSync(secret, '<?php echo "TOP-SECRET-CONTENT";\nTOP-SECRET-CONTENT\n');
	fs.chmodSync(secret, 0o600);
	const dir = servedDir('links-');
	const put = (name, text) => fs.writeFileSync(path.join(dir, name), text);
	fs.symlinkSync(secret, path.join(dir, 'leak'));
	fs.symlinkSync(secret, path.join(dir, 'leak.inc'));
	fs.symlinkSync(secret, path.join(dir, 'linked.phpt'));
	fs.writeFileSync(path.join(dir, 'real.inc'), '<?php echo "from real.inc";');
	put('file-external.phpt', '--TEST--\nFILE_EXTERNAL through a link\n--FILE_EXTERNAL--\nleak\n--EXPECT--\nx\n');
	put('expect-external.phpt', '--TEST--\nEXPECT_EXTERNAL through a link\n--FILE--\n<?php echo 1;\n--EXPECT_EXTERNAL--\nleak\n');
	put('reads-link.phpt', '--TEST--\na FILE reading the link beside it\n--FILE--\n<?php var_dump(@file_get_contents("leak.inc")); include "real.inc";\n--EXPECT--\nbool(false)\nfrom real.inc\n');
	const run = await runPhpt(d, { dir });
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	const t = byTest(run);
	for (const role of ['base', 'head']) {
		assert.equal(t['file-external.phpt'][role].status, 'BORK');
		assert.match(t['file-external.phpt'][role].reason, /^could not load --FILE_EXTERNAL-- leak: leak: a symbolic link \(refused\)$/);
		assert.equal(t['expect-external.phpt'][role].status, 'BORK');
		assert.match(t['expect-external.phpt'][role].reason, /^could not load --EXPECT_EXTERNAL-- leak: leak: a symbolic link \(refused\)$/);
		// the linked file is not sent beside the test; the real one is
		assert.equal(t['reads-link.phpt'][role].status, 'PASS', JSON.stringify(t['reads-link.phpt'][role]));
		// a test that is itself a link
		assert.equal(t['linked.phpt'][role].status, 'BORK');
		assert.match(t['linked.phpt'][role].reason, /^cannot read .*linked\.phpt: a symbolic link \(refused\)$/);
	}
	const f = await runPhpt(d, { files: [path.join(dir, 'linked.phpt')] });
	assert.equal(f.summary.tests[0].base.status, 'BORK');
	const all = (await everything(run)) + (await everything(f));
	assert.ok(!all.includes('TOP-SECRET-CONTENT'), 'the secret is in no output');
});

test('a FIFO as a support file or as a test: BORK at once, the run ends', async () => {
	const dir = servedDir('fifo-');
	execFileSync('mkfifo', [path.join(dir, 'pipe')]);
	execFileSync('mkfifo', [path.join(dir, 'fifo.phpt')]);
	fs.writeFileSync(path.join(dir, 'external.phpt'), '--TEST--\nFILE_EXTERNAL naming a FIFO\n--FILE_EXTERNAL--\npipe\n--EXPECT--\nx\n');
	fs.writeFileSync(path.join(dir, 'reads-pipe.phpt'), '--TEST--\nnames the FIFO beside it\n--FILE--\n<?php echo "pipe", is_file("pipe") ? " there" : " not sent";\n--EXPECT--\npipe not sent\n');
	const started = Date.now();
	const run = await runPhpt(d, { dir });
	const ms = Date.now() - started;
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.ok(ms < 20_000, `the run took ${ms} ms`);
	const t = byTest(run);
	for (const role of ['base', 'head']) {
		assert.equal(t['external.phpt'][role].status, 'BORK');
		assert.match(t['external.phpt'][role].reason, /pipe: not a regular file \(refused\)$/);
		assert.equal(t['fifo.phpt'][role].status, 'BORK');
		assert.match(t['fifo.phpt'][role].reason, /fifo\.phpt: not a regular file \(refused\)$/);
		assert.equal(t['reads-pipe.phpt'][role].status, 'PASS', JSON.stringify(t['reads-pipe.phpt'][role]));
	}
	assert.equal((await d.get('/api/health')).status, 200);
});

test('the default folder: all 76 tests run, 74 PASS and 2 SKIP on both builds, as before', async () => {
	const run = await runPhpt(d, {});
	assert.equal(run.status, 'done', JSON.stringify(run).slice(0, 2000));
	assert.equal(run.summary.dir, fs.realpathSync(jsonDir));
	for (const role of ['base', 'head']) assert.deepEqual([run.summary.counts[role].PASS, run.summary.counts[role].SKIP, run.summary.counts[role].BORK], [74, 2, 0], role);
	// by the folder's name too, and a folder beneath a served one
	const again = await runPhpt(d, { dir: jsonDir });
	assert.equal(again.summary.counts.base.PASS, 74);
});

test('--phpt-dir at startup: a missing folder, /proc and / stop the daemon with the reason', async () => {
	for (const [dir, why] of [[path.join(tmpDir(), 'missing'), /phpt-dir .*missing: No such file or directory/],
		['/proc/self', /cannot be served/], ['/', /cannot be served/]]) {
		await assert.rejects(Daemon.start({ name: 'phpt-confine-bad', phptDirs: [dir] }), why);
	}
});

test('a run is confined again when it starts: resumed on a daemon that no longer serves its folder, it fails', async () => {
	const own = tmpDir('phpcmp-phpt-once-served-');
	const dir = fs.mkdtempSync(path.join(own, 'tests-'));
	for (let i = 0; i < 30; i++)
		fs.writeFileSync(path.join(dir, `slow-${String(i).padStart(2, '0')}.phpt`), '--TEST--\nslow\n--FILE--\n<?php usleep(100000); echo 1;\n--EXPECT--\n1\n');
	const first = await Daemon.start({ name: 'phpt-confine-first', phptDirs: [own] });
	let second;
	try {
		const post = await first.request('POST', '/api/runs', { body: { suite: 'phpt', dir } });
		assert.equal(post.status, 202, post.text);
		await first.waitRun(post.json.id, { done: (r) => r.done >= 2 || !['queued', 'running'].includes(r.status) });
		assert.equal((await first.request('POST', `/api/runs/${post.json.id}/cancel`)).status, 200);
		assert.equal((await first.waitRun(post.json.id)).status, 'cancelled');
		await first.stop();
		// the same database, without that folder
		second = await Daemon.start({ name: 'phpt-confine-second', db: first.db });
		const res = await second.request('POST', `/api/runs/${post.json.id}/resume`);
		assert.equal(res.status, 202, res.text);
		const run = await second.waitRun(post.json.id);
		assert.equal(run.status, 'failed', JSON.stringify(run).slice(0, 500));
		assert.match(run.error, /^dir: not in a folder this daemon serves/);
		assert.ok(!run.error.includes(own), run.error);
	} finally {
		await first.stop();
		await second?.stop();
	}
});
