#!/usr/bin/env python3
"""Issue 11's speed figures in one run: a candidate's rebuild, and how
phpcmp's cost grows with the number of builds.

  python3 bench/scale.py                       all three figures, 3 rounds
  python3 bench/scale.py --rounds 5 --only startup
  python3 bench/scale.py --only generated --count 200000 --seeds 1,2,3

- rebuild: scripts/build-php.sh of the 8.2.32 base plus a patch to
  ext/json/json_encoder.c that no tree has yet (a fresh nonce each round,
  so the cache misses), built over the base's tree (bench/builds.py's
  one-file candidate; goal <= 5 s); the trees are removed afterwards.
  Needs the base in $PHPCMP_PHP_CACHE (make src-builds).
- startup: from `phpcmp serve` starting to the first good GET /api/health
  (status ok, every build's worker ready) with 2 builds (base, head: Debian's
  8.2.32 and 8.2.36) and with 4 (those and two from-source builds,
  builds/src-8.2.32 and builds/src-8.2.32-keys-fastpath).  Cold: a fresh
  state folder each time, so every build's worker core is compiled first
  (one gcc per build), once with PHPCMP_CORE_JOBS=1 (one compiler after
  another, how it was before) and once by default (side by side, one per
  CPU); warm: the cores already compiled (a daemon's usual restart).
- generated: a generated run of --seeds x --count cases (600,000 by
  default), POST /api/runs to done, with 2 builds (base, head) and with 3
  (and builds/src-8.2.32).  Wall seconds, and CPU seconds of the daemon and
  its workers.  Every batch goes to every build, so the work is linear in
  the builds: 3 builds should cost 1.5 x 2 builds, in CPU and, on 2 cores,
  in wall time.

Each round runs every variant once, interleaved, and medians are compared:
on a shared machine another job can slow one variant for a few seconds.
The load average before each round is shown.  A fresh database (and for
cold starts a fresh state folder) in a temporary folder each time.
"""
import argparse, http.client, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, proc_cpu, request, run_to_end  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
import builds as buildphp  # noqa: E402  (bench/builds.py: build(), nonce_patch())
BUILDS = {
    "base": "builds/base",
    "head": "builds/head",
    "src": "builds/src-8.2.32",
    "keys": "builds/src-8.2.32-keys-fastpath",
}


class Daemon:
    """phpcmp serve on a free port with the named builds; start() returns
    the seconds to the first good /api/health."""

    def __init__(self, bindir, tmp, names, state, core_jobs=None):
        self.port = free_port()
        # PHPCMP_CORE_JOBS=1: the cores compiled one after another, as before
        # they were compiled side by side (the "before" figure, same binary).
        self.env = dict(os.environ)
        if core_jobs is not None:
            self.env["PHPCMP_CORE_JOBS"] = str(core_jobs)
        self.names = names
        self.db = os.path.join(tmp, f"scale-{self.port}.db")
        self.logname = os.path.join(tmp, f"daemon-{self.port}.log")
        self.args = [os.path.join(bindir, "phpcmp"), "serve", "--port", str(self.port), "--db", self.db,
                     "--state", state, "--worker", os.path.join(bindir, "phpcmp-worker"),
                     "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
        for n in names:
            self.args += ["--build", f"{n}={os.path.join(ROOT, BUILDS[n])}"]
        self.proc = None

    def good(self):
        try:
            status, h = request(self.port, "GET", "/api/health")
        except (OSError, ValueError):
            return False
        if status != 200 or h.get("status") != "ok":
            return False
        ready = {b["name"] for b in h.get("builds", []) if b.get("worker", {}).get("state") == "ready"}
        return ready == set(self.names)

    def start(self):
        self.log = open(self.logname, "w")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT,
                                     env=self.env)
        while not self.good():
            if self.proc.poll() is not None or time.monotonic() - t0 > 180:
                self.stop()
                sys.exit(f"bench: the daemon with {','.join(self.names)} did not become healthy; see {self.logname}:\n"
                         + open(self.logname).read()[-2000:])
            time.sleep(0.01)
        return time.monotonic() - t0

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        self.log.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(self.db + suffix)
            except OSError:
                pass


def startup(bindir, tmp, names, warm_state, core_jobs=None):
    """(cold seconds, warm seconds) for these builds."""
    cold_state = tempfile.mkdtemp(prefix="state-", dir=tmp)
    d = Daemon(bindir, tmp, names, cold_state, core_jobs)
    cold = d.start()
    d.stop()
    shutil.rmtree(cold_state, ignore_errors=True)
    d = Daemon(bindir, tmp, names, warm_state)
    warm = d.start()
    d.stop()
    return cold, warm


def generated(bindir, tmp, names, state, seeds, count):
    d = Daemon(bindir, tmp, names, state)
    d.start()
    try:
        cpu0 = proc_cpu(d.proc.pid)
        t0 = time.monotonic()
        run = run_to_end(d.port, {"suite": "generated", "seeds": seeds, "count": count})
        wall = time.monotonic() - t0
        cpu = proc_cpu(d.proc.pid) - cpu0
        if run["status"] != "done":
            sys.exit(f"bench: the run ended {run['status']}: {run.get('error')}")
        return wall, cpu, run
    finally:
        d.stop()


def med(xs):
    return statistics.median(xs)


def rounds_str(xs):
    return ", ".join(f"{x:.2f}" for x in xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count", type=int, default=200000, help="cases per seed")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--only", choices=("rebuild", "startup", "generated"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"), help="folder of phpcmp and phpcmp-worker")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    for n, p in BUILDS.items():
        if not os.path.isdir(os.path.join(ROOT, p)):
            sys.exit(f"bench: {p} is missing (make builds src-builds)")
    if not os.access(os.path.join(args.bin, "phpcmp"), os.X_OK):
        sys.exit(f"bench: {args.bin}/phpcmp is not built (make)")
    two, three, four = ["base", "head"], ["base", "head", "src"], ["base", "head", "src", "keys"]
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-scale-")
    try:
        # One state folder for the warm starts and the runs, its cores
        # compiled by an untimed start with all four builds.
        state = os.path.join(tmp, "state")
        d = Daemon(args.bin, tmp, four, state)
        d.start()
        d.stop()
        print(f"{os.cpu_count()} CPUs; {args.rounds} rounds, variants interleaved; medians "
              f"(the machine is shared: single rounds are noisy)", flush=True)
        if args.only in (None, "rebuild"):
            links = os.path.join(tmp, "builds")
            base = buildphp.build(["--name", "bench-base", "--builds", links])
            runs, made = [], []
            try:
                for r in range(args.rounds):
                    load = os.getloadavg()[0]
                    x = buildphp.build(["--name", f"bench-cand-{r}", "--builds", links,
                                        "--patch", buildphp.nonce_patch(base["tree"], tmp)])
                    made.append(x["tree"])
                    runs.append(x)
                    print(f"  rebuild round {r + 1} (load {load:.2f}): {x['wall']:.2f} s wall, {x['cpu']:.2f} s CPU "
                          f"({x['mode']})", flush=True)
            finally:
                for t in made:
                    shutil.rmtree(t, ignore_errors=True)
                    try:
                        os.remove(t + ".lock")
                    except OSError:
                        pass
            w, c = med(x["wall"] for x in runs), med(x["cpu"] for x in runs)
            print()
            print("| one-file candidate (json_encoder.c) over the base's tree (median) | wall | CPU | goal |")
            print("|---|---|---|---|")
            print(f"| scripts/build-php.sh --patch nonce.patch | {w:.2f} s | {c:.2f} s | <= 5 s wall: "
                  f"{'met' if w <= 5 else 'NOT met'} |")
            print(f"(rounds: {rounds_str(x['wall'] for x in runs)} s wall)")
            print(flush=True)
        if args.only in (None, "startup"):
            # Cold starts with the cores compiled one after another
            # (PHPCMP_CORE_JOBS=1, as before) and side by side (the default:
            # one compiler per CPU), interleaved; warm starts once per round.
            res = {(n, j): [] for n in (2, 4) for j in ("serial", "parallel")}
            for r in range(args.rounds):
                load = os.getloadavg()[0]
                for n, names in ((2, two), (4, four)):
                    for j, jobs in (("serial", 1), ("parallel", None)):
                        res[(n, j)].append(startup(args.bin, tmp, names, state, jobs))
                print(f"  startup round {r + 1} (load {load:.2f}): "
                      + "; ".join(f"{n} builds {j} cold {res[(n, j)][-1][0]:.2f} s, warm {res[(n, j)][-1][1]:.2f} s"
                                  for n in (2, 4) for j in ("serial", "parallel")), flush=True)
            print()
            print("| serve start -> first good /api/health (median) | 2 builds | 4 builds | 4 / 2 |")
            print("|---|---|---|---|")
            for j in ("serial", "parallel"):
                a, b = med(x[0] for x in res[(2, j)]), med(x[0] for x in res[(4, j)])
                what = ("cold, cores compiled one after another (PHPCMP_CORE_JOBS=1)" if j == "serial"
                        else f"cold, cores compiled side by side ({os.cpu_count()} at a time)")
                print(f"| {what} | {a:.2f} s | {b:.2f} s | {b / a:.2f} |")
            a = med(x[1] for j in ("serial", "parallel") for x in res[(2, j)])
            b = med(x[1] for j in ("serial", "parallel") for x in res[(4, j)])
            print(f"| warm (cores cached in state/) | {a:.2f} s | {b:.2f} s | {b / a:.2f} |")
            for n in (2, 4):
                for j in ("serial", "parallel"):
                    print(f"(rounds, {n} builds {j} cold: {rounds_str(x[0] for x in res[(n, j)])} s)")
            print(flush=True)
        if args.only in (None, "generated"):
            total = len(seeds) * args.count
            res = {2: [], 3: []}
            for r in range(args.rounds):
                load = os.getloadavg()[0]
                for n, names in ((2, two), (3, three)):
                    res[n].append(generated(args.bin, tmp, names, state, seeds, args.count))
                print(f"  generated round {r + 1} (load {load:.2f}): 2 builds {res[2][-1][0]:.2f} s "
                      f"({res[2][-1][1]:.2f} s CPU), 3 builds {res[3][-1][0]:.2f} s ({res[3][-1][1]:.2f} s CPU)",
                      flush=True)
            print()
            print(f"| generated run, {total} cases, POST to done (median) | 2 builds | 3 builds | 3 / 2 (linear: 1.50) |")
            print("|---|---|---|---|")
            for i, what in ((0, "wall"), (1, "CPU, daemon + workers")):
                a, b = med(x[i] for x in res[2]), med(x[i] for x in res[3])
                print(f"| {what} | {a:.2f} s | {b:.2f} s | {b / a:.2f} |")
            for n in (2, 3):
                run = sorted(res[n], key=lambda x: x[0])[len(res[n]) // 2][2]
                s = run["summary"]
                per = ", ".join(f"{k} {v['cases_per_s']:.0f}/s" for k, v in s["builds"].items())
                print(f"({n} builds: {run['done']} cases done, {s['mismatches']} mismatches, "
                      f"corpus hash {s['corpus_hash']}; per build while busy: {per})")
            print(f"(rounds, 2 builds: {rounds_str(x[0] for x in res[2])} s; 3 builds: {rounds_str(x[0] for x in res[3])} s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
