#!/bin/bash
# orchestrator.sh: jail-worker as an orchestrator's argv prefix.  A worker
# pool (a kanban runner, a CI agent) starts `jail-worker WORKER…` and keeps
# it for many requests.  Checked here, with the real stub as the
# unprivileged test user (tests/lib/user.sh, AJTEST_USER when root):
#   - requests and replies stream line by line through stdin and stdout
#     (a coprocess: each reply is read before the next request is sent);
#   - SIGINT and SIGTERM sent to the jail-worker process reach the worker,
#     which traps them and says so;
#   - the worker's exit status (its own, or 128+N) is jail-worker's;
#   - when the orchestrator (jail-worker's parent) dies, the jail dies too.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
build=${AIJAIL_BUILD:-$root/build}
wait_s=10


# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

if [ ! -x "$build/bin/jail-worker" ]; then
	echo "FAIL setup: $build/bin/jail-worker is missing; run make first"
	exit 1
fi

T=$(mktemp -d /tmp/aijail-orch.XXXXXX) || exit 1
chmod 0755 "$T"
started=() # pids of the jail-workers this script started
cleanup() {
	local p
	for p in "${started[@]}"; do
		# SIGKILL to the stub's parent: its pid 1 has a parent-death
		# signal, and the kernel then kills the rest of the namespace.
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/bin" "$T/proj"
cp "$build/bin/jail-worker" "$T/bin/"
# --jail-secret's process, found beside the stub (stub/egress/secret.c).
[ -x "$build/bin/aijail-keys" ] && cp "$build/bin/aijail-keys" "$T/bin/"
chmod 0755 "$T/bin/jail-worker"
[ $as_root -eq 1 ] || {
	thome=$T/home
	mkdir -p "$thome"
}

# The worker: one reply per request line, flushed; says which signal came.
cat >"$T/proj/worker.py" <<'PY'
import signal, sys

def on_signal(sig, frame):
    name = signal.Signals(sig).name
    print("signal " + name, flush=True)
    if sig == signal.SIGTERM:
        sys.exit(43)

signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)
print("ready", flush=True)
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "exit":
        sys.exit(int(words[1]))
    if words and words[0] == "kill":
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
    print("reply " + line.strip(), flush=True)
PY
# A worker that says what its key is, once a request.
cat >"$T/proj/keyworker.py" <<'PY'
import os, sys
print("ready", flush=True)
for line in sys.stdin:
    print("token " + os.environ.get("TOKEN", "-"), flush=True)
PY
# A worker that never reads stdin (a runner polling its own queue).
cat >"$T/proj/busy.py" <<'PY'
import sys, time
while True:
    time.sleep(1)
PY
chown -R "$tuid:$tgid" "$T/proj"

if [ $as_root -eq 1 ]; then
	pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env)
else
	pre=()
fi
run_env=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser" PATH=/usr/local/bin:/usr/bin:/bin)

# start: jail-worker python3 -u worker.py as a coprocess; W_PID is the
# stub's own pid (setpriv and env exec it), kept in JW.
start() {
	cd "$T/proj" || exit 1
	coproc W { exec "${pre[@]}" "${run_env[@]}" "$T/bin/jail-worker" python3 -u worker.py 2>/dev/null; }
	cd - >/dev/null || exit 1
	JW=$W_PID # bash unsets W_PID when the coprocess ends
	started+=("$JW")
	# Our own copies: the coprocess's stdin is closed (EOF) only when
	# every copy of its write end is.
	exec {W_IN}>&"${W[1]}" {W_OUT}<&"${W[0]}"
	eval "exec ${W[1]}>&- ${W[0]}<&-"
}

# expect_line NAME WANT: the next line of the worker's stdout, within
# $wait_s seconds, is WANT.
expect_line() {
	local line
	if ! IFS= read -r -t "$wait_s" line <&"$W_OUT"; then
		fail "$1" "no line within ${wait_s}s (expected $(printf '%q' "$2"))"
		return 1
	fi
	if [ "$line" != "$2" ]; then
		fail "$1" "got $(printf '%q' "$line"), expected $(printf '%q' "$2")"
		return 1
	fi
	pass "$1"
}

# finish NAME WANT: jail-worker exits, within $wait_s seconds, with WANT.
finish() {
	local i rc
	exec {W_IN}>&-
	for ((i = 0; i < wait_s * 10; i++)); do
		kill -0 "$JW" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$JW" 2>/dev/null; then
		exec {W_OUT}<&-
		fail "$1" "jail-worker still runs after ${wait_s}s"
		return
	fi
	wait "$JW"
	rc=$?
	exec {W_OUT}<&-
	if [ "$rc" = "$2" ]; then pass "$1"; else fail "$1" "exit status $rc, expected $2"; fi
}

# --- streaming, signals, exit status -----------------------------------------------

start
expect_line orch-ready ready
# Only now: setpriv and env may not have exec'd the stub before the reply.
if [ "$(cat "/proc/$JW/comm" 2>/dev/null)" = jail-worker ]; then pass orch-pid; else
	fail orch-pid "the coprocess is $(cat "/proc/$JW/comm" 2>/dev/null), not jail-worker"
fi
for i in 1 2 3; do
	echo "request $i" >&"$W_IN"
	expect_line "orch-stream-$i" "reply request $i"
done
kill -INT "$JW"
expect_line orch-sigint "signal SIGINT"
echo "after INT" >&"$W_IN"
expect_line orch-alive-after-sigint "reply after INT"
kill -TERM "$JW"
expect_line orch-sigterm "signal SIGTERM"
finish orch-sigterm-status 43

start
expect_line orch-ready-2 ready
echo "exit 7" >&"$W_IN"
finish orch-exit-status 7

start
expect_line orch-ready-3 ready
echo "kill" >&"$W_IN"
finish orch-signal-status $((128 + 15))

start
expect_line orch-ready-4 ready
finish orch-stdin-eof 0 # the orchestrator closes the pipe: the worker reads EOF

# --- a key bound to its host, for the worker's whole life (docs/keys.md) ----------------

# start_key: jail-worker --jail-secret=TOKEN=keys.test python3 keyworker.py,
# TOKEN's real value in the orchestrator's environment.
start_key() {
	cd "$T/proj" || exit 1
	coproc W { exec "${pre[@]}" "${run_env[@]}" TOKEN=orch-real-value-5150 "$T/bin/jail-worker" \
		--jail-allow-host=keys.test --jail-secret=TOKEN=keys.test python3 -u keyworker.py 2>/dev/null; }
	cd - >/dev/null || exit 1
	JW=$W_PID
	started+=("$JW")
	exec {W_IN}>&"${W[1]}" {W_OUT}<&"${W[0]}"
	eval "exec ${W[1]}>&- ${W[0]}<&-"
}
# token NAME: one request; the token the worker holds into TOK.
token() {
	TOK=
	echo "token?" >&"$W_IN"
	IFS= read -r -t "$wait_s" TOK <&"$W_OUT" || TOK="(no line within ${wait_s}s)"
}
if [ ! -x "$T/bin/aijail-keys" ]; then
	skip orch-key "aijail-keys is not built ($build/bin)"
else
	start_key
	expect_line orch-key-ready ready
	token
	t1=$TOK
	token
	t2=$TOK
	finish orch-key-status 0
	start_key
	expect_line orch-key-ready-2 ready
	token
	t3=$TOK
	finish orch-key-status-2 0
	if [[ $t1 =~ ^token\ aijail-secret-TOKEN-[0-9a-f]{16,}$ ]] && [ "$t1" = "$t2" ] &&
		[[ $t3 == "token aijail-secret-TOKEN-"* ]] && [ "$t3" != "$t1" ] &&
		[[ "$t1$t2$t3" != *orch-real-value-5150* ]]; then
		pass orch-key
	else
		fail orch-key "requests saw $(printf '%q' "$t1"), $(printf '%q' "$t2"); the next worker $(printf '%q' "$t3"): want one placeholder a worker, a new one the next, never the value"
	fi
fi

# --- the orchestrator dies ----------------------------------------------------------

# alive PID: the process exists and is not a zombie.
alive() {
	local s
	s=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# orphan NAME SCRIPT STDIN: an orchestrator (bash, as the test user) starts
# jail-worker python3 SCRIPT with STDIN (pipe: a pipe from the
# orchestrator; null: /dev/null) and is then killed with SIGKILL.  Passes
# when jail-worker is gone within $wait_s seconds.
orphan() {
	local name=$1 script=$2 how=$3 orch wpid i
	rm -f "$T/proj/jw.pid"
	(
		cd "$T/proj" || exit 1
		exec "${pre[@]}" "${run_env[@]}" bash -c '
			if [ "$2" = pipe ]; then
				exec 3> >(exec "$1" python3 "$3" >/dev/null 2>&1)
				echo $! >jw.pid
			else
				"$1" python3 "$3" </dev/null >/dev/null 2>&1 &
				echo $! >jw.pid
			fi
			while :; do sleep 1; done' orch "$T/bin/jail-worker" "$how" "$script"
	) &
	orch=$!
	for ((i = 0; i < 50; i++)); do
		[ -s "$T/proj/jw.pid" ] && break
		sleep 0.1
	done
	wpid=$(cat "$T/proj/jw.pid" 2>/dev/null)
	if [ -z "$wpid" ]; then
		fail "$name" "the orchestrator did not start jail-worker"
		kill -KILL "$orch" 2>/dev/null
		return
	fi
	started+=("$wpid")
	sleep 1 # the jail is up and the worker running
	if ! alive "$wpid"; then
		fail "$name" "jail-worker exited before its orchestrator died"
		kill -KILL "$orch" 2>/dev/null
		return
	fi
	kill -KILL "$orch"
	wait "$orch" 2>/dev/null
	for ((i = 0; i < wait_s * 10; i++)); do
		alive "$wpid" || break
		sleep 0.1
	done
	if ! alive "$wpid"; then
		pass "$name"
		return
	fi
	RESULT="jail-worker (pid $wpid) still runs ${wait_s}s after its orchestrator died"
	return 1
}

# marked MARK: the pids whose command line holds MARK.
marked() {
	local f c
	for f in /proc/[0-9]*/cmdline; do
		c=$({ tr '\0' ' ' <"$f"; } 2>/dev/null)
		if [[ $c == *"$1"* ]]; then
			f=${f#/proc/}
			echo "${f%/cmdline}"
		fi
	done
}

# SIGKILL cannot be forwarded, but the jail's pid 1 has a parent-death
# signal: the worker dies with jail-worker.
mark="aijail-orch-mark-$$"
(cd "$T/proj" && exec "${pre[@]}" "${run_env[@]}" "$T/bin/jail-worker" python3 busy.py "$mark" \
	</dev/null >/dev/null 2>&1) &
jw=$!
started+=("$jw")
# Three processes carry the mark: jail-worker, the jail's pid 1, the worker.
for ((i = 0; i < 50; i++)); do
	[ "$(marked "$mark" | wc -l)" -ge 3 ] && break
	sleep 0.1
done
if [ "$(marked "$mark" | wc -l)" -lt 3 ]; then
	fail orch-sigkill "the worker did not start: $(marked "$mark" | tr '\n' ' ')"
else
	kill -KILL "$jw"
	wait "$jw" 2>/dev/null
	for ((i = 0; i < wait_s * 10; i++)); do
		[ -z "$(marked "$mark")" ] && break
		sleep 0.1
	done
	if [ -z "$(marked "$mark")" ]; then pass orch-sigkill; else
		fail orch-sigkill "still running after SIGKILL to jail-worker: $(marked "$mark" | tr '\n' ' ')"
	fi
fi

orphan orch-dies-pipe worker.py pipe ||
	fail orch-dies-pipe "$RESULT"

# A worker that never reads stdin sees no EOF: the parent-death signal
# on jail-worker itself (stub/proc/supervise.c) ends it.
orphan orch-dies-busy busy.py null ||
	fail orch-dies-busy "$RESULT"

echo "orchestrator: $npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
