#!/usr/bin/env python3
"""How long scripts/build-php.sh takes (docs/builds.md).

  python3 bench/builds.py                 all three figures
  python3 bench/builds.py --no-full       skip the full build (minutes)
  python3 bench/builds.py --rounds 5      rounds of the cheap figures (median)
  python3 bench/builds.py --no-full --compare scripts/old-build-php.sh
                                          this script's candidate vs another's, interleaved

- full base build: 8.2.32 release from the tarball in a fresh, temporary
  cache (the tarball itself is taken from the normal cache: no download);
- cached re-request: the same request again (the normal cache's base);
- one-file candidate: the base plus a patch to ext/json/json_encoder.c no
  tree has yet (a fresh nonce each round), built over the base's tree.
Wall-clock seconds of the whole process, start to exit, and the CPU
seconds (user + system) of it and its children: on a shared machine the
wall figure follows the load, the CPU figure much less.  Candidate trees made here are removed.
"""
import argparse
import os
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, 'scripts', 'build-php.sh')
CACHE = os.path.abspath(os.environ.get('PHPCMP_PHP_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'phpcmp', 'php'))
TARBALL = 'php8.2_8.2.32.orig.tar.xz'
ENCODER = 'ext/json/json_encoder.c'
RESULT = re.compile(r'^build-php: (\S+) = (\S+) -> (\S+)/prefix \((cached|full|reused), ([\d.]+) s\)$', re.M)


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def build(args, env=None, script=None):
    t, c = time.monotonic(), cpu_children()
    p = subprocess.run(['bash', script or SCRIPT] + args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t
    cpu = cpu_children() - c
    if p.returncode != 0:
        sys.exit(f'build-php {" ".join(args)} failed:\n{p.stdout}\n{p.stderr}')
    m = RESULT.search(p.stdout)
    if not m:
        sys.exit(f'no result line:\n{p.stdout}\n{p.stderr}')
    return {'tree': m.group(3), 'mode': m.group(4), 'seconds': float(m.group(5)), 'wall': wall, 'cpu': cpu}


def nonce_patch(base_tree, directory):
    nonce = secrets.token_hex(4)
    src = open(os.path.join(base_tree, 'src', ENCODER)).read()
    anchor = '\tif (len == 0) {\n\t\tsmart_str_appendl(buf, "\\"\\"", 2);\n\t\treturn SUCCESS;\n\t}\n'
    assert anchor in src
    add = (f'\tif (len == {7 + len(nonce)} && memcmp(s, "phpcmp-{nonce}", len) == 0) {{\n'
           '\t\tsmart_str_appendl(buf, "\\"nonce\\"", 7);\n\t\treturn SUCCESS;\n\t}\n')
    a, b = os.path.join(directory, 'a.c'), os.path.join(directory, 'b.c')
    open(a, 'w').write(src)
    open(b, 'w').write(src.replace(anchor, anchor + add))
    diff = subprocess.run(['diff', '-u', '--label', 'a/' + ENCODER, '--label', 'b/' + ENCODER, a, b],
                          capture_output=True, text=True).stdout
    path = os.path.join(directory, f'nonce-{nonce}.patch')
    open(path, 'w').write(f'bench/builds.py nonce {nonce}\n' + diff)
    return path


def show(what, runs):
    secs = [r['wall'] for r in runs]
    cpu = [r['cpu'] for r in runs]
    modes = sorted({r['mode'] for r in runs})
    print(f'{what:<28} median {statistics.median(secs):7.2f} s wall, {statistics.median(cpu):7.2f} s CPU '
          f'(rounds: {", ".join(f"{s:.2f}" for s in secs)} s wall; {"/".join(modes)})', flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--no-full', action='store_true')
    ap.add_argument('--compare', metavar='SCRIPT',
                    help='another build-php.sh (e.g. an older one, copied into scripts/): its one-file '
                         'candidate rebuilds interleaved with this one\'s, medians of both')
    opt = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix='phpcmp-bench-builds-')
    links = os.path.join(tmp, 'builds')
    made = []
    try:
        base = build(['--name', 'bench-base', '--builds', links])
        base_tree = base['tree']
        print(f'cpus: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}', flush=True)
        if not opt.no_full:
            cache = os.path.join(tmp, 'cache')
            os.makedirs(os.path.join(cache, 'dist'))
            shutil.copy(os.path.join(CACHE, 'dist', TARBALL), os.path.join(cache, 'dist', TARBALL))
            env = dict(os.environ, PHPCMP_PHP_CACHE=cache)
            show('full base build (release)', [build(['--name', 'full', '--builds', links], env)])
            shutil.rmtree(cache, ignore_errors=True)
        show('cached re-request', [build(['--name', 'bench-base', '--builds', links]) for _ in range(opt.rounds)])
        runs, other = [], []
        for i in range(opt.rounds):
            r = build(['--name', f'bench-cand-{i}', '--builds', links, '--patch', nonce_patch(base_tree, tmp)])
            made.append(r['tree'])
            runs.append(r)
            if opt.compare:
                r = build(['--name', f'bench-other-{i}', '--builds', links, '--patch', nonce_patch(base_tree, tmp)],
                          script=opt.compare)
                made.append(r['tree'])
                other.append(r)
        show('one-file candidate rebuild', runs)
        if opt.compare:
            show(f'the same, {os.path.basename(opt.compare)}', other)
        print(f'load average at the end: {os.getloadavg()[0]:.2f}')
    finally:
        for t in made:
            shutil.rmtree(t, ignore_errors=True)
            try:
                os.remove(t + '.lock')
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
