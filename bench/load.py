#!/usr/bin/env python3
"""Load test (issue 6): N concurrent clients POST cases for D seconds while
a run is in progress the whole time; every request must succeed, the
latency percentiles are reported, and the daemon's memory is sampled once a
second to show it stays flat.

    python3 bench/load.py [--clients 50] [--duration 60] [--json FILE]

Starts its own daemon (build/phpcmp, or --bin) on a free 127.0.0.1 port with
a fresh database; sends traffic to that loopback address only; stops by
itself after --duration (at most 600 s) and at most --clients (at most 200)
connections.

What counts as a failure: any answer but 201 (or 409 where a case is
expected to differ), a connection error, or a timeout.  A 503 or 429 with
Retry-After is the daemon's bound doing its job: the client waits as told
and sends the request again, and the retry is counted (`retried`), not
failed; with the default bounds (--max-case-requests 64 > 50 clients) there
should be none.  Exit status 0 only with 0 failures, every run `done`, and
the daemon stopping cleanly on SIGTERM.

A run is kept in progress: whenever none is queued or running, another
`{"suite":"stored"}` is posted (or --run-body), so the clients always
compete with a run for the workers.
"""
import argparse, http.client, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, pct  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"   # loopback only, by design
MAX_CLIENTS, MAX_DURATION = 200, 600


def rss_kb(pid):
    """VmRSS, VmHWM (kB) and threads of a process, from /proc."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads"):
                out[k] = int(v.split()[0])
    return out


class Api:
    def __init__(self, port, timeout=60):
        self.port, self.timeout, self.conn = port, timeout, None

    def request(self, method, path, body=None):
        """(status, headers, json) over a kept-alive connection; reconnects once."""
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            try:
                data = json.dumps(body) if body is not None else None
                self.conn.request(method, path, body=data,
                                  headers={"Content-Type": "application/json"} if data else {})
                r = self.conn.getresponse()
                raw = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    self.close()
                return r.status, r, json.loads(raw) if raw else None
            except (ConnectionError, http.client.HTTPException, OSError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# The cases: half distinct (a new case each time: stored anew), half from a
# small set (the same case again: a new comparison of a stored case).
FIXED = [
    {"code": "['id' => 42, 'name' => 'José', 'tags' => ['a/b', '<x>'], 'ok' => true]",
     "flags": "JSON_UNESCAPED_SLASHES"},
    {"code": "\"caf\\xc3\\xa9 \\u{2028} \\xff\"", "flags": "JSON_INVALID_UTF8_SUBSTITUTE"},
    {"code": "array_fill(0, 100, 'https://example.org/fhir/R4/Patient/123')"},
    {"code": "(object)['a' => 1.5, 'b' => [null, false], 'c' => \"\\x01\\x1f\"]", "flags": 2048},
]


def case_for(client, n):
    if n % 2:
        return FIXED[(client + n) % len(FIXED)]
    return {"title": "load %d/%d" % (client, n),
            "code": "['client' => %d, 'n' => %d, 's' => str_repeat('<a href=\"/x\">é', %d)]"
                    % (client, n, n % 7),
            "flags": ["JSON_HEX_TAG", "JSON_UNESCAPED_UNICODE"][n % 2]}


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat, self.failed, self.retried, self.errors = [], 0, 0, []

    def add(self, ms=None, failed=False, retried=False, error=None):
        with self.lock:
            if ms is not None:
                self.lat.append(ms)
            self.failed += failed
            self.retried += retried
            if error and len(self.errors) < 20:
                self.errors.append(error)


def client(port, cid, deadline, stats):
    api = Api(port)
    n = 0
    while time.monotonic() < deadline:
        body = case_for(cid, n)
        n += 1
        t0 = time.perf_counter()
        try:
            status, r, data = api.request("POST", "/api/cases", body)
        except Exception as e:  # a connection error or a timeout
            stats.add(failed=True, error="client %d: %r" % (cid, e))
            continue
        ms = (time.perf_counter() - t0) * 1e3
        if status in (429, 503) and r.getheader("Retry-After"):
            stats.add(retried=True)
            time.sleep(min(float(r.getheader("Retry-After")), 5))
            continue
        if status != 201 or data.get("verdict") not in ("same", "differ"):
            stats.add(ms, failed=True, error="client %d: HTTP %d %s" % (cid, status, json.dumps(data)[:200]))
            continue
        stats.add(ms)
    api.close()


def keep_running(port, deadline, body, runs, stop):
    """Post a run whenever none is waiting or running; record each one's end."""
    api = Api(port)
    current = None
    while not stop.is_set():
        if current is None:
            if time.monotonic() >= deadline:
                break
            status, _, data = api.request("POST", "/api/runs", body)
            if status != 202:
                runs.append({"id": None, "status": "HTTP %d" % status, "error": json.dumps(data)})
                break
            current = data["id"]
        status, _, data = api.request("GET", "/api/runs/%d" % current)
        if data["status"] not in ("queued", "running"):
            runs.append(data)
            current = None
            continue
        time.sleep(0.2)
    # Let the last run finish so its status is known.
    while current is not None:
        status, _, data = api.request("GET", "/api/runs/%d" % current)
        if data["status"] not in ("queued", "running"):
            runs.append(data)
            current = None
        else:
            time.sleep(0.2)
    api.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--duration", type=float, default=60, help="seconds of load")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/phpcmp"))
    ap.add_argument("--state", default=os.path.join(ROOT, "state"))
    ap.add_argument("--run-body", default='{"suite":"stored"}', help="the run kept in progress")
    ap.add_argument("--daemon-arg", action="append", default=[], help="extra `serve` argument")
    ap.add_argument("--json", help="write the figures here as JSON")
    args = ap.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS or not 1 <= args.duration <= MAX_DURATION:
        sys.exit("--clients 1..%d, --duration 1..%d" % (MAX_CLIENTS, MAX_DURATION))

    tmp = tempfile.mkdtemp(prefix="phpcmp-load-")
    port = free_port(HOST)
    log = open(os.path.join(tmp, "daemon.log"), "w+")
    daemon = subprocess.Popen(
        [args.bin, "serve", "--listen", HOST, "--port", str(port), "--db", os.path.join(tmp, "load.db"),
         "--state", args.state, "--worker", os.path.join(os.path.dirname(args.bin), "phpcmp-worker")]
        + args.daemon_arg, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    ok = False
    try:
        api = Api(port, timeout=5)
        for _ in range(1200):
            try:
                if api.request("GET", "/api/health")[0] == 200:
                    break
            except OSError:
                pass
            if daemon.poll() is not None:
                break
            time.sleep(0.05)
        else:
            sys.exit("the daemon did not come up")
        if daemon.poll() is not None:
            log.seek(0)
            sys.exit("the daemon exited: " + log.read())
        for i in range(50):  # warm-up: workers, SQLite's page cache
            api.request("POST", "/api/cases", case_for(999, i))

        samples, stop = [], threading.Event()
        t_start = time.monotonic()
        deadline = t_start + args.duration

        def sample():
            while not stop.is_set():
                s = rss_kb(daemon.pid)
                s["t"] = round(time.monotonic() - t_start, 1)
                samples.append(s)
                stop.wait(1.0)
        sampler = threading.Thread(target=sample)
        sampler.start()

        runs = []
        keeper = threading.Thread(target=keep_running,
                                  args=(port, deadline, json.loads(args.run_body), runs, stop))
        keeper.start()
        stats = Stats()
        clients = [threading.Thread(target=client, args=(port, c, deadline, stats)) for c in range(args.clients)]
        for t in clients:
            t.start()
        for t in clients:
            t.join()
        elapsed = time.monotonic() - t_start
        keeper.join(timeout=300)
        stop.set()
        sampler.join()

        health = api.request("GET", "/api/health")
        api.close()
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(60)

        rss = [s["VmRSS"] for s in samples]
        half = [s["VmRSS"] for s in samples if s["t"] >= args.duration / 2]
        runs_done = [r for r in runs if r.get("status") == "done"]
        fig = {
            "clients": args.clients, "duration_s": round(elapsed, 1),
            "requests": len(stats.lat), "failed": stats.failed, "retried_after_503": stats.retried,
            "throughput_rps": round(len(stats.lat) / elapsed, 1),
            "latency_ms": {k: round(pct(stats.lat, p), 2) for k, p in
                           (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100))},
            "runs": len(runs), "runs_done": len(runs_done),
            "run_cases_compared": sum(r.get("done", 0) for r in runs),
            "rss_kb": {"first": rss[0], "max": max(rss), "last": rss[-1],
                       "second_half_min": min(half), "second_half_max": max(half)},
            "vmhwm_kb": samples[-1]["VmHWM"], "threads_max": max(s["Threads"] for s in samples),
            "health_after": health[0], "daemon_exit": code, "errors": stats.errors,
        }
        print("phpcmp load test (%s): %d clients POSTing cases for %.0f s, a run always in progress"
              % (time.strftime("%Y-%m-%d %H:%M"), args.clients, elapsed))
        print("  requests %d, failed %d, retried after 503/429 %d, %.0f requests/s"
              % (fig["requests"], fig["failed"], fig["retried_after_503"], fig["throughput_rps"]))
        print("  latency  p50 %.1f ms   p90 %.1f ms   p99 %.1f ms   max %.1f ms" % tuple(
            fig["latency_ms"][k] for k in ("p50", "p90", "p99", "max")))
        print("  runs     %d posted, %d done, %d cases compared by them meanwhile"
              % (fig["runs"], fig["runs_done"], fig["run_cases_compared"]))
        print("  daemon   RSS first %.1f MiB, max %.1f MiB, last %.1f MiB; second half %.1f..%.1f MiB; "
              "threads max %d" % (rss[0] / 1024, max(rss) / 1024, rss[-1] / 1024, min(half) / 1024,
                                  max(half) / 1024, fig["threads_max"]))
        print("  RSS each 5 s (MiB): " + " ".join("%.1f" % (s["VmRSS"] / 1024) for s in samples[::5]))
        print("  after    /api/health %d, daemon exit status %s on SIGTERM" % (health[0], code))
        for e in stats.errors:
            print("  error: " + e)
        if args.json:
            fig["rss_series_kb"] = [[s["t"], s["VmRSS"]] for s in samples]
            with open(args.json, "w") as f:
                json.dump(fig, f, indent=1)
        ok = (stats.failed == 0 and len(runs_done) == len(runs) > 0 and health[0] == 200 and code == 0)
        print("  result   %s" % ("PASS" if ok else "FAIL"))
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        log.close()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("  daemon log and database kept in " + tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
