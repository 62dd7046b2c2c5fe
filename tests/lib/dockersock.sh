# shellcheck shell=bash disable=SC2034 # dockersock_pid, _why and _probe: the sourcing script's
# dockersock.sh: a stand-in Docker socket at the default place,
# /var/run/docker.sock, for the cases on both layouts of /var/run
# (tests/integration/toggles.sh, tests/mcp/docker-ns.sh).  Sourced by a
# script that runs in a mount namespace of its own (unshare -m
# --propagation private), so every mount here is that namespace's, never
# the host's.
#
# dockersock_layout LAYOUT: link, /var/run is the host's link to /run
# (Debian 12) and a tmpfs over /run will hold the socket; dir, a tmpfs over
# /var with a real /var/run directory.  Status 1 when LAYOUT is not this
# machine's, and dockersock_why says why.
# dockersock_serve PY: the stand-in (PY: python3), which answers "ok" to
# every connection, started once the socket is there; dockersock_pid.
# dockersock_probe: Python code that connects to it and prints "docker ok",
# or "docker ERRNO".

dockersock_layout() {
	if [ "$1" = link ]; then
		[ -L /var/run ] || {
			dockersock_why="/var/run is not a link here"
			return 1
		}
		mount -t tmpfs -o mode=0755 aj-run /run
	else
		mount -t tmpfs -o mode=0755 aj-var /var
		mkdir -m 0755 /var/run
		mkdir -m 1777 /var/tmp
	fi
}

dockersock_serve() {
	"$1" -c 'import os, socket
s = socket.socket(socket.AF_UNIX)
s.bind("/var/run/docker.sock")
os.chmod("/var/run/docker.sock", 0o666)
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(b"ok")
    c.close()' </dev/null >/dev/null 2>&1 &
	dockersock_pid=$!
	for _ in $(seq 100); do [ -S /var/run/docker.sock ] && break; sleep 0.05; done
}

dockersock_probe='import socket, errno
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("/var/run/docker.sock")
    print("docker", s.recv(8).decode())
except OSError as e:
    print("docker", errno.errorcode.get(e.errno, e))'
