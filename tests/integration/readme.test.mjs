// README.md, walked (issue 23): its shell examples run against a real
// daemon started as `make run` starts it (Debian's builds/base and
// builds/head, the stored cases run once at start, a fresh database), and
// its instruction table is checked against a measure run.
//
// Which examples run (the rule is in docs/testing.md too):
//   - every ```sh block, in the README's order, each in a bash of its own
//     (cwd: a folder whose entries link to the checkout's, so files an
//     example writes land there); other fences (```json, plain ```) never;
//   - a block right after a line `<!-- readme-test skip: REASON -->`
//     (invisible on the rendered page) does not run: from-source builds,
//     Docker, minutes of work; the test names each one and how many;
//   - `127.0.0.1:8080` and `localhost:8080` are the test daemon's port;
//   - a block with `$ ` lines is a transcript: each `$ ` command (with its
//     `\`-continued lines) must exit 0 — unless the next command is
//     `echo $?`, which shows its status — and where lines follow it they
//     are its output (stdout and stderr as a terminal shows them), matched
//     line by line: `...` stands for any text, a line that is only `...`
//     for any lines, and a shown line starting with a space continues the
//     line before it (long JSON wrapped for reading);
//   - a block without `$ ` lines is a script, run with `set -e -o pipefail`;
//     its output is not shown, so there (and for a transcript command whose
//     output is not shown) curl runs with --fail-with-body: an example
//     whose request the daemon refuses (a stale id: 404) fails.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Daemon, ROOT, tmpDir } from './helper.mjs';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SKIP = /^<!--\s*readme-test skip:\s*(.*?)\s*-->$/;

// The README's ```sh blocks: {line, skip (the reason, or null), text}.
export function shellBlocks(text) {
	const lines = text.split('\n');
	const blocks = [];
	for (let i = 0; i < lines.length; i++) {
		const open = /^```(\S*)\s*$/.exec(lines[i]);
		if (!open) continue;
		let j = i + 1;
		while (j < lines.length && !/^```\s*$/.test(lines[j])) j++;
		if (open[1] === 'sh') {
			let k = i - 1;
			while (k >= 0 && lines[k].trim() === '') k--;
			const skip = k >= 0 ? SKIP.exec(lines[k].trim()) : null;
			blocks.push({ line: i + 1, skip: skip ? skip[1] : null, text: lines.slice(i + 1, j).join('\n') });
		}
		i = j;
	}
	return blocks;
}

// A transcript's commands: [{cmd, shown: [lines]}].
function transcript(text) {
	const lines = text.split('\n');
	const cmds = [];
	for (let i = 0; i < lines.length; i++) {
		if (!lines[i].startsWith('$ ')) {
			assert.ok(cmds.length, `output before the first command: ${lines[i]}`);
			cmds.at(-1).shown.push(lines[i]);
			continue;
		}
		let cmd = lines[i].slice(2);
		while (cmd.endsWith('\\') && i + 1 < lines.length) cmd += '\n' + lines[++i];
		cmds.push({ cmd, shown: [] });
	}
	for (const c of cmds) {
		while (c.shown.length && c.shown.at(-1).trim() === '') c.shown.pop();
	}
	return cmds;
}

// Shown output as a regular expression over the real output.
export function outputPattern(shown) {
	const joined = [];
	for (const l of shown) {
		if (/^\s/.test(l) && l.trim() !== '' && joined.length) joined[joined.length - 1] += l.trim();
		else joined.push(l.trimEnd());
	}
	const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const parts = joined.map((l) => (l === '...'
		? '(?:[^\\n]*\\n)*?'
		: l.split('...').map(esc).join('[^\\n]*?') + '\\n'));
	return new RegExp('^' + parts.join('') + '$');
}

const MARK = '@@readme-test@@';
// curl with --fail-with-body where no output is shown (an HTTP error then
// fails the example), unless the example chose its own --fail.
const PRELUDE = `exec 2>&1
__strict=
curl() {
	if [ -n "$__strict" ]; then
		for a in "$@"; do case $a in --fail*|-[!-]*f*) command curl "$@"; return; esac; done
		command curl --fail-with-body "$@"
	else
		command curl "$@"
	fi
}
`;

function bash(script, cwd, timeoutMs = 120_000) {
	return new Promise((resolve) => {
		execFile('bash', ['-c', script], { cwd, timeout: timeoutMs, maxBuffer: 1 << 26, encoding: 'utf8' },
			(err, stdout) => resolve({ code: err ? (err.code ?? -1) : 0, signal: err?.signal ?? null, stdout }));
	});
}

let d;
let cwd;
let port;
const blocks = shellBlocks(README);

before(async () => {
	// As `make run` starts it: both default builds, the stored cases run
	// at start, the reducer on, every installed released PHP (its
	// "Released PHP" example), php-src's tests extracted.
	await new Promise((resolve, reject) => execFile(path.join(ROOT, 'scripts/php-tests.sh'),
		(e) => (e ? reject(e) : resolve())));
	d = await Daemon.start({ name: 'readme', reduce: true, references: 'all', extraArgs: ['--run-stored', 'on'] });
	port = d.port;
	cwd = tmpDir('phpcmp-readme-');
	for (const e of fs.readdirSync(ROOT)) fs.symlinkSync(path.join(ROOT, e), path.join(cwd, e));
});
after(async () => {
	if (d) await d.stopClean();
});

function localise(text) {
	return text.replace(/\b(127\.0\.0\.1|localhost):8080\b/g, `$1:${port}`);
}

test('the README marks its examples: some run, the rest say why not', () => {
	assert.ok(blocks.length >= 10, `${blocks.length} sh blocks`);
	const skipped = blocks.filter((b) => b.skip);
	const run = blocks.filter((b) => !b.skip);
	assert.ok(run.length >= 6, `${run.length} blocks run`);
	// Every skip says why.
	for (const b of skipped) assert.ok(b.skip.length > 10, `README.md:${b.line}: skip without a reason`);
	console.log(`# README.md: ${blocks.length} sh blocks, ${run.length} run, ${skipped.length} skipped:`);
	for (const b of skipped) console.log(`#   README.md:${b.line}: ${b.skip}`);
});

test('the README\'s shell examples hold on a fresh start', async (t) => {
	for (const b of blocks) {
		if (b.skip) {
			await t.test(`README.md:${b.line}`, { skip: b.skip }, () => {});
			continue;
		}
		await t.test(`README.md:${b.line}`, async () => {
			const text = localise(b.text);
			if (!/^\$ /m.test(text)) {
				const r = await bash(`${PRELUDE}__strict=1\nset -e -o pipefail\n${text}\n`, cwd);
				assert.equal(r.code, 0, `README.md:${b.line} exits ${r.code}:\n${text}\n--- output:\n${r.stdout}`);
				return;
			}
			const cmds = transcript(text);
			// After each command its status, kept for an `echo $?` after it.
			const strict = (c) => `__strict=${c && !c.shown.length ? '1' : ''}`;
			let script = `${PRELUDE}set -o pipefail\n${strict(cmds[0])}\n`;
			cmds.forEach((c, i) => {
				script += `${c.cmd}\n`;
				script += `__rc=$?; printf '\\n${MARK} %d\\n' "$__rc"; ${strict(cmds[i + 1])}; (exit $__rc)\n`;
			});
			const r = await bash(script, cwd);
			const parts = r.stdout.split(new RegExp(`\\n${MARK} (\\d+)\\n`));
			assert.equal(parts.length, cmds.length * 2 + 1, `README.md:${b.line}: the block stopped early:\n${r.stdout}`);
			cmds.forEach((c, i) => {
				const out = parts[2 * i].replace(/[ \t]+$/gm, '');
				const rc = Number(parts[2 * i + 1]);
				const shown = cmds[i + 1]?.cmd.trim() === 'echo $?';
				if (!shown) assert.equal(rc, 0, `README.md:${b.line}: \`${c.cmd}\` exits ${rc}:\n${out}`);
				if (c.shown.length) {
					const want = outputPattern(c.shown);
					assert.match(out.endsWith('\n') ? out : out + '\n', want,
						`README.md:${b.line}: \`${c.cmd}\` printed:\n${out}\n--- the README shows:\n${c.shown.join('\n')}`);
				}
			});
		});
	}
});

test('the README\'s instruction table is what a measure run gives (bench/measure.py --readme)', async () => {
	const start = README.indexOf('| json_encode() of |');
	assert.ok(start > 0, 'no instruction table in README.md');
	const lines = README.slice(start).split('\n');
	const table = lines.slice(0, lines.findIndex((l) => !l.startsWith('|')))
		.map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
	const [head, , ...rows] = table;
	assert.deepEqual(head.slice(1, 3), [d.health.builds[0].php_version, d.health.builds[1].php_version]);
	const run = await d.request('POST', '/api/runs?wait=300', { body: { suite: 'measure' }, timeoutMs: 310_000 });
	assert.equal(run.status, 200, run.text);
	assert.equal(run.json.status, 'done', run.text);
	const m = await d.get(`/api/runs/${run.json.id}/measurements`);
	assert.equal(m.status, 200, m.text);
	const fmt = (n) => Math.round(n).toLocaleString('en-US');
	const want = m.json.workloads.map((w) => [w.title.replace(/^workload: /, ''),
		fmt(w.base.instructions), fmt(w.head.instructions),
		`${w.delta_pct >= 0 ? '+' : ''}${w.delta_pct.toFixed(2)} %`]);
	// Within 1 % of each count and the same sign of Δ: a count moves a little
	// with the machine (callgrind counts what glibc's string functions do with
	// where the heap and the environment put things); a stale row moves more
	// (the rows this check found stale were 5 % off).
	const num = (t) => Number(t.replace(/[^0-9.-]/g, ''));
	const near = (a, b) => Math.abs(num(a) - num(b)) <= 0.01 * num(b);
	const ok = rows.length === want.length && rows.every((r, i) => r[0] === want[i][0] &&
		near(r[1], want[i][1]) && near(r[2], want[i][2]) && Math.sign(num(r[3])) === Math.sign(num(want[i][3])));
	assert.ok(ok, 'README.md\'s instruction table is stale: `python3 bench/measure.py --readme` prints the rows:\n' +
		want.map((w) => `| ${w.join(' | ')} |`).join('\n'));
});
