# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# modes.sh: modes, their floor, the toggles and the generic jail's options.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.
#
# The toggle cases need root: they make stand-ins for what a desktop or a
# GPU host has, and remove them again (cleanup in run.sh, also on failure):
#   /dev/nvidia0, /dev/nvidiactl, /dev/dri/renderD128  character devices
#       1:3 (what /dev/null is), made only where the host has none;
#   /tmp/.X11-unix/X<n>, $XDG_RUNTIME_DIR/wayland-aj, a Docker socket: Unix
#       sockets a small python server answers "ok" on.
# The jails themselves run as the test user.  The stand-ins are the
# host's: concurrent runs take turns (flock), so that none sees another's.

standins_lock=/tmp/aijail-it-standins.lock

# as_user COMMAND…: a host command as the test user (to make fixtures in
# its home; workloads.sh uses it too).
as_user() {
	if [ $as_root -eq 1 ]; then
		setpriv --reuid="$tuser" --regid="$tuser" --init-groups "$@"
	else
		"$@"
	fi
}

# standins_take [-s]: wait for the stand-ins' turn (shared: only looking).
standins_take() {
	[ $as_root -eq 1 ] && : >>"$standins_lock"
	lockfd=
	[ -r "$standins_lock" ] || return 0
	exec {lockfd}<"$standins_lock"
	flock "$@" -w 300 "$lockfd"
}

standins_give() {
	[ -n "$lockfd" ] && exec {lockfd}<&-
	lockfd=
}

# --- the mode floor: a jail inside a jail is never weaker -----------------------------

cp "$bin/jail" "$P/tools/jail"
chown "$tuid:$tgid" "$P/tools/jail"

# The filter refuses new namespaces inside a jail: a nested stub stops
# (125) and says why, rather than with a hint about sysctls.
if c nested-refused; then
	jrun user -- jail-worker ./tools/jail-worker true
	if [ "$RC" = 125 ] && [[ $ERR == *"jails do not nest"* ]]; then pass nested-refused; else
		fail nested-refused "exit status $RC, expected 125 and 'jails do not nest'"
	fi
fi

# The floor holds before any namespace is tried: an explicit weaker mode
# is refused...
if c floor-refuses-weaker; then
	jrun user -- jail-worker ./tools/jail --jail-mode=normal true
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to use the mode normal"*"worker lockdown"* ]]; then
		pass floor-refuses-weaker
	else
		fail floor-refuses-weaker "exit status $RC, expected 125 naming the modes allowed"
	fi
fi

if c floor-refuses-weaker-lockdown; then
	jrun user -- jail --lockdown ./tools/jail --worker true
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to use the mode worker"* ]]; then
		pass floor-refuses-weaker-lockdown
	else
		fail floor-refuses-weaker-lockdown "exit status $RC, expected 125"
	fi
fi

# ...and an automatic one is raised to it, even with AIJAIL_MODE cleared.
# (Explain exits 125 there: jails do not nest, so none can be built.)
if c floor-raises-automatic; then
	jrun user -- jail-worker env -u AIJAIL_MODE ./tools/jail --jail-explain true
	if [ "$RC" = 125 ] && [[ $OUT == *"mode:      worker (the floor of the jail this runs in)"* ]] &&
		[[ $OUT == *"NOT available here: this runs inside a jail"* ]] &&
		[[ $OUT == *"inside:    a jail in mode worker"* ]]; then
		pass floor-raises-automatic
	else
		fail floor-raises-automatic "exit status $RC, stdout $(q "$(printf '%s\n' "$OUT" | sed -n 3,4p)")"
	fi
fi

# The floor lives in the jail's UTS namespace, out of the target's reach.
if c floor-sealed; then
	jrun user -- jail-worker sh -c 'echo aijail:normal > /proc/sys/kernel/domainname 2>/dev/null; domainname 2>/dev/null || cat /proc/sys/kernel/domainname; echo "$AIJAIL_MODE"'
	expect floor-sealed 0 "aijail:worker
worker"
fi

# --- choosing the mode ------------------------------------------------------------------

# An option wins over the environment; AIJAIL_MODE chooses when no option does.
if c mode-option-wins; then
	jrun user HERMES_KANBAN_TASK=1 -- jail --jail-mode=normal sh -c 'echo "$AIJAIL_MODE"'
	expect mode-option-wins 0 normal
fi

if c mode-aijail-mode; then
	jrun user AIJAIL_MODE=lockdown -- jail sh -c 'echo "$AIJAIL_MODE"'
	expect mode-aijail-mode 0 lockdown
fi

# Asked for by several, the strongest wins.
if c mode-strongest-automatic; then
	jrun user AIJAIL_MODE=normal HERMES_KANBAN_TASK=1 -- jail sh -c 'echo "$AIJAIL_MODE"'
	expect mode-strongest-automatic 0 worker
fi

# A trigger that is set counts, even empty; an empty AIJAIL_MODE names no mode.
if c mode-trigger-empty; then
	jrun user HERMES_KANBAN_TASK= -- jail sh -c 'echo "$AIJAIL_MODE"'
	expect mode-trigger-empty 0 worker
fi

if c mode-aijail-mode-empty; then
	jrun user AIJAIL_MODE= -- jail true
	if [ "$RC" = 125 ] && [[ $ERR == *"AIJAIL_MODE is set but empty"* ]]; then
		pass mode-aijail-mode-empty
	else
		fail mode-aijail-mode-empty "exit status $RC, expected 125"
	fi
fi

if c mode-unknown; then
	jrun user -- jail --jail-mode=lockdwn true
	if [ "$RC" = 125 ] && [[ $ERR == *"no such mode"*"normal worker lockdown"* ]]; then pass mode-unknown; else
		fail mode-unknown "exit status $RC, expected 125 listing the modes"
	fi
fi

# --- lockdown's environment --------------------------------------------------------------

if c lockdown-env; then
	jrun user HF_TOKEN=hf_x HF_HOME=/hf GITHUB_TOKEN=gh_x -- jail-python --jail-mode=lockdown -c \
		'import os; print(sorted(k for k in os.environ if k.endswith("TOKEN") or k.startswith("HF_")))'
	expect lockdown-env 0 "[]"
fi

# Lockdown still reads the caches (a model loads offline) but writes none.
if c lockdown-cache-ro; then
	as_user mkdir -p "$thome/.cache/huggingface"
	as_user sh -c "printf 'WEIGHTS' >'$thome/.cache/huggingface/aijail-it-ro'"
	jrun user -- jail-python --jail-mode=lockdown -c 'import sys, errno
print(open(sys.argv[1]).read())
try:
    open(sys.argv[2], "w")
    print("written")
except OSError as e:
    print(errno.errorcode[e.errno])' "$thome/.cache/huggingface/aijail-it-ro" "$thome/.cache/huggingface/aijail-it-new"
	rm -f "$thome/.cache/huggingface/aijail-it-ro" "$thome/.cache/huggingface/aijail-it-new"
	expect lockdown-cache-ro 0 "WEIGHTS
EROFS"
fi

if c normal-env-tool; then
	jrun user HF_TOKEN=hf_x HF_HOME=/hf -- jail-python -c \
		'import os; print(sorted(k for k in os.environ if k.startswith("HF_")))'
	expect normal-env-tool 0 "['HF_HOME', 'HF_TOKEN']"
fi

# --- the generic jail's options --------------------------------------------------------------

ex=$T/extra
mkdir -p "$ex/ro" "$ex/rw" "$ex/hidden"
printf 'READ-ME' >"$ex/ro/f"
printf 'HIDDEN' >"$ex/hidden/f"
ln -s /etc "$ex/to-etc"
chown -R "$tuid:$tgid" "$ex"

if c opt-ro; then
	jrun user -- jail --ro "$ex/ro" python3 -c "$PYREAD" "$ex/ro/f" "$ex/hidden/f"
	out1=$OUT
	jrun user -- jail --ro "$ex/ro" python3 -c "$PYWRITE" "$ex/ro/g" x
	if [ "$out1" = "'READ-ME'
ENOENT" ] && [ "$RC" = 0 ] && { [ "$OUT" = EROFS ] || [ "$OUT" = EACCES ]; } && [ ! -e "$ex/ro/g" ]; then
		pass opt-ro
	else
		fail opt-ro "read $(q "$out1"), write $(q "$OUT") (expected the file, ENOENT, then EROFS)"
	fi
fi

if c opt-rw; then
	rm -f "$ex/rw/g"
	jrun user -- jail --rw "$ex/rw" --timeout 20 sh -c "echo written > '$ex/rw/g'"
	if [ "$RC" = 0 ] && [ "$(cat "$ex/rw/g" 2>/dev/null)" = written ] &&
		[ "$(stat -c %u "$ex/rw/g")" = "$tuid" ]; then
		pass opt-rw
	else
		fail opt-rw "exit status $RC; $ex/rw/g not written by uid $tuid"
	fi
fi

# The --jail-* spellings work in a per-tool stub; the bare ones are the
# tool's own arguments there.
if c opt-jail-ro-per-tool; then
	jrun user -- jail-python "--jail-ro=$ex/ro" -c "$PYREAD" "$ex/ro/f"
	expect opt-jail-ro-per-tool 0 "'READ-ME'"
fi

if c opt-no-collision; then
	jrun user -- jail-python --ro "$ex/ro"
	if [ "$RC" = 2 ] && [[ $ERR == *"python"*"--ro"* || $ERR == *"Unknown option"* || $ERR == *"unknown option"* ]]; then
		pass opt-no-collision
	else
		fail opt-no-collision "exit status $RC: python3 should have had --ro as its own (unknown) option"
	fi
fi

if c opt-explain-shows-maps; then
	jrun user -- jail --ro "$ex/ro" --rw "$ex/rw" --no-net --jail-explain python3
	if [ "$RC" = 0 ] && [[ $OUT == *"$ex/ro	(--ro)"* ]] && [[ $OUT == *"$ex/rw	(--rw)"* ]] &&
		[[ $OUT == *"network:   none"*"(--no-net)"* ]]; then
		pass opt-explain-shows-maps
	else
		fail opt-explain-shows-maps "exit status $RC; maps or network not in --jail-explain"
	fi
fi

# Refused: "/", $HOME and its parents, system directories (also through a
# symlink), sockets; --rw and --net in lockdown.
refusals=(
	"--ro /"
	"--rw $thome"
	"--ro $(dirname "$thome")"
	"--rw /usr"
	"--ro /etc/ssl"
	"--rw /proc/self"
	"--rw /tmp"
	"--ro /run"
	"--rw $ex/to-etc"
	"--ro relative/path"
	"--ro $ex/missing"
	"--lockdown --rw $ex/rw"
	"--lockdown --net"
)
if c opt-refused; then
	bad=
	for r in "${refusals[@]}"; do
		# shellcheck disable=SC2086 # the options are split on purpose
		jrun user -- jail $r true
		if [ "$RC" != 125 ] || [[ $ERR != *"fatal: unable to"* ]]; then
			bad="$bad [$r: $RC $(q "$ERR")]"
		fi
	done
	ERR=
	if [ -z "$bad" ]; then pass opt-refused; else fail opt-refused "accepted or unclear:$bad"; fi
fi

if c opt-timeout; then
	jrun user -- jail --timeout 1 sleep 30
	if [ "$RC" = 124 ] && [ "$SECS" -lt 10 ]; then pass opt-timeout; else
		fail opt-timeout "exit status $RC after ${SECS}s, expected 124"
	fi
fi

if c opt-unknown; then
	jrun user -- jail --frobnicate true
	if [ "$RC" = 125 ] && [[ $ERR == *"unknown option: --frobnicate"* ]]; then pass opt-unknown; else
		fail opt-unknown "exit status $RC, stderr $(q "$ERR")"
	fi
fi

# One table drives the options (stub/options.c): every option --jail-help
# lists is parsed (not "unknown option") and is in jail(1); the generic
# jail's --NAME VALUE spelling reads the value the table says it takes.
if c opt-table; then
	jrun user -- jail --jail-help
	names=$(grep -o '^  --jail-[a-z-]*' <<<"$OUT" | sed 's/^  --jail-//' | sort -u)
	bad=
	[ -n "$names" ] || bad="no option in --jail-help"
	for n in $names; do
		[ "$n" = T ] && continue
		grep -qF -- "\\-\\-jail\\-${n//-/\\-}" "$root/docs/man/jail.1" || bad+=" $n:not-in-jail.1"
		jrun user -- jail "--jail-$n" true
		[[ $ERR == *"unknown option"* ]] && bad+=" $n:unknown"
	done
	jrun user -- jail --timeout 7 --jail-explain=json true
	[[ $OUT == *'"timeout":7'* ]] || bad+=" --timeout-7:$(q "${OUT:0:80}")"
	if [ -z "$bad" ]; then pass opt-table; else fail opt-table "$bad"; fi
fi

# --- caches: created when missing, owned by the caller -------------------------------------

if c cache-created-user; then
	rm -rf "$thome/.cache/torch"
	jrun user -- jail-python -c 'print(1)'
	if [ "$RC" = 0 ] && [ -d "$thome/.cache/torch" ] && [ "$(stat -c %u "$thome/.cache/torch")" = "$tuid" ]; then
		pass cache-created-user
	else
		fail cache-created-user "exit status $RC; $thome/.cache/torch missing or not owned by $tuid"
	fi
fi

if c cache-created-root; then
	if [ $as_root -eq 1 ]; then
		rm -rf "$T/root-home/.npm"
		jrun root -- jail-npm --version
		if [ "$RC" = 0 ] && [ -d "$T/root-home/.npm" ] && [ "$(stat -c %u "$T/root-home/.npm")" = 0 ]; then
			pass cache-created-root
		else
			fail cache-created-root "exit status $RC; $T/root-home/.npm missing or not owned by root"
		fi
	else
		skip cache-created-root "not running as root"
	fi
fi

# --- toggles --------------------------------------------------------------------------------

# No GPU node on this host: no GPU /sys either (it comes only with a node).
if c gpu-sys-needs-node; then
	standins_take -s
	gpu_host=0
	for n in /dev/nvidiactl /dev/nvidia[0-9]* /dev/dri /dev/kfd; do [ -e "$n" ] && gpu_host=1; done
	if [ $gpu_host = 0 ]; then
		jrun user -- jail python3 -c 'import os; print(os.path.exists("/sys"))'
		expect gpu-sys-needs-node 0 False
	else
		skip gpu-sys-needs-node "this host has GPU nodes"
	fi
	standins_give
fi

# TGPY: one line per thing a toggle brings, as seen from inside.
TGPY='import os, socket, sys, errno
def conn(p):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(p)
        d = s.recv(8).decode()
        s.close()
        return d or "empty"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
def ls(p):
    try:
        return ",".join(sorted(os.listdir(p)))
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
def cat(p):
    try:
        d = open(p, "rb").read()
        return "COOKIE" if b"MIT-MAGIC-COOKIE-1" in d else repr(d)
    except (OSError, TypeError) as e:
        return "none"
x11, wayland, docker, xdg = sys.argv[1:5]
for n in ("nvidia0", "nvidiactl", "dri/renderD128"):
    print(n, os.path.exists("/dev/" + n))
print("sys", os.path.exists("/sys/devices"))
print("x11", conn(x11))
print("wayland", conn(wayland))
print("xdg", ls(xdg))
print("xauth", cat(os.environ.get("XAUTHORITY")))
print("docker", conn(docker))
for v in ("CUDA_VISIBLE_DEVICES", "DISPLAY", "WAYLAND_DISPLAY", "DOCKER_HOST"):
    print(v, os.environ.get(v, "unset"))'

toggle_cases="toggles-normal toggles-docker-cli toggles-worker toggles-worker-docker-cli
	toggles-jail-worker-normal toggles-explain-worker toggles-explain-docker"
want_toggles=0
for n in $toggle_cases; do c "$n" && want_toggles=1; done
if [ $want_toggles = 1 ] && [ $as_root -eq 0 ]; then
	skip toggles "not running as root: the stand-in devices and sockets need it"
elif [ $want_toggles = 1 ]; then
	standins_take
	# Stand-ins, each recorded for cleanup before it is made.
	for n in nvidia0 nvidiactl; do
		if [ ! -e "/dev/$n" ]; then
			outside+=("/dev/$n")
			mknod -m 0666 "/dev/$n" c 1 3
		fi
	done
	if [ ! -e /dev/dri ]; then
		outside+=(/dev/dri)
		mkdir /dev/dri
	fi
	if [ ! -e /dev/dri/renderD128 ]; then
		outside+=(/dev/dri/renderD128)
		mknod -m 0666 /dev/dri/renderD128 c 1 3
	fi
	if [ ! -d /tmp/.X11-unix ]; then
		outside+=(/tmp/.X11-unix)
		mkdir -m 1777 /tmp/.X11-unix
	fi
	dn=99
	while [ -e "/tmp/.X11-unix/X$dn" ]; do dn=$((dn + 1)); done
	x11=/tmp/.X11-unix/X$dn
	outside+=("$x11")
	xdg=$T/xdg
	mkdir -p "$xdg"
	printf 'not for the jail' >"$xdg/other-secret"
	# An X authority file in its own format (stub/variant/resolve.c takes nothing else):
	# family local, address, display number, MIT-MAGIC-COOKIE-1, 16 bytes.
	$py -c 'import struct, sys
f = lambda b: struct.pack(">H", len(b)) + b
open(sys.argv[1], "wb").write(struct.pack(">H", 256) + f(b"jail") + f(b"99")
                              + f(b"MIT-MAGIC-COOKIE-1") + f(bytes(range(16))))' "$T/xauth"
	dsock=$T/docker.sock
	chown -R "$tuid:$tgid" "$xdg" "$T/xauth"
	chmod 0700 "$xdg"
	$py -c 'import os, socket, sys, select
ss = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    os.chmod(p, 0o777)
    s.listen(8)
    ss.append(s)
while True:
    for s in select.select(ss, [], [])[0]:
        c, _ = s.accept()
        c.sendall(b"ok")
        c.close()' "$x11" "$xdg/wayland-aj" "$dsock" >/dev/null 2>&1 &
	bgpids+=($!)
	for _ in $(seq 50); do
		[ -S "$x11" ] && [ -S "$xdg/wayland-aj" ] && [ -S "$dsock" ] && break
		sleep 0.1
	done
	# A compositor runs as the user: its socket is the user's.
	chown "$tuid:$tgid" "$xdg/wayland-aj"
	# The Docker CLI's name picks its command group only when it is found
	# through PATH outside the project (stub/main.c): a stand-in in a
	# directory of /opt (the jail binds /opt), first in PATH.
	if [ ! -d /opt ]; then
		mkdir -m 0755 /opt
		outside+=(/opt)
	fi
	optbin=/opt/aijail-it-$$
	mkdir -m 0755 "$optbin"
	outside+=("$optbin")
	ln -s "$py" "$optbin/docker"
	outside+=("$optbin/docker")
	ln -sf "$py" "$P/docker" # the same name in the project: no group
	tg_path=PATH=$optbin:/usr/local/bin:/usr/bin:/bin
	tg_env=(DISPLAY=":$dn" XAUTHORITY="$T/xauth" XDG_RUNTIME_DIR="$xdg" WAYLAND_DISPLAY=wayland-aj
		DOCKER_HOST="unix://$dsock" CUDA_VISIBLE_DEVICES=0)
	tg_args=("$x11" "$xdg/wayland-aj" "$dsock" "$xdg")

	if c toggles-normal; then
		jrun user "${tg_env[@]}" -- jail python3 -c "$TGPY" "${tg_args[@]}"
		expect toggles-normal 0 "nvidia0 True
nvidiactl True
dri/renderD128 True
sys True
x11 ok
wayland ok
xdg wayland-aj
xauth COOKIE
docker ENOENT
CUDA_VISIBLE_DEVICES 0
DISPLAY :$dn
WAYLAND_DISPLAY wayland-aj
DOCKER_HOST unset"
	fi

	if c toggles-docker-cli; then
		jrun user "${tg_env[@]}" "$tg_path" -- jail docker -c "$TGPY" "${tg_args[@]}"
		if [ "$RC" = 0 ] && printf '%s\n' "$OUT" | grep -qx 'docker ok' &&
			printf '%s\n' "$OUT" | grep -qx "DOCKER_HOST unix://$dsock"; then
			pass toggles-docker-cli
		else
			fail toggles-docker-cli "exit status $RC, stdout $(q "$OUT")"
		fi
	fi

	worker_out="nvidia0 False
nvidiactl False
dri/renderD128 False
sys False
x11 ENOENT
wayland ENOENT
xdg ENOENT
xauth none
docker ENOENT
CUDA_VISIBLE_DEVICES unset
DISPLAY unset
WAYLAND_DISPLAY unset
DOCKER_HOST unset"

	if c toggles-worker; then
		jrun user "${tg_env[@]}" HERMES_KANBAN_TASK=1 -- jail python3 -c "$TGPY" "${tg_args[@]}"
		expect toggles-worker 0 "$worker_out"
	fi

	if c toggles-worker-docker-cli; then
		jrun user "${tg_env[@]}" "$tg_path" HERMES_KANBAN_TASK=1 -- jail docker -c "$TGPY" "${tg_args[@]}"
		expect toggles-worker-docker-cli 0 "$worker_out"
	fi

	# jail-worker keeps them off even when asked for normal by name.
	if c toggles-jail-worker-normal; then
		jrun user "${tg_env[@]}" -- jail-worker --jail-mode=normal ./docker -c "$TGPY" "${tg_args[@]}"
		expect toggles-jail-worker-normal 0 "$worker_out"
	fi

	if c toggles-explain-worker; then
		jrun user "${tg_env[@]}" HERMES_KANBAN_TASK=1 -- jail --jail-explain python3 -c 1
		why="by mode worker (triggered by HERMES_KANBAN_TASK)"
		if [ "$RC" = 0 ] && [[ $OUT == *"mode:      worker (triggered by HERMES_KANBAN_TASK)"* ]] &&
			[[ $OUT == *"gpu:       off, $why: no GPU device nodes"* ]] &&
			[[ $OUT == *"display:   off, $why: no X11 or Wayland socket"* ]] &&
			[[ $OUT == *"docker:    off, $why: no Docker socket"* ]]; then
			pass toggles-explain-worker
		else
			fail toggles-explain-worker "exit status $RC, stdout $(q "$(printf '%s\n' "$OUT" | sed -n 1,12p)")"
		fi
	fi

	# A file in the project named like a tool is not that tool: no group.
	if c toggles-project-docker; then
		jrun user "${tg_env[@]}" -- jail ./docker -c "$TGPY" "${tg_args[@]}"
		if [ "$RC" = 0 ] && printf '%s\n' "$OUT" | grep -qx 'docker ENOENT' &&
			printf '%s\n' "$OUT" | grep -qx 'DOCKER_HOST unset'; then
			pass toggles-project-docker
		else
			fail toggles-project-docker "exit status $RC, stdout $(q "$OUT")"
		fi
	fi

	if c toggles-explain-docker; then
		jrun user "${tg_env[@]}" "$tg_path" -- jail --jail-explain docker ps
		if [ "$RC" = 0 ] && [[ $OUT == *"docker:    on, by the policy:"*"$dsock"*"WARNING: the Docker socket is host-root-equivalent"* ]] &&
			[[ $OUT == *"/dev/nvidia[0-9]*	1 node on this host"* ]]; then
			pass toggles-explain-docker
		else
			fail toggles-explain-docker "exit status $RC, stdout $(q "$(printf '%s\n' "$OUT" | sed -n 1,30p)")"
		fi
	fi

	kill "${bgpids[@]}" 2>/dev/null
	wait "${bgpids[@]}" 2>/dev/null
	bgpids=()
	rm -f "$P/docker"
	standins_remove
	standins_give
fi
