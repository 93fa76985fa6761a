/*
 * phpcmp's reference worker: one released PHP (7.4 ... 8.5) as a
 * WebAssembly runtime (WordPress Playground's php-wasm, the npm packages
 * @php-wasm/node-7-4 ... @php-wasm/node-8-5, pinned in package.json),
 * speaking the native workers' protocol (server/common/proto.h) on fd 3.
 * The runtime is loaded once and kept warm; each message is one PHP request
 * running server/reference/driver.php, which does in PHP what the native
 * core (server/core/core.c) does in C, so a case's answer is the same bytes.
 * docs/references.md: the protocol, the versions, what differs.
 *
 * The daemon starts it as (ROOT the checkout, or where the page's
 * node_modules and server/reference/ are installed):
 *
 *   node --experimental-permission
 *        --allow-fs-read=ROOT/server/reference/
 *        --allow-fs-read=ROOT/node_modules/
 *        --max-old-space-size=256 --max-semi-space-size=16
 *        --disallow-code-generation-from-strings
 *        --disable-proto=throw --no-warnings --no-addons
 *        ROOT/server/reference/worker.mjs --php 8.5 [--memory-limit 128M]
 *
 * with fd 3 the socketpair, fd 2 its log, cwd anywhere.  Node's permission
 * model (v20: --experimental-permission; v22+ also accepts --permission)
 * then refuses every file write, every read outside those two folders,
 * child processes, worker threads, WASI and native addons; the JS heap is
 * bounded by --max-old-space-size and PHP's own heap by memory_limit inside
 * the wasm memory (which the runtime caps at its own maximum).  The PHP
 * runtime mounts no host folder: it sees only its in-memory file system
 * (/internal, /tmp, /home, /dev, /proc of emscripten), and PHP under wasm
 * has no sockets and no processes (fsockopen, proc_open, exec fail).  The
 * daemon adds its own sandbox around node (phpcmp-worker --sandbox-exec,
 * docs/sandbox.md) and its per-case timeout: a case that never ends (wasm
 * cannot be interrupted) is ended by killing this process.
 *
 * Messages: PROTO_HELLO once loaded (or PROTO_FAIL + TAG_MESSAGE), then
 * PROTO_CASE -> PROTO_RESULT, PROTO_REF_BATCH -> PROTO_REF_RESULTS, anything
 * else -> a PROTO_RESULT with status error.  EOF on fd 3: exit.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE_VERSION = '3.1.56';
const VERSIONS = ['7.4', '8.0', '8.1', '8.2', '8.3', '8.4', '8.5'];

const MAGIC = 0x50434850;
const PROTO_VERSION = 1;
const HEADER = 12;
const MAX_PAYLOAD = 64 << 20;
const T = { HELLO: 1, CASE: 2, RESULT: 3, FAIL: 4, RENEW: 9, REF_BATCH: 17, REF_RESULTS: 18 };
const TYPE_NAMES = {
	5: 'PROTO_GEN_BATCH', 7: 'PROTO_GEN_DETAIL', 15: 'PROTO_PHPT',
};
const TAG = {
	PHP_VERSION: 1, ZEND_VERSION: 2, STATUS: 20, PRINTED: 26, WARNINGS: 27, FAILURE: 28,
	MESSAGE: 40, SANDBOX: 80, REFERENCE: 120, REF_RESULTS: 122,
};
const TAG_PRINTED_HERE = 0xffff; /* driver.php's place for TAG_PRINTED */
const MAX_PRINTED = 1 << 20;
const MAX_DIAG = 64 << 10;
const CUT_PRINTED = '\n[phpcmp: output truncated]';
const CUT_WARNINGS = '[phpcmp: diagnostics truncated]\n';
const IN = '/internal/phpcmp/in';
const OUT = '/internal/phpcmp/out';
const DRIVER = '/internal/phpcmp/driver.php';

function log(msg) {
	process.stderr.write(`phpcmp reference worker: ${msg}\n`);
}
/* emscripten and php-wasm print notes with console.log: to the log, never fd 1. */
console.log = console.info = console.warn = console.error = (...a) => log(a.join(' '));

function field(tag, bytes) {
	const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
	const h = Buffer.alloc(6);
	h.writeUInt16LE(tag, 0);
	h.writeUInt32LE(b.length, 2);
	return Buffer.concat([h, b]);
}

function intField(tag, v) {
	const b = Buffer.alloc(8);
	b.writeBigInt64LE(BigInt(v));
	return field(tag, b);
}

/* The tagged fields of a payload, in order. */
export function decodeFields(p) {
	const out = [];
	for (let i = 0; i + 6 <= p.length;) {
		const tag = p.readUInt16LE(i), len = p.readUInt32LE(i + 2);
		if (i + 6 + len > p.length) throw new Error('malformed payload');
		out.push({ tag, data: p.subarray(i + 6, i + 6 + len) });
		i += 6 + len;
	}
	return out;
}

function parseArgs(argv) {
	const a = { php: null, memoryLimit: '128M' };
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--php') a.php = argv[++i];
		else if (argv[i] === '--memory-limit') a.memoryLimit = argv[++i];
		else throw new Error(`unknown argument ${argv[i]}`);
	}
	if (!VERSIONS.includes(a.php)) throw new Error(`--php must be one of ${VERSIONS.join(', ')}`);
	if (!/^-1$|^[0-9]+[KMG]?$/.test(a.memoryLimit)) throw new Error('--memory-limit: e.g. 128M');
	return a;
}

/* ---- the channel on fd 3 ---- */

const sock = new net.Socket({ fd: 3, readable: true, writable: true });
let pending = Buffer.alloc(0);
const frames = [];
let wake = null;
let closed = false;

sock.on('data', (d) => {
	pending = pending.length ? Buffer.concat([pending, d]) : d;
	while (pending.length >= HEADER) {
		const magic = pending.readUInt32LE(0), ver = pending.readUInt16LE(4);
		const type = pending.readUInt16LE(6), len = pending.readUInt32LE(8);
		if (magic !== MAGIC || ver !== PROTO_VERSION || len > MAX_PAYLOAD) {
			log('bad frame from the daemon');
			process.exit(2);
		}
		if (pending.length < HEADER + len) break;
		frames.push({ type, payload: Buffer.from(pending.subarray(HEADER, HEADER + len)) });
		pending = pending.subarray(HEADER + len);
	}
	if (wake) wake();
});
sock.on('end', () => { closed = true; if (wake) wake(); });
sock.on('error', (e) => { log(`fd 3: ${e.message}`); process.exit(1); });

function send(type, parts) {
	const payload = Buffer.concat(parts);
	const h = Buffer.alloc(HEADER);
	h.writeUInt32LE(MAGIC, 0);
	h.writeUInt16LE(PROTO_VERSION, 4);
	h.writeUInt16LE(type, 6);
	h.writeUInt32LE(payload.length, 8);
	return new Promise((resolve) => sock.write(Buffer.concat([h, payload]), resolve));
}

async function nextFrame() {
	for (;;) {
		if (frames.length) return frames.shift();
		if (closed) return null;
		await new Promise((r) => { wake = r; });
		wake = null;
	}
}

/* ---- the runtime ---- */

/*
 * The runtime's way out, closed where PHP reaches JavaScript.  emscripten's
 * sockets would open a WebSocket to the address PHP connects to (with the
 * `ws` package, were it installed), and its asyncify build lets a failed
 * connect escape as a JavaScript exception that kills the runtime; PHP's
 * popen() (shell_exec, exec, system, passthru) waits forever when there is
 * no spawn handler.  So: connect and sendto fail with ENETUNREACH (what a
 * native worker in its empty network namespace gets), bind and listen with
 * EACCES, popen with a null stream, proc_open with ENOSYS (php-wasm's own
 * answer without a spawn handler).
 */
const ERRNO = { EACCES: 2, ENETUNREACH: 40 };
function confine(imports) {
	const env = imports.env;
	const deny = (name, errno) => {
		if (typeof env[name] === 'function') env[name] = () => -errno;
	};
	deny('__syscall_connect', ERRNO.ENETUNREACH);
	deny('wasm_connect', ERRNO.ENETUNREACH);
	deny('__syscall_sendto', ERRNO.ENETUNREACH);
	deny('__syscall_bind', ERRNO.EACCES);
	deny('__syscall_listen', ERRNO.EACCES);
	if (typeof env.js_popen_to_file === 'function') env.js_popen_to_file = () => 0;
}

/* php.ini: the settings the native core gives every request (core.c's core_ini_defaults). */
function phpIni(memoryLimit) {
	return [
		`memory_limit=${memoryLimit}`, 'serialize_precision=-1', 'precision=14',
		'error_reporting=32767', 'log_errors=0', 'display_errors=0', 'display_startup_errors=0',
		'html_errors=0', 'date.timezone=UTC', 'output_buffering=0', 'implicit_flush=0',
		'max_execution_time=0', 'opcache.enable=0', 'opcache.enable_cli=0',
		'ignore_repeated_errors=0', 'allow_url_include=0',
	].join('\n') + '\n';
}

/*
 * emscripten's NODEFS (the host-folder bridge, which this worker never
 * mounts) reads its open() flags from process.binding('constants') when
 * the runtime starts; the permission model refuses process.binding, so
 * the constants are handed over from fs.constants instead.
 */
function allowConstantsBinding() {
	const orig = process.binding;
	process.binding = (name) => (name === 'constants' ? { fs: fs.constants } : orig.call(process, name));
}

async function load(args) {
	allowConstantsBinding();
	const pkg = `@php-wasm/node-${args.php.replace('.', '-')}`;
	let universal, build;
	try {
		universal = await import('@php-wasm/universal');
		build = await import(pkg);
	} catch (e) {
		throw new Error(`${pkg}@${PACKAGE_VERSION} is not installed (make web-deps): ${e.message}`);
	}
	const loader = await build.getPHPLoaderModule();
	const id = await universal.loadPHPRuntime(loader, {
		/* exit() inside PHP must not end node */
		quit(code, err) { throw err; },
		print: (s) => log(s),
		printErr: (s) => log(s),
		/* No network, no processes, at the wasm module's imports (below). */
		instantiateWasm(imports, receive) {
			confine(imports);
			const bytes = fs.readFileSync(loader.dependencyFilename);
			WebAssembly.instantiate(bytes, imports).then(
				(r) => receive(r.instance, r.module),
				(e) => { log(`cannot instantiate ${loader.dependencyFilename}: ${e.message}`); process.exit(1); });
			return {};
		},
	});
	const php = new universal.PHP(id);
	/* Before the first request, which reads it: no auto_prepend_file, no opcache. */
	php.writeFile('/internal/shared/php.ini', phpIni(args.memoryLimit));
	php.mkdir('/internal/phpcmp');
	php.writeFile(DRIVER, fs.readFileSync(path.join(HERE, 'driver.php')));
	return { php, universal };
}

/* One request running the driver; the response (its output in .bytes). */
async function request(rt, input) {
	rt.php.writeFile(IN, input);
	if (rt.php.fileExists(OUT)) rt.php.unlink(OUT);
	const streamed = await rt.php.runStream({ scriptPath: DRIVER });
	return rt.universal.PHPResponse.fromStreamedResponse(streamed);
}

function readOut(rt) {
	return rt.php.fileExists(OUT) ? Buffer.from(rt.php.readFileAsBuffer(OUT)) : Buffer.alloc(0);
}

/*
 * The layers in force, as GET /api/builds shows them: the daemon's loader's
 * (phpcmp-worker --sandbox-exec ... --sandbox-report-env PHPCMP_SANDBOX,
 * e.g. "netns landlock(abi 4) caps rlimits"), Node's permission model only
 * when it is on (it refuses file writes), and the runtime's in-memory files.
 */
function sandboxLayers(env = process.env, permission = process.permission) {
	const words = [];
	if (env.PHPCMP_SANDBOX && env.PHPCMP_SANDBOX !== 'none') words.push(env.PHPCMP_SANDBOX);
	if (typeof permission?.has === 'function' && !permission.has('fs.write')) words.push('node-permission');
	words.push('wasm-memfs');
	return words.join(' ');
}

async function hello(rt) {
	const r = await rt.php.run({ code: '<?php echo PHP_VERSION, "\\n", zend_version();' });
	const [php, zend] = r.text.split('\n');
	return [
		field(TAG.PHP_VERSION, php), field(TAG.ZEND_VERSION, zend),
		field(TAG.SANDBOX, sandboxLayers()),
		field(TAG.REFERENCE, `php-wasm ${PACKAGE_VERSION} (node ${process.version})`),
	];
}

/* A PROTO_CASE: the driver's fields with the request's output as TAG_PRINTED. */
async function runCase(rt, payload) {
	const resp = await request(rt, Buffer.concat([Buffer.from('case\n'), payload]));
	const out = readOut(rt);
	if (!out.length) throw new Error(`the driver gave no answer (exit ${resp.exitCode}): ${resp.errors}`);
	let printed = Buffer.from(resp.bytes);
	if (printed.length > MAX_PRINTED)
		printed = Buffer.concat([printed.subarray(0, MAX_PRINTED), Buffer.from(CUT_PRINTED)]);
	/* What the case logged (error_log()): PHP's SAPI log, which php-wasm
	 * writes to the request's stderr a message a line, as the core's
	 * log_message hook adds it to the warnings (after the diagnostics
	 * here, not between them). */
	const logged = Buffer.from(resp.errors || '', 'utf8');
	return decodeFields(out).map((f) => {
		if (f.tag === TAG_PRINTED_HERE) return field(TAG.PRINTED, printed);
		if (f.tag === TAG.WARNINGS && logged.length && !f.data.toString('latin1').endsWith(CUT_WARNINGS)) {
			let w = Buffer.concat([f.data, logged]);
			if (w.length > MAX_DIAG) w = Buffer.concat([w.subarray(0, MAX_DIAG), Buffer.from(CUT_WARNINGS)]);
			return field(TAG.WARNINGS, w);
		}
		return field(f.tag, f.data);
	});
}

function countRecords(buf) {
	let n = 0;
	for (let i = 0; i + 4 <= buf.length; n++) i += 4 + buf.readUInt32LE(i);
	return n;
}

/* A PROTO_REF_BATCH: one request for all its cases, another after each fatal error. */
async function runBatch(rt, payload) {
	const fields = decodeFields(payload);
	const cases = fields.find((f) => f.tag === 121);
	const total = cases ? countRecords(cases.data) : 0;
	const parts = [];
	let done = 0, chunk = true;
	while (done < total) {
		const mode = chunk ? 'chunk' : 'single';
		const resp = await request(rt, Buffer.concat([Buffer.from(`batch ${done} ${mode}\n`), payload]));
		const out = readOut(rt);
		const n = countRecords(out);
		if (n === 0 && chunk) {
			chunk = false; /* the chunk itself ended the request: case by case */
			continue;
		}
		if (n === 0) throw new Error(`the driver gave no answer at case ${done} (exit ${resp.exitCode}): ${resp.errors}`);
		parts.push(out);
		done += n;
	}
	return [field(TAG.REF_RESULTS, Buffer.concat(parts))];
}

async function main() {
	let args, rt;
	try {
		args = parseArgs(process.argv.slice(2));
		rt = await load(args);
		await send(T.HELLO, await hello(rt));
	} catch (e) {
		log(e.stack || e.message);
		await send(T.FAIL, [field(TAG.MESSAGE, `reference php-${args ? args.php : '?'}: ${e.message}`)]);
		process.exit(1);
	}
	for (;;) {
		const f = await nextFrame();
		if (!f) process.exit(0);
		try {
			if (f.type === T.CASE) {
				await send(T.RESULT, await runCase(rt, f.payload));
			} else if (f.type === T.REF_BATCH) {
				await send(T.REF_RESULTS, await runBatch(rt, f.payload));
			} else if (f.type === T.RENEW) {
				await send(T.RESULT, []);
				process.exit(0);
			} else {
				const name = TYPE_NAMES[f.type] || `message type ${f.type}`;
				await send(T.RESULT, [intField(TAG.STATUS, 1),
					field(TAG.FAILURE, `reference runtimes do not run ${name}\n`)]);
			}
		} catch (e) {
			/* The runtime itself failed (a wasm trap, out of wasm memory): its
			 * state cannot be trusted.  No answer: the daemon sees the worker
			 * die, as it sees a native worker crash, and starts another. */
			log(`runtime failure: ${e.stack || e.message}`);
			process.exit(70);
		}
	}
}

main();
