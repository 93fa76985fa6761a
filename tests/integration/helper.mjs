// Integration test helper: starts the REAL phpcmp daemon (build/phpcmp) on a
// free loopback port with a fresh SQLite file and both real builds, waits for
// /api/health, and talks to it over HTTP.  No npm dependencies: node's own
// test runner, fetch and http.
//
// Environment:
//   PHPCMP_BIN          daemon binary (default build/phpcmp)
//   PHPCMP_TEST_STATE   state dir for compiled worker cores, shared by every
//                       daemon of the suite (default build/test-state)
//   PHPCMP_BUILDS       folder holding base/ and head/ (default builds)
//   PHPCMP_TEST_LOGS    where daemon logs go (default tests/artifacts)
//   PHPCMP_KEEP_TMP     1: keep the temporary folders (tmpDir) of a passing
//                       test process too (a failing one keeps them anyway)
//   PHPCMP_DAEMON_WRAPPER  a command the daemon runs under, e.g.
//                       "valgrind --leak-check=full --error-exitcode=99"
//                       (make memcheck); split on spaces

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.resolve(ROOT, process.env.PHPCMP_BIN || 'build/phpcmp');
// The worker loader beside the daemon binary (a sanitizer build has its own).
export const WORKER = path.resolve(process.env.PHPCMP_WORKER || path.join(path.dirname(BIN), 'phpcmp-worker'));
export const STATE = path.resolve(ROOT, process.env.PHPCMP_TEST_STATE || 'build/test-state');
export const BUILDS = path.resolve(ROOT, process.env.PHPCMP_BUILDS || 'builds');
export const LOGS = path.resolve(ROOT, process.env.PHPCMP_TEST_LOGS || 'tests/artifacts');
export const WRAPPER = (process.env.PHPCMP_DAEMON_WRAPPER || '').split(/\s+/).filter(Boolean);
// The daemon runs under a wrapper (valgrind: make memcheck), its threads
// serialised.  A file that reads WRAPPED or INSTRUMENTED checks something
// only a plain daemon shows, so CI's plain pass runs it too
// (PHPCMP_TEST_UNINSTRUMENTED_ONLY, scripts/run-tests.sh).
export const WRAPPED = WRAPPER.length > 0;
// The daemon is instrumented (built with ASan, or run under valgrind): its
// resident memory then holds the tool's shadow, quarantine or bookkeeping
// and says little about the daemon's own.
// ASan's runtime is linked in by the dynamic symbol __asan_init (the plain
// daemon holds the name only as text: engine/sanitize.c looks for it in
// libphp builds, so a search of the file's bytes would find it in both).
export const INSTRUMENTED = WRAPPED || (() => {
	try {
		return /\s__asan_init$/m.test(execFileSync('nm', ['-D', BIN], { encoding: 'utf8', maxBuffer: 1 << 26 }));
	} catch {
		return false;
	}
})();

// The answer time a slow-client test holds /api/health to.  100 ms is a
// plain daemon's promise; an ASan build runs the same code several times
// slower (26-47 ms p95 measured alone, 124 ms with memcheck beside it in CI),
// so an instrumented pass only bounds "answered, not stalled" and the plain
// pass keeps the 100 ms figure (it runs every file that reads INSTRUMENTED).
export const HEALTH_MS = INSTRUMENTED ? 1000 : 100;

// The PHP versions of the builds under test, read from their own headers
// (main/php_version.h, in a `make install` prefix or Debian's layout), so the
// suite runs on any two builds: PHPCMP_BUILDS=/other/builds.
export function buildVersion(prefix) {
	const dirs = [path.join(prefix, 'include/php'), path.join(prefix, 'usr/include/php')];
	for (const d of dirs) {
		if (!fs.existsSync(d)) continue;
		const cands = [path.join(d, 'main/php_version.h'),
			...fs.readdirSync(d).map((e) => path.join(d, e, 'main/php_version.h'))];
		for (const f of cands) {
			if (!fs.existsSync(f)) continue;
			const m = /#\s*define\s+PHP_VERSION\s+"([^"]+)"/.exec(fs.readFileSync(f, 'utf8'));
			if (m) return m[1];
		}
	}
	return undefined;
}
export const BASE_VERSION = buildVersion(path.join(BUILDS, 'base'));
export const HEAD_VERSION = buildVersion(path.join(BUILDS, 'head'));

// Generous: the first daemon of a run compiles both worker cores, and a
// sanitizer build starts slower.
// Under a wrapper (valgrind) everything is slower, and the leak check at
// exit takes seconds.
const START_DEADLINE_MS = WRAPPER.length ? 300_000 : 90_000;
const STOP_DEADLINE_MS = WRAPPER.length ? 120_000 : 15_000;

// Every folder tmpDir makes goes when the test process ends, unless a test
// failed (its databases and logs are the evidence) or PHPCMP_KEEP_TMP=1.
// A suite run makes a few hundred of them, a daemon's database up to
// hundreds of MB each: left behind, they fill /tmp within days.
const madeDirs = [];
process.on('exit', (code) => {
	if (code !== 0 || process.exitCode || process.env.PHPCMP_KEEP_TMP === '1') return;
	for (const dir of madeDirs) {
		try {
			fs.rmSync(dir, { recursive: true, force: true });
		} catch {
			/* still mounted or in use: left for the next clean-up */
		}
	}
});

// A process gone, or a zombie no one has reaped yet.
export function processGone(pid) {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
	} catch {
		return true;
	}
}

export function tmpDir(prefix = 'phpcmp-test-') {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	madeDirs.push(dir);
	return dir;
}

export function sha256File(file) {
	return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export function b64(bytes) {
	return Buffer.from(bytes).toString('base64');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let daemonSeq = 0;

// A running daemon.  Use `await Daemon.start({...})`, then `await d.stop()`.
export class Daemon {
	constructor(opts) {
		this.opts = opts;
		this.port = opts.port || 0;
		this.db = opts.db;
		this.name = opts.name || 'daemon';
		this.output = '';
		this.exit = null; // {code, signal} once exited
	}

	static async start(opts = {}) {
		const o = { ...opts };
		if (!o.db) o.db = path.join(tmpDir(), 'phpcmp.db');
		// --port 0 (unless told): the daemon binds any free port and prints
		// it, so there is no race for a port picked beforehand.
		if (o.port === undefined) o.port = 0;
		const d = new Daemon(o);
		try {
			await d._start();
		} catch (e) {
			await d.stop().catch(() => {});
			throw e;
		}
		return d;
	}

	args() {
		const o = this.opts;
		const a = [
			'serve',
			'--listen', '127.0.0.1',
			'--port', String(o.port || 0),
			'--db', o.db,
			// buildList: [[NAME, PREFIX], ...] (the first is the base) instead of base and head.
			...(o.buildList
				? o.buildList.flatMap(([name, prefix]) => ['--build', `${name}=${prefix}`])
				: [
					'--build', `base=${o.builds?.base || path.join(BUILDS, 'base')}`,
					'--build', `head=${o.builds?.head || path.join(BUILDS, 'head')}`,
				]),
			'--cases', o.cases || path.join(ROOT, 'cases'),
			'--web', o.web || path.join(ROOT, 'web'),
			'--state', o.state || STATE,
			'--worker', WORKER,
		];
		if (o.timeoutMs) a.push('--timeout-ms', String(o.timeoutMs));
		// Folders of .phpt tests a phpt run may read besides the default one.
		for (const dir of o.phptDirs || []) a.push('--phpt-dir', dir);
		// The background reducer (docs/triage.md) writes and runs cases of its
		// own: off unless a test asks for it (reduce.test.mjs).
		if (!o.reduce) a.push('--reduce-max-executions', '0');
		// Reference runtimes (released PHP under node, issue 49): seven nodes
		// loading a runtime each, so none unless a test names them
		// (references: 'all' or '7.4,8.5').
		a.push('--references', o.references || 'none');
		if (o.extraArgs) a.push(...o.extraArgs);
		return a;
	}

	async _start() {
		fs.mkdirSync(LOGS, { recursive: true });
		this.logFile = path.join(LOGS, `${this.name}-${process.pid}-${++daemonSeq}.log`);
		const args = this.args();
		const cmd = WRAPPER.length ? [...WRAPPER, BIN, ...args] : [BIN, ...args];
		fs.writeFileSync(this.logFile, `$ ${cmd.join(' ')}\n`);
		// opts.env: variables added to the daemon's environment (and its workers').
		this.proc = spawn(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
			env: this.opts.env ? { ...process.env, ...this.opts.env } : process.env });
		const onData = (chunk) => {
			this.output += chunk.toString('utf8');
			fs.appendFileSync(this.logFile, chunk);
		};
		this.proc.stdout.on('data', onData);
		this.proc.stderr.on('data', onData);
		this.exited = new Promise((resolve) => {
			this.proc.on('exit', (code, signal) => {
				this.exit = { code, signal };
				resolve(this.exit);
			});
			this.proc.on('error', (err) => {
				this.output += `\nspawn error: ${err.message}\n`;
				this.exit = { code: -1, signal: null, error: err };
				resolve(this.exit);
			});
		});
		// startDeadlineMs: a daemon whose new builds each compile a worker
		// core first (mutants.test.mjs: five at once) may ask for longer.
		const startMs = Math.max(START_DEADLINE_MS, this.opts.startDeadlineMs || 0);
		const deadline = Date.now() + startMs;
		while (Date.now() < deadline) {
			if (this.exit) {
				throw new Error(`daemon exited during startup (${JSON.stringify(this.exit)}); output:\n${this.output}`);
			}
			if (!this.port) {
				// "phpcmp 0.1.0: serving http://127.0.0.1:PORT/ (database ...)"
				const m = /serving http:\/\/[^\s]*:(\d+)\//.exec(this.output);
				if (m) this.port = Number(m[1]);
			}
			if (this.port) {
				this.url = `http://127.0.0.1:${this.port}`;
				try {
					const r = await this.request('GET', '/api/health', { timeoutMs: 2000 });
					if (r.status === 200) {
						this.health = r.json;
						return;
					}
				} catch {
					// not listening yet
				}
			}
			await sleep(50);
		}
		throw new Error(`daemon not healthy within ${startMs} ms; output:\n${this.output}`);
	}

	// SIGTERM, then SIGKILL after a deadline.  Resolves to {code, signal, killed}.
	async stop() {
		if (!this.proc) return null;
		if (!this.exit) {
			this.proc.kill('SIGTERM');
			let timer;
			const deadline = new Promise((r) => { timer = setTimeout(() => r(null), STOP_DEADLINE_MS); });
			const t = await Promise.race([this.exited, deadline]);
			clearTimeout(timer);
			if (!t) {
				this.proc.kill('SIGKILL');
				await this.exited;
				return { ...this.exit, killed: true };
			}
		}
		return this.exit;
	}

	// One HTTP request over loopback with node:http (not fetch) so that any
	// method, header or body can be sent and a response that arrives while the
	// body is still being written (413) is still read.
	// body: string | Buffer | object (sent as JSON) | undefined.
	// chunked: send the body with Transfer-Encoding: chunked (no length).
	// raw: with curl (see rawRequest), for bodies the daemon may refuse
	// before it has read them.
	// localAddress: the address to connect from (127.0.0.2…: another client).
	request(method, urlPath, { body, headers = {}, timeoutMs = 60_000, chunked = false, raw = false, localAddress } = {}) {
		if (raw) return this.rawRequest(method, urlPath, { body, headers, timeoutMs, chunked });
		let data = null;
		const h = { ...headers };
		if (body !== undefined) {
			if (Buffer.isBuffer(body) || typeof body === 'string') data = Buffer.from(body);
			else data = Buffer.from(JSON.stringify(body));
			if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
			if (!chunked) h['Content-Length'] = String(data.length);
		}
		// Every write says it is JSON (the daemon refuses one that does not);
		// a header given as null is left out.
		if (method === 'POST' && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
		for (const k of Object.keys(h)) if (h[k] === null) delete h[k];
		return new Promise((resolve, reject) => {
			let settled = false;
			const req = http.request(
				{ host: '127.0.0.1', port: this.port, method, path: urlPath, headers: h, agent: false, ...(localAddress ? { localAddress } : {}) },
				(res) => {
					const chunks = [];
					res.on('data', (c) => chunks.push(c));
					res.on('end', () => {
						settled = true;
						const raw = Buffer.concat(chunks);
						const text = raw.toString('utf8');
						let json;
						try {
							json = text.length ? JSON.parse(text) : undefined;
						} catch {
							json = undefined;
						}
						resolve({ status: res.statusCode, headers: res.headers, raw, text, json });
					});
					res.on('error', (e) => { if (!settled) { settled = true; reject(e); } });
				},
			);
			req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${urlPath}: no answer in ${timeoutMs} ms`)));
			req.on('error', (e) => {
				// The server may answer (413) and close before the whole body
				// is written: the response handler still resolves.
				if (!settled && !(e.code === 'EPIPE' || e.code === 'ECONNRESET')) { settled = true; reject(e); }
				else if (!settled) setTimeout(() => { if (!settled) { settled = true; reject(e); } }, 2000).unref();
			});
			if (data && chunked) {
				// Several chunks, so the daemon sees a stream of unknown length.
				const step = 64 << 10;
				for (let i = 0; i < data.length; i += step) req.write(data.subarray(i, i + step));
				req.end();
			} else if (data) req.end(data);
			else req.end();
		});
	}

	// A request made with curl(1).  A server that refuses a large body (413)
	// may answer and close before reading it all; node's http client then
	// fails the write (EPIPE, ECONNRESET) and drops the answer it already
	// received, while curl reads the early answer as CI clients do.
	rawRequest(method, urlPath, { body, headers = {}, timeoutMs = 60_000, chunked = false } = {}) {
		const dir = tmpDir('phpcmp-curl-');
		const args = ['-sS', '-X', method, '-o', path.join(dir, 'body'), '-D', path.join(dir, 'headers'),
			'-w', '%{http_code}', '--max-time', String(Math.ceil(timeoutMs / 1000))];
		const h = { ...headers };
		if (body !== undefined) {
			const data = Buffer.isBuffer(body) || typeof body === 'string' ? Buffer.from(body) : Buffer.from(JSON.stringify(body));
			fs.writeFileSync(path.join(dir, 'request'), data);
			args.push('--data-binary', `@${path.join(dir, 'request')}`);
			if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
			if (chunked) h['Transfer-Encoding'] = 'chunked';
		}
		if (method === 'POST' && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
		for (const k of Object.keys(h)) if (h[k] === null) { delete h[k]; args.push('-H', `${k}:`); }
		// No "Expect: 100-continue": the body is sent at once, as node would.
		args.push('-H', 'Expect:');
		for (const [k, v] of Object.entries(h)) args.push('-H', `${k}: ${v}`);
		args.push(`http://127.0.0.1:${this.port}${urlPath}`);
		return new Promise((resolve, reject) => {
			const p = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
			let out = '', err = '';
			p.stdout.on('data', (c) => { out += c; });
			p.stderr.on('data', (c) => { err += c; });
			p.on('error', reject);
			p.on('exit', () => {
				const status = Number(out.trim());
				let rawHeaders = '';
				try { rawHeaders = fs.readFileSync(path.join(dir, 'headers'), 'latin1'); } catch { /* none */ }
				let raw = Buffer.alloc(0);
				try { raw = fs.readFileSync(path.join(dir, 'body')); } catch { /* none */ }
				fs.rmSync(dir, { recursive: true, force: true });
				if (!status) return reject(new Error(`curl ${method} ${urlPath}: no HTTP answer: ${err}`));
				const hdrs = {};
				// The last header block (after any 100 Continue).
				const blocks = rawHeaders.split(/\r\n\r\n/).filter((x) => x.trim());
				for (const l of (blocks[blocks.length - 1] || '').split('\r\n').slice(1)) {
					const i = l.indexOf(':');
					if (i > 0) hdrs[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
				}
				const text = raw.toString('utf8');
				let json;
				try { json = text.length ? JSON.parse(text) : undefined; } catch { json = undefined; }
				resolve({ status, headers: hdrs, raw, text, json });
			});
		});
	}

	// Stop, and throw unless the daemon exited 0 within the deadline with no
	// sanitizer report in its output (the sanitizer pass of .ci/run relies
	// on this: LeakSanitizer reports at exit and makes the status non-zero).
	async stopClean() {
		const e = await this.stop();
		// valgrind --quiet (make memcheck) prints only what it finds.
		const report = /(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|^==\d+== (?!Warning: )\S)/m.exec(this.output);
		if (report) throw new Error(`${this.name}: sanitizer report in the daemon's output (${this.logFile}):\n${this.output.slice(-4000)}`);
		if (!e || e.killed || e.code !== 0 || e.signal) {
			throw new Error(`${this.name}: daemon did not stop cleanly on SIGTERM: ${JSON.stringify(e)} (${this.logFile})\n${this.output.slice(-2000)}`);
		}
		return e;
	}

	get(p, opts) { return this.request('GET', p, opts); }

	// POST /api/cases; `query` e.g. '?fail_on_differ=1'.
	async postCase(c, query = '') {
		return this.request('POST', `/api/cases${query}`, { body: c });
	}

	// POST a case that must be accepted (201); returns the parsed body.
	async runCase(c) {
		const r = await this.postCase(c);
		if (r.status !== 201) {
			throw new Error(`POST /api/cases ${JSON.stringify(c)} -> ${r.status} ${r.text}`);
		}
		return r.json;
	}

	// Every page of a keyset-paginated listing, following `next`.
	async listAll(first, key = 'cases') {
		const items = [];
		let url = first;
		for (let pages = 0; url && pages < 1000; pages++) {
			const r = await this.get(url);
			if (r.status !== 200) throw new Error(`GET ${url} -> ${r.status} ${r.text}`);
			items.push(...r.json[key]);
			url = r.json.next;
		}
		return items;
	}

	// A generated run's listed cases, each stored in full: a row with id null
	// is POSTed to /api/runs/ID/cases (the listing itself never stores: 201
	// stored now, 200 stored before), and
	// its id filled in.  Returns the rows.
	async storeListed(rows) {
		for (const c of rows) {
			if (c.id !== null) continue;
			const r = await this.request('POST', `/api/runs/${c.run_id}/cases`,
				{ body: { seed: c.generated.seed, index: c.generated.index } });
			if (r.status !== 201 && r.status !== 200) throw new Error(`storing ${c.title} -> ${r.status} ${r.text}`);
			c.id = r.json.id;
			c.comparison_id = r.json.comparison_id;
		}
		return rows;
	}

	// Poll GET /api/runs/ID until the run has ended (or `done(run)` holds);
	// returns the run.  Fails when `deadlineMs` passes first.
	async waitRun(id, { deadlineMs = 300_000, pollMs = 100, done = null } = {}) {
		const deadline = Date.now() + deadlineMs;
		for (;;) {
			const r = await this.get(`/api/runs/${id}`);
			if (r.status !== 200) throw new Error(`GET /api/runs/${id} -> ${r.status} ${r.text}`);
			if (done ? done(r.json) : !['queued', 'running'].includes(r.json.status)) return r.json;
			if (Date.now() >= deadline) {
				throw new Error(`run ${id} still ${r.json.status} after ${deadlineMs} ms: ${r.text.slice(0, 500)}`);
			}
			await sleep(pollMs);
		}
	}

	// POST /api/runs (must be accepted) and wait for the run's end.
	async runToEnd(body, opts = {}) {
		const r = await this.request('POST', '/api/runs', { body });
		if (r.status !== 202) throw new Error(`POST /api/runs ${JSON.stringify(body)} -> ${r.status} ${r.text}`);
		return this.waitRun(r.json.id, opts);
	}
}

// A from-source build of scripts/build-php.sh under builds/ (docs/builds.md):
// its prefix, or an error naming the make target that makes it.
export function srcBuild(name, target = 'src-builds') {
	const p = path.join(BUILDS, name);
	if (!fs.existsSync(path.join(p, 'lib/libphp.so'))) {
		throw new Error(`${p}/lib/libphp.so is missing: run \`make ${target}\` first`);
	}
	return p;
}

// What scripts/build-php.sh recorded about a build (phpcmp-build.txt):
// key=value lines; `patch` lines gathered as a list of file names.
export function srcBuildInfo(name, target) {
	const info = { patch: [] };
	for (const line of fs.readFileSync(path.join(srcBuild(name, target), 'phpcmp-build.txt'), 'utf8').split('\n')) {
		const i = line.indexOf('=');
		if (i < 0) continue;
		const k = line.slice(0, i), v = line.slice(i + 1);
		if (k === 'patch') info.patch.push(v.split(' ')[0]);
		else info[k] = v;
	}
	return info;
}

// Every table's row count in a SQLite file, read with the sqlite3 CLI
// (schema-agnostic: used to show a rejected request wrote nothing).
export function tableCounts(db) {
	const q = (sql) => execFileSync('sqlite3', ['-readonly', db, sql], { encoding: 'utf8' }).trim();
	const tables = q("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
		.split('\n').filter(Boolean);
	// One sqlite3 process for every count (one per table made the
	// bad-input file spawn thousands of them).
	const ident = (t) => `"${t.replace(/"/g, '""')}"`;
	const lit = (t) => `'${t.replace(/'/g, "''")}'`;
	const rows = tables.length === 0 ? [] : q(tables
		.map((t) => `SELECT ${lit(t)} || '|' || (SELECT count(*) FROM ${ident(t)})`).join(' UNION ALL ')).split('\n');
	const counts = {};
	for (const row of rows) {
		const i = row.lastIndexOf('|');
		counts[row.slice(0, i)] = Number(row.slice(i + 1));
	}
	for (const t of tables) assert.ok(Number.isInteger(counts[t]), `a count for table ${t}`);
	return counts;
}

// Run build/phpcmp with arguments (the client subcommand); resolves to
// {code, signal, stdout, stderr}.
export function runCli(args, { timeoutMs = 60_000 } = {}) {
	return new Promise((resolve) => {
		const p = spawn(BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '', stderr = '';
		p.stdout.on('data', (c) => { stdout += c; });
		p.stderr.on('data', (c) => { stderr += c; });
		const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
		p.on('exit', (code, signal) => { clearTimeout(t); resolve({ code, signal, stdout, stderr }); });
		p.on('error', (e) => { clearTimeout(t); resolve({ code: -1, signal: null, stdout, stderr: String(e) }); });
	});
}

// Assert helper for the API's error shape.
export function errorOf(r) {
	return r.json && r.json.error ? r.json.error : null;
}

// PHP code whose value takes ms to compute: a busy loop on the clock, no
// sleep function a sandbox might refuse.
export function slowCode(ms, value = 1) {
	return `$t = hrtime(true); while (hrtime(true) - $t < ${ms} * 1000000); return ${value};`;
}

// A cases folder of n stored cases taking ms each (runs that last a while).
export function slowCases(n, ms) {
	const dir = tmpDir('phpcmp-slow-cases-');
	for (let i = 0; i < n; i++) {
		fs.writeFileSync(path.join(dir, `slow-${String(i).padStart(3, '0')}.phpt`),
			`--TEST--\nslow case ${i}\n--VALUE--\n${slowCode(ms, i)}\n`);
	}
	return dir;
}

// The raw sockets of a test that holds many connections open (slow
// clients, slow bodies, unread downloads): every one destroyed by
// stopAll(), and at the latest after boundMs, so a test that fails midway
// never leaves them to the next file.
export function socketPool(boundMs = 60_000) {
	const sockets = [];
	const stopAll = () => { for (const s of sockets) s.destroy(); };
	const guard = setTimeout(stopAll, boundMs);
	guard.unref();
	return { sockets, stopAll, release: () => { stopAll(); clearTimeout(guard); } };
}
