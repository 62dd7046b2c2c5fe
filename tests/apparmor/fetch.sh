#!/bin/bash
# fetch.sh WORK PACKAGE...: each PACKAGE of Debian 13 (trixie) downloaded
# with apt-get and unpacked into WORK/deb/PACKAGE, once; fetch.sh WORK
# --depends PACKAGE: the package a metapackage depends on.  apt runs with a
# configuration of its own (WORK/apt: trixie's main for amd64, the host's
# keyring), so the host's sources and state are never touched.  With
# AJ_FETCH_DIST=noble, Ubuntu 24.04's main and noble-updates instead, into
# WORK/apt-noble and WORK/deb-noble, checked with trixie's ubuntu-keyring
# (fetched first, as above).
# Environment: AJ_DEBIAN_MIRROR (default http://deb.debian.org/debian),
# AJ_UBUNTU_MIRROR (default http://archive.ubuntu.com/ubuntu).
set -eu -o pipefail
work=$(mkdir -p "$1" && cd "$1" && pwd)
shift
dist=${AJ_FETCH_DIST:-trixie}
case $dist in
trixie)
	a=$work/apt debs=$work/deb
	mirror=${AJ_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	suites="trixie" ;;
noble)
	a=$work/apt-noble debs=$work/deb-noble
	mirror=${AJ_UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
	AJ_FETCH_DIST=trixie "$0" "$work" ubuntu-keyring
	key=$work/deb/ubuntu-keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg
	suites="noble noble-updates" ;;
*) echo "$0: AJ_FETCH_DIST=$dist: trixie or noble" >&2; exit 2 ;;
esac
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/preferences.d" "$debs"
for s in $suites; do
	printf 'deb [arch=amd64 signed-by=%s] %s %s main\n' "$key" "$mirror" "$s"
done >"$a/etc/sources.list"
: >"$a/status"
opts=(-o "Dir::Etc::SourceList=$a/etc/sources.list" -o "Dir::Etc::SourceParts=$a/etc/none"
	-o "Dir::Etc::Preferences=$a/etc/none" -o "Dir::Etc::PreferencesParts=$a/etc/preferences.d"
	-o "Dir::State::Lists=$a/lists" -o "Dir::State::status=$a/status" -o "Dir::Cache=$a/cache"
	-o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root")
if [ -z "$(find "$a/lists" -name "*_${dist}_*Packages*" -mtime -1 2>/dev/null)" ]; then
	apt-get "${opts[@]}" -q update >"$a/update.log" 2>&1 || {
		tail -5 "$a/update.log" >&2
		exit 1
	}
fi
# apt-cache's answer for a metapackage: the package it depends on.
if [ "${1:-}" = --depends ]; then
	apt-cache "${opts[@]}" depends "$2" 2>/dev/null | sed -n 's/^ *Depends: \([^:<]*\).*/\1/p' | head -1
	exit 0
fi
for p in "$@"; do
	d=$debs/$p
	[ -f "$d/.done" ] && continue
	rm -rf "$d" "$debs/$p"_*.deb && mkdir -p "$d"
	(cd "$debs" && apt-get "${opts[@]}" -q download "$p" >"$debs/$p.log" 2>&1) || {
		tail -3 "$debs/$p.log" >&2
		exit 1
	}
	dpkg-deb -x "$debs/$p"_*.deb "$d"
	touch "$d/.done"
done
