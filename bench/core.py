#!/usr/bin/env python3
"""Benchmark of the core path (issue 2): one small case POSTed and run on both
builds, round-trip latency over N requests on one keep-alive connection; and
the stored suite's throughput in cases per second.

Starts its own daemon on a free loopback port with a fresh database, so it
measures the real thing: HTTP parsing, both workers, the SQLite writes.

    python3 bench/core.py [--requests 1000] [--suite-runs 5]
"""
import argparse, http.client, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, pct  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def request(conn, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    return r.status, json.loads(data) if data else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--suite-runs", type=int, default=5)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-")
    port = free_port()
    daemon = subprocess.Popen(
        [os.path.join(ROOT, "build/phpcmp"), "serve", "--port", str(port),
         "--db", os.path.join(tmp, "bench.db"), "--state", os.path.join(ROOT, "state")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        conn = None
        for _ in range(300):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                if request(conn, "GET", "/api/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("daemon did not come up: " + daemon.stderr.read().decode())

        case = {"code": "['id' => 42, 'name' => 'José', 'tags' => ['a/b', '<x>'], 'ok' => true]",
                "flags": "JSON_UNESCAPED_SLASHES"}
        for _ in range(20):  # warm-up: workers, SQLite page cache
            request(conn, "POST", "/api/cases", case)
        lat = []
        for _ in range(args.requests):
            t0 = time.perf_counter()
            status, body = request(conn, "POST", "/api/cases", case)
            lat.append((time.perf_counter() - t0) * 1e3)
            assert status == 201 and body["verdict"] == "same", (status, body)

        rates, totals = [], []
        for _ in range(args.suite_runs):
            t0 = time.perf_counter()
            status, run = request(conn, "POST", "/api/runs", {"suite": "stored"})
            assert status == 202, run
            while run["status"] in ("queued", "running"):
                time.sleep(0.005)
                run = request(conn, "GET", "/api/runs/%d" % run["id"])[1]
            dt = time.perf_counter() - t0
            assert run["status"] == "done", run
            totals.append(run["total"])
            rates.append(run["total"] / dt)

        print("phpcmp core benchmark (%s)" % time.strftime("%Y-%m-%d %H:%M"))
        print("POST /api/cases, one small case on both builds, %d requests, one keep-alive connection:" % args.requests)
        print("  p50 %.3f ms   p90 %.3f ms   p99 %.3f ms   max %.3f ms   (goal p50 < 2 ms: %s, p50/goal = %.2f)" % (
            pct(lat, 50), pct(lat, 90), pct(lat, 99), max(lat),
            "met" if pct(lat, 50) < 2 else "NOT met", pct(lat, 50) / 2.0))
        print("stored suite (%d cases, both builds, stored in SQLite), %d runs:" % (totals[0], len(rates)))
        print("  median %.0f cases/s   (min %.0f, max %.0f; wall time incl. 5 ms polling)" % (
            statistics.median(rates), min(rates), max(rates)))
    finally:
        daemon.terminate()
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
