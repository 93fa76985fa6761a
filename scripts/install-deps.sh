#!/bin/sh
# Install what phpcmp needs to build, run and test, from Debian's packages.
# Idempotent; run as root (or with sudo available).  `make deps` calls it.
#
#   scripts/install-deps.sh          build + run + test dependencies (default)
#   scripts/install-deps.sh --run    only what building and running needs
#   PHPCMP_DEPS=run make deps        the same through make (the Docker image)
#   scripts/install-deps.sh --if-missing [--run]
#                                    nothing unless a package is missing: what
#                                    `make run` and `make test` call first, so
#                                    each works alone on a fresh machine
#
# Nothing here installs libphp itself: the two default builds are fetched
# side by side into builds/ by scripts/fetch-default-builds.sh (which needs
# the `apt-get update` done here).
set -eu

mode=${PHPCMP_DEPS:-all}
if_missing=
for arg in "$@"; do
	case $arg in
	--run) mode=run ;;
	--all) mode=all ;;
	--if-missing) if_missing=--if-missing ;;
	*) echo "usage: $0 [--run|--all] [--if-missing]" >&2; exit 2 ;;
	esac
done
case $mode in
	run | all) ;;
	*) echo "install-deps: PHPCMP_DEPS must be run or all, not '$mode'" >&2; exit 2 ;;
esac

# Build: the daemon, the worker loader, and the per-build worker cores
# (compiled at startup against each libphp's headers, so a compiler is a
# runtime dependency too).  dpkg-dev: dpkg-deb/dpkg -x for the build fetch.
# libssl-dev: the daemon hashes libraries with OpenSSL's EVP (only
# "suggested" by libcurl4-openssl-dev, so not pulled in).  valgrind also
# brings valgrind/callgrind.h for the measuring worker core (and
# valgrind/valgrind.h for the loader).  libseccomp-dev: the workers'
# sandbox filter (server/worker/sandbox.c, docs/sandbox.md).  libpcre2-dev:
# .phpt expectations are PCRE, matched as PHP does (server/daemon/model/phpt.c).
run_pkgs="build-essential gcc make pkg-config dpkg-dev ca-certificates xz-utils
	libmicrohttpd-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev
	libssl-dev libseccomp-dev libpcre2-dev valgrind curl sqlite3"
# The shared libraries Debian's libphp8.2-embed links to (objdump -p: its
# NEEDED entries): the default builds are unpacked with dpkg -x, not
# installed, so nothing else brings them (a bare Debian image has none of
# libxml2, libargon2, libsodium).
run_pkgs="$run_pkgs libargon2-1 libsodium23 libxml2 libssl3 libpcre2-8-0 zlib1g"
# Building libphp from a php-src source (scripts/build-php.sh,
# docs/builds.md): patch, re2c and bison (a patch to a .re or .y file is
# silently not rebuilt without them: configure must find them), autoconf
# for a checkout that has no configure yet (buildconf).  --disable-all
# needs no library headers.  ccache: a PHP tree rebuilt at the same path
# compiles from its cache (scripts/build-php.sh).
run_pkgs="$run_pkgs patch re2c bison autoconf ccache"
# bubblewrap: build-php.sh runs configure, make and make install of a
# patched tree inside a bwrap sandbox (no network, read-only system, an
# unprivileged uid via setpriv from util-linux): docs/builds.md#sandbox.
run_pkgs="$run_pkgs bubblewrap"
# Coverage runs (docs/coverage.md): gcovr reads a coverage build's counters
# and writes the report (HTML, Cobertura XML, JSON) the daemon serves.
run_pkgs="$run_pkgs gcovr"
# jq: README.md's examples take ids and fields from the API's answers with
# it (`run=$(curl … | jq -r .id)`), and tests/integration/readme.test.mjs
# runs them; `make run` installs only this set.
run_pkgs="$run_pkgs jq"

# Tests and benchmarks: prove (perl) for TAP unit tests, node's built-in test
# runner for the integration suite, php-cli for checking the stored cases
# (scripts/check-cases.php), python3 for bench/, chromium for browser tests
# of the page, clang with its runtime libraries (libFuzzer, sanitizers) for
# `make fuzz`, llvm for `make fuzz-coverage` (llvm-cov, llvm-profdata),
# clang-format for `make format-check` (.clang-format).
test_pkgs="perl php8.2-cli python3 chromium clang libclang-rt-dev llvm clang-format"

pkgs=$run_pkgs
if [ "$mode" = all ]; then
	pkgs="$pkgs $test_pkgs"
fi
# Node.js >= 18 with npm, for running too: `npm ci` (make web-deps) installs
# the page's libraries from package-lock.json; the tests run on node --test.
# Machines of this project come with NodeSource's Node 20, whose package
# bundles npm and conflicts with Debian's npm: only install Debian's
# nodejs + npm when node is absent.
if ! command -v node >/dev/null 2>&1; then
	pkgs="$pkgs nodejs npm"
elif ! command -v npm >/dev/null 2>&1; then
	pkgs="$pkgs npm"
fi

if [ -n "$if_missing" ]; then
	missing=
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		exit 0
	fi
	echo "install-deps: missing:$missing"
fi

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo -- "$0" "--$mode" $if_missing
	fi
	echo "install-deps: must run as root (no sudo found)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $pkgs

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
	echo "install-deps: node $(node --version) is too old; need >= 18" >&2
	exit 1
fi
echo "install-deps: done ($mode)"
