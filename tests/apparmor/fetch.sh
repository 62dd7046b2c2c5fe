#!/bin/bash
# fetch.sh WORK PACKAGE...: each PACKAGE of Debian 13 (trixie) downloaded
# with apt-get and unpacked into WORK/deb/PACKAGE, once.  apt runs with a
# configuration of its own (WORK/apt: trixie's main for amd64, the host's
# keyring), so the host's sources and state are never touched.
# Environment: AJ_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -eu -o pipefail
work=$(mkdir -p "$1" && cd "$1" && pwd)
shift
a=$work/apt
mirror=${AJ_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/preferences.d" "$work/deb"
printf 'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' \
	"$mirror" >"$a/etc/sources.list"
: >"$a/status"
opts=(-o "Dir::Etc::SourceList=$a/etc/sources.list" -o "Dir::Etc::SourceParts=$a/etc/none"
	-o "Dir::Etc::Preferences=$a/etc/none" -o "Dir::Etc::PreferencesParts=$a/etc/preferences.d"
	-o "Dir::State::Lists=$a/lists" -o "Dir::State::status=$a/status" -o "Dir::Cache=$a/cache"
	-o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root")
if [ -z "$(find "$a/lists" -name '*trixie*Packages*' -mtime -1 2>/dev/null)" ]; then
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
	d=$work/deb/$p
	[ -f "$d/.done" ] && continue
	rm -rf "$d" "$work/deb/$p"_*.deb && mkdir -p "$d"
	(cd "$work/deb" && apt-get "${opts[@]}" -q download "$p" >"$work/deb/$p.log" 2>&1) || {
		tail -3 "$work/deb/$p.log" >&2
		exit 1
	}
	dpkg-deb -x "$work/deb/$p"_*.deb "$d"
	touch "$d/.done"
done
