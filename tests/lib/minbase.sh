#!/bin/bash
# tests/lib/minbase.sh RELEASE OUT.tar: a fresh Debian root, as a new user's
# machine starts (debootstrap --variant=minbase), packed as a tarball for
# `docker import`.  The images of make check-docker and make check-fresh
# are built from it, so nothing is pulled from a registry.
#
# debootstrap mounts /proc and /sys inside the root it builds: it runs in a
# mount namespace of its own, so no mount ever lands on the host's tree.
# The tarball is kept (OUT.tar is reused when it exists and is younger
# than a day), since a root costs about 40 s and 100 MB of downloads.
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 RELEASE OUT.tar" >&2; exit 2; }
rel=$1 out=$2
mirror=${AJ_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ -s "$out" ] && [ -n "$(find "$out" -mtime -1 2>/dev/null)" ]; then
	exit 0
fi
command -v debootstrap >/dev/null || { echo "$0: no debootstrap (make deps-docker installs it)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "$0: debootstrap needs root" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aj-minbase.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! unshare --mount --propagation private \
	debootstrap --variant=minbase "$rel" "$tmp/root" "$mirror" >"$tmp/log" 2>&1; then
	echo "$0: debootstrap $rel failed; its last lines:" >&2
	tail -n 15 "$tmp/log" >&2
	exit 1
fi
# apt's lists are stale by the time the image runs; the image's first
# step is apt-get update, as on any fresh machine.
rm -rf "$tmp/root/var/lib/apt/lists/"* "$tmp/root/var/cache/apt/archives/"*.deb
tar --numeric-owner -C "$tmp/root" -cf "$out.part" .
mv "$out.part" "$out"
