#!/bin/bash
# run.sh: the escape suite.  One case (or a few) per class of escape found
# in review: each runs the real stubs as an unprivileged user on a fixture
# project and checks, from inside, that what must not be reachable is not.
# Each case states the outcome of the fixed jail; a case that cannot see
# what it checks SKIPs and says why, it never passes.
#
#   env-*      paths from the environment (XAUTHORITY, WAYLAND_DISPLAY,
#              XDG_RUNTIME_DIR, DOCKER_HOST) bound by the display and
#              Docker toggles
#   race-*     a second jail on the same project swaps names between the
#              stub's check and its use (a masked file's folder, the
#              project, an extra map, a toggle's socket)
#   plant-*    a symlink planted in the project by a jail, then mapped by
#              the user with --rw/--ro
#   rel-*      relative --rw/--ro
#   pid1-*     the launcher's environment, command line, memory and fds,
#              read through /proc from inside
#   bomb-*     fork and memory bombs in every shipped profile
#   ident-*    checks by identity: a link on the way to a writable cache,
#              the project bound a second time, a second name of the
#              refusal log, the project through a
#              link (PATH, a link upwards), the project inside a cache
#              reached through a link, $HOME mapped by its real name
#   many-*     past what the walk checks (5,000 secrets, 40 levels, a 5,000
#              character path, 40 hard links): denied, and the jail starts
#   misc-*     the smaller ones (empty trigger variable, SIGALRM to pid 1,
#              a symlink named secrets, a host socket under --ro, a
#              project script named like a tool, hostile includes, the
#              caller's terminal reached from a jail on it)
#   sock-*     a live host socket a jail without network must not reach:
#              systemd-resolved's beside resolv.conf, one in a profile's
#              cache, one deep in an --ro map, one made during the run
#
# Run as root (CI does), the cases run as the user ajtest (created when
# missing) through setpriv, and the pid1-* cases also as root; as any other
# user, as that user with a throw-away $HOME.  Nothing is mounted on the
# host.  Everything made goes under one mktemp -d folder, plus a marker key
# in the test user's ~/.ssh, a marker file in its $HOME and a marker
# ~/.bashrc (the original is put back), all undone by the EXIT trap.
#
# Usage: tests/escape/run.sh [PATTERN]   only the cases matching PATTERN.
# Environment: AIJAIL_BUILD (default <repo>/build), AIJAIL_ESC_TIMEOUT
# (seconds per command, default 60), AIJAIL_ESC_RACE_LAUNCHES (default
# 300) and AIJAIL_ESC_RACE_SECS (default 15) bound each race,
# AIJAIL_ESC_KEEP=1 keeps the folder.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
build=${AIJAIL_BUILD:-$root/build}
tmo=${AIJAIL_ESC_TIMEOUT:-60}
race_n=${AIJAIL_ESC_RACE_LAUNCHES:-300}
race_s=${AIJAIL_ESC_RACE_SECS:-15}
only=${1:-*}
SUITE_START=$SECONDS

# --- results -------------------------------------------------------------------





# c NAME: true when the case is selected.
c() {
	# shellcheck disable=SC2053
	[[ $1 == $only ]]
}

q() { printf '%q' "$1"; }

# --- who runs the jails ----------------------------------------------------------

# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

for b in aijail-compile jail jail-python jail-worker; do
	if [ ! -x "$build/bin/$b" ]; then
		echo "FAIL setup: $build/bin/$b is missing; run make first"
		exit 1
	fi
done
for b in probe racer; do
	if [ ! -x "$build/tests/$b" ]; then
		echo "FAIL setup: $build/tests/$b is missing; run make $build/tests/$b"
		exit 1
	fi
done

# --- the fixture -------------------------------------------------------------------

T=$(mktemp -d /tmp/aijail-esc.XXXXXX) || exit 1
chmod 0755 "$T"
bgpids=()
made=()      # files made outside $T, removed by cleanup
sock_made=() # directories made outside $T (sock-*), removed innermost first
ssh_made=
bashrc_saved=

# shellcheck source=tests/lib/procs.sh
. "$root/tests/lib/procs.sh"

# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local p
	if [ ${#bgpids[@]} -gt 0 ]; then
		kill "${bgpids[@]}" 2>/dev/null
		wait "${bgpids[@]}" 2>/dev/null
	fi
	leftovers
	leftovers_kill
	for p in "${made[@]}"; do rm -f "$p"; done
	for p in "${sock_made[@]}"; do rmdir "$p" 2>/dev/null; done
	[ -n "${comp_dir:-}" ] && rm -rf "$comp_dir"
	[ "${dockbin:-}" = "/opt/aijail-esc-$$" ] && rm -rf "$dockbin"
	[ -n "$ssh_made" ] && rmdir "$ssh_made" 2>/dev/null
	if [ -n "$bashrc_saved" ]; then
		if [ -e "$bashrc_saved" ]; then
			cat "$bashrc_saved" >"$thome/.bashrc"
		else
			rm -f "$thome/.bashrc"
		fi
	fi
	if [ "${AIJAIL_ESC_KEEP:-0}" = 1 ]; then
		echo "kept $T"
	else
		chmod -R u+rwX "$T" 2>/dev/null
		rm -rf "$T"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin=$T/bin
P=$T/proj
H=$T/host # outside the project: the jail must never see it
mkdir -p "$bin" "$P" "$T/out" "$T/root-home" "$H/dir/inner" "$T/other"
cp "$build"/bin/* "$bin"/
cp "$build/tests/probe" "$build/tests/racer" "$bin"/
chmod 0755 "$bin"/* "$H" "$H/dir" "$H/dir/inner"
chmod 0700 "$T/root-home"

if [ $as_root -eq 0 ]; then
	thome=$T/home
	mkdir -p "$thome"
fi

tag=$$.$RANDOM
HOSTMARK="AIJAIL-ESC-HOSTROOT-$tag"
HOMEMARK="AIJAIL-ESC-HOME-$tag"
BASHMARK="AIJAIL-ESC-BASHRC-$tag"
ENVSECRET="AIJAIL-ESC-ENVSECRET-$tag"
PIDMARK="sk_live_marker_$tag"
printf '%s\n' "$HOSTMARK" >"$H/hostroot-marker"
printf '%s\n' "$HOSTMARK" >"$H/dir/inner/f"
chmod 0644 "$H/hostroot-marker" "$H/dir/inner/f"

# The caller's ~/.ssh/id_rsa holds a key the jail must never show.
keymark="AIJAIL-ESC-SSH-MARKER-$tag"
key=$thome/.ssh/id_rsa
if [ ! -e "$key" ]; then
	if [ ! -d "$thome/.ssh" ]; then
		mkdir -p "$thome/.ssh"
		ssh_made=$thome/.ssh
	fi
	printf '%s\n' "$keymark" >"$key"
	chmod 0600 "$key"
	chmod 0700 "$thome/.ssh"
	chown -R "$tuid:$tgid" "$thome/.ssh"
	made+=("$key")
else
	keymark=$(head -n 1 "$key")
	[ -n "$keymark" ] || keymark="-----BEGIN"
fi
# key_there NAME: SKIPs NAME (false) when the key is gone (a concurrent run
# of the integration tests may remove the one it made).
key_there() {
	if [ -r "$key" ] && grep -qF -- "$keymark" "$key"; then return 0; fi
	skip "$1" "the host's $key with the marker is gone; nothing to look for"
	return 1
}

# A file in the real $HOME: the jail's $HOME is private, so never there.
homefile=$thome/.aijail-esc-home-$tag
printf '%s\n' "$HOMEMARK" >"$homefile"
chown "$tuid:$tgid" "$homefile"
made+=("$homefile")

# The project: what the cases read and plant.
(
	cd "$P" || exit 1
	mkdir -p .esc fakebin tools data
	printf 'SECRET=%s\n' "$ENVSECRET" >.env
	printf 'hello\n' >normal.txt
	printf 'SYMSECRET-%s\n' "$tag" >data/x
	cp "$bin/probe" "$bin/racer" .esc/
)

# leak.py MARKERS PATHS…: run inside.  Prints LEAK lines for every place a
# marker (comma-separated) can be read or a marker file name listed: the
# given paths first, then a bounded walk of / (not /proc, /sys, /dev and
# the system trees bound read-only from the host).  Ends with "DONE n",
# n files read, or "DONE n truncated" when the budget ran out.
cat >"$P/.esc/leak.py" <<'EOF'
import os, sys, time
marks = [m.encode() for m in sys.argv[1].split(",") if m]
names = ("aijail-esc-home-", "hostroot-marker")
# top-level names the host has and a plain jail has not: the host's root
try:
    for e in open(".esc/hostonly").read().split():
        if os.path.lexists("/" + e):
            print("LEAK host root entry", "/" + e)
except OSError:
    pass
def leaky(p):
    try:
        with open(p, "rb") as f:
            b = f.read(1 << 20)
    except OSError:
        return False
    return any(m in b for m in marks)
for p in sys.argv[2:]:
    if os.path.isdir(p):
        try:
            ents = os.listdir(p)
        except OSError:
            ents = []
        for e in ents:
            if any(n in e for n in names):
                print("LEAK listed", os.path.join(p, e))
            if leaky(os.path.join(p, e)):
                print("LEAK read", os.path.join(p, e))
    elif leaky(p):
        print("LEAK read", p)
skipdirs = {"/proc", "/sys", "/dev", "/usr", "/opt", "/etc"}
n, t0, trunc = 0, time.time(), False
for d, subs, files in os.walk("/", followlinks=False):
    if d in skipdirs:
        subs[:] = []
        continue
    subs[:] = [s for s in subs if os.path.join(d, s) not in skipdirs]
    for f in files + subs:
        if any(x in f for x in names):
            print("LEAK listed", os.path.join(d, f))
    for f in files:
        p = os.path.join(d, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        n += 1
        if leaky(p):
            print("LEAK read", p)
        if n > 20000 or time.time() - t0 > 10:
            trunc = True
            break
    if trunc:
        break
print("DONE", n, "truncated" if trunc else "")
EOF

# A stand-in for a tool: the profile is the point, not the tool.
# fakebin/NAME (found through the kept PATH) runs the shell script
# .esc/cmd with its arguments; the environment allowlist would drop a
# variable, so the script is a file.
for t in docker npm pip cargo uv; do
	printf '#!/bin/sh\nexec /bin/sh %s/.esc/cmd "$@"\n' "$P" >"$P/fakebin/$t"
done
# dock_nogroup: why jail --jail-explain docker (in OUT) named no group,
# when the stand-in is in place.
dock_nogroup() {
	if ! getent group docker >/dev/null; then
		echo "this machine has no docker group (docker.io makes it; groupadd docker does too)"
	else
		echo "its explain says $(q "$(printf '%s\n' "$OUT" | grep '^command:')")"
	fi
}
# esc_cmd SCRIPT: what the stand-ins run next.
esc_cmd() {
	printf '%s\n' "$1" >"$P/.esc/cmd"
	chown "$tuid:$tgid" "$P/.esc/cmd"
}
# The Docker CLI's stand-in for the docker command group: a tool's name
# picks its group only when PATH finds it outside the project, so it lives
# in a folder of /opt (which the jail binds); as root only.
# dockwhy says why the stand-in could not be put there.
dockbin=$P/fakebin
dockwhy=
if [ $as_root -eq 0 ]; then
	dockwhy="needs root: the docker stand-in must live outside the project, in a folder of /opt, which only root can make"
elif [ ! -d /opt ]; then
	dockwhy="this machine has no /opt for the docker stand-in (the jail binds /opt, a tool's group needs it found outside the project)"
elif ! mkdir -m 0755 "/opt/aijail-esc-$$"; then
	dockwhy="could not make /opt/aijail-esc-$$ for the docker stand-in"
else
	dockbin=/opt/aijail-esc-$$
	cp "$P/fakebin/docker" "$dockbin/docker"
	chmod 0755 "$dockbin/docker"
fi
printf '#!/bin/sh\ncat /proc/net/dev\n' >"$P/tools/npm"
chmod 0755 "$P"/fakebin/* "$P/tools/npm"
chown -R "$tuid:$tgid" "$P" "$T/other"

# --- running a jail ------------------------------------------------------------------

# jrun WHO [VAR=VALUE…] -- COMMAND ARGS…: as WHO (user or root), from $CWD
# (default the project), stdin /dev/null, a clean environment plus
# STRIPE_SECRET_KEY and the variables.  Sets RC, OUT, ERR.
jrun() {
	local who=$1 cmd pre
	local envs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	cmd=$1
	shift
	[ -x "$bin/$cmd" ] && cmd=$bin/$cmd
	if [ "$who" = root ]; then
		pre=(env -i HOME="$T/root-home" USER=root LOGNAME=root)
	else
		pre=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
		[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env "${pre[@]}")
	fi
	(
		cd "${CWD:-$P}" || exit 99
		exec timeout -k 5 "${TMO:-$tmo}" "${pre[@]}" PATH=/usr/local/bin:/usr/bin:/bin \
			STRIPE_SECRET_KEY="$PIDMARK" "${envs[@]}" "$cmd" "$@"
	) >"$T/out/stdout" 2>"$T/out/stderr" </dev/null
	RC=$?
	OUT=$(cat "$T/out/stdout")
	ERR=$(head -c 4000 "$T/out/stderr")
}

# The prefix that runs a command as the test user with a clean environment.
asuser_pre=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser" PATH=/usr/local/bin:/usr/bin:/bin)
[ $as_root -eq 1 ] && asuser_pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env "${asuser_pre[@]}")

# asuser SCRIPT ARGS…: bash SCRIPT as the test user, in the project, with
# the same clean environment; stdout and stderr are the caller's.
asuser() {
	local pre=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
	[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env "${pre[@]}")
	(cd "$P" && exec "${pre[@]}" PATH=/usr/local/bin:/usr/bin:/bin B="$bin" P="$P" T="$T" \
		/bin/bash -c "$@") </dev/null
}

# --- A1: paths from the environment ----------------------------------------------------

# env_case NAME STUB VAR=VALUE…: the toggle must never bring in the host's
# root, the real $HOME, the key or a folder; the fixed jail skips a path
# that is not a socket (or, for XAUTHORITY, not a regular file of the
# caller) and refuses what --jail-ro refuses.  The jail may also refuse to
# start (125): nothing ran, nothing leaked.
# Then NAME-explain: --jail-explain names the variable and says it was
# skipped (loosely: skip, refus or not on a line with the name).
leak_marks="$HOSTMARK,$HOMEMARK,$keymark"
leak_paths=("$H/hostroot-marker" "$H/dir/inner/f" "$H/dir/inner" "$key" "$thome/.ssh" "$thome" "$homefile" "/")
env_case() {
	local name=$1 stub=$2 shown
	shift 2
	local vars=("$@") pre=() grp=() words
	words=$(printf '%s ' "${vars[@]}")
	if c "$name"; then
		key_there "$name" || return 0
		case $stub in
		jail-python) pre=(-c 'exec(open(".esc/leak.py").read())') ;;
		jail | jail-worker) pre=(python3 .esc/leak.py) ;;
		jail-docker)
			stub=jail
			grp=(docker)
			;;
		esac
		if [ ${#grp[@]} -gt 0 ]; then
			jrun user "${vars[@]}" PATH="$dockbin:/usr/bin:/bin" -- jail --jail-explain docker
			if ! printf '%s\n' "$OUT" | grep -q '^command:.*group docker'; then
				skip "$name" "jail docker (a stand-in through PATH) does not get the docker group: ${dockwhy:-$(dock_nogroup)}"
				return 0
			fi
			esc_cmd 'exec python3 .esc/leak.py "$@"'
			jrun user "${vars[@]}" PATH="$dockbin:/usr/bin:/bin" -- "$stub" docker "$leak_marks" "${leak_paths[@]}"
		elif [ "$stub" = jail-python ]; then
			# python -c: sys.argv[0] is "-c", the rest are ours
			jrun user "${vars[@]}" -- "$stub" -c 'import sys; sys.argv[0:1] = ["leak"]; exec(open(".esc/leak.py").read())' \
				"$leak_marks" "${leak_paths[@]}"
		else
			jrun user "${vars[@]}" -- "$stub" "${pre[@]}" "$leak_marks" "${leak_paths[@]}"
		fi
		shown=$(printf '%s\n' "$OUT" | grep '^LEAK' | head -n 4 | tr '\n' ';')
		if [ -n "$shown" ]; then
			fail "$name" "$words: reachable inside: $shown"
		elif [ "$RC" = 125 ]; then
			pass "$name" "refused to start"
		elif [ "$RC" = 0 ] && [[ $OUT == *DONE* ]]; then
			pass "$name"
		else
			fail "$name" "$words: exit status $RC, stdout $(q "$(printf '%s' "$OUT" | tail -n 3)")"
		fi
	fi
	if [ "${NOEXPLAIN:-0}" = 0 ] && c "$name-explain"; then
		local var=$EXPLAIN_VAR
		if [ ${#grp[@]} -gt 0 ] || [ "$stub" = jail-docker ]; then
			jrun user "${vars[@]}" PATH="$dockbin:/usr/bin:/bin" -- jail --jail-explain docker
		elif [ "$stub" = jail ]; then
			jrun user "${vars[@]}" -- jail --jail-explain python3
		else
			jrun user "${vars[@]}" -- "$stub" --jail-explain
		fi
		if [ "$RC" = 125 ]; then
			pass "$name-explain" "refused to start"
		elif printf '%s\n' "$OUT" | grep -iE -- "$var" | grep -qiE 'skip|refus|not '; then
			pass "$name-explain"
		else
			ERR=
			fail "$name-explain" "$words: --jail-explain does not say $var was skipped: $(q "$(printf '%s\n' "$OUT" | grep -iE -- "$var" | grep -v '^env' | head -n 3 | tr '\n' ';')")"
		fi
	fi
}

# The host's top-level names that a plain jail does not have: one of them
# inside means the host's root came in.
if true; then
	jrun user -- jail-python -c 'import os; print("\n".join(os.listdir("/")))'
	if [ "$RC" = 0 ]; then
		comm -23 <(ls -A / | sort) <(printf '%s\n' "$OUT" | sort) >"$P/.esc/hostonly"
	else
		: >"$P/.esc/hostonly"
	fi
	chown "$tuid:$tgid" "$P/.esc/hostonly"
fi

EXPLAIN_VAR=XAUTHORITY
env_case env-xauth-root jail-python XAUTHORITY=/
env_case env-xauth-home jail-python XAUTHORITY="$thome"
env_case env-xauth-home-jail jail XAUTHORITY="$thome"
NOEXPLAIN=1 env_case env-xauth-home-worker jail-worker XAUTHORITY="$thome"
env_case env-xauth-key jail-python XAUTHORITY="$key"
env_case env-xauth-dir jail-python XAUTHORITY="$H/dir"
env_case env-xauth-dir-jail jail XAUTHORITY="$H/dir"
EXPLAIN_VAR=WAYLAND
env_case env-wayland-root jail-python WAYLAND_DISPLAY=/
env_case env-wayland-dotdot jail-python XDG_RUNTIME_DIR="$H/dir/inner" WAYLAND_DISPLAY=../..
env_case env-wayland-file jail-python WAYLAND_DISPLAY="$H/hostroot-marker"
env_case env-wayland-key jail XDG_RUNTIME_DIR="$thome/.ssh" WAYLAND_DISPLAY=id_rsa
env_case env-xdg-home jail-python XDG_RUNTIME_DIR="$thome" WAYLAND_DISPLAY="$(basename "$homefile")"
EXPLAIN_VAR=DOCKER
ln -s "$key" "$H/docker.sock"
env_case env-docker-key jail-docker DOCKER_HOST="unix://$key"
env_case env-docker-symlink jail-docker DOCKER_HOST="unix://$H/docker.sock"

# DISPLAY=:N names /tmp/.X11-unix/XN, which any user may create on the
# host: a symlink there to the key.  Root only (the folder is shared; the
# stand-ins lock of the integration tests is taken).
if c 'env-x11-*'; then
	if [ $as_root -eq 0 ]; then
		skip env-x11-symlink "needs root to make /tmp/.X11-unix/XN on the host"
	else
		exec 8>/tmp/aijail-it-standins.lock
		flock -w 60 8
		x11_made=
		if [ ! -d /tmp/.X11-unix ]; then
			mkdir -m 1777 /tmp/.X11-unix
			x11_made=/tmp/.X11-unix
		fi
		n=$((700 + RANDOM % 200))
		while [ -e "/tmp/.X11-unix/X$n" ] || [ -L "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
		ln -s "$key" "/tmp/.X11-unix/X$n"
		made+=("/tmp/.X11-unix/X$n")
		EXPLAIN_VAR=X11
		env_case env-x11-symlink jail-python DISPLAY=:$n
		env_case env-x11-symlink-jail jail DISPLAY=:$n
		rm -f "/tmp/.X11-unix/X$n"
		[ -n "$x11_made" ] && rmdir "$x11_made"
		flock -u 8
		exec 8>&-
	fi
fi

# --- A2: races between check and use -------------------------------------------------------

# race NAME SETUP RACER_ARGS VICTIM WIN_TEST: the racer runs in a jail of its
# own on the project ($RACE_PROJ, default the project) swapping two names;
# the victim loop launches the stub until race_n launches or race_s seconds,
# counting the launches that WIN (a shell test run by the test user after
# each launch, the jail's stdout in $o).  Any win FAILs.
race() {
	local name=$1 rproj=$2 racer_args=$3 victim_cwd=$4 victim=$5 win=$6
	local out rpid vpid swaps wins launches codes ran
	rm -f "$P/.esc/STOP" "$P/.esc/READY" "$P/.esc/GO"
	# The victim: one shell that takes its working directory before the
	# racer starts and keeps it (a cd per launch would follow a swapped
	# symlink by itself), then launches the stub until the bounds.
	asuser '
		cd "$1" || { echo "cd failed"; exit 1; }
		touch "$P/.esc/READY"
		while [ ! -e "$P/.esc/GO" ]; do sleep 0.05; done
		n=0 w=0 r=0 codes=""
		end=$((SECONDS + $3))
		while [ $n -lt $2 ] && [ $SECONDS -lt $end ]; do
			o=$(timeout -k 2 20 env STRIPE_SECRET_KEY=x '"$victim"' 2>/dev/null)
			rc=$?
			n=$((n + 1))
			[ $rc -lt 124 ] && r=$((r + 1))
			case " $codes " in *" $rc "*) ;; *) codes="$codes $rc" ;; esac
			if '"$win"'; then
				w=$((w + 1))
				[ $w -le 3 ] && echo "win at launch $n (exit $rc): $(printf %s "$o" | head -c 200 | tr "\n" " ")"
			fi
		done
		echo "launches $n ran $r wins $w codes$codes"
	' esc "$victim_cwd" "$race_n" "$race_s" >"$T/out/victim" 2>&1 &
	vpid=$!
	for _ in $(seq 100); do [ -e "$P/.esc/READY" ] && break; sleep 0.05; done
	# The racer's jail: jail-worker, its project $rproj.
	(
		cd "$rproj" || exit 1
		pre=(env -i HOME="$thome" USER="$tuser" PATH=/usr/bin:/bin)
		[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env "${pre[@]}")
		# shellcheck disable=SC2086 # racer_args are words
		# RACE_NET=1: a racer with the host's network, whose jail does not
		# deny the project's sockets (a mount point cannot be renamed).
		rj=("$bin/jail-worker")
		[ -n "${RACE_NET:-}" ] && rj=("$bin/jail" --net)
		pace=()
		[ -n "${RACE_PACED:-}" ] && pace=(-p 500)
		exec timeout -k 5 $((race_s + 30)) "${pre[@]}" "${rj[@]}" "$P/.esc/racer" "${pace[@]}" $racer_args \
			$((race_s + 20)) "$P/.esc/STOP"
	) >"$T/out/racer" 2>&1 </dev/null &
	rpid=$!
	bgpids+=("$rpid" "$vpid")
	sleep 0.3
	touch "$P/.esc/GO"
	wait "$vpid"
	out=$(cat "$T/out/victim")
	touch "$P/.esc/STOP"
	wait "$rpid"
	swaps=$(sed -n 's/^swaps: //p' "$T/out/racer")
	bgpids=()
	launches=$(printf '%s\n' "$out" | sed -n 's/^launches \([0-9]*\).*/\1/p')
	ran=$(printf '%s\n' "$out" | sed -n 's/.* ran \([0-9]*\).*/\1/p')
	wins=$(printf '%s\n' "$out" | sed -n 's/.* wins \([0-9]*\).*/\1/p')
	codes=$(printf '%s\n' "$out" | sed -n 's/.* codes//p')
	ERR=
	if [ -z "$swaps" ] || [ "$swaps" = 0 ]; then
		ERR=$(cat "$T/out/racer")
		skip "$name" "the racer made no swap inside its jail (so nothing was raced)"
	elif [ -z "$launches" ]; then
		fail "$name" "the victim loop did not finish: $(q "$out")"
	elif [ "$wins" != 0 ]; then
		fail "$name" "$wins wins in $launches launches ($swaps swaps; exit statuses$codes): $(printf '%s\n' "$out" | grep '^win' | head -n 3 | tr '\n' ';')"
	elif [ "$ran" = 0 ] && [ -z "${RACE_PACED:-}" ]; then
		# Every launch refused (125): the jail held, but the case saw no
		# run it could judge (the swaps land between every check and its
		# use).  Once more with a racer that pauses 0.5 ms whenever the
		# names are back, so that some launches run between the swaps.
		echo "note $name: every one of $launches launches was refused (exit statuses$codes); again, with the racer paced"
		RACE_PACED=1 race "$@"
	elif [ "$ran" = 0 ]; then
		# Not a pass: it could not see.
		skip "$name" "the command never ran in $launches launches, unpaced or paced (exit statuses$codes): every launch was refused, so the case could not see"
	else
		pass "$name" "0 wins in $launches launches${RACE_PACED:+ (the racer paced)}, $swaps swaps, exit statuses$codes"
	fi
}

# (a) a masked .env in a folder swapped with a folder without one: the
# secret must never be read under the name .env.
if c race-mask-swap; then
	mkdir -p "$P/ra/a" "$P/ra/b"
	printf 'SECRET=%s\n' "$ENVSECRET" >"$P/ra/a/.env"
	printf 'plain\n' >"$P/ra/b/notes.txt"
	chown -R "$tuid:$tgid" "$P/ra"
	race race-mask-swap "$P" "ra/a ra/b" "$P" \
		"$bin/jail-worker cat ra/a/.env ra/b/.env" \
		"[[ \$o == *$ENVSECRET* ]]"
	rm -rf "$P/ra"
fi

# (a2) a folder holding a masked .env exchanged between two directories
# that the walk reads at different times: a walk that reads the first
# before the folder arrives there and the second after it left never sees
# it.  Failed on dea794d (108 wins in 300 launches) and with the listing
# check alone (47); the walk's final check of every directory closes it.
if c race-mask-move; then
	mkdir -p "$P/rm/ra/sec" "$P/rm/rb/x"
	for i in $(seq 30); do mkdir -p "$P/rm/d$i"; done
	printf 'SECRET=%s\n' "$ENVSECRET" >"$P/rm/ra/sec/.env"
	chown -R "$tuid:$tgid" "$P/rm"
	race race-mask-move "$P" "rm/ra/sec rm/rb/x" "$P" \
		"$bin/jail-worker cat rm/ra/sec/.env rm/rb/x/.env" \
		"[[ \$o == *$ENVSECRET* ]]"
	rm -rf "$P/rm"
fi

# (a3) the same folder moved with rename(2) between the two directories
# and back (no exchange: its old name is simply gone for a while).  Failed
# on dea794d (62 wins in 200 launches).
if c race-mask-rename; then
	mkdir -p "$P/rn/ra/sec" "$P/rn/rb"
	for i in $(seq 30); do mkdir -p "$P/rn/d$i"; done
	printf 'SECRET=%s\n' "$ENVSECRET" >"$P/rn/ra/sec/.env"
	chown -R "$tuid:$tgid" "$P/rn"
	race race-mask-rename "$P" "-m rn/ra/sec rn/rb/sec" "$P" \
		"$bin/jail-worker cat rn/ra/sec/.env rn/rb/sec/.env" \
		"[[ \$o == *$ENVSECRET* ]]"
	rm -rf "$P/rn"
fi

# A build in the project (folders made and removed all the time) is no
# attack: every jail started meanwhile runs.  On dea794d 22 % of them
# failed (125: a folder removed while the walk read it).
if c churn-build; then
	mkdir -p "$P/target"
	chown "$tuid:$tgid" "$P/target"
	asuser 'exec /usr/bin/python3 -c "
import os, shutil, time
end = time.time() + 60
i = 0
while time.time() < end and not os.path.exists(\".esc/STOP\"):
    d = \"target/t%d\" % (i % 50)
    os.makedirs(d + \"/sub\", exist_ok=True)
    open(d + \"/f\", \"w\").close()
    shutil.rmtree(\"target/t%d\" % ((i + 25) % 50), ignore_errors=True)
    i += 1"' esc >/dev/null 2>&1 &
	cpid=$!
	bgpids+=("$cpid")
	rm -f "$P/.esc/STOP"
	sleep 0.3
	bad=0 codes=
	for _ in $(seq 150); do
		jrun user -- jail-worker true
		[ "$RC" = 0 ] || { bad=$((bad + 1)); codes="$codes $RC"; }
	done
	touch "$P/.esc/STOP"
	wait "$cpid" 2>/dev/null
	bgpids=()
	rm -rf "$P/target" "$P/.esc/STOP"
	ERR=
	if [ "$bad" = 0 ]; then pass churn-build "150 launches during a build, all ran"; else
		fail churn-build "$bad of 150 launches during a build did not run (exit statuses$codes)"
	fi
fi

# (b) the project (a folder of the racer's project) swapped with a symlink
# to the host's $HOME: the project must never be the host's $HOME.
if c race-project-home; then
	mkdir -p "$P/rb/work"
	ln -s "$thome" "$P/rb/homelink"
	chown -R -h "$tuid:$tgid" "$P/rb"
	race race-project-home "$P" "rb/work rb/homelink" "$P/rb/work" \
		"$bin/jail-worker sh -c 'ls -a .; cat $(basename "$homefile") 2>/dev/null'" \
		"[[ \$o == *$HOMEMARK* || \$o == *aijail-esc-home-* ]]"
	rm -rf "$P/rb"
fi

# (b') a component of the project path swapped the same way.
if c race-project-component; then
	mkdir -p "$P/rc/comp/work"
	comp_dir=$thome/.aijail-esc-comp-$tag
	mkdir -p "$comp_dir/work"
	printf '%s\n' "$HOMEMARK" >"$thome/.aijail-esc-comp-$tag/work/home-side"
	chown -R "$tuid:$tgid" "$thome/.aijail-esc-comp-$tag"
	ln -s "$thome/.aijail-esc-comp-$tag" "$P/rc/complink"
	chown -R -h "$tuid:$tgid" "$P/rc"
	race race-project-component "$P" "rc/comp rc/complink" "$P/rc/comp/work" \
		"$bin/jail-worker sh -c 'ls -a .; cat home-side 2>/dev/null'" \
		"[[ \$o == *$HOMEMARK* ]]"
	rm -rf "$P/rc" "$thome/.aijail-esc-comp-$tag"
fi

# (c) --rw DIR with DIR swapped for a symlink to another folder: the jail
# must never write into the other folder.
if c race-rw-swap; then
	mkdir -p "$P/rd/out"
	ln -s "$T/other" "$P/rd/outlink"
	chown -R -h "$tuid:$tgid" "$P/rd"
	race race-rw-swap "$P" "rd/out rd/outlink" "$P" \
		"$bin/jail --rw $P/rd/out sh -c 'echo x > $P/rd/out/w.\$\$'" \
		"[ -n \"\$(ls -A $T/other)\" ] && rm -f $T/other/*"
	rm -rf "$P/rd" "${T:?}/other/"*
fi

# (d) a toggle's socket (named by the environment) swapped with a symlink
# to the key between the check that it is a socket and the bind: the key
# must never be read at the socket's path.  The socket is a real one (left
# by a listener that has gone); inside, the symlink itself leads into the
# private $HOME, so only a bind of the key shows it.
mksock() {
	asuser 'python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$1"' esc "$1"
}
if c race-docker-socket; then
	if key_there race-docker-socket; then
		mkdir -p "$P/rs"
		chown "$tuid:$tgid" "$P/rs"
		mksock "$P/rs/docker.sock"
		ln -s "$key" "$P/rs/other"
		chown -h "$tuid:$tgid" "$P/rs/other"
		esc_cmd "cat $P/rs/docker.sock 2>&1"
		jrun user DOCKER_HOST="unix://$P/rs/docker.sock" PATH="$dockbin:/usr/bin:/bin" -- jail --jail-explain docker
		if [ ! -S "$P/rs/docker.sock" ]; then
			skip race-docker-socket "could not make a unix socket in the project"
		elif ! printf '%s\n' "$OUT" | grep -q '^command:.*group docker'; then
			skip race-docker-socket "jail docker (a stand-in through PATH) does not get the docker group: ${dockwhy:-$(dock_nogroup)}"
		else
			RACE_NET=1 race race-docker-socket "$P" "rs/docker.sock rs/other" "$P" \
				"DOCKER_HOST=unix://$P/rs/docker.sock PATH=$dockbin:/usr/bin:/bin $bin/jail docker" \
				"[[ \$o == *$keymark* ]]"
		fi
		rm -rf "$P/rs"
	fi
fi
if c race-wayland-socket; then
	if key_there race-wayland-socket; then
		mkdir -p "$P/rs"
		chown "$tuid:$tgid" "$P/rs"
		mksock "$P/rs/wayland-0"
		ln -s "$key" "$P/rs/other"
		chown -h "$tuid:$tgid" "$P/rs/other"
		if [ ! -S "$P/rs/wayland-0" ]; then
			skip race-wayland-socket "could not make a unix socket in the project"
		else
			RACE_NET=1 race race-wayland-socket "$P" "rs/wayland-0 rs/other" "$P" \
				"XDG_RUNTIME_DIR=$P/rs WAYLAND_DISPLAY=wayland-0 $bin/jail cat $P/rs/wayland-0" \
				"[[ \$o == *$keymark* ]]"
		fi
		rm -rf "$P/rs"
	fi
fi

# --- A3: a symlink planted in the project, then mapped ----------------------------------

bashrc_set() {
	if [ -z "$bashrc_saved" ]; then
		bashrc_saved=$T/bashrc.saved
		if [ -e "$thome/.bashrc" ]; then cp -p "$thome/.bashrc" "$bashrc_saved"; else bashrc_saved=$T/none; fi
	fi
	printf '# %s\n' "$BASHMARK" >"$thome/.bashrc"
	chown "$tuid:$tgid" "$thome/.bashrc"
}

if c plant-rw-file || c plant-ro-file || c plant-rw-dir; then
	bashrc_set
	jrun user -- jail-worker sh -c "ln -s $thome/.bashrc out.log && mkdir -p pl && ln -s $thome pl/home"
	if [ "$RC" != 0 ] || [ ! -L "$P/out.log" ]; then
		skip plant-symlinks "could not plant the links from inside: exit status $RC"
	else
		if c plant-rw-file; then
			jrun user -- jail --rw "$P/out.log" sh -c 'echo pwned > out.log'
			if grep -q pwned "$thome/.bashrc"; then
				fail plant-rw-file "the host's ~/.bashrc was written through the planted out.log (exit $RC)"
			elif ! grep -q "$BASHMARK" "$thome/.bashrc"; then
				fail plant-rw-file "the host's ~/.bashrc changed"
			else
				pass plant-rw-file "exit $RC"
			fi
			bashrc_set
		fi
		if c plant-ro-file; then
			jrun user -- jail --ro "$P/out.log" cat out.log
			if [[ $OUT == *"$BASHMARK"* ]]; then
				fail plant-ro-file "the host's ~/.bashrc was read through the planted out.log"
			else
				pass plant-ro-file "exit $RC"
			fi
		fi
		if c plant-rw-dir; then
			jrun user -- jail --rw "$P/pl/home/.bashrc" sh -c "echo pwned >> $P/pl/home/.bashrc; cat $P/pl/home/.bashrc"
			if grep -q pwned "$thome/.bashrc"; then
				fail plant-rw-dir "the host's ~/.bashrc was written through the planted folder link pl/home (exit $RC)"
			elif [[ $OUT == *"$BASHMARK"* ]]; then
				fail plant-rw-dir "the host's ~/.bashrc was read through the planted folder link pl/home"
			else
				pass plant-rw-dir "exit $RC"
			fi
			bashrc_set
		fi
	fi
	rm -rf "$P/out.log" "$P/pl"
fi

# --- A4: relative extra maps -----------------------------------------------------------------

if c rel-rw; then
	mkdir -p "$P/out"
	chown "$tuid:$tgid" "$P/out"
	jrun user -- jail --rw ./out sh -c 'echo x > out/f'
	if [ "$RC" = 0 ] && [ "$(cat "$P/out/f" 2>/dev/null)" = x ]; then pass rel-rw; else
		fail rel-rw "jail --rw ./out (the README's example): exit status $RC, out/f $(q "$(cat "$P/out/f" 2>&1)")"
	fi
	rm -rf "$P/out"
fi

# ../sibling resolves to a folder beside the project, which --ro allows.
if c rel-ro-sibling; then
	mkdir -p "$T/sibling"
	printf 'sib\n' >"$T/sibling/f"
	chmod -R a+rX "$T/sibling"
	jrun user -- jail --ro ../sibling cat ../sibling/f
	if [ "$RC" = 0 ] && [ "$OUT" = sib ]; then pass rel-ro-sibling; else
		fail rel-ro-sibling "jail --ro ../sibling: exit status $RC, stdout $(q "$OUT")"
	fi
fi

# --- A5: pid 1 and the other processes of ours -----------------------------------------------

# pid1.py MARKFILE: reads environ, cmdline, fds and memory of every pid
# visible but itself.  Prints LEAK lines, "NOPROC" when /proc has no pids,
# and "DONE pids=… tried=… refused=…".
cat >"$P/.esc/pid1.py" <<'EOF'
import os, sys, errno
mark = open(sys.argv[1], "rb").read().strip()  # not an argument: argv is the target's
me = os.getpid()
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
if not pids or not os.path.exists("/proc/1"):
    print("NOPROC"); sys.exit(0)
tried = refused = 0
def look(what, read):
    global tried, refused
    tried += 1
    try:
        b = read()
    except OSError as e:
        refused += 1
        return
    if b and mark in b:
        print("LEAK", what)
def rd(p, n=1 << 20):
    with open(p, "rb") as f:
        return f.read(n)
others = [p for p in pids if p != me]
for p in others:
    d = "/proc/%d" % p
    for f in ("environ", "cmdline"):
        look("%s/%s" % (d, f), lambda: rd("%s/%s" % (d, f)))
    try:
        fds = os.listdir(d + "/fd")
    except OSError:
        tried += 1; refused += 1; fds = []
    for fd in fds:
        look("%s/fd/%s" % (d, fd), lambda: rd("%s/fd/%s" % (d, fd), 1 << 16))
    try:
        maps = open(d + "/maps").read().splitlines()
    except OSError:
        tried += 1; refused += 1; maps = []
    try:
        mem = open(d + "/mem", "rb", buffering=0)
    except OSError:
        tried += 1; refused += 1; mem = None
    if mem:
        for line in maps:
            parts = line.split()
            if len(parts) < 2 or "r" not in parts[1] or line.endswith("[vvar]") or "vvar" in line:
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if hi - lo > (64 << 20):
                hi = lo + (64 << 20)
            def readmem():
                mem.seek(lo)
                return mem.read(hi - lo)
            look("%s/mem@%x %s" % (d, lo, parts[-1] if len(parts) > 5 else ""), readmem)
        mem.close()
print("DONE pids=%s tried=%d refused=%d" % (",".join(map(str, others)), tried, refused))
EOF
printf '%s\n' "$PIDMARK" >"$P/.esc/pidmark"
chown "$tuid:$tgid" "$P/.esc/pid1.py" "$P/.esc/pidmark"

pid1_case() {
	local name=$1 who=$2
	shift 2
	c "$name" || return 0
	# A sleeping sibling so that the reader is not the only process.
	jrun "$who" -- "$@"
	if [[ $OUT == *NOPROC* ]]; then
		skip "$name" "/proc shows no pids inside"
	elif [[ $OUT == *LEAK* ]]; then
		fail "$name" "the caller's STRIPE_SECRET_KEY is readable inside: $(printf '%s\n' "$OUT" | grep LEAK | head -n 4 | tr '\n' ';')"
	elif [ "$RC" = 0 ] && [[ $OUT == *DONE* ]]; then
		pass "$name" "$(printf '%s\n' "$OUT" | grep DONE)"
	else
		fail "$name" "exit status $RC, stdout $(q "$OUT")"
	fi
}
for who in user root; do
	[ $who = root ] && [ $as_root -eq 0 ] && { c 'pid1-root-*' && skip pid1-root "not running as root"; continue; }
	pid1_case "pid1-$who-normal" $who jail-python .esc/pid1.py .esc/pidmark
	pid1_case "pid1-$who-jail" $who jail sh -c "sleep 5 & python3 .esc/pid1.py .esc/pidmark; kill \$!"
	pid1_case "pid1-$who-worker" $who jail --worker python3 .esc/pid1.py .esc/pidmark
	pid1_case "pid1-$who-jail-worker" $who jail-worker python3 .esc/pid1.py .esc/pidmark
	pid1_case "pid1-$who-lockdown" $who jail --lockdown python3 .esc/pid1.py .esc/pidmark
done

# --- A6: runaways ------------------------------------------------------------------------------

# The fork bomb: 2000 sleeps at most, the count the issue saw made
# unopposed; the fixed jail stops it at the profile's 'limit processes'
# (1024, or 1536 for npm and cargo), so fork fails before 2000.
# dash exits when fork fails, so it counts as it goes.
BOMB='i=0; while [ $i -lt 2000 ]; do sleep 60 & i=$((i+1)); echo "n $i"; done; echo made $i; exit 0'
PYBOMB='import os, time
n = 0
err = ""
while n < 2000:
    try:
        pid = os.fork()
    except OSError as e:
        err = os.strerror(e.errno)
        break
    if pid == 0:
        try:
            os.execv("/bin/sleep", ["sleep", "60"])
        finally:
            os._exit(0)
    n += 1
print("made", n, err)'

# bomb_case NAME STUB ARGS…: runs the bomb, reads "made N".
bomb_case() {
	local name=$1 made
	shift
	c "$name" || return 0
	esc_cmd "$BOMB"
	TMO=60 jrun user PATH="$P/fakebin:/usr/local/bin:/usr/bin:/bin" -- "$@"
	made=$(printf '%s\n' "$OUT" | sed -n 's/^\(made\|n\) \([0-9]*\).*/\2/p' | tail -n 1)
	leftovers_wait 50
	local lw=$left_why
	leftovers_kill
	if [ -n "$lw" ]; then
		fail "$name" "processes left after the jail ended: $(printf %s "$lw" | cut -c1-200)"
	elif [ -z "$made" ]; then
		if [ "$RC" = 127 ] || [ "$RC" = 125 ]; then
			skip "$name" "the profile could not run the bomb: exit status $RC"
		else
			fail "$name" "no count printed: exit status $RC, stdout $(q "$OUT")"
		fi
	elif [ "$made" -ge 2000 ]; then
		fail "$name" "$made processes created (exit status $RC): no process limit"
	else
		pass "$name" "stopped at $made"
	fi
}
bomb_case bomb-fork-jail jail --timeout 40 sh -c "$BOMB"
bomb_case bomb-fork-jail-worker jail-worker --jail-timeout=40 sh -c "$BOMB"
bomb_case bomb-fork-jail-python jail-python --jail-timeout=40 -c "$PYBOMB"
for t in npm pip cargo uv; do
	bomb_case "bomb-fork-jail-$t" "jail-$t" --jail-timeout=40
done

# The memory bomb: 256 MiB steps until it holds a quarter of physical
# memory (at most 255 MiB more); the fixed jail (limit memory 25%) stops
# it before, with MemoryError or by killing it.
quarter_mib=$(awk '/^MemTotal:/ { print int($2 / 1024 / 4) }' /proc/meminfo)
MEMBOMB='import sys
quarter = int(sys.argv[1])
held, got = [], 0
try:
    while got < quarter:
        held.append(b"\x01" * (256 << 20))
        got += 256
        print("reached", got, flush=True)
    print("reached", got, "all", flush=True)
except MemoryError:
    print("MemoryError at", got, flush=True)'
mem_case() {
	local name=$1 reached
	shift
	c "$name" || return 0
	TMO=120 jrun user -- "$@" "$quarter_mib"
	reached=$(printf '%s\n' "$OUT" | grep -c '^reached [0-9]*$')
	if printf '%s\n' "$OUT" | grep -q 'all$'; then
		fail "$name" "touched $((reached * 256)) MiB, at least a quarter of physical memory ($quarter_mib MiB): no memory limit"
	elif [[ $OUT == *MemoryError* ]] || [ "$RC" -ge 128 ]; then
		pass "$name" "stopped at $((reached * 256)) MiB (exit $RC)"
	else
		fail "$name" "exit status $RC, stdout $(q "$(printf '%s' "$OUT" | tail -n 2)")"
	fi
}
mem_case bomb-mem-jail-python jail-python --jail-timeout=100 -c "$MEMBOMB"
mem_case bomb-mem-jail-worker jail-worker --jail-timeout=100 python3 -c "$MEMBOMB"

# --- A7: the smaller ones ------------------------------------------------------------------------

# (a) a trigger variable set but empty still chooses worker mode.
if c misc-empty-trigger; then
	jrun user HERMES_KANBAN_TASK= -- jail cat /proc/sys/kernel/domainname
	if [ "$RC" = 0 ] && [ "$OUT" = aijail:worker ]; then pass misc-empty-trigger; else
		fail misc-empty-trigger "HERMES_KANBAN_TASK= (set, empty): exit status $RC, domain name $(q "$OUT"), expected aijail:worker"
	fi
fi

# (b) SIGALRM sent to pid 1 from inside is not the timeout.
if c misc-alarm-pid1; then
	jrun user -- jail sh -c 'kill -ALRM 1; sleep 1; exit 7'
	if [ "$RC" = 7 ]; then pass misc-alarm-pid1; else
		fail misc-alarm-pid1 "kill -ALRM 1 without a timeout: exit status $RC, expected 7 (the command's)"
	fi
fi

# (c) a symlink named secrets (base.aj denies "secrets/") to a folder.
if c misc-secrets-symlink; then
	ln -s data "$P/secrets"
	chown -h "$tuid:$tgid" "$P/secrets"
	jrun user -- jail-python -c 'import sys, errno
try:
    print(repr(open("secrets/x").read()))
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))'
	if [[ $OUT == *SYMSECRET* ]]; then
		fail misc-secrets-symlink "secrets/x read through a symlink named secrets: $(q "$OUT")"
	elif [ "$RC" = 0 ] && [[ $OUT =~ ^E[A-Z]+$ ]]; then
		pass misc-secrets-symlink "$OUT" # the link is covered: ENOTDIR through it
	else
		fail misc-secrets-symlink "exit status $RC, stdout $(q "$OUT")"
	fi
	rm -f "$P/secrets"
fi

# (d) --ro of a folder holding a listening host unix socket: a --no-net
# jail must not connect to it.
if c misc-ro-socket; then
	mkdir -p "$T/sockdir"
	chown "$tuid:$tgid" "$T/sockdir"
	asuser 'exec python3 -c "
import socket, sys, os
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[1] + \".ready\", \"w\").write(str(os.getpid()))
s.settimeout(60)
try:
    while True:
        c, _ = s.accept(); c.sendall(b\"hello\"); c.close()
except Exception:
    pass
" "$1"' esc "$T/sockdir/s.sock" >/dev/null 2>&1 &
	spid=$!
	bgpids+=("$spid")
	for _ in $(seq 50); do [ -e "$T/sockdir/s.sock.ready" ] && break; sleep 0.1; done
	if [ ! -S "$T/sockdir/s.sock" ]; then
		skip misc-ro-socket "the host listener did not start"
	else
		# control: the socket answers outside
		ctl=$(asuser 'python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(5).decode())" "$1"' esc "$T/sockdir/s.sock" 2>&1)
		jrun user -- jail --no-net --ro "$T/sockdir" python3 -c 'import socket, sys, errno
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected", s.recv(5).decode())
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$T/sockdir/s.sock"
		if [ "$ctl" != hello ]; then
			skip misc-ro-socket "the control connection from outside failed: $(q "$ctl")"
		elif [[ $OUT == connected* ]]; then
			fail misc-ro-socket "a --no-net jail connected to a host unix socket under --ro: $(q "$OUT")"
		elif [ "$RC" = 125 ]; then
			pass misc-ro-socket "refused to start"
		elif [ "$RC" = 0 ] && [[ $OUT == E* ]]; then
			pass misc-ro-socket "$OUT"
		else
			fail misc-ro-socket "exit status $RC, stdout $(q "$OUT")"
		fi
	fi
	lpid=$(cat "$T/sockdir/s.sock.ready" 2>/dev/null)
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	bgpids=()
fi

# (e) ./tools/npm, a script of the project, is not npm: the default
# group, so no network; `jail npm` through PATH still is.
if c misc-project-tool; then
	jrun user -- jail --jail-explain ./tools/npm
	cgrp=$(printf '%s\n' "$OUT" | sed -n 's/^command: *//p')
	jrun user -- jail ./tools/npm
	ifs=$(printf '%s\n' "$OUT" | awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' | sort | tr '\n' ' ')
	if [ "$RC" != 0 ]; then
		fail misc-project-tool "jail ./tools/npm: exit status $RC"
	elif { [ "$ifs" != "lo " ] && [ -n "$ifs" ]; } || [[ $cgrp == *"group npm"* ]]; then
		fail misc-project-tool "jail ./tools/npm got the network ($ifs) and the group $(q "$cgrp")"
	else
		pass misc-project-tool "interfaces: ${ifs:-none}; $cgrp"
	fi
fi
if c misc-path-tool; then
	if ! command -v npm >/dev/null || [ ! -x /usr/bin/npm ]; then
		skip misc-path-tool "npm is not installed in /usr/bin"
	else
		jrun user -- jail --jail-explain npm
		cgrp=$(printf '%s\n' "$OUT" | sed -n 's/^command: *//p')
		if [[ $cgrp == *"group npm"* ]]; then pass misc-path-tool "$cgrp"; else
			fail misc-path-tool "jail npm (through PATH): $(q "$cgrp"), expected the command group npm"
		fi
	fi
fi

# (f) hostile includes fail fast, bounded, and show nothing of what they read.
inc_case() {
	local name=$1 file=$2 t0 rc err
	c "$name" || return 0
	mkdir -p "$T/inc"
	printf 'include "%s";\npolicy p { }\n' "$file" >"$T/inc/$name.aj"
	t0=$SECONDS
	err=$(cd "$T/inc" && ulimit -v 1048576 && timeout -k 2 10 "$bin/aijail-compile" -I "$root/policies" \
		-o "$T/inc/$name.h" "$name.aj" 2>&1 >/dev/null)
	rc=$?
	ERR=
	local leaked=
	if [ "$file" = /etc/shadow ] && [ -r "$file" ]; then
		leaked=$(while IFS= read -r l; do
			[ -n "$l" ] && [[ $err == *"${l:0:24}"* ]] && { echo "${l%%:*}"; break; }
		done </etc/shadow)
		[ -z "$leaked" ] && [[ $err == *"root:"* ]] && leaked=root
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name" "include \"$file\" did not finish within 10 s (exit $rc)"
	elif [ -n "$leaked" ]; then
		fail "$name" "stderr shows a line of $file (user $leaked)"
	elif [ "$rc" != 1 ]; then
		fail "$name" "include \"$file\": exit status $rc, expected 1; stderr $(q "$(printf %s "$err" | head -c 200)")"
	elif [ -e "$T/inc/$name.h" ]; then
		fail "$name" "a header was written"
	else
		pass "$name" "exit 1 in $((SECONDS - t0)) s"
	fi
}
if [ $as_root -eq 1 ]; then inc_case misc-include-shadow /etc/shadow; else
	c misc-include-shadow && skip misc-include-shadow "/etc/shadow is not readable: nothing to leak"
fi
inc_case misc-include-zero /dev/zero

# misc-term-reach: on a terminal (tests/lib/ptydrive.py, as a shell runs a
# command), the jail tries every way to the caller's terminal: each
# descriptor it has, /dev/tty, every /dev/pts/N it can open, and TIOCSTI
# on each (a byte pushed into the terminal's input); an OSC 52 written by
# any of them must not reach the terminal, and no descriptor may be the
# terminal (its device number).
if c misc-term-reach; then
	mkdir -p "$T/tty"
	chown "$tuid:$tgid" "$T/tty"
	line=$(cd "$P" && timeout -k 5 "$tmo" "${asuser_pre[@]}" TERM=xterm /usr/bin/python3 "$root/tests/lib/ptydrive.py" "$T/tty/out" -- \
		"$bin/jail" /usr/bin/python3 -c 'import fcntl, glob, os, sys, termios
osc = b"\033]52;c;RVNDQVBF\a"
fds = [int(f) for f in os.listdir("/proc/self/fd")]
for p in ["/dev/tty"] + glob.glob("/dev/pts/*") + ["/proc/1/fd/%d" % i for i in range(3)]:
    try:
        fds.append(os.open(p, os.O_RDWR | os.O_NOCTTY))
    except OSError:
        pass
same = []
for fd in fds:
    try:
        if os.fstat(fd).st_rdev == int(sys.argv[1]):
            same.append(fd)
        os.write(fd, osc)
        fcntl.ioctl(fd, termios.TIOCSTI, b"!")
    except OSError:
        pass
print("same:", same)' '{RDEV}' 2>&1)
	if [[ $line == "rc=0 "* ]] && grep -qa 'same: \[\]' "$T/tty/out" && ! grep -qa RVNDQVBF "$T/tty/out"; then
		pass misc-term-reach
	else
		fail misc-term-reach "$line; the terminal got $(head -c 300 "$T/tty/out" | od -c | head -5)"
	fi
fi

# --- sock-*: no named socket is reachable unless the policy or a toggle names it --------

# Each case puts a LIVE listener (it answers "hello") where a jail sees it,
# checks that the test user reaches it from outside (else SKIP), then
# connects from three jails without the host's network: jail-worker (the
# default group: network none), jail --jail-mode=lockdown, and jail-npm
# (network through the proxy; npm is the project's stand-in).
sock_pids=() # the listeners' own pids
cat >"$P/.esc/sockconn.py" <<'EOF'
import socket, sys, errno
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(p); print("connected", p, s.recv(5).decode())
    except OSError as e:
        print(errno.errorcode.get(e.errno, e.errno), p)
EOF
sock_code='import socket, sys, os
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(8)
open(sys.argv[2], "w").write(str(os.getpid()))
s.settimeout(120)
try:
    while True:
        c, _ = s.accept(); c.sendall(b"hello"); c.close()
except Exception:
    pass'
# sock_listen PATH WHO: a listener at PATH as WHO (root or user); true when
# the test user reaches it from outside.
sock_listen() {
	local path=$1 who=$2 ready=$T/out/ready.$RANDOM ctl
	if [ "$who" = root ]; then
		env PATH=/usr/local/bin:/usr/bin:/bin python3 -c "$sock_code" "$path" "$ready" >/dev/null 2>&1 &
	else
		chmod 0777 "$T/out"
		# shellcheck disable=SC2016 # expanded by the user's bash
		asuser 'exec python3 -c "$2" "$1" "$3"' esc "$path" "$sock_code" "$ready" >/dev/null 2>&1 &
	fi
	bgpids+=($!)
	for _ in $(seq 50); do [ -s "$ready" ] && break; sleep 0.1; done
	[ -s "$ready" ] && sock_pids+=("$(cat "$ready")")
	# shellcheck disable=SC2016 # expanded by the user's bash
	ctl=$(asuser 'python3 .esc/sockconn.py "$1"' esc "$path" 2>&1)
	[[ $ctl == connected* ]]
}
# sock_jail HOW ARGS…: the client (the script .esc/cmd) in one of the three jails.
sock_jail() {
	local how=$1
	shift
	case $how in
	worker) jrun user -- jail-worker "$@" sh .esc/cmd ;;
	lockdown) jrun user -- jail --jail-mode=lockdown "$@" sh .esc/cmd ;;
	npm) jrun user PATH="$P/fakebin:/usr/bin:/bin" -- jail-npm "$@" ;;
	esac
}
# sock_case NAME PATH ARGS…: PATH must be unreachable from every jail.
sock_case() {
	local name=$1 path=$2 how bad='' seen=''
	shift 2
	esc_cmd "exec python3 $P/.esc/sockconn.py $(q "$path")"
	for how in worker lockdown npm; do
		sock_jail "$how" "$@"
		if [[ $OUT == *connected* ]]; then
			bad+=" $how"
		elif [ "$RC" != 0 ] || ! [[ $OUT =~ ^E[A-Z]+\  ]]; then
			fail "$name" "$how: exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR")"
			return
		fi
		seen+=" $how:${OUT%% *}"
	done
	if [ -n "$bad" ]; then
		fail "$name" "connected to the host's $path from:$bad"
	else
		pass "$name" "${seen# }"
	fi
}

# (a) systemd-resolved's Varlink socket beside the resolv.conf the jail
# needs: the folder was bound, so a jail without network asked the host to
# resolve any name.  As root only (the listener goes into /run).
if c sock-resolver; then
	if [ $as_root -eq 0 ]; then
		skip sock-resolver "not root: cannot make a stand-in in /run/systemd/resolve"
	else
		rdir=/run/systemd/resolve
		for d in /run/systemd "$rdir"; do
			[ -d "$d" ] || { mkdir "$d" && sock_made=("$d" "${sock_made[@]}"); }
		done
		rsock=$rdir/io.systemd.Resolve
		# A real systemd-resolved owns the name: another one beside it.
		[ -e "$rsock" ] && rsock=$rdir/io.aijail-esc-$tag
		if [ ! -e "$rdir/stub-resolv.conf" ]; then
			printf 'nameserver 127.0.0.53\n' >"$rdir/stub-resolv.conf"
			made+=("$rdir/stub-resolv.conf")
		fi
		made+=("$rsock")
		if ! sock_listen "$rsock" root; then
			skip sock-resolver "the stand-in resolver at $rsock does not answer from outside"
		else
			sock_case sock-resolver "$rsock"
			# The file the jail needs is still there.
			esc_cmd "cat $rdir/stub-resolv.conf"
			sock_jail worker
			if [ "$RC" != 0 ] || [[ $OUT != *nameserver* ]]; then
				fail sock-resolver-file "$rdir/stub-resolv.conf inside: exit $RC, $(q "$OUT")"
			else
				pass sock-resolver-file "stub-resolv.conf readable inside"
			fi
		fi
	fi
fi

# (b) a cache a profile binds read-write (jail-npm's ~/.npm): not walked.
if c sock-cache; then
	cdir=$thome/.npm/_aijail-esc-$tag
	[ -d "$thome/.npm" ] || { mkdir "$thome/.npm" && chown "$tuid:$tgid" "$thome/.npm" && sock_made+=("$thome/.npm"); }
	mkdir -p "$cdir" && chown "$tuid:$tgid" "$cdir"
	sock_made=("$cdir" "${sock_made[@]}")
	made+=("$cdir/s.sock")
	if ! sock_listen "$cdir/s.sock" user; then
		skip sock-cache "the listener in $cdir does not answer from outside"
	else
		sock_case sock-cache "$cdir/s.sock"
	fi
fi

# (c) below the top of an --ro map (only the top was covered).
if c sock-map-deep; then
	mkdir -p "$T/smap/a/b" && chown -R "$tuid:$tgid" "$T/smap"
	if ! sock_listen "$T/smap/a/b/s.sock" user; then
		skip sock-map-deep "the listener in $T/smap/a/b does not answer from outside"
	else
		sock_case sock-map-deep "$T/smap/a/b/s.sock" --jail-ro="$T/smap"
	fi
fi

# (d) made on the host during the run, in the project (a folder every jail
# sees): the jail waits for the go mark, then connects.  Unreachable where
# Landlock has resolve_unix (ABI 9); below it, reachable by design, and
# --jail-explain must say so for the project's folder.
if c sock-during-run; then
	mkdir -p "$P/late" && chown "$tuid:$tgid" "$P/late"
	jrun user -- jail-worker --jail-explain=json sh
	by=$(printf '%s' "$OUT" | python3 -c 'import json,sys
try: print(json.load(sys.stdin)["sockets"]["by"])
except Exception: print("")')
	esc_cmd "echo waiting; i=0; while [ ! -e $P/late/go ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i+1)); done; exec python3 $P/.esc/sockconn.py $P/late/s.sock"
	bad='' seen='' err=''
	for how in worker lockdown npm; do
		rm -f "$P/late/go" "$P/late/s.sock" "$T/out/stdout"
		(sock_jail "$how") &
		jp=$!
		for _ in $(seq 100); do grep -q waiting "$T/out/stdout" 2>/dev/null && break; sleep 0.1; done
		if ! sock_listen "$P/late/s.sock" user; then
			err="the listener in $P/late does not answer from outside"
		fi
		touch "$P/late/go"
		wait "$jp"
		o=$(cat "$T/out/stdout")
		[[ $o == *connected* ]] && bad+=" $how"
		seen+=" $how:$(printf '%s\n' "$o" | tail -n 1 | cut -d' ' -f1)"
		kill "${sock_pids[@]}" 2>/dev/null
		sock_pids=()
	done
	jrun user -- jail-worker --jail-explain sh
	notcov=$(printf '%s\n' "$OUT" | grep -F 'not covered:')
	if [ -n "$err" ]; then
		skip sock-during-run "$err"
	elif [ "$by" = landlock ]; then
		if [ -n "$bad" ]; then fail sock-during-run "Landlock ABI 9: connected from:$bad"; else
			pass sock-during-run "${seen# }"
		fi
	elif [ "$by" != covers ]; then
		fail sock-during-run "--jail-explain=json has no sockets.by (covers or landlock): $(q "$by")"
	elif [[ " $notcov " != *" $P "* ]]; then
		fail sock-during-run "reachable from:${bad:- none}, and --jail-explain does not name $P as a folder where a socket made during the run stays reachable: $(q "$notcov")"
	else
		pass sock-during-run "below Landlock ABI 9 reachable by design from:${bad:- none} (${seen# }); --jail-explain names $P"
	fi
	rm -rf "$P/late"
fi

# The listeners (what they made outside $T goes with the EXIT trap).
if [ ${#sock_pids[@]} -gt 0 ]; then kill "${sock_pids[@]}" 2>/dev/null; fi

# --- ident-*: checks by identity, not by name -------------------------------------------

# A tree of the test user's under $T/ident: a $HOME whose .cache is a
# link to a folder elsewhere (as a user with a full home partition has it).
ident_home() {
	I=$T/ident
	[ -d "$I" ] && return 0
	mkdir -p "$I/home" "$I/data/cache/huggingface" "$I/outside"
	ln -s "$I/data/cache" "$I/home/.cache"
	ln -s "$P" "$I/plink"
	chown -R -h "$tuid:$tgid" "$I"
}
# FORGE: what a jailed python appends to a file below ~/.cache/huggingface.
FORGE='import os, sys
p = os.path.expanduser("~/.cache/huggingface/" + sys.argv[1])
with open(p, "a") as f:
    f.write("{\"kind\":\"call\",\"forged\":true}\n")
print("wrote", p)'

# (a) --jail-log inside a writable cache reached through a link on the way
# (~/.cache -> elsewhere): the log's real path and the plan's text differ,
# the mount is the same folder.  Refused, else the jail forges refusals.
if c ident-cache-link; then
	ident_home
	log=$I/data/cache/huggingface/refusals.jsonl
	rm -f "$log"
	jrun user HOME="$I/home" -- jail-python --jail-log="$log" -c "$FORGE" refusals.jsonl
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to open the refusal log"*"the jail can write there"*"huggingface"* ]]; then
		pass ident-cache-link "exit 125: $(printf %s "$ERR" | head -n 1 | cut -c1-120)"
	elif [ -s "$log" ] && grep -q forged "$log"; then
		fail ident-cache-link "the log was taken, and the jail wrote a forged line into it (exit $RC)"
	else
		fail ident-cache-link "exit status $RC (expected 125 naming the writable mount)"
	fi
	rm -f "$log"
fi

# (a2) --jail-log in the project named through a second mount of it (a
# bind made in a user and mount namespace of the test's own, where the
# stub then runs): the kernel's name for the log is not the project's.
if c ident-log-bind; then
	ident_home
	mkdir -p "$I/pbind"
	chown "$tuid:$tgid" "$I/pbind"
	rm -f "$P/forged.jsonl"
	bind_sh="mount --bind '$P' '$I/pbind' && exec unshare -U --map-user=$tuid --map-group=$tgid -- \
		'$bin/jail-worker' --jail-log='$I/pbind/forged.jsonl' sh -c 'echo forged >>forged.jsonl'"
	if ! asuser "unshare -Urm true && unshare -Urm sh -c 'exec unshare -U --map-user=$tuid --map-group=$tgid true'" >/dev/null 2>&1; then
		skip ident-log-bind "unshare -Urm with --map-user does not work here: no second mount to name the log through"
	else
		(cd "$P" && exec timeout -k 5 "$tmo" "${asuser_pre[@]}" unshare -Urm sh -c "$bind_sh") \
			>"$T/out/stdout" 2>"$T/out/stderr" </dev/null
		RC=$?
		ERR=$(head -c 4000 "$T/out/stderr")
		if [ "$RC" = 125 ] && [[ $ERR == *"unable to open the refusal log"*"the jail can write there"* ]]; then
			pass ident-log-bind "exit 125"
		elif grep -q forged "$P/forged.jsonl" 2>/dev/null; then
			fail ident-log-bind "the log, named through a bind of the project, was taken and forged (exit $RC)"
		else
			fail ident-log-bind "exit status $RC (expected 125: the jail can write there)"
		fi
	fi
	rm -f "$P/forged.jsonl"
fi

# (b) The same log named through the cache's link itself, and one with a
# second name (a hard link) in the writable cache.
if c ident-log-hardlink; then
	ident_home
	log=$I/outside/refusals.jsonl
	rm -f "$log" "$I/data/cache/huggingface/alias.jsonl"
	asuser ": >'$log' && ln '$log' '$I/data/cache/huggingface/alias.jsonl'"
	jrun user HOME="$I/home" -- jail-python --jail-log="$log" -c "$FORGE" alias.jsonl
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to open the refusal log"*"other names"* ]]; then
		pass ident-log-hardlink "exit 125"
	elif grep -q forged "$log" 2>/dev/null; then
		fail ident-log-hardlink "the log was taken, and the jail wrote a forged line through its second name (exit $RC)"
	else
		fail ident-log-hardlink "exit status $RC (expected 125: the file has other names)"
	fi
	rm -f "$log" "$I/data/cache/huggingface/alias.jsonl"
fi

# (c) A tool's name found through PATH in the project reached by a link
# (PATH=<link to the project>/fakebin): the project's file, whatever the
# spelling, gets no tool's profile (the npm group has the network).
if c ident-project-link; then
	ident_home
	jrun user PATH="$I/plink/fakebin:/usr/bin:/bin" -- jail --jail-explain npm
	cgrp=$(printf '%s\n' "$OUT" | sed -n 's/^command: *//p')
	if [ "$RC" != 0 ] || [ -z "$cgrp" ]; then
		fail ident-project-link "jail --jail-explain npm: exit $RC, no command line"
	elif [[ $cgrp == *"group npm"* ]]; then
		fail ident-project-link "the project's fakebin/npm, through the link $I/plink, got $(q "$cgrp")"
	else
		pass ident-project-link "$cgrp"
	fi
fi

# (c2) A policy's source whose way goes through a link of the user's
# written upwards (~/.cache -> ../../proj/dotcache), into the project,
# where a jail planted dotcache -> elsewhere: a link in the project is
# never trusted, whatever the text of the way says.
if c ident-link-upward; then
	ident_home
	mkdir -p "$I/h2" "$I/victim/huggingface" "$I/victim/torch"
	ln -sfn ../../proj/dotcache "$I/h2/.cache"
	chown -R -h "$tuid:$tgid" "$I/h2" "$I/victim"
	asuser "ln -sfn '$I/victim' '$P/dotcache'"
	rm -f "$I/victim/huggingface/planted"
	jrun user HOME="$I/h2" -- jail-python -c 'import os; open(os.path.expanduser("~/.cache/huggingface/planted"), "w").write("x"); print("wrote")'
	if [ -e "$I/victim/huggingface/planted" ]; then
		fail ident-link-upward "the jail wrote into $I/victim, where the project's link dotcache led (exit $RC)"
	elif [ "$RC" = 125 ] && [[ $ERR == *"symlink"* ]]; then
		pass ident-link-upward "exit 125"
	else
		fail ident-link-upward "exit status $RC (expected 125: a symlink on the way could have been made by a jailed process)"
	fi
	rm -f "$P/dotcache" "$I/victim/huggingface/planted"
fi

# (c3) The project inside a writable cache's real place, the cache named
# through a link (~/.cache -> data/cache, the project
# data/cache/huggingface/proj): the cache's mount showed the project bare,
# its .env unmasked, at ~/.cache/huggingface/proj.  Refused, or masked
# there too; never the secret.
if c ident-project-in-cache; then
	ident_home
	ip=$I/data/cache/huggingface/proj
	mkdir -p "$ip"
	printf 'SECRET=%s\n' "$ENVSECRET" >"$ip/.env"
	chown -R "$tuid:$tgid" "$ip"
	CWD=$ip jrun user HOME="$I/home" -- jail-python -c 'import os
for p in (".env", os.path.expanduser("~/.cache/huggingface/proj/.env")):
    try:
        print(p, open(p).read().strip())
    except OSError as e:
        print(p, type(e).__name__)'
	if [[ $OUT == *"$ENVSECRET"* ]]; then
		fail ident-project-in-cache "the masked .env was read through the cache's mount (exit $RC): $(q "$OUT")"
	elif [ "$RC" = 125 ] && [[ $ERR == *"the project is inside it under another name"* ]]; then
		pass ident-project-in-cache "exit 125"
	elif [ "$RC" = 0 ]; then
		pass ident-project-in-cache "masked both ways: $(q "$OUT")"
	else
		fail ident-project-in-cache "exit status $RC"
	fi
	rm -rf "$ip"
fi

# (d) A map of $HOME through another name: $HOME is a link, the map its
# target.  Refused like a map of $HOME.
if c ident-map-home; then
	ident_home
	mkdir -p "$I/realhome"
	[ -L "$I/linkhome" ] || ln -s "$I/realhome" "$I/linkhome"
	chown -h "$tuid:$tgid" "$I/realhome" "$I/linkhome"
	jrun user HOME="$I/linkhome" -- jail --jail-ro="$I/realhome" true
	if [ "$RC" = 125 ] && [[ $ERR == *"home directory"* ]]; then
		pass ident-map-home "exit 125"
	else
		fail ident-map-home "jail --jail-ro=<the real \$HOME>: exit status $RC (expected 125: it is your home directory)"
	fi
fi

# --- nothing left behind -----------------------------------------------------------------------

# --- many-*: past what the walk can check, the jail denies and starts --------
# Each builds its own project (a folder of $T owned by the test user), runs
# jail-worker in it, and checks that it starts (exit 0) and that no secret's
# content shows.  Before, each of these refused every launch (exit 125).
# many_run NAME DIR MARK CMD: jail-worker CMD in DIR; passes when it exits
# 0, MARK never shows, and stdout ends with "ok".
many_run() {
	local name=$1 dir=$2 mark=$3
	shift 3
	chown -R "$tuid:$tgid" "$dir"
	CWD=$dir jrun user -- jail-worker sh -c "$1"
	if [[ $OUT == *"$mark"* ]]; then
		fail "$name" "a secret's content was read: $(q "${OUT:0:200}")"
	elif [ "$RC" = 0 ] && [[ $OUT == *ok ]]; then
		pass "$name" "started; $(printf '%s' "$ERR" | head -n 1 | cut -c1-160)"
	else
		fail "$name" "exit status $RC, stderr $(q "$(printf '%s' "$ERR" | head -c 300)")"
	fi
}

if c many-secrets; then
	d=$T/many-secrets
	mkdir -p "$d/certs/sub"
	m="MANYSECRET-$tag"
	(cd "$d/certs" && for i in $(seq 2500); do
		printf '%s\n' "$m" >"c$i.pem"
		printf '%s\n' "$m" >"c$i.key"
	done)
	printf 'plain\n' >"$d/certs/README"
	printf '%s\n' "$m" >"$d/certs/sub/.env"
	# a smaller folder: its covers stand in, present and empty or denied
	mkdir -p "$d/keys"
	(cd "$d/keys" && for i in $(seq 100); do
		printf '%s\n' "$m" >"k$i.pem"
		printf '%s\n' "$m" >"k$i.key"
	done)
	printf 'plain\n' >"$d/keys/README"
	many_run many-secrets "$d" "$m" 'cat certs/c1.pem certs/c2500.pem certs/sub/.env keys/k1.pem 2>&1; cat certs/c1.key certs/c77.key keys/k9.key 2>/dev/null; grep -rh MANYSECRET . 2>/dev/null; [ "$(ls keys | wc -l)" = 201 ] && [ -f keys/k1.pem ] && [ ! -s keys/k1.pem ] && ! cat keys/k1.key 2>/dev/null && [ "$(ls certs | wc -l)" -le 5002 ] && grep -q plain certs/README && grep -q plain keys/README && echo ok'
fi

if c many-deep; then
	d=$T/many-deep
	m="DEEPSECRET-$tag"
	p=$d
	for i in $(seq 40); do p=$p/d$i; done
	mkdir -p "$p"
	printf '%s\n' "$m" >"$p/data.txt"
	printf 'plain\n' >"$d/top.txt"
	many_run many-deep "$d" "$m" 'grep -rh DEEPSECRET . 2>/dev/null; cat d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/d14/d15/d16/d17/d18/d19/d20/d21/d22/d23/d24/d25/d26/d27/d28/d29/d30/d31/d32/d33/d34/d35/d36/d37/d38/d39/d40/data.txt 2>/dev/null; grep -q plain top.txt && echo ok'
fi

if c many-longpath; then
	d=$T/many-longpath
	m="LONGSECRET-$tag"
	mkdir -p "$d"
	n=$(printf 'x%.0s' $(seq 250))
	# 20 components of 250 characters: 5,000 and more, past PATH_MAX
	(cd "$d" && for _ in $(seq 20); do mkdir "$n" && cd "$n" || exit 1; done && printf '%s\n' "$m" >data.txt)
	printf 'plain\n' >"$d/top.txt"
	many_run many-longpath "$d" "$m" 'grep -rh LONGSECRET . 2>/dev/null; (for i in $(seq 20); do cd x* 2>/dev/null || break; done; cat data.txt 2>/dev/null); grep -q plain top.txt && echo ok'
fi

if c many-links; then
	d=$T/many-links
	m="LINKSECRET-$tag"
	mkdir -p "$d/other"
	printf '%s\n' "$m" >"$d/k0.pem"
	for i in $(seq 39); do ln "$d/k0.pem" "$d/k$i.pem"; done
	ln "$d/k0.pem" "$d/harmless.txt"
	ln "$d/k0.pem" "$d/other/notes"
	printf 'plain\n' >"$d/top.txt"
	many_run many-links "$d" "$m" 'cat k0.pem k39.pem harmless.txt other/notes 2>/dev/null; grep -rh LINKSECRET . 2>/dev/null; grep -q plain top.txt && echo ok'
fi

# A folder the jail covers whole, its denied files known to the walk by
# their listing alone (stub/scan/walk.c): their other hard links are
# still denied, in the folder itself and in folders listed before and
# after it, and under the project's top.
if c many-keys-links; then
	d=$T/many-keys-links
	m="KEYLINK-$tag"
	mkdir -p "$d/keys" "$d/a" "$d/z"
	(cd "$d/keys" && for i in $(seq 300); do printf '%s\n' "$m" >"k$i.key"; done)
	printf 'plain\n' >"$d/keys/README"
	ln "$d/keys/k1.key" "$d/keys/aa.txt"
	ln "$d/keys/k2.key" "$d/a/notes.txt"
	ln "$d/keys/k3.key" "$d/z/notes.txt"
	ln "$d/keys/k300.key" "$d/top.txt"
	printf 'plain\n' >"$d/plain.txt"
	many_run many-keys-links "$d" "$m" 'cat keys/aa.txt a/notes.txt z/notes.txt top.txt keys/k1.key keys/k300.key 2>/dev/null; grep -rh KEYLINK . 2>/dev/null; grep -q plain plain.txt && grep -q plain keys/README && echo ok'
fi

if c no-leftovers; then
	leftovers_wait 20
	ERR=
	if [ ${#left[@]} -eq 0 ] && [ ${#left_blind[@]} -eq 0 ]; then pass no-leftovers; else
		fail no-leftovers "$left_why"
		leftovers_kill
	fi
fi

echo "escape: $npass passed, $nfail failed, $nskip skipped in $((SECONDS - SUITE_START)) s"
if [ $nfail -gt 0 ]; then
	echo "failed: ${failed[*]}"
	exit 1
fi
exit 0
