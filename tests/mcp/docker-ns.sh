#!/bin/bash
# docker-ns.sh LAYOUT TUID TGID HOME PROJECT CALL SERVER [SERVER-ARG...]:
# run by run.sh as root inside `unshare -m --propagation private`, so every
# mount here is this namespace's own.  LAYOUT link: /var/run is the host's
# link to /run (Debian 12) and a tmpfs over /run holds the stand-in; dir:
# a tmpfs over /var with a real /var/run directory.  A stand-in Docker
# socket answers "ok"; `docker` on the server's PATH is python3 (a tmpfs
# over /usr/local/bin), so the generic jail's docker group runs it.  Prints
# what the jailed `docker` saw at /var/run/docker.sock (call.py's JSON).
set -eu
layout=$1 tuid=$2 tgid=$3 home=$4 project=$5 call=$6
shift 6
if [ "$layout" = link ]; then
	[ -L /var/run ] || { echo '{"skip": "/var/run is not a link here"}'; exit 0; }
	mount -t tmpfs -o mode=0755 aj-run /run
else
	mount -t tmpfs -o mode=0755 aj-var /var
	mkdir -m 0755 /var/run
	mkdir -m 1777 /var/tmp
fi
mount -t tmpfs -o mode=0755 aj-bin /usr/local/bin
ln -s /usr/bin/python3 /usr/local/bin/docker
/usr/bin/python3 -c '
import os, socket
s = socket.socket(socket.AF_UNIX)
s.bind("/var/run/docker.sock")
os.chmod("/var/run/docker.sock", 0o666)
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(b"ok")
    c.close()' </dev/null >/dev/null 2>&1 &
lpid=$!
for _ in $(seq 100); do [ -S /var/run/docker.sock ] && break; sleep 0.05; done
code='import socket, errno
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("/var/run/docker.sock")
    print("docker", s.recv(8).decode())
except OSError as e:
    print("docker", errno.errorcode.get(e.errno, e))'
args=$(python3 -c 'import json, sys; print(json.dumps({"command": ["docker", "-c", sys.argv[1]]}))' "$code")
cd "$project"
setpriv --reuid "$tuid" --regid "$tgid" --init-groups env -i PATH=/usr/bin:/bin HOME="$home" \
	python3 "$call" "$@" -- "$args" || true
kill "$lpid"
