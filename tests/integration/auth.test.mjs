// Who may write (issue 6): bearer tokens made with `phpcmp token`, stored
// hashed; on loopback with no token writes stay open; a non-loopback daemon
// with no token refuses to start; --read-auth closes reading too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Daemon, STATE, runCli, tableCounts, tmpDir } from './helper.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });
async function start(opts) {
	const d = await Daemon.start(opts);
	daemons.push(d);
	return d;
}

const bearer = (t) => ({ Authorization: `Bearer ${t}` });
const sql = (db, q) => execFileSync('sqlite3', ['-readonly', db, q], { encoding: 'utf8' }).trim();

async function addToken(db, name) {
	const r = await runCli(['token', 'add', name, '--db', db]);
	assert.equal(r.code, 0, r.stderr);
	const token = r.stdout.trim();
	assert.match(token, /^phpcmp_[A-Za-z0-9_-]{43}$/, 'the token alone on stdout');
	assert.match(r.stderr, /shown only this once/);
	return token;
}

// A refused write: 401, the error code, a challenge, and nothing written.
async function refused(d, method, p, opts, code, messageRe) {
	const before = tableCounts(d.db);
	const r = await d.request(method, p, opts);
	assert.equal(r.status, 401, `${method} ${p} -> ${r.status} ${r.text}`);
	assert.equal(r.json?.error?.code, code, r.text);
	if (messageRe) assert.match(r.json.error.message, messageRe);
	assert.match(r.headers['www-authenticate'] || '', /^Bearer realm="phpcmp"/);
	assert.deepEqual(tableCounts(d.db), before, `${method} ${p}: nothing written`);
	return r;
}

test('token add/list/revoke: printed once, stored hashed, named, checked', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	let r = await runCli(['token', 'list', '--db', db]);
	assert.equal(r.code, 1, 'list on a missing database fails');
	assert.match(r.stderr, /No such file/);

	const alice = await addToken(db, 'alice@example.org');
	const ci = await addToken(db, 'ci: nightly json job');
	assert.notEqual(alice, ci);
	// Only the SHA-256 is stored, never the token.
	const hashes = sql(db, 'SELECT hash FROM tokens ORDER BY id').split('\n');
	assert.deepEqual(hashes, [alice, ci].map((t) => createHash('sha256').update(t).digest('hex')));
	assert.equal(sql(db, `SELECT count(*) FROM tokens WHERE hash LIKE '%${alice.slice(7, 20)}%'`), '0');

	r = await runCli(['token', 'add', 'alice@example.org', '--db', db]);
	assert.equal(r.code, 1, 'one active token per name');
	assert.match(r.stderr, /already has an active token/);
	assert.equal(r.stdout, '', 'no token printed');
	for (const bad of ['', '12345', ' lead', 'x'.repeat(65), 'tab\there']) {
		r = await runCli(['token', 'add', bad, '--db', db]);
		assert.equal(r.code, 2, `name ${JSON.stringify(bad)} refused`);
	}
	r = await runCli(['token', 'frobnicate', '--db', db]);
	assert.equal(r.code, 2);

	r = await runCli(['token', 'list', '--db', db]);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, /alice@example\.org .* active/);
	assert.match(r.stdout, /ci: nightly json job .* active/);
	assert.ok(!r.stdout.includes(alice), 'list never shows a token');

	r = await runCli(['token', 'revoke', 'nobody', '--db', db]);
	assert.equal(r.code, 1);
	assert.match(r.stderr, /no active token named "nobody"/);
	const id = sql(db, "SELECT id FROM tokens WHERE name = 'ci: nightly json job'");
	r = await runCli(['token', 'revoke', id, '--db', db]);
	assert.equal(r.code, 0, r.stderr);
	r = await runCli(['token', 'list', '--db', db]);
	assert.match(r.stdout, /ci: nightly json job .* revoked \d{4}-/);
	// A revoked name may get a new token.
	await addToken(db, 'ci: nightly json job');
});

test('loopback: writes open until a token exists, then every write needs one', async () => {
	const d = await start({ name: 'auth' });
	assert.match(d.output, /writes are open \(loopback, no token configured\)/);
	assert.deepEqual(d.health.auth, { writes: 'open', reads: 'open' });
	const c = await d.runCase({ code: "['open' => true]" });

	// A token made while the daemon runs closes writes at once.
	const alice = await addToken(d.db, 'alice');
	let h = await d.get('/api/health');
	assert.deepEqual(h.json.auth, { writes: 'token', reads: 'open' });

	const body = { code: "['closed' => true]" };
	await refused(d, 'POST', '/api/cases', { body }, 'token_required', /Authorization: Bearer/);
	await refused(d, 'POST', '/api/cases', { body, headers: bearer('phpcmp_nope') }, 'token_unknown');
	await refused(d, 'POST', '/api/cases', { body, headers: { Authorization: 'Basic YTpi' } }, 'token_malformed');
	await refused(d, 'POST', '/api/cases', { body, headers: { Authorization: 'Bearer' } }, 'token_malformed');
	await refused(d, 'POST', '/api/cases', { body, headers: { Authorization: `Bearer ${alice} x` } }, 'token_malformed');
	await refused(d, 'POST', '/api/runs', { body: { suite: 'stored' } }, 'token_required');
	await refused(d, 'POST', '/api/runs/1/cancel', {}, 'token_required');
	await refused(d, 'POST', '/api/runs/1/resume', {}, 'token_required');
	// Checked before the body is looked at: a bad body without a token is a 401.
	await refused(d, 'POST', '/api/cases', { body: '{' }, 'token_required');

	// Reading stays open.
	assert.equal((await d.get(`/api/cases/${c.id}`)).status, 200);
	assert.equal((await d.get('/api/runs')).status, 200);

	// With the token: accepted, and its use noted.
	let r = await d.request('POST', '/api/cases', { body, headers: bearer(alice) });
	assert.equal(r.status, 201, r.text);
	r = await d.request('POST', '/api/cases', { body, headers: { authorization: `bearer   ${alice}` } });
	assert.equal(r.status, 201, 'the scheme is case-insensitive: ' + r.text);
	assert.match(sql(d.db, "SELECT last_used_at FROM tokens WHERE name = 'alice'"), /^\d{4}-\d\d-\d\dT/);
	r = await d.request('POST', '/api/runs', { body: { suite: 'stored' }, headers: bearer(alice) });
	assert.equal(r.status, 202, r.text);
	for (let i = 0; i < 600 && ['queued', 'running'].includes(r.json.status); i++) {
		await new Promise((res) => setTimeout(res, 100));
		r = await d.get(`/api/runs/${r.json.id}`);
	}
	assert.equal(r.json.status, 'done', r.text);

	// The CI client sends $PHPCMP_TOKEN.
	const file = path.join(tmpDir(), 'case.phpt');
	fs.writeFileSync(file, '--TEST--\nsubmitted with a token\n--VALUE--\n[1, 2]\n');
	let cli = await runCli(['submit', '--url', d.url, file]);
	assert.equal(cli.code, 2, cli.stdout + cli.stderr);
	assert.match(cli.stderr, /HTTP 401 token_required/);
	assert.match(cli.stderr, /set \$PHPCMP_TOKEN to a token: an operator makes one with `phpcmp token add NAME --db DB`/, 'says what to do');
	process.env.PHPCMP_TOKEN = alice;
	try {
		cli = await runCli(['submit', '--url', d.url, file]);
	} finally {
		delete process.env.PHPCMP_TOKEN;
	}
	assert.equal(cli.code, 0, cli.stdout + cli.stderr);
	assert.match(cli.stdout, /^same: submitted with a token/);

	// Revoked: refused, naming whose token it was.
	r = await runCli(['token', 'revoke', 'alice', '--db', d.db]);
	assert.equal(r.code, 0, r.stderr);
	await refused(d, 'POST', '/api/cases', { body, headers: bearer(alice) }, 'token_revoked', /token of "alice" was revoked at/);
	// No active token left on loopback: writes are open again (the documented model).
	r = await d.request('POST', '/api/cases', { body });
	assert.equal(r.status, 201, r.text);
	// ...but a token that is sent is still checked.
	await refused(d, 'POST', '/api/cases', { body, headers: bearer(alice) }, 'token_revoked');
});

test('--read-auth on: reading needs a token too; health stays open', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	const bob = await addToken(db, 'bob');
	const d = await start({ name: 'auth-read', db, extraArgs: ['--read-auth', 'on'] });
	assert.deepEqual(d.health.auth, { writes: 'token', reads: 'token' });
	for (const p of ['/api/cases', '/api/runs', '/api/flags', '/api/cases/1']) {
		const r = await d.get(p);
		assert.equal(r.status, 401, `${p}: ${r.text}`);
		assert.equal(r.json.error.code, 'token_required');
		assert.match(r.headers['www-authenticate'], /^Bearer/);
	}
	assert.equal((await d.get('/api/flags', { headers: bearer('phpcmp_wrong') })).json.error.code, 'token_unknown');
	const c = await d.request('POST', '/api/cases', { body: { code: '1' }, headers: bearer(bob) });
	assert.equal(c.status, 201, c.text);
	const r = await d.get(`/api/cases/${c.json.id}`, { headers: bearer(bob) });
	assert.equal(r.status, 200);
	assert.equal((await d.get('/api/health')).status, 200);
});

test('a non-loopback listen address with no token: the daemon refuses to start', async () => {
	const db = path.join(tmpDir(), 'phpcmp.db');
	for (const addr of ['0.0.0.0', '::']) {
		const r = await runCli(['serve', '--listen', addr, '--port', '0', '--db', db,
			'--state', STATE], { timeoutMs: 30_000 });
		assert.notEqual(r.code, 0, `${addr}: must not start`);
		assert.match(r.stderr, new RegExp(`listen address ${addr.replace(/[.:]/g, '\\$&')} is not a loopback address`));
		assert.match(r.stderr, /phpcmp token add NAME --db/);
		assert.ok(!/serving http/.test(r.stderr), 'never listened');
	}
	// Loopback in every spelling is fine without a token (checked by the
	// address parser; the suite never binds a non-loopback address).
	const d = await start({ name: 'auth-loopback', db, extraArgs: ['--listen', '127.0.0.1'] });
	assert.equal(d.health.auth.writes, 'open');
});
