#!/usr/bin/env python3
"""Which integration files add daemon coverage that no other file gives.

    scripts/daemon-coverage.py measure [--out F] [--no-build] [--resume] [FILE...]
    scripts/daemon-coverage.py cover [--json F] [--out tests/instrumented.txt]

measure: builds the daemon with gcc --coverage -O0 into build/cov (the
worker loader and genphp plain: the loader is never instrumented), then runs
each integration file ALONE with that daemon (scripts/run-tests.sh
integration FILE with PHPCMP_BIN=build/cov/phpcmp, PHPCMP_TEST_LIGHT=1,
PHPCMP_TEST_STATE=build/cov/test-state), the .gcda counters deleted before
each file.  The daemons stop on SIGTERM and write their counters at exit;
a daemon a test kills with SIGKILL writes none (its coverage is not
counted).  After each file, gcov --json-format reads the counters of
server/daemon/*.c, server/daemon/*/*.c and server/common/*.c: the file's covered lines
(source:line) and taken branches (source:line:index), and its wall time.
Written to build/cov/coverage.json after every file (--resume keeps the
files already there and runs only the others).  FILEs default to every
integration file the instrumented passes run (all but run-tests.sh's
heavy files).

cover: a greedy set cover over the measured files: the files whose union
is every line and branch any measured file covers, taking first the file
that adds the most not yet covered lines+branches per second of its wall
time, then dropping any chosen file the others cover.  A file that failed
when measured is always kept (its coverage may be short).  Writes
tests/instrumented.txt: the files the instrumented passes skip
(PHPCMP_TEST_INSTRUMENTED=1, scripts/run-tests.sh), each with chosen
files that cover its every line and branch.
"""
import argparse
import datetime
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = 'build/cov'
HEAVY = {'story', 'heavy', 'reduce', 'asan', 'mutants', 'review'}  # scripts/run-tests.sh heavy_files


def sh(cmd, **kw):
    print('+', ' '.join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, **kw)


def build():
    make = os.environ.get('MAKE', 'make')
    # The loader and genphp first, without --coverage: the loader runs in the
    # workers' sandbox, where it could not write counters, and it is never
    # instrumented (docs/testing.md).
    env = {k: v for k, v in os.environ.items() if k not in ('CFLAGS', 'LDFLAGS')}
    if sh([make, '-j2', f'B={B}', f'{B}/phpcmp-worker', f'{B}/tests/genphp'], env=env).returncode:
        sys.exit('daemon-coverage: building the loader failed')
    # CFLAGS in the environment, not on make's command line: there it would
    # replace the Makefile's `CFLAGS +=` (warnings, -std, the include paths).
    env.update(CFLAGS='-O0 -g --coverage', LDFLAGS='--coverage')
    if sh([make, '-j2', f'B={B}', f'{B}/phpcmp'], env=env).returncode:
        sys.exit('daemon-coverage: building the coverage daemon failed')


def sources():
    return sorted(glob.glob(os.path.join(ROOT, 'server/daemon/*.c')) +
                  glob.glob(os.path.join(ROOT, 'server/daemon/*/*.c')) +
                  glob.glob(os.path.join(ROOT, 'server/common/*.c')))


def read_counters():
    """The covered lines and taken branches, from build/cov/obj/*.gcda."""
    obj = os.path.join(ROOT, B, 'obj')
    lines, branches = set(), set()
    with tempfile.TemporaryDirectory() as tmp:
        srcs = [s for s in sources()
                if os.path.exists(os.path.join(obj, os.path.basename(s)[:-2] + '.gcda'))]
        if not srcs:
            return lines, branches
        subprocess.run(['gcov', '--json-format', '--branch-probabilities', '--object-directory', obj] + srcs,
                       cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        for gz in glob.glob(os.path.join(tmp, '*.gcov.json.gz')):
            with gzip.open(gz, 'rt') as f:
                data = json.load(f)
            for fe in data['files']:
                name = os.path.relpath(os.path.join(ROOT, fe['file']), ROOT) \
                    if not os.path.isabs(fe['file']) else os.path.relpath(fe['file'], ROOT)
                if not re.match(r'server/(daemon(/[^/]+)?|common)/[^/]+\.c$', name):
                    continue
                for ln in fe['lines']:
                    n = ln['line_number']
                    if ln['count'] > 0:
                        lines.add(f'{name}:{n}')
                    for i, br in enumerate(ln.get('branches', [])):
                        if br['count'] > 0:
                            branches.add(f'{name}:{n}:{i}')
    return lines, branches


def universe_size():
    """Every instrumented line and branch (covered or not), from the .gcno."""
    obj = os.path.join(ROOT, B, 'obj')
    nl = nb = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(['gcov', '--json-format', '--branch-probabilities', '--object-directory', obj] + sources(),
                       cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for gz in glob.glob(os.path.join(tmp, '*.gcov.json.gz')):
            with gzip.open(gz, 'rt') as f:
                for fe in json.load(f)['files']:
                    if fe['file'].endswith('.c'):
                        nl += len(fe['lines'])
                        nb += sum(len(ln.get('branches', [])) for ln in fe['lines'])
    return nl, nb


def measure(args):
    out = os.path.join(ROOT, args.out)
    data = {'files': {}}
    if args.resume and os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    if not args.no_build:
        build()
    files = args.files or [f for f in sorted(glob.glob('tests/integration/*.test.mjs', root_dir=ROOT))
                           if os.path.basename(f).split('.')[0] not in HEAVY]
    obj = os.path.join(ROOT, B, 'obj')
    env = dict(os.environ, PHPCMP_BIN=f'{B}/phpcmp', PHPCMP_TEST_LIGHT='1',
               PHPCMP_TEST_STATE=f'{B}/test-state')
    env.pop('PHPCMP_TEST_INSTRUMENTED', None)
    env.pop('PHPCMP_DAEMON_WRAPPER', None)
    for f in files:
        key = f'{f}::{args.pattern}' if args.pattern else f
        if args.resume and key in data['files'] and data['files'][key].get('passed'):
            print(f'== {f}: measured already', flush=True)
            continue
        for g in glob.glob(os.path.join(obj, '*.gcda')):
            os.unlink(g)
        name = os.path.basename(f).split('.')[0]
        env['PHPCMP_TEST_ARTIFACTS'] = os.path.join(ROOT, B, 'artifacts', name)
        t0 = time.monotonic()
        if args.pattern:
            # Only the tests whose names match, straight under node (what is
            # each test's own part of a slow file); recorded as FILE::PATTERN.
            r = sh(['node', '--test', f'--test-name-pattern={args.pattern}', f], env=env,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            m = re.findall(r'^\S+ pass (\d+)$|^\S+ fail (\d+)$', r.stdout, re.M)
            r.stdout += '\ntests: %s passed, %s failed\n' % (
                sum(int(a or 0) for a, _ in m), sum(int(b or 0) for _, b in m))
        else:
            r = sh(['scripts/run-tests.sh', 'integration', f], env=env, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True)
        secs = time.monotonic() - t0
        closing = [ln for ln in r.stdout.splitlines() if ln.startswith('tests: ')]
        lines, branches = read_counters()
        data['files'][key] = {
            'seconds': round(secs, 1), 'passed': r.returncode == 0,
            'result': closing[-1] if closing else f'exit {r.returncode}',
            'lines': sorted(lines), 'branches': sorted(branches),
            'measured': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
        }
        print(f'== {key}: {secs:.0f} s, {data["files"][key]["result"]}, '
              f'{len(lines)} lines, {len(branches)} branches', flush=True)
        if r.returncode:
            print('\n'.join(r.stdout.splitlines()[-30:]), flush=True)
        data['total'] = dict(zip(('lines', 'branches'), universe_size()))
        data['commit'] = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT,
                                        capture_output=True, text=True).stdout.strip()
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out + '.tmp', 'w') as fh:
            json.dump(data, fh, indent=0)
        os.replace(out + '.tmp', out)


def elements(rec):
    return set(rec['lines']) | {'b:' + b for b in rec['branches']}


def cover(args):
    with open(os.path.join(ROOT, args.json)) as f:
        data = json.load(f)
    files = data['files']
    sets = {f: elements(r) for f, r in files.items()}
    cost = {f: max(r['seconds'], 1.0) for f, r in files.items()}
    universe = set().union(*sets.values())
    # Files that failed when measured may have covered less than they would:
    # they are kept, never shown to be duplicates.
    chosen = [f for f in sorted(files) if not files[f]['passed']]
    got = set().union(*(sets[f] for f in chosen)) if chosen else set()
    while got != universe:
        best = max((f for f in files if f not in chosen),
                   key=lambda f: (len(sets[f] - got) / cost[f], -cost[f], f))
        chosen.append(best)
        got |= sets[best]
    # Drop a chosen file the others cover, the slowest first.
    for f in sorted(chosen, key=lambda f: -cost[f]):
        if not files[f]['passed']:
            continue
        rest = set().union(*(sets[g] for g in chosen if g != f))
        if sets[f] <= rest:
            chosen.remove(f)
    assert set().union(*(sets[f] for f in chosen)) == universe

    def covered_by(f):
        need, by = set(sets[f]), []
        while need:
            g = max((g for g in chosen if g not in by), key=lambda g: (len(sets[g] & need), -cost[g]))
            by.append(g)
            need -= sets[g]
        return by

    skipped = sorted(f for f in files if f not in chosen)
    nl = sum(1 for e in universe if not e.startswith('b:'))
    nb = len(universe) - nl
    total_s = sum(cost[f] for f in files)
    skip_s = sum(cost[f] for f in skipped)
    out = []
    out.append('# Integration files the instrumented passes (the sanitizer pass, make memcheck)')
    out.append('# do not run: PHPCMP_TEST_INSTRUMENTED=1 makes scripts/run-tests.sh skip them and')
    out.append('# name them in its summary.  Each one covers no daemon line or branch')
    out.append('# (server/daemon/**/*.c, server/common/*.c, gcc --coverage) that the files after')
    out.append('# "covered by" do not also cover; those run in the instrumented passes.')
    out.append('# A file not listed here (a new file too) runs in them.  `make test` runs all.')
    out.append('#')
    out.append(f'# Measured {max(r["measured"] for r in files.values())} at commit {data.get("commit", "?")}:')
    out.append('#   scripts/daemon-coverage.py measure   (build/cov/coverage.json)')
    out.append('#   scripts/daemon-coverage.py cover     (this file)')
    out.append(f'# {len(files)} files measured alone ({total_s:.0f} s), together {nl} lines and {nb} branches'
               f' (of {data.get("total", {}).get("lines", "?")} lines, {data.get("total", {}).get("branches", "?")}'
               ' branches instrumented);')
    out.append(f'# the {len(chosen)} files kept cover all of them; the {len(skipped)} below'
               f' took {skip_s:.0f} s of the {total_s:.0f} s.')
    out.append('# Measure again (and rewrite this file) when the tests or the daemon change much.')
    out.append('')
    width = max((len(f) for f in skipped), default=0)
    for f in skipped:
        r = files[f]
        by = ' '.join(os.path.basename(g) for g in covered_by(f))
        out.append(f'{f:<{width}}  # {r["seconds"]:.0f} s, {len(r["lines"])} lines,'
                   f' {len(r["branches"])} branches; covered by: {by}')
    text = '\n'.join(out) + '\n'
    if args.out == '-':
        sys.stdout.write(text)
    else:
        with open(os.path.join(ROOT, args.out), 'w') as f:
            f.write(text)
    print(f'cover: {len(chosen)} kept ({sum(cost[f] for f in chosen):.0f} s):', ' '.join(
        os.path.basename(f) for f in chosen), file=sys.stderr)
    print(f'cover: {len(skipped)} skipped ({skip_s:.0f} s):', ' '.join(os.path.basename(f) for f in skipped),
          file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    m = sub.add_parser('measure')
    m.add_argument('--out', default=f'{B}/coverage.json')
    m.add_argument('--no-build', action='store_true')
    m.add_argument('--resume', action='store_true')
    m.add_argument('--pattern', help="only the tests whose names match (node's --test-name-pattern), "
                   'recorded as FILE::PATTERN; use another --out: cover reads whole files')
    m.add_argument('files', nargs='*')
    c = sub.add_parser('cover')
    c.add_argument('--json', default=f'{B}/coverage.json')
    c.add_argument('--out', default='tests/instrumented.txt')
    a = p.parse_args()
    measure(a) if a.cmd == 'measure' else cover(a)


if __name__ == '__main__':
    main()
