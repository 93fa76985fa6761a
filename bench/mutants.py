#!/usr/bin/env python3
"""Mutation analysis of ext/json's encoder (issue 20): how many mutants a
generated run detects (the mutation score) and how well the reducer
explains each detected one (roots, lead-case size).

    python3 bench/mutants.py --sample N --seed S [--count 50000] [--seeds 1,2,3]
        [--ids ID,ID...] [--builds DIR] [--per-daemon 7] [--json] [--json-out FILE]

1. scripts/mutate.py draws N mutation sites of ext/json/json_encoder.c and
   json.c (the encoder's half) at random (random.Random(S) over the sorted
   site ids), from the source tree of the base build (builds/src-8.2.32's
   tree in the build cache), or takes --ids.
2. Each is built with scripts/build-php.sh --name mut-ID --patch FILE
   --builds DIR (default /tmp/phpcmp-mutants/builds, never builds/): a
   one-file candidate over the cached base tree, seconds each, cached after
   the first time.  A request that would be a full build is refused (the
   base tree is not the donor: a different build-php.sh recipe).  A build
   that fails (make) is a compile failure, dropped.
3. Up to --per-daemon (7) mutants at a time: a daemon on a free port with a
   fresh database, base = builds/src-8.2.32, the mutants as candidates (8
   builds), the reducer on with its defaults; POST /api/runs
   {"suite":"generated","seeds":[...],"count":N} to its end, then the
   reducer to its end (GET /api/roots?run=ID: nothing pending, the count of
   reductions still for two polls 1 s apart).
4. Per mutant: its mismatches (summary.builds.ROLE.mismatches), its roots
   (GET /api/roots?run=ID, each root's bucket's candidate from
   GET /api/buckets?run=ID) and its lead case (the minimal case of the root
   with the most mismatches: value_bytes of its value source, its flags).

Printed: mutants built / compile failures / equivalent on the corpus (0
mismatches) / detected (the mutation score: detected / built), roots per
detected mutant (median, p90, max), lead-case size (median, p90, max bytes;
flags), reduction seconds per run (the run summary's reduction.seconds and
the wall time from the run's end until the reducer settled), the
undetected mutants, and the worst-explained (most roots) ones, each with
its site (kind, file:line, before → after).  --json: one JSON object
instead.

Environment: PHPCMP_BUILD_PHP (the build script, default
scripts/build-php.sh), PHPCMP_PHP_CACHE (the build cache, as build-php.sh).
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, pct, request  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "src-8.2.32"
MUTATE = os.path.join(ROOT, "scripts/mutate.py")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def base_prefix():
    p = os.path.join(ROOT, "builds", BASE)
    if not os.path.exists(os.path.join(p, "lib/libphp.so")):
        sys.exit(f"bench: {p}/lib/libphp.so is missing: make src-builds")
    return os.path.realpath(p)


def base_src(prefix):
    """The base tree's source: trees/KEY/prefix -> trees/KEY/src."""
    src = os.path.join(os.path.dirname(prefix), "src")
    if not os.path.exists(os.path.join(src, "ext/json/json_encoder.c")):
        sys.exit(f"bench: {BASE} is not a build-php.sh tree with its source ({src})")
    return src


def mutate(args):
    r = subprocess.run([sys.executable, MUTATE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       encoding="latin-1")
    if r.returncode:
        sys.exit(f"bench: mutate.py {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def build_one(script, site_id, src, builds, work):
    """(status, seconds, detail): status built | compile_failure."""
    patch = os.path.join(work, f"{site_id}.patch")
    with open(patch, "w", encoding="latin-1") as f:
        f.write(mutate(["--source", src, "--patch", site_id]))
    name = f"mut-{site_id}"
    plan = subprocess.run([script, "--plan", "--name", name, "--patch", patch, "--builds", builds],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    plan_s = plan.stdout.strip()
    if not (plan_s.startswith("cached") or plan_s.startswith("reused")):
        sys.exit(f"bench: {name} would not be built over the base tree ({plan_s or plan.stderr.strip()}): "
                 f"is {script} the script that built {BASE}? (PHPCMP_BUILD_PHP)")
    t0 = time.monotonic()
    r = subprocess.run([script, "--name", name, "--patch", patch, "--builds", builds, "--jobs", "1"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    secs = time.monotonic() - t0
    if r.returncode:
        return "compile_failure", secs, r.stdout.strip().splitlines()[-1:]
    return "built", secs, plan_s.split()[0]


def daemon_round(bindir, base, cands, seeds, count, tmp, settle_limit_s, extra_args=(), state=None):
    """One daemon: base + cands [(site_id, prefix)], a generated run, the
    reducer settled.  {site_id: result} and the run's figures."""
    port = free_port()
    db = os.path.join(tmp, f"mutants-{port}.db")
    logf = open(os.path.join(tmp, f"daemon-{port}.log"), "w")
    args = [os.path.join(bindir, "phpcmp"), "serve", "--listen", "127.0.0.1", "--port", str(port), "--db", db,
            "--state", state or os.path.join(tmp, "state"), "--worker", os.path.join(bindir, "phpcmp-worker"),
            "--build", "base=" + base, "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
    for sid, prefix in cands:
        args += ["--build", f"{sid}={prefix}"]
    args += list(extra_args)
    daemon = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        # New builds compile their worker cores first.  A mutant whose worker
        # dies on the probe case (docs/sandbox.md) stops the daemon: it is
        # detected at start (no run, no roots), and the others go on without it.
        t_start = time.monotonic()
        while True:
            try:
                if request(port, "GET", "/api/health")[0] == 200:
                    break
            except OSError:
                pass
            if daemon.poll() is not None:
                logf.flush()
                with open(logf.name) as f:
                    dead = re.findall(r"build (\S+): the worker cannot start", f.read())
                if not dead or dead[0] not in dict(cands):
                    sys.exit("bench: the daemon did not start; see " + logf.name)
                logf.close()
                rest = [c for c in cands if c[0] != dead[0]]
                log(f"bench:   {dead[0]}: its worker cannot start (the probe case crashes): detected at start")
                out, fig = daemon_round(bindir, base, rest, seeds, count, tmp, settle_limit_s, extra_args, state) \
                    if rest else ({}, None)
                out[dead[0]] = {"mismatches": None, "start_crash": True, "crashes": None, "buckets": 0, "roots": 0,
                                "lead": None, "unreduced_roots": 0}
                return out, fig
            if time.monotonic() - t_start > 900:
                sys.exit("bench: the daemon did not start; see " + logf.name)
            time.sleep(0.1)
        t0 = time.monotonic()
        status, run = request(port, "POST", "/api/runs", {"suite": "generated", "seeds": seeds, "count": count})
        if status != 202:
            sys.exit(f"bench: POST /api/runs answered {status}: {run}")
        rid = run["id"]
        while True:
            _, run = request(port, "GET", f"/api/runs/{rid}")
            if run["status"] not in ("queued", "running"):
                break
            time.sleep(0.5)
        run_wall = time.monotonic() - t0
        if run["status"] != "done":
            sys.exit(f"bench: the run ended {run['status']}: {run.get('error')}")
        t1 = time.monotonic()
        last, still = -1, 0
        while True:
            _, roots = request(port, "GET", f"/api/roots?run={rid}", timeout=120)
            red = roots["reduction"]
            # Settled: every bucket's representative reduced (the roots are made
            # of those; sampled members reduced later only re-home), the count
            # of reductions read twice.
            still = still + 1 if red["buckets_pending"] == 0 and red["reductions"] == last else 0
            if still >= 1:
                break
            last = red["reductions"]
            if time.monotonic() - t1 > settle_limit_s:
                log(f"bench: the reducer did not settle in {settle_limit_s} s: {red}")
                break
            time.sleep(1)
        settle_wall = time.monotonic() - t1
        _, run = request(port, "GET", f"/api/runs/{rid}")
        # Each bucket's candidate.
        cand_of = {}
        url = f"/api/buckets?run={rid}&limit=500"
        while url:
            _, page = request(port, "GET", url, timeout=120)
            for b in page["buckets"]:
                cand_of[b["id"]] = b.get("candidate")
            url = page.get("next")
    finally:
        daemon.terminate()
        daemon.wait()
        logf.close()
    s = run["summary"]
    role_of = {b["build"]: role for role, b in s["builds"].items()}
    out = {}
    for sid, _ in cands:
        mine = [r for r in roots["roots"] if cand_of.get(r["bucket_id"]) in (sid, role_of.get(sid))]
        # Mismatches the reducer could not reduce, apart from the roots (issue 47).
        left = [r for r in roots.get("unreduced", []) if cand_of.get(r["bucket_id"]) in (sid, role_of.get(sid))]
        lead = max(mine, key=lambda r: r["mismatches"], default=None)
        m = lead["minimal"] if lead else None
        b = s["builds"][role_of[sid]]
        out[sid] = {"mismatches": b.get("mismatches", 0), "crashes": b.get("failures", 0),
                    "buckets": sum(r["buckets"] for r in mine + left), "roots": len(mine),
                    "unreduced": [{"why": r.get("why"), "value_bytes": (r["minimal"] or {}).get("value_bytes"),
                                   "mismatches": r["mismatches"]} for r in left],
                    "lead": None if m is None else {"code": m.get("code"), "setup": m.get("setup"),
                                                    "flags": m.get("flags", []), "value_bytes": m.get("value_bytes"),
                                                    "complete": m.get("complete"),
                                                    "confirmation": m.get("confirmation")},
                    "unreduced_roots": sum(1 for r in mine if not r["minimal"]),
                    # Every root's minimal case, largest first: what a reviewer reads
                    # for a mutant with several roots (the next normal-form step).
                    "root_cases": [{"buckets": r["buckets"], "mismatches": r["mismatches"],
                                    "code": (r["minimal"] or {}).get("code"),
                                    "flags": (r["minimal"] or {}).get("flags", [])}
                                   for r in sorted(mine, key=lambda r: -r["mismatches"])]}
    red = s.get("reduction") or roots["reduction"]
    figures = {"run_id": rid, "cases": s.get("done"), "mismatches": s.get("mismatches"), "run_wall_s": run_wall,
               "settle_wall_s": settle_wall, "reduction": red, "candidates": [c for c, _ in cands]}
    return out, figures


def fmt_site(site):
    b, a = " ".join(site["before"].split()), " ".join(site["after"].split())
    if len(b) > 48:
        b, a = b[:45] + "...", a[:45] + "..."
    return f"{site['kind']} {os.path.basename(site['file'])}:{site['line']} `{b}` → `{a}`"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ids", help="these site ids instead of a sample (comma-separated)")
    ap.add_argument("--count", type=int, default=50000, help="cases per seed")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--builds", default="/tmp/phpcmp-mutants/builds")
    ap.add_argument("--per-daemon", type=int, default=7, help="candidates per daemon (1..7)")
    ap.add_argument("--settle-limit", type=int, default=1800, help="seconds to wait for the reducer per run")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    ap.add_argument("--daemon-arg", action="append", default=[], metavar="ARG",
                    help="one more argument to every daemon (repeat: --daemon-arg=--reduce-budget-ms --daemon-arg=8000)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--json-out", metavar="FILE", help="also write the --json object to FILE")
    args = ap.parse_args()
    if not 1 <= args.per_daemon <= 7:
        ap.error("--per-daemon: 1 .. 7")
    seeds = [int(x) for x in args.seeds.split(",")]
    script = os.environ.get("PHPCMP_BUILD_PHP") or os.path.join(ROOT, "scripts/build-php.sh")
    base = base_prefix()
    src = base_src(base)
    t_start = time.monotonic()
    sites = {s["id"]: s for s in json.loads(mutate(["--source", src, "--list", "--json"]))}
    if args.ids:
        ids = args.ids.split(",")
        bad = [i for i in ids if i not in sites]
        if bad:
            sys.exit(f"bench: no site {bad[0]}")
    else:
        ids = [s["id"] for s in json.loads(mutate(["--source", src, "--sample", str(args.sample), "--seed",
                                                    str(args.seed), "--json"]))]
    os.makedirs(args.builds, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="phpcmp-mutants-")
    builds, failed, build_s = [], [], []
    for sid in ids:
        st, secs, detail = build_one(script, sid, src, args.builds, tmp)
        build_s.append(secs)
        log(f"bench: mut-{sid}: {st} ({detail}, {secs:.1f} s)")
        (builds if st == "built" else failed).append(sid)
    results, runs = {}, []
    for i in range(0, len(builds), args.per_daemon):
        group = builds[i:i + args.per_daemon]
        cands = [(sid, os.path.realpath(os.path.join(args.builds, f"mut-{sid}"))) for sid in group]
        log(f"bench: daemon {i // args.per_daemon + 1}: {', '.join(group)}")
        # The worker cores (one per build, compiled at the daemon's start) kept beside the builds.
        state = os.path.join(os.path.dirname(os.path.abspath(args.builds)), "state")
        res, fig = daemon_round(args.bin, base, cands, seeds, args.count, tmp, args.settle_limit,
                                extra_args=tuple(args.daemon_arg), state=state)
        results.update(res)
        if fig is None:
            continue
        runs.append(fig)
        log(f"bench:   run {fig['run_wall_s']:.1f} s, {fig['mismatches']} mismatches; reducer settled after "
            f"{fig['settle_wall_s']:.1f} s ({fig['reduction'].get('reductions')} reductions, "
            f"{fig['reduction'].get('seconds', 0):.1f} s)")
    start_crash = [s for s in builds if results[s].get("start_crash")]
    in_run = [s for s in builds if s not in start_crash]
    detected_run = [s for s in in_run if results[s]["mismatches"] > 0]
    detected = start_crash + detected_run
    equivalent = [s for s in in_run if results[s]["mismatches"] == 0]
    roots = [results[s]["roots"] for s in detected_run]
    leads = [results[s]["lead"] for s in detected_run if results[s]["lead"]]
    lead_bytes = [x["value_bytes"] for x in leads]
    lead_flags = [len(x["flags"]) for x in leads]
    summary = {
        "command": "python3 bench/mutants.py " + " ".join(sys.argv[1:]),
        "sample": None if args.ids else args.sample, "seed": None if args.ids else args.seed,
        "seeds": seeds, "count": args.count, "ids": ids,
        "mutants": len(ids), "built": len(builds), "compile_failures": len(failed), "equivalent": len(equivalent),
        "detected": len(detected), "start_crashes": len(start_crash), "score": len(detected) / len(builds) if builds else None,
        "roots": {"median": statistics.median(roots) if roots else None, "p90": pct(roots, 90) if roots else None,
                  "max": max(roots) if roots else None,
                  "le3": sum(1 for r in roots if r <= 3), "eq1": sum(1 for r in roots if r == 1)},
        "lead_bytes": {"median": statistics.median(lead_bytes) if leads else None,
                       "p90": pct(lead_bytes, 90) if leads else None, "max": max(lead_bytes) if leads else None,
                       "le40": sum(1 for b in lead_bytes if b <= 40)},
        "lead_flags": {"median": statistics.median(lead_flags) if leads else None,
                       "max": max(lead_flags) if leads else None, "le2": sum(1 for f in lead_flags if f <= 2)},
        # Issue 47: cases the reducer could not reduce (apart from the roots, with why), and
        # roots whose minimal case is still over 100 bytes.
        "unreduced": {"cases": sum(len(results[s].get("unreduced", [])) for s in detected_run),
                      "mutants": sum(1 for s in detected_run if results[s].get("unreduced")),
                      "why": {w: sum(1 for s in detected_run for u in results[s].get("unreduced", [])
                                     if u["why"] == w)
                              for w in sorted({u["why"] for s in detected_run
                                               for u in results[s].get("unreduced", [])})},
                      "roots_over_100_bytes": sum(1 for s in detected_run for c in results[s].get("root_cases", [])
                                                  if len(c.get("code") or "") > 100)},
        "build_seconds": {"median": statistics.median(build_s) if build_s else None,
                          "max": max(build_s) if build_s else None},
        "runs": runs, "wall_s": time.monotonic() - t_start,
        "mutants_detail": {s: {"site": sites[s], **({"status": "compile_failure"} if s in failed else
                                                      {"status": "built", **results[s]})} for s in ids},
    }
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=1)
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
        return
    cases = args.count * len(seeds)
    print(f"{len(ids)} mutants (sample {args.sample}, seed {args.seed}) of ext/json/json_encoder.c + json.c; "
          f"generated runs of {cases:,} cases (seeds {args.seeds} x {args.count:,}), base {BASE}, "
          f"{args.per_daemon} candidates a daemon" if not args.ids else
          f"{len(ids)} mutants (--ids); {cases:,} cases per run")
    print()
    r, lb, lf = summary["roots"], summary["lead_bytes"], summary["lead_flags"]
    score = f"{100 * summary['score']:.0f} %" if builds else "-"
    print("| mutants | built | compile failures | equivalent on the corpus | detected (score; of them: crash at the daemon's start) | "
          "roots per detected: median / p90 / max | ≤ 3 roots | lead bytes: median / p90 / max | ≤ 40 bytes | "
          "lead flags: median / max |")
    print("|---:|---:|---:|---:|---:|---|---:|---|---:|---|")
    print(f"| {len(ids)} | {len(builds)} | {len(failed)} | {len(equivalent)} | {len(detected)} ({score}; {len(start_crash)}) | "
          f"{r['median']} / {r['p90']} / {r['max']} | {r['le3']} of {len(roots)} | "
          f"{lb['median']} / {lb['p90']} / {lb['max']} | {lb['le40']} of {len(leads)} | "
          f"{lf['median']} / {lf['max']} |")
    u = summary["unreduced"]
    print(f"Unreduced (apart from the roots): {u['cases']} cases in {u['mutants']} mutants {u['why']}; "
          f"roots over 100 bytes: {u['roots_over_100_bytes']}")
    print()
    print("| run | candidates | mismatches | run wall | reductions | reduction seconds (summary) | "
          "settled after (wall) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for k, f in enumerate(runs, 1):
        red = f["reduction"]
        print(f"| {k} | {len(f['candidates'])} | {f['mismatches']:,} | {f['run_wall_s']:.1f} s | "
              f"{red.get('reductions')} | {red.get('seconds', 0):.1f} s | {f['settle_wall_s']:.1f} s |")
    print()
    print("Per mutant (most roots first):")
    print()
    print("| mutant | site | mismatches | buckets | roots | lead (value source) | flags |")
    print("|---|---|---:|---:|---:|---|---|")
    order = sorted(in_run, key=lambda s: (-results[s]["roots"], -results[s]["mismatches"], s))
    for s in order:
        x = results[s]
        lead = x["lead"]
        code = "" if not lead else (lead["code"] or "").replace("|", "\\|").replace("\n", " ")
        if len(code) > 60:
            code = code[:57] + "..."
        print(f"| {s} | {fmt_site(sites[s]).replace('|', chr(92) + '|')} | {x['mismatches']:,} | {x['buckets']} | "
              f"{x['roots']} | {'`' + code + '`' if lead else '—'} | "
              f"{', '.join(lead['flags']) if lead else ''} |")
    print()
    print("By kind:")
    print()
    print("| kind | built | detected | undetected | roots per detected: median / max | ≤ 3 roots |")
    print("|---|---:|---:|---:|---|---:|")
    for kind in sorted({sites[s]["kind"] for s in builds}):
        b = [s for s in builds if sites[s]["kind"] == kind]
        d = [results[s]["roots"] for s in b if s in detected_run]
        nd = sum(1 for s in b if s in detected)
        print(f"| {kind} | {len(b)} | {nd} | {len(b) - nd} | "
              f"{statistics.median(d) if d else '-'} / {max(d) if d else '-'} | {sum(1 for x in d if x <= 3)} |")
    print()
    print("Undetected (equivalent on the corpus): " + (", ".join(equivalent) or "none"))
    for s in equivalent:
        print(f"  {s}: {fmt_site(sites[s])}")
    if start_crash:
        print("Crash at the daemon's start (the worker dies on the probe case; detected, no run): " +
              ", ".join(f"{s} ({fmt_site(sites[s])})" for s in start_crash))
    worst = [s for s in order if s in detected][:5]
    print("Worst explained: " + ", ".join(f"{s} ({results[s]['roots']} roots)" for s in worst))
    if failed:
        print("Compile failures: " + ", ".join(failed))
    print(f"(wall {summary['wall_s']:.0f} s in all; builds median {summary['build_seconds']['median']:.1f} s)")


if __name__ == "__main__":
    main()
