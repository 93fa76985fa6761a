#!/bin/sh
# The .phpt tests of the php-src source the default builds come from
# (8.2.32): prints the folder holding run-tests.php and ext/json/tests,
# extracting them from the source tarball on first use (cached).
#
#   scripts/php-tests.sh        print the folder, e.g. ~/.cache/phpcmp/php/tests/php-8.2.32
#
# The tarball, first found of:
#   $PHPCMP_PHP_TARBALL                   a php-8.2.32 tarball of your own
#   scripts/build-php.sh --fetch-source   the builds-from-source script (Debian's
#                                         pristine php8.2_8.2.32.orig.tar.xz, checked)
#   $cache/dist/php8.2_8.2.32.orig.tar.xz the same file, where that script keeps it
#   apt-get source --download-only php8.2=8.2.32-1~deb12u1 (needs a deb-src
#                                         entry: scripts/apt-deb-src.sh), checked
# The cache is $PHPCMP_PHP_CACHE (default ~/.cache/phpcmp/php),
# shared with scripts/build-php.sh; the tests go to $cache/tests/php-8.2.32.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${PHPCMP_PHP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phpcmp/php}
version=8.2.32
deb_version=8.2.32-1~deb12u1
tarball_name=php8.2_8.2.32.orig.tar.xz
sha=e02aa173c236c12791696254d607da680e6d5516f8f5c2339642de7c4f944bd2
out=$cache/tests/php-$version

die() { echo "php-tests: $*" >&2; exit 1; }

if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

checked() { # file: is it the tarball we expect?
	[ -f "$1" ] && [ "$(sha256sum < "$1" | cut -d' ' -f1)" = "$sha" ]
}

tarball=${PHPCMP_PHP_TARBALL:-}
if [ -z "$tarball" ] && [ -x "$root/scripts/build-php.sh" ]; then
	tarball=$("$root/scripts/build-php.sh" --fetch-source)
fi
if [ -z "$tarball" ] && checked "$cache/dist/$tarball_name"; then
	tarball=$cache/dist/$tarball_name
fi
if [ -z "$tarball" ]; then
	mkdir -p "$cache/dist"
	tmp=$(mktemp -d "$cache/dist/download.XXXXXX")
	chmod 755 "$tmp"
	if ! (cd "$tmp" && apt-get source -q --download-only "php8.2=$deb_version") >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		rm -rf "$tmp"
		die "apt-get source php8.2=$deb_version failed (no deb-src entry? scripts/apt-deb-src.sh adds one)"
	fi
	checked "$tmp/$tarball_name" || { rm -rf "$tmp"; die "$tarball_name: not the expected sha256 $sha"; }
	mv -f "$tmp/$tarball_name" "$cache/dist/$tarball_name"
	rm -rf "$tmp"
	tarball=$cache/dist/$tarball_name
fi
[ -f "$tarball" ] || die "no tarball at $tarball"

mkdir -p "$cache/tests"
tmp=$(mktemp -d "$cache/tests/extract.XXXXXX")
tar -xf "$tarball" -C "$tmp" --wildcards "php-$version/run-tests.php" "php-$version/ext/json/tests/*" ||
	{ rm -rf "$tmp"; die "cannot extract run-tests.php and ext/json/tests from $tarball"; }
[ -f "$tmp/php-$version/run-tests.php" ] || { rm -rf "$tmp"; die "$tarball holds no php-$version/run-tests.php"; }
touch "$tmp/php-$version/.done"
rm -rf "$out"
mv "$tmp/php-$version" "$out"
rm -rf "$tmp"
echo "$out"
