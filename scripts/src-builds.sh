#!/bin/sh
# The from-source builds the test suite uses (tests/integration/srcbuilds.test.mjs,
# tests/integration/buildcache.test.mjs): libphp 8.2.32 from Debian's
# pristine tarball, release flavour, as builds/src-8.2.32, and the same
# source plus each fixture patch of tests/fixtures/patches/ that a release
# build shows, as builds/src-8.2.32-<patch>.  `make src-builds` runs it;
# `make test` runs that first.
#
# The first run builds the base (about two minutes on two cores, more on a
# busy machine) and each candidate over it (seconds each); after that every
# request is cached and the whole script takes about a second.  The cache
# is $PHPCMP_PHP_CACHE (default ~/.cache/phpcmp/php): see docs/builds.md.
set -eu

cd "$(dirname "$0")/.."
build=scripts/build-php.sh
patches=tests/fixtures/patches

"$build" --name src-8.2.32
# The candidates two at a time (each a make over the base's tree: mostly
# one core's compile, then a link).
set -- keys-fastpath keys-fastpath-wrong escape-del flag-ignored error-not-set crash-byte crash-control
while [ $# -gt 0 ]; do
	"$build" --name "src-8.2.32-$1" --patch "$patches/$1.patch" &
	first=$!
	second=
	if [ $# -gt 1 ]; then
		"$build" --name "src-8.2.32-$2" --patch "$patches/$2.patch" &
		second=$!
	fi
	wait "$first"
	[ -z "$second" ] || wait "$second"
	shift $(($# > 1 ? 2 : 1))
done
