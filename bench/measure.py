#!/usr/bin/env python3
"""Benchmark of instruction counting (issue 4): measuring every stored workload
on both builds with phpcmp's measure suite, against the manual method on the
same machine in one run, with the figures compared.

The manual method is what a reviewer does by hand: per workload and build, a
valgrind --tool=callgrind run of a PHP loop over json_encode(), then
callgrind_annotate --inclusive=yes and the zif_json_encode line.  phpcmp
leaves a warm-up call out of its count, so the manual figure here is the
same method with the first call taken out: a loop of N+1 calls minus a loop
of 1 call (two valgrind runs).  Both figures must be identical.

    python3 bench/measure.py
    python3 bench/measure.py --readme   README.md's instruction table: one
                                        measure run, no manual method (seconds);
                                        tests/integration/readme.test.mjs checks
                                        the README's rows against a run
"""
import json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sections(path):
    out, name = {}, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        m = re.fullmatch(r"--([A-Z]+)--\s*", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name:
            out[name].append(line)
    return {k: "\n".join(v).rstrip("\n") for k, v in out.items()}


FLAG_VALUES = {"JSON_HEX_TAG": 1, "JSON_HEX_AMP": 2, "JSON_HEX_APOS": 4, "JSON_HEX_QUOT": 8,
               "JSON_FORCE_OBJECT": 16, "JSON_NUMERIC_CHECK": 32, "JSON_UNESCAPED_SLASHES": 64,
               "JSON_PRETTY_PRINT": 128, "JSON_UNESCAPED_UNICODE": 256,
               "JSON_PARTIAL_OUTPUT_ON_ERROR": 512, "JSON_PRESERVE_ZERO_FRACTION": 1024,
               "JSON_UNESCAPED_LINE_TERMINATORS": 2048, "JSON_INVALID_UTF8_IGNORE": 1048576,
               "JSON_INVALID_UTF8_SUBSTITUTE": 2097152, "JSON_THROW_ON_ERROR": 4194304}


def flags_of(text):
    total = 0
    for part in (text or "0").split("|"):
        part = part.strip()
        total |= int(part) if part.isdigit() else FLAG_VALUES[part]
    return total


def api(port, method, path, body=None):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def manual_inclusive(build, case, calls, tmp):
    value = case["VALUE"].strip()
    if value.endswith(";"):  # statements ending in return: wrap them in a closure
        value = "(function () { %s })()" % value
    code = "%s\n$v = %s;\nfor ($i = 0; $i < %d; $i++) { json_encode($v, %d, %d); }\nexit();" % (
        case.get("SETUP", ""), value, calls, flags_of(case.get("FLAGS")), int(case.get("DEPTH", "512")))
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "-q", "--tool=callgrind", "--callgrind-out-file=" + out,
                    os.path.join(ROOT, "build/phpcmp-worker"), "--lib", build["library"],
                    "--core", build["core"], "--eval", code],
                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={"PATH": os.environ["PATH"], "LC_ALL": "C", "TZ": "UTC"})
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True).stdout
    names = ("zif_json_encode", build["json_encode_offset"])
    for line in ann.splitlines():
        if any(line.rstrip().endswith(":" + n) or (":" + n + " ") in line for n in names):
            return int(line.split()[0].replace(",", ""))
    raise SystemExit("no zif_json_encode line for %s" % case["TEST"])


def readme_table(port, health):
    """The rows of README.md's instruction table, from one measure run."""
    run = api(port, "POST", "/api/runs?wait=600", {"suite": "measure"})
    assert run["status"] == "done", run
    table = api(port, "GET", "/api/runs/%d/measurements" % run["id"])
    versions = {b["role"]: b.get("php_version") or b["name"] for b in health["builds"]}
    print("| json_encode() of | %s | %s | Δ %% |" % (versions["base"], versions["head"]))
    print("|---|---:|---:|---:|")
    for w in table["workloads"]:
        title = re.sub(r"^workload: ", "", w["title"])
        print("| %s | %s | %s | %+.2f %% |" % (title, "{:,.0f}".format(w["base"]["instructions"]),
                                             "{:,.0f}".format(w["head"]["instructions"]), w["delta_pct"]))


def main():
    readme = "--readme" in sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="phpcmp-bench-measure-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    daemon = subprocess.Popen([os.path.join(ROOT, "build/phpcmp"), "serve", "--port", str(port),
                               "--db", os.path.join(tmp, "bench.db"), "--state", os.path.join(ROOT, "state")],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                health = api(port, "GET", "/api/health")
                break
            except OSError:
                time.sleep(0.1)
        if readme:
            readme_table(port, health)
            return
        builds = {b["role"]: b for b in health["builds"]}
        files = sorted(f for f in os.listdir(os.path.join(ROOT, "cases/workloads")) if f.endswith(".phpt"))
        cases = {f: sections(os.path.join(ROOT, "cases/workloads", f)) for f in files}

        # phpcmp: one measure run, both builds (measuring workers already warm
        # after the first run; report the first, cold one as well).
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            run = api(port, "POST", "/api/runs", {"suite": "measure"})
            while run["status"] in ("queued", "running"):
                time.sleep(0.02)
                run = api(port, "GET", "/api/runs/%d" % run["id"])
            times.append(time.perf_counter() - t0)
            assert run["status"] == "done", run
        table = api(port, "GET", "/api/runs/%d/measurements" % run["id"])
        ours = {os.path.basename(w["source"]): w for w in table["workloads"]}

        # The manual method, sequentially, as a reviewer's script runs it.
        t0 = time.perf_counter()
        manual = {}
        for f in files:
            n = int(cases[f]["MEASURE"])
            for role in ("base", "head"):
                manual[(f, role)] = (manual_inclusive(builds[role], cases[f], n + 1, tmp)
                                     - manual_inclusive(builds[role], cases[f], 1, tmp)) / n
        t_manual = time.perf_counter() - t0

        print("instruction counts: phpcmp measure suite vs the manual method (%s)" % time.strftime("%Y-%m-%d %H:%M"))
        print("%-50s %11s %11s %8s  %11s %11s" % ("workload (instructions per call)", "base", "head", "delta %",
                                                  "manual base", "manual head"))
        pairs = same = 0
        worst = 0.0
        for f in files:
            w = ours[f]
            for r in ("base", "head"):
                pairs += 1
                d = abs(w[r]["instructions"] - manual[(f, r)])
                same += d < 0.005
                worst = max(worst, d / manual[(f, r)] * 100)
            print("%-50s %11.2f %11.2f %+7.2f%%  %11.2f %11.2f" % (cases[f]["TEST"].replace("workload: ", "")[:50],
                  w["base"]["instructions"], w["head"]["instructions"], w["delta_pct"],
                  manual[(f, "base")], manual[(f, "head")]))
        print()
        print("figures identical on %d of %d (workload, build) pairs; largest difference %.3f %%" % (same, pairs, worst))
        print("  (where they differ, it is the heap: the encoder's cost depends on where zend_alloc")
        print("   places its buffer, and a PHP loop leaves a different heap than phpcmp's C loop)")
        print("wall time, %d workloads x 2 builds:" % len(files))
        print("  phpcmp measure suite: first run %.2f s (starts valgrind), then median %.2f s" % (times[0], statistics.median(times[1:])))
        print("  manual method:        %.2f s (%d valgrind runs + callgrind_annotate)" % (t_manual, 4 * len(files)))
        print("  ratio manual / phpcmp: %.1fx (first run), %.1fx (warm)" % (t_manual / times[0], t_manual / statistics.median(times[1:])))
    finally:
        daemon.terminate()
        daemon.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
