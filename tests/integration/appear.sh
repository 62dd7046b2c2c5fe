# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# appear.sh: secrets that appear in the project while a jail runs
# (stub/root/appear.c).  A jailed script waits, reading; the test writes
# .env and new.key at the top, the same in a directory made during the
# run, moves a prepared key into place and renames in a directory holding
# a .env; the jail itself writes a .env.local.  Each must be covered
# (mask: empty, deny: EACCES) eventually: the script polls up to 30
# seconds, so a slow machine is slow, not failed; the time it took is
# printed on stderr, never asserted.  A new file of no secret name stays
# readable.  Sourced by run.sh (its helpers, fixture and counters); not run
# alone.

# The jailed side: "present before" if any name exists when it starts
# (then the launch, not the run, would have covered it), then "ready",
# then once every name is covered (another device: the cover is a mount)
# or the time is up, what reading each one gives.
PYAPPEAR='import errno, os, sys, time
names = [".env", "new.key", "d/.env", "d/new.key", "moved.key", "dirin/.env", ".env.local"]
dev = os.stat(".").st_dev
for n in names + ["ctrl.txt"]:
    if os.path.lexists(n):
        print("present before:", n)
open("ready", "w").close()
def covered(n):
    try:
        return os.lstat(n).st_dev != dev
    except OSError:
        return False
t0 = time.monotonic()
deadline = t0 + 30
while time.monotonic() < deadline:
    if os.path.exists("written") and not os.path.lexists(".env.local"):
        with open(".env.local", "w") as f:
            f.write("OWN=1")
    if all(covered(n) for n in names) and os.path.exists("ctrl.txt"):
        break
    time.sleep(0.005)
print("covered after %.3f s" % (time.monotonic() - t0), file=sys.stderr)
for n in names + ["ctrl.txt"]:
    try:
        with open(n) as f:
            print(n + ":", repr(f.read()))
    except OSError as e:
        print(n + ":", errno.errorcode.get(e.errno, e.errno))'

# appear_case WHO NAME: the case, with the jail run as WHO (user, root).
appear_case() {
	local who=$1 name=$2 ap=$T/appear-$1 src=$T/appear-src-$1 owner=$tuid:$tgid
	# Root in the jail has no capability: its project is root's own.
	[ "$who" = root ] && owner=0:0
	rm -rf "$ap" "$src"
	mkdir -p "$ap" "$src/dirin"
	printf 'PLAIN' >"$ap/keep.txt"
	printf 'K=moved' >"$src/moved.key"
	printf 'S=dirin' >"$src/dirin/.env"
	chown -R "$owner" "$ap" "$src"
	(
		CWD=$ap jrun "$who" -- jail-python -c "$PYAPPEAR"
		echo "$RC" >"$T/out/appear-rc"
	) &
	for _ in $(seq 600); do
		[ -e "$ap/ready" ] && break
		sleep 0.05
	done
	printf 'S=top' >"$ap/.env"
	printf 'K=top' >"$ap/new.key"
	mkdir "$ap/d"
	printf 'S=d' >"$ap/d/.env"
	printf 'K=d' >"$ap/d/new.key"
	mv "$src/moved.key" "$ap/moved.key"
	mv "$src/dirin" "$ap/dirin"
	printf 'PLAIN' >"$ap/ctrl.txt"
	chown -R "$owner" "$ap"
	touch "$ap/written"
	wait $!
	RC=$(cat "$T/out/appear-rc")
	OUT=$(cat "$T/out/stdout")
	ERR=$(cat "$T/out/stderr")
	echo "  $name: $(grep -o 'covered after .*' <<<"$ERR")"
	expect "$name" 0 ".env: ''
new.key: EACCES
d/.env: ''
d/new.key: EACCES
moved.key: EACCES
dirin/.env: ''
.env.local: ''
ctrl.txt: 'PLAIN'"
	rm -rf "$ap" "$src"
}

if c appear-covered; then
	appear_case user appear-covered
fi
if [ "$as_root" -eq 1 ] && c root-appear-covered; then
	appear_case root root-appear-covered
fi

# The covering process (pid 2 inside) is pid 1's kind: nothing of it opens
# from inside, and it cannot be stopped quietly.  From Landlock ABI 6 the
# jail cannot signal it at all; below, killing it ends the jail (125).
# shellcheck disable=SC2016 # expanded inside the jail
# pid 2 names itself on its first turn, which a loaded machine may give
# it after the target's first: wait for the name (5 s at most).
coverer_probe='i=0; while [ "$(cat /proc/2/comm 2>/dev/null)" != aijail-cover ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
test "$(cat /proc/2/comm)" = aijail-cover || echo "pid 2 is $(cat /proc/2/comm)"
for f in environ mem maps; do cat /proc/2/$f >/dev/null 2>&1 && echo "$f readable"; done
kill -STOP 2 2>/dev/null && echo stopped; kill -9 2 2>/dev/null && echo killed; sleep 0.5
echo done'
if c appear-coverer-inside; then
	jrun user -- jail-worker sh -c "$coverer_probe"
	if [ "$RC" = 125 ] && [[ $ERR == *"cover what appears in the project"* ]]; then
		pass appear-coverer-inside
	else
		expect appear-coverer-inside 0 "done"
	fi
fi

# Killed from outside (the same user may): the jail ends, exit 125, saying so.
if c appear-coverer-killed; then
	ap=$T/appear-killed
	mkdir -p "$ap"
	chown "$tuid:$tgid" "$ap"
	(
		CWD=$ap jrun user -- jail-worker sh -c 'touch ready; sleep 30; echo survived'
		echo "$RC" >"$T/out/appear-rc"
	) &
	for _ in $(seq 600); do
		[ -e "$ap/ready" ] && break
		sleep 0.05
	done
	# The covering process of this jail: the aijail-cover among the
	# background job's descendants, found by /proc/PID/stat's parent
	# links (readable for every process; its cwd is not where /proc of
	# a non-dumpable process needs CAP_SYS_PTRACE, as in a container).
	bg=$!
	cpid=$(ps -A -o pid=,ppid=,comm= | awk -v top="$bg" '
		{ parent[$1] = $2; name[$1] = $3 }
		END { for (p in name) if (name[p] == "aijail-cover") {
			for (q = parent[p]; q > 1; q = parent[q]) if (q == top) { print p; break }
		} }')
	[ -n "$cpid" ] && kill -9 "$cpid"
	wait "$bg"
	RC=$(cat "$T/out/appear-rc")
	OUT=$(cat "$T/out/stdout")
	ERR=$(cat "$T/out/stderr")
	if [ -z "$cpid" ]; then
		fail appear-coverer-killed "no aijail-cover process found for the jail"
	elif [ "$RC" = 125 ] && [[ $ERR == *"cover what appears in the project: the process that covers it was killed or stopped"* ]]; then
		pass appear-coverer-killed
	else
		fail appear-coverer-killed "exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR")"
	fi
	rm -rf "$ap"
fi

# Past the watch budget (AIJAIL_APPEAR_WATCHES=1: the top only), the
# directory left over is named in one warning and the rest still works.
if c appear-budget; then
	ap=$T/appear-budget
	mkdir -p "$ap/sub"
	chown -R "$tuid:$tgid" "$ap"
	(
		CWD=$ap jrun user AIJAIL_APPEAR_WATCHES=1 -- jail-python -c 'import os, time
dev = os.stat(".").st_dev
open("ready", "w").close()
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        if os.lstat(".env").st_dev != dev:
            break
    except OSError:
        pass
    time.sleep(0.005)
print(repr(open(".env").read()))'
		echo "$RC" >"$T/out/appear-rc"
	) &
	for _ in $(seq 600); do
		[ -e "$ap/ready" ] && break
		sleep 0.05
	done
	printf 'S=top' >"$ap/.env"
	wait $!
	RC=$(cat "$T/out/appear-rc")
	OUT=$(cat "$T/out/stdout")
	ERR=$(cat "$T/out/stderr")
	if [[ $ERR != *"warning: 1 directory of the project is past the inotify watches this jail may take"* ]]; then
		fail appear-budget "no warning about the budget: stderr $(q "$ERR")"
	else
		expect appear-budget 0 "''"
	fi
	rm -rf "$ap"
fi
