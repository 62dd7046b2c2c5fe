#!/bin/bash
# bench/trace.sh: where a launch's time goes, step by step (issue 38).
#
#   sudo bench/trace.sh                 # RUNS=300 rounds, markdown on stdout
#   sudo RUNS=50 STUB=jail-worker bench/trace.sh
#
# Builds the traced stubs (make TRACE=1, into build-trace/: stub/base/trace.c)
# and runs `STUB /bin/true` in a 10-file project in seven situations, one
# launch of each per round, the order rotated every round (interleaved, so
# that the machine's drift falls on all of them alike):
#
#   user, root                 the host's mount namespace, nothing added
#   user+docker, root+docker   a listening Unix socket at /run/docker.sock,
#                              made in a private mount namespace (a tmpfs on
#                              /run there) that the launches enter: the host's
#                              /run is never touched; the socket is in the
#                              host's network namespace, so its line is in
#                              every /proc/net/unix read meanwhile
#   user, APPEAR=0             user, with AIJAIL_APPEAR=0: no covering
#                              process (root/appear.c), to show its cost
#   user+mounts, root+mounts   MOUNTS (200) extra tmpfs mounts under a
#                              directory no jail binds, in a private mount
#                              namespace of root's (unshare -m) that the
#                              launches enter
#
# The user runs are TRACE_USER (ajtest) through setpriv, entering the private
# mount namespace first (nsenter, as root) and dropping to the user after:
# the stub then starts as an unprivileged caller in the initial user
# namespace, as it does on a host with that many mounts.  (A user's own
# `unshare -Urm` would put the stub in a nested user namespace whose mounts
# are all locked: another situation than the one measured.)
#
# Each launch writes its marks to stderr (one line per step: who, step, ns
# since the previous mark of that process, or of its parent before the
# fork); the report is the median per step and situation, in µs.  Needs
# root; mounts only in the private namespaces it makes, which end with it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
RUNS=${RUNS:-300}
MOUNTS=${MOUNTS:-200}
STUB=${STUB:-jail-worker}
tuser=${TRACE_USER:-ajtest}

[ "$(id -u)" = 0 ] || {
	echo "trace.sh: needs root (private mount namespaces, setpriv)" >&2
	exit 1
}
getent passwd "$tuser" >/dev/null || {
	echo "trace.sh: no user $tuser (tests/lib/user.sh makes ajtest)" >&2
	exit 1
}
make -C "$root" -s --no-print-directory TRACE=1 -j2 "build-trace/bin/$STUB" >&2
stub=$root/build-trace/bin/$STUB

work=$(mktemp -d /tmp/aj-trace.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

mkdir "$work/proj" "$work/home" "$work/mnt"
for i in $(seq 10); do echo "file $i" >"$work/proj/f$i.txt"; done
chown -R "$tuser:" "$work/proj"

# The holders: unshare execs sh, which execs sleep, so $! is the process
# whose mount namespace the launches enter.
unshare -m --propagation private sh -c '
	for i in $(seq '"$MOUNTS"'); do
		mkdir "'"$work"'/mnt/$i" && mount -t tmpfs -o size=64k aj-trace "'"$work"'/mnt/$i" || exit 1
	done
	: >"'"$work"'/mounts.ready"
	exec sleep 86400' &
pids+=($!)
mpid=$!
unshare -m --propagation private sh -c '
	mount -t tmpfs -o mode=0755 aj-trace /run || exit 1
	exec python3 -c "
import socket, time
s = socket.socket(socket.AF_UNIX)
s.bind(\"/run/docker.sock\")
s.listen(16)
open(\"'"$work"'/docker.ready\", \"w\").close()
time.sleep(86400)"' &
pids+=($!)
dpid=$!
for _ in $(seq 100); do
	[ -e "$work/mounts.ready" ] && [ -e "$work/docker.ready" ] && break
	sleep 0.1
done
[ -e "$work/mounts.ready" ] && [ -e "$work/docker.ready" ] || {
	echo "trace.sh: the private namespaces did not come up" >&2
	exit 1
}
grep -q ' /run/docker.sock$' /proc/net/unix || {
	echo "trace.sh: /run/docker.sock is not in /proc/net/unix" >&2
	exit 1
}
extra=$(($(nsenter -t "$mpid" -m cat /proc/self/mountinfo | wc -l) - $(wc -l </proc/self/mountinfo)))

RUNS=$RUNS STUB_PATH=$stub WORK=$work MPID=$mpid DPID=$dpid TUSER=$tuser EXTRA=$extra \
	python3 - <<'EOF'
import os, statistics, subprocess

env = os.environ
stub, work, tuser = env["STUB_PATH"], env["WORK"], env["TUSER"]
proj = work + "/proj"
path = "PATH=/usr/local/bin:/usr/bin:/bin"
as_user = ["setpriv", "--reuid=" + tuser, "--regid=" + tuser, "--init-groups",
           "env", "-i", "HOME=" + os.path.expanduser("~" + tuser), path, "env", "-C", proj]
as_root = ["env", "-i", "HOME=" + work + "/home", path, "env", "-C", proj]
def enter(pid):
    return ["nsenter", "-t", pid, "-m", "--"]
conf = {
    "user": as_user,
    "root": as_root,
    "user+docker": enter(env["DPID"]) + as_user,
    "root+docker": enter(env["DPID"]) + as_root,
    "user+mounts": enter(env["MPID"]) + as_user,
    "root+mounts": enter(env["MPID"]) + as_root,
    # Not a cut: what the covering process (root/appear.c) costs, for the
    # next pass at start-up; AIJAIL_APPEAR=0 is the documented way off.
    "user, APPEAR=0": as_user[:-3] + ["AIJAIL_APPEAR=0"] + as_user[-3:],
}
names = list(conf)
steps = {}    # (who, step) -> {conf: [ns]}
order = []
at = {}      # (who, step) -> [ns from the first mark]
totals = {n: [] for n in names}
ends = {n: [] for n in names}
whole = {n: [] for n in names}
runs = int(env["RUNS"])
for r in range(runs + 2):          # two warm-up rounds: the watcher starts
    for k in range(len(names)):
        n = names[(r + k) % len(names)]
        p = subprocess.run(conf[n] + [stub, "/bin/true"], stderr=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, text=True)
        if p.returncode:
            raise SystemExit("%s: exit %d: %s" % (n, p.returncode, p.stderr[-400:]))
        if r < 2:
            continue
        marks = [l.split("\t") for l in p.stderr.splitlines() if l.startswith("ajtrace\t")]
        first = min(int(f[4]) for f in marks)
        for f in marks:
            key = (f[1], f[2])
            if key not in steps:
                steps[key] = {m: [] for m in names}
                order.append(key)
            steps[key][n].append(int(f[3]))
            t = int(f[4])
            at.setdefault(key, []).append(t - first)
        ab = {(f[1], f[2]): int(f[4]) for f in marks}
        totals[n].append(ab[("target", "session")] - first)
        ends[n].append(ab[("parent", "reaped")] - ab[("init", "status-end")])
        whole[n].append(ab[("parent", "reaped")] - first)

def us(v):
    return "%.0f" % (statistics.median(v) / 1000) if v else "–"
rank = {"parent": 0, "init": 1, "target": 2}
# A step's place: its process, then when it ends, from the launch's start.
order.sort(key=lambda k: (rank.get(k[0], 3), statistics.median(at[k])))
print("%d rounds, interleaved; %s; %s extra mounts in the mounts namespace; "
      "medians in µs" % (runs, os.path.basename(stub), env["EXTRA"]))
print()
print("| process | step | " + " | ".join(names) + " |")
print("| --- | --- | " + " | ".join("---:" for _ in names) + " |")
for k in order:
    print("| %s | %s | " % k + " | ".join(us(steps[k][m]) for m in names) + " |")
print("| | **start to execve** (first mark to the target's last) | " +
      " | ".join("**%s**" % us(totals[m]) for m in names) + " |")
print("| parent | pid 1's end to its reaping (pid 1's exit: the pid, mount and network "
      "namespaces torn down) | " + " | ".join(us(ends[m]) for m in names) + " |")
print("| | **start to the parent's reaping** | " +
      " | ".join("**%s**" % us(whole[m]) for m in names) + " |")
EOF
