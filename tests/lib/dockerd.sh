# shellcheck shell=bash
# dockerd.sh: a dockerd of the test's own, for tests/docker/run.sh and
# tests/fresh/run.sh.
#
# Networking is left alone (no iptables, no bridge: the containers use the
# host's network), storage is vfs (no overlay module needed), and the daemon
# runs in a mount namespace of its own, so its mounts (layers, its netns
# files) die with it and none lands on the host's tree.
#
# dockerd_start DIR: state, socket and log under DIR; exports DOCKER_HOST
#   and sets DPID. Returns 1, with the log's tail on stdout, when the
#   daemon does not answer within 20 s.
# dockerd_stop: TERM, up to 10 s, then KILL; the caller removes DIR.
# The caller sets DOCKERD and DOCKER (the two programs' paths).

DPID=

dockerd_start() {
	local dir=$1
	export DOCKER_HOST="unix://$dir/docker.sock"
	unshare --mount --propagation private "$DOCKERD" --iptables=false --ip6tables=false --bridge=none \
		--storage-driver=vfs --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
		-H "$DOCKER_HOST" >"$dir/dockerd.log" 2>&1 &
	DPID=$!
	for _ in $(seq 100); do
		"$DOCKER" version >/dev/null 2>&1 && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.2
	done
	"$DOCKER" version >/dev/null 2>&1 && return 0
	tail -5 "$dir/dockerd.log"
	return 1
}

dockerd_stop() {
	[ -n "$DPID" ] || return 0
	kill "$DPID" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.2
	done
	kill -9 "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}
