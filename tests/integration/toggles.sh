# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# toggles.sh: the run's toggles, --gpu/--no-gpu, --docker/--no-docker,
# --display/--no-display (--jail-NAME and --jail-no-NAME in a per-tool
# stub), against stand-ins for what a desktop, a Docker host or a GPU host
# has.  Sourced by run.sh after modes.sh (its helpers: standins_take,
# standins_give; run.sh's cleanup removes what is recorded in outside and
# bgpids, also on failure); not run alone.
#
# The stand-ins need root: a character device 1:3 (what /dev/null is) at
# /dev/nvidia0 where the host has none, an X11 socket /tmp/.X11-unix/X<n>
# and a Docker socket that a small python server answers "ok" on.  The
# jails run as the test user.  A policy with display off by default is
# built here (aijail-compile --build), so that --display has something to
# turn on.

# TOGPY: what the toggles bring, as seen from inside: the GPU node, the
# X11 and Docker sockets, the variables that follow them.
TOGPY='import os, socket, sys, errno
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
print("nvidia0", os.path.exists("/dev/nvidia0"))
print("x11", conn(sys.argv[1]))
print("docker", conn(sys.argv[2]))
for v in ("CUDA_VISIBLE_DEVICES", "DISPLAY", "DOCKER_HOST"):
    print(v, os.environ.get(v, "unset"))'

# tog_line NAME VALUE: the last jrun printed the line "NAME VALUE".
tog_line() {
	printf '%s\n' "$OUT" | grep -qxF "$1 $2"
}

tog_cases="toggles-rt-display toggles-rt-docker toggles-rt-no-docker-group toggles-rt-gpu
	toggles-rt-per-tool toggles-rt-mode-floor toggles-rt-nested toggles-rt-no-always
	toggles-rt-explain toggles-rt-unknown toggles-rt-docker-layouts"
want_tog=0
for n in $tog_cases; do c "$n" && want_tog=1; done
if [ $want_tog = 1 ] && [ $as_root -eq 0 ]; then
	skip toggles-rt "not running as root: the stand-in device and sockets need it"
elif [ $want_tog = 1 ]; then
	# A policy whose display is off unless the run turns it on.
	mkdir -p "$T/tog"
	printf 'include "base.aj";\npolicy tog extends base {\n    display off;\n}\n' >"$T/tog/tog.aj"
	tog_built=0
	if (cd "$T/tog" && "$build/bin/aijail-compile" --build tog.aj -o "$bin/jail-tog") >"$T/out/tog-build" 2>&1; then
		chmod 0755 "$bin/jail-tog"
		tog_built=1
	fi

	standins_take
	if [ ! -e /dev/nvidia0 ]; then
		outside+=(/dev/nvidia0)
		mknod -m 0666 /dev/nvidia0 c 1 3
	fi
	if [ ! -d /tmp/.X11-unix ]; then
		outside+=(/tmp/.X11-unix)
		mkdir -m 1777 /tmp/.X11-unix
	fi
	dn=99
	while [ -e "/tmp/.X11-unix/X$dn" ]; do dn=$((dn + 1)); done
	tx11=/tmp/.X11-unix/X$dn
	outside+=("$tx11")
	tdsock=$T/tog/docker.sock
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
        c.close()' "$tx11" "$tdsock" >/dev/null 2>&1 &
	bgpids+=($!)
	for _ in $(seq 50); do
		[ -S "$tx11" ] && [ -S "$tdsock" ] && break
		sleep 0.1
	done
	# The Docker CLI's name picks its group only when PATH finds it outside
	# the project (stub/main.c): a stand-in in a directory of /opt.
	if [ ! -d /opt ]; then
		mkdir -m 0755 /opt
		outside+=(/opt)
	fi
	toptbin=/opt/aijail-it-tog-$$
	mkdir -m 0755 "$toptbin"
	outside+=("$toptbin")
	ln -s "$py" "$toptbin/docker"
	outside+=("$toptbin/docker")
	tog_env=(DISPLAY=":$dn" DOCKER_HOST="unix://$tdsock" CUDA_VISIBLE_DEVICES=0)
	tog_args=("$tx11" "$tdsock")

	# --display binds the X11 socket and keeps DISPLAY; the policy's
	# default (off) and --no-display do neither; the last option wins.
	if c toggles-rt-display; then
		if [ $tog_built = 0 ]; then
			fail toggles-rt-display "aijail-compile --build tog.aj: $(q "$(cat "$T/out/tog-build")")"
		else
			res=
			for opts in "" "--display" "--no-display" "--display --no-display" "--jail-display"; do
				# shellcheck disable=SC2086 # the options are split on purpose
				jrun user "${tog_env[@]}" -- jail-tog $opts python3 -c "$TOGPY" "${tog_args[@]}"
				x=$(printf '%s\n' "$OUT" | sed -n 's/^x11 //p')
				d=$(printf '%s\n' "$OUT" | sed -n 's/^DISPLAY //p')
				res="$res[$opts:$RC:$x:$d]"
			done
			want="[:0:ENOENT:unset][--display:0:ok::$dn][--no-display:0:ENOENT:unset][--display --no-display:0:ENOENT:unset][--jail-display:0:ok::$dn]"
			if [ "$res" = "$want" ]; then pass toggles-rt-display; else
				fail toggles-rt-display "got $res, expected $want"
			fi
			# And in the shipped generic jail, where display is on.
			jrun user "${tog_env[@]}" -- jail --no-display python3 -c "$TOGPY" "${tog_args[@]}"
			if [ "$RC" != 0 ] || ! tog_line x11 ENOENT || ! tog_line DISPLAY unset; then
				fail toggles-rt-display "jail --no-display: exit $RC, stdout $(q "$OUT")"
			fi
		fi
	fi

	# --docker binds the Docker socket for any command under jail and keeps
	# DOCKER_HOST; without it the socket is absent.
	if c toggles-rt-docker; then
		jrun user "${tog_env[@]}" -- jail python3 -c "$TOGPY" "${tog_args[@]}"
		off_ok=0
		[ "$RC" = 0 ] && tog_line docker ENOENT && tog_line DOCKER_HOST unset && off_ok=1
		off_out=$OUT
		jrun user "${tog_env[@]}" -- jail --docker python3 -c "$TOGPY" "${tog_args[@]}"
		if [ $off_ok = 1 ] && [ "$RC" = 0 ] && tog_line docker ok &&
			tog_line DOCKER_HOST "unix://$tdsock"; then
			pass toggles-rt-docker
		else
			fail toggles-rt-docker "without: $(q "$off_out"); with --docker: exit $RC, $(q "$OUT")"
		fi
	fi

	# The docker command group has the socket on; --no-docker takes it away.
	if c toggles-rt-no-docker-group; then
		jrun user "${tog_env[@]}" "PATH=$toptbin:/usr/local/bin:/usr/bin:/bin" -- jail docker -c "$TOGPY" "${tog_args[@]}"
		on_ok=0
		[ "$RC" = 0 ] && tog_line docker ok && on_ok=1
		on_out=$OUT
		jrun user "${tog_env[@]}" "PATH=$toptbin:/usr/local/bin:/usr/bin:/bin" -- jail --no-docker docker -c "$TOGPY" "${tog_args[@]}"
		if [ $on_ok = 1 ] && [ "$RC" = 0 ] && tog_line docker ENOENT && tog_line DOCKER_HOST unset; then
			pass toggles-rt-no-docker-group
		else
			fail toggles-rt-no-docker-group "group: $(q "$on_out"); --no-docker: exit $RC, $(q "$OUT")"
		fi
	fi

	# The GPU is on in jail's normal mode: --no-gpu takes the node and
	# CUDA_* away.
	if c toggles-rt-gpu; then
		jrun user "${tog_env[@]}" -- jail python3 -c "$TOGPY" "${tog_args[@]}"
		on_ok=0
		[ "$RC" = 0 ] && tog_line nvidia0 True && tog_line CUDA_VISIBLE_DEVICES 0 && on_ok=1
		jrun user "${tog_env[@]}" -- jail --no-gpu python3 -c "$TOGPY" "${tog_args[@]}"
		if [ $on_ok = 1 ] && [ "$RC" = 0 ] && tog_line nvidia0 False && tog_line CUDA_VISIBLE_DEVICES unset; then
			pass toggles-rt-gpu
		else
			fail toggles-rt-gpu "exit $RC, stdout $(q "$OUT")"
		fi
	fi

	# A per-tool stub takes the --jail-* spellings; the bare one is the
	# tool's own argument.
	if c toggles-rt-per-tool; then
		jrun user "${tog_env[@]}" -- jail-python --jail-docker --jail-no-gpu -c "$TOGPY" "${tog_args[@]}"
		if [ "$RC" = 0 ] && tog_line docker ok && tog_line nvidia0 False &&
			tog_line CUDA_VISIBLE_DEVICES unset; then
			jrun user "${tog_env[@]}" -- jail-python --docker -c 1
			if [ "$RC" = 2 ]; then pass toggles-rt-per-tool; else
				fail toggles-rt-per-tool "jail-python --docker: exit $RC, expected python's 2"
			fi
		else
			fail toggles-rt-per-tool "exit $RC, stdout $(q "$OUT")"
		fi
	fi

	# A mode that turns a toggle off wins: turning it on is refused (125,
	# naming the mode) before anything runs, whoever chose the mode.
	if c toggles-rt-mode-floor; then
		bad=
		for r in "jail-worker --gpu" "jail-worker --docker" "jail-worker --display" \
			"jail-worker --jail-mode=normal --gpu" "jail --worker --docker" \
			"jail --lockdown --display" "jail-python --jail-mode=lockdown --jail-gpu" \
			"env HERMES_KANBAN_TASK=1 $bin/jail --docker"; do
			# shellcheck disable=SC2086 # the options are split on purpose
			jrun user "${tog_env[@]}" -- $r touch "$P/tog-ran"
			m=worker
			[[ $r == *lockdown* ]] && m=lockdown
			[[ $r == *mode=normal* ]] && m=normal
			t=${r##*--}
			t=${t#jail-}
			if [ "$RC" != 125 ] || [[ $ERR != *"unable to use --"*"$t: the mode $m turns $t off"* ]] ||
				[ -e "$P/tog-ran" ]; then
				bad="$bad [$r: $RC $(q "$ERR")]"
			fi
			rm -f "$P/tog-ran"
		done
		ERR=
		if [ -z "$bad" ]; then pass toggles-rt-mode-floor; else fail toggles-rt-mode-floor "$bad"; fi
	fi

	# A jailed process cannot turn one on: a stub inside jail-worker is held
	# at the worker floor, and its --docker is refused like any other.
	if c toggles-rt-nested; then
		jrun user "${tog_env[@]}" -- jail-worker ./tools/jail --docker true
		if [ "$RC" = 125 ] && [[ $ERR == *"unable to use --docker: the mode worker turns docker off"* ]]; then
			pass toggles-rt-nested
		else
			fail toggles-rt-nested "exit $RC, expected 125 naming the mode worker"
		fi
	fi

	# Off is always allowed, also where the mode has it off already.
	if c toggles-rt-no-always; then
		jrun user "${tog_env[@]}" -- jail-worker --no-gpu --no-docker --no-display python3 -c "$TOGPY" "${tog_args[@]}"
		if [ "$RC" = 0 ] && tog_line nvidia0 False && tog_line docker ENOENT && tog_line x11 ENOENT; then
			pass toggles-rt-no-always
		else
			fail toggles-rt-no-always "exit $RC, stdout $(q "$OUT")"
		fi
	fi

	# --jail-explain says who decided: the option, the mode, the policy;
	# --docker still carries the warning.
	if c toggles-rt-explain; then
		jrun user "${tog_env[@]}" -- jail --docker --no-display --jail-explain python3
		e1=$OUT
		r1=$RC
		jrun user "${tog_env[@]}" -- jail-worker --no-gpu --jail-explain true
		if [ "$r1" = 0 ] && [[ $e1 == *"gpu:       on, by the policy:"* ]] &&
			[[ $e1 == *"docker:    on, by --docker:"*"$tdsock"*"WARNING: the Docker socket is host-root-equivalent"* ]] &&
			[[ $e1 == *"display:   off, by --no-display: no X11"* ]] &&
			[[ $e1 != *"env keep:"*"DISPLAY"*"env drop:"* ]] &&
			[[ $e1 == *"env drop:"*"DISPLAY"*"environment passed:"* ]] &&
			[ "$RC" = 0 ] && [[ $OUT == *"gpu:       off, by --no-gpu"* ]] &&
			[[ $OUT == *"docker:    off, by mode worker (the policy's default)"* ]]; then
			pass toggles-rt-explain
		else
			fail toggles-rt-explain "exit $r1/$RC; jail: $(q "$(printf '%s\n' "$e1" | sed -n 9,16p)"); jail-worker: $(q "$(printf '%s\n' "$OUT" | sed -n 9,12p)")"
		fi
	fi

	if c toggles-rt-unknown; then
		jrun user -- jail --no-frob true
		if [ "$RC" = 125 ] && [[ $ERR == *"unknown option: --no-frob"* ]]; then
			jrun user -- jail --gpu=1 true
			if [ "$RC" = 125 ] && [[ $ERR == *"unknown option: --gpu=1"* ]]; then
				pass toggles-rt-unknown
			else
				fail toggles-rt-unknown "--gpu=1: exit $RC"
			fi
		else
			fail toggles-rt-unknown "--no-frob: exit $RC"
		fi
	fi

	# The default socket, /var/run/docker.sock, on both layouts: /var/run
	# Debian 12's link to /run, and a directory.  In a mount namespace of
	# the test's own (a tmpfs over /run, or over /var), never the host's.
	# The stub resolves its sources in the jail's user namespace, where
	# root's link showed as nobody's: --jail-explain listed the socket and
	# the run skipped it.
	if c toggles-rt-docker-layouts; then
		cat >"$T/tog/layout.sh" <<'EOF'
set -e
layout=$1 py=$2 user=$3 home=$4 jail=$5 proj=$6 code=$7 lib=$8
# shellcheck source=tests/lib/dockersock.sh
. "$lib/dockersock.sh"
dockersock_layout "$layout" || { echo "skip: $dockersock_why"; exit 0; }
dockersock_serve "$py"
cd "$proj"
for opt in --no-docker --docker; do
	setpriv --reuid="$user" --regid="$user" --init-groups --reset-env env -i HOME="$home" \
		PATH=/usr/bin:/bin "$jail" "$opt" "$py" -c "$code" 2>&1 | tr '\n' ' '
	setpriv --reuid="$user" --regid="$user" --init-groups --reset-env env -i HOME="$home" \
		PATH=/usr/bin:/bin "$jail" "$opt" --jail-explain 2>&1 | grep -A1 "^docker:" | tr '\n\t' '  '
	echo
done
kill "$dockersock_pid"
EOF
		# shellcheck source=tests/lib/dockersock.sh
		. "$root/tests/lib/dockersock.sh"
		lbad=
		# A container's root may lack CAP_SYS_ADMIN: no mount namespace
		# of the case's own, so no stand-in socket; skip, naming it.
		if ! lerr=$(unshare -m --propagation private true 2>&1); then
			lbad="needs CAP_SYS_ADMIN for a mount namespace of its own: unshare -m: $lerr"
		fi
		for layout in link dir; do
			[ -n "$lbad" ] && break
			lout=$(unshare -m --propagation private bash "$T/tog/layout.sh" "$layout" "$py" "$tuser" \
				"$thome" "$bin/jail" "$P" "$dockersock_probe" "$root/tests/lib" 2>&1)
			case $lout in skip:*) lbad="$lbad $layout: $lout;"; continue ;; esac
			off=$(sed -n 1p <<<"$lout") on=$(sed -n 2p <<<"$lout")
			# Off: no socket, and --jail-explain says off; on: the stand-in
			# answers, and --jail-explain lists the socket, not skipped.
			if [[ $off != "docker ENOENT "*"docker:    off"* ]] ||
				[[ $on != "docker ok "*"docker:    on, by --docker:"*"/var/run/docker.sock"* ]] ||
				[[ $on == *skipped* ]]; then
				lbad="$lbad $layout: --no-docker $(q "$off"), --docker $(q "$on");"
			fi
		done
		if [ -z "$lbad" ]; then
			pass toggles-rt-docker-layouts
		elif [[ $lbad != *--docker* ]]; then
			skip toggles-rt-docker-layouts "$lbad"
		else
			fail toggles-rt-docker-layouts "$lbad"
		fi
	fi

	kill "${bgpids[@]}" 2>/dev/null
	wait "${bgpids[@]}" 2>/dev/null
	bgpids=()
	standins_remove
	standins_give
fi
