// `phpcmp serve`'s settings (docs/config.md): each kind of option — a
// string, a bounded integer, on/off, a size — read from a config file and
// from flags (the flag wins), shown where the daemon reports them; and a bad
// value of each kind refused before anything starts, with its reason and
// exit status 2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { Daemon, runCli, tmpDir } from './helper.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });

test('a config file sets each kind of option, a flag overrides it', async () => {
	const dir = tmpDir();
	const conf = path.join(dir, 'phpcmp.conf');
	fs.writeFileSync(conf, [
		'# every kind of option main_options holds',
		'max-connections = 40',
		'max-client-connections = 12',
		'max-client-uploads = 3',
		'max-case-requests = 7',
		'max-queued-runs = 9',
		'measure-budget-ms = 1234',
		'reduce-case-timeout-ms = 777',
		'reduce-max-pending = 5',
		'db-max-size = 64M',
		'read-auth = on',
		'',
	].join('\n'));
	// The flags win: --max-queued-runs over 9, --read-auth off over on (the
	// health of a daemon with read-auth on shows no limits).
	const d = await Daemon.start({ name: 'options',
		extraArgs: ['--config', conf, '--max-queued-runs', '4', '--read-auth', 'off'] });
	daemons.push(d);
	const h = (await d.get('/api/health')).json;
	assert.equal(h.auth.reads, 'open', 'read-auth: the flag wins');
	assert.deepEqual({
		max_connections: h.limits.max_connections,
		max_client_connections: h.limits.max_client_connections,
		max_client_uploads: h.limits.max_client_uploads,
		max_case_requests: h.limits.max_case_requests,
		max_queued_runs: h.limits.max_queued_runs,
		measure_budget_ms: h.limits.measure_budget_ms,
		reduce_case_timeout_ms: h.limits.reduce_case_timeout_ms,
		reduce_max_pending: h.limits.reduce_max_pending,
		db_max_bytes: h.limits.db_max_bytes,
	}, {
		max_connections: 40, max_client_connections: 12, max_client_uploads: 3, max_case_requests: 7,
		max_queued_runs: 4, measure_budget_ms: 1234, reduce_case_timeout_ms: 777, reduce_max_pending: 5,
		db_max_bytes: 64 * 1024 * 1024,
	});
	assert.equal(h.db, d.opts.db, 'db: a string option');
	assert.equal((await d.get('/api/runs')).status, 200);

	// The file's read-auth = on alone: reading the API needs a token.
	const closed = await Daemon.start({ name: 'options-read-auth', extraArgs: ['--config', conf] });
	daemons.push(closed);
	assert.equal((await closed.get('/api/health')).json.auth.reads, 'token');
	assert.equal((await closed.get('/api/runs')).status, 401);
});

test('a bad value of each kind is refused before anything starts, with its reason', async () => {
	const dir = tmpDir();
	const db = path.join(dir, 'phpcmp.db');
	const nested = path.join(dir, 'nested.conf');
	fs.writeFileSync(nested, 'config = other.conf\n');
	const cases = [
		[['--port', '70000'], /^phpcmp: port: expected an integer 0 \.\. 65535, got "70000"$/m],
		[['--reduce-sample', '101'], /^phpcmp: reduce-sample: expected an integer 0 \.\. 100, got "101"$/m],
		[['--max-connections', '0'], /^phpcmp: max-connections: expected an integer 1 \.\./m],
		[['--timeout-ms', '5s'], /^phpcmp: timeout-ms: expected an integer 1 \.\./m],
		[['--read-auth', 'maybe'], /^phpcmp: read-auth: expected on or off, got "maybe"$/m],
		[['--db-max-size', '12Q'], /^phpcmp: db-max-size: expected 0 or a size of at least 256K, like 512M or 4G, got "12Q"$/m],
		[['--db-max-size', '1K'], /^phpcmp: db-max-size: expected 0 or a size of at least 256K/m],
		[['--listen', ''], /^phpcmp: listen: empty value$/m],
		[['--memory-limit', 'lots'], /^phpcmp: memory-limit: expected a PHP size like 128M or -1, got "lots"$/m],
		[['--host', 'a b'], /^phpcmp: host: "a b" is not a host name/m],
		[['--asan', 'nobuild'], /^phpcmp: asan: expected NAME=PREFIX/m],
		[['--base', 'no such'], /^phpcmp: base: expected a build's NAME, got "no such"$/m],
		[['--no-such-option', '1'], /^phpcmp: unknown option "no-such-option"$/m],
		[['--config', nested], /^phpcmp: config: a config file cannot name another$/m],
	];
	for (const [args, want] of cases) {
		const r = await runCli(['serve', '--db', db, '--state', path.join(dir, 'state'), ...args]);
		assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
		assert.match(r.stderr, want, args.join(' '));
	}
	assert.ok(!fs.existsSync(db), 'no database created by a refused start');
});
