#!/bin/bash
# soak.sh: AIJAIL_SOAK launches (default 20000: 10,000 in sequence, then
# 10,000 four at a time) of jail-worker as the unprivileged user, of small
# commands with known exit statuses, some killed at a random moment with
# SIGKILL, SIGINT or SIGTERM (tests/escape/soak.py).  Then: every status
# right, and nothing of ours left: no process (tests/lib/procs.sh), no new
# mount in the host's mountinfo, no new file of the test user in /tmp,
# /var/tmp or /dev/shm, no aijail* cgroup under /sys/fs/cgroup.
#
# Run as root, the launches run as ajtest (created when missing) through
# setpriv; as another user, as that user.  AIJAIL_SOAK_SEED fixes the
# random choices (the seed is printed).  Output: PASS/FAIL lines like
# run.sh, the figures, a summary; non-zero exit on any failure.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
build=${AIJAIL_BUILD:-$root/build}
n=${AIJAIL_SOAK:-20000}
seed=${AIJAIL_SOAK_SEED:-$RANDOM}
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3)


# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"
if [ ! -x "$build/bin/jail-worker" ]; then
	echo "FAIL setup: $build/bin/jail-worker is missing; run make first"
	exit 1
fi

T=$(mktemp -d /tmp/aijail-soak.XXXXXX) || exit 1
chmod 0755 "$T"
# shellcheck source=tests/lib/procs.sh
. "$root/tests/lib/procs.sh"
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	leftovers
	leftovers_kill
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$T/bin" "$T/proj"
cp "$build/bin/jail-worker" "$root/tests/escape/soak.py" "$T/bin/"
chmod 0755 "$T/bin"/*
[ $as_root -eq 0 ] && thome=$T/home && mkdir -p "$thome"
chown -R "$tuid:$tgid" "$T/proj"

# What is there before: mounts, the test user's temporary files, cgroups.
tmp_owned() {
	find /tmp /var/tmp /dev/shm -mindepth 1 -maxdepth 1 -uid "$tuid" 2>/dev/null | sort
}
cgroups() {
	find /sys/fs/cgroup -maxdepth 6 -type d -name 'aijail*' 2>/dev/null | sort
}
mounts() {
	# mount point and source, without the ids that a remount renumbers
	awk '{ print $5, $(NF - 1) }' /proc/self/mountinfo | sort
}
mounts >"$T/mounts.before"
tmp_owned >"$T/tmp.before"
cgroups >"$T/cg.before"

pre=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser" PATH=/usr/local/bin:/usr/bin:/bin)
[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env "${pre[@]}")
echo "soak: $n launches of jail-worker as $tuser, seed $seed"
SECONDS=0
out=$(cd "$T/proj" && timeout -k 10 900 "${pre[@]}" "$py" "$T/bin/soak.py" "$T/bin/jail-worker" "$n" "$seed" 2>&1)
rc=$?
secs=$SECONDS
printf '%s\n' "$out" | grep '^wrong' | sed 's/^/    /'
figs=$(printf '%s\n' "$out" | grep '^launches' | tail -n 1)
echo "    $figs"
if [ -z "$figs" ]; then
	fail soak-statuses "the driver did not finish (exit status $rc): $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
else
	# shellcheck disable=SC2086 # split the figures
	set -- $figs
	launches=$2 wrong=${16} hung=${18}
	if [ "$launches" != "$n" ]; then
		fail soak-statuses "$launches launches of $n"
	elif [ "$wrong" != 0 ] || [ "$hung" != 0 ]; then
		fail soak-statuses "$wrong wrong exit statuses, $hung launches hung, in $launches launches"
	else
		pass soak-statuses "$launches launches in $secs s, all statuses right"
	fi
fi

# As root, a shorter pass of the same launches: root's jails get cgroups
# (limit memory, limit processes) where the unprivileged user's get
# rlimits, and a stub killed with SIGKILL cannot remove its own; the next
# launch removes what it left (stub/proc/limits.c), so one last plain launch
# comes before the check.
if [ $as_root -eq 1 ] && [ "${AIJAIL_SOAK_ROOT:-2000}" -gt 0 ]; then
	nr=${AIJAIL_SOAK_ROOT:-2000}
	mkdir -p "$T/roothome"
	chmod 0700 "$T/roothome"
	rpre=(env -i HOME="$T/roothome" USER=root LOGNAME=root PATH=/usr/local/bin:/usr/bin:/bin)
	out=$(cd "$T/proj" && timeout -k 10 900 "${rpre[@]}" "$py" "$T/bin/soak.py" "$T/bin/jail-worker" "$nr" "$seed" 2>&1)
	printf '%s\n' "$out" | grep '^wrong' | sed 's/^/    /'
	rfigs=$(printf '%s\n' "$out" | grep '^launches' | tail -n 1)
	echo "    as root: $rfigs"
	(cd "$T/proj" && "${rpre[@]}" "$T/bin/jail-worker" true)
	# shellcheck disable=SC2086 # split the figures
	set -- $rfigs
	if [ -z "$rfigs" ]; then
		fail soak-root-statuses "the driver did not finish as root: $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
	elif [ "$2" != "$nr" ] || [ "${16}" != 0 ] || [ "${18}" != 0 ]; then
		fail soak-root-statuses "as root: $rfigs"
	else
		pass soak-root-statuses "$2 launches as root, all statuses right"
	fi
fi

# Nothing left: give the killed stubs' jails a moment to go.
leftovers_wait 50
n_procs=$((${#left[@]} + ${#left_blind[@]}))
if [ ${#left[@]} -eq 0 ] && [ ${#left_blind[@]} -eq 0 ]; then pass soak-no-processes; else
	fail soak-no-processes "$left_why"
	leftovers_kill
fi

mounts >"$T/mounts.after"
new=$(comm -13 "$T/mounts.before" "$T/mounts.after")
n_mounts=$(printf '%s' "$new" | grep -c .)
if [ -z "$new" ]; then pass soak-no-mounts; else
	fail soak-no-mounts "new in the host's mountinfo: $(printf '%s\n' "$new" | head -n 5 | tr '\n' ';')"
fi

tmp_owned >"$T/tmp.after"
new=$(comm -13 "$T/tmp.before" "$T/tmp.after")
n_tmp=$(printf '%s' "$new" | grep -c .)
if [ -z "$new" ]; then pass soak-no-tmp-files; else
	fail soak-no-tmp-files "new files of $tuser: $(printf '%s\n' "$new" | head -n 5 | tr '\n' ' ')"
fi

cgroups >"$T/cg.after"
new=$(comm -13 "$T/cg.before" "$T/cg.after")
n_cg=$(printf '%s' "$new" | grep -c .)
# Without the root pass, a cgroup is made only where the user's own is
# delegated: if jail-worker says its limits are rlimits here, no launch
# of this soak could have left one, and the check would see nothing.
cg_made=1
if [ $as_root -eq 0 ]; then
	cg_made=$(cd "$T/proj" && "${pre[@]}" "$T/bin/jail-worker" --jail-explain=json true 2>/dev/null |
		"$py" -c 'import json, sys
l = json.load(sys.stdin)["limits"]
print(int(any(v.get("enforced_by") == "cgroup" for v in l.values())))' 2>/dev/null || echo 1)
fi
if [ -z "$new" ] && [ "$cg_made" = 0 ]; then
	skip soak-no-cgroups "no launch here makes a cgroup (the limits are rlimits: no delegated cgroup, not root)"
elif [ -z "$new" ]; then pass soak-no-cgroups "$(wc -l <"$T/cg.after") aijail* cgroups before and after"; else
	fail soak-no-cgroups "left under /sys/fs/cgroup: $(printf '%s\n' "$new" | head -n 5 | tr '\n' ' ')"
fi

echo "soak: $npass passed, $nfail failed, $nskip skipped in $secs s ($figs; left: processes $n_procs mounts $n_mounts tmp $n_tmp cgroups $n_cg)"
if [ $nfail -gt 0 ]; then
	echo "failed: ${failed[*]}"
	exit 1
fi
exit 0
