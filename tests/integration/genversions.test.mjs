// Generated runs for an older PHP (issue 45, part 2's first item): a run's
// "php" asks for cases that PHP compiles (as a run with a build of that
// version does by itself).  Only 8.2 builds exist here, so the run asks:
// "php": "8.0" goes to the worker cores (TAG_GEN_PHP), the cases hold no
// enum, the summary says what was left out; "php": "8.2" (or none) is the
// usual corpus, byte for byte.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './helper.mjs';

let d;
before(async () => { d = await Daemon.start({ name: 'genversions' }); });
after(async () => { await d?.stopClean(); });

const run = (extra) => d.runToEnd({ suite: 'generated', seed: 7, count: 600, ...extra }, { deadlineMs: 240_000 });

test('"php": "8.0": no enum, generated_for says so; "8.2" and none: the same corpus', async () => {
	const all = await run({});
	assert.equal(all.status, 'done', JSON.stringify(all));
	assert.equal(all.summary.generated_for, undefined);
	assert.ok(all.summary.coverage.kind.enum > 0, `enums in the default corpus: ${all.summary.coverage.kind.enum}`);

	const v82 = await run({ php: '8.2' });
	assert.equal(v82.status, 'done');
	assert.equal(v82.params.php, '8.2.0');
	assert.equal(v82.summary.generated_for, undefined);
	assert.equal(v82.summary.corpus_hash, all.summary.corpus_hash, 'for 8.2: the corpus unchanged');

	const v80 = await run({ php: '8.0' });
	assert.equal(v80.status, 'done', JSON.stringify(v80));
	assert.equal(v80.params.php, '8.0.0');
	assert.equal(v80.summary.generated_for, 'PHP 8.0.0: enums left out');
	assert.equal(v80.summary.coverage.kind.enum, 0);
	for (const [name, n] of Object.entries(v80.summary.coverage.enum)) assert.equal(n, 0, name);
	assert.notEqual(v80.summary.corpus_hash, all.summary.corpus_hash);
	assert.equal(v80.summary.done, 600);
	// The same again: the same corpus.
	const again = await run({ php: '8.0.10' });
	assert.equal(again.summary.generated_for, 'PHP 8.0.10: enums left out');
	assert.equal(again.summary.corpus_hash, v80.summary.corpus_hash, 'any 8.0 makes the same cases');
});

test('"php" must be a PHP version', async () => {
	for (const bad of ['8', 'eight', 80000, '8.0.0.1']) {
		const r = await d.request('POST', '/api/runs', { body: { suite: 'generated', seed: 1, count: 1, php: bad } });
		assert.equal(r.status, 400, `${bad}: ${r.text}`);
		assert.match(r.json.error.message, /php: expected a PHP version/);
	}
});
