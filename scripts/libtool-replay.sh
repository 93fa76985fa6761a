#!/bin/bash
# make's $(LIBTOOL) for a candidate built over its donor (build-php.sh).
# libtool 1.5's link mode spends ~3 s of shell on libphp's ~300 objects
# before it runs one compiler command: most of a one-file rebuild.  A link
# with the same arguments in the same folder as one recorded before over
# the same donor (so the same objects, Makefile and libtool) replays the
# compiler command libtool ran then; anything else goes to the real
# libtool, and a link's compiler command is recorded for the next time.
# Recipes are written to a temporary file and renamed: candidates build
# side by side.
#
# Environment: REAL_LIBTOOL (the donor's obj/libtool), LINK_RECIPES (a
# folder of recipes for that donor).
set -uo pipefail

mode= out= cc=
prev=
for a in "$@"; do
	case $a in
	--mode=*) mode=${a#--mode=} ;;
	esac
	[ "$prev" = -o ] && out=$a
	# The compiler: the first word after the mode that is not an option.
	if [ -n "$mode" ] && [ -z "$cc" ] && [ "${a#-}" = "$a" ]; then cc=$a; fi
	prev=$a
done

if [ "$mode" != link ] || [ -z "$out" ] || [ -z "$cc" ]; then
	exec "$BASH" "$REAL_LIBTOOL" --silent "$@"
fi

id=$( { pwd; printf '%s\0' "$@"; } | sha256sum | cut -c1-32)
recipe=$LINK_RECIPES/$id
if [ -f "$recipe" ]; then
	echo "libtool-replay: $out (recipe $id)"
	"$BASH" "$recipe" || exit $?
	# The .la libtool would write is the donor's, byte for byte: only its
	# time tells make the target is new.
	case $out in *.la) touch "$out" ;; esac
	exit 0
fi

mkdir -p "$LINK_RECIPES"
tmp=$(mktemp "$LINK_RECIPES/.$id.XXXXXX")
status=0
"$BASH" "$REAL_LIBTOOL" "$@" > "$tmp.out" 2>&1 || status=$?
cat "$tmp.out"
# libtool prints each command it runs; the compiler's lines are the link.
if [ "$status" -eq 0 ] && [ "$(grep -c "^$cc " "$tmp.out")" -eq 1 ]; then
	{
		echo "set -e"
		grep "^$cc " "$tmp.out"
	} > "$tmp"
	mv -f "$tmp" "$recipe"
fi
rm -f "$tmp" "$tmp.out"
exit "$status"
