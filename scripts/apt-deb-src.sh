#!/bin/sh
# Give apt the source entries (deb-src) matching the machine's own binary
# entries, so that `apt-get source` can fetch php8.2's pristine tarball.
#
#   scripts/apt-deb-src.sh            write the file if needed, then apt-get update
#   scripts/apt-deb-src.sh --print    print the entries it would write, change nothing
#
# Every `Types: deb` stanza of /etc/apt/sources.list.d/*.sources (deb822)
# and every `deb ...` line of /etc/apt/sources.list and
# /etc/apt/sources.list.d/*.list becomes the same entry with type deb-src:
# the same URIs, suites, components and Signed-By.  No host name is written
# here: whatever mirror the machine uses is the one asked.  The result goes
# to its own file, /etc/apt/sources.list.d/phpcmp-deb-src.sources (override
# with PHPCMP_APT_DEB_SRC); a machine that already serves sources needs
# nothing, and nothing is written when the file is already up to date.
# Needs root to write the file and run apt-get update.
set -eu

out=${PHPCMP_APT_DEB_SRC:-/etc/apt/sources.list.d/phpcmp-deb-src.sources}
dir=${PHPCMP_APT_SOURCES_DIR:-/etc/apt}
print=
case ${1:-} in
--print) print=1 ;;
'') ;;
*) echo "usage: $0 [--print]" >&2; exit 2 ;;
esac

entries() {
	# deb822 stanzas: keep Types/URIs/Suites/Components/Signed-By and the
	# other fields, drop comments, set Types to deb-src.  Stanzas that are
	# disabled (Enabled: no) or have no deb type are skipped.
	for f in "$dir"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		[ "$f" = "$out" ] && continue
		awk '
			function flush() {
				if (n > 0 && isdeb && !off) {
					print "# from " FILENAME
					print "Types: deb-src"
					for (i = 1; i <= n; i++) print lines[i]
					print ""
				}
				n = 0; isdeb = 0; off = 0
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ {
				for (i = 2; i <= NF; i++) if ($i == "deb") isdeb = 1
				next
			}
			/^Enabled:[ \t]*no/ { off = 1 }
			{ lines[++n] = $0 }
			END { flush() }
		' "$f"
	done
	# One-line format: deb [options] uri suite component...
	for f in "$dir"/sources.list "$dir"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '
			$1 != "deb" { next }
			{
				opts = ""; i = 2
				if ($2 ~ /^\[/) {
					opts = $2; i = 3
					while (opts !~ /\]$/ && i <= NF) { opts = opts " " $i; i++ }
					gsub(/^\[|\]$/, "", opts)
				}
				uri = $i; suite = $(i + 1); comps = ""
				for (j = i + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
				print "# from " FILENAME
				print "Types: deb-src"
				print "URIs: " uri
				print "Suites: " suite
				if (comps != "") print "Components: " comps
				m = split(opts, o, " ")
				for (k = 1; k <= m; k++) {
					if (o[k] ~ /^signed-by=/) { sub(/^signed-by=/, "", o[k]); print "Signed-By: " o[k] }
					else if (o[k] ~ /^arch=/) { sub(/^arch=/, "", o[k]); print "Architectures: " o[k] }
				}
				print ""
			}
		' "$f"
	done
}

want=$(entries)
if [ -z "$want" ]; then
	echo "apt-deb-src: no deb entries found under $dir" >&2
	exit 1
fi
if [ -n "$print" ]; then
	printf '%s\n' "$want"
	exit 0
fi

header="# Written by phpcmp's scripts/apt-deb-src.sh: the deb-src twins of this
# machine's own apt entries (for apt-get source php8.2).  Safe to delete."
content=$(printf '%s\n%s\n' "$header" "$want")
if [ -f "$out" ] && [ "$(cat "$out")" = "$content" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo -- "$0" "$@"
	fi
	echo "apt-deb-src: must run as root to write $out (no sudo found)" >&2
	exit 1
fi
printf '%s\n' "$content" > "$out.tmp"
mv "$out.tmp" "$out"
echo "apt-deb-src: wrote $out; apt-get update"
apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null
