// web/js/components/ui.js's countsView on a fake DOM: a run's counts.broken
// (cases the same on every build, none of which ran to its end: docs/api.md,
// "ended") is shown with what it means, and its link lists them where they
// are — among same (the cases listing has no broken filter).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installFakeDom } from './fakedom.mjs';

installFakeDom();
const { countsView } = await import('../../web/js/components/ui.js');

test('counts.broken: a badge saying what it means, linking to the same cases', () => {
	const el = countsView({ same: 3, differ: 1, broken: 2 }, (k) => `#/runs/7?verdict=${k}`);
	const items = el.findAll((e) => e.getAttribute('data-verdict') !== null);
	assert.deepEqual(items.map((e) => e.getAttribute('data-verdict')), ['broken', 'differ', 'same'], 'same last');
	const broken = items[0];
	assert.equal(broken.textContent, 'broken 2');
	assert.match(broken.getAttribute('title'), /same on every build, but no build ran to its end/);
	const a = broken.findAll((e) => e.tagName === 'A')[0];
	assert.equal(a.getAttribute('href'), '#/runs/7?verdict=same');
	assert.equal(items[1].findAll((e) => e.tagName === 'A')[0].getAttribute('href'), '#/runs/7?verdict=differ');
	assert.equal(items[1].getAttribute('title'), null, 'differ says itself');
});
