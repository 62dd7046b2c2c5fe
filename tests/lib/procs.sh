# shellcheck shell=bash
# procs.sh: finding the processes a test run left behind, without being blind.
#
# Sourced by tests/integration/run.sh, tests/escape/run.sh and
# tests/escape/soak.sh.  The caller sets:
#   T       the run's temporary folder (the stubs are copied to $T/bin and
#           the fixture projects live under $T, so a stub's command line
#           and a jailed process's working directory name it)
#   tuid    the test user's uid
#   as_root 1 when the run is root (root's own jails are looked for too)
#
# Why not /proc/PID/cwd alone: reading it needs ptrace access to the
# process, which root lacks without CAP_SYS_PTRACE (a default Docker
# container) and which a non-dumpable process (the stub's pid 1) refuses
# even to its own user.  /proc/PID/status (Uid, NSpid) and /proc/PID/cmdline
# are readable by everybody, so the candidates are found through them, and
# a candidate that cannot be told apart is reported, never ignored.
#
# leftovers: sets
#   left        pids of live processes (not zombies) of ours: the test user's (or root's, as
#               root) whose command line names $T or whose working
#               directory is under $T;
#   left_blind  pids of the test user's (root's) processes inside a pid
#               namespace of their own (a jail: NSpid has more than one
#               level) whose command line does not name $T and whose
#               working directory cannot be read: they may be ours;
#   left_why    one line describing both, for messages.
# leftovers_wait N: calls leftovers up to N times, 0.1 s apart, until both
# lists are empty.
# leftovers_kill: SIGKILL to everything in left (never left_blind).

# _proc_field PID NAME: the first value of "NAME:" in /proc/PID/status.
_proc_field() {
	local k v rest
	while read -r k v rest; do
		if [ "$k" = "$2:" ]; then
			printf '%s' "$v${rest:+ $rest}"
			return 0
		fi
	done 2>/dev/null <"/proc/$1/status"
	return 1
}

leftovers() {
	local d pid uid nspid cmd cwd
	left=()
	left_blind=()
	left_why=
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = "$$" ] && continue
		[ "$pid" = "${BASHPID:-$$}" ] && continue
		uid=$(_proc_field "$pid" Uid) || continue # gone meanwhile
		# A zombie has exited: it holds no file, runs nothing, and only
		# waits for a parent that reaps (a container's pid 1 may never).
		# Its cmdline is empty and its cwd unreadable, so it would pass
		# for a blind candidate; it is not running.
		[[ $(_proc_field "$pid" State) == [ZX]* ]] && continue
		uid=${uid%%[[:space:]]*}
		# shellcheck disable=SC2154 # tuid: set by the caller
		if [ "$uid" != "$tuid" ] && { [ "${as_root:-0}" != 1 ] || [ "$uid" != 0 ]; }; then
			continue
		fi
		cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")
		if [[ $cmd == *"$T"/* ]]; then
			left+=("$pid")
			continue
		fi
		if cwd=$(readlink "$d/cwd" 2>/dev/null); then
			[[ $cwd == "$T"/* || $cwd == "$T" ]] && left+=("$pid")
			continue
		fi
		# Unreadable cwd: only a jailed process can be ours here (the
		# stub itself, outside, has $T in its command line).
		nspid=$(_proc_field "$pid" NSpid) || continue
		# shellcheck disable=SC2086 # split the levels
		set -- $nspid
		[ $# -gt 1 ] || continue
		# Root's own processes in the container cannot hide their cwd
		# from root unless non-dumpable; the test user's can, from root
		# without CAP_SYS_PTRACE.
		left_blind+=("$pid")
	done
	if [ ${#left[@]} -gt 0 ]; then
		left_why="ours:"
		for pid in "${left[@]}"; do
			left_why="$left_why $pid($(tr '\0\n' '  ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-60))"
		done
	fi
	if [ ${#left_blind[@]} -gt 0 ]; then
		left_why="${left_why:+$left_why; }jailed processes of uid $tuid (or root) whose cwd cannot be read and whose command line does not name the fixture (cannot tell whether they are ours):"
		for pid in "${left_blind[@]}"; do
			left_why="$left_why $pid($(cat "/proc/$pid/comm" 2>/dev/null))"
		done
	fi
	return 0
}

leftovers_wait() {
	local i
	for ((i = 0; i < $1; i++)); do
		leftovers
		[ ${#left[@]} -eq 0 ] && [ ${#left_blind[@]} -eq 0 ] && return 0
		sleep 0.1
	done
	return 1
}

leftovers_kill() {
	[ ${#left[@]} -gt 0 ] && kill -KILL "${left[@]}" 2>/dev/null
	return 0
}
