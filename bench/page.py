#!/usr/bin/env python3
"""The page on a big database (issue 5): every endpoint the page calls, timed
against a database holding N cases compared in one run (default 1,000,000
cases, 2,000,000 results), 1 % of them mismatches spread over 40 buckets.

The database is made the fast way: the real daemon creates the schema on an
empty file and stops; then SQL fills cases, comparisons, results, buckets
and bucket_runs in bulk (what storing them one by one would leave, bucket
counters included); then the daemon starts again on it and each endpoint is
requested --repeat times on one keep-alive connection.  Prints the median and
worst time of each, and the database size.

    python3 bench/page.py [--cases 1000000] [--repeat 20] [--keep DIR]
"""
import argparse, http.client, json, os, shutil, socket, sqlite3, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKETS = 40


def start(db, port, log):
    return subprocess.Popen(
        [os.path.join(ROOT, "build/phpcmp"), "serve", "--port", str(port), "--db", db,
         "--build", "base=" + os.path.join(ROOT, "builds/base"), "--build", "head=" + os.path.join(ROOT, "builds/head"),
         "--state", os.path.join(ROOT, "state")],
        cwd=ROOT, stdout=log, stderr=log)


def wait_up(port, daemon):
    for _ in range(1200):
        if daemon.poll() is not None:
            sys.exit("the daemon exited during startup")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            c.request("GET", "/api/health")
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return c
        except OSError:
            time.sleep(0.1)
    sys.exit("the daemon did not come up")


def stop(daemon):
    daemon.terminate()
    try:
        daemon.wait(timeout=60)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()


def fill(db, n):
    """n cases in run 1, every 100th a mismatch in one of BUCKETS buckets."""
    con = sqlite3.connect(db)
    con.executescript(f"""
    PRAGMA synchronous = OFF;
    BEGIN;
    INSERT INTO runs (id, suite, status, base_build_id, head_build_id, total, done, same, differ, started_at, finished_at)
      SELECT 1, 'generated', 'done', (SELECT min(id) FROM builds), (SELECT max(id) FROM builds),
             {n}, {n}, {n} - {n} / 100, {n} / 100, strftime('%Y-%m-%dT%H:%M:%SZ','now'), strftime('%Y-%m-%dT%H:%M:%SZ','now');
    WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < {n})
    INSERT INTO cases (id, title, code, flags, content_hash)
      SELECT x, 'generated case ' || x, '[' || x || ', "a/b"]', x % 4096, printf('%016x', x) FROM i;
    INSERT INTO buckets (id, key, mismatches, first_comparison_id, last_comparison_id, first_run_id, last_run_id)
      WITH RECURSIVE b(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM b WHERE k < {BUCKETS})
      SELECT k, '{{"v":1,"bench":' || k || '}}', 0, 0, 0, 1, 1 FROM b;
    INSERT INTO comparisons (id, case_id, run_id, verdict, differs, bucket_id)
      SELECT id, id, 1, CASE WHEN id % 100 = 0 THEN 'differ' ELSE 'same' END,
             CASE WHEN id % 100 = 0 THEN 'output' ELSE '' END,
             CASE WHEN id % 100 = 0 THEN 1 + (id / 100) % {BUCKETS} END
      FROM cases;
    INSERT INTO results (comparison_id, role, build_id, status, output, error_code, error_msg, printed, wall_ms)
      SELECT m.id, r.role, r.b, 'ok', CAST('[' || m.id || ',"a\\/b"]' AS BLOB), 0, 'No error', x'', 0.01
      FROM comparisons m, (SELECT 'base' AS role, (SELECT min(id) FROM builds) AS b
                           UNION ALL SELECT 'head', (SELECT max(id) FROM builds)) r;
    UPDATE results SET output = CAST('[' || comparison_id || ',"a/b"]' AS BLOB)
      WHERE role = 'head' AND comparison_id % 100 = 0;
    UPDATE buckets SET
      mismatches = (SELECT count(*) FROM comparisons WHERE bucket_id = buckets.id),
      first_comparison_id = (SELECT min(id) FROM comparisons WHERE bucket_id = buckets.id),
      last_comparison_id = (SELECT max(id) FROM comparisons WHERE bucket_id = buckets.id);
    INSERT INTO bucket_runs (run_id, bucket_id, mismatches, first_comparison_id)
      SELECT 1, id, mismatches, first_comparison_id FROM buckets;
    COMMIT;
    """)
    con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--keep", help="make the database here and keep it")
    args = ap.parse_args()
    n = args.cases

    tmp = args.keep or tempfile.mkdtemp(prefix="phpcmp-bench-page-")
    os.makedirs(tmp, exist_ok=True)
    db = os.path.join(tmp, "page.db")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    d = None
    try:
        if not os.path.exists(db):
            port = free_port()
            d = start(db, port, log)
            wait_up(port, d)
            stop(d)
            d = None
            t0 = time.time()
            fill(db, n)
            print(f"filled {n:,} cases, {n:,} comparisons, {2 * n:,} results in {time.time() - t0:.0f} s; "
                  f"database {os.path.getsize(db) / 1e6:,.0f} MB")
        port = free_port()
        t0 = time.time()
        d = start(db, port, log)
        conn = wait_up(port, d)
        print(f"daemon up in {time.time() - t0:.1f} s")
        mid = n // 2 // 100 * 100   # a mismatch in the middle
        paths = [
            ("overview: runs", "/api/runs?limit=10"),
            ("overview: open buckets", "/api/buckets?state=open&limit=10"),
            ("overview: recent cases", "/api/cases?limit=50"),
            ("overview: differing cases", "/api/cases?verdict=differ&limit=50"),
            ("run", "/api/runs/1"),
            ("run: buckets", "/api/buckets?run=1&limit=50"),
            ("run: cases", "/api/runs/1/cases?limit=50"),
            ("run: differing cases", "/api/runs/1/cases?verdict=differ&limit=50"),
            ("run: differing cases, deep page", f"/api/runs/1/cases?verdict=differ&limit=50&before={mid}"),
            ("triage: buckets", "/api/buckets?limit=50"),
            ("bucket", "/api/buckets/7"),
            ("bucket: mismatches", "/api/buckets/7/mismatches?limit=50"),
            ("bucket: mismatches in run 1", "/api/buckets/7/mismatches?run=1&limit=50"),
            ("bucket: mismatches, deep page", f"/api/buckets/7/mismatches?limit=50&before={mid}"),
            ("case", f"/api/cases/{mid}"),
            ("case: phpt", f"/api/cases/{mid}/phpt"),
            ("triage events", "/api/triage/events?limit=20"),
        ]
        print(f"{'endpoint':36} {'median ms':>10} {'max ms':>8}  rows")
        for name, p in paths:
            times = []
            rows = None
            for _ in range(args.repeat):
                t = time.perf_counter()
                conn.request("GET", p)
                r = conn.getresponse()
                body = r.read()
                times.append((time.perf_counter() - t) * 1000)
                if r.status != 200:
                    sys.exit(f"{p}: {r.status} {body[:200]!r}")
            if body[:1] == b"{":
                j = json.loads(body)
                rows = next((len(v) for v in j.values() if isinstance(v, list)), "")
            print(f"{name:36} {statistics.median(times):10.2f} {max(times):8.2f}  {rows if rows is not None else ''}")
        # A bulk change of every bucket, and the audit trail it leaves.
        body = json.dumps({"by": "bench", "ids": list(range(1, BUCKETS + 1)), "state": "confirmed"})
        t = time.perf_counter()
        conn.request("POST", "/api/buckets/triage", body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        print(f"{'bulk triage of ' + str(BUCKETS) + ' buckets':36} {(time.perf_counter() - t) * 1000:10.2f}  (status {r.status})")
    finally:
        # Never leave a daemon behind, whatever failed.
        if d is not None and d.poll() is None:
            stop(d)
        log.close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
