#!/bin/bash
# Compile the worker cores (every .c in server/core/SOURCES) against the
# headers of each PHP version phpcmp builds here, warnings as errors, with
# the flags the daemon uses (server/daemon/engine/build.c, core_start) —
# objects only: no libphp is needed, a configure-only header tree will do.
# `make core-compat-check`, run by `make test` (docs/builds.md#versions).
#
#   scripts/core-compat-check.sh [INCLUDE_ROOT...]
#
# With no argument: PHP 8.0.10 and 8.1.0RC1 from configure-only header
# trees of the tarballs in $PHPCMP_PHP_SRC_DIR (default ../shared/php-src
# beside the clone; scripts/php-headers.sh makes each tree once, then it is
# cached), and 8.2.32 from builds/base (Debian's headers, `make builds`).
# An INCLUDE_ROOT is a folder holding main/php.h, Zend/, TSRM/ (a header
# tree, a prefix's include/php, Debian's usr/include/php/API).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "core-compat-check: $*" >&2; exit 1; }

# The range the cores support, in compat.h, is the one the daemon checks
# a build's version against (build.c): the same two numbers.
for bound in OLDEST NEWEST; do
	in_core=$(sed -n "s/^#define PHPCMP_PHP_$bound \([0-9]*\).*/\1/p" "$root/server/core/compat.h")
	in_daemon=$(sed -n "s/^#define BUILD_PHP_$bound \([0-9]*\).*/\1/p" "$root/server/daemon/engine/build.c")
	[ -n "$in_core" ] && [ "$in_core" = "$in_daemon" ] ||
		die "PHPCMP_PHP_$bound (server/core/compat.h: ${in_core:-none}) and BUILD_PHP_$bound (server/daemon/engine/build.c: ${in_daemon:-none}) differ"
done

roots=("$@")
if [ ${#roots[@]} -eq 0 ]; then
	srcdir=${PHPCMP_PHP_SRC_DIR:-$root/../shared/php-src}
	tarballs=(php-8.0.10.tar.xz php-8.1.0RC1.tar.xz)
	for tarball in "${tarballs[@]}"; do
		[ -f "$srcdir/$tarball" ] ||
			die "$srcdir/$tarball is missing (set PHPCMP_PHP_SRC_DIR to the folder holding it)"
	done
	# The trees side by side: on a fresh machine each is a configure run.
	paths=$(mktemp)
	pids=()
	for i in "${!tarballs[@]}"; do
		"$root/scripts/php-headers.sh" "$srcdir/${tarballs[$i]}" >"$paths.$i" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || die "no header tree of ${tarballs[$i]} (scripts/php-headers.sh said why above)"
		roots+=("$(cat "$paths.$i")")
	done
	rm -f "$paths" "$paths".*
	base=$(ls -d "$root"/builds/base/usr/include/php/*/ 2>/dev/null | head -1)
	[ -n "$base" ] || die "no headers in builds/base (make builds fetches Debian's 8.2.32)"
	roots+=("${base%/}")
fi

sources=$(grep -v '^[[:space:]]*#' "$root/server/core/SOURCES" | grep '\.c[[:space:]]*$' || true)
[ -n "$sources" ] || die "server/core/SOURCES lists no .c file"
cc=${PHPCMP_CC:-cc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for inc in "${roots[@]}"; do
	[ -f "$inc/main/php_version.h" ] || die "$inc: no main/php_version.h (not a PHP header tree)"
	version=$(sed -n 's/^#define PHP_VERSION "\(.*\)"$/\1/p' "$inc/main/php_version.h")
	start=$(date +%s%N)
	ok=1
	for f in $sources; do
		# The flags of build.c's core_start, plus -Werror and -c.
		if ! "$cc" -std=gnu11 -D_GNU_SOURCE -O2 -g -fPIC -Wall -Wextra -Wno-unused-parameter -Werror \
			-I"$root/server/core" -I"$root/server/common" \
			-I"$inc" -I"$inc/main" -I"$inc/Zend" -I"$inc/TSRM" -I"$inc/ext" -I"$inc/sapi/embed" \
			-c "$root/server/$f" -o "$out/$(basename "$f").o"; then
			echo "core-compat-check: PHP $version ($inc): $f does not compile" >&2
			ok=0
		fi
	done
	ms=$((($(date +%s%N) - start) / 1000000))
	if [ $ok = 1 ]; then
		printf 'core-compat-check: PHP %s: %d files compile (%d.%d s, %s)\n' \
			"$version" "$(echo "$sources" | wc -l)" $((ms / 1000)) $((ms % 1000 / 100)) "$inc"
	else
		failed=1
	fi
done
exit $failed
