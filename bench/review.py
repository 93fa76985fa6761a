#!/usr/bin/env python3
"""Time to verdict (issue 25): `phpcmp review` from the command to the
report, against the hand method's steps on the same builds, in one run.

    python3 bench/review.py [--count 600000] [--rounds 3] [--series] [--skip-hand]

phpcmp: `build/phpcmp review --base 8.2.32 --candidate keys-only=keys-fastpath.patch`
(a one-file patch; with --series also the 3-commit fixture series of
tests/integration/review.test.mjs), warm build cache (the builds are
cached trees: build-php.sh answers in a fraction of a second), --count
generated cases, the stored cases, ext/json/tests and the 11 workloads,
the reducer settled, then the asan sample (a tenth of --count on the asan
flavours).  Its phases come from its own progress lines.

The hand method (PRODUCT.md's seed reviewer), each step timed on the same
two builds: build-php.sh for each (cached, as for phpcmp); the lean
generator script bench/lean.php per build on the builds' own bin/php (the
count split in three seeds, the two builds side by side) and `diff`;
`valgrind --tool=callgrind` of a 200-call loop per workload and build,
with callgrind_annotate; run-tests.php of ext/json/tests per build.  It
finds the differing lines; it reduces nothing and has no roots.

Prints each round, then medians side by side and the ratio.
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from measure import sections, flags_of  # noqa: E402
from phpt import tests_top, runtests_once  # noqa: E402

PATCHES = os.path.join(ROOT, "tests/fixtures/patches")
ONE = ["--candidate", "keys-only=" + os.path.join(PATCHES, "keys-fastpath.patch")]
SERIES = ["--candidate", "pr=" + ",".join(os.path.join(PATCHES, p + ".patch")
                                          for p in ("keys-fastpath", "escape-del", "escape-unroll"))]
PHASES = [("builds", r"starting a daemon"), ("daemon start", r"daemon ready"),
          ("generated", r"generated cases .*: done"), ("stored", r"the stored cases: done"),
          ("ext/json/tests", r"ext/json/tests: done"), ("measure", r"the measure workloads: done"),
          ("reducer settled", r"building base \(asan\)|verdict:"), ("asan sample", r"verdict:")]


def review(cands, count, tmp):
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(ROOT, "build/phpcmp"), "review", "--base", "8.2.32", *cands,
                        "--count", str(count), "--out", os.path.join(tmp, "review.md")],
                       cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit("phpcmp review exited %d:\n%s" % (p.returncode, p.stderr[-4000:]))
    stamps, prev, phases = {}, 0.0, {}
    for line in p.stderr.splitlines():
        m = re.match(r"review \[ *([\d.]+) s\] (.*)", line)
        if m:
            for name, pat in PHASES:
                if name not in stamps and re.search(pat, m.group(2)):
                    stamps[name] = float(m.group(1))
    for name, _ in PHASES:
        if name in stamps:
            phases[name] = stamps[name] - prev
            prev = stamps[name]
    return {"wall": wall, "exit": p.returncode, "phases": phases}


def build(name, patches, builds):
    args = [os.path.join(ROOT, "scripts/build-php.sh"), "--name", name, "--builds", builds]
    for p in patches:
        args += ["--patch", p]
    subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.realpath(os.path.join(builds, name))


def callgrind(php, case, calls, tmp):
    value = case["VALUE"].strip()
    if value.endswith(";"):
        value = "(function () { %s })()" % value
    code = "%s\n$v = %s;\nfor ($i = 0; $i < %d; $i++) { json_encode($v, %d, %d); }" % (
        case.get("SETUP", ""), value, calls, flags_of(case.get("FLAGS")), int(case.get("DEPTH", "512")))
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "-q", "--tool=callgrind", "--callgrind-out-file=" + out, php, "-n", "-r", code],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True).stdout
    return any(":zif_json_encode" in line for line in ann.splitlines())


def hand(count, tmp):
    t = {}
    t0 = time.monotonic()
    builds = os.path.join(tmp, "builds")
    prefixes = [build("base", [], builds), build("keys-only", [os.path.join(PATCHES, "keys-fastpath.patch")], builds)]
    t["builds"] = time.monotonic() - t0
    php = [os.path.join(p, "bin/php") for p in prefixes]

    t0 = time.monotonic()
    seeds, lines = (1, 2, 3), 0
    for seed in seeds:
        procs = []
        for i, exe in enumerate(php):
            out = open(os.path.join(tmp, "gen-%d-%d.txt" % (i, seed)), "w")
            procs.append((subprocess.Popen([exe, "-n", os.path.join(ROOT, "bench/lean.php"), str(seed),
                                            str(count // len(seeds))], stdout=out, stderr=subprocess.DEVNULL), out))
        for p, out in procs:
            p.wait()
            out.close()
        d = subprocess.run(["diff", os.path.join(tmp, "gen-0-%d.txt" % seed), os.path.join(tmp, "gen-1-%d.txt" % seed)],
                           stdout=subprocess.PIPE)
        lines += sum(1 for x in d.stdout.split(b"\n") if x.startswith(b"<"))
    t["generated"] = time.monotonic() - t0

    t0 = time.monotonic()
    folder = os.path.join(ROOT, "cases/workloads")
    for f in sorted(os.listdir(folder)):
        case = sections(os.path.join(folder, f))
        for exe in php:
            if not callgrind(exe, case, int(case.get("MEASURE", "200")), tmp):
                sys.exit("no zif_json_encode in the callgrind of %s" % f)
    t["measure"] = time.monotonic() - t0

    t0 = time.monotonic()
    top = tests_top()
    for exe in php:
        runtests_once(exe, top)
    t["ext/json/tests"] = time.monotonic() - t0
    t["wall"] = sum(t.values())
    t["differing lines"] = lines
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=600000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--series", action="store_true", help="also the 3-commit series")
    ap.add_argument("--skip-hand", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(ROOT, "build/phpcmp")):
        sys.exit("build/phpcmp is missing: make all")
    rounds = {"review": [], "series": [], "hand": []}
    for i in range(a.rounds):
        tmp = tempfile.mkdtemp(prefix="phpcmp-bench-review-")
        try:
            r = review(ONE, a.count, tmp)
            rounds["review"].append(r)
            print("round %d: phpcmp review, one-file patch: %.1f s (exit %d) %s" % (
                i + 1, r["wall"], r["exit"], ", ".join("%s %.1f" % kv for kv in r["phases"].items())), flush=True)
            if a.series:
                s = review(SERIES, a.count, tmp)
                rounds["series"].append(s)
                print("round %d: phpcmp review, 3-commit series: %.1f s (exit %d) %s" % (
                    i + 1, s["wall"], s["exit"], ", ".join("%s %.1f" % kv for kv in s["phases"].items())), flush=True)
            if not a.skip_hand:
                h = hand(a.count, tmp)
                rounds["hand"].append(h)
                print("round %d: hand method: %.1f s (%s)" % (i + 1, h["wall"], ", ".join(
                    "%s %.1f" % (k, v) for k, v in h.items() if k != "wall")), flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    med = lambda xs: statistics.median(xs) if xs else float("nan")
    print("\nmedians of %d rounds, %s generated cases, warm build cache\n" % (a.rounds, f"{a.count:,}"))
    print("| step | hand method (2 builds) | phpcmp review, one-file patch (2 builds) |"
          + (" phpcmp review, 3-commit series (4 builds) |" if a.series else ""))
    print("|---|---:|---:|" + ("---:|" if a.series else ""))
    rows = [("builds", "builds", "builds"), ("daemon start", None, "daemon start"),
            ("generated + diff", "generated", "generated"), ("stored cases", None, "stored"),
            ("ext/json/tests", "ext/json/tests", "ext/json/tests"), ("11 workloads", "measure", "measure"),
            ("reducer settled", None, "reducer settled"), ("asan sample (count / 10)", None, "asan sample")]
    for label, hk, rk in rows:
        h = "%.1f s" % med([x[hk] for x in rounds["hand"]]) if hk and rounds["hand"] else "—"
        r = "%.1f s" % med([x["phases"].get(rk, 0) for x in rounds["review"]])
        s = (" %.1f s |" % med([x["phases"].get(rk, 0) for x in rounds["series"]])) if a.series else ""
        print("| %s | %s | %s |%s" % (label, h, r, s))
    hw = med([x["wall"] for x in rounds["hand"]]) if rounds["hand"] else float("nan")
    rw = med([x["wall"] for x in rounds["review"]])
    sw = (" **%.1f s** |" % med([x["wall"] for x in rounds["series"]])) if a.series else ""
    print("| **to the verdict** | **%.1f s** | **%.1f s** |%s" % (hw, rw, sw))
    if rounds["hand"]:
        ratios = [x["wall"] / y["wall"] for x, y in zip(rounds["review"], rounds["hand"])]
        print("\nphpcmp review / hand method, pair by pair: median %.2f (%s)" % (
            med(ratios), ", ".join("%.2f" % x for x in ratios)))


if __name__ == "__main__":
    main()
