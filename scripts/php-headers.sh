#!/bin/bash
# A configure-only header tree of a php-src source: the headers the worker
# cores compile against (main/php_config.h and the rest), without building
# PHP.  Used by `make core-compat-check` (docs/builds.md#versions).
#
#   scripts/php-headers.sh SOURCE [OUTDIR]
#
# SOURCE is a php-src tarball (.tar.xz, .tar.gz, .tar.bz2: a release tarball
# or a `git archive` of php-src, as ../shared/php-src/ holds) or a php-src
# folder (read only: copied first).  OUTDIR defaults to
# $PHPCMP_PHP_CACHE/headers/VERSION-SHA (PHPCMP_PHP_CACHE defaults to
# ~/.cache/phpcmp/php, as for scripts/build-php.sh), where SHA is the first 16
# hex digits of the tarball's sha256 (of a folder: its path's).  Prints
# OUTDIR, the include root (OUTDIR/main/php.h, OUTDIR/Zend/, ...).  A tree
# already made is not made again: only the first call extracts and
# configures (seconds to a few minutes on a busy machine); later ones print
# the path at once.
#
# Steps: extract; ./buildconf --force when the source has no configure (git
# trees; needs autoconf); ./configure --disable-all --enable-embed=shared
# --disable-cgi --disable-phpdbg (the line scripts/build-php.sh uses, less
# --with-pic and --prefix, which do not change a header); then every file
# but the headers is deleted (a tree of ~10 MB instead of ~130).  No make:
# the generated parser headers (zend_language_parser.h, ...) are absent, and
# nothing the cores include needs them.
set -euo pipefail

die() { echo "php-headers: $*" >&2; exit 1; }
log() { echo "php-headers: $*" >&2; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/php-headers.sh SOURCE [OUTDIR]"
source=$1
[ -e "$source" ] || die "$source: no such file or folder"
source=$(realpath "$source")
cache=${PHPCMP_PHP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phpcmp/php}

if [ -d "$source" ]; then
	sha=$(printf '%s' "$source" | sha256sum | cut -c1-16)
	[ -f "$source/main/php_version.h" ] || die "$source: not a php-src folder (no main/php_version.h)"
	version=$(sed -n 's/^#define PHP_VERSION "\(.*\)"$/\1/p' "$source/main/php_version.h")
else
	sha=$(sha256sum "$source" | cut -c1-16)
	version=$(tar -xOf "$source" --wildcards '*/main/php_version.h' 2>/dev/null |
		sed -n 's/^#define PHP_VERSION "\(.*\)"$/\1/p' | head -1) ||
		true
fi
[ -n "$version" ] || die "$source: no PHP_VERSION in main/php_version.h"
out=${2:-$cache/headers/$version-$sha}

if [ -f "$out/phpcmp-headers.txt" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$(dirname "$out")"
out=$(realpath -m "$out")
# One maker at a time per tree; the loser finds it made.
exec {lockfd}>"$out.lock"
flock "$lockfd"
if [ -f "$out/phpcmp-headers.txt" ]; then
	echo "$out"
	exit 0
fi
for tool in autoconf bison re2c xz; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done

tmp=$out.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
logf=$tmp.log
trap 'rm -rf "$tmp"; [ -f "$out/phpcmp-headers.txt" ] || log "failed; log: $logf"' EXIT
start=$SECONDS
log "PHP $version from $source into $out (log: $logf)"
if [ -d "$source" ]; then
	(cd "$source" && tar --exclude=./.git -cf - .) | tar -xf - -C "$tmp"
else
	# Tests are not needed for headers: a third of the tree, left out.
	tar -xf "$source" -C "$tmp" --strip-components=1 --exclude='*/tests/*'
fi
if [ ! -x "$tmp/configure" ]; then
	(cd "$tmp" && ./buildconf --force) >"$logf" 2>&1 || die "buildconf failed (log: $logf)"
fi
configure_args=(--disable-all --enable-embed=shared --disable-cgi --disable-phpdbg)
(cd "$tmp" && ./configure "${configure_args[@]}") >>"$logf" 2>&1 || die "configure failed (log: $logf)"
[ -f "$tmp/main/php_config.h" ] || die "configure made no main/php_config.h (log: $logf)"
find "$tmp" -type f ! -name '*.h' -delete
find "$tmp" -depth -type d -empty -delete
cat >"$tmp/phpcmp-headers.txt" <<EOF
version=$version
source=$source
sha256=$sha
configure=${configure_args[*]}
EOF
rm -rf "$out"
mv "$tmp" "$out"
rm -f "$logf"
log "PHP $version headers in $out ($((SECONDS - start)) s)"
echo "$out"
