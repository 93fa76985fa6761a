#!/bin/bash
# scripts/libtool-replay.sh's compile mode does what libtool 1.5 does, byte
# for byte: the same objects, dependency file and .lo as the real libtool of
# a PHP tree built by scripts/build-php.sh, in the same folder; a shape or a
# libtool it does not know goes to the real one.  Prints TAP.
#
# The real libtool is the release tree's (builds/src-8.2.32, made by
# make php-builds; LIBTOOL_UNDER_TEST names another).
set -u
. "$(dirname "$0")/tap.sh"

libtool=${LIBTOOL_UNDER_TEST:-}
if [ -z "$libtool" ] && [ -e "$root/builds/src-8.2.32" ]; then
	libtool=$(readlink -f "$root/builds/src-8.2.32")/../obj/libtool
fi
if [ ! -f "$libtool" ]; then
	echo "1..0 # SKIP no PHP tree's libtool (make php-builds)"
	exit 0
fi
cp "$libtool" "$tmp/libtool"

mkdir -p "$tmp/src"
cat >"$tmp/src/x.c" <<'C'
#include "x.h"
int f(void) { return X; }
C
echo '#define X 1' >"$tmp/src/x.h"
echo 'int g(void) { return }' >"$tmp/src/bad.c"

# compile WAY DIR ARGS...: in DIR (made fresh), libtool's compile mode the
# real way (real) or through the wrapper (fast), with PHP's argument shape.
compile() { # real|fast dir libtool-args...
	local way=$1 dir=$2
	shift 2
	rm -rf "$dir" && mkdir -p "$dir/sub" || return 2
	if [ "$way" = real ]; then
		(cd "$dir" && bash "$tmp/libtool" --silent --preserve-dup-deps "$@")
	else
		(cd "$dir" && REAL_LIBTOOL=$tmp/libtool bash "$root/scripts/libtool-replay.sh" --preserve-dup-deps "$@")
	fi
}
php_shape=(--tag=CC --mode=compile cc -I"$tmp/src" -g -O2 -prefer-pic -DZEND_ENABLE_STATIC_TSRMLS_CACHE=1
	-c "$tmp/src/x.c" -o sub/x.lo -MMD -MF sub/x.dep -MT sub/x.lo)

# The same folder both times: the objects' debug information names it.
compile real "$tmp/w" "${php_shape[@]}" && mv "$tmp/w" "$tmp/real"
compile fast "$tmp/w" "${php_shape[@]}"
ok $? "PHP's compile shape: the wrapper exits 0"
diff -r "$tmp/real" "$tmp/w" >/dev/null && [ -f "$tmp/w/sub/.libs/x.o" ] && [ -f "$tmp/w/sub/x.o" ] &&
	grep -q "^pic_object='.libs/x.o'$" "$tmp/w/sub/x.lo"
ok $? "PHP's compile shape: both objects, the .dep and the .lo as the real libtool's, byte for byte"

# It does not run the real libtool for that shape: a libtool that cannot run
# (its head kept, so its settings read the same) changes nothing.
{ head -n 500 "$tmp/libtool"; echo 'exit 99'; } >"$tmp/libtool.head"
(cd "$tmp/w" && rm -rf sub && mkdir sub &&
	REAL_LIBTOOL=$tmp/libtool.head bash "$root/scripts/libtool-replay.sh" "${php_shape[@]}")
ok $? "PHP's compile shape: done without the real libtool's shell"

# Shapes it leaves to the real libtool: no -prefer-pic, -prefer-non-pic.
for shape in no-prefer-pic prefer-non-pic; do
	args=()
	for a in "${php_shape[@]}"; do
		case $a:$shape in
		-prefer-pic:no-prefer-pic) ;;
		-prefer-pic:prefer-non-pic) args+=(-prefer-non-pic) ;;
		*) args+=("$a") ;;
		esac
	done
	compile real "$tmp/w" "${args[@]}" && rm -rf "$tmp/real" && mv "$tmp/w" "$tmp/real"
	compile fast "$tmp/w" "${args[@]}" && diff -r "$tmp/real" "$tmp/w" >/dev/null
	ok $? "$shape: the real libtool's result"
	(cd "$tmp/w" && rm -rf sub && mkdir sub &&
		REAL_LIBTOOL=$tmp/libtool.head bash "$root/scripts/libtool-replay.sh" "${args[@]}" >/dev/null 2>&1)
	[ $? = 99 ]
	ok $? "$shape: handed to the real libtool"
done

# A libtool configured otherwise (no non-PIC objects) is the real one's.
sed '0,/^build_old_libs=yes$/s//build_old_libs=no/' "$tmp/libtool" >"$tmp/libtool.shared"
(cd "$tmp" && mkdir -p w2/sub && cd w2 && bash "$tmp/libtool.shared" --silent "${php_shape[@]}")
(cd "$tmp/w2" && rm -rf sub && mkdir sub &&
	REAL_LIBTOOL=$tmp/libtool.shared bash "$root/scripts/libtool-replay.sh" "${php_shape[@]}")
[ -f "$tmp/w2/sub/.libs/x.o" ] && [ ! -f "$tmp/w2/sub/x.o" ] && grep -q "^non_pic_object=none$" "$tmp/w2/sub/x.lo"
ok $? "build_old_libs=no: left to that libtool (no non-PIC object, non_pic_object=none)"

# A compile that fails fails, with the compiler's message, and writes no .lo.
out=$(compile fast "$tmp/w" --tag=CC --mode=compile cc -prefer-pic -c "$tmp/src/bad.c" -o sub/bad.lo 2>&1)
status=$?
[ "$status" -ne 0 ] && grep -q "bad.c" <<<"$out" && [ ! -e "$tmp/w/sub/bad.lo" ]
ok $? "a failing compile: non-zero exit, the compiler's message, no .lo"

tap_done
