#!/usr/bin/env python3
"""`phpcmp bisect` over a synthetic 64-commit php-src history (issue 45,
part 3), and the build of a commit next to one already built.

    python3 bench/bisect.py [--commits 64] [--bug 41] [--bin build/phpcmp] [--state state]

The history, in a temporary repository: php-src 8.2.32 (Debian's pristine
tarball, committed whole: its tree is the default source's, so the good
build is the cached release build `make php-builds` made), then --commits
commits that each add one comment line to ext/json/json_encoder.c, the
--bug-th also applying tests/fixtures/patches/escape-del.patch (the planted
bug: json_encode("\\x7F") gives "\\u007f").  Each run's comment lines carry
a fresh nonce, so no commit's build is cached from an earlier run.

1. bisect: `phpcmp bisect --src REPO --good C0 --bad HEAD --code '"\\x7F"'`,
   wall time, the builds it made, and the time of each step (from its own
   progress lines);
2. adjacent: scripts/build-commit.sh for a commit not built yet (the first),
   then for its child (the adjacent commit), each timed.

Prints the figures.  Minutes: 8 builds over the 8.2.32 tree, a worker core
compiled for each new library.
"""
import argparse, math, os, re, shutil, subprocess, sys, tempfile, time, uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("PHPCMP_PHP_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "phpcmp/php")
TARBALL = os.path.join(CACHE, "dist/php8.2_8.2.32.orig.tar.xz")
ENV = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.org",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.org")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, env=ENV, capture_output=True,
                          text=True).stdout.strip()


def history(repo, n, bug, nonce):
    """The repository: 8.2.32, then n commits; their ids, oldest first."""
    subprocess.run(["tar", "-xf", TARBALL, "-C", repo, "--strip-components=1"], check=True)
    git(repo, "init", "-q", "-b", "master")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "php 8.2.32")
    ids = [git(repo, "rev-parse", "HEAD")]
    enc = os.path.join(repo, "ext/json/json_encoder.c")
    for i in range(1, n + 1):
        with open(enc, "a") as f:
            f.write(f"/* phpcmp bench {nonce}: commit {i} */\n")
        subject = f"json: commit {i}"
        if i == bug:
            subprocess.run(["patch", "-p1", "-s", "--batch", "-d", repo, "-i",
                            os.path.join(ROOT, "tests/fixtures/patches/escape-del.patch")], check=True)
            subject = f"json: commit {i}, DEL escaped"
        git(repo, "commit", "-q", "-a", "-m", subject)
        ids.append(git(repo, "rev-parse", "HEAD"))
    return ids


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=64)
    ap.add_argument("--bug", type=int, default=41)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/phpcmp"))
    ap.add_argument("--state", default=os.path.join(ROOT, "state"))
    a = ap.parse_args()
    if not os.path.exists(TARBALL):
        sys.exit(f"{TARBALL}: missing (make php-builds fetches it)")
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-bisect-")
    try:
        repo = os.path.join(tmp, "php-src")
        os.mkdir(repo)
        t = time.time()
        ids = history(repo, a.commits, a.bug, uuid.uuid4().hex[:12])
        print(f"history: {a.commits} commits over 8.2.32, the bug in commit {a.bug} ({ids[a.bug][:12]}): "
              f"{time.time() - t:.1f} s to make")

        t = time.time()
        r = subprocess.run([a.bin, "bisect", "--src", repo, "--good", ids[0], "--bad", "HEAD",
                            "--state", a.state, "--code", '"\\x7F"'], capture_output=True, text=True)
        wall = time.time() - t
        with open(os.path.join(tmp, "bisect.log"), "w") as f:
            f.write(r.stderr)
        if r.returncode != 0:
            print(r.stdout, r.stderr[-4000:], sep="\n")
            sys.exit(f"bisect exited {r.returncode}")
        first = re.search(r"^first bad commit: (\S+)", r.stdout, re.M).group(1)
        builds = int(re.search(r"^builds: (\d+)", r.stdout, re.M).group(1))
        print(f"bisect: {wall:.1f} s wall, {builds} builds for {a.commits} commits "
              f"(at most ceil(log2 {a.commits}) + 2 = {math.ceil(math.log2(a.commits)) + 2}), "
              f"first bad commit {first[:12]} ({'right' if first == ids[a.bug] else 'WRONG'})")
        # each build's time, from "NAME built in S s"
        steps = re.findall(r"\] (\S+) built in ([\d.]+) s", r.stderr)
        print("  builds: " + ", ".join(f"{n} {s} s" for n, s in steps))
        ready = re.search(r"\[\s*([\d.]+) s\] daemon ready", r.stderr)
        if ready:
            print(f"  daemon ready at {float(ready.group(1)):.1f} s (good and bad built, their cores compiled)")

        # adjacent: a commit not built yet, then its child
        builds_dir = os.path.join(tmp, "builds")
        k = 3 if a.bug != 3 and a.bug != 4 else 10
        for label, c in (("first", ids[k]), ("adjacent", ids[k + 1])):
            t = time.time()
            b = subprocess.run(["bash", os.path.join(ROOT, "scripts/build-commit.sh"), "--src", repo,
                                "--base", ids[0], "--commit", c, "--name", f"c{label}", "--builds",
                                builds_dir], capture_output=True, text=True)
            took = time.time() - t
            mode = re.search(r"\((cached|reused|full), [\d.]+ s\)", b.stdout + b.stderr)
            print(f"{label} commit's build ({c[:12]}): {took:.1f} s wall, "
                  f"{mode.group(1) if mode else 'exit %d' % b.returncode}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
