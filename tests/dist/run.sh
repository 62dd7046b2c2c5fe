#!/bin/bash
# run.sh: make dist, the static release archive (make dist-check, part of
# make check).  Two runs, the second after every input's time changed,
# give the same bytes; SHA256SUMS inside holds and names every file; the
# archive has what the README promises; installed as the README says
# (tar -C PREFIX --strip-components=1), its jail-worker jails a command
# as the unprivileged test user: a project file read, .env masked.
#
# Usage: tests/dist/run.sh.  Environment: MAKE (default make),
# AJTEST_USER (the test user, tests/lib/user.sh).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"
make=${MAKE:-make}

tmp=$(mktemp -d /tmp/aijail-dist.XXXXXX)
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

version=$(sed -n 's/^AIJAIL_VERSION := //p' "$root/Makefile")
name=aijail-$version-x86_64-linux
tgz=$root/build/dist/$name.tar.gz

# --- two runs, the same bytes ------------------------------------------------------

ERR=
if ! "$make" -C "$root" --no-print-directory dist >"$tmp/dist1.log" 2>&1; then
	ERR=$(tail -n 8 "$tmp/dist1.log")
	fail dist "make dist failed"
	echo "dist-check: $npass passed, $nfail failed, $nskip skipped"
	exit 1
fi
sum1=$(sha256sum <"$tgz")
cp "$tgz" "$tmp/first.tar.gz"
# What a second build on another day would see: every file it packs
# younger (not the policies: make would rebuild every stub from them).
touch "$root"/build/bin/* "$root"/docs/man/* "$root/LICENSE"
sleep 1
if ! "$make" -C "$root" --no-print-directory dist >"$tmp/dist2.log" 2>&1; then
	ERR=$(tail -n 8 "$tmp/dist2.log")
	fail reproducible "the second make dist failed"
elif [ "$(sha256sum <"$tgz")" = "$sum1" ]; then
	pass reproducible "${sum1%% *}"
else
	ERR=$(cd "$tmp" && mkdir a b && tar -xzf first.tar.gz -C a && tar -xzf "$tgz" -C b &&
		diff -r a b 2>&1 | head -n 5; tar -tvzf first.tar.gz | head -n 3; tar -tvzf "$tgz" | head -n 3)
	fail reproducible "two runs of make dist differ"
fi
if [ "$(cat "$tgz.sha256" 2>/dev/null)" = "${sum1%% *}  $name.tar.gz" ]; then
	pass archive-sum
else
	fail archive-sum "$tgz.sha256 does not hold the archive's sha256 in sha256sum -c's form"
fi

# --- what it holds ----------------------------------------------------------------

x=$tmp/x
mkdir -p "$x"
tar -xzf "$tgz" -C "$x"
ERR=$(cd "$x/$name" && sha256sum -c --strict SHA256SUMS 2>&1)
rc=$?
listed=$(cd "$x/$name" && awk '{ print $2 }' SHA256SUMS | LC_ALL=C sort)
present=$(cd "$x/$name" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort)
if [ "$rc" -eq 0 ] && [ "$listed" = "$present" ]; then
	pass sha256sums "$(printf '%s\n' "$listed" | wc -l) files"
else
	[ "$listed" = "$present" ] || ERR="$ERR
not listed or missing: $(diff <(echo "$listed") <(echo "$present") | grep '^[<>]' | tr '\n' ' ')"
	fail sha256sums "sha256sum -c SHA256SUMS failed, or it does not list every file"
fi
missing=
for f in bin/jail bin/jail-worker bin/jail-python bin/jail-npm bin/jail-pip bin/jail-uv bin/jail-cargo \
	bin/jail-browser bin/aijail-status bin/aijail-keys share/aijail/policies/base.aj share/man/man1/jail.1 \
	share/man/man5/aijail.aj.5 LICENSE LICENSE.mbedtls INSTALL SHA256SUMS; do
	[ -f "$x/$name/$f" ] || missing="$missing $f"
done
dyn=
for f in "$x/$name"/bin/*; do
	file -b "$f" | grep -q 'statically linked' || dyn="$dyn ${f##*/}"
done
odd=$(tar -tvzf "$tgz" | awk '$2 != "0/0" { print $6 }' | head -n 3)
if [ -z "$missing" ] && [ -z "$dyn" ] && [ -z "$odd" ]; then
	pass contents
else
	ERR=
	fail contents "missing:${missing:- none}; not static:${dyn:- none}; not owned by 0/0: ${odd:-none}"
fi

# --- installed as the README says, the stub jails a command ---------------------------

prefix=$tmp/prefix
mkdir -p "$prefix"
tar -xzf "$tgz" -C "$prefix" --strip-components=1 --wildcards "$name/bin/*" "$name/share/*"
space=$tmp/space
proj=$space/project
mkdir -p "$proj"
printf 'API_KEY=sk_live_x\n' >"$proj/.env"
printf 'visible\n' >"$proj/readme.txt"
uhome=$space/home
mkdir -p "$uhome"
[ "$as_root" -eq 1 ] && [ -n "${thome:-}" ] && uhome=$thome
[ "$as_root" -eq 1 ] && chown -R "$tuser:" "$space"
pre=()
[ "$as_root" -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env)
if [ -e "$prefix/LICENSE" ] || [ -e "$prefix/SHA256SUMS" ]; then
	fail install-layout "the README's tar command put the archive's own files in PREFIX"
else
	pass install-layout "bin/ and share/ only"
fi
OUT=$(cd "$proj" && timeout -k 5 60 "${pre[@]}" env -i HOME="$uhome" USER="$tuser" LOGNAME="$tuser" \
	PATH="$prefix/bin:/usr/bin:/bin" jail-worker /bin/sh -c 'cat .env; echo "|"; cat readme.txt' \
	2>"$tmp/err" </dev/null)
rc=$?
ERR=$(cat "$tmp/err")
if [ "$rc" -eq 0 ] && [ "$OUT" = "$(printf '|\nvisible')" ]; then
	pass jail-runs "$(sed -n 's/^identity: //p' <(env -i "$prefix/bin/jail-worker" --jail-version 2>&1))"
else
	fail jail-runs "the archive's jail-worker as $tuser: exit $rc, output $(printf '%q' "$OUT") (wanted .env empty, readme.txt read)"
fi

# a bound key: the archive's jail starts its aijail-keys, beside it (no
# connection is made; the jail sees the placeholder)
OUT=$(cd "$proj" && timeout -k 5 60 "${pre[@]}" env -i HOME="$uhome" USER="$tuser" LOGNAME="$tuser" \
	PATH="$prefix/bin:/usr/bin:/bin" K=v jail --jail-allow-host=example.org --jail-secret=K=example.org \
	-- /bin/sh -c 'echo "$K"' 2>"$tmp/err" </dev/null)
rc=$?
ERR=$(cat "$tmp/err")
if [ "$rc" -eq 0 ] && [[ $OUT =~ ^aijail-secret-K-[0-9a-f]{32}$ ]]; then
	pass jail-keys "--jail-secret starts the archive's aijail-keys; the jail sees the placeholder"
else
	fail jail-keys "the archive's jail --jail-secret as $tuser: exit $rc, output $(printf '%q' "$OUT")"
fi

echo "dist-check: $npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" -gt 0 ]; then
	echo "failed: ${failed[*]}"
	exit 1
fi
