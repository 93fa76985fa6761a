#!/bin/bash
# Run libFuzzer harnesses for a bounded time each; what `make fuzz` calls.
#
#   fuzz/run.sh BUILD_DIR SECONDS NAME...
#
# Harnesses run side by side, one per CPU (FUZZ_JOBS overrides): each is
# one process on one core, so each still gets its SECONDS of a whole core.
# Each harness BUILD_DIR/fuzz_NAME runs SECONDS seconds over a working
# corpus (BUILD_DIR/corpus/NAME, kept between runs) and the committed seeds
# (fuzz/corpus/NAME, read only), with fuzz/NAME.dict when there is one.
# Prints one line per harness (executions, per second, edges covered,
# corpus size) and exits non-zero if any found a crash, leak or timeout;
# the input is left as BUILD_DIR/crashes/NAME-crash-<sha1>: make it a
# regression input (fuzz/regressions/NAME/, replayed by `make unit-test`).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR SECONDS NAME..." >&2; exit 2; }
fb=$1 seconds=$2
shift 2

mkdir -p "$fb/crashes" "$fb/logs"
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}

# One harness, its line into $fb/logs/NAME.line; exit status 1 if it failed.
fuzz_one() { # name
	local name=$1 bin=$fb/fuzz_$1 work=$fb/corpus/$1 log=$fb/logs/$1.log status dict=()
	mkdir -p "$work"
	[ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$fb/crashes/$name-" "${dict[@]}" "$work" "fuzz/corpus/$name" >"$log" 2>&1
	status=$?
	local execs rate last cov ft corpus result
	execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
	rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
	ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
	corpus=$(find "$work" -type f | wc -l)
	if [ "$status" -eq 0 ]; then
		result=ok
	else
		result="FAILED (exit $status): $(grep -m1 -E 'ERROR|SUMMARY|==[0-9]+==' "$log" | cut -c1-120); see $log"
	fi
	printf '%-10s %10s %9s %7s %7s %6s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corpus" \
		"$result" >"$fb/logs/$name.line"
	[ "$status" -eq 0 ]
}

# The verdict comes from each harness's line (a status reaped by wait -n
# is not asked for twice).
failed=0
rm -f "$fb"/logs/*.line
for name in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	fuzz_one "$name" &
done
wait
printf '%-10s %10s %9s %7s %7s %6s  %s\n' harness execs exec/s cov ft corpus result
for name in "$@"; do
	cat "$fb/logs/$name.line" 2>/dev/null || { echo "$name: no result"; failed=1; }
	grep -q ' ok$' "$fb/logs/$name.line" 2>/dev/null || failed=1
done
exit "$failed"
