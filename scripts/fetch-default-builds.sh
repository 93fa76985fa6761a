#!/bin/sh
# Fetch Debian's two real libphp embed builds (base = 8.2.32, head = 8.2.36)
# with their headers into builds/<name>/, without installing them system-wide.
# Each build ends up as a prefix with usr/lib/libphp8.2.so and
# usr/include/php/<api>/..., the layout the daemon's build discovery expects.
set -eu
dest=${1:-builds}
download() {
	(cd "$1" && apt-get download -q "libphp8.2-embed=$2" "php8.2-dev=$2" 2>&1 |
		grep -v '^W: Download is performed unsandboxed' || true)
}

fetch() {
	name=$1 version=$2
	if [ -f "$dest/$name/usr/lib/libphp8.2.so" ] && [ -f "$dest/$name/.version" ] &&
	   [ "$(cat "$dest/$name/.version")" = "$version" ]; then
		return 0
	fi
	tmp=$(mktemp -d)
	# apt-get download runs as _apt when it can; give it a folder it may write.
	chmod 755 "$tmp"
	download "$tmp" "$version"
	set -- "$tmp"/*.deb
	if [ ! -f "$1" ] && [ "$(id -u)" -eq 0 ]; then
		# A fresh machine may not have package lists yet.
		apt-get update -q >/dev/null
		download "$tmp" "$version"
		set -- "$tmp"/*.deb
	fi
	[ -f "$1" ] || { echo "fetch-default-builds: download of $version failed (did you run apt-get update?)" >&2; exit 1; }
	rm -rf "$dest/$name"
	mkdir -p "$dest/$name"
	for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest/$name"; done
	echo "$version" > "$dest/$name/.version"
	rm -rf "$tmp"
	echo "fetch-default-builds: $name = libphp8.2-embed $version in $dest/$name"
}
fetch base 8.2.32-1~deb12u1
fetch head 8.2.36-1~deb12u1
