#!/usr/bin/env python3
"""What coverage collection costs (issue 15, docs/coverage.md), and what the
default corpus reaches.

One daemon (fresh database, free port) with base = builds/src-8.2.32
(release) and head = builds/src-8.2.32-coverage, without landlock (a
coverage build writes its counters).  The same generated run (default: the
default corpus, seeds 1,2,3 × 200,000) three ways, interleaved --repeat
times, median wall times from POST to the run's end:

  release   base and head both the release build (a second daemon)
  plain     head the coverage build, no "coverage": the instrumented
            library's own cost
  coverage  head the coverage build, "coverage": true: also the run's own
            workers' start and exit (writing their counters) and gcovr

Then prints the last coverage run's figures for json_encoder.c and json.c
and its unreached branches per function.

    python3 bench/coverage.py [--count 200000] [--seeds 1,2,3] [--repeat 1] [--bin build]
"""
import argparse, http.client, json, os, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
import benchlib  # noqa: E402
from benchlib import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_LANDLOCK = "netns,caps,seccomp,rlimits,php"


def request(port, method, path, body=None):
    return benchlib.request(port, method, path, body, timeout=120)  # a coverage run's report takes a while

class Daemon:
    def __init__(self, binary, head, tmp, name):
        self.port = free_port()
        builds = os.path.join(ROOT, "builds")
        state = os.path.join(ROOT, "build", "test-state")
        os.makedirs(state, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1", "--port", str(self.port),
             "--db", os.path.join(tmp, f"{name}.db"),
             "--build", f"base={builds}/src-8.2.32", "--build", f"head={builds}/{head}",
             "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web"),
             "--state", state, "--worker", os.path.join(os.path.dirname(binary), "phpcmp-worker"),
             "--sandbox", NO_LANDLOCK],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, f"{name}.log"), "w"))
        for _ in range(1200):
            try:
                if request(self.port, "GET", "/api/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise SystemExit(f"daemon {name} did not start (see {tmp}/{name}.log)")

    def run(self, body):
        t0 = time.monotonic()
        run = benchlib.run_to_end(self.port, body, poll_s=0.05)
        wall = time.monotonic() - t0
        if run["status"] != "done" or run["counts"].get("differ", 0) != 0:
            raise SystemExit(f"run {run['id']}: {run['status']} {run['counts']} {run.get('error')}")
        return wall, run

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    binary = os.path.join(a.bin, "phpcmp")
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-coverage-")
    rel = Daemon(binary, "src-8.2.32", tmp, "release")
    cov = Daemon(binary, "src-8.2.32-coverage", tmp, "coverage")
    body = {"suite": "generated", "seeds": seeds, "count": a.count}
    times = {"release": [], "plain": [], "coverage": []}
    last = None
    try:
        for _ in range(a.repeat):
            times["release"].append(rel.run(body)[0])
            times["plain"].append(cov.run(body)[0])
            t, run = cov.run({**body, "coverage": True})
            times["coverage"].append(t)
            last = run
        _, c = request(cov.port, "GET", f"/api/runs/{last['id']}/coverage")
    finally:
        rel.stop()
        cov.stop()
    n = a.count * len(seeds)
    print(f"{n:,} generated cases (seeds {a.seeds} × {a.count:,}), base = release; median of {a.repeat}:")
    for k, label in (("release", "head = release build"), ("plain", "head = coverage build, no coverage"),
                     ("coverage", 'head = coverage build, "coverage": true')):
        m = statistics.median(times[k])
        print(f"  {label:42s} {m:7.2f} s  ({m / statistics.median(times['release']):.2f}× release)")
    for b in c["builds"]:
        if b.get("error"):
            print(f"{b['build']}: {b['error']}")
            continue
        for f in b["files"]:
            L, B = f["lines"], f["branches"]
            print(f"{f['file']}: lines {L['hit']}/{L['total']} ({100 * L['hit'] / L['total']:.1f} %), "
                  f"branches {B['hit']}/{B['total']} ({100 * B['hit'] / B['total']:.1f} %)")
            for fn in f["functions"]:
                if fn["unreached_branches"] or fn["unreached_lines"]:
                    print(f"    {fn['name']}: branches {fn['branches']['hit']}/{fn['branches']['total']}, "
                          f"unreached lines {fn['unreached_lines']}, unreached branches "
                          + " ".join(f"{u['line']}:{u['branch']}" for u in fn["unreached_branches"]))


if __name__ == "__main__":
    sys.exit(main())
