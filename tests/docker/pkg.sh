# tests/docker/pkg.sh: the Debian packages on a fresh Debian 12 and 13
# (sourced by tests/docker/run.sh, inside its dockerd: DOCKER, T, ROOT,
# ok and bad are its own).
#
# Packages are built for the release they install on: aijail-dev's
# runtime is GCC link-time code, which only that release's gcc reads.  For
# the host's own release, make deb here (AJ_DEB_DIR: a folder of them
# already built); for another, in a container of that release, from a
# copy of the tree, with what make deps and make deps-pkg install (so
# those lists are tested too); DEB_BUILD_OPTIONS=nocheck, since make
# check runs the unit tests.  tests/lib/minbase.sh makes a debootstrap
# minbase root of each release (AJ_PKG_RELEASES, default "bookworm
# trixie"), docker import makes it an image, nothing is pulled.  In a
# container of it, with the three relaxations make check needs and the
# host's network for apt (this dockerd has no bridge): apt-get update,
# apt install ./aijail_*.deb (and python3, which jail-python runs): its
# AppArmor profile installed and disabled (no AppArmor 4 yet), and after
# apt install apparmor still disabled on bookworm (AppArmor 3), enabled by
# the trigger on trixie and read by its parser; as a
# user, jail-python -c 'print(1)' prints 1 and a project's .env reads
# empty; then apt install ./aijail-dev_*.deb ./python3-aijail_*.deb: as
# the user, aijail-compile --build of a policy that includes base.aj
# gives a stub that jails a command, and python3 imports aijail.

pkg_log=$T/pkg
mkdir -p "$pkg_log"
host_rel=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
relax=(--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined)

# pkg_debs REL: sets debs to a folder of the packages for REL, or empty.
pkg_debs() {
	local rel=$1 out
	debs=
	if [ "$rel" = "$host_rel" ] && [ -n "${AJ_DEB_DIR:-}" ]; then
		debs=$AJ_DEB_DIR
	elif [ "$rel" = "$host_rel" ]; then
		if DEB_BUILD_OPTIONS=nocheck make -C "$ROOT" --no-print-directory deb >"$pkg_log/deb-$rel.log" 2>&1; then
			debs=$ROOT/build/deb
		else
			bad "$rel: make deb failed; its last lines:"
			tail -n 10 "$pkg_log/deb-$rel.log" | sed 's/^/        /'
			return
		fi
	else
		out=$T/deb-$rel
		mkdir -p "$out"
		if "$DOCKER" run --rm --network host -v "$ROOT:/src:ro" -v "$out:/out" "aj-pkg:$rel" sh -c '
			set -e
			mkdir /b && cd /src && tar --exclude=./build --exclude="./build-*" --exclude=./.git -cf - . | tar -xf - -C /b
			cd /b && apt-get update && apt-get install -y make && make deps deps-pkg && DEB_BUILD_OPTIONS=nocheck make deb
			cp build/deb/*.deb /out/' >"$pkg_log/deb-$rel.log" 2>&1; then
			debs=$out
		else
			bad "$rel: make deb in a $rel container failed; its last lines:"
			tail -n 10 "$pkg_log/deb-$rel.log" | sed 's/^/        /'
			return
		fi
	fi
	if ls "$debs"/aijail_*.deb "$debs"/aijail-dev_*.deb "$debs"/python3-aijail_*.deb >/dev/null 2>&1; then
		ok "$rel: the packages: $(cd "$debs" && ls ./*.deb | tr '\n' ' ')"
	else
		bad "$rel: no aijail, aijail-dev and python3-aijail packages in $debs"
		debs=
	fi
}

# What runs in the container, as root: the packages from /debs, the checks
# as the user u, one "STEP name rc=N" line and its output per step.
cat >"$pkg_log/in.sh" <<'EOS'
export DEBIAN_FRONTEND=noninteractive
step() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	echo "STEP $name rc=$rc"
	printf '%s\n' "$out" | grep -E '^(Need to get|After this operation)' | sed 's/^/= /'
	printf '%s\n' "$out" | tail -n 12 | sed 's/^/| /'
}
as_u() { setpriv --reuid=u --regid=u --init-groups --reset-env sh -c "cd /home/u/p && $1"; }
cp -r /debs /tmp/debs && chmod -R a+rX /tmp/debs && cd /tmp/debs || exit 99
step update apt-get update
step install-aijail apt-get install -y --no-install-recommends ./aijail_*.deb python3
# The AppArmor profile: a conffile, its local/ include (dh_apparmor), and
# disabled while no AppArmor 4 (abi/4.0) is there to read it; AppArmor's
# own package then brings abi/4.0 on trixie (the trigger enables the
# profile, which its parser reads) and not on bookworm (it stays disabled).
aa_state() {
	ls /etc/apparmor.d/aijail /etc/apparmor.d/local/aijail >/dev/null &&
		if [ -L /etc/apparmor.d/disable/aijail ]; then echo "profile disabled"; else echo "profile enabled"; fi
}
step apparmor-installed aa_state
step apparmor-package apt-get install -y --no-install-recommends apparmor
step apparmor-after aa_state
if [ -e /etc/apparmor.d/abi/4.0 ]; then
	step apparmor-parses sh -c 'apparmor_parser -QK /etc/apparmor.d/aijail && echo parses'
else
	step apparmor-parses sh -c 'echo "no abi 4.0: not for this parser"'
fi
useradd -m -s /bin/sh u && mkdir /home/u/p && echo SECRET=x >/home/u/p/.env && chown -R u: /home/u/p
step jail-python as_u "jail-python -c 'print(1)'"
step masked as_u "jail-python -c 'print(repr(open(\".env\").read()))'"
# aijail-keys beside the stubs: a bound key starts it, the jail sees the
# placeholder (no connection is made)
step keys as_u "K=v jail --jail-allow-host=example.org --jail-secret=K=example.org -- sh -c 'echo \$K'"
step install-dev apt-get install -y --no-install-recommends ./aijail-dev_*.deb ./python3-aijail_*.deb
printf 'include "base.aj";\n\npolicy mine extends base {\n    mask "*.secret";\n}\n' >/home/u/p/mine.aj
echo hunter2 >/home/u/p/db.secret && chown u: /home/u/p/mine.aj /home/u/p/db.secret
step build as_u "aijail-compile --build mine.aj -o jail-mine"
step built-runs as_u "./jail-mine /bin/sh -c 'cat db.secret; echo ran'"
step python-import as_u "python3 -c 'import aijail; print(aijail.__file__)'"
EOS

# pkg_step NAME WANT_PATTERN DESCRIPTION: the step ran, exit 0, its output matches.
pkg_step() {
	local out=$1 name=$2 pat=$3 what=$4 body
	body=$(printf '%s\n' "$out" | awk -v s="STEP $name rc=" 'index($0, "STEP ") == 1 { on = (index($0, s) == 1) } on')
	if printf '%s\n' "$body" | head -n 1 | grep -q " rc=0$" &&
		printf '%s\n' "$body" | tail -n +2 | sed 's/^| //' | grep -Eq -- "$pat"; then
		ok "$what"
	else
		bad "$what:"
		printf '%s\n' "${body:-(the step did not run)}" | sed 's/^/        /' | head -n 14
	fi
}

for rel in ${AJ_PKG_RELEASES:-bookworm trixie}; do
	echo "== the packages on a fresh $rel (minbase), --security-opt seccomp= systempaths= apparmor=unconfined"
	tar=$ROOT/build/minbase/$rel.tar
	if ! "$ROOT/tests/lib/minbase.sh" "$rel" "$tar" >"$pkg_log/minbase-$rel.log" 2>&1; then
		bad "$rel: a minbase root (tests/lib/minbase.sh): $(tail -n 3 "$pkg_log/minbase-$rel.log" | tr '\n' ' ')"
		continue
	fi
	if ! "$DOCKER" import "$tar" "aj-pkg:$rel" >/dev/null 2>"$pkg_log/import-$rel.log"; then
		bad "$rel: docker import: $(tail -n 2 "$pkg_log/import-$rel.log")"
		continue
	fi
	start=$(date +%s)
	pkg_debs "$rel"
	echo "   ($rel: the packages in $(($(date +%s) - start)) s)"
	[ -n "$debs" ] || continue
	start=$(date +%s)
	out=$("$DOCKER" run --rm --network host "${relax[@]}" -v "$debs:/debs:ro" -v "$pkg_log/in.sh:/in.sh:ro" \
		"aj-pkg:$rel" sh /in.sh 2>&1)
	printf '%s\n' "$out" >"$pkg_log/run-$rel.log"
	echo "   ($rel: $(($(date +%s) - start)) s in the container; apt: $(printf '%s\n' "$out" |
		sed -n 's/^= //p' | tr '\n' ' '))"
	pkg_step "$out" update '' "$rel: apt-get update"
	pkg_step "$out" install-aijail '' "$rel: apt install ./aijail_*.deb"
	pkg_step "$out" apparmor-installed '^profile disabled$' \
		"$rel: /etc/apparmor.d/aijail and local/aijail installed, disabled without AppArmor 4"
	if [ "$rel" = bookworm ]; then
		pkg_step "$out" apparmor-after '^profile disabled$' "$rel: AppArmor 3 installed after: the profile stays disabled"
		pkg_step "$out" apparmor-parses '^no abi 4.0' "$rel: ... its parser has no abi 4.0"
	else
		pkg_step "$out" apparmor-after '^profile enabled$' "$rel: AppArmor 4 installed after: the trigger enables the profile"
		pkg_step "$out" apparmor-parses '^parses$' "$rel: ... and its apparmor_parser reads it"
	fi
	pkg_step "$out" jail-python '^1$' "$rel: jail-python -c 'print(1)' as a user prints 1"
	pkg_step "$out" masked "^''$" "$rel: ... and the project's .env reads empty"
	pkg_step "$out" keys '^aijail-secret-K-[0-9a-f]{32}$' "$rel: --jail-secret starts /usr/bin/aijail-keys; the jail sees the placeholder"
	pkg_step "$out" install-dev '' "$rel: apt install ./aijail-dev_*.deb ./python3-aijail_*.deb"
	pkg_step "$out" build 'jail-mine.*sha256:[0-9a-f]{64} \(aijail-compile [^,]+, libseccomp [0-9.]+\)' \
		"$rel: aijail-compile --build of a policy on base.aj, as the user"
	pkg_step "$out" built-runs '^ran$' "$rel: ... its stub jails a command (a *.secret reads empty)"
	if printf '%s\n' "$out" | grep -q '^| hunter2$'; then
		bad "$rel: the built stub let db.secret be read"
	fi
	pkg_step "$out" python-import '^/usr/lib/python3/dist-packages/aijail/__init__.py$' "$rel: python3 imports aijail"
	"$DOCKER" rmi "aj-pkg:$rel" >/dev/null 2>&1
done
