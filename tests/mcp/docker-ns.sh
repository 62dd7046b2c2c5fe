#!/bin/bash
# docker-ns.sh LAYOUT TUID TGID HOME PROJECT CALL SERVER [SERVER-ARG...]:
# run by run.sh as root inside `unshare -m --propagation private`, so every
# mount here is this namespace's own.  LAYOUT and the stand-in Docker
# socket, which answers "ok": tests/lib/dockersock.sh.  `docker` on the
# server's PATH is python3 (a tmpfs over /usr/local/bin), so the generic
# jail's docker group runs it.  Prints what the jailed `docker` saw at
# /var/run/docker.sock (call.py's JSON).
set -eu
layout=$1 tuid=$2 tgid=$3 home=$4 project=$5 call=$6
shift 6
# shellcheck source=tests/lib/dockersock.sh
. "$(dirname "$0")/../lib/dockersock.sh"
dockersock_layout "$layout" || {
	echo "{\"skip\": \"$dockersock_why\"}"
	exit 0
}
mount -t tmpfs -o mode=0755 aj-bin /usr/local/bin
ln -s /usr/bin/python3 /usr/local/bin/docker
dockersock_serve /usr/bin/python3
args=$(python3 -c 'import json, sys; print(json.dumps({"command": ["docker", "-c", sys.argv[1]]}))' "$dockersock_probe")
cd "$project"
setpriv --reuid "$tuid" --regid "$tgid" --init-groups env -i PATH=/usr/bin:/bin HOME="$home" \
	python3 "$call" "$@" -- "$args" || true
kill "$dockersock_pid"
