// Review and bisect from a php-src checkout (issue 45, part 3; docs/review.md):
// a php-src history of the test's own in a temporary repository — php-src
// 8.2.32 as Debian's pristine tarball has it, committed whole, then the
// fixture patches as commits — read by `phpcmp bisect --src` and `phpcmp
// review --src`, which must never change it.  The first commit's tree is
// the default source's, so its build is the cached release build `make
// php-builds` made (builds/src-8.2.32): no full build here, every other
// commit is its diff built over that tree (scripts/build-commit.sh).
//
// The bisect line, oldest first:
//   0 php 8.2.32             (good)
//   1 keys-fastpath.patch     a correct speed-up of keys
//   2 a .phpt only            nothing libphp is made of
//   3 a syntax error          does not build
//   4 the syntax error fixed
//   5 escape-del.patch        the planted bug: json_encode("\x7F") gives "\u007f"
//   6 escape-unroll.patch     (bad)
// The review branch: 0, 1, 2, then escape-del and escape-unroll (no broken commit).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { LOGS, ROOT, STATE, runCli, srcBuild, tmpDir } from './helper.mjs';

const MINUTES = 60_000;
const show = (r) => `exit ${r.code} signal ${r.signal}\nstdout: ${r.stdout.slice(-4000)}\nstderr: ${r.stderr.slice(-8000)}`;
const patch = (name) => path.join(ROOT, 'tests/fixtures/patches', `${name}.patch`);
const cache = process.env.PHPCMP_PHP_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(process.env.HOME, '.cache'), 'phpcmp/php');
const TARBALL = path.join(cache, 'dist/php8.2_8.2.32.orig.tar.xz');

let repo;
const ids = {};
const git = (...args) => execFileSync('git', ['-C', repo, ...args], {
	encoding: 'utf8',
	env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' },
	maxBuffer: 64 << 20,
}).trim();
const commit = (subject) => { git('commit', '-q', '-a', '-m', subject); return git('rev-parse', 'HEAD'); };
const apply = (name) => execFileSync('patch', ['-p1', '-s', '--batch', '-d', repo, '-i', patch(name)]);
const encoder = () => path.join(repo, 'ext/json/json_encoder.c');
// What must not change: HEAD, the branch, the status, the index's bytes.
const srcState = () => ({
	head: git('rev-parse', 'HEAD'),
	branch: git('symbolic-ref', 'HEAD'),
	status: git('status', '--porcelain', '--untracked-files=all'),
	index: fs.readFileSync(path.join(repo, '.git/index')).toString('base64'),
});

before(() => {
	// The release build of the default source: made by `make php-builds`; this file never makes one.
	srcBuild('src-8.2.32', 'php-builds');
	assert.ok(fs.existsSync(TARBALL), `${TARBALL}: the default source (make php-builds fetches it)`);
	repo = tmpDir('phpcmp-bisect-src-');
	git('init', '-q', '-b', 'master');
	execFileSync('tar', ['-xf', TARBALL, '-C', repo, '--strip-components=1']);
	git('add', '-A', '-f'); // every file of the tarball, .gitignore'd ones too (configure...)
	ids.good = commit('php 8.2.32');
	apply('keys-fastpath');
	ids.keys = commit('json: a fast path for object keys');
	fs.writeFileSync(path.join(repo, 'ext/json/tests/del.phpt'), '--TEST--\nDEL\n--FILE--\n<?php\nvar_dump(json_encode("\\x7f"));\n--EXPECT--\nstring(3) ""\x7f""\n');
	git('add', 'ext/json/tests/del.phpt');
	ids.test = commit('json: a test of DEL');
	git('branch', 'review', 'HEAD');
	const src = fs.readFileSync(encoder(), 'utf8');
	const line = 'static const char digits[] = "0123456789abcdef";';
	assert.ok(src.includes(line));
	fs.writeFileSync(encoder(), src.replace(line, line.slice(0, -1))); // no ';': a syntax error
	ids.broken = commit('json: half a change (does not build)');
	fs.writeFileSync(encoder(), src);
	ids.fixed = commit('json: the change finished');
	apply('escape-del');
	ids.del = commit('json: DEL escaped as \\u007f');
	apply('escape-unroll');
	ids.bad = commit('json: plain bytes four at a time');
	// the review branch: the same first commits, no broken one
	git('checkout', '-q', 'review');
	apply('escape-del');
	ids.rdel = commit('json: DEL escaped as \\u007f');
	apply('escape-unroll');
	ids.rhead = commit('json: plain bytes four at a time');
	git('checkout', '-q', 'master');
	fs.writeFileSync(path.join(repo, 'untracked.txt'), 'left as it is\n');
});

test('bisect finds the planted commit, skipping the one that does not build, in at most ceil(log2 N) + 2 builds; --src untouched', async () => {
	const before = srcState();
	const r = await runCli(['bisect', '--src', repo, '--good', ids.good, '--bad', 'master', '--state', STATE,
		'--code', '"\\x7F"'], { timeoutMs: 30 * MINUTES });
	fs.writeFileSync(path.join(LOGS, 'bisect.log'), show(r));
	assert.equal(r.code, 0, show(r));
	assert.deepEqual(srcState(), before, 'the repository is as it was');

	// the good build is the cached release build of 8.2.32: no full build
	assert.doesNotMatch(r.stderr, /full build/, show(r));
	const good = /good built in [\d.]+ s: (\S+)/.exec(r.stderr)?.[1];
	assert.equal(good, fs.realpathSync(srcBuild('src-8.2.32', 'php-builds')), show(r));

	// progress, then the result on stdout
	assert.match(r.stderr, /6 commits in [0-9a-f]{12}\.\.[0-9a-f]{12} \(first-parent\), at most 5 builds/);
	assert.match(r.stderr, /6 commits left, ~3 steps: testing /);
	assert.match(r.stderr, new RegExp(`c-${ids.broken.slice(0, 12)} \\(commit ${ids.broken.slice(0, 12)}\\) does not build`));
	assert.match(r.stderr, new RegExp(`${ids.broken.slice(0, 12)}: skipped \\(does not build\\)`));
	assert.match(r.stdout, new RegExp(`^first bad commit: ${ids.del} json: DEL escaped as \\\\u007f$`, 'm'), show(r));
	assert.match(r.stdout, /at the good commit [0-9a-f]{12}: output "\\x7F", json_last_error\(\) 0, status ok/);
	assert.match(r.stdout, /at the first bad  [0-9a-f]{12}: output "\\u007f", json_last_error\(\) 0, status ok/);
	const builds = /^builds: (\d+) for 6 commits \(at most 5 without skips\), 1 did not build$/m.exec(r.stdout);
	assert.ok(builds, show(r));
	assert.ok(Number(builds[1]) <= 5, `${builds[1]} builds`);
	assert.match(r.stdout, new RegExp(`c-${ids.broken.slice(0, 12)} +${ids.broken.slice(0, 12)} \\(does not build\\) json: half a change`));
	// the temporary work folder is gone
	const work = /its log: (\S+)\/daemon\.log/.exec(r.stderr)?.[1];
	assert.ok(work && !fs.existsSync(work), `${work} removed`);
});

test('bisect -- PATH: only the commits touching it; the same answer at both ends says so (exit 1)', async () => {
	const r = await runCli(['bisect', '--src', repo, '--good', ids.good, '--bad', ids.bad, '--state', STATE,
		'--code', '"\\x7F"', '--', 'ext/json/json_encoder.c'], { timeoutMs: 20 * MINUTES });
	fs.writeFileSync(path.join(LOGS, 'bisect-paths.log'), show(r));
	assert.equal(r.code, 0, show(r));
	assert.match(r.stderr, /5 commits in .* \(first-parent, touching the paths given\), at most 5 builds/);
	assert.match(r.stdout, new RegExp(`^first bad commit: ${ids.del} `, 'm'));

	// a case escape-del does not change: the same answer at good and bad
	const same = await runCli(['bisect', '--src', repo, '--good', ids.good, '--bad', ids.bad, '--state', STATE,
		'--code', '["a" => 1]', '--flags', 'JSON_PRETTY_PRINT'], { timeoutMs: 20 * MINUTES });
	fs.writeFileSync(path.join(LOGS, 'bisect-same.log'), show(same));
	assert.equal(same.code, 1, show(same));
	assert.match(same.stdout, /the same answer at the good and the bad commit: nothing to bisect/);
});

test('bisect: bad arguments are exit 2 and a precise message, nothing built', async () => {
	const cases = [
		[['--good', ids.good, '--bad', ids.bad, '--code', '1'], /--src, --good and --bad are required/],
		[['--src', repo, '--good', ids.good, '--bad', ids.bad], /one of --case FILE or --code CODE/],
		[['--src', '/nonexistent', '--good', 'a', '--bad', 'b', '--code', '1'], /not a git repository/],
		[['--src', repo, '--good', 'nosuchref', '--bad', ids.bad, '--code', '1'], /nosuchref: not a commit of/],
		[['--src', repo, '--good', ids.bad, '--bad', ids.good, '--code', '1'], /is not an ancestor of --bad/],
		[['--src', repo, '--good', ids.good, '--bad', ids.bad, '--code', '1', '--flags', 'JSON_NOPE'], /--flags JSON_NOPE/],
	];
	for (const [args, re] of cases) {
		const r = await runCli(['bisect', ...args], { timeoutMs: MINUTES });
		assert.equal(r.code, 2, `${args.join(' ')}\n${show(r)}`);
		assert.match(r.stderr, re, args.join(' '));
		assert.doesNotMatch(r.stderr, /building/, 'nothing built');
	}
});

test('review --src: a column per commit of base..head, the root attributed to the DEL commit; --src untouched', async () => {
	const before = srcState();
	const dir = tmpDir('phpcmp-review-src-');
	const out = path.join(dir, 'review.json');
	const r = await runCli(['review', '--src', repo, '--base', ids.good, '--head', 'review', '--state', STATE,
		'--candidate', `keys-only=${ids.keys}`, '--count', '3000', '--no-asan', '--json', '--out', out],
	{ timeoutMs: 30 * MINUTES });
	fs.writeFileSync(path.join(LOGS, 'review-src.log'), show(r));
	assert.equal(r.code, 1, show(r));
	assert.deepEqual(srcState(), before, 'the repository is as it was');
	assert.doesNotMatch(r.stderr, /full build/, show(r));
	assert.match(r.stderr, /4 commits in [0-9a-f]{12}\.\.[0-9a-f]{12} \(first-parent\): a build each/);
	const rep = JSON.parse(fs.readFileSync(out, 'utf8'));
	assert.deepEqual(rep.builds.map((b) => b.name), ['base', 'head@1', 'head@2', 'head@3', 'head@4', 'keys-only']);
	const by = Object.fromEntries(rep.builds.map((b) => [b.name, b]));
	for (const name of ['head@1', 'head@2', 'keys-only']) assert.equal(by[name].differs, false, name);
	for (const name of ['head@3', 'head@4']) assert.equal(by[name].differs, true, name);
	const [cause] = rep.causes;
	assert.equal(cause.minimal.code, '"\\x7F"');
	assert.equal(cause.first_commits.head.commit, 3);
	assert.equal(path.basename(cause.first_commits.head.patch), '0003-json-DEL-escaped-as-u007f.patch');
	assert.match(rep.markdown, /#### Root cause 1, `head`: first in commit 3 \(`0003-json-DEL-escaped-as-u007f\.patch`\)/);
	assert.match(rep.markdown, /`head`, a series of 4 commits: `head@1` 0001-json-a-fast-path-for-object-keys\.patch, `head@2` 0002-json-a-test-of-DEL\.patch/);
	// the .phpt-only commit is no patch: head@2 is head@1's library
	assert.match(r.stderr, /building head@2 \(1 patch\)/);
});
