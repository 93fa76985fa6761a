#!/usr/bin/env python3
"""Benchmark of generated runs (issue 3): the hand-made method against
phpcmp, side by side in one run, on the same number of cases.

The hand-made method (PRODUCT.md): bench/handmade.php builds a corpus of
generated json_encode() cases and prints `id flags json_last_error
md5(output)` per case; it is run once per build and per seed, then the two
builds' files are compared with diff.  Debian ships one PHP CLI (8.2.36),
so "once per build" is that CLI twice: the work is the same, the files
come out equal.  It is timed two ways: one run after the other (what a
reviewer does by hand) and both builds' runs at once (the two cores phpcmp
uses too).

phpcmp: a daemon started here on a free port with a fresh database runs
POST /api/runs {"suite":"generated","seeds":[...],"count":N}; timed from the
POST to the run's end, every case's result hash and the run's summary in
SQLite.

The three are run --repeat times (default 3), interleaved, and their median
wall times compared: on a shared machine another job can slow one method
down for a few seconds.  CPU seconds (user + system, of the PHP processes;
of the daemon and its workers) are shown beside, as they hardly depend on
what else runs.

    python3 bench/generated.py [--count 200000] [--seeds 1,2,3] [--repeat 3] [--php php8.2] [--bin build]
"""
import argparse, http.client, json, os, resource, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import children_cpu, free_port, proc_cpu, run_to_end, rss_kb, wait_health  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def handmade(php, seeds, count, tmp, parallel):
    """Both builds' files for every seed, then diff; wall seconds, PHP's part, diff lines, CPU seconds."""
    cpu0 = children_cpu()
    t0 = time.monotonic()
    for seed in seeds:
        procs = []
        for build in ("base", "head"):
            out = open(os.path.join(tmp, f"{build}-{seed}.txt"), "w")
            p = subprocess.Popen([php, os.path.join(ROOT, "bench/handmade.php"), str(seed), str(count)],
                                 stdout=out, stderr=subprocess.DEVNULL)
            procs.append((p, out))
            if not parallel:
                p.wait()
        for p, out in procs:
            p.wait()
            out.close()
            if p.returncode != 0:
                sys.exit(f"bench: {php} bench/handmade.php exited {p.returncode}")
    t_gen = time.monotonic() - t0
    diff_lines = 0
    for seed in seeds:
        d = subprocess.run(["diff", os.path.join(tmp, f"base-{seed}.txt"), os.path.join(tmp, f"head-{seed}.txt")],
                           stdout=subprocess.PIPE)
        diff_lines += d.stdout.count(b"\n")
    return time.monotonic() - t0, t_gen, diff_lines, children_cpu() - cpu0


def phpcmp(bindir, seeds, count, tmp, port):
    db = os.path.join(tmp, f"bench-{port}.db")   # a fresh database each round
    log = open(os.path.join(tmp, "daemon.log"), "w")
    args = [os.path.join(bindir, "phpcmp"), "serve", "--port", str(port), "--db", db,
            "--state", os.path.join(bindir, "bench-state"), "--worker", os.path.join(bindir, "phpcmp-worker"),
            "--build", "base=" + os.path.join(ROOT, "builds/base"), "--build", "head=" + os.path.join(ROOT, "builds/head"),
            "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
    t_start = time.monotonic()
    daemon = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        wait_health(port, daemon, 120, log.name)
        startup = time.monotonic() - t_start
        rss_before = rss_kb(daemon.pid, "VmRSS")
        cpu0 = proc_cpu(daemon.pid)
        t0 = time.monotonic()
        run = run_to_end(port, {"suite": "generated", "seeds": seeds, "count": count})
        wall = time.monotonic() - t0
        cpu = proc_cpu(daemon.pid) - cpu0
        peak = rss_kb(daemon.pid, "VmHWM")
        if run["status"] != "done":
            sys.exit(f"bench: the run ended {run['status']}: {run['error']}")
    finally:
        daemon.terminate()
        daemon.wait()
        log.close()
    import sqlite3
    con = sqlite3.connect(db)
    rows, hashed = con.execute("SELECT count(*), coalesce(sum(count), 0) FROM generated_batches").fetchone()
    con.close()
    return wall, startup, run, peak, rss_before, rows, hashed, os.path.getsize(db), cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200000, help="cases per seed")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each method, interleaved; medians compared")
    ap.add_argument("--php", default="php8.2", help="PHP CLI for the hand-made method")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"), help="folder of phpcmp and phpcmp-worker")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    total = args.count * len(seeds)
    if shutil.which(args.php) is None:
        sys.exit(f"bench: {args.php} not found (Debian: apt-get install php8.2-cli)")
    if not os.access(os.path.join(args.bin, "phpcmp"), os.X_OK):
        sys.exit(f"bench: {args.bin}/phpcmp is not built (make)")
    version = subprocess.run([args.php, "-r", "echo PHP_VERSION;"], stdout=subprocess.PIPE, text=True).stdout
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-")
    try:
        print(f"{total} cases ({len(seeds)} seeds x {args.count}) on both builds; "
              f"{os.cpu_count()} CPUs; hand-made with {args.php} {version} (one CLI, run once per build); "
              f"{args.repeat} rounds, interleaved")
        seq, par, ours = [], [], []
        for r in range(args.repeat):
            load = os.getloadavg()[0]
            seq.append(handmade(args.php, seeds, args.count, tmp, parallel=False))
            par.append(handmade(args.php, seeds, args.count, tmp, parallel=True))
            ours.append(phpcmp(args.bin, seeds, args.count, tmp, free_port()))
            print(f"  round {r + 1} (load average {load:.2f} before it): hand-made {seq[-1][0]:.2f} s one after the other, "
                  f"{par[-1][0]:.2f} s both at once; phpcmp {ours[-1][0]:.2f} s")
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        hm_seq, hm_par, wall = med(seq, 0), med(par, 0), med(ours, 0)
        cpu_seq, cpu_par, cpu_ours = med(seq, 3), med(par, 3), med(ours, 8)
        # The details of the phpcmp round whose wall time is the median.
        _, startup, run, peak, rss_before, rows, hashed, dbsize, _ = sorted(ours, key=lambda x: x[0])[len(ours) // 2]
        s = run["summary"]
        print()
        print("| method (medians) | wall time | CPU time | phpcmp wall / method wall |")
        print("|---|---|---|---|")
        print(f"| hand-made, builds one after the other (+ diff {med(seq, 0) - med(seq, 1):.2f} s) | {hm_seq:.2f} s | {cpu_seq:.2f} s | {wall / hm_seq:.3f} |")
        print(f"| hand-made, both builds at once (+ diff) | {hm_par:.2f} s | {cpu_par:.2f} s | {wall / hm_par:.3f} |")
        print(f"| phpcmp (`POST /api/runs` generated, to done) | {wall:.2f} s | {cpu_ours:.2f} s | 1 |")
        print(f"(diff found {seq[0][2]} differing lines; the daemon's startup, before the run: {startup:.2f} s)")
        print()
        print(f"phpcmp: {run['done']} cases, {run['counts']['differ']} mismatches, "
              f"{s['rate']:.0f} cases/s per build pair; corpus hash {s['corpus_hash']} "
              f"(every round: {sorted(set(x[2]['summary']['corpus_hash'] for x in ours))})")
        for role in ("base", "head"):
            b = s["builds"][role]
            t = b["time_s"]
            print(f"  {role} ({run['builds'][role]}): {b['cases_per_s']:.0f} cases/s while busy; time in the worker: "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in t.items()))
        d = s["daemon"]
        print(f"  daemon: compare {d['compare_s']:.2f} s, mismatch details {d['mismatch_details_s']:.2f} s, "
              f"database {d['database_s']:.2f} s; resident memory {rss_before} KiB before the run, "
              f"peak {peak} KiB (VmHWM)")
        print(f"  SQLite: {rows} generated_batches rows holding {hashed} result hashes; database {dbsize // 1024} KiB")
        print(f"  coverage: every piece class reached: "
              f"{all(v > 0 for v in s['coverage']['piece'].values())}; error codes (base): "
              + ", ".join(f"{k} {v}" for k, v in s["builds"]["base"]["error_codes"].items()))
        goal = wall <= hm_seq / 3
        print(f"goal (phpcmp <= 1/3 of the hand-made wall time): {'met' if goal else 'NOT met'} "
              f"({wall / hm_seq:.3f} one after the other, {wall / hm_par:.3f} both at once)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
