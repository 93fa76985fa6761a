#!/bin/sh
# The builds tests/integration/flavours.test.mjs compares (issue 16): libphp
# 8.2.32 from the same source in each supported flavour, through
# scripts/build-php.sh (docs/builds.md), into builds/:
#
#   src-8.2.32                     release (also made by scripts/src-builds.sh)
#   src-8.2.32-debug               --enable-debug
#   src-8.2.32-debug-assert-debug  the same + tests/fixtures/patches/assert-debug.patch
#                                  (built over the debug tree: seconds)
#   src-8.2.32-coverage            ext/json compiled again with --coverage over the
#                                  release tree (seconds; no CLI: docs/builds.md)
#   src-8.2.32-asan                ext/json compiled again with ASan and UBSan over
#                                  the release tree (seconds)
#   src-8.2.32-asan-overread       the same + tests/fixtures/patches/overread.patch
#                                  (tests/integration/asan.test.mjs)
#   src-8.2.32-asan-uaf            the same + tests/fixtures/patches/uaf-77843.patch
#   src-8.2.32-asan-crash-byte     the same + tests/fixtures/patches/crash-byte.patch
#                                  (a NULL store UBSan reports: asan.test.mjs)
#
# `make flavour-builds` runs it; `make test` runs that first.  Two full
# builds (release, debug) run side by side, each with make -j$(nproc): while
# one configures (one core) or links, the other compiles, so the two cores
# stay busy; the asan and coverage requests wait for the release tree and
# are built over it; then the candidates, side by side.  Every later
# request is cached (~/.cache/phpcmp/php, outside the clone:
# docs/builds.md).  Without scripts/build-php.sh (a checkout from before
# the builds-from-source machinery) it says so and does nothing; the test
# file then skips.
set -eu

cd "$(dirname "$0")/.."
build=scripts/build-php.sh
if [ ! -x "$build" ]; then
	echo "flavour-builds: no $build in this checkout: nothing built (tests/integration/flavours.test.mjs skips)" >&2
	exit 0
fi
# The source first (one download, before the builds share it).
"$build" --fetch-source >/dev/null

# Run each request of a group side by side; fail if any failed.
side_by_side() { # "args" ...
	pids=
	for req in "$@"; do
		# shellcheck disable=SC2086
		"$build" $req &
		pids="$pids $!"
	done
	status=0
	for pid in $pids; do
		wait "$pid" || status=1
	done
	return $status
}

side_by_side "--name src-8.2.32" \
	"--name src-8.2.32-debug --flavour debug" \
	"--name src-8.2.32-coverage --flavour coverage" \
	"--name src-8.2.32-asan --flavour asan"
side_by_side "--name src-8.2.32-debug-assert-debug --flavour debug --patch tests/fixtures/patches/assert-debug.patch" \
	"--name src-8.2.32-asan-overread --flavour asan --patch tests/fixtures/patches/overread.patch" \
	"--name src-8.2.32-asan-uaf --flavour asan --patch tests/fixtures/patches/uaf-77843.patch" \
	"--name src-8.2.32-asan-crash-byte --flavour asan --patch tests/fixtures/patches/crash-byte.patch"
