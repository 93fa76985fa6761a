#!/usr/bin/env python3
"""PHP 8.0 and 8.1 built from ../shared/php-src and run against 8.2.32
(issue 45): what the full builds cost, and what each version answers
differently from the from-source 8.2.32 on the stored suite, php-src's
ext/json/tests and a generated run (made for the oldest build's PHP).

Each version is built by scripts/build-php.sh (cached: a second run reuses
the trees, and says so), then one daemon compares base = 8.2.32 with every
version as a candidate; the reducer is on, and the roots it settles on
are printed (a few bytes each: the differences between releases).

    python3 bench/versions.py [--source DIR] [--count 200000] [--seed 1] [--bin build]
                              [--base builds/src-8.2.32] [--settle 300]
"""
import argparse, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
from benchlib import free_port, request, run_to_end, wait_health  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARBALLS = [("src-8.0.10", "php-8.0.10.tar.xz"), ("src-8.1.0RC1", "php-8.1.0RC1.tar.xz")]


def build(name, tarball):
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(ROOT, "scripts/build-php.sh"), "--name", name, "--source", tarball],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"bench: building {name} failed:\n{p.stdout[-3000:]}")
    how = "cached" if "(cached" in p.stdout else "built"
    return time.monotonic() - t0, how


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=os.path.join(os.path.dirname(ROOT), "shared/php-src"))
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base", default=os.path.join(ROOT, "builds/src-8.2.32"))
    ap.add_argument("--settle", type=int, default=300, help="seconds to wait for the reducer")
    a = ap.parse_args()

    print("| build | from | wall s |\n|---|---|---:|")
    for name, file in TARBALLS:
        wall, how = build(name, os.path.join(a.source, file))
        print(f"| {name} | {how} | {wall:.1f} |")

    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-versions-")
    port = free_port()
    log = open(os.path.join(tmp, "daemon.log"), "w")
    args = [os.path.join(a.bin, "phpcmp"), "serve", "--port", str(port), "--db", os.path.join(tmp, "v.db"),
            "--state", os.path.join(tmp, "state"), "--worker", os.path.join(a.bin, "phpcmp-worker"),
            "--build", "base=" + a.base, "--cases", os.path.join(ROOT, "cases"), "--web", os.path.join(ROOT, "web")]
    for name, _ in TARBALLS:
        args += ["--build", f"{name}={os.path.join(ROOT, 'builds', name)}"]
    daemon = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        wait_health(port, daemon, 600, log.name)
        print(f"\n| run | wall s | counts |\n|---|---:|---|")
        runs = {}
        for suite, body in [("stored", {"suite": "stored"}), ("phpt", {"suite": "phpt"}),
                            ("generated", {"suite": "generated", "seed": a.seed, "count": a.count})]:
            t0 = time.monotonic()
            run = run_to_end(port, body, poll_s=0.2)
            runs[suite] = run
            extra = run.get("summary", {}).get("generated_for") if suite == "generated" else None
            print(f"| {suite} | {time.monotonic() - t0:.1f} | {run['status']} {run.get('counts')}"
                  f"{' (' + extra + ')' if extra else ''} |")
        # The reducer's roots of the generated run, once it has settled.
        rid = runs["generated"]["id"]
        deadline, last, still = time.monotonic() + a.settle, -1, 0
        while time.monotonic() < deadline and still < 2:
            _, roots = request(port, "GET", f"/api/roots?run={rid}")
            red = roots["reduction"]
            still = still + 1 if red["buckets_pending"] == 0 and red["reductions"] == last else 0
            last = red["reductions"]
            time.sleep(1)
        print(f"\nroots of the generated run: {len(roots['roots'])} "
              f"({red['reductions']} reductions, {red['seconds']:.1f} s; unreduced {red.get('unreduced', 0)})")
        for r in roots["roots"]:
            m = r.get("minimal") or {}
            outs = m.get("outputs") or {}
            answers = "; ".join(f"{role}: {(o.get('output') if o.get('output') is not None else 'false')[:60]}"
                                for role, o in outs.items())
            depth = f", 0, {m['depth']}" if m.get("depth") not in (None, 512) else ""
            print(f"- {r['candidate'] or 'head'}: json_encode({m.get('code')}{depth}) — {r['mismatches']} mismatches"
                  f" — {answers}")
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)


if __name__ == "__main__":
    main()
