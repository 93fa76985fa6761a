#!/usr/bin/env python3
"""Generated runs on candidates with planted bugs (issue 14): phpcmp against
the hand method, side by side in one run.

Builds: the from-source 8.2.32 (builds/src-8.2.32, `make src-builds`) as the
base, and as the head the same build (identical) or one built with a fixture
patch of tests/fixtures/patches/ (one planted bug each).

phpcmp: a daemon on a free port with a fresh database, POST /api/runs
{"suite":"generated","seeds":[1,2,3],"count":200000}, timed from the POST to
the run's end (every mismatch counted and listed, a sample per signature
stored in full, every result hash in SQLite).

The hand method: bench/lean.php (the lean script a reviewer writes) run with
each build's own bin/php, both builds at once, seed after seed, then diff;
its "mismatches" are diff's differing line pairs.  A build that crashes
kills its script at the first crash: the hand method then "finishes" early
with what it printed so far.

Rounds are interleaved (each round: every candidate, phpcmp then the hand
method) and medians compared; the load average is printed per round.

    python3 bench/candidates.py [--count 200000] [--seeds 1,2,3] [--repeat 3] [--no-hand]
        [--candidates identical,escape-del,keys-fastpath-wrong,error-not-set,crash-byte,crash-control]

After the table, each candidate's stretch against the clean run (the first
candidate): its median wall, the ratio, and the ms a crash (or us a
mismatch) it added -- issue 25's figures:

    python3 bench/candidates.py --candidates identical,crash-byte,escape-del
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import children_cpu, free_port, proc_cpu, rss_kb, run_to_end, wait_health  # noqa: E402
from generated import ROOT  # noqa: E402

BASE = "src-8.2.32"


def prefix(name):
    # builds/, or a folder of PHPCMP_SRC_BUILDS (scripts/build-php.sh --builds DIR)
    dirs = [os.path.join(ROOT, "builds")] + [d for d in os.environ.get("PHPCMP_SRC_BUILDS", "").split(":") if d]
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.exists(os.path.join(p, "lib/libphp.so")):
            return p
    sys.exit(f"bench: {name} is in none of {', '.join(dirs)}: make src-builds")


def head_of(cand):
    return prefix(BASE if cand == "identical" else f"{BASE}-{cand}")


def phpcmp(bindir, cand, seeds, count, tmp):
    port = free_port()
    db = os.path.join(tmp, f"{cand}-{port}.db")
    log = open(os.path.join(tmp, f"daemon-{cand}.log"), "w")
    args = [os.path.join(bindir, "phpcmp"), "serve", "--port", str(port), "--db", db,
            "--state", os.path.join(bindir, "bench-state"), "--worker", os.path.join(bindir, "phpcmp-worker"),
            "--build", "base=" + prefix(BASE), "--build", "head=" + head_of(cand),
            "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
    daemon = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        wait_health(port, daemon, 180, log.name)
        cpu0 = proc_cpu(daemon.pid)
        t0 = time.monotonic()
        # Polled every 20 ms or 1 % of the time so far: the end is seen within 1 %.
        run = run_to_end(port, {"suite": "generated", "seeds": seeds, "count": count}, poll_frac=0.01)
        wall = time.monotonic() - t0
        cpu = proc_cpu(daemon.pid) - cpu0
        peak = rss_kb(daemon.pid, "VmHWM")
        if run["status"] != "done":
            sys.exit(f"bench: {cand}: the run ended {run['status']}: {run['error']}")
    finally:
        daemon.terminate()
        daemon.wait()
        log.close()
    s = run["summary"]
    return {"wall": wall, "cpu": cpu, "mismatches": run["counts"]["differ"], "done": run["done"],
            "crashes": s["builds"]["head"]["statuses"]["crash"], "peak_kb": peak,
            "details_s": s["daemon"]["mismatch_details_s"], "stored_in_full": s.get("stored_in_full"),
            "summary": s, "crash_ms": s["builds"]["head"].get("crash_ms")}


def hand(cand, seeds, count, tmp):
    php = {"base": os.path.join(prefix(BASE), "bin/php"), "head": os.path.join(head_of(cand), "bin/php")}
    cpu0 = children_cpu()
    t0 = time.monotonic()
    died = False
    for seed in seeds:
        procs = []
        for build in ("base", "head"):
            out = open(os.path.join(tmp, f"{build}-{seed}.txt"), "w")
            p = subprocess.Popen([php[build], "-n", os.path.join(ROOT, "bench/lean.php"), str(seed), str(count)],
                                 stdout=out, stderr=subprocess.DEVNULL)
            procs.append((p, out))
        for p, out in procs:
            p.wait()
            out.close()
            died = died or p.returncode != 0
    lines = 0
    for seed in seeds:
        d = subprocess.run(["diff", os.path.join(tmp, f"base-{seed}.txt"), os.path.join(tmp, f"head-{seed}.txt")],
                           stdout=subprocess.PIPE)
        lines += sum(1 for x in d.stdout.split(b"\n") if x.startswith(b"<"))
    return {"wall": time.monotonic() - t0, "lines": lines, "died": died, "cpu": children_cpu() - cpu0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--candidates",
                    default="identical,escape-del,keys-fastpath-wrong,error-not-set,crash-byte,crash-control")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    ap.add_argument("--no-hand", action="store_true", help="phpcmp only, not the hand method")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    cands = args.candidates.split(",")
    tmp = tempfile.mkdtemp(prefix="phpcmp-cands-")
    ours = {c: [] for c in cands}
    theirs = {c: [] for c in cands}
    loads = []
    try:
        print(f"{args.count * len(seeds)} cases ({len(seeds)} seeds x {args.count}); base {BASE}; "
              f"{os.cpu_count()} CPUs; {args.repeat} rounds, interleaved")
        for r in range(args.repeat):
            for c in cands:
                loads.append(os.getloadavg()[0])
                ours[c].append(phpcmp(args.bin, c, seeds, args.count, tmp))
                theirs[c].append({"wall": float("nan"), "lines": 0, "died": False, "cpu": float("nan")}
                                 if args.no_hand else hand(c, seeds, args.count, tmp))
                print(f"  round {r + 1} {c}: phpcmp {ours[c][-1]['wall']:.2f} s "
                      f"({ours[c][-1]['mismatches']} mismatches), hand {theirs[c][-1]['wall']:.2f} s "
                      f"(load {loads[-1]:.1f})", flush=True)
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        clean = med(ours[cands[0]], "wall")
        print()
        print("| candidate | mismatches (phpcmp) | crashes | hand method's diff lines | phpcmp wall | "
              "hand method wall (both builds at once + diff) | phpcmp / hand | phpcmp / clean run | daemon peak RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in cands:
            o, t = ours[c], theirs[c]
            wall, hw = med(o, "wall"), med(t, "wall")
            died = " (died at the first crash)" if any(x["died"] for x in t) else ""
            print(f"| {c} | {o[0]['mismatches']:,} | {o[0]['crashes']:,} | {t[0]['lines']:,}{died} | "
                  f"{wall:.2f} s | {hw:.2f} s | {wall / hw:.2f} | {wall / clean:.2f} | "
                  f"{max(x['peak_kb'] for x in o) // 1024} MB |")
        # The verdict's stretch (issue 25): each candidate against the clean run, per
        # crash and per mismatch, from the medians (the first candidate is the clean run).
        print(f"\nstretch against the clean run ({cands[0]}, {clean:.2f} s, median wall):")
        for c in cands[1:]:
            o = ours[c]
            wall, crashes, mis = med(o, "wall"), o[0]["crashes"], o[0]["mismatches"]
            per = (f", {1000 * (wall - clean) / crashes:.2f} ms a crash" if crashes else
                   f", {1e6 * (wall - clean) / mis:.1f} us a mismatch" if mis else "")
            rounds = ", ".join(f"{x['wall']:.2f}" for x in o)
            print(f"  {c}: {wall:.2f} s, {wall / clean:.2f}x ({crashes:,} crashes, {mis:,} mismatches{per}; "
                  f"rounds {rounds} s)")
        # Where the clean run's time went, in its median round (the summary's own breakdown).
        o = sorted(ours[cands[0]], key=lambda x: x["wall"])[len(ours[cands[0]]) // 2]
        s = o["summary"]
        print(f"\n{cands[0]}, median round: {o['wall']:.2f} s wall, {o['cpu']:.2f} s CPU (daemon + workers)")
        # CPU seconds hardly depend on the other jobs on a shared machine; wall times do.
        pc, hc = med(ours[cands[0]], "cpu"), med(theirs[cands[0]], "cpu")
        print(f"  CPU, medians: phpcmp {pc:.2f} s, hand method {hc:.2f} s (both PHP processes + diff): {pc / hc:.2f}")
        for role in ("base", "head"):
            b = s["builds"][role]
            print(f"  {role} worker: busy {b['busy_s']:.2f} s; " + ", ".join(f"{k} {v:.2f} s" for k, v in b["time_s"].items()))
        d = s["daemon"]
        print(f"  daemon: compare {d['compare_s']:.2f} s, mismatch details {d['mismatch_details_s']:.2f} s, "
              f"database {d['database_s']:.2f} s")
        for c in cands:
            timed = [x["crash_ms"] for x in ours[c] if x["crash_ms"]]
            if timed:
                print(f"{c}: a crash, mean ms (median of rounds): " + ", ".join(
                    f"{k} {statistics.median(t[k] for t in timed):.2f}" for k in
                    ("died_to_noticed", "noticed_to_resent", "died_to_child_ready", "died_to_resumed")))
        print(f"(medians of {args.repeat} interleaved rounds; load average {min(loads):.1f}-{max(loads):.1f} "
              f"from other jobs during the rounds; every run finished all {ours[cands[0]][0]['done']:,} cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
