#!/usr/bin/env python3
"""Where a worker's time goes on a clean generated run (issue 14), in
instructions: a daemon whose workers run under callgrind (a wrapper given
as --worker, --sandbox none so valgrind may run), a generated run of
--count cases on the from-source base and a correct candidate, then the
inclusive instruction counts of the batch path's phases per case.

Instruction counts do not depend on what else the machine runs (6
engineers share 2 cores here), so before/after comparisons of the worker's
own code are exact where wall times are not.

    python3 bench/workerprofile.py [--count 16384] [--seed 1] [--head src-8.2.32-keys-fastpath]
"""
import argparse, glob, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from benchlib import free_port, run_to_end, wait_health  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# phase: the functions (inclusive, outermost frame) it is the sum of.
PHASES = [
    ("generate (gen_case_make)", ["gen_case_make"]),
    ("plan hash (gen_case_hash)", ["gen_case_hash"]),
    ("coverage (gen_count)", ["gen_count"]),
    ("build zvals (gencore_build)", ["gencore_build"]),
    ("json_encode (core_encode)", ["core_encode"]),
    ("json_last_error_msg", ["core_last_error_msg"]),
    ("result hash", ["gencore_result_hash"]),
    ("digest pack", ["gen_digest_pack"]),
    ("declare classes (per batch)", ["gencore_declare"]),
]


def inclusive(path):
    """function name (suffixes such as .constprop.0 dropped) -> inclusive Ir of its outermost frame."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         stdout=subprocess.PIPE, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?\S*?:([A-Za-z_][\w]*)(\.[\w.]+)?('\d+)?\s", line)
        if not m or m.group(4):  # a recursive frame ('2) is inside the outer one
            continue
        n = int(m.group(1).replace(",", ""))
        funcs[m.group(2)] = max(funcs.get(m.group(2), 0), n)
    return funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=16384)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--head", default="src-8.2.32-keys-fastpath")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="phpcmp-wprof-")
    try:
        wrapper = os.path.join(tmp, "worker")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec valgrind -q --vgdb=no --tool=callgrind "
                    f"--callgrind-out-file={tmp}/cg.%p {os.path.join(args.bin, 'phpcmp-worker')} \"$@\"\n")
        os.chmod(wrapper, 0o755)
        port = free_port()
        log = open(os.path.join(tmp, "daemon.log"), "w")
        daemon = subprocess.Popen(
            [os.path.join(args.bin, "phpcmp"), "serve", "--port", str(port), "--db", os.path.join(tmp, "p.db"),
             "--state", os.path.join(args.bin, "bench-state"), "--worker", wrapper, "--sandbox", "none",
             "--build", "base=" + os.path.join(ROOT, "builds/src-8.2.32"),
             "--build", "head=" + os.path.join(ROOT, "builds", args.head),
             "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")],
            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            wait_health(port, daemon, 600, log.name)
            run = run_to_end(port, {"suite": "generated", "seed": args.seed, "count": args.count})
        finally:
            daemon.terminate()
            daemon.wait()
            log.close()
        if run["status"] != "done":
            sys.exit(f"bench: the run ended {run['status']}: {run.get('error')}")
        print(f"{args.count} cases, seed {args.seed}, base src-8.2.32 vs {args.head}: "
              f"{run['counts']['differ']} mismatches, corpus hash {run['summary']['corpus_hash']}")
        # One profile per worker (the fork server's child); each named by its core (cores/ROLE-HASH.so).
        cols = []
        for path in sorted(glob.glob(os.path.join(tmp, "cg.*"))):
            f = inclusive(path)
            if f.get("gencore_batch", 0) == 0:
                continue
            with open(path, errors="replace") as fh:
                m = re.search(r"/cores/([A-Za-z0-9_]+)-[0-9a-f]+\.so", fh.read())
            cols.append((m.group(1) if m else os.path.basename(path), f))
        cols.sort()
        n = args.count
        print("| phase | " + " | ".join(f"{name}: instructions per case | share" for name, _ in cols) + " |")
        print("|---|" + "---:|---:|" * len(cols))
        rows = []
        for name, fns in PHASES:
            rows.append((name, [sum(f.get(x, 0) for x in fns) for _, f in cols]))
        free = [f.get("gencore_encode", 0) - f.get("gencore_build", 0) - f.get("core_encode", 0)
                - f.get("core_last_error_msg", 0) for _, f in cols]
        rows.append(("freeing the value, resetting json globals (gencore_encode's own)", free))
        totals = [f.get("gencore_batch", 0) for _, f in cols]
        rest = [t - sum(r[1][i] for r in rows) for i, t in enumerate(totals)]
        rows.append(("the rest (the loop, progress page, outcome release)", rest))
        for name, vals in rows:
            print(f"| {name} | " + " | ".join(f"{v / n:,.0f} | {100 * v / t:.1f} %" for v, t in zip(vals, totals)) + " |")
        print("| **batch total (gencore_batch)** | " + " | ".join(f"**{t / n:,.0f}** | 100 %" for t in totals) + " |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
