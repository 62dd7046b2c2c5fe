#!/bin/bash
# run.sh: aijail-status, inside jails and out.  As root, the jails run as
# the unprivileged test user (tests/lib/user.sh, AJTEST_USER); the tool is
# copied to a temporary folder and brought in with --jail-ro, as any
# binary outside /usr is.
#
# Each case checks a field the tool measured against what the jail is known
# to have done, and a control case shows the Landlock probe can also answer
# "no": a root of our own (tmpfs, in our own user and mount namespaces)
# with no ruleset.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
build=${AIJAIL_BUILD:-$root/build}
py=/usr/bin/python3


# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

for b in aijail-status jail jail-worker; do
	if [ ! -x "$build/bin/$b" ]; then
		echo "FAIL setup: $build/bin/$b is missing; run make first"
		exit 1
	fi
done

T=$(mktemp -d /tmp/aijail-status.XXXXXX) || exit 1
chmod 0755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/proj" "$T/out"
cp "$build/bin/aijail-status" "$build/bin/jail" "$build/bin/jail-worker" "$T/bin/"
chmod 0755 "$T/bin"/*
chown -R "$tuid:$tgid" "$T/proj"
[ $as_root -eq 1 ] || thome=$T/home
mkdir -p "$thome"
st=$T/bin/aijail-status

# srun [VAR=VALUE…] -- COMMAND ARGS…: as the test user, from the project,
# a clean environment.  Sets RC, OUT, ERR.
srun() {
	local e=(PATH=/usr/local/bin:/usr/bin:/bin) pre
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		e+=("$1")
		shift
	done
	shift
	if [ $as_root -eq 1 ]; then
		pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env
			env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
	else
		pre=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
	fi
	(cd "$T/proj" && exec timeout -k 5 60 "${pre[@]}" "${e[@]}" "$@") \
		>"$T/out/stdout" 2>"$T/out/stderr" </dev/null
	RC=$?
	OUT=$(cat "$T/out/stdout")
	ERR=$(cat "$T/out/stderr")
}

# jq_ PYEXPR: evaluates PYEXPR with s bound to the JSON in $OUT.
jq_() {
	printf '%s' "$OUT" | "$py" -c 'import json, sys; s = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1" 2>&1
}

# check NAME PYEXPR EXPECTED: the JSON in $OUT gives EXPECTED for PYEXPR.
check() {
	local got
	got=$(jq_ "$2")
	if [ "$got" = "$3" ]; then pass "$1"; else fail "$1" "$2 is $(printf '%q' "$got"), expected $3"; fi
}

# --- outside a jail -------------------------------------------------------------

srun -- "$st"
if [ "$RC" = 1 ] && [[ $OUT == "in a jail: no:"* ]]; then pass outside-text; else
	fail outside-text "exit $RC, first line $(printf '%q' "${OUT%%$'\n'*}")"
fi
srun -- "$st" --json
if [ "$RC" = 1 ]; then pass outside-exit; else fail outside-exit "exit $RC, expected 1"; fi
check outside-json 's["in_jail"], "the user namespace is the host\x27s" in s["missing"]' \
	"(False, True)"
check outside-no-floor 's["mode"]["floor"]' None

srun -- "$st" --bogus
if [ "$RC" = 2 ]; then pass usage; else fail usage "exit $RC, expected 2"; fi

# --- inside the generic jail ----------------------------------------------------

srun -- "$T/bin/jail" --jail-ro="$st" "$st" --json
if [ "$RC" = 0 ]; then pass inside-exit; else fail inside-exit "exit $RC, expected 0; $OUT"; fi
check inside-in-jail 's["in_jail"], s["missing"]' "(True, [])"
check inside-seccomp 's["seccomp"]["mode"], s["seccomp"]["filters"] >= 1' "(2, True)"
check inside-nnp 's["no_new_privs"]' True
check inside-caps 's["capabilities"]["none"], s["capabilities"]["bounding"]' \
	"(True, '0000000000000000')"
for ns in user pid mnt net ipc uts; do
	check "inside-ns-$ns" "s['namespaces']['$ns']['private']" True
done
check inside-uid-map 's["namespaces"]["user"]["uid_map"].split()[1]' "$tuid"
check inside-pid1 's["namespaces"]["pid"]["pid1"], s["namespaces"]["pid"]["pid"] != 1' \
	"('jail', True)"
check inside-root 's["namespaces"]["mnt"]["root_fs"], s["namespaces"]["mnt"]["root_source"]' \
	"('tmpfs', 'aijail')"
check inside-hostname 's["namespaces"]["uts"]["hostname"]' jail
check inside-net-none 's["network"]["none"], [i["name"] for i in s["network"]["interfaces"]]' \
	"(True, ['lo'])"
check inside-floor 's["mode"]["floor"], s["mode"]["claimed"]' "('normal', 'normal')"
abi=$(jq_ 's["landlock"]["abi"]')
if [ "$abi" = None ]; then
	skip inside-landlock "the kernel has no Landlock here: $(jq_ 's["landlock"]["abi_error"]')"
else
	check inside-landlock 's["landlock"]["restricted"]' True
fi

srun -- "$T/bin/jail" --jail-ro="$st" "$st"
if [ "$RC" = 0 ] && [[ $OUT == "in a jail: yes"* ]] && [[ $OUT == *"seccomp:      mode 2"* ]]; then
	pass inside-text
else
	fail inside-text "exit $RC, $(printf '%q' "$OUT")"
fi

# The floor is the kernel's; the variable is only a claim.
srun -- "$T/bin/jail" --jail-ro="$st" env AIJAIL_MODE=lockdown "$st" --json
check claim-not-floor 's["mode"]["floor"], s["mode"]["claimed"]' "('normal', 'lockdown')"

srun -- "$T/bin/jail-worker" --jail-ro="$st" "$st" --json
check worker-floor 's["in_jail"], s["mode"]["floor"]' "(True, 'worker')"

srun -- "$T/bin/jail" --lockdown --jail-ro="$st" "$st" --json
check lockdown-floor 's["in_jail"], s["mode"]["floor"]' "(True, 'lockdown')"

# With the host's network, the net namespace and its interfaces are the host's.
host_ifs=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); if ($1 != "lo") print $1 }' /proc/net/dev | head -n 1)
if [ -z "$host_ifs" ]; then
	skip host-net "the host has no interface but loopback"
else
	srun -- "$T/bin/jail" --net --jail-ro="$st" "$st" --json
	check host-net 's["network"]["none"], "'"$host_ifs"'" in [i["name"] for i in s["network"]["interfaces"]]' \
		"(False, True)"
fi

# --- the Landlock probe's control: a root of our own, no ruleset -------------------

srun -- unshare -Urm true
if [ "$RC" != 0 ]; then
	skip landlock-control "no user namespaces for the test user here"
else
	srun -- unshare -Urmpf --kill-child sh -c '
		r=$(mktemp -d) && mount -t tmpfs ctl "$r" && mkdir "$r/proc" &&
		mount -t proc proc "$r/proc" && cp "$1" "$r/status" && exec /usr/sbin/chroot "$r" /status --json' \
		sh "$st"
	if [ "$RC" != 1 ]; then
		fail landlock-control "exit $RC, expected 1 (no seccomp, no floor): $OUT"
	else
		check landlock-control 's["landlock"]["restricted"], s["namespaces"]["user"]["private"], s["in_jail"]' \
			"(False, True, False)"
	fi
fi

# --- the project watchers (aijail-status --watchers) -----------------------------

# A project's watcher, started by two stubs in two modes: listed once, with
# its project, pid, watches, age and the tables it serves.
mkdir -p "$T/xdg"
chown "$tuid:$tgid" "$T/xdg"
chmod 0700 "$T/xdg"
W=(XDG_RUNTIME_DIR="$T/xdg" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=60)
for args in "$T/bin/jail-worker --jail-mode=normal" "$T/bin/jail --jail-mode=lockdown"; do
	for _ in 1 2 3 4; do
		# shellcheck disable=SC2086 # two words: the stub and its mode
		srun "${W[@]}" -- $args --jail-explain=json
		[ "$(jq_ 's["scan"]["source"]')" = "the watcher" ] && break
	done
done
srun "${W[@]}" -- "$st" --watchers --json
wpid=$(jq_ 's["watchers"][0]["pid"]' 2>/dev/null)
check watchers-json 's["directory"], len(s["watchers"]), s["watchers"][0]["project"], s["watchers"][0]["watches"] >= 1, s["watchers"][0]["age"] >= 0, s["watches"] == s["watchers"][0]["watches"], s["limit"] > 0' \
	"('$T/xdg/aijail', 1, '$T/proj', True, True, True, True)"
check watchers-tables 'sorted(l.split("/")[0] for t in s["watchers"][0]["tables"] for l in t.split())' \
	"['jail', 'jail-worker']"
if [ "$(cat "/proc/$wpid/comm" 2>/dev/null)" = aijail-watch ]; then pass watchers-pid; else
	fail watchers-pid "pid $(printf '%q' "$wpid") is not an aijail-watch"
fi
srun "${W[@]}" -- "$st" --watchers
if [ "$RC" = 0 ] && [[ $OUT == *"$T/proj"*"pid $wpid,"*"1 watcher,"* ]]; then pass watchers-text; else
	fail watchers-text "exit $RC, $(printf '%q' "$OUT")"
fi
[ -n "$wpid" ] && [ "$(cat "/proc/$wpid/comm" 2>/dev/null)" = aijail-watch ] && kill "$wpid" 2>/dev/null

# --- the machine (aijail-status --doctor) ------------------------------------------

# Every check is there, each with a state and a fix where it is not ok; the
# verdict follows the checks and the exit status the verdict; and what it
# says of namespaces is what the stubs then do: it cannot say "works" of a
# machine where the stub fails.  As the test user, then (as root) as root.
checks="['userns', 'apparmor', 'landlock', 'seccomp', 'cgroups', 'ia32', 'proc_masks', 'container_seccomp', 'docker_socket', 'stubs_run']"
doctor_cases() { # WHO: the JSON in $OUT, the exit status in $RC
	local who=$1 drc=$RC doc=$OUT jrc wrc
	check "doctor-checks-$who" '[c["name"] for c in s["checks"]]' "$checks"
	check "doctor-states-$who" 'all(c["state"] in ("ok", "fallback", "fails", "info") and (c["fix"] is None) == (c["state"] == "ok") or c["state"] == "info" for c in s["checks"])' True
	check "doctor-verdict-$who" 's["verdict"] == max((c["state"] for c in s["checks"] if c["state"] != "info"), key=["ok", "fallback", "fails"].index), s["verdict"] == "ok"' \
		"(True, $([ "$drc" = 0 ] && echo True || echo False))"
	# What the stubs then do, run the same way as the doctor ran them.
	if [ "$who" = user ]; then
		srun -- "$T/bin/jail" true
		jrc=$RC
		srun -- "$T/bin/jail-worker" true
		wrc=$RC
	else
		jrc=$(cd "$T/proj" && "$T/bin/jail" true >/dev/null 2>&1; echo $?)
		wrc=$(cd "$T/proj" && "$T/bin/jail-worker" true >/dev/null 2>&1; echo $?)
	fi
	OUT=$doc
	local want_ns=False want_run=fails
	[ "$jrc" = 0 ] && want_ns=True && want_run=ok
	[ "$jrc" != 0 ] && [ "$wrc" = 0 ] && want_run=fallback
	check "doctor-agrees-$who" 's["userns"]["available"], [c["state"] for c in s["checks"] if c["name"] == "stubs_run"][0], [r["exit"] for r in s["runs"]]' \
		"($want_ns, '$want_run', [$jrc, $wrc])"
	check "doctor-userns-$who" '[c["state"] for c in s["checks"] if c["name"] == "userns"][0] == ("ok" if s["userns"]["available"] else "fallback" if s["fallback"]["runs"] else "fails")' True
}

srun -- "$st" --doctor --json
lab=$(jq_ 's["landlock"]["abi"]')
doctor_cases user
# The same machine as aijail-status measures it from outside a jail.
srun -- "$st" --json
check doctor-landlock "$lab" "$(jq_ 's["landlock"]["abi"]')"
srun -- "$st" --doctor
dtext=$OUT
dmiss=
for c in userns apparmor landlock seccomp cgroups ia32 proc_masks container_seccomp docker_socket stubs_run; do
	grep -Eq "^(ok|falls back|fails|info) +$c " <<<"$dtext" || dmiss="$dmiss $c"
done
if [ -z "$dmiss" ] && grep -q '^verdict: ' <<<"$dtext"; then pass doctor-text; else
	fail doctor-text "missing:${dmiss:- the verdict}: $(printf '%q' "$dtext")"
fi

# A Docker socket in reach (DOCKER_HOST, as the stubs find it) is named.
"$py" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/docker.sock"
chmod 0666 "$T/docker.sock"
srun DOCKER_HOST="unix://$T/docker.sock" -- "$st" --doctor --json
check doctor-docker 's["docker_socket"], "'"$T"'/docker.sock" in [c["detail"] for c in s["checks"] if c["name"] == "docker_socket"][0]' \
	"('$T/docker.sock', True)"
rm -f "$T/docker.sock"

# Inside a jail no stub can make namespaces (jails do not nest): a machine
# where the stubs fail on any host, and the doctor must say so, as they do.
srun -- "$T/bin/jail" --jail-ro="$T/bin" "$st" --doctor --json
check doctor-in-jail 's["verdict"], s["userns"]["available"], [c["state"] for c in s["checks"] if c["name"] in ("userns", "container_seccomp", "stubs_run")], [r["exit"] for r in s["runs"]], "jails do not nest" in s["userns"]["why"]' \
	"('fails', False, ['fails', 'fails', 'fails'], [125, 125], True)"

# --apparmor-profile: the profile contrib/apparmor/profile.sh makes for the
# stubs beside it, byte for byte (the fix --doctor gives where no profile
# ships for their folder).
srun -- "$st" --apparmor-profile
if [ "$RC" = 0 ] && [ "$OUT" = "$("$root/contrib/apparmor/profile.sh" "$T/bin" jail-worker jail)" ]; then
	pass apparmor-profile
else
	fail apparmor-profile "exit $RC: $(diff <(printf '%s\n' "$OUT") <("$root/contrib/apparmor/profile.sh" "$T/bin" jail-worker jail) | head -5)"
fi

# aijail-status alone, no stub beside it: no verdict of "works".
mkdir -p "$T/alone"
cp "$st" "$T/alone/"
srun -- "$T/alone/aijail-status" --doctor --json
check doctor-alone 's["verdict"], [c["state"] for c in s["checks"] if c["name"] == "stubs_run"][0], s["runs"]' \
	"('fails', 'fails', [])"
if [ "$RC" = 1 ]; then pass doctor-alone-exit; else fail doctor-alone-exit "exit $RC, expected 1"; fi

if [ $as_root -eq 1 ]; then
	OUT=$(cd "$T/proj" && "$st" --doctor --json)
	RC=$?
	doctor_cases root
	check doctor-root-uid 's["uid"]' 0
else
	skip doctor-root "not run as root"
fi

echo "status: $npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
