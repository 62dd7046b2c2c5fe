#!/bin/bash
# forward.sh: the cost of a forward (--jail-forward): 1 GiB from a sink on
# the host's 127.0.0.1 read by a client in a 'network none' jail through
# the forward, against the same client outside the jail on direct
# loopback.  Run as an unprivileged user who may create user namespaces.
# Usage: bench/forward.sh [MiB]   (default 1024)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AIJAIL_BUILD:-$root/build}/bin
mib=${1:-1024}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT
# The server: sends MiB MiB of zeros to each connection.
cat >"$work/srv.py" <<'EOF'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[2]))); s.listen(8)
buf = bytes(1 << 20)
while True:
    c, _ = s.accept()
    for _ in range(int(sys.argv[1])):
        c.sendall(buf)
    c.close()
EOF
cat >"$work/cli.py" <<'EOF'
import socket, sys, time
t = time.monotonic()
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
n = 0
b = bytearray(1 << 18)
while True:
    r = c.recv_into(b)
    if not r:
        break
    n += r
d = time.monotonic() - t
print("%.0f MiB in %.2f s: %.0f MiB/s" % (n / 2**20, d, n / 2**20 / d))
EOF
port=$($py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$py "$work/srv.py" "$mib" "$port" </dev/null >/dev/null 2>&1 &
srv=$!
sleep 1
# The jail has a /tmp of its own: the client lives in the project.
mkdir -p "$work/p"
cp "$work/cli.py" "$work/p/cli.py"
cd "$work/p"
for _ in 1 2 3; do
	printf 'direct   %s\n' "$($py cli.py "$port")"
	printf 'forward  %s\n' "$("$bin/jail-worker" --jail-no-net --jail-forward="$port" $py cli.py "$port" </dev/null)"
done
