# TAP for the shell unit tests (the twin of tap.h), sourced after `set -u`:
# root (the checkout), tmp (a folder removed at exit), ok COND DESCRIPTION
# (COND 0 passes), tap_done (the plan; the status of the whole file).
root=$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { # cond description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
tap_done() {
	echo "1..$n"
	[ "$failed" = 0 ]
}
