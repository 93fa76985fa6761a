#!/usr/bin/env python3
"""What a full PHP build pays around the compiler (docs/builds.md, issue 24).

  python3 bench/compile_overhead.py                  12 objects of the debug tree, 3 rounds
  python3 bench/compile_overhead.py --tree release --objects 20 --rounds 5

The same compiles of a built tree (main/*.c by default: the commands its
Makefile gives, outputs into a temporary folder, a fresh ccache each time,
so every compile is a miss as on a fresh machine), three ways, interleaved:

- libtool:  the tree's own libtool 1.5, ccache under the compiler (how
            full builds ran before issue 24);
- wrapper:  scripts/libtool-replay.sh's compile mode, the same ccache;
- depend:   the wrapper with ccache's depend mode (CCACHE_DEPEND=true: how
            scripts/build-php.sh runs now).

CPU seconds (user + system of the commands and their children) and wall
seconds, medians of the rounds; the ratios to the libtool way.  Needs the
tree built (make php-builds).
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILDS = {'release': 'src-8.2.32', 'debug': 'src-8.2.32-debug'}


def tree_obj(name):
    prefix = os.path.join(ROOT, 'builds', BUILDS[name])
    if not os.path.exists(prefix):
        sys.exit(f'compile_overhead: {prefix} is missing (make php-builds)')
    return os.path.join(os.path.dirname(os.path.realpath(prefix)), 'obj')


def compile_commands(obj, count):
    """The libtool argument lists of count objects of main/, from make -n."""
    with open(os.path.join(obj, 'Makefile.objects')) as f:
        targets = re.findall(r'^(main/[a-z_]+\.lo):', f.read(), re.M)[:count]
    out = subprocess.run(['make', '-n', '-B', *targets, 'LIBTOOL=LTWRAP'], cwd=obj,
                         capture_output=True, text=True, check=True).stdout
    return [line[len('LTWRAP '):] for line in out.splitlines() if line.startswith('LTWRAP ')]


def run_way(way, obj, commands):
    """(cpu, wall) seconds for every command one way, into a fresh folder and ccache."""
    out = tempfile.mkdtemp(prefix=f'phpcmp-overhead-{way}-')
    env = dict(os.environ, CCACHE_DIR=os.path.join(out, 'ccache'))
    env.pop('CCACHE_DEPEND', None)
    if way == 'depend':
        env['CCACHE_DEPEND'] = 'true'
    if way != 'libtool':
        env['REAL_LIBTOOL'] = os.path.join(obj, 'libtool')
    os.makedirs(os.path.join(out, 'main'))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for cmd in commands:
        cmd = cmd.replace(' -o main/', f' -o {out}/main/').replace(' -MF main/', f' -MF {out}/main/')
        tool = (f'bash {obj}/libtool --silent --preserve-dup-deps' if way == 'libtool'
                else f'bash {ROOT}/scripts/libtool-replay.sh --preserve-dup-deps')
        subprocess.run(f'{tool} {cmd}', shell=True, cwd=obj, env=env, check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(out)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--tree', choices=sorted(BUILDS), default='debug')
    ap.add_argument('--objects', type=int, default=12)
    ap.add_argument('--rounds', type=int, default=3)
    a = ap.parse_args()
    obj = tree_obj(a.tree)
    commands = compile_commands(obj, a.objects)
    ways = ['libtool', 'wrapper', 'depend']
    got = {w: [] for w in ways}
    for _ in range(a.rounds):
        for w in ways:
            got[w].append(run_way(w, obj, commands))
    load = os.getloadavg()[0]
    print(f'{len(commands)} objects of the {a.tree} tree (main/*.c), each compile a ccache miss; '
          f'medians of {a.rounds} rounds, interleaved; load {load:.1f}')
    print(f'{"way":<10} {"CPU s":>8} {"per object":>11} {"wall s":>8} {"CPU vs libtool":>15}')
    base = statistics.median(c for c, _ in got['libtool'])
    for w in ways:
        cpu = statistics.median(c for c, _ in got[w])
        wall = statistics.median(t for _, t in got[w])
        print(f'{w:<10} {cpu:8.2f} {cpu / len(commands):11.3f} {wall:8.2f} {base / cpu:14.2f}x')


if __name__ == '__main__':
    main()
