#!/bin/bash
# Run every test of phpcmp: what `make test` calls (after building the daemon,
# the worker loader and fetching the default builds).
#
#   scripts/run-tests.sh                 unit tests, the page's unit tests, the integration
#                                        suite, the browser suite
#   scripts/run-tests.sh unit            only the C unit tests (make unit-test)
#   scripts/run-tests.sh web             only the page's unit tests (tests/web, no daemon)
#   scripts/run-tests.sh web tests/web/bytes.test.mjs
#                                        only some of them
#   scripts/run-tests.sh integration     only the integration suite
#   scripts/run-tests.sh integration tests/integration/cases.test.mjs
#                                        only some integration test files
#   scripts/run-tests.sh browser         only the browser suite
#
# The page's unit tests (tests/web/*.test.mjs, node's built-in test runner)
# import the page's pure modules straight from web/js/ and the vendored
# jsdiff from node_modules (make web-deps); no daemon, no browser.
# The integration suite (tests/integration/*.test.mjs) starts the real daemon (build/phpcmp) on free loopback ports with
# both real builds from builds/ and a fresh SQLite file per daemon.  The
# browser suite (tests/browser/*.test.mjs) does the same and drives the page
# in Debian's headless Chromium with playwright-core (make web-deps).  Daemon
# logs, TAP reports and the browser suite's screenshots (screenshots/) go to
# tests/artifacts/.
#
# Environment: MAKE (default make), PHPCMP_BIN, PHPCMP_TEST_STATE,
# PHPCMP_TEST_ARTIFACTS (default tests/artifacts),
# PHPCMP_BUILDS (see tests/integration/helper.mjs), PHPCMP_CHROMIUM (default
# /usr/bin/chromium), TEST_TIMEOUT (seconds for each node suite, default 1800),
# WEB_TEST_TIMEOUT (milliseconds for each page unit test, default 10000),
# PHPCMP_TEST_LIGHT=1 (the instrumented passes: the whole integration suite
# but the heavy files below, which it names; see docs/testing.md),
# PHPCMP_TEST_INSTRUMENTED=1 (the instrumented passes too: the whole suite but
# the files tests/instrumented.txt lists, whose daemon coverage other files
# give; it names them), PHPCMP_TEST_INSTRUMENTED_LIST (default
# tests/instrumented.txt),
# PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 (CI's plain pass: only what no
# instrumented pass runs — no unit, page or browser suite; of the
# integration files the heavy ones, tests/instrumented.txt's, and those with
# a check only an uninstrumented daemon makes, which read helper.mjs's
# INSTRUMENTED or WRAPPED; it names the rest, which run under both
# instruments, memcheck's on this same daemon binary).
#
# Prints one line per suite and a closing "tests: N passed, M failed";
# exits non-zero if anything failed or could not run.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
make=${MAKE:-make}
artifacts=${PHPCMP_TEST_ARTIFACTS:-$root/tests/artifacts}
mkdir -p "$artifacts"

suites=()
files=()
browser_files=()
web_files=()
for arg in "$@"; do
	case $arg in
	unit | web | integration | browser) suites+=("$arg") ;;
	*browser/*.mjs) browser_files+=("$arg") ;;
	*web/*.mjs) web_files+=("$arg") ;;
	*.mjs) files+=("$arg") ;;
	*) echo "run-tests: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done
if [ ${#suites[@]} -eq 0 ]; then
	if [ ${#files[@]} -gt 0 ] || [ ${#browser_files[@]} -gt 0 ] || [ ${#web_files[@]} -gt 0 ]; then
		[ ${#web_files[@]} -gt 0 ] && suites+=(web)
		[ ${#files[@]} -gt 0 ] && suites+=(integration)
		[ ${#browser_files[@]} -gt 0 ] && suites+=(browser)
	elif [ "${PHPCMP_TEST_UNINSTRUMENTED_ONLY:-}" = 1 ]; then
		# The unit, page and browser suites all run in the sanitizer pass
		# (the page's unit tests run no daemon at all).
		suites=(integration)
		uninstrumented_note="unit web browser (the sanitizer pass runs them; PHPCMP_TEST_UNINSTRUMENTED_ONLY=1)"
	else
		suites=(unit web integration browser)
	fi
fi

passed=0
failed=0
summary=()
[ -n "${uninstrumented_note:-}" ] && summary+=("$(printf '%-12s %s' "not run:" "$uninstrumented_note")")

# Add a suite's counts to the totals and the summary.
record() { # name passed failed note
	passed=$((passed + $2))
	failed=$((failed + $3))
	summary+=("$(printf '%-12s %4d passed, %4d failed%s' "$1:" "$2" "$3" "${4:+  ($4)}")")
}

run_unit() {
	local log=$artifacts/unit.log status p f line
	echo "== unit tests: $make unit-test"
	if ! "$make" -n unit-test >/dev/null 2>&1 || ! grep -q '^unit-test *:' Makefile; then
		echo "run-tests: the Makefile has no unit-test target" >&2
		record unit 0 1 "no unit-test target"
		return
	fi
	"$make" --no-print-directory unit-test 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	# Counts, if the runner printed them: prove's "Tests=N" with its summary
	# report, or a plain "N passed, M failed" line.
	p='' f=''
	if line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1) && [ -n "$line" ]; then
		p=$(sed -E 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	elif line=$(grep -E '^Files=[0-9]+, Tests=[0-9]+' "$log" | tail -1) && [ -n "$line" ]; then
		local total
		total=$(sed -E 's/.*Tests=([0-9]+).*/\1/' <<<"$line")
		# prove's "Test Summary Report": "t (Wstat: 0 Tests: 3 Failed: 2)"
		f=$(sed -nE 's/.*\(Wstat: .* Failed: ([0-9]+)\)$/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
		p=$((total - f))
	fi
	if [ "$status" -ne 0 ]; then
		[ -n "$f" ] && [ "$f" -gt 0 ] || f=1
		record unit "${p:-0}" "$f" "make unit-test exited $status"
	elif [ -n "$p" ]; then
		if [ "$f" -gt 0 ]; then
			record unit "$p" "$f" "but make unit-test exited 0"
		else
			record unit "$p" 0
		fi
	else
		# No counts: nothing shows that any test ran, so it is not a pass.
		record unit 0 1 "make unit-test exited 0 but printed no test counts"
	fi
}

# Run node test files as one suite, counted from its TAP report.
# node_args: more options for node --test (set by the caller).
logs_cleared=
node_args=()
run_node_suite() { # name tap-file files...
	local name=$1 tap=$2 status p f c
	shift 2
	rm -f "$tap"
	if [ -z "$logs_cleared" ]; then
		find "$artifacts" -maxdepth 1 -name '*.log' ! -name unit.log -delete
		logs_cleared=1
	fi
	# spec for people, TAP for the counts.  One file at a time: each file
	# starts its own daemons, and there are two cores (node >= 20.10 takes
	# the flag; older ones run files one at a time on two cores anyway).
	local conc=()
	if node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=10)?0:1)'; then
		conc=(--test-concurrency=1)
	fi
	timeout --kill-after=30 "${TEST_TIMEOUT:-1800}" \
		node --test "${conc[@]}" "${node_args[@]}" \
		--test-reporter=spec --test-reporter-destination=stdout \
		--test-reporter=tap --test-reporter-destination="$tap" \
		"$@"
	status=$?
	p=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$tap" | tail -1)
	f=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$tap" | tail -1)
	c=$(sed -nE 's/^# cancelled ([0-9]+)$/\1/p' "$tap" | tail -1)
	p=${p:-0} f=$(( ${f:-0} + ${c:-0} ))
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		record "$name" "$p" $((f + 1)) "timed out after ${TEST_TIMEOUT:-1800} s"
	elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		record "$name" "$p" 1 "node --test exited $status"
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		record "$name" 0 1 "no test ran"
	else
		record "$name" "$p" "$f"
	fi
}

# Can node suites run at all?  0, or records the failure under name.
node_suite_ready() { # name
	if ! command -v node >/dev/null 2>&1; then
		echo "run-tests: node is not installed (scripts/install-deps.sh)" >&2
		record "$1" 0 1 "no node"
		return 1
	fi
	if [ ! -x "${PHPCMP_BIN:-build/phpcmp}" ]; then
		echo "run-tests: ${PHPCMP_BIN:-build/phpcmp} is not built (make all)" >&2
		record "$1" 0 1 "daemon not built"
		return 1
	fi
}

run_web() {
	echo "== page unit tests: node --test tests/web"
	if ! command -v node >/dev/null 2>&1; then
		echo "run-tests: node is not installed (scripts/install-deps.sh)" >&2
		record web 0 1 "no node"
		return
	fi
	if [ ! -f node_modules/diff/dist/diff.min.js ]; then
		echo "run-tests: node_modules/diff is missing (make web-deps)" >&2
		record web 0 1 "no node_modules/diff"
		return
	fi
	local all=0
	if [ ${#web_files[@]} -eq 0 ]; then
		web_files=(tests/web/*.test.mjs)
		all=1
	fi
	# A test that never settles (a poll that does not stop) fails instead of
	# holding the suite until TEST_TIMEOUT.
	node_args=(--test-timeout="${WEB_TEST_TIMEOUT:-10000}")
	run_node_suite web "$artifacts/web.tap" "${web_files[@]}"
	node_args=()
	# The reference runtimes' worker (server/reference/, docs/references.md),
	# no daemon: php-wasm runtimes take seconds to load, so not under the
	# page tests' 10 s cap.  Its packages missing fails it (make web-deps).
	if [ $all = 1 ]; then
		echo "== reference worker: node --test tests/reference"
		run_node_suite reference "$artifacts/reference.tap" tests/reference/*.test.mjs
	fi
}

# Integration files whose runs take minutes (hundreds of thousands of
# generated cases): PHPCMP_TEST_LIGHT=1 leaves them out of the whole-suite
# run, for the sanitizer pass and memcheck, where the same daemon paths are
# run by the smaller tests (generated, triage, hazards, srcbuilds...).  The
# summary names them: not run is not passed.  Named on the command line,
# they run.
# reduce's five 200,000-case runs reduce against a wall-time budget, which
# an instrumented daemon would spend differently; asan's workers carry
# their own sanitizer runtime.
# mutants' ten mutants reduce against the same wall-time budget.  review
# builds PHP and serves a daemon of its own (this executable's `serve`, not
# the wrapped one): under memcheck it would run exactly as in the plain pass.
# reach runs four planted bugs through a generated run and the reducer,
# reduce's paths again.  bisect builds commits of a php-src history and
# serves its own daemons, as review does.
heavy_files=(tests/integration/story.test.mjs tests/integration/heavy.test.mjs
	tests/integration/reduce.test.mjs tests/integration/asan.test.mjs tests/integration/mutants.test.mjs
	tests/integration/review.test.mjs tests/integration/reach.test.mjs tests/integration/bisect.test.mjs)

# tests/instrumented.txt: integration files whose every daemon line and
# branch other files cover (measured by scripts/daemon-coverage.py).  The
# instrumented passes (PHPCMP_TEST_INSTRUMENTED=1) skip them and the summary
# names them: not run is not passed.  Named on the command line, they run.
instrumented_list=${PHPCMP_TEST_INSTRUMENTED_LIST:-tests/instrumented.txt}
# The files tests/instrumented.txt names, into the array listed.
read_instrumented_list() {
	local line d
	listed=()
	[ -f "$instrumented_list" ] || return 1
	while IFS= read -r line; do
		line=${line%%#*}
		read -r d _ <<<"$line"
		[ -n "$d" ] && listed+=("$d")
	done <"$instrumented_list"
}

skip_duplicates() {
	local f d keep=() dup=() listed
	if ! read_instrumented_list; then
		echo "   $instrumented_list is missing: every integration file runs"
		return
	fi
	for f in "${files[@]}"; do
		for d in "${listed[@]}"; do
			[ "$f" = "$d" ] && { dup+=("$f"); continue 2; }
		done
		keep+=("$f")
	done
	files=("${keep[@]}")
	if [ ${#dup[@]} -gt 0 ]; then
		echo "   left out (PHPCMP_TEST_INSTRUMENTED=1, duplicate coverage): ${dup[*]}"
		summary+=("$(printf '%-12s %s' "not run:" "${dup[*]##*/} (duplicate coverage: see $instrumented_list)")")
	fi
}

# CI's plain pass (PHPCMP_TEST_UNINSTRUMENTED_ONLY=1): keep the files the
# instrumented passes leave out, and those that check something only an
# uninstrumented daemon shows (resident memory, latency with threads not
# serialised, run-tests.php, which runs no daemon code): they read
# helper.mjs's INSTRUMENTED or WRAPPED.  Every other file runs in both
# instrumented passes, and memcheck runs this same daemon binary, so a
# third run of it here would check nothing new.
only_uninstrumented() {
	local f d keep=() rest=() listed
	read_instrumented_list
	for f in "${files[@]}"; do
		for d in "${heavy_files[@]}" "${listed[@]}"; do
			[ "$f" = "$d" ] && { keep+=("$f"); continue 2; }
		done
		if grep -qwE "INSTRUMENTED|WRAPPED" "$f"; then
			keep+=("$f")
		else
			rest+=("$f")
		fi
	done
	files=("${keep[@]}")
	echo "   left out (PHPCMP_TEST_UNINSTRUMENTED_ONLY=1, run by both instrumented passes): ${rest[*]}"
	summary+=("$(printf '%-12s %s' "not run:" "${#rest[@]} files the instrumented passes run (PHPCMP_TEST_UNINSTRUMENTED_ONLY=1)")")
}

run_integration() {
	local f h keep left=()
	echo "== integration tests: node --test tests/integration"
	node_suite_ready integration || return
	if [ ${#files[@]} -eq 0 ]; then
		files=(tests/integration/*.test.mjs)
		if [ "${PHPCMP_TEST_UNINSTRUMENTED_ONLY:-}" = 1 ]; then
			only_uninstrumented
		fi
		if [ "${PHPCMP_TEST_LIGHT:-}" = 1 ]; then
			keep=()
			for f in "${files[@]}"; do
				for h in "${heavy_files[@]}"; do
					[ "$f" = "$h" ] && { left+=("$f"); continue 2; }
				done
				keep+=("$f")
			done
			files=("${keep[@]}")
			echo "   left out (PHPCMP_TEST_LIGHT=1, heavy): ${left[*]}"
			summary+=("$(printf '%-12s %s' "not run:" "${left[*]##*/} (PHPCMP_TEST_LIGHT=1)")")
		fi
		if [ "${PHPCMP_TEST_INSTRUMENTED:-}" = 1 ]; then
			skip_duplicates
		fi
	fi
	run_node_suite integration "$artifacts/integration.tap" "${files[@]}"
	echo "   daemon logs and the TAP report: tests/artifacts/"
}

run_browser() {
	local chromium=${PHPCMP_CHROMIUM:-/usr/bin/chromium}
	echo "== browser tests: node --test tests/browser (headless $chromium)"
	node_suite_ready browser || return
	if [ ! -x "$chromium" ]; then
		echo "run-tests: $chromium is not installed (scripts/install-deps.sh: Debian's chromium)" >&2
		record browser 0 1 "no chromium"
		return
	fi
	if [ ! -d node_modules/playwright-core ]; then
		echo "run-tests: node_modules/playwright-core is missing (make web-deps)" >&2
		record browser 0 1 "no playwright-core"
		return
	fi
	if [ ${#browser_files[@]} -eq 0 ]; then
		browser_files=(tests/browser/*.test.mjs)
	fi
	rm -rf "$artifacts/screenshots"
	run_node_suite browser "$artifacts/browser.tap" "${browser_files[@]}"
	echo "   screenshots: tests/artifacts/screenshots/"
}

start=$(date +%s)
times=()
for s in "${suites[@]}"; do
	t0=$(date +%s)
	"run_$s"
	times+=("$s $(($(date +%s) - t0)) s")
done
elapsed=$(($(date +%s) - start))

echo
echo "== summary (${elapsed} s: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g'))"
for line in "${summary[@]}"; do echo "   $line"; done
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
