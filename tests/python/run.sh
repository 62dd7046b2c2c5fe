#!/bin/bash
# run.sh: the Python package's tests (tests/python/test_aijail.py, and
# test_dask.py: aijail.dask on a Dask cluster of its own) as the
# unprivileged test user (tests/lib/user.sh, AJTEST_USER when root), on
# copies of the built stub and status tool in a temporary folder; then
# the package builds as a wheel with the system's setuptools (what
# `pip install ./python` does, offline).  Arguments go to unittest after
# the module: `run.sh -k Pool` runs the cases whose names hold Pool.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${AIJAIL_BUILD:-$root/build}
py=/usr/bin/python3

# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

for b in jail jail-worker aijail-status; do
	if [ ! -x "$build/bin/$b" ]; then
		echo "FAIL setup: $build/bin/$b is missing; run make first"
		exit 1
	fi
done

T=$(mktemp -d /tmp/aijail-python.XXXXXX) || exit 1
chmod 0755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/work"
cp "$build/bin/jail" "$build/bin/jail-worker" "$build/bin/aijail-status" "$T/bin/"
cp -r "$root/python" "$T/python"
cp "$root/tests/python/test_aijail.py" "$root/tests/python/test_dask.py" "$root/tests/python/dask_cluster.py" "$T/"
chmod -R a+rX "$T"
chown "$tuid:$tgid" "$T/work"
[ $as_root -eq 1 ] || {
	thome=$T/home
	mkdir -p "$thome"
}

if [ $as_root -eq 1 ]; then
	pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env)
else
	pre=()
fi
rc=0
(cd "$T/work" && exec "${pre[@]}" env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser" \
	PATH=/usr/local/bin:/usr/bin:/bin TMPDIR="$T/work" PYTHONPATH="$T/python:$T" \
	PYTHONDONTWRITEBYTECODE=1 AIJAIL_STUB="$T/bin/jail" AIJAIL_STATUS="$T/bin/aijail-status" \
	"$py" -m unittest -v test_aijail test_dask "$@" 2>&1 </dev/null) || rc=1
[ $rc -eq 0 ] && echo "PASS python unittest" || echo "FAIL python unittest"

if "$py" -m pip --version >/dev/null 2>&1; then
	if (cd "$T" && "$py" -m pip wheel --no-deps --no-build-isolation --no-index -q \
		-w "$T/wheel" "$T/python" >"$T/pip.log" 2>&1) && ls "$T"/wheel/aijail-*.whl >/dev/null 2>&1 &&
		"$py" -m zipfile -l "$T"/wheel/aijail-*.whl 2>/dev/null | grep -q 'aijail/__init__.py'; then
		echo "PASS python wheel"
	else
		echo "FAIL python wheel"
		sed 's/^/    /' "$T/pip.log" | tail -n 20
		rc=1
	fi
else
	echo "SKIP python wheel: no pip for $py"
fi
exit $rc
