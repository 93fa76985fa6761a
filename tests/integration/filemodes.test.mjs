// What the daemon and `phpcmp token` create is their user's alone (issue
// 44, item 6): the database, its -wal and -shm, the state folder and the
// worker cores in it are 0600/0700, so --read-auth means something to
// another local user (tokens' names, reviews, cases).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, Daemon, tmpDir } from './helper.mjs';

const dir = tmpDir('phpcmp-filemodes-');
const state = path.join(dir, 'state');
const mode = (p) => fs.statSync(p).mode & 0o777;

let d;
before(async () => {
	// A state folder of its own: made by the daemon (its cores compiled there).
	d = await Daemon.start({ name: 'filemodes', db: path.join(dir, 'phpcmp.db'), state });
});
after(async () => {
	if (d) await d.stopClean();
});

test('the database, its -wal and -shm, the state folder and the cores: 0600 and 0700', async () => {
	assert.equal((await d.postCase({ code: '[1]' })).status, 201);
	const db = path.join(dir, 'phpcmp.db');
	for (const f of [db, `${db}-wal`, `${db}-shm`]) assert.equal(mode(f).toString(8), '600', f);
	assert.equal(mode(state).toString(8), '700', state);
	const cores = path.join(state, 'cores');
	assert.equal(mode(cores).toString(8), '700', cores);
	for (const f of fs.readdirSync(cores)) {
		const m = mode(path.join(cores, f));
		assert.equal(m & 0o077, 0, `${f} is ${m.toString(8)}`);
	}
});

test('`phpcmp token add` makes its database 0600 too', () => {
	const db = path.join(dir, 'tokens.db');
	execFileSync(BIN, ['token', 'add', 'someone', '--db', db], { stdio: 'pipe' });
	assert.equal(mode(db).toString(8), '600');
});
