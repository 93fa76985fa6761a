#!/bin/bash
# Build libphp's embed SAPI from a php-src source, with patches, into a
# build prefix the daemon accepts (lib/libphp.so + include/php/), cached.
#
#   scripts/build-php.sh --name NAME [--source TARBALL|DIR] [--patch FILE]...
#                        [--flavour release|debug|asan|coverage] [--full]
#                        [--instrument-all] [--no-cli] [--jobs N] [--builds DIR]
#   scripts/build-php.sh --fetch-source     download + check the default tarball, print its path
#   scripts/build-php.sh --key ...          print the cache key of a request, build nothing
#   scripts/build-php.sh --plan ...         say what a request would do (cached, full, reused), build nothing
#
# The default source is Debian's pristine php8.2_8.2.32.orig.tar.xz
# (apt-get source --download-only, sha256 checked against
# scripts/php-source.sha256; the deb-src entry comes from
# scripts/apt-deb-src.sh).  Patches apply with patch -p1 in the source's
# top folder, in the order given.
#
# Configure: --enable-embed=shared --disable-all --disable-cgi
# --disable-phpdbg --with-pic, the CLI kept (bin/php), out of tree.  Flavours:
#   release   CFLAGS="-g -O2"                  (default)
#   debug     --enable-debug                    (engine assertions on, -O0)
#   asan      --enable-address-sanitizer --enable-undefined-sanitizer,
#             -g -O1 -fsanitize-recover=address (a report does not end the
#             process: phpcmp reads it back after the case, docs/sandbox.md)
#   coverage  CFLAGS="-g -O2 --coverage" LDFLAGS=--coverage
#
# The two instrumented flavours (asan, coverage) are by default built over
# the release tree, as a candidate is (below): ext/json and every file the
# patches touch are compiled again with the flavour's flags, and libphp is
# linked again with them — a minute instead of a full build of half an
# hour, and what the daemon reads (memory errors in json_encode's code,
# coverage of ext/json) is instrumented.  Memory errors in the rest of PHP
# (the engine, the allocator's callers) are not seen: --instrument-all
# builds the whole tree in the flavour (configure --enable-address-sanitizer
# …, a full build once; its candidates over it).
#
# The cache ($PHPCMP_PHP_CACHE, default ~/.cache/phpcmp/php: outside the
# clone, so a second clone or a CI run on a warm machine finds its builds) holds
# one tree per key = sha256(source's sha256, patches' contents in order,
# flavour, configure line, compiler version):
#   trees/KEY/src, obj, prefix     a full build, in place (never changed once done)
#   trees/KEY/upper, prefix        a candidate built over a full tree (below)
#   trees/KEY/build-info           what was built and how (also in prefix/phpcmp-build.txt)
#   trees/KEY/steps                one line per step that ran (configure, make...)
# builds/NAME becomes a symbolic link to trees/KEY/prefix.  A request whose
# tree is done does nothing else ("cached").
#
# A candidate (patches, and its unpatched tree — the "donor" — of the same
# source and flavour) is built over the donor's tree without copying it: in
# a private mount namespace an overlay (lower: the donor's tree, upper: the
# candidate's own folder) is mounted on the donor's own path, so every
# absolute path in the Makefile, libtool and .dep files stays right; the
# patches apply there, make recompiles what they touched and relinks, and
# the candidate's prefix is the donor's (hard links) with its own
# lib/libphp.so and bin/php.  The donor is never written, and other
# processes never see the overlay.  Patches to configure, *.m4, Makefiles,
# build/ or scripts/, patches adding or deleting files, a candidate of the
# whole-tree coverage flavour (--instrument-all: its .gcda paths would name
# the donor's tree), --full, or no mount
# namespace or overlay (not root and no user namespaces) give a full build
# instead.  Headers changed: the
# candidate's prefix gets a full `make install`.
#
# Every step that runs code of the source or the patches (patch, buildconf,
# configure, make, make install, a candidate's make in its overlay) runs in
# the build sandbox (`sandboxed`, below; docs/builds.md#sandbox): bubblewrap,
# no network, an unprivileged uid, only the build's own tree writable.
#
# Builds of different keys run side by side (one tree each); two requests
# for the same key wait for each other (flock on trees/KEY.lock).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${PHPCMP_PHP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phpcmp/php}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

DEFAULT_DEB_VERSION=8.2.32-1~deb12u1
DEFAULT_TARBALL=php8.2_8.2.32.orig.tar.xz
# Bump when the way a tree is built changes: every key changes with it.
RECIPE=1

die() { echo "build-php: $*" >&2; exit 1; }
log() { echo "build-php: $*" >&2; }

usage() {
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# ---- the default source ---------------------------------------------------

expected_sha() { # tarball name
	awk -v f="$1" '$2 == f { print $1 }' "$root/scripts/php-source.sha256"
}

# Prints only the tarball's path (callers take it with $(...)); everything
# else goes to stderr.  Fetches run one at a time (flock on dist/.lock):
# make php-builds starts several builds at once on a fresh machine, and two
# fetches would each add the deb-src entries and run apt-get update.
fetch_source() {
	local dist=$cache/dist file want tmp lockfd
	file=$dist/$DEFAULT_TARBALL
	want=$(expected_sha "$DEFAULT_TARBALL")
	[ -n "$want" ] || die "no sha256 for $DEFAULT_TARBALL in scripts/php-source.sha256"
	mkdir -p "$dist"
	exec {lockfd}>"$dist/.lock"
	flock "$lockfd"
	if [ -f "$file" ] && [ "$(sha256sum < "$file" | cut -d' ' -f1)" = "$want" ]; then
		exec {lockfd}>&-
		echo "$file"
		return
	fi
	tmp=$(mktemp -d "$dist/download.XXXXXX")
	chmod 755 "$tmp"
	if ! (cd "$tmp" && apt-get source -q --download-only "php8.2=$DEFAULT_DEB_VERSION") >"$tmp/log" 2>&1; then
		# No deb-src entry yet (or stale lists): derive one from the
		# machine's own apt sources, update, try again.
		log "apt-get source failed; adding deb-src entries (scripts/apt-deb-src.sh)"
		"$root/scripts/apt-deb-src.sh" >&2
		(cd "$tmp" && apt-get source -q --download-only "php8.2=$DEFAULT_DEB_VERSION") >"$tmp/log" 2>&1 ||
			{ cat "$tmp/log" >&2; rm -rf "$tmp"; die "apt-get source php8.2=$DEFAULT_DEB_VERSION failed"; }
	fi
	[ -f "$tmp/$DEFAULT_TARBALL" ] || { cat "$tmp/log" >&2; rm -rf "$tmp"; die "apt-get source gave no $DEFAULT_TARBALL"; }
	local got
	got=$(sha256sum < "$tmp/$DEFAULT_TARBALL" | cut -d' ' -f1)
	if [ "$got" != "$want" ]; then
		rm -rf "$tmp"
		die "$DEFAULT_TARBALL: sha256 $got, expected $want"
	fi
	mv -f "$tmp/$DEFAULT_TARBALL" "$file"
	rm -rf "$tmp"
	exec {lockfd}>&-
	log "source: $file (sha256 $want)"
	echo "$file"
}

# ---- the request ------------------------------------------------------------

name= source= flavour=release jobs= full= no_cli= instrument_all= builds_dir=$root/builds action=build
patches=()
while [ $# -gt 0 ]; do
	case $1 in
	--name) name=${2:?}; shift 2 ;;
	--source) source=${2:?}; shift 2 ;;
	--patch) patches+=("${2:?}"); shift 2 ;;
	--flavour | --flavor) flavour=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--builds) builds_dir=${2:?}; shift 2 ;;
	--full) full=1; shift ;;
	--no-cli) no_cli=1; shift ;;
	--instrument-all) instrument_all=1; shift ;;
	--key) action=key; shift ;;
	--plan) action=plan; shift ;;
	--fetch-source) action=fetch; shift ;;
	--_overlay) action=overlay; shift ;;
	-h | --help) usage ;;
	*) echo "build-php: unknown argument '$1'" >&2; usage ;;
	esac
done

if [ "$action" = fetch ]; then
	fetch_source
	exit 0
fi

jobs=${jobs:-$(nproc 2>/dev/null || echo 2)}

# --with-pic: libtool compiles every file twice (.libs/x.o for libphp.so,
# x.o for bin/php); by default the second without -fPIC.  With it both
# compiles are the same command, so ccache (below) answers the second from
# the first: half a full build's compiling, on a fresh machine too.
# The configure line and flags of a flavour built in full.
flavour_flags() { # flavour
	configure_args=(--enable-embed=shared --disable-all --disable-cgi --disable-phpdbg --with-pic)
	case $1 in
	release) cflags="-g -O2" ldflags= ;;
	debug) cflags="-g" ldflags=; configure_args+=(--enable-debug) ;;
	asan)
		cflags="-g -O1 -fno-omit-frame-pointer -fsanitize-recover=address" ldflags=
		configure_args+=(--enable-address-sanitizer --enable-undefined-sanitizer) ;;
	coverage) cflags="-g -O2 --coverage" ldflags="--coverage" ;;
	*) die "unknown flavour '$1' (release, debug, asan, coverage)" ;;
	esac
	# --no-cli: libphp.so alone, no bin/php (configure --disable-cli).  With no
	# program to link, libtool compiles every file once instead of twice (the
	# coverage flavour's twin compiles differ in their notes' paths, so ccache
	# cannot serve the second): for builds nothing runs run-tests.php with.
	if [ -n "$no_cli" ] && [ -z "$instrument" ]; then
		configure_args+=(--disable-cli)
	fi
}

# An instrumented flavour over the release tree (the default for asan and
# coverage): the release flags for the donor, and the flavour's own for
# what is compiled again (inst_cflags; inst_ldflags for the link).  The
# asan flags are the ones configure --enable-address-sanitizer
# --enable-undefined-sanitizer adds, less -DZEND_TRACK_ARENA_ALLOC (it
# changes the arena's inline functions, which the engine's uninstrumented
# objects share).  The coverage flavour's notes name the candidate's own
# copy of ext/json's sources (-ffile-prefix-map, added per tree below), and
# it has no CLI: run outside the daemon, a CLI would write its counters into
# the donor's tree.
instrument= inst_cflags= inst_ldflags=
if [ -z "$instrument_all" ]; then
	case $flavour in
	asan)
		instrument=ext/json
		inst_cflags="-O1 -fno-omit-frame-pointer -fsanitize=address -fsanitize-recover=address -fsanitize=undefined -fno-sanitize-recover=undefined -fno-sanitize=object-size" ;;
	coverage)
		instrument=ext/json no_cli=1
		inst_cflags="--coverage" inst_ldflags="--coverage" ;;
	esac
fi
# The flavour of a full build here: the donor's, release, for an
# instrumented one (until a patch to the build system needs a full build of
# its own: full_flavour becomes the flavour).
full_flavour=$([ -n "$instrument" ] && echo release || echo "$flavour")
flavour_flags "$full_flavour"

# ---- the build sandbox (docs/builds.md#sandbox) ---------------------------
#
# `sandboxed CMD...` runs CMD as one step of a build: in bubblewrap (bwrap)
# with no network (its own empty network namespace), its own pid, ipc, uts
# and cgroup namespaces, killed with this script (--die-with-parent), in a
# new session; the system read-only (--ro-bind / /) with /tmp (1 GiB), /run,
# /var/tmp, /root, /home, $HOME and the whole cache replaced by empty
# tmpfs, so other builds' trees, sockets and homes are not there; the
# folders in sb_binds (this build's own tree: sb_rw) the only writable ones;
# as root, setpriv then drops to PHPCMP_BUILD_UID (default 65533, a uid no
# account or process of the machine has) with no groups, no capabilities
# (inheritable and bounding sets emptied) and no_new_privs; as anyone else,
# their own uid in a user namespace.  A clean environment (env -i: PATH,
# HOME=/tmp, the locale, sb_env), `timeout` (PHPCMP_BUILD_TIMEOUT s,
# default 4 h), no file larger than PHPCMP_BUILD_MAX_FILE_MB (ulimit -f,
# default 2048) and the writable tree watched: past PHPCMP_BUILD_MAX_DISK_MB
# (default 8192) the step is stopped.  sb_overlay=(LOWER UPPER WORK): the
# overlay of a candidate, mounted on LOWER in a private mount namespace
# (unshare) that bwrap then runs in, so the same sandbox holds it (bwrap
# 0.8, Debian 12's, has no --overlay).  PHPCMP_BUILD_SANDBOX=0 runs every
# step unconfined, as before: loud, for debugging only.
sandbox=${PHPCMP_BUILD_SANDBOX:-1}
build_uid=${PHPCMP_BUILD_UID:-65533}
build_gid=${PHPCMP_BUILD_GID:-$build_uid}
build_timeout=${PHPCMP_BUILD_TIMEOUT:-14400}
max_disk_mb=${PHPCMP_BUILD_MAX_DISK_MB:-8192}
max_file_mb=${PHPCMP_BUILD_MAX_FILE_MB:-2048}
# Where the steps find this folder's scripts (libtool-replay.sh): bound
# read-only on a fixed path, whatever the clone's own path allows.
sb_scripts=/run/phpcmp/scripts
[ "$sandbox" != 0 ] || sb_scripts=$root/scripts
sb_reset() { sb_binds=() sb_env=() sb_watch=() sb_overlay=() sb_cwd=/; }
sb_reset
sb_rw() { # folders the step may write (and whose size is watched)
	local d
	for d; do
		sb_binds+=(--bind "$d" "$d")
		sb_watch+=("$d")
	done
}

sandboxed() { # CMD...
	local mnt=() cmd=() drop ns=() d status=0 pid watch=
	if [ ${#sb_overlay[@]} -gt 0 ]; then
		# Root: a mount namespace.  Anyone else: a user namespace mapping
		# them to root in it, where the kernel allows overlays (Linux >= 5.11).
		# Exit status 3: no overlay here (the caller then builds in full).
		mnt=(unshare --mount --propagation private)
		[ "$(id -u)" -eq 0 ] || mnt=(unshare --user --map-root-user --mount --propagation private)
		mnt+=(sh -c 'mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" || exit 3; shift 3; exec "$@"'
			sh "${sb_overlay[@]}")
	fi
	if [ "$sandbox" = 0 ]; then
		(cd "$sb_cwd" && "${mnt[@]}" env "${sb_env[@]}" "$@")
		return
	fi
	if [ "$(id -u)" -eq 0 ]; then
		drop=(setpriv --reuid="$build_uid" --regid="$build_gid" --clear-groups
			--inh-caps=-all --bounding-set=-all --no-new-privs --)
	else
		ns=(--unshare-user)
		drop=(setpriv --no-new-privs --)
	fi
	cmd=("${mnt[@]}" timeout -k 10 "$build_timeout" bwrap --die-with-parent --new-session
		--unshare-net --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try "${ns[@]}"
		--hostname phpcmp-build --ro-bind / / --dev /dev --proc /proc --size $((1024 << 20)) --tmpfs /tmp --chmod 1777 /tmp)
	local hidden=() binds=(--ro-bind "$root/scripts" "$sb_scripts" "${sb_binds[@]}") i a h
	local -A seen=()
	for d in /run /var/tmp /root /home "${HOME:-/}" "$cache"; do
		[ "$d" != / ] && [ -d "$d" ] && [ -z "${seen[$d]:-}" ] || continue
		seen[$d]=1
		hidden+=("$d")
		cmd+=(--tmpfs "$d")
	done
	# A bind's folders inside a hidden one are made by bwrap, 0700 unless
	# told: made 0755, so the build uid can reach what is bound there.
	for ((i = 2; i < ${#binds[@]}; i += 3)); do
		a=
		for d in $(dirname "${binds[i]}" | tr / ' '); do # top down
			a=$a/$d
			for h in "${hidden[@]}"; do
				case $a in "$h"/*) [ -n "${seen[$a]:-}" ] || cmd+=(--perms 0755 --dir "$a") ;; esac
			done
			seen[$a]=1
		done
	done
	cmd+=("${binds[@]}" --chdir "$sb_cwd" --
		"${drop[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp TMPDIR=/tmp
		${LANG:+LANG=$LANG} ${LC_ALL:+LC_ALL=$LC_ALL} "${sb_env[@]}"
		"$BASH" -c 'ulimit -f "$1" && shift && exec "$@"' sh $((max_file_mb * 1024)) "$@")
	"${cmd[@]}" <&0 &
	pid=$!
	if [ ${#sb_watch[@]} -gt 0 ]; then
		(
			s=
			trap 'kill $s 2>/dev/null; exit 0' TERM
			while :; do
				sleep 5 &
				s=$!
				wait $s
				kb=$(du -sk "${sb_watch[@]}" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
				if [ "$kb" -gt $((max_disk_mb * 1024)) ]; then
					echo "build-php: the build wrote $((kb / 1024)) MB, more than PHPCMP_BUILD_MAX_DISK_MB=$max_disk_mb: stopped" >&2
					kill -TERM "$pid" 2>/dev/null
					exit 0
				fi
			done
		) </dev/null &
		watch=$!
	fi
	wait "$pid" || status=$?
	if [ -n "$watch" ]; then
		kill -TERM "$watch" 2>/dev/null || true
		wait "$watch" 2>/dev/null || true
	fi
	return "$status"
}

# A step failed: its log's tail, what the sandbox refuses, and where it is
# documented.
step_failed() { # what log status
	local what=$1 logf=$2 status=$3 why=
	echo "build-php: last lines of $logf:" >&2
	tail -n 15 "$logf" | cut -c1-240 | sed 's/^/  | /' >&2
	case $status in
	124 | 137) why=", timed out after $build_timeout s (PHPCMP_BUILD_TIMEOUT)" ;;
	esac
	if [ "$sandbox" != 0 ]; then
		local did=()
		grep -Eq 'Read-only file system|[Cc]annot create' "$logf" && did+=("wrote outside its tree")
		grep -q 'Permission denied' "$logf" && did+=("was refused a file (outside its tree, or another user's)")
		grep -Eq 'Network is unreachable|Cannot assign requested address|Connection refused|Temporary failure in name resolution' "$logf" &&
			did+=("opened a socket")
		grep -q 'File size limit exceeded\|PHPCMP_BUILD_MAX_DISK_MB' "$logf" && did+=("wrote more than its disk limit")
		local i
		for i in "${!did[@]}"; do
			[ "$i" -eq 0 ] && why="$why; the build ${did[i]}" || why="$why / ${did[i]}"
		done
		die "$what failed (exit $status$why) inside the build sandbox, where a build writes only its own tree, reads no secret and opens no socket (sandbox: docs/builds.md#sandbox); log: $logf"
	fi
	die "$what failed (exit $status$why; log: $logf)"
}

# Root: PATHS become the build uid's where they are not yet (the tree a
# sandboxed step writes, the folders a candidate's make writes through its
# overlay).
own() { # paths...
	[ "$sandbox" != 0 ] && [ "$(id -u)" -eq 0 ] || return 0
	local d
	for d; do
		[ -z "$(find "$d" \( ! -user "$build_uid" -o ! -group "$build_gid" \) -print -quit)" ] ||
			chown -R "$build_uid:$build_gid" "$d"
	done
}
# Root: PATHS back to root, never writable by a build again (and readable
# by all: link recipes are written 0600).
unown() { # paths...
	[ "$(id -u)" -eq 0 ] || return 0
	chown -R 0:0 "$@"
	chmod -R go+rX "$@"
}

# ---- the inner half of a candidate build (in its sandbox, the overlay mounted) --

if [ "$action" = overlay ]; then
	# Environment: TREE (the candidate's), DONOR (the donor's tree, the
	# overlay mounted on it), INSTALL (fast or full), LOGF, RECIPES (the
	# donor's link recipes), PREFIX_BOUND (TREE/prefix is bound on
	# DONOR/prefix).  Patches are in "${patches[@]}".
	for p in "${patches[@]}"; do
		patch -d "$DONOR/src" -p1 --batch --forward -s < "$p" >>"$LOGF" 2>&1 ||
			die "patch $p does not apply (log: $LOGF)"
	done
	make_vars=()
	if [ -n "${INSTRUMENT:-}" ]; then
		# The donor's objects of the instrumented folder hidden (whiteouts
		# in the overlay): make compiles them again, and what the patches
		# touched, with the flavour's flags, and links with them.
		echo "instrument $INSTRUMENT" >> "$TREE/steps"
		rm -f "$DONOR/obj/$INSTRUMENT"/*.lo "$DONOR/obj/$INSTRUMENT"/*.o "$DONOR/obj/$INSTRUMENT"/.libs/*.o
		make_vars=(EXTRA_CFLAGS="$INSTRUMENT_CFLAGS" LDFLAGS="$INSTRUMENT_LDFLAGS")
	fi
	echo "make" >> "$TREE/steps"
	t0=$(date +%s.%N)
	# libtool's links replayed where the donor's full build (or a trusted
	# build over it) recorded them (scripts/libtool-replay.sh): seconds of
	# shell saved per link.  A candidate only reads them
	# (LINK_RECIPES_READONLY): what it records would run in others' builds.
	REAL_LIBTOOL=$DONOR/obj/libtool LINK_RECIPES=$RECIPES \
		make -C "$DONOR/obj" -j"$jobs" LIBTOOL="$BASH $root/scripts/libtool-replay.sh --preserve-dup-deps" \
		"${make_vars[@]}" >>"$LOGF" 2>&1 ||
		die "make failed (log: $LOGF)"
	if [ -n "${INSTRUMENT:-}" ] && compgen -G "$DONOR/obj/$INSTRUMENT/.libs/*.gcno" >/dev/null; then
		# Coverage: the notes and the sources they name, in this tree
		# (TREE/obj, TREE/src: where the daemon and gcov look).
		mkdir -p "$TREE/obj/$INSTRUMENT/.libs" "$TREE/src/$(dirname "$INSTRUMENT")"
		cp "$DONOR/obj/$INSTRUMENT"/.libs/*.gcno "$TREE/obj/$INSTRUMENT/.libs/"
		cp -a "$DONOR/src/$INSTRUMENT" "$TREE/src/$(dirname "$INSTRUMENT")/"
	fi
	echo "build-php: make took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >>"$LOGF"
	if [ "$INSTALL" = full ]; then
		echo "make install" >> "$TREE/steps"
		make -C "$DONOR/obj" install "${make_vars[@]}" >>"$LOGF" 2>&1 || die "make install failed (log: $LOGF)"
		[ -n "${PREFIX_BOUND:-}" ] || cp -a "$DONOR/prefix/." "$TREE/prefix/"
	fi
	exit 0
fi

# ---- source identity and the key -------------------------------------------

if [ -z "$source" ]; then
	source=$(fetch_source)
fi
[ -e "$source" ] || die "no such source: $source"
source=$(cd "$(dirname "$source")" && pwd)/$(basename "$source")
if [ -d "$source" ]; then
	# Configured in place, a tree cannot be configured out of tree again.
	[ ! -e "$source/config.status" ] ||
		die "$source was configured in place: run 'make distclean' there first (or give a clean checkout)"
	# A source tree: the hash of every file's path and content (not .git).
	source_sha=$(cd "$source" && find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z |
		xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
	source_kind=tree
else
	source_sha=$(sha256sum < "$source" | cut -d' ' -f1)
	source_kind=tarball
fi

for i in "${!patches[@]}"; do
	p=${patches[$i]}
	[ -f "$p" ] || die "no such patch: $p"
	patches[$i]=$(cd "$(dirname "$p")" && pwd)/$(basename "$p")
done

cc_version=$(${CC:-cc} --version 2>/dev/null | head -1)
# ccache (Debian's), when installed, under the compiler: a tree rebuilt at
# the same path (a cache emptied, a RECIPE bump) compiles in seconds.  Its
# store is ccache's own default (~/.cache/ccache or $CCACHE_DIR), outside
# the clone.  PHPCMP_CCACHE=0 turns it off.  Not part of the key: ccache
# gives the compiler's own output.
# Its depend mode: PHP compiles with -MMD, so ccache reads the headers from
# the compiler's .dep instead of running the preprocessor once more on a
# miss (+30 % of a compile: main/main.c 1.22 s against 0.93 s bare, 0.97 s
# in depend mode) — every compile of a fresh machine is a miss.
ccache_dir=
if [ "${PHPCMP_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
	export CC="ccache ${CC:-cc}"
	export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
	ccache_dir=$(ccache -k cache_dir 2>/dev/null) || ccache_dir=
fi

# Trusted code: the default tarball (its sha256 in scripts/php-source.sha256)
# with no patch.  Anything else (a patch, --source) is a stranger's.  Only
# trusted builds write the shared ccache store and link recipes that other
# builds then use; the others read them (docs/builds.md#sandbox).
source_trusted=
if [ "$source_kind" = tarball ] && awk -v h="$source_sha" '$1 == h { f = 1 } END { exit !f }' \
	"$root/scripts/php-source.sha256"; then
	source_trusted=1
fi

# The sandbox's ccache: the compiler and ccache's settings, the store
# writable for a trusted build (owned by the build uid), read-only
# (CCACHE_READONLY, bound read-only) for any other.
sb_ccache() { # trusted (1 or empty)
	sb_env+=(CC="${CC:-cc}")
	[ -n "$ccache_dir" ] || return 0
	sb_env+=(CCACHE_DIR="$ccache_dir" CCACHE_DEPEND="$CCACHE_DEPEND" CCACHE_TEMPDIR=/tmp/ccache)
	mkdir -p "$ccache_dir"
	if [ -n "$1" ]; then
		own "$ccache_dir"
		sb_binds+=(--bind "$ccache_dir" "$ccache_dir")
	else
		sb_env+=(CCACHE_READONLY=1)
		sb_binds+=(--ro-bind "$ccache_dir" "$ccache_dir")
	fi
}

# The key of this request (request) or of its donor (donor: no patches,
# and for an instrumented flavour the release tree it is built over).  A
# release, debug or --instrument-all request's key is what it has always
# been: caches stay valid.
key_of() { # request|donor patch files...
	local kind=$1 p
	shift
	{
		echo "phpcmp build-php recipe $RECIPE"
		echo "source $source_sha"
		echo "flavour $([ "$kind" = donor ] && echo "$full_flavour" || echo "$flavour")"
		echo "configure ${configure_args[*]}"
		echo "cflags $cflags"
		echo "ldflags $ldflags"
		echo "cc $cc_version"
		if [ "$kind" = request ] && [ -n "$instrument" ]; then
			echo "instrument $instrument: $inst_cflags; link $inst_ldflags; cli ${no_cli:-yes}"
		fi
		for p in "$@"; do echo "patch $(sha256sum < "$p" | cut -d' ' -f1)"; done
	} | sha256sum | cut -c1-20
}

key=$(key_of request "${patches[@]}")
if [ "$action" = key ]; then
	echo "$key"
	exit 0
fi
if [ "$action" = build ]; then
	[ -n "$name" ] || die "--name NAME is required"
	case $name in
	*/* | .* | '') die "bad build name '$name'" ;;
	esac
	# Every check before the build starts: a build of many minutes must not
	# be lost to a name that is already taken (make run's Debian builds are
	# builds/base and builds/head).
	if [ "$sandbox" = 0 ]; then
		log "WARNING: PHPCMP_BUILD_SANDBOX=0: configure, make and every patch's code run UNCONFINED as $(id -un), with its network and files (docs/builds.md#sandbox)"
	else
		command -v bwrap >/dev/null 2>&1 ||
			die "no bwrap: install bubblewrap (scripts/install-deps.sh) — builds run in its sandbox (docs/builds.md#sandbox), nothing was built"
		if [ "$(id -u)" -eq 0 ] && getent passwd "$build_uid" >/dev/null; then
			die "PHPCMP_BUILD_UID=$build_uid is an account of this machine ($(getent passwd "$build_uid" | cut -d: -f1)): the build uid must be one no one uses (docs/builds.md#sandbox), nothing was built"
		fi
	fi
	if [ -e "$builds_dir/$name" ] && [ ! -L "$builds_dir/$name" ]; then
		die "$builds_dir/$name exists and is not a link made by build-php: choose another --name (make run's Debian builds are base and head; e.g. --name src-$name), nothing was built"
	fi
	mkdir -p "$builds_dir" 2>/dev/null && [ -w "$builds_dir" ] ||
		die "cannot write $builds_dir (--builds DIR), nothing was built"
fi

trees=$cache/trees
mkdir -p "$trees"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

write_info() { # tree mode donor seconds
	local t=$1 p fl=$flavour
	[ "$2" != full ] || fl=$full_flavour
	{
		echo "key=$(basename "$t")"
		echo "mode=$2"
		echo "source=$source"
		echo "source_kind=$source_kind"
		echo "source_sha256=$source_sha"
		echo "flavour=$fl"
		if [ "$2" != full ] && [ -n "$instrument" ]; then
			echo "instrumented=$instrument CFLAGS='$inst_cflags' LDFLAGS='$inst_ldflags'"
		fi
		echo "configure=${configure_args[*]} CFLAGS='$cflags' LDFLAGS='$ldflags'"
		for p in "${patches[@]}"; do
			echo "patch=$(basename "$p") $(sha256sum < "$p" | cut -d' ' -f1)"
		done
		echo "donor=$3"
		echo "seconds=$4"
		echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "cc=$cc_version"
	} > "$t/build-info"
	cp "$t/build-info" "$t/prefix/phpcmp-build.txt"
}

# While make runs: every 30 s (PHPCMP_BUILD_PROGRESS seconds) a line with
# the objects compiled so far out of the Makefile's, the elapsed time and
# the log, so a build of minutes is never silent.
progress() { # tree start
	local t=$1 s=$2 total done_n every=${PHPCMP_BUILD_PROGRESS:-30}
	total=$(grep -c '^[^ \t#].*\.lo: ' "$t/obj/Makefile" 2>/dev/null || echo '?')
	while sleep "$every"; do
		done_n=$(find "$t/obj" -name '*.lo' 2>/dev/null | wc -l)
		log "${name:-$(basename "$t")}: make, $done_n/$total objects, $(elapsed "$s") s (log: $t/build.log)"
	done
}

# A full build of the current source, flavour and the given patches into
# trees/KEY, under its lock.  Prints nothing; the tree is done after.
build_full() { # key patches...
	local k=$1 t start p
	shift
	t=$trees/$k
	exec {lockfd}>"$t.lock"
	flock "$lockfd"
	if [ -f "$t/done" ]; then
		exec {lockfd}>&-
		return 0
	fi
	start=$(now)
	rm -rf "$t" "$t.recipes"
	mkdir -p "$t/src" "$t/obj" "$t/prefix"
	local logf=$t/build.log trusted=
	[ $# -gt 0 ] || trusted=$source_trusted
	log "full build $k ($full_flavour${*:+, $# patch(es)}) in $t; log: $logf"
	echo "extract" >> "$t/steps"
	if [ "$source_kind" = tree ]; then
		(cd "$source" && tar --exclude=./.git -cf - .) | tar -xf - -C "$t/src"
	else
		tar -xf "$source" -C "$t/src" --strip-components=1
	fi
	touch "$logf"
	# The steps below run the tree's own code: in the sandbox, as the build
	# uid, with this tree the only folder they write (and, for the default
	# source with no patch, the shared ccache and this tree's link recipes).
	own "$t"
	sb_reset
	sb_rw "$t"
	sb_ccache "$trusted"
	local recipes=
	if [ -n "$trusted" ]; then
		recipes=$t.recipes
		mkdir -p "$recipes"
		own "$recipes"
		sb_rw "$recipes"
	fi
	# A checkout, or a tarball of php-src at a tag (../shared/php-src's
	# 8.0.10 and 8.1.0RC1): no configure yet.
	if [ ! -x "$t/src/configure" ]; then
		echo "buildconf" >> "$t/steps"
		sb_cwd=$t/src
		sandboxed ./buildconf --force >>"$logf" 2>&1 || step_failed buildconf "$logf" $?
	fi
	sb_cwd=/
	for p in "$@"; do
		echo "patch $(basename "$p")" >> "$t/steps"
		sandboxed patch -d "$t/src" -p1 --batch --forward -s < "$p" >>"$logf" 2>&1 ||
			die "patch $p does not apply (log: $logf)"
	done
	echo "configure" >> "$t/steps"
	sb_cwd=$t/obj
	sandboxed env CFLAGS="$cflags" LDFLAGS="$ldflags" "$t/src/configure" \
		--prefix="$t/prefix" "${configure_args[@]}" >>"$logf" 2>&1 ||
		step_failed configure "$logf" $?
	echo "make" >> "$t/steps"
	progress "$t" "$start" &
	local ticker=$!
	# libtool's compiles without its shell (scripts/libtool-replay.sh: the
	# same two compiler commands and .lo, about a second of CPU saved on each
	# of ~280 objects); anything else goes to the tree's own libtool.  A
	# trusted tree records its links for its candidates (TREE.recipes).
	sb_cwd=/
	sandboxed env REAL_LIBTOOL="$t/obj/libtool" LINK_RECIPES="$recipes" make -C "$t/obj" -j"$jobs" \
		LIBTOOL="$BASH $sb_scripts/libtool-replay.sh --preserve-dup-deps" >>"$logf" 2>&1 ||
		{ local st=$?; kill "$ticker" 2>/dev/null; step_failed make "$logf" "$st"; }
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	echo "make install" >> "$t/steps"
	sandboxed make -C "$t/obj" install >>"$logf" 2>&1 || step_failed "make install" "$logf" $?
	# Done: the prefix (what the daemon loads; a candidate's prefix links to
	# its files) is root's again.  A trusted tree's src/ and obj/ stay the
	# build uid's: its candidates' make writes over them, through their
	# overlays only; another tree becomes root's whole.
	if [ -n "$trusted" ]; then
		touch "$recipes/.done"
		unown "$t/prefix" "$recipes"
	else
		unown "$t"
	fi
	write_info "$t" full "" "$(elapsed "$start")"
	touch "$t/done"
	exec {lockfd}>&-
}

# A trusted donor's link recipes, where its full build did not record them
# (a tree built before the sandbox): once, make relinks the donor as if
# json_encoder.c had changed (make -W), in an overlay of its own that is
# thrown away, as a trusted build, recording the links with the arguments
# a candidate's make gives.  Seconds, once per donor; without them every
# candidate runs libtool's links (about 3 CPU seconds more).
warm_recipes() { # donor tree
	local d=$1 w
	[ -n "$source_trusted" ] && [ ! -e "$d.recipes/.done" ] || return 0
	w=$(mktemp -d "$trees/.recipes.XXXXXX")
	mkdir -p "$w/upper" "$w/work" "$d.recipes"
	own "$w" "$d.recipes"
	sb_reset
	sb_rw "$w" "$d.recipes"
	sb_binds+=(--bind "$d" "$d")
	sb_ccache 1
	sb_env+=(REAL_LIBTOOL="$d/obj/libtool" LINK_RECIPES="$d.recipes")
	sb_overlay=("$d" "$w/upper" "$w/work")
	if sandboxed make -C "$d/obj" -j"$jobs" -W "$d/src/ext/json/json_encoder.c" \
		LIBTOOL="$BASH $sb_scripts/libtool-replay.sh --preserve-dup-deps" >"$w/log" 2>&1; then
		touch "$d.recipes/.done"
		log "link recipes of $(basename "$d") recorded"
	else
		log "link recipes of $(basename "$d") not recorded ($(tail -1 "$w/log")); candidates link with libtool"
	fi
	unown "$d.recipes"
	rm -rf "$w"
}

# Files a patch touches, relative to the source's top folder.
touched_files() { # src patch
	patch -d "$1" -p1 --dry-run --batch --forward < "$2" 2>/dev/null | sed -n 's/^checking file //p'
}

# Can this candidate be built over its donor?  0 and sets install=fast|full,
# or 1 with the reason in $why.
reusable() { # donor-src
	local src=$1 p f
	why= install=fast
	[ -z "$full" ] || { why="--full"; return 1; }
	# A candidate of the whole-tree coverage flavour: its counters' paths
	# would name the donor's tree.
	[ "$flavour" != coverage ] || [ -n "$instrument" ] || { why="coverage flavour"; return 1; }
	command -v unshare >/dev/null 2>&1 || { why="no unshare"; return 1; }
	# Root: a mount namespace.  Anyone else: a user namespace mapping them
	# to root in it, where the kernel allows overlays (Linux >= 5.11).
	local ns=(--mount --propagation private)
	[ "$(id -u)" -eq 0 ] || ns=(--user --map-root-user "${ns[@]}")
	unshare "${ns[@]}" true 2>/dev/null || { why="no mount namespace here"; return 1; }
	for p in "${patches[@]}"; do
		local files
		files=$(touched_files "$src" "$p")
		[ -n "$files" ] || { why="$(basename "$p") touches no file"; return 1; }
		while IFS= read -r f; do
			case $f in
			configure | configure.ac | *.m4 | *Makefile* | build/* | scripts/* | */config*.w32 | *.in)
				why="$(basename "$p") changes the build system ($f)"; return 1 ;;
			esac
			[ -f "$src/$f" ] || { why="$(basename "$p") adds $f"; return 1; }
			case $f in
			*.h) install=full ;;
			esac
		done <<< "$files"
		if grep -q '^+++ /dev/null' "$p"; then
			why="$(basename "$p") deletes a file"; return 1
		fi
	done
	return 0
}

link_build() { # tree mode seconds
	local link=$builds_dir/$name
	mkdir -p "$builds_dir"
	if [ -e "$link" ] && [ ! -L "$link" ]; then
		die "$link exists and is not a link made by build-php: the build is kept in $1, link it under another --name"
	fi
	ln -sfn "$1/prefix" "$link.tmp.$$"
	mv -T "$link.tmp.$$" "$link"
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $2 $3" >> "$1/requests"
	echo "build-php: $name = $link -> $1/prefix ($2, $3 s)"
}

start=$(now)
tree=$trees/$key

if [ "$action" = plan ]; then
	# What a request would do, without doing it: "cached", "full",
	# "reused DONORKEY install=fast|full", "full: REASON", or "full donor
	# DONORKEY first, then decide" when the donor is not built yet.
	donor_key=$(key_of donor)
	if [ -f "$tree/done" ]; then
		echo "cached $key"
	elif [ ${#patches[@]} -eq 0 ] && [ -z "$instrument" ]; then
		echo "full $key"
	elif [ ! -f "$trees/$donor_key/done" ]; then
		echo "full donor $donor_key first, then decide"
	elif reusable "$trees/$donor_key/src"; then
		echo "reused $donor_key install=$install${instrument:+ instrumented=$instrument}"
	else
		echo "full: $why"
	fi
	exit 0
fi

if [ -f "$tree/done" ]; then
	link_build "$tree" cached "$(elapsed "$start")"
	exit 0
fi

if [ ${#patches[@]} -eq 0 ] && [ -z "$instrument" ]; then
	build_full "$key"
	link_build "$tree" full "$(elapsed "$start")"
	exit 0
fi

# A full build of this request after all (the overlay cannot be used): for
# an instrumented flavour, the whole tree in the flavour.
full_instead() {
	exec {candfd}>&-
	if [ -n "$instrument" ]; then
		full_flavour=$flavour instrument=
		flavour_flags "$flavour"
	fi
	build_full "$key" "${patches[@]}"
	link_build "$tree" full "$(elapsed "$start")"
	exit 0
}

# A candidate, or an instrumented flavour: its donor first (the same source
# and flavour with no patches; the release tree for an instrumented one).
donor_key=$(key_of donor)
build_full "$donor_key"
donor=$trees/$donor_key

exec {candfd}>"$tree.lock"
flock "$candfd"
if [ -f "$tree/done" ]; then
	link_build "$tree" cached "$(elapsed "$start")"
	exit 0
fi
start=$(now)
if ! reusable "$donor/src"; then
	log "candidate $key: full build ($why)"
	full_instead
fi

rm -rf "$tree"
mkdir -p "$tree/upper" "$tree/work" "$tree/patches"
logf=$tree/build.log
touch "$logf"
log "candidate $key over $donor_key (install: $install${instrument:+; $flavour, instrumented: $instrument and the patched files}); log: $logf"
echo "overlay $donor_key" >> "$tree/steps"
# The patches, copied into the tree: the sandbox sees nothing else of
# where they came from.
inner=(--_overlay --flavour "$flavour" --jobs "$jobs")
n=0
for p in "${patches[@]}"; do
	echo "patch $(basename "$p")" >> "$tree/steps"
	n=$((n + 1))
	cp "$p" "$tree/patches/$n-$(basename "$p")"
	inner+=(--patch "$tree/patches/$n-$(basename "$p")")
done
# A full install writes the candidate's own prefix (bound on the donor's,
# where configure put it); a fast one is made after the sandbox, below.
[ "$install" = fast ] || mkdir -p "$tree/prefix"
# An instrumented flavour: the flags of what is compiled again (the
# coverage notes name this tree's own copy of ext/json, made in the
# overlay; the counters' paths stay the donor's, as the daemon's
# GCOV_PREFIX_STRIP expects: the two trees are equally deep).
inst_map=
[ "$flavour" != coverage ] || [ -z "$instrument" ] ||
	inst_map=" -ffile-prefix-map=$donor/src/$instrument=$tree/src/$instrument"
# The candidate's make writes the donor's src/ and obj/ through the overlay
# (as the build uid: they must be its), the writes landing in TREE/upper.
# Link recipes: a trusted request (an instrumented flavour of the default
# source, no patch) records its links for the candidates over the same
# donor; a candidate only replays them.
own "$donor/src" "$donor/obj" "$tree"
warm_recipes "$donor"
trusted=
[ ${#patches[@]} -gt 0 ] || trusted=$source_trusted
mkdir -p "$donor.recipes"
sb_reset
sb_rw "$tree"
sb_binds+=(--bind "$donor" "$donor")
[ "$install" = fast ] || sb_binds+=(--bind "$tree/prefix" "$donor/prefix")
sb_ccache "$trusted"
if [ -n "$trusted" ]; then
	own "$donor.recipes"
	sb_binds+=(--bind "$donor.recipes" "$donor.recipes")
else
	sb_binds+=(--ro-bind "$donor.recipes" "$donor.recipes")
	sb_env+=(LINK_RECIPES_READONLY=1)
fi
sb_env+=(INSTRUMENT="$instrument" INSTRUMENT_CFLAGS="$inst_cflags$inst_map" INSTRUMENT_LDFLAGS="$inst_ldflags"
	TREE="$tree" DONOR="$donor" INSTALL="$install" LOGF="$logf" RECIPES="$donor.recipes"
	PHPCMP_PHP_CACHE="$cache")
[ "$sandbox" = 0 ] || sb_env+=(PREFIX_BOUND=1)
sb_overlay=("$donor" "$tree/upper" "$tree/work")
status=0
sandboxed "$BASH" "$sb_scripts/build-php.sh" "${inner[@]}" >>"$logf" 2>&1 || status=$?
if [ "$status" -eq 3 ]; then
	# The kernel refused the overlay: build in full instead.
	log "candidate $key: no overlay mount here ($(tail -1 "$logf")); full build"
	rm -rf "$tree"
	full_instead
elif [ "$status" -ne 0 ]; then
	step_failed "the candidate's build (patch, make over $donor_key)" "$logf" "$status"
fi
# Done: the whole tree is root's again (and recipes a trusted build wrote).
unown "$tree"
[ -z "$trusted" ] || unown "$donor.recipes"
if [ "$install" = fast ]; then
	# The donor's installed files as hard links (root's: never written in
	# place, what changes is replaced below).
	cp -al "$donor/prefix" "$tree/prefix"
	rm -f "$tree/prefix/phpcmp-build.txt"
fi
if [ "$install" = fast ]; then
	# What make install would change for a patch to .c/.re/.y files: the
	# library and the CLI, the candidate's own files (links to upper/, which
	# is never written again), not the donor's.
	pairs=(libs/libphp.so:lib/libphp.so)
	[ -n "$no_cli" ] || pairs+=(sapi/cli/php:bin/php)
	echo "install ${pairs[*]#*:}" >> "$tree/steps"
	for pair in "${pairs[@]}"; do
		from=$tree/upper/obj/${pair%%:*} to=$tree/prefix/${pair#*:}
		[ -f "$from" ] || die "the candidate's make wrote no ${pair%%:*} (log: $logf)"
		rm -f "$to"
		ln "$from" "$to" 2>/dev/null || cp -p "$from" "$to"
	done
fi
# The donor's CLI is not this build's.
[ -z "$no_cli" ] || rm -f "$tree/prefix/bin/php"
# The overlay's work folder is only needed while mounted.
rm -rf "$tree/work"
write_info "$tree" reused "$donor_key" "$(elapsed "$start")"
touch "$tree/done"
exec {candfd}>&-
link_build "$tree" reused "$(elapsed "$start")"
