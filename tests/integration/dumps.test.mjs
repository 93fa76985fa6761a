// Issue 19, minor: callgrind files of measured cases (~1 MB each on a big
// workload) no longer pile up in the state folder forever.  The newest
// --max-callgrind-dumps measured results keep theirs; older ones are
// deleted and their /callgrind answers say the file is gone; the dump a
// measuring worker writes as it exits (kept by nothing) is deleted with it;
// a lower bound at startup trims what is there.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Daemon, tmpDir } from './helper.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stopClean(); });

const files = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

test('the newest --max-callgrind-dumps measured results keep their callgrind files, older ones are deleted', async () => {
	const state = tmpDir('phpcmp-dumps-state-');
	const db = path.join(tmpDir(), 'phpcmp.db');
	const dir = path.join(state, 'callgrind');
	let d = await Daemon.start({ name: 'dumps', db, state, extraArgs: ['--max-callgrind-dumps', '4'] });
	daemons.push(d);
	const ids = [];
	for (let i = 0; i < 4; i++) {
		const r = await d.runCase({ code: `range(0, ${10 + i})`, measure: 2 });
		assert.equal(typeof r.results.base.instructions_total, 'number', 'measured');
		ids.push(r.comparison_id);
	}
	// 4 results of 2 builds: the newest 4 files are kept (the last two comparisons).
	const kept = files(dir).filter((f) => /\.\d+\.\d+$/.test(f));
	assert.equal(kept.length, 4, `files: ${files(dir).join(' ')}`);
	for (const id of ids.slice(0, 2)) {
		const g = await d.get(`/api/comparisons/${id}/callgrind/base`);
		assert.equal(g.status, 404, g.text);
		assert.equal(g.json.error.code, 'not_found');
		assert.match(g.json.error.message, /has no callgrind file/);
	}
	for (const id of ids.slice(2)) assert.equal((await d.get(`/api/comparisons/${id}/callgrind/head`)).status, 200);
	await d.stopClean();
	// The measuring workers' exit dumps ("<build>.<pid>") are gone with them.
	assert.deepEqual(files(dir).filter((f) => /^[^.]+\.\d+$/.test(f)), [], `files: ${files(dir).join(' ')}`);
	// A lower bound at the next start trims to it.
	d = await Daemon.start({ name: 'dumps-2', db, state, extraArgs: ['--max-callgrind-dumps', '1'] });
	daemons.push(d);
	assert.equal(files(dir).length, 1, `files: ${files(dir).join(' ')}`);
	// The newest comparison's first role (base) is the one kept.
	assert.equal((await d.get(`/api/comparisons/${ids[3]}/callgrind/base`)).status, 200, 'the newest is kept');
	assert.equal((await d.get(`/api/comparisons/${ids[3]}/callgrind/head`)).status, 404);
});
