#!/bin/bash
# run.sh: make install into a temporary folder (DESTDIR, PREFIX=/usr), then,
# with that tree alone, what a build pipeline does: aijail-compile --build
# turns a new policy that includes the shipped base.aj into a stub, which
# jails a command as the unprivileged test user; two builds in different
# folders give the same bytes; the stub's --jail-version names the identity
# the compiler printed; --build of a shipped policy gives the installed
# stub; without musl-gcc the compiler names the package; make uninstall
# leaves no file behind.
#
# The installed compiler runs with the source checkout hidden under an
# empty tmpfs, in a user and mount namespace of its own (nothing is
# mounted on the host), and with PATH=/usr/bin:/bin: it can only have used
# the installed tree.  Where no such namespace can be had, it runs without
# the cover and the test says so.
#
# Usage: tests/install/run.sh.  Environment: MAKE (default make),
# AJTEST_USER (the test user, tests/lib/user.sh).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
make=${MAKE:-make}


# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

# Beneath /tmp, not TMPDIR: the folder must be outside the checkout (which
# is hidden) and reachable by the test user.
tmp=$(mktemp -d /tmp/aijail-install.XXXXXX)
chmod 0755 "$tmp"
# A folder of the test user's outside /tmp, which the jail replaces.
vtmp=$(mktemp -d /var/tmp/aijail-install.XXXXXX)
cleanup() {
	rm -rf "$tmp" "$vtmp"
}
trap cleanup EXIT
dest=$tmp/dest
bin=$dest/usr/bin
mkdir -p "$tmp/out"

# hidden DIR CMD ARGS…: CMD from DIR, the checkout covered, PATH=/usr/bin:/bin.
# Sets RC, OUT, ERR.
hide=1
if ! unshare --mount --map-root-user --propagation private \
	sh -c 'mount -t tmpfs -o ro aj-hidden "$0" && test ! -e "$0/Makefile"' "$root" \
	2>/dev/null; then
	hide=0
fi
hidden() {
	local dir=$1
	shift
	if [ $hide -eq 1 ]; then
		(cd "$dir" && exec env -i PATH=/usr/bin:/bin HOME="$tmp" TMPDIR="$tmp" \
			unshare --mount --map-root-user --propagation private \
			sh -c 'mount -t tmpfs -o ro aj-hidden "$0" && exec "$@"' "$root" "$@")
	else
		(cd "$dir" && exec env -i PATH=/usr/bin:/bin HOME="$tmp" TMPDIR="$tmp" "$@")
	fi >"$tmp/out/stdout" 2>"$tmp/out/stderr"
	RC=$?
	OUT=$(cat "$tmp/out/stdout")
	ERR=$(cat "$tmp/out/stderr")
}

# as_user CMD ARGS…: CMD as the test user from the project, clean environment.
as_user() {
	local pre=()
	if [ "$as_root" -eq 1 ]; then
		pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env)
	fi
	(cd "$proj" && exec timeout -k 5 60 "${pre[@]}" env -i HOME="$uhome" USER="$tuser" \
		LOGNAME="$tuser" PATH=/usr/bin:/bin "$@") >"$tmp/out/stdout" 2>"$tmp/out/stderr" </dev/null
	RC=$?
	OUT=$(cat "$tmp/out/stdout")
	ERR=$(cat "$tmp/out/stderr")
}

# --- make install ----------------------------------------------------------------

ERR=
if ! "$make" -C "$root" --no-print-directory install DESTDIR="$dest" PREFIX=/usr \
	>"$tmp/install.log" 2>&1; then
	ERR=$(tail -n 8 "$tmp/install.log")
	fail install "make install DESTDIR=$dest PREFIX=/usr failed"
	echo "install-check: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
missing=
for f in usr/bin/aijail-compile usr/bin/aijail-mcp usr/bin/aijail-keys usr/bin/jail usr/bin/jail-worker \
	usr/lib/aijail/libaijail-stub.a usr/lib/aijail/stub.flags \
	usr/lib/aijail/include/aj_table.h usr/lib/aijail/stub/policy.c \
	usr/share/aijail/policies/base.aj usr/share/aijail/policies/worker.aj; do
	[ -f "$dest/$f" ] || missing="$missing $f"
done
# The man pages and the Python package, when the tree has them.
for f in "$root"/docs/man/*.[15]; do
	[ -f "$f" ] || continue
	[ -f "$dest/usr/share/man/man${f##*.}/${f##*/}" ] || missing="$missing ${f#"$root"/}"
done
if [ -d "$root/python/aijail" ]; then
	while IFS= read -r f; do
		[ -f "$dest/usr/lib/python3/dist-packages/${f#"$root"/python/}" ] ||
			missing="$missing ${f#"$root"/}"
	done < <(find "$root/python/aijail" -type f ! -path '*/__pycache__/*' ! -name '*.pyc')
fi
if [ -z "$missing" ]; then
	pass install-files
else
	fail install-files "missing:$missing"
fi

# --- the Python package is importable where it went ---------------------------------

# importable DEST: the system's python3 (the one make install asks) finds
# the package through its own sys.path, each package folder read beneath
# DEST (the standard library where it is), and nowhere else: what it would
# import once DEST is the machine's root.
py=$(command -v /usr/bin/python3 || command -v python3)
importable() {
	ERR=
	OUT=$("$py" -I -c '
import sys
d = sys.argv[1]
pk = ("dist-packages", "site-packages")
sys.path = [p for p in sys.path if p.startswith("/") and not p.endswith(pk)] + \
    [d + p for p in sys.path if p.endswith(pk)]
import aijail
print(aijail.__file__)' "$1" 2>"$tmp/out/stderr")
	RC=$?
	ERR=$(cat "$tmp/out/stderr")
	[ "$RC" -eq 0 ] && [[ $OUT == "$1"/* ]]
}
if [ ! -d "$root/python/aijail" ]; then
	skip python-import "the tree has no python/aijail"
elif [ -z "$py" ]; then
	skip python-import "no python3 here to import it with"
else
	if importable "$dest"; then
		pass python-import-usr "${OUT#"$dest"}"
	else
		fail python-import-usr "PREFIX=/usr: $py does not find the installed package on its sys.path"
	fi
	# The default PREFIX, /usr/local: its own folder, named by version on
	# Debian (python3.11, python3.13), which no fixed path gets right.
	destl=$tmp/dest-local
	if ! "$make" -C "$root" --no-print-directory install DESTDIR="$destl" PREFIX=/usr/local \
		>"$tmp/install-local.log" 2>&1; then
		ERR=$(tail -n 8 "$tmp/install-local.log")
		fail python-import-local "make install DESTDIR=$destl PREFIX=/usr/local failed"
	elif importable "$destl"; then
		pass python-import-local "${OUT#"$destl"}"
	else
		where=$(cd "$destl" && find . -name __init__.py -path '*aijail*' | head -n 1)
		fail python-import-local "PREFIX=/usr/local: the package went to ${where#.}, not on $py's sys.path ($("$py" -c 'import sys; print(":".join(sys.path[1:]))'))"
	fi
	"$make" -C "$root" --no-print-directory uninstall DESTDIR="$destl" PREFIX=/usr/local >/dev/null 2>&1
fi

if [ $hide -eq 1 ]; then
	pass checkout-hidden
else
	skip checkout-hidden "no user and mount namespace here to cover $root: the compiler runs with it visible"
fi

# --- --build a new policy, in two folders ------------------------------------------

policy='include "base.aj";

# A policy of ones own on the shipped base: its masks, and one more.
policy mine extends base {
    mask "*.secret";
}
'
mkdir -p "$tmp/a" "$tmp/b/a/much/longer/folder"
printf '%s' "$policy" >"$tmp/a/mine.aj"
printf '%s' "$policy" >"$tmp/b/a/much/longer/folder/mine.aj"

# holds_path PATH FILE...: PATH occurs in a FILE as a path of its own, not
# as part of a longer name: a tree at /aijail is not named by the stub's
# own "/tmp/aijail.%d" or "/tmp/aijail-%u".  The stub's strings are
# NUL-separated, so each is a record (-z); the characters around PATH
# must not continue a name.
holds_path() {
	local re
	re=$(printf '%s' "$1" | sed 's/[^[:alnum:]\/_-]/[&]/g; s/\[\^\]/\\^/g')
	shift
	LC_ALL=C grep -qaz -E "(^|[^[:alnum:]._/-])$re(/|[^[:alnum:]._-]|\$)" "$@"
}

ERR=
hidden "$tmp/a" "$bin/aijail-compile" --build mine.aj -o jail-mine
built_err=$ERR
if [ "$RC" -eq 0 ] && [ -x "$tmp/a/jail-mine" ] && file -b "$tmp/a/jail-mine" | grep -q 'statically linked'; then
	pass build
else
	fail build "aijail-compile --build mine.aj -o jail-mine: exit $RC, no static stub"
fi
hidden "$tmp/b/a/much/longer/folder" "$bin/aijail-compile" --build mine.aj -o jail-mine
if [ "$RC" -eq 0 ] && cmp -s "$tmp/a/jail-mine" "$tmp/b/a/much/longer/folder/jail-mine"; then
	pass reproducible-stub
else
	fail reproducible-stub "two builds in different folders differ (exit $RC)"
fi
hidden "$tmp/a" "$bin/aijail-compile" mine.aj -o mine.h
rc1=$RC
hidden "$tmp/b/a/much/longer/folder" "$bin/aijail-compile" --build "$tmp/b/a/much/longer/folder/mine.aj" -o mine.h
if [ "$rc1" -eq 0 ] && [ "$RC" -eq 0 ] && cmp -s "$tmp/a/mine.h" "$tmp/b/a/much/longer/folder/mine.h" &&
	head -n 1 "$tmp/a/mine.h" | grep -q '^/\* Generated by aijail-compile'; then
	pass reproducible-header
else
	fail reproducible-header "-o mine.h (with and without --build) gave different or no headers"
fi
if [ ! -f "$tmp/a/jail-mine" ] || [ ! -f "$tmp/a/mine.h" ]; then
	fail no-build-paths "no stub or header to look into"
elif holds_path "$tmp" "$tmp/a/jail-mine" "$tmp/a/mine.h" || holds_path "$root" "$tmp/a/jail-mine" "$tmp/a/mine.h"; then
	fail no-build-paths "the stub or the header holds a build path"
else
	pass no-build-paths
fi

# --- the identity: the compiler's, the stub's ---------------------------------------

hidden "$tmp/a" "$bin/aijail-compile" --identity mine.aj
id_compiler=$OUT
id_stub=$("$tmp/a/jail-mine" --jail-version 2>&1 | sed -n 's/^identity: //p')
if [[ $id_compiler =~ ^sha256:[0-9a-f]{64}\ \(aijail-compile\ [^\)]+\)$ ]] &&
	[ "$id_stub" = "$id_compiler" ] && [[ $built_err == *"$id_compiler"* ]]; then
	pass identity
else
	fail identity "compiler '$id_compiler', --build '$built_err', stub '$id_stub'"
fi

# --- the stub jails a command, as the test user ------------------------------------

space=$tmp/space
proj=$space/project
uhome=$space/home
mkdir -p "$proj" "$uhome"
[ "$as_root" -eq 1 ] && [ -n "${thome:-}" ] && uhome=$thome
printf 'API_KEY=sk_live_x\n' >"$proj/.env"
printf 'hunter2\n' >"$proj/db.secret"
printf 'visible\n' >"$proj/readme.txt"
cp "$tmp/a/jail-mine" "$space/jail-mine"
[ "$as_root" -eq 1 ] && chown -R "$tuser:" "$space" "$vtmp"
chmod 0755 "$space" "$vtmp"

# Control: the user can write both places outside the project without the
# jail, so what happens inside is the jail's doing.
as_user sh -c ": >../outside && rm ../outside && : >$vtmp/outside && rm $vtmp/outside"
if [ "$RC" -ne 0 ]; then
	fail control "the test user cannot write $space or $vtmp without the jail either"
fi
# Inside: .env (base's mask) and db.secret (the new policy's) read empty;
# the project is read and written; $vtmp is not there (the jail's /var/tmp
# is its own), and what is written beside the project lands in the jail's
# own /tmp, never on the host.
as_user "$space/jail-mine" /bin/sh -c \
	"cat .env; echo '|'; cat db.secret; echo '|'; cat readme.txt; echo ok >made.txt && cat made.txt
	 echo x >$vtmp/outside 2>/dev/null && echo wrote-var-tmp; echo x >../outside"
if [ "$RC" -eq 0 ] && [ "$OUT" = "$(printf '|\n|\nvisible\nok')" ] && [ ! -e "$space/outside" ] &&
	[ ! -e "$vtmp/outside" ] && [ "$(cat "$proj/made.txt" 2>/dev/null)" = ok ]; then
	pass jail-runs
else
	fail jail-runs "exit $RC, output $(printf '%q' "$OUT") (expected .env and db.secret empty, readme.txt read, made.txt written, $vtmp refused, nothing written outside the project on the host)"
fi

# --- --build of a shipped policy gives the installed stub ----------------------------

mkdir -p "$tmp/w"
cp "$dest/usr/share/aijail/policies/worker.aj" "$tmp/w/"
hidden "$tmp/w" "$bin/aijail-compile" --build worker.aj
size_inst=$(stat -c %s "$bin/jail-worker")
size_built=$(stat -c %s "$tmp/w/jail-worker" 2>/dev/null || echo 0)
if [ "$RC" -eq 0 ] && cmp -s "$tmp/w/jail-worker" "$bin/jail-worker"; then
	pass same-as-installed "jail-worker: $size_built bytes, byte-identical to make's"
elif [ "$RC" -eq 0 ] && [ $((size_built - size_inst)) -le 512 ] && [ $((size_inst - size_built)) -le 512 ] &&
	[ "$("$tmp/w/jail-worker" --jail-version)" = "$("$bin/jail-worker" --jail-version)" ]; then
	pass same-as-installed "jail-worker: $size_built bytes by --build, $size_inst by make; same identity"
else
	fail same-as-installed "exit $RC; --build: $size_built bytes, make: $size_inst bytes"
fi

# --- aijail-mcp from the installed tree alone -----------------------------------------

# The MCP server finds its package and its stubs in the installed tree: it
# answers initialize and tools/list with the checkout covered.
mkdir -p "$tmp/mcp"
hidden "$tmp/mcp" sh -c 'printf "%s\n" \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" \
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}" | "$0" --root .' "$bin/aijail-mcp"
if [ "$RC" -eq 0 ] && [[ $OUT == *'"protocolVersion":"2025-11-25"'* ]] &&
	[[ $OUT == *'"name":"run_command"'* ]] && [[ $OUT == *'"jail-worker"'* ]]; then
	pass mcp-installed
else
	ERR="$ERR${OUT:0:400}"
	fail mcp-installed "the installed aijail-mcp: exit $RC, or no answer to initialize and tools/list"
fi

# --- no musl-gcc: the package is named ------------------------------------------------

hidden "$tmp/a" env PATH=/nonexistent "$bin/aijail-compile" --build mine.aj -o jail-none
rc1=$RC err1=$ERR
hidden "$tmp/a" env AIJAIL_MUSL_GCC=/nonexistent/musl-gcc "$bin/aijail-compile" --build mine.aj -o jail-none
if [ "$rc1" -ne 0 ] && [[ $err1 == *"install the package musl-tools"* ]] && [ "$RC" -ne 0 ] &&
	[[ $ERR == *"/nonexistent/musl-gcc not found"*musl-tools* ]] && [ ! -e "$tmp/a/jail-none" ]; then
	pass no-musl
else
	ERR=$err1
	fail no-musl "without musl-gcc: exit $rc1 and $RC, or the message does not name musl-tools"
fi

# --- make uninstall ----------------------------------------------------------------

ERR=
if ! "$make" -C "$root" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr \
	>"$tmp/uninstall.log" 2>&1; then
	ERR=$(tail -n 8 "$tmp/uninstall.log")
	fail uninstall "make uninstall failed"
else
	left=$(cd "$dest" && find . ! -type d | head -n 5)
	dirs=$(cd "$dest" && find . -type d -path '*aijail*' | head -n 5)
	if [ -z "$left" ] && [ -z "$dirs" ]; then
		pass uninstall
	else
		fail uninstall "left behind: $left $dirs"
	fi
fi

echo "install-check: $npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" -gt 0 ]; then
	echo "failed: ${failed[*]}"
	exit 1
fi
