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

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.resolve(ROOT, process.env.PHPCMP_BIN || 'build/phpcmp');
export const STATE = path.resolve(ROOT, process.env.PHPCMP_TEST_STATE || 'build/test-state');
export const BUILDS = path.resolve(ROOT, process.env.PHPCMP_BUILDS || 'builds');
export const LOGS = path.resolve(ROOT, process.env.PHPCMP_TEST_LOGS || 'tests/artifacts');

export const BASE_VERSION = '8.2.32';
export const HEAD_VERSION = '8.2.36';

// Generous: the first daemon of a run compiles both worker cores, and a
// sanitizer build starts slower.
const START_DEADLINE_MS = 90_000;
const STOP_DEADLINE_MS = 15_000;

export function tmpDir(prefix = 'phpcmp-test-') {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function sha256File(file) {
	return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export function b64(bytes) {
	return Buffer.from(bytes).toString('base64');
}

function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let daemonSeq = 0;

// A running daemon.  Use `await Daemon.start({...})`, then `await d.stop()`.
export class Daemon {
	constructor(opts) {
		this.opts = opts;
		this.db = opts.db;
		this.name = opts.name || 'daemon';
		this.output = '';
		this.exit = null; // {code, signal} once exited
	}

	static async start(opts = {}) {
		const o = { ...opts };
		if (!o.db) o.db = path.join(tmpDir(), 'phpcmp.db');
		let lastErr;
		// A port found free may be taken before the daemon binds it: retry.
		for (let attempt = 0; attempt < 3; attempt++) {
			const d = new Daemon({ ...o, port: o.port || (await freePort()) });
			try {
				await d._start();
				return d;
			} catch (e) {
				lastErr = e;
				await d.stop().catch(() => {});
				if (o.port || !/address|in use|bind/i.test(d.output)) break;
			}
		}
		throw lastErr;
	}

	args() {
		const o = this.opts;
		const a = [
			'serve',
			'--listen', '127.0.0.1',
			'--port', String(o.port),
			'--db', o.db,
			'--build', `base=${path.join(BUILDS, 'base')}`,
			'--build', `head=${path.join(BUILDS, 'head')}`,
			'--cases', o.cases || path.join(ROOT, 'cases'),
			'--web', o.web || path.join(ROOT, 'web'),
			'--state', o.state || STATE,
		];
		if (o.timeoutMs) a.push('--timeout-ms', String(o.timeoutMs));
		if (o.extraArgs) a.push(...o.extraArgs);
		return a;
	}

	async _start() {
		this.port = this.opts.port;
		this.url = `http://127.0.0.1:${this.port}`;
		fs.mkdirSync(LOGS, { recursive: true });
		this.logFile = path.join(LOGS, `${this.name}-${process.pid}-${++daemonSeq}.log`);
		const args = this.args();
		fs.writeFileSync(this.logFile, `$ ${BIN} ${args.join(' ')}\n`);
		this.proc = spawn(BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
		const deadline = Date.now() + START_DEADLINE_MS;
		while (Date.now() < deadline) {
			if (this.exit) {
				throw new Error(`daemon exited during startup (${JSON.stringify(this.exit)}); output:\n${this.output}`);
			}
			try {
				const r = await this.request('GET', '/api/health', { timeoutMs: 2000 });
				if (r.status === 200) {
					this.health = r.json;
					return;
				}
			} catch {
				// not listening yet
			}
			await sleep(100);
		}
		throw new Error(`daemon not healthy within ${START_DEADLINE_MS} ms; output:\n${this.output}`);
	}

	// SIGTERM, then SIGKILL after a deadline.  Resolves to {code, signal, killed}.
	async stop() {
		if (!this.proc) return null;
		if (!this.exit) {
			this.proc.kill('SIGTERM');
			const t = await Promise.race([this.exited, sleep(STOP_DEADLINE_MS).then(() => null)]);
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
	request(method, urlPath, { body, headers = {}, timeoutMs = 60_000, chunked = false } = {}) {
		let data = null;
		const h = { ...headers };
		if (body !== undefined) {
			if (Buffer.isBuffer(body) || typeof body === 'string') data = Buffer.from(body);
			else data = Buffer.from(JSON.stringify(body));
			if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
			if (!chunked) h['Content-Length'] = String(data.length);
		}
		return new Promise((resolve, reject) => {
			let settled = false;
			const req = http.request(
				{ host: '127.0.0.1', port: this.port, method, path: urlPath, headers: h, agent: false },
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
				else if (!settled) setTimeout(() => { if (!settled) { settled = true; reject(e); } }, 2000);
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
}

// Every table's row count in a SQLite file, read with the sqlite3 CLI
// (schema-agnostic: used to show a rejected request wrote nothing).
export function tableCounts(db) {
	const q = (sql) => execFileSync('sqlite3', ['-readonly', db, sql], { encoding: 'utf8' }).trim();
	const tables = q("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
		.split('\n').filter(Boolean);
	const counts = {};
	for (const t of tables) counts[t] = Number(q(`SELECT count(*) FROM "${t.replace(/"/g, '""')}"`));
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
