#!/bin/bash
# run.sh: make wheel, the Python wheel with the stubs (make wheel-check,
# part of make check).  Two runs, the second after every input's time
# changed, give the same bytes, and so does tools/wheel.py run by the test
# user with umask 077 (as root); the RECORD holds for every entry, the
# binaries are static and executable, the tags are the static ones.  Then,
# as the unprivileged test user and (when run as root) as root, each in a
# fresh virtual environment of its own (python3 -m venv), offline:
#   pip install --no-index aijail-*.whl
#   VENV/bin/jail-python -c 'print(1)'            from a project folder
#   VENV/bin/python3 -c 'import aijail; aijail.status()'
#   VENV/bin/aijail-mcp answering tools/list       (JSON-RPC lines on stdin,
#                                                  and the MCP Inspector's CLI
#                                                  where make mcp-deps put it)
# with PATH=/usr/bin:/bin: the venv is never activated, so whatever runs
# was found beside the package, not on PATH.
#
# Usage: tests/wheel/run.sh.  Environment: MAKE (default make),
# AJTEST_USER (the test user, tests/lib/user.sh).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"
make=${MAKE:-make}
py=/usr/bin/python3

tmp=$(mktemp -d /tmp/aijail-wheel.XXXXXX)
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

version=$(sed -n 's/^AIJAIL_VERSION := //p' "$root/Makefile")
whl=$root/build/wheel/aijail-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl
[ "$(uname -m)" = x86_64 ] || whl=$(echo "$whl" | sed "s/x86_64/$(uname -m)/g")

summary() {
	echo "wheel-check: $npass passed, $nfail failed, $nskip skipped"
	if [ "$nfail" -gt 0 ]; then
		echo "failed: ${failed[*]}"
		exit 1
	fi
	exit 0
}

# --- two runs, the same bytes ------------------------------------------------------

ERR=
rm -f "$whl"
if ! "$make" -C "$root" --no-print-directory wheel >"$tmp/w1.log" 2>&1 || [ ! -f "$whl" ]; then
	ERR=$(tail -n 8 "$tmp/w1.log")
	fail wheel "make wheel failed, or wrote no $whl"
	summary
fi
sum1=$(sha256sum <"$whl")
cp "$whl" "$tmp/first.whl"
# What a build on another day would see: every file it packs younger.
touch "$root"/build/bin/* "$root"/python/aijail/*.py "$root/python/README.md" "$root/LICENSE"
sleep 1
if ! "$make" -C "$root" --no-print-directory wheel >"$tmp/w2.log" 2>&1; then
	ERR=$(tail -n 8 "$tmp/w2.log")
	fail reproducible "the second make wheel failed"
elif [ "$(sha256sum <"$whl")" = "$sum1" ]; then
	pass reproducible "${sum1%% *}"
else
	ERR=$("$py" -m zipfile -l "$tmp/first.whl" | head -n 3; "$py" -m zipfile -l "$whl" | head -n 3)
	fail reproducible "two runs of make wheel differ"
fi

# The same inputs written by the test user (root's run is make's): nothing
# of who wrote it (owner, umask) reaches the bytes.
if [ "$as_root" -eq 1 ]; then
	u=$tmp/as-user
	mkdir -p "$u/in/bin"
	cp -r "$root/python" "$u/in/python"
	cp "$root/python/README.md" "$root/LICENSE" "$root/tools/wheel.py" "$u/in/"
	# the binaries make wheel packed, whatever the list of policies
	for b in $("$py" -c 'import sys, zipfile
print(" ".join(n.rsplit("/", 1)[1] for n in zipfile.ZipFile(sys.argv[1]).namelist() if "/scripts/" in n))' "$whl"); do
		cp "$root/build/bin/$b" "$u/in/bin/"
	done
	chown -R "$tuid:$tgid" "$u"
	sde=$(cd "$root" && git log -1 --format=%ct 2>/dev/null || echo 0)
	if ERR=$(cd "$u" && setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env \
		env -i PATH=/usr/bin:/bin SOURCE_DATE_EPOCH="$sde" sh -c 'umask 077 && "$0" "$@"' \
		"$py" in/wheel.py --version "$version" --arch "$(uname -m)" --out "$u/out" --python in/python \
		--readme in/README.md --license in/LICENSE in/bin/* 2>&1) &&
		[ "$(sha256sum <"$u/out/${whl##*/}")" = "$(sha256sum <"$whl")" ]; then
		pass reproducible-user "written by $tuser with umask 077: the same bytes"
	else
		fail reproducible-user "tools/wheel.py as $tuser gave other bytes, or failed"
	fi
	ERR=
else
	skip reproducible-user "not running as root"
fi

# --- what it holds ------------------------------------------------------------------

ERR=$("$py" - "$whl" <<'EOF' 2>&1
import base64, csv, hashlib, io, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
info = [n for n in names if n.endswith(".dist-info/RECORD")]
assert len(info) == 1, "one RECORD: %r" % info
assert names[-1] == info[0], "RECORD is not last"
rows = {r[0]: r for r in csv.reader(io.StringIO(z.read(info[0]).decode()))}
assert set(rows) == set(names), "RECORD lists %s, the zip holds %s" % (
    sorted(set(rows) ^ set(names)), len(names))
for n in names:
    if n == info[0]:
        continue
    data = z.read(n)
    h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert rows[n][1:] == [h, str(len(data))], "%s: RECORD says %s, it is %s %d" % (n, rows[n][1:], h, len(data))
    mode = z.getinfo(n).external_attr >> 16
    want = 0o100755 if "/scripts/" in n else 0o100644
    assert mode == want, "%s: mode %o, not %o" % (n, mode, want)
wheel = z.read(info[0].replace("RECORD", "WHEEL")).decode()
assert "Root-Is-Purelib: false" in wheel, wheel
tags = sorted(l.split(": ")[1] for l in wheel.splitlines() if l.startswith("Tag: "))
plat = sys.argv[1].rsplit("-", 1)[1][:-4].split(".")
assert tags == sorted("py3-none-" + p for p in plat), "WHEEL's tags %s, the name's %s" % (tags, plat)
eps = z.read(info[0].replace("RECORD", "entry_points.txt")).decode()
assert "aijail-mcp = aijail.mcp:main" in eps, eps
for want in ("aijail/__init__.py", "aijail/pool.py", "aijail/mcp.py"):
    assert want in names, want + " is missing"
scripts = sorted(n.rsplit("/", 1)[1] for n in names if "/scripts/" in n)
print(" ".join(scripts))
EOF
)
rc=$?
scripts=$(printf '%s\n' "$ERR" | tail -n 1)
if [ $rc -eq 0 ]; then
	ERR=
	pass record "every entry's sha256 and size, modes 0644/0755, the tags: $scripts"
else
	fail record "the wheel's RECORD, modes or tags are wrong"
fi
x=$tmp/x
mkdir -p "$x"
"$py" -m zipfile -e "$whl" "$x"
dyn=
missing=
for b in jail jail-worker jail-python jail-npm jail-pip jail-uv jail-cargo jail-browser aijail-status aijail-keys; do
	f=$x/aijail-$version.data/scripts/$b
	if [ ! -f "$f" ]; then
		missing="$missing $b"
	elif ! file -b "$f" | grep -q 'statically linked'; then
		dyn="$dyn $b"
	fi
done
if [ -z "$missing$dyn" ]; then
	pass contents "the stubs, aijail-status and aijail-keys, static"
else
	ERR=
	fail contents "missing:${missing:- none}; not static:${dyn:- none}"
fi

# --- installed in a fresh venv, run from it -----------------------------------------

# one WHO: a venv made and used by WHO (user or root), in a folder of
# its own; nothing of the venv on PATH.
one() {
	local who=$1 d=$tmp/$1 pre=() venv out
	mkdir -p "$d/proj" "$d/home"
	printf 'API_KEY=sk_live_x\n' >"$d/proj/.env"
	if [ "$who" = user ]; then
		[ "$as_root" -eq 1 ] && {
			chown -R "$tuid:$tgid" "$d"
			pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env)
		}
	fi
	venv=$d/venv
	local uname
	uname=$(id -un)
	[ "$who" = user ] && uname=$tuser
	run() {
		(cd "$d/proj" && timeout -k 5 120 "${pre[@]}" env -i HOME="$d/home" USER="$uname" \
			LOGNAME="$uname" PATH=/usr/bin:/bin PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 "$@")
	}
	if ! ERR=$(run "$py" -m venv "$venv" 2>&1); then
		fail "$who-venv" "python3 -m venv failed (Debian: python3-venv, in make deps-test)"
		return
	fi
	if ERR=$(run "$venv/bin/pip" install -q --no-index "$whl" 2>&1); then
		pass "$who-pip-install" "$(run "$venv/bin/pip" --version 2>&1 | cut -d' ' -f1-2), --no-index"
	else
		fail "$who-pip-install" "pip install --no-index of the wheel failed"
		return
	fi
	ERR=
	out=$(run "$venv/bin/jail-python" -c 'print(1)' 2>"$d/err")
	rc=$?
	if [ $rc -eq 0 ] && [ "$out" = 1 ]; then
		pass "$who-jail-python" "$(run "$venv/bin/jail-python" --jail-version 2>&1 | sed -n 's/^identity: //p')"
	else
		ERR=$(cat "$d/err")
		fail "$who-jail-python" "VENV/bin/jail-python -c 'print(1)': exit $rc, output $(printf '%q' "$out")"
	fi
	# a bound key: the venv's jail starts the venv's aijail-keys beside it
	# (no connection is made; the jail sees the placeholder)
	out=$(run env K=v "$venv/bin/jail" --jail-allow-host=example.org --jail-secret=K=example.org \
		-- sh -c 'echo "$K"' 2>"$d/err")
	rc=$?
	ERR=$(cat "$d/err")
	if [ $rc -eq 0 ] && [[ $out =~ ^aijail-secret-K-[0-9a-f]{32}$ ]]; then
		pass "$who-keys" "--jail-secret starts the venv's aijail-keys; the jail sees the placeholder"
	else
		fail "$who-keys" "VENV/bin/jail --jail-secret: exit $rc, output $(printf '%q' "$out")"
	fi
	out=$(run "$venv/bin/python3" -c 'import aijail, json, sys
s = aijail.status()
print(json.dumps({"stub": aijail.find_stub(), "tool": aijail.find_status_tool(),
                  "in_jail": s.get("in_jail"), "seccomp": s["seccomp"]["mode"]}))' 2>"$d/err")
	rc=$?
	ERR=$(cat "$d/err")
	if [ $rc -eq 0 ] && printf '%s' "$out" | "$py" -c 'import json, sys
r = json.loads(sys.stdin.read())
v = sys.argv[1] + "/bin/"
sys.exit(0 if r["stub"] == v + "jail" and r["tool"] == v + "aijail-status" and r["in_jail"] is True
         and r["seccomp"] == 2 else 1)' "$venv"; then
		pass "$who-status" "the venv's jail and aijail-status, in_jail, seccomp 2"
	else
		fail "$who-status" "aijail.status() from the venv: exit $rc, $out"
	fi
	out=$(printf '%s\n' \
		'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wheel-check","version":"0"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
		run "$venv/bin/aijail-mcp" --root "$d/proj" 2>"$d/err")
	rc=$?
	ERR=$(cat "$d/err")
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | "$py" -c 'import json, sys
r = [json.loads(l) for l in sys.stdin if l.strip()]
t = [x for x in r if x.get("id") == 2][0]
sys.exit(0 if sorted(x["name"] for x in t["result"]["tools"]) == ["run_command", "sandbox_status"] else 1)'; then
		pass "$who-mcp-tools-list" "run_command, sandbox_status"
	else
		fail "$who-mcp-tools-list" "aijail-mcp from the venv: exit $rc, $(printf '%s' "$out" | head -c 300)"
	fi
	local insp=$root/build/mcp-test/node_modules/.bin/mcp-inspector
	if [ ! -x "$insp" ]; then
		skip "$who-inspector" "no mcp-inspector in build/mcp-test (make mcp-deps)"
		return
	fi
	out=$(run "$insp" --cli "$venv/bin/aijail-mcp" --root "$d/proj" --method tools/list 2>"$d/err")
	rc=$?
	ERR=$(cat "$d/err")
	if printf '%s' "$out" | "$py" -c 'import json, sys
r = json.loads(sys.stdin.read())
sys.exit(0 if sorted(t["name"] for t in r["tools"]) == ["run_command", "sandbox_status"] else 1)'; then
		pass "$who-inspector" "the Inspector's CLI: tools/list"
	else
		fail "$who-inspector" "mcp-inspector --cli VENV/bin/aijail-mcp --method tools/list: exit $rc, $(printf '%s' "$out" | head -c 300)"
	fi
}

one user
if [ "$as_root" -eq 1 ]; then
	one root
else
	skip root-venv "not running as root"
fi
summary
