// web/js/measure.js: a measure run's verdict in instructions (issue 23: not "differ 0 / same 11").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instructionCounts } from '../../web/js/measure.js';

test('instructionCounts: regressions, improvements, unchanged, and unmeasured only when some are', () => {
	assert.deepEqual(instructionCounts({ regressions: 8, improvements: 1, unchanged: 2, unmeasured: 0 }).map((x) => x.text),
		['8 regressions', '1 improvement', '2 unchanged']);
	assert.deepEqual(instructionCounts({ regressions: 1, unmeasured: 3 }).map((x) => [x.kind, x.n]),
		[['regression', 1], ['improvement', 0], ['unchanged', 0], ['unmeasured', 3]]);
	assert.deepEqual(instructionCounts(null).map((x) => x.text), ['0 regressions', '0 improvements', '0 unchanged']);
});
