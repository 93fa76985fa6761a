// web/js/format.js: numbers, percentages, times, flags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
	buildsText, caseErrorText, duration, flagNames, flagsText, fmtInt, fmtNum, isActive, localTime, pctChange, plainPct,
	plural, relTime, shortFlag, failureNote, FAILURE_FRESH_S, signalText, signedPct, tail,
} from '../../web/js/format.js';

const FLAGS = [{ name: 'JSON_HEX_TAG', value: 1 }, { name: 'JSON_HEX_AMP', value: 2 },
	{ name: 'JSON_PRETTY_PRINT', value: 128 }, { name: 'JSON_UNESCAPED_SLASHES', value: 64 },
	{ name: 'JSON_PARTIAL_OUTPUT_ON_ERROR', value: 512 }];

test('fmtInt and fmtNum: grouped thousands, two decimals for a count that is not whole, a dash for nothing', () => {
	assert.equal(fmtInt(1234567), '1,234,567');
	assert.equal(fmtInt(0), '0');
	assert.equal(fmtInt('42'), '42');
	assert.equal(fmtInt(null), '—');
	assert.equal(fmtInt(undefined), '—');
	assert.equal(fmtNum(26818), '26,818', 'a whole count as one (issue 46: not 26,818.00)');
	assert.equal(fmtNum(3298), '3,298');
	assert.equal(fmtNum(3298.5), '3,298.50');
	assert.equal(fmtNum(3470.456), '3,470.46');
	assert.equal(fmtNum(null), '—');
});

test('percentages: change from base, signed with a real minus sign, or plain', () => {
	assert.equal(pctChange(26818, 28158).toFixed(4), '4.9966');
	assert.equal(pctChange(200, 150), -25);
	assert.equal(pctChange(0, 5), null, 'no base, no percentage');
	assert.equal(pctChange(100, null), null);
	assert.equal(signedPct(4.9966, 1), '+5.0');
	assert.equal(signedPct(-2.5, 2), '\u22122.50');
	assert.equal(signedPct(0, 1), '±0.0');
	assert.equal(signedPct(1.825), '+1.8', 'one decimal by default');
	assert.equal(signedPct(null), '—');
	assert.equal(plainPct(1.8234), '+1.82');
	assert.equal(plainPct(-2.5), '-2.50', 'the history table keeps an ASCII minus');
	assert.equal(plainPct(0), '0.00');
	assert.equal(plainPct(null), '—');
});

test('relTime: seconds, minutes, hours, days, then the date', () => {
	const now = Date.parse('2026-12-01T12:00:00Z');
	const at = (s) => new Date(now - s * 1000);
	assert.equal(relTime(at(2), now), 'just now');
	assert.equal(relTime(at(42), now), '42 s ago');
	assert.equal(relTime(at(150), now), '2 min ago');
	assert.equal(relTime(at(3 * 3600 + 5), now), '3 h ago');
	assert.equal(relTime(at(2 * 86400), now), '2 d ago');
	assert.equal(relTime(at(40 * 86400), now), '2026-10-22');
	assert.equal(relTime(new Date(now + 60000), now), 'just now', 'a clock a little ahead');
});

test('duration: under a second, seconds with a decimal, minutes and seconds, or null', () => {
	assert.equal(duration('2026-12-01T12:00:00Z', '2026-12-01T12:00:00Z'), '< 1 s');
	assert.equal(duration('2026-12-01T12:00:00Z', '2026-12-01T12:00:12Z'), '12.0 s');
	assert.equal(duration('2026-12-01T12:00:00Z', '2026-12-01T12:03:25Z'), '3 min 25 s');
	assert.equal(duration('2026-12-01T12:00:00Z', null, Date.parse('2026-12-01T12:00:05Z')), '5.0 s', 'still running: until now');
	assert.equal(duration(null, '2026-12-01T12:00:00Z'), null);
	assert.equal(duration('2026-12-01T12:00:10Z', '2026-12-01T12:00:00Z'), null, 'negative');
	assert.equal(duration('not a date', '2026-12-01T12:00:00Z'), null);
});

test('localTime: the local date and time, zero-padded', () => {
	assert.equal(localTime(new Date(2026, 0, 2, 3, 4, 5)), '2026-01-02 03:04:05');
	assert.equal(localTime(new Date(2026, 11, 31, 23, 59, 59)), '2026-12-31 23:59:59');
});

test('flags: names of the bits set, short names, a case\'s flags as text', () => {
	assert.deepEqual(flagNames(64 | 128, FLAGS), ['JSON_PRETTY_PRINT', 'JSON_UNESCAPED_SLASHES']);
	assert.deepEqual(flagNames(0, FLAGS), []);
	assert.deepEqual(flagNames(4, FLAGS), [], 'an unknown bit has no name');
	assert.equal(flagNames(64, null), null, 'no list yet');
	assert.equal(shortFlag('JSON_HEX_TAG'), 'HEX_TAG');
	assert.equal(flagsText(64 | 1, null, FLAGS), 'HEX_TAG | UNESCAPED_SLASHES');
	assert.equal(flagsText(64, ['JSON_PRETTY_PRINT'], FLAGS), 'PRETTY_PRINT', 'the API\'s names win');
	assert.equal(flagsText(['JSON_HEX_AMP', 'JSON_HEX_TAG']), 'HEX_AMP | HEX_TAG');
	assert.equal(flagsText('JSON_HEX_TAG|JSON_FOO'), 'JSON_HEX_TAG|JSON_FOO', 'a string is shown as it is');
	assert.equal(flagsText(0, null, FLAGS), '0');
	assert.equal(flagsText(4, null, FLAGS), '4', 'no name: the number');
	assert.equal(flagsText(64, null, null), '64', 'no list: the number');
	assert.equal(flagsText(undefined), '0');
});

test('signals, builds, plurals, tails, run states', () => {
	assert.equal(signalText(11), '11 (SIGSEGV)');
	assert.equal(signalText(9), '9 (SIGKILL)');
	assert.equal(signalText(64), '64');
	assert.equal(buildsText({ base: '8.2.32', head: '8.2.36' }, { base: 'base', head: 'pr-1234' }), 'base 8.2.32 · head (pr-1234) 8.2.36');
	assert.equal(buildsText({ base: '8.2.32', head: '8.2.36', 'keys-only': '8.2.36' }), 'base 8.2.32 · head 8.2.36 · keys-only 8.2.36');
	assert.equal(buildsText(null), '—');
	assert.equal(plural(1, 'run'), 'run');
	assert.equal(plural(0, 'run'), 'runs');
	assert.equal(plural(2, 'mismatch', 'mismatches'), 'mismatches');
	assert.equal(tail('abcdef', 4), '…def');
	assert.equal(tail('abc', 4), 'abc');
	assert.ok(isActive('running') && isActive('queued'));
	assert.ok(!isActive('done') && !isActive('interrupted'));
});

test('caseErrorText: a case error against the user\'s own line and column, the build it failed on', () => {
	assert.equal(caseErrorText({ message: 'Unclosed \'[\'', section: 'value', line: 1, column: 10, role: 'base', build: 'base' }),
		'value, line 1, column 10: Unclosed \'[\' (on base)');
	assert.equal(caseErrorText({ message: 'Cannot redeclare f()', section: 'setup', line: 2, column: null, build: 'head' }),
		'setup, line 2: Cannot redeclare f() (on head)');
	assert.equal(caseErrorText({ detail: 'no return', section: 'value', line: null, column: null }), 'value: no return');
	assert.equal(caseErrorText(null), '');
});

test('failureNote: a worker\'s last failure says when, and ages out after FAILURE_FRESH_S', () => {
	const now = Date.parse('2026-12-02T12:00:00Z');
	assert.equal(failureNote({ last_failure: null }, now), null);
	assert.deepEqual(failureNote({ last_failure: 'request timed out after 1000 ms', last_failure_at: '2026-12-02T11:58:00Z', last_failure_age_s: 120 }, now),
		{ recent: true, text: 'last failure 2 min ago: request timed out after 1000 ms' });
	assert.deepEqual(failureNote({ last_failure: 'killed by signal 11', last_failure_at: '2026-12-02T10:00:00Z', last_failure_age_s: 7200 }, now),
		{ recent: false, text: 'last failure 2 h ago: killed by signal 11' });
	assert.equal(failureNote({ last_failure: 'x', last_failure_at: '2026-12-02T11:45:00Z' }, now).recent, false, 'the age from the time when not given');
	assert.equal(failureNote({ last_failure: 'x', last_failure_at: 'z', last_failure_age_s: FAILURE_FRESH_S - 1 }, now).recent, true);
	assert.deepEqual(failureNote({ last_failure: 'old daemon' }, now), { recent: true, text: 'last failure: old daemon' });
});
