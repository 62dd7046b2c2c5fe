#!/bin/bash
# run.sh: the policy corpus.  Every bad/NAME.aj must be refused by
# aijail-compile with exit status 1, no header written, and a stderr equal
# to bad/NAME.err byte for byte; every good/NAME.aj must compile.
#
# Each file is compiled from inside its own folder, by its bare name:
#
#   cd tests/policies/bad
#   aijail-compile -I <repo>/policies -I <repo>/tests/policies/bad -o $tmp/out.h NAME.aj
#
# so diagnostics about NAME.aj itself read "NAME.aj:LINE:COL: error: …".
# The -I folders are absolute (the repository may live anywhere); before
# comparing, "<repo>/" is removed from stderr, so a diagnostic in an
# included file reads "policies/base.aj:…" or "tests/policies/bad/x.aj:…".
#
# Usage: tests/policies/run.sh [NAME…]   (default: the whole corpus)
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
compile=${AIJAIL_COMPILE:-$root/build/bin/aijail-compile}
bad=$root/tests/policies/bad
good=$root/tests/policies/good

if [ ! -x "$compile" ]; then
	echo "corpus: $compile is missing; run make first" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
failed=()

ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	failed+=("$1")
	echo "FAIL $1: $2"
}

# compile DIR FILE: runs the compiler from DIR; sets rc, leaves stderr in $tmp/err.
compile() {
	rm -f "$tmp/out.h" "$tmp/err"
	(cd "$1" && timeout 20 "$compile" -I "$root/policies" -I "$bad" -o "$tmp/out.h" "$2") \
		>"$tmp/stdout" 2>"$tmp/err.raw" </dev/null
	rc=$?
	sed "s|$root/||g" "$tmp/err.raw" >"$tmp/err"
}

want() {
	local n
	[ $# -eq 0 ] && return 0
	for n; do [ "$n" = "$1" ] && return 0; done
	return 1
}

shopt -s nullglob

for src in "$bad"/*.aj; do
	name=$(basename "$src" .aj)
	if [ $# -gt 0 ]; then want "$name" "$@" || continue; fi
	compile "$bad" "$name.aj"
	if [ $rc -ne 1 ]; then
		ko "bad/$name" "exit status $rc, expected 1"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if [ -e "$tmp/out.h" ]; then
		ko "bad/$name" "a header was written despite the error"
		continue
	fi
	if [ -s "$tmp/stdout" ]; then
		ko "bad/$name" "unexpected output on stdout"
		sed 's/^/    /' "$tmp/stdout"
		continue
	fi
	if [ ! -f "$bad/$name.err" ]; then
		ko "bad/$name" "no $name.err beside it; stderr was:"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if ! diff -u --label "bad/$name.err (expected)" --label "bad/$name.aj (stderr)" \
		"$bad/$name.err" "$tmp/err" >"$tmp/diff"; then
		ko "bad/$name" "stderr differs"
		cat "$tmp/diff"
		continue
	fi
	ok
done

for err in "$bad"/*.err; do
	name=$(basename "$err" .err)
	if [ $# -gt 0 ]; then want "$name" "$@" || continue; fi
	[ -f "$bad/$name.aj" ] || ko "bad/$name" "$name.err has no $name.aj"
done

for src in "$good"/*.aj; do
	name=$(basename "$src" .aj)
	if [ $# -gt 0 ]; then want "$name" "$@" || continue; fi
	compile "$good" "$name.aj"
	if [ $rc -ne 0 ]; then
		ko "good/$name" "exit status $rc, expected 0"
		sed 's/^/    /' "$tmp/err"
	elif [ ! -s "$tmp/out.h" ]; then
		ko "good/$name" "no header written"
	else
		ok
	fi
done

echo "corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
