#!/bin/sh
# Build docker/Dockerfile for real without Docker and without a registry
# (docs/docker.md), and optionally check that the image serves:
#
#   scripts/docker-image.sh image     base image + phpcmp image
#   scripts/docker-image.sh check     the same, then run the image and wait
#                                     for GET /api/health with base 8.2.32
#                                     and head 8.2.36
#   scripts/docker-image.sh sources   print the apt entries the base image
#                                     gets, change nothing
#
# 1. mmdebstrap makes a minimal Debian bookworm root (variant apt) from
#    this machine's own apt entries: every `deb` entry of
#    /etc/apt/sources.list and /etc/apt/sources.list.d/*.{list,sources}
#    whose suite is bookworm or bookworm-* (the Debian entries; a
#    third-party repository with a suite of its own is left out, its key
#    would not be in the image).  No host name is written here.
# 2. `podman import` loads that tarball as a local image
#    (localhost/phpcmp-bookworm by default): nothing is pulled or pushed.
# 3. `podman build --build-arg BASE=<that image>` builds docker/Dockerfile
#    on it (the Dockerfile's default BASE is debian:bookworm, for Docker).
# 4. check: `podman run` the image on a free port, poll /api/health.
#
# Needs root, podman and mmdebstrap (installed from Debian when missing).
# Run-time settings, each with a default:
#   PHPCMP_DOCKER_BASE   the base image's name     (localhost/phpcmp-bookworm)
#   PHPCMP_DOCKER_IMAGE  the phpcmp image's name   (localhost/phpcmp)
#   PHPCMP_DOCKER_PORT   the check's port          (a free one)
#   PHPCMP_DOCKER_WAIT   seconds to wait for health (300)
#   PHPCMP_DOCKER_REBASE 1 = remake the base image even if it exists
#   PHPCMP_DOCKER_NOCACHE 1 = build every layer again (podman build --no-cache)
# Podman runs with the options this sandbox needs (docs/docker.md): runc
# (crun refuses a hybrid cgroup v1/v2 host), the cgroupfs manager (no
# systemd), file events, ulimits no higher than this process's own (root
# here has no CAP_SYS_RESOURCE: podman's defaults cannot be set), host
# networking for the build's apt and npm and for the check's container.
set -eu

cd "$(dirname "$0")/.."
cmd=${1:-check}
case $cmd in
image | check | sources) ;;
*) echo "usage: $0 [image|check|sources]" >&2; exit 2 ;;
esac

base=${PHPCMP_DOCKER_BASE:-localhost/phpcmp-bookworm}
image=${PHPCMP_DOCKER_IMAGE:-localhost/phpcmp}
wait_s=${PHPCMP_DOCKER_WAIT:-300}
apt_dir=${PHPCMP_APT_SOURCES_DIR:-/etc/apt}
suite=bookworm

log() { echo "docker-image: $* ($(date -u +%H:%M:%S))"; }
die() { echo "docker-image: $*" >&2; exit 1; }

# The machine's Debian entries for $suite as deb822 stanzas, suites other
# than $suite and $suite-* dropped from each entry.
sources() {
	for f in "$apt_dir"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			function flush(   i, s, k, keep) {
				if (n > 0 && isdeb && !off && suites != "") {
					print "Types: deb"
					for (i = 1; i <= n; i++) print lines[i]
					print "Suites:" suites
					print ""
				}
				n = 0; isdeb = 0; off = 0; suites = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") isdeb = 1; next }
			/^Suites:/ {
				for (i = 2; i <= NF; i++)
					if ($i == suite || index($i, suite "-") == 1) suites = suites " " $i
				next
			}
			/^Enabled:[ \t]*no/ { off = 1 }
			{ lines[++n] = $0 }
			END { flush() }
		' "$f"
	done
	for f in "$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			$1 != "deb" { next }
			{
				opts = ""; i = 2
				if ($2 ~ /^\[/) {
					opts = $2; i = 3
					while (opts !~ /\]$/ && i <= NF) { opts = opts " " $i; i++ }
					gsub(/^\[|\]$/, "", opts)
				}
				s = $(i + 1)
				if (s != suite && index(s, suite "-") != 1) next
				comps = ""
				for (j = i + 2; j <= NF; j++) comps = comps " " $j
				print "Types: deb"
				print "URIs: " $i
				print "Suites: " s
				if (comps != "") print "Components:" comps
				m = split(opts, o, " ")
				for (k = 1; k <= m; k++)
					if (o[k] ~ /^signed-by=/) { sub(/^signed-by=/, "", o[k]); print "Signed-By: " o[k] }
				print ""
			}
		' "$f"
	done
}

if [ "$cmd" = sources ]; then
	sources
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap and podman as root)"
if ! command -v podman >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1; then
	log "installing podman and mmdebstrap from Debian"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 \
		--no-install-recommends podman mmdebstrap runc uidmap >/dev/null
fi
command -v runc >/dev/null 2>&1 || die "runc is missing (apt-get install runc)"

podman() { command podman --runtime=runc --cgroup-manager=cgroupfs --events-backend=file "$@"; }
# Podman's default ulimits for root (nofile 1048576, nproc 4194304) are
# above this machine's hard limits, and conmon runs with nproc at most
# 32768: a container asking for more fails with "setrlimit: operation not
# permitted".  Ask for what is there.
hard() { awk -v what="$1" 'index($0, what) == 1 { print $(NF - 1) }' /proc/self/limits; }
nofile=$(hard 'Max open files')
nproc=$(hard 'Max processes')
[ "$nofile" = unlimited ] && nofile=1048576
[ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
ulimits="--ulimit nofile=$nofile:$nofile --ulimit nproc=$nproc:$nproc"

start=$(date +%s)
tmp=$(mktemp -d)
cid=
cleanup() {
	if [ -n "$cid" ]; then podman rm -f -v "$cid" >/dev/null 2>&1 || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "${PHPCMP_DOCKER_REBASE:-0}" = 1 ] || ! podman image exists "$base"; then
	old_base=$(podman image inspect -f '{{.Id}}' "$base" 2>/dev/null || true)
	sources > "$tmp/debian.sources"
	[ -s "$tmp/debian.sources" ] || die "no $suite entries in $apt_dir's sources"
	log "mmdebstrap $suite (variant apt) from $(grep -c '^Types:' "$tmp/debian.sources") apt entries of $apt_dir"
	# The keyrings the entries name are the host's: mmdebstrap's apt reads
	# them outside the root, and the root's own debian-archive-keyring
	# package installs the same files for apt inside the image.
	mmdebstrap --quiet --variant=apt --include=ca-certificates \
		--aptopt='Acquire::Languages "none"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$suite" "$tmp/rootfs.tar" "$tmp/debian.sources"
	log "podman import -> $base ($(du -m "$tmp/rootfs.tar" | cut -f1) MiB tarball)"
	podman import --change 'CMD ["/bin/bash"]' "$tmp/rootfs.tar" "$base" >"$tmp/import.log" 2>&1 ||
		{ cat "$tmp/import.log" >&2; die "podman import failed"; }
	rm -f "$tmp/rootfs.tar"
else
	log "base image $base exists (PHPCMP_DOCKER_REBASE=1 remakes it)"
fi

# The page's libraries: this checkout's node_modules (make web-deps: npm
# ci from package-lock.json), mounted into the build, which copies them
# instead of running npm ci itself: npm inside the build cannot verify the
# TLS certificates of this sandbox's egress proxy (SELF_SIGNED_CERT_IN_CHAIN).
# Checked against package-lock.json first; never installed from here.
python3 -c '
import json
lock = json.load(open("package-lock.json"))["packages"]
# every package the lock file installs (the page's and released PHP's runtimes)
for key in lock:
    if not key.startswith("node_modules/") or lock[key].get("dev"):
        continue
    name = key[len("node_modules/"):]
    have = json.load(open("node_modules/%s/package.json" % name))["version"]
    want = lock["node_modules/" + name]["version"]
    assert have == want, "%s %s, package-lock.json wants %s" % (name, have, want)
' || die "node_modules is missing or does not match package-lock.json: run make web-deps"
web=$(cd node_modules && pwd -P)

mkdir -p build/docker
blog=build/docker/build.log
log "podman build -f docker/Dockerfile --build-arg BASE=$base -t $image (log: $blog)"
# --network=host: apt inside the build reaches the same repositories the
# host does.  --format docker: the OCI format has no HEALTHCHECK.
# shellcheck disable=SC2086
# The image this build replaces, removed after it (no dangling copies of
# ~1 GB piling up, one per build).
old_image=$(podman image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
nocache=
[ "${PHPCMP_DOCKER_NOCACHE:-0}" = 1 ] && nocache=--no-cache
# shellcheck disable=SC2086
if ! podman build $nocache --format docker --network=host $ulimits --volume "$web:/opt/phpcmp-web-deps:ro" \
	--build-arg BASE="$base" -f docker/Dockerfile -t "$image" . > "$blog" 2>&1; then
	tail -n 30 "$blog" >&2
	die "podman build failed (all of it in $blog)"
fi
built=$(date +%s)
new_image=$(podman image inspect -f '{{.Id}}' "$image")
if [ -n "$old_image" ] && [ "$old_image" != "$new_image" ]; then
	podman rmi "$old_image" >/dev/null 2>&1 || true
fi
# A replaced base goes too, now that no image is built on it.
if [ -n "${old_base:-}" ]; then
	podman rmi "$old_base" >/dev/null 2>&1 || true
fi
log "image $image built in $((built - start)) s"
[ "$cmd" = check ] || exit 0

port=${PHPCMP_DOCKER_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
# --network=host: the image's CMD listens on 0.0.0.0:8080, so PORT and
# LISTEN are overridden to one free loopback port of the host.
# Podman runs an image's HEALTHCHECK from systemd timers: without systemd
# it says so on stderr ("unable to get systemd connection"), harmlessly.
# shellcheck disable=SC2086
cid=$(podman run -d --network=host $ulimits "$image" \
	make run LISTEN=127.0.0.1 PORT="$port" DB=/data/phpcmp.db 2>"$tmp/run.err") ||
	{ cat "$tmp/run.err" >&2; die "podman run failed"; }
log "container ${cid%"${cid#????????????}"} started; waiting for http://127.0.0.1:$port/api/health"
# Good: status ok, builds base = 8.2.32 and head = 8.2.36 with their
# workers ready.  Prints the builds and their sandbox layers when good.
good() {
	python3 -c '
import json, sys
h = json.loads(sys.argv[1])
builds = {b["name"]: b for b in h.get("builds", [])}
want = {"base": "8.2.32", "head": "8.2.36"}
ok = h.get("status") == "ok" and all(
    n in builds and builds[n].get("php_version") == v and builds[n].get("worker", {}).get("state") == "ready"
    for n, v in want.items())
if ok:
    for n in want:
        b = builds[n]
        print("docker-image: %s (%s) = PHP %s, worker ready, sandbox: %s"
              % (n, b["role"], b["php_version"], b.get("sandbox", "?")))
sys.exit(0 if ok else 1)
' "$1"
}
health=
deadline=$(($(date +%s) + wait_s))
while :; do
	if [ "$(podman inspect -f '{{.State.Running}}' "$cid" 2>/dev/null)" != true ]; then
		podman logs "$cid" 2>&1 | tail -n 40 >&2
		die "the container exited before /api/health answered"
	fi
	health=$(curl -sS --max-time 5 "http://127.0.0.1:$port/api/health" 2>/dev/null) || health=
	if [ -n "$health" ] && good "$health"; then
		break
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		podman logs "$cid" 2>&1 | tail -n 40 >&2
		die "no good /api/health in $wait_s s; last answer: ${health:-none}"
	fi
	sleep 1
done
up=$(date +%s)
# The image's HEALTHCHECK is this curl, on the CMD's port 8080 (this
# container listens on $port): curl is in the image and reaches the daemon.
podman exec "$cid" curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null ||
	die "curl inside the container cannot reach the daemon"
log "/api/health good $((up - built)) s after the container started; $((up - start)) s in all"
