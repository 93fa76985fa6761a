// The reference worker (server/reference/worker.mjs): released PHP as
// php-wasm runtimes, driven here over the workers' binary protocol
// (server/common/proto.h) on fd 3, as the daemon drives it, under the node
// flags the daemon uses (the worker's header).  Needs the @php-wasm
// packages (make web-deps): a missing one fails the test, it is not skipped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKER = path.join(ROOT, 'server/reference/worker.mjs');
const FLAGS = ['--experimental-permission',
	`--allow-fs-read=${ROOT}/server/reference/`, `--allow-fs-read=${ROOT}/node_modules/`,
	'--max-old-space-size=256', '--max-semi-space-size=16', '--disallow-code-generation-from-strings',
	'--disable-proto=throw', '--no-warnings', '--no-addons'];
const T = { HELLO: 1, CASE: 2, RESULT: 3, FAIL: 4, GEN_BATCH: 5, REF_BATCH: 17, REF_RESULTS: 18 };
const INT_TAGS = new Set([20, 22, 32, 33]);
const NAMES = { 1: 'php_version', 2: 'zend_version', 20: 'status', 21: 'output', 22: 'error_code',
	23: 'error_msg', 24: 'exc_class', 25: 'exc_msg', 26: 'printed', 27: 'warnings', 28: 'failure',
	30: 'compile_error', 31: 'compile_section', 32: 'compile_line', 33: 'compile_column', 40: 'message',
	80: 'sandbox', 120: 'reference', 122: 'ref_results' };

function field(tag, v) {
	const b = typeof v === 'number' ? Buffer.alloc(8) : Buffer.from(v);
	if (typeof v === 'number') b.writeBigInt64LE(BigInt(v));
	const h = Buffer.alloc(6);
	h.writeUInt16LE(tag, 0);
	h.writeUInt32LE(b.length, 2);
	return Buffer.concat([h, b]);
}

function decode(p) {
	const o = {};
	for (let i = 0; i + 6 <= p.length;) {
		const tag = p.readUInt16LE(i), len = p.readUInt32LE(i + 2), d = p.subarray(i + 6, i + 6 + len);
		o[NAMES[tag] || tag] = INT_TAGS.has(tag) ? Number(d.readBigInt64LE()) : tag === 122 ? d : d.toString('utf8');
		i += 6 + len;
	}
	return o;
}

function records(buf) {
	const out = [];
	for (let i = 0; i + 4 <= buf.length;) {
		const len = buf.readUInt32LE(i);
		out.push(buf.subarray(i + 4, i + 4 + len));
		i += 4 + len;
	}
	return out;
}

function casePayload(c) {
	return Buffer.concat([field(10, c.code), ...(c.setup ? [field(11, c.setup)] : []),
		field(12, c.flags || 0), field(13, c.depth || 512)]);
}

class Worker {
	constructor(php, { flags = FLAGS, env = {} } = {}) {
		const pkg = path.join(ROOT, 'node_modules/@php-wasm', `node-${php.replace('.', '-')}`, 'package.json');
		assert.ok(fs.existsSync(pkg), `${pkg} is missing: run make web-deps (npm ci installs the @php-wasm packages)`);
		this.stderr = '';
		const environ = { ...process.env, ...env };
		if (!('PHPCMP_SANDBOX' in env)) delete environ.PHPCMP_SANDBOX;
		this.proc = spawn(process.execPath, [...flags, WORKER, '--php', php],
			{ stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: environ });
		this.proc.stderr.on('data', (d) => { this.stderr += d; });
		this.sock = this.proc.stdio[3];
		this.buf = Buffer.alloc(0);
		this.frames = [];
		this.waiters = [];
		this.sock.on('data', (d) => {
			this.buf = Buffer.concat([this.buf, d]);
			while (this.buf.length >= 12) {
				assert.equal(this.buf.readUInt32LE(0), 0x50434850, 'frame magic');
				const len = this.buf.readUInt32LE(8);
				if (this.buf.length < 12 + len) break;
				this.frames.push({ type: this.buf.readUInt16LE(6), payload: this.buf.subarray(12, 12 + len) });
				this.buf = this.buf.subarray(12 + len);
			}
			while (this.frames.length && this.waiters.length) this.waiters.shift().resolve(this.frames.shift());
		});
		this.proc.on('exit', (code) => {
			for (const w of this.waiters.splice(0)) w.reject(new Error(`worker exited ${code}: ${this.stderr}`));
		});
		this.hello = this.next();
	}

	next() {
		return new Promise((resolve, reject) => {
			if (this.frames.length) resolve(this.frames.shift());
			else this.waiters.push({ resolve, reject });
		});
	}

	send(type, payload) {
		const h = Buffer.alloc(12);
		h.writeUInt32LE(0x50434850, 0);
		h.writeUInt16LE(1, 4);
		h.writeUInt16LE(type, 6);
		h.writeUInt32LE(payload.length, 8);
		this.sock.write(Buffer.concat([h, payload]));
		return this.next();
	}

	async run(c) {
		const f = await this.send(T.CASE, casePayload(c));
		assert.equal(f.type, T.RESULT);
		return decode(f.payload);
	}

	close() {
		this.sock.end();
		return new Promise((r) => (this.proc.exitCode !== null ? r() : this.proc.on('exit', r)));
	}
}

const ENUM = { setup: "enum E: string { case A = 'a'; }", code: 'E::A' };
const UNTYPED = { setup: 'class J implements JsonSerializable { function jsonSerialize() { return [1]; } }', code: 'new J' };

describe('reference worker', { timeout: 300000 }, () => {
	const w = {};
	before(() => {
		for (const v of ['7.4', '8.1', '8.5']) w[v] = new Worker(v);
	});
	after(async () => {
		for (const v of Object.keys(w)) await w[v].close();
	});

	test('hello: the exact PHP version each runtime reports, the runtime named', async () => {
		for (const [v, re] of [['7.4', /^7\.4\.\d+$/], ['8.1', /^8\.1\.\d+$/], ['8.5', /^8\.5\.\d+$/]]) {
			const h = await w[v].hello;
			assert.equal(h.type, T.HELLO, w[v].stderr);
			const o = decode(h.payload);
			assert.match(o.php_version, re);
			assert.match(o.zend_version, /^[34]\.\d+\.\d+$/);
			assert.match(o.reference, /^php-wasm 3\.1\.56 \(node v\d+\.\d+\.\d+\)$/);
			assert.equal(o.sandbox, 'node-permission wasm-memfs');
		}
	});

	test('hello: node-permission only when the model is on; the loader\'s layers (PHPCMP_SANDBOX) first', async () => {
		const open = new Worker('8.1', { flags: FLAGS.filter((f) => f !== '--experimental-permission' && !f.startsWith('--allow-fs-read=')),
			env: { PHPCMP_SANDBOX: 'netns landlock(abi 7) caps rlimits' } });
		try {
			const h = await open.hello;
			assert.equal(h.type, T.HELLO, open.stderr);
			assert.equal(decode(h.payload).sandbox, 'netns landlock(abi 7) caps rlimits wasm-memfs');
		} finally {
			await open.close();
		}
	});

	test('a backed enum: a compile error on 7.4, its value on 8.1 and 8.5', async () => {
		const old = await w['7.4'].run(ENUM);
		assert.equal(old.status, 1);
		assert.equal(old.exc_class, 'ParseError');
		assert.equal(old.compile_section, 'setup');
		assert.equal(old.compile_line, 1);
		assert.match(old.failure, /^PHP Parse error: syntax error, .* in setup on line 1\n$/);
		assert.equal(old.output, undefined);
		for (const v of ['8.1', '8.5']) {
			const r = await w[v].run(ENUM);
			assert.deepEqual(r, { status: 0, output: '"a"', error_code: 0, error_msg: 'No error', printed: '', warnings: '' }, v);
		}
	});

	test('jsonSerialize() with no return type: a deprecation from 8.1, none on 7.4', async () => {
		const old = await w['7.4'].run(UNTYPED);
		assert.equal(old.output, '[1]');
		assert.equal(old.warnings, '');
		for (const v of ['8.1', '8.5']) {
			const r = await w[v].run(UNTYPED);
			assert.equal(r.output, '[1]');
			assert.match(r.warnings, /^PHP Deprecated: Return type of J::jsonSerialize\(\) should either be compatible with JsonSerializable::jsonSerialize\(\): mixed, .* in setup on line 1\n$/);
		}
	});

	test('the fields the native core sends: echo, warning, exception in jsonSerialize, parse error, partial output, depth, NAN', async () => {
		const r = w['8.5'];
		assert.deepEqual(await r.run({ code: "echo 'hi'; return [1];" }),
			{ status: 0, output: '[1]', error_code: 0, error_msg: 'No error', printed: 'hi', warnings: '' });
		assert.equal((await r.run({ code: '$u' })).warnings, 'PHP Warning: Undefined variable $u in value on line 1\n');
		assert.deepEqual(await r.run({ setup: "class X implements JsonSerializable { function jsonSerialize(): mixed { throw new RuntimeException('boom'); } }", code: 'new X' }),
			{ status: 0, error_code: 0, error_msg: 'No error', exc_class: 'RuntimeException', exc_msg: 'boom', printed: '', warnings: '' });
		assert.deepEqual(await r.run({ code: '[1,\n2' }), {
			status: 1, error_code: 0, exc_class: 'ParseError', exc_msg: "Unclosed '[' on line 1", printed: '', warnings: '',
			failure: "PHP Parse error: Unclosed '[' on line 1 in value on line 2\n", compile_error: "Unclosed '[' on line 1",
			compile_section: 'value', compile_line: 2, compile_column: 2 }); // native 8.2.32's answer, byte for byte
		const partial = await r.run({ code: '["a" => "\\xff", "b" => 1]', flags: 512 });
		assert.equal(partial.output, '{"a":null,"b":1}');
		assert.equal(partial.error_code, 5);
		const deep = await r.run({ code: '[[[1]]]', depth: 1 });
		assert.equal(deep.output, undefined);
		assert.equal(deep.error_msg, 'Maximum stack depth exceeded');
		assert.equal((await r.run({ code: 'NAN' })).error_code, 7);
		const fatal = await r.run({ code: "trigger_error('no', E_USER_ERROR)" });
		assert.equal(fatal.status, 1);
		assert.match(fatal.failure, /PHP Fatal error: no in value on line 1\n$/);
		assert.equal((await r.run({ code: 'exit(1)' })).failure, 'exit() called in value\n');
		// each case a fresh request: the class of one case is gone in the next
		assert.equal((await r.run({ setup: 'class Gone {}', code: '1' })).output, '1');
		assert.equal((await r.run({ code: "class_exists('Gone')" })).output, 'false');
	});

	test('a hostile case gets nothing: no host file, no network, no process', async () => {
		for (const v of ['7.4', '8.5']) {
			const r = await w[v].run({ code: `[
				@file_get_contents('/etc/passwd'), @file_exists('/etc/hostname'), in_array('etc', scandir('/')),
				@fsockopen('127.0.0.1', 22, $en, $es, 1), @stream_socket_client('tcp://127.0.0.1:80', $e2, $s2, 1),
				@file_get_contents('http://127.0.0.1:1/'), @shell_exec('id'), @exec('id'), @system('id'),
				@proc_open('id', [1 => ['pipe', 'w']], $p), @popen('id', 'r'), @passthru('id')]` });
			assert.equal(r.status, 0, JSON.stringify(r));
			assert.equal(r.output, `[${Array(12).fill('false').join(',')}]`, v);
			assert.doesNotMatch(r.printed + r.warnings, /root:|uid=/);
		}
		// and the worker is still there
		assert.equal((await w['8.5'].run({ code: '2' })).output, '2');
	});

	test('PROTO_REF_BATCH: the generator classes once, every case answered in order, a fatal one too', async () => {
		const cases = ['new G(1)', '[1, "\\xff"]', 'str_repeat("x", 1 << 30)', 'new G(NAN)', '(function () { $v = new G(2); json_encode($v); return $v; })()'];
		const flags = [0, 0, 0, 0, 4194304];
		const recs = cases.map((code, i) => {
			const r = Buffer.concat([field(10, code), field(12, flags[i]), field(13, 512)]);
			const l = Buffer.alloc(4);
			l.writeUInt32LE(r.length);
			return Buffer.concat([l, r]);
		});
		const f = await w['8.1'].send(T.REF_BATCH, Buffer.concat([
			field(58, 'class G { public $v; function __construct($v) { $this->v = $v; } }'),
			field(121, Buffer.concat(recs))]));
		assert.equal(f.type, T.REF_RESULTS);
		const out = records(decode(f.payload).ref_results).map(decode);
		assert.equal(out.length, 5);
		assert.equal(out[0].output, '{"v":1}');
		assert.equal(out[1].output, undefined);
		assert.equal(out[1].error_code, 5);
		assert.equal(out[2].status, 1);
		assert.match(out[2].failure, /Allowed memory size/);
		assert.equal(out[3].error_code, 7, 'the fatal error before did not end the batch');
		assert.equal(out[4].output, '{"v":2}');
		assert.equal(out[4].error_code, 0, 'json_last_error() as a fresh request has it');
	});

	test('a message a reference cannot run: an error result, the worker goes on', async () => {
		const f = await w['8.5'].send(T.GEN_BATCH, Buffer.alloc(0));
		assert.equal(f.type, T.RESULT);
		const o = decode(f.payload);
		assert.equal(o.status, 1);
		assert.equal(o.failure, 'reference runtimes do not run PROTO_GEN_BATCH\n');
		assert.equal((await w['8.5'].run({ code: '3' })).output, '3');
	});
});
