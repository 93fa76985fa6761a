#!/usr/bin/env python3
"""Released PHP as reference runtimes (issue 49): what each costs and
whether php-8.2 under WebAssembly agrees with the native 8.2.32.

The real daemon (build/phpcmp) with the default builds (builds/base =
8.2.32, builds/head = 8.2.36) and `--references LIST` (default all
installed: php-7.4 ... php-8.5, node + php-wasm), its own database and state
under --work (default build/h8).  Printed:

1. Per reference: its exact PHP version, its start-up (the daemon's log
   line "phpcmp: reference php-X.Y: PHP V (...) in N ms", and from the
   daemon's start to the reference listed ready by GET /api/builds), and
   cases/s of a generated run with it as the base ({"suite":"generated",
   "seed":S,"count":--speed-count,"base":"php-X.Y"}: the reference against
   both native builds) beside a native run of the same cases (base 8.2.32
   against head 8.2.36) in the same round, and the ratio; medians of
   --rounds interleaved rounds (round r: seed r, every reference then the
   native run).  Then the single-case latency of POST /api/cases?references=1
   (every loaded reference answers; a new case each time) beside POST
   /api/cases (the native builds only), medians of --latency requests.
3. The 8.2 agreement: a daemon with --references 8.2 and the reducer on,
   one generated run of --count cases (seeds 1-3, --count / 3 each) with
   base php-8.2 (8.2.33 under wasm): mismatches of the native 8.2.32 (must
   be 0; otherwise every bucket with its minimal case) and of 8.2.36, and
   the wall time.
2. The case page: --pages cases stored without their references, then per
   case GET /api/cases/{id} (the case's own answer), GET
   /api/cases/{id}/references the first time (every reference runs it) and
   again (from the store); medians.  With Chromium (Debian's, through
   playwright-core as tests/browser/ drive it; --no-browser to skip): the
   time from navigating to #/cases/ID to the case's results shown, and to
   the "Released PHP" panel done, on this daemon and on one with
   --references none (no panel), fresh cases on each.

    python3 bench/references.py [--count 600000] [--speed-count 20000] [--rounds 3]
        [--references all|7.4,8.2,...] [--latency 10] [--pages 10] [--no-browser]
        [--no-agreement] [--quick] [--bin build] [--work build/h8]

--quick: a smoke check (--count 3000, --speed-count 2000, 1 round, 3
latencies, 3 pages).
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, request, run_to_end, wait_health  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL = ["7.4", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5"]

# The page in Chromium: per case id, ms from navigation to the case's
# results shown and to the released panel done (or its absence).
BROWSER_JS = r"""
import { chromium } from 'playwright-core';
const [url, ids, panel] = [process.argv[1], process.argv[2].split(',').filter(Boolean), process.argv[3] === '1'];
const browser = await chromium.launch({ executablePath: process.env.PHPCMP_CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
		'--disable-component-update', '--disable-sync'] });
const page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
page.setDefaultTimeout(180_000);
const out = [];
// One view first (not counted): the page's own files cached as a user's would be.
for (const [i, id] of [ids[0], ...ids].entries()) {
	await page.goto('about:blank');
	const t0 = performance.now();
	await page.goto(`${url}/#/cases/${id}`, { waitUntil: 'commit' });
	await page.getByTestId('results').waitFor();
	const shown = performance.now() - t0;
	let done = null;
	if (panel) {
		await page.locator('[data-testid="released"][data-state="done"]').waitFor();
		done = performance.now() - t0;
	} else if (await page.getByTestId('released').count()) done = -1;
	if (i > 0) out.push({ id, shown, done });
}
await browser.close();
console.log(JSON.stringify(out));
"""


def med(xs):
    return statistics.median(xs) if xs else float("nan")


class Daemon:
    def __init__(self, a, name, refs, reduce):
        self.port = free_port()
        self.log_name = os.path.join(a.work, f"daemon-{name}.log")
        self.log = open(self.log_name, "w")
        args = [os.path.join(a.bin, "phpcmp"), "serve", "--listen", "127.0.0.1", "--port", str(self.port),
                "--db", os.path.join(a.work, f"{name}.db"), "--state", os.path.join(a.work, "state"),
                "--worker", os.path.join(a.bin, "phpcmp-worker"),
                "--build", "base=" + os.path.join(ROOT, "builds/base"),
                "--build", "head=" + os.path.join(ROOT, "builds/head"),
                "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web"), "--references", refs]
        if not reduce:
            args += ["--reduce-max-executions", "0"]
        self.cmd = args
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        wait_health(self.port, self.proc, 600, self.log_name)
        self.health_s = time.monotonic() - self.t0

    def req(self, method, path, body=None, timeout=600):
        return request(self.port, method, path, body, timeout=timeout)

    def wait_references(self, limit_s=600):
        """{name: seconds from the daemon's start to ready}, and the rows."""
        ready = {}
        while True:
            refs = [b for b in self.req("GET", "/api/builds")[1]["builds"] if b.get("kind") == "reference"]
            for b in refs:
                if b["name"] not in ready and (b["worker"] or {}).get("state") == "ready" and b["php_version"]:
                    ready[b["name"]] = time.monotonic() - self.t0
            if all(b["name"] in ready or b["state"] == "failed" for b in refs):
                return ready, refs
            if self.proc.poll() is not None or time.monotonic() - self.t0 > limit_s:
                sys.exit(f"bench: references not ready: {[(b['name'], b['worker']) for b in refs]}")
            time.sleep(0.05)

    def log_ms(self):
        self.log.flush()
        with open(self.log_name) as f:
            return {m[0]: float(m[1]) for m in re.findall(r"phpcmp: reference (\S+): PHP .* in (\d+) ms", f.read())}

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def timed_run(d, body):
    t0 = time.monotonic()
    run = run_to_end(d.port, body, poll_frac=0.01)
    wall = time.monotonic() - t0
    if run["status"] != "done":
        sys.exit(f"bench: run {body} ended {run['status']}: {run.get('error')}")
    return wall, run


def timed(d, method, path, body=None):
    t0 = time.monotonic()
    status, out = d.req(method, path, body)
    ms = 1000 * (time.monotonic() - t0)
    if status not in (200, 201):
        sys.exit(f"bench: {method} {path} answered {status}: {out}")
    return ms, out


def browser(url, ids, panel):
    p = subprocess.run(["node", "--input-type=module", "-e", BROWSER_JS, url, ",".join(map(str, ids)),
                        "1" if panel else "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        print(f"  (Chromium: {p.stderr.strip()[-400:]})")
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def speed(a, d, names):
    print(f"\n## 1. per reference: start-up, cases/s with it as the base (the reference + both native builds, "
          f"{a.speed_count:,} cases) beside the native run (8.2.32 vs 8.2.36) of the same seed; "
          f"medians of {a.rounds} interleaved rounds\n", flush=True)
    walls = {n: [] for n in names + ["native"]}
    mism = {}
    loads = []
    for r in range(a.rounds):
        for n in names + ["native"]:
            body = {"suite": "generated", "seed": r + 1, "count": a.speed_count}
            if n != "native":
                body["base"] = n
            loads.append(os.getloadavg()[0])
            wall, run = timed_run(d, body)
            walls[n].append(wall)
            mism[n] = run["counts"]["differ"]
            print(f"  round {r + 1} {n}: {wall:.2f} s, {a.speed_count / wall:,.0f} cases/s, "
                  f"{run['counts']['differ']:,} differ ({'for ' + run['summary']['generated_for'] + '; ' if run['summary'].get('generated_for') else ''}"
                  f"load {loads[-1]:.1f})", flush=True)
    return walls, mism, loads


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=600000, help="cases of the 8.2 agreement run (3 seeds)")
    ap.add_argument("--speed-count", type=int, default=20000, help="cases of each per-reference run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--references", default="all")
    ap.add_argument("--latency", type=int, default=10, help="single-case requests, each way")
    ap.add_argument("--pages", type=int, default=10, help="cases whose page is viewed, each way")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--no-agreement", action="store_true")
    ap.add_argument("--agreement-only", action="store_true", help="only part 3")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build/h8"))
    a = ap.parse_args()
    if a.quick:
        a.count, a.speed_count, a.rounds, a.latency, a.pages = 3000, 2000, 1, 3, 3
    os.makedirs(a.work, exist_ok=True)
    for f in os.listdir(a.work):  # a fresh database each time; the state (worker cores) is kept
        if f.endswith((".db", ".db-wal", ".db-shm")):
            os.unlink(os.path.join(a.work, f))
    wanted = ALL if a.references == "all" else a.references.split(",")
    print(f"$ python3 bench/references.py {' '.join(sys.argv[1:])}")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; node "
          f"{subprocess.run(['node', '--version'], stdout=subprocess.PIPE, text=True).stdout.strip()}")

    if not a.agreement_only:
        speed_and_page(a, wanted)
    if not a.no_agreement:
        agreement(a)


def speed_and_page(a, wanted):
    d = Daemon(a, "refs", a.references, reduce=False)
    try:
        ready, refs = d.wait_references()
        log_ms = d.log_ms()
        print(f"daemon: {' '.join(os.path.relpath(x, ROOT) if x.startswith(ROOT) else x for x in d.cmd)}")
        print(f"health in {d.health_s:.2f} s; every reference ready {max(ready.values(), default=0):.1f} s "
              f"after the start (two start at a time)")
        names = [b["name"] for b in refs if b["name"] in ready]
        failed = [f"{b['name']}: {b['worker'].get('last_failure')}" for b in refs if b["name"] not in ready]
        if failed:
            print("failed: " + "; ".join(failed))
        if [n[4:] for n in names] != [v for v in wanted if f"php-{v}" in ready]:
            print(f"(references loaded: {names})")
        vers = {b["name"]: b["php_version"] for b in refs}

        walls, mism, loads = speed(a, d, names)
        nat = med(walls["native"])
        print(f"\n| reference | PHP | start-up (log) | ready after daemon start | cases/s (reference base) | "
              f"cases/s (native) | native / reference | mismatches |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for n in names:
            w = med(walls[n])
            print(f"| {n} | {vers[n]} | {log_ms.get(n, float('nan')) / 1000:.1f} s | {ready[n]:.1f} s | "
                  f"{a.speed_count / w:,.0f} | {a.speed_count / nat:,.0f} | {w / nat:.1f}× | {mism[n]:,} |")
        print(f"(wall from POST /api/runs to the run's end; {a.speed_count:,} cases, seeds 1-{a.rounds}; load "
              f"{min(loads):.1f}-{max(loads):.1f}; the native run: {a.speed_count / nat:,.0f} cases/s, "
              f"rounds {', '.join(f'{x:.2f}' for x in walls['native'])} s)")

        # Single-case latency: a new case each request (nothing from the store);
        # the native ones first, apart: a node tiers its runtime up in the
        # background after a request, which a request right after would feel.
        tag = int(time.time())
        lat_ref, lat_nat = [], []
        for i in range(a.latency + 1):  # the first of each not counted
            ms, _ = timed(d, "POST", "/api/cases", {"code": f'[{i}, "nat-{tag}"]'})
            lat_nat += [ms] if i else []
        for i in range(a.latency + 1):
            ms, c = timed(d, "POST", "/api/cases?references=1", {"code": f'[{i}, "ref-{tag}"]'})
            answered = sum(1 for r in c["references"]["references"] if r.get("result"))
            lat_ref += [ms] if i else []
        print(f"\nsingle case, median of {a.latency}: POST /api/cases?references=1 ({answered} references "
              f"answered) **{med(lat_ref):.0f} ms** (max {max(lat_ref):.0f}) vs POST /api/cases "
              f"{med(lat_nat):.1f} ms (max {max(lat_nat):.1f})")

        # The page: the case's own answer never waits for the references.
        print(f"\n## 2. a case page with {len(names)} references, {a.pages} cases stored without them, medians\n")
        ids = []
        for i in range(a.pages):
            _, c = timed(d, "POST", "/api/cases", {"code": f'["page", {i}, {tag}, 1.5, "é"]'})
            ids.append(c["id"])
        # Each step over every case before the next: the case's own answer
        # timed while no reference runs.
        own = [timed(d, "GET", f"/api/cases/{cid}")[0] for cid in ids]
        first = [timed(d, "GET", f"/api/cases/{cid}/references")[0] for cid in ids]
        again = []
        for cid in ids:
            ms, r = timed(d, "GET", f"/api/cases/{cid}/references")
            again.append(ms)
            assert all(x["stored"] for x in r["references"]), r
        time.sleep(2)
        own_after = [timed(d, "GET", f"/api/cases/{cid}")[0] for cid in ids]
        print("| request | median | max |\n|---|---:|---:|")
        for what, xs in [("GET /api/cases/{id} (the case's own answer), before its references", own),
                         (f"GET /api/cases/{{id}}/references, first ({len(names)} references run it)", first),
                         ("GET /api/cases/{id}/references, again (from the store)", again),
                         ("GET /api/cases/{id}, after", own_after)]:
            print(f"| {what} | {med(xs):.1f} ms | {max(xs):.1f} ms |")
        page_with = None
        if not a.no_browser:
            pids = [timed(d, "POST", "/api/cases", {"code": f'["view", {i}, {tag}]'})[1]["id"] for i in range(a.pages + 1)]
            page_with = browser(f"http://127.0.0.1:{d.port}", pids, True)
    finally:
        d.stop()

    if not a.no_browser:
        d = Daemon(a, "none", "none", reduce=False)
        try:
            pids = [timed(d, "POST", "/api/cases", {"code": f'["view", {i}, {tag}]'})[1]["id"] for i in range(a.pages + 1)]
            page_without = browser(f"http://127.0.0.1:{d.port}", pids, False)
        finally:
            d.stop()
        if page_with and page_without:
            sw, sn = med([x["shown"] for x in page_with]), med([x["shown"] for x in page_without])
            print(f"\nChromium, a case page's first view (navigation to the results shown), median of {a.pages}: "
                  f"with {len(names)} references **{sw:.0f} ms** vs {sn:.0f} ms with --references none "
                  f"(difference {sw - sn:+.0f} ms); the Released PHP panel done after "
                  f"{med([x['done'] for x in page_with]):.0f} ms (max {max(x['done'] for x in page_with):.0f})"
                  f"{'; without references the panel says none is installed' if any(x['done'] == -1 for x in page_without) else ''}")



def agreement(a):
    per = a.count // 3
    print(f"\n## 3. the 8.2 agreement: {3 * per:,} generated cases (seeds 1-3 × {per:,}), base php-8.2 (wasm) "
          f"against the native builds, reducer on\n", flush=True)
    d = Daemon(a, "agree", "8.2", reduce=True)
    try:
        ready, refs = d.wait_references()
        ref = next(b for b in refs if b["name"] == "php-8.2")
        load0 = os.getloadavg()[0]
        wall, run = timed_run(d, {"suite": "generated", "seeds": [1, 2, 3], "count": per, "base": "php-8.2"})
        s = run["summary"]
        print(f"php-8.2 = PHP {ref['php_version']} ({ref['reference']}); {s['done']:,} cases in **{wall:.1f} s** "
              f"({s['done'] / wall:,.0f} cases/s; load {load0:.1f} → {os.getloadavg()[0]:.1f}); "
              f"{'made for ' + s['generated_for'] if s.get('generated_for') else 'made for 8.2'}")
        for role in ("head", "cand2"):
            b = s["builds"][role]
            print(f"- {b['build']} (PHP {run['builds'][role]}): **{b.get('mismatches', 0):,} mismatches** "
                  f"against php-8.2; statuses {b.get('statuses')}")
        print(f"- php-8.2: statuses {s['builds']['base'].get('statuses')}")
        if run["counts"]["differ"]:
            # Let the reducer settle, then each bucket with its minimal case.
            t1, last, still = time.monotonic(), -1, 0
            while time.monotonic() - t1 < 300 and still < 2:
                red = d.req("GET", f"/api/roots?run={run['id']}")[1]["reduction"]
                still = still + 1 if red["buckets_pending"] == 0 and red["reductions"] == last else 0
                last = red["reductions"]
                time.sleep(1)
            _, page = d.req("GET", f"/api/buckets?run={run['id']}&limit=500")
            for bk in page["buckets"]:
                m = bk.get("minimal") or {}
                print(f"  bucket {bk['id']} ({bk.get('candidate')}): {bk['run']['mismatches']:,} mismatches; "
                      f"minimal ({m.get('state')}): setup {m.get('setup')!r} code {m.get('code')!r} "
                      f"flags {m.get('flags')} depth {m.get('depth')}; outputs {json.dumps(m.get('outputs'))[:300]}")
    finally:
        d.stop()


if __name__ == "__main__":
    main()
