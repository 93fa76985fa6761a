#!/usr/bin/env python3
"""Benchmark of the phpt suite (issue 13): php-src's ext/json/tests (76
tests of the 8.2.32 source) on both builds with POST /api/runs
{"suite":"phpt"}, against php-src's run-tests.php -j2 on the same folder
with a php-cli (the from-source builds' own bin/php when builds/*/bin/php
exist, else Debian's php8.2-cli once per build it stands for: two runs, as
the suite covers two builds).

    python3 bench/phpt.py [--repeat 5]

Prints the median wall time of each and the ratio.  The suite's time is
from the POST to the run's end as the API reports it (finished_at is to the
second, so the client's own clock is used: polling every 20 ms).
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def api(port, method, path, body=None):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def tests_top():
    return subprocess.check_output([os.path.join(ROOT, "scripts/php-tests.sh")], text=True).strip()


def suite_once(port, folder):
    t0 = time.monotonic()
    run = api(port, "POST", "/api/runs", {"suite": "phpt", "dir": folder})
    while True:
        r = api(port, "GET", "/api/runs/%d" % run["id"])
        if r["status"] not in ("queued", "running"):
            break
        time.sleep(0.02)
    dt = time.monotonic() - t0
    if r["status"] != "done":
        sys.exit("run %d: %s %s" % (r["id"], r["status"], r.get("error")))
    return dt, r["summary"]["counts"]


def clis():
    """The php-cli run-tests.php runs, one per build."""
    own = [os.path.join(ROOT, "builds", b, "bin", "php") for b in ("base", "head")]
    if all(os.path.exists(p) for p in own):
        return own, "each build's own bin/php"
    php = shutil.which("php8.2") or shutil.which("php")
    return [php, php], "Debian's %s, twice" % php


def runtests_once(php, top):
    work = tempfile.mkdtemp(prefix="phpcmp-bench-runtests-")
    shutil.copy(os.path.join(top, "run-tests.php"), work)
    shutil.copytree(os.path.join(top, "ext/json/tests"), os.path.join(work, "ext/json/tests"))
    env = dict(os.environ, NO_INTERACTION="1", TEST_PHP_EXECUTABLE=php)
    t0 = time.monotonic()
    out = subprocess.run([php, "run-tests.php", "-p", php, "-q", "-j2", "--no-color", "--no-progress",
                          "ext/json/tests"], cwd=work, env=env, capture_output=True, text=True)
    dt = time.monotonic() - t0
    shutil.rmtree(work, ignore_errors=True)
    if "Tests passed" not in out.stdout:
        sys.exit("run-tests.php failed:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    top = tests_top()
    folder = os.path.join(top, "ext/json/tests")
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-phpt-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    daemon = subprocess.Popen([os.path.join(ROOT, "build/phpcmp"), "serve", "--port", str(port),
                               "--db", os.path.join(tmp, "bench.db"), "--state", os.path.join(ROOT, "state"),
                               "--build", "base=" + os.path.join(ROOT, "builds/base"),
                               "--build", "head=" + os.path.join(ROOT, "builds/head")],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                api(port, "GET", "/api/health")
                break
            except Exception:
                time.sleep(0.1)
        suite_once(port, folder)  # warm: workers started, cores compiled
        suite = []
        for _ in range(args.repeat):
            dt, counts = suite_once(port, folder)
            suite.append(dt)
        phps, which = clis()
        rt = []
        for _ in range(args.repeat):
            rt.append(sum(runtests_once(php, top) for php in phps))
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    s, r = statistics.median(suite), statistics.median(rt)
    print("ext/json/tests, 76 tests on 2 builds (%s)" % json.dumps(counts))
    print("phpt suite (both builds at once):        median %.2f s  (runs: %s)" % (s, ", ".join("%.2f" % x for x in suite)))
    print("run-tests.php -j2, %s: median %.2f s  (runs: %s)" % (which, r, ", ".join("%.2f" % x for x in rt)))
    print("ratio: %.2fx (%.0fx faster)" % (s / r, r / s))


if __name__ == "__main__":
    main()
