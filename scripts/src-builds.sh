#!/bin/sh
# The from-source builds the test suite uses (tests/integration/srcbuilds.test.mjs,
# tests/integration/buildcache.test.mjs): libphp 8.2.32 from Debian's
# pristine tarball, release flavour, as builds/src-8.2.32, and the same
# source plus each fixture patch of tests/fixtures/patches/ that a release
# build shows, as builds/src-8.2.32-<patch>, and CI's fixed set of mutants
# (tests/fixtures/mutants.txt, scripts/mutate.py) as
# builds/src-8.2.32-mut-<id>.  `make src-builds` runs it; `make test` runs
# it beside scripts/flavour-builds.sh (make php-builds).
#
# The first run builds the base (about two minutes on two cores, more on a
# busy machine) and each candidate over it (seconds each); after that every
# request is cached and the whole script takes about a second.  The cache
# is $PHPCMP_PHP_CACHE (default ~/.cache/phpcmp/php): see docs/builds.md.
set -eu

cd "$(dirname "$0")/.."
build=scripts/build-php.sh
patches=tests/fixtures/patches

# Candidates two at a time (each a make over the base's tree: mostly one
# core's compile, then a link): "NAME=PATCH" each.
two_at_a_time() {
	while [ $# -gt 0 ]; do
		"$build" --name "${1%%=*}" --patch "${1#*=}" &
		first=$!
		second=
		if [ $# -gt 1 ]; then
			"$build" --name "${2%%=*}" --patch "${2#*=}" &
			second=$!
		fi
		wait "$first"
		[ -z "$second" ] || wait "$second"
		shift $(($# > 1 ? 2 : 1))
	done
}

"$build" --name src-8.2.32
set --
for p in keys-fastpath keys-fastpath-wrong escape-del flag-ignored error-not-set crash-byte crash-control \
	guard-kept nested-indent long-tail block-edge; do
	set -- "$@" "src-8.2.32-$p=$patches/$p.patch"
done
two_at_a_time "$@"

# CI's fixed set of mutants (tests/fixtures/mutants.txt, the mutants test):
# the same one-file patches over the same base, so the test finds them
# cached (the cache is keyed by a patch's content, not its name).
mutants=$(mktemp -d)
trap 'rm -rf "$mutants"' EXIT
set --
for id in $(grep -v '^#' tests/fixtures/mutants.txt | cut -f1); do
	python3 scripts/mutate.py --patch "$id" -o "$mutants/$id.patch"
	set -- "$@" "src-8.2.32-mut-$id=$mutants/$id.patch"
done
two_at_a_time "$@"
