#!/usr/bin/env python3
"""What the memory-error oracle costs (issue 15, docs/sandbox.md): cases/s
of the same generated run and of the stored suite on the release build of
libphp 8.2.32 and on its asan flavour (AddressSanitizer + UBSan,
USE_ZEND_ALLOC=0, the runtimes preloaded into the workers).

Each flavour gets a daemon of its own, the build as base and as head (one
worker per role, both working: what a comparison with an asan candidate
costs per build).  The daemons are started once; each round runs the
generated run (--count cases, --seed) and the stored suite, release and asan
interleaved, and the median of --rounds rounds is shown with the ratio.

    python3 bench/asan.py [--count 20000] [--seed 15] [--rounds 3] [--bin build]
                          [--release builds/src-8.2.32] [--asan builds/src-8.2.32-asan]
                          [--errors builds/src-8.2.32-asan-overread]
                          [--crashes builds/src-8.2.32-asan-crash-byte]

With --errors (the default: the over-read fixture's asan build, a recovered
report on ~44 % of cases) and --crashes (the crash-byte fixture's: a UBSan
error that ends the child on ~1.5 %), more daemons run the generated run
with the pristine asan build as base and that one as head: cases/s with
memory errors (issue 48), beside the asan build's without.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, run_to_end, wait_health  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(bindir, prefix, tmp, name, head=None):
    port = free_port()
    log = open(os.path.join(tmp, f"daemon-{name}.log"), "w")
    args = [os.path.join(bindir, "phpcmp"), "serve", "--port", str(port), "--db", os.path.join(tmp, f"{name}.db"),
            "--state", os.path.join(tmp, f"state-{name}"), "--worker", os.path.join(bindir, "phpcmp-worker"),
            "--build", "base=" + prefix, "--build", "head=" + (head or prefix), "--reduce-max-executions", "0",
            "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
    t0 = time.monotonic()
    daemon = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    wait_health(port, daemon, 300, log.name)
    return daemon, port, time.monotonic() - t0


def timed(daemon, port, body, errors=False):
    t0 = time.monotonic()
    run = run_to_end(port, body, poll_s=0.05)
    wall = time.monotonic() - t0
    if run["status"] != "done":
        sys.exit(f"bench: run {body} ended {run['status']}: {str(run)[:800]}")
    if run.get("counts", {}).get("differ") and not errors:
        sys.exit(f"bench: {run['counts']['differ']} mismatches of a build with itself: {str(run)[:800]}")
    if errors:
        return run["done"], wall, run["summary"]["builds"]["head"]["statuses"]["memory-error"]
    return run["total"] if "total" in run else run["done"], wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    ap.add_argument("--release", default=os.path.join(ROOT, "builds/src-8.2.32"))
    ap.add_argument("--asan", default=os.path.join(ROOT, "builds/src-8.2.32-asan"))
    ap.add_argument("--errors", default=os.path.join(ROOT, "builds/src-8.2.32-asan-overread"),
                    help="an asan build with memory errors, run as head against --asan ('' : none)")
    ap.add_argument("--crashes", default=os.path.join(ROOT, "builds/src-8.2.32-asan-crash-byte"),
                    help="an asan build UBSan stops on some cases (crash-byte.patch), the same way ('' : none)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-asan-")
    daemons = {}
    try:
        for name, prefix in (("release", a.release), ("asan", a.asan)):
            daemons[name] = start(a.bin, os.path.abspath(prefix), tmp, name)
        heads = {"asan+errors": a.errors, "asan+crashes": a.crashes}
        for name, head in heads.items():
            if head:
                daemons[name] = start(a.bin, os.path.abspath(a.asan), tmp, name, os.path.abspath(head))
        res = {(n, s): [] for n in daemons for s in ("generated", "stored") if n not in heads or s == "generated"}
        for _ in range(a.rounds):
            for name, (daemon, port, _) in daemons.items():
                res[(name, "generated")].append(timed(daemon, port, {"suite": "generated", "seed": a.seed,
                                                                      "count": a.count}, name in heads))
                if name not in heads:
                    res[(name, "stored")].append(timed(daemon, port, {"suite": "stored"}))
        print(f"{'':12} {'startup s':>10} {'suite':>10} {'cases':>7} {'median s':>9} {'cases/s':>9}")
        rate = {}
        for (name, suite), rows in res.items():
            n = rows[0][0]
            wall = statistics.median(r[1] for r in rows)
            rate[(name, suite)] = n / wall
            errs = f"  {rows[0][2]} cases with a memory error ({100 * rows[0][2] / n:.1f} %)" if len(rows[0]) > 2 else ""
            print(f"{name:12} {daemons[name][2]:10.1f} {suite:>10} {n:7} {wall:9.2f} {n / wall:9.0f}{errs}")
        for suite in ("generated", "stored"):
            print(f"asan slowdown, {suite}: {rate[('release', suite)] / rate[('asan', suite)]:.1f}x "
                  f"(median of {a.rounds} rounds)")
        for name in heads:
            if (name, "generated") in rate:
                print(f"{name} against asan, generated: "
                      f"{rate[('asan', 'generated')] / rate[(name, 'generated')]:.1f}x slower")
    finally:
        for daemon, _, _ in daemons.values():
            daemon.terminate()
            daemon.wait()


if __name__ == "__main__":
    main()
