#!/bin/sh
# The builds tests/integration/flavours.test.mjs compares (issue 16): libphp
# 8.2.32 from the same source in each supported flavour, through
# scripts/build-php.sh (docs/builds.md), into builds/:
#
#   src-8.2.32                     release (also made by scripts/src-builds.sh)
#   src-8.2.32-debug               --enable-debug
#   src-8.2.32-debug-assert-debug  the same + tests/fixtures/patches/assert-debug.patch
#                                  (built over the debug tree: seconds)
#   src-8.2.32-coverage            --coverage (always a full build)
#   src-8.2.32-asan                --enable-address-sanitizer --enable-undefined-sanitizer
#   src-8.2.32-asan-overread       the same + tests/fixtures/patches/overread.patch
#                                  (built over the asan tree: seconds;
#                                  tests/integration/asan.test.mjs)
#
# `make flavour-builds` runs it; `make test` runs that first.  Three full
# builds the first time (about four minutes each on two idle cores), every
# later request cached.  Without scripts/build-php.sh (a checkout from before
# the builds-from-source machinery) it says so and does nothing; the test
# file then skips.
set -eu

cd "$(dirname "$0")/.."
build=scripts/build-php.sh
if [ ! -x "$build" ]; then
	echo "flavour-builds: no $build in this checkout: nothing built (tests/integration/flavours.test.mjs skips)" >&2
	exit 0
fi
"$build" --name src-8.2.32
"$build" --name src-8.2.32-debug --flavour debug
"$build" --name src-8.2.32-debug-assert-debug --flavour debug --patch tests/fixtures/patches/assert-debug.patch
"$build" --name src-8.2.32-coverage --flavour coverage
"$build" --name src-8.2.32-asan --flavour asan
"$build" --name src-8.2.32-asan-overread --flavour asan --patch tests/fixtures/patches/overread.patch
