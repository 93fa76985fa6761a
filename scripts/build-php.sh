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
# Builds of different keys run side by side (one tree each); two requests
# for the same key wait for each other (flock on trees/KEY.lock).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
self=$root/scripts/build-php.sh
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

# ---- the inner half of a candidate build (inside the mount namespace) -----

if [ "$action" = overlay ]; then
	# Environment: TREE (the candidate's), DONOR (the donor's tree),
	# INSTALL (fast or full), LOGF, RECIPES (the donor's link recipes).  Patches are in "${patches[@]}".
	# Exit status 3: no overlay here (the caller then builds in full).
	mount -t overlay overlay -o "lowerdir=$DONOR,upperdir=$TREE/upper,workdir=$TREE/work" "$DONOR" \
		>>"$LOGF" 2>&1 || exit 3
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
	# libtool's links replayed where a candidate over this donor recorded
	# them (scripts/libtool-replay.sh): seconds of shell saved per link.
	REAL_LIBTOOL=$DONOR/obj/libtool LINK_RECIPES=$RECIPES \
		make -C "$DONOR/obj" -j"$jobs" LIBTOOL="$BASH $root/scripts/libtool-replay.sh" "${make_vars[@]}" >>"$LOGF" 2>&1 ||
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
		cp -a "$DONOR/prefix/." "$TREE/prefix/"
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
if [ "${PHPCMP_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
	export CC="ccache ${CC:-cc}"
	export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
fi

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
	rm -rf "$t"
	mkdir -p "$t/src" "$t/obj" "$t/prefix"
	local logf=$t/build.log
	log "full build $k ($full_flavour${*:+, $# patch(es)}) in $t; log: $logf"
	echo "extract" >> "$t/steps"
	if [ "$source_kind" = tree ]; then
		(cd "$source" && tar --exclude=./.git -cf - .) | tar -xf - -C "$t/src"
		if [ ! -x "$t/src/configure" ]; then
			echo "buildconf" >> "$t/steps"
			(cd "$t/src" && ./buildconf --force) >>"$logf" 2>&1 || die "buildconf failed (log: $logf)"
		fi
	else
		tar -xf "$source" -C "$t/src" --strip-components=1
	fi
	for p in "$@"; do
		echo "patch $(basename "$p")" >> "$t/steps"
		patch -d "$t/src" -p1 --batch --forward -s < "$p" >>"$logf" 2>&1 ||
			die "patch $p does not apply (log: $logf)"
	done
	echo "configure" >> "$t/steps"
	(cd "$t/obj" && CFLAGS="$cflags" LDFLAGS="$ldflags" "$t/src/configure" \
		--prefix="$t/prefix" "${configure_args[@]}") >>"$logf" 2>&1 ||
		die "configure failed (log: $logf)"
	echo "make" >> "$t/steps"
	progress "$t" "$start" &
	local ticker=$!
	# libtool's compiles without its shell (scripts/libtool-replay.sh: the
	# same two compiler commands and .lo, about a second of CPU saved on each
	# of ~280 objects); anything else goes to the tree's own libtool.
	REAL_LIBTOOL=$t/obj/libtool make -C "$t/obj" -j"$jobs" \
		LIBTOOL="$BASH $root/scripts/libtool-replay.sh --preserve-dup-deps" >>"$logf" 2>&1 ||
		{ kill "$ticker" 2>/dev/null; die "make failed (log: $logf)"; }
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	echo "make install" >> "$t/steps"
	make -C "$t/obj" install >>"$logf" 2>&1 || die "make install failed (log: $logf)"
	write_info "$t" full "" "$(elapsed "$start")"
	touch "$t/done"
	exec {lockfd}>&-
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
	ns=(--mount --propagation private)
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
mkdir -p "$tree/upper" "$tree/work"
logf=$tree/build.log
log "candidate $key over $donor_key (install: $install${instrument:+; $flavour, instrumented: $instrument and the patched files}); log: $logf"
echo "overlay $donor_key" >> "$tree/steps"
for p in "${patches[@]}"; do echo "patch $(basename "$p")" >> "$tree/steps"; done
if [ "$install" = fast ]; then
	# The donor's installed files as hard links (never written in place:
	# what changes is replaced below).
	cp -al "$donor/prefix" "$tree/prefix"
	rm -f "$tree/prefix/phpcmp-build.txt"
else
	mkdir -p "$tree/prefix"
fi
inner=(--_overlay --flavour "$flavour" --jobs "$jobs")
for p in "${patches[@]}"; do inner+=(--patch "$p"); done
status=0
# An instrumented flavour: the flags of what is compiled again (the
# coverage notes name this tree's own copy of ext/json, made in the
# overlay; the counters' paths stay the donor's, as the daemon's
# GCOV_PREFIX_STRIP expects: the two trees are equally deep).
inst_map=
[ "$flavour" != coverage ] || [ -z "$instrument" ] ||
	inst_map=" -ffile-prefix-map=$donor/src/$instrument=$tree/src/$instrument"
INSTRUMENT=$instrument INSTRUMENT_CFLAGS="$inst_cflags$inst_map" INSTRUMENT_LDFLAGS=$inst_ldflags \
	TREE=$tree DONOR=$donor INSTALL=$install LOGF=$logf RECIPES=$donor.links \
	unshare "${ns[@]}" "$BASH" "$self" "${inner[@]}" || status=$?
if [ "$status" -eq 3 ]; then
	# The kernel refused the overlay: build in full instead.
	log "candidate $key: no overlay mount here ($(tail -1 "$logf")); full build"
	rm -rf "$tree"
	full_instead
elif [ "$status" -ne 0 ]; then
	die "candidate build failed (log: $logf)"
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
