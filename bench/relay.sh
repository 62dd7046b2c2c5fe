#!/bin/bash
# relay.sh: the cost of the transparent relay (issue 32 item 3) against the
# proxy and a direct connection, and of a published port against direct
# loopback.  Like tests/integration/public.sh, everything runs in a user,
# network and mount namespace this script makes (unshare -Urnm): a veth
# pair to a second network namespace holds the "outside" server on
# 198.51.100.7, and a nameserver stand-in answers bench.test at the
# addresses /etc/resolv.conf names, so no packet leaves the machine.  One
# client (Python, the same code on every path) measures connection
# set-ups (socket to the host's first byte, which it sends as it accepts:
# the whole path, the parent's connect included; a name looked up at
# each set-up, as a client that keeps no answer does, or once) and a bulk
# read.  Run as an unprivileged user who may make
# user namespaces.
# Usage: bench/relay.sh [MiB] [SETUPS] [ROUNDS]   (defaults 1024 1000 3)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AIJAIL_BUILD:-$root/build}/bin
mib=${1:-1024} setups=${2:-1000} rounds=${3:-3}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p"
cat >"$work/relay.aj" <<'EOF'
include "base.aj";

policy relaybench extends base {
    network allow "bench.test:9000" "bench.test:9001";
}
EOF
"$bin/aijail-compile" --build -I "$root/policies" -o "$work/jail-relaybench" "$work/relay.aj"
cat >"$work/srv.py" <<'EOF'
import socket, sys, threading, time
addr, mib = sys.argv[1], int(sys.argv[2])
buf = bytes(1 << 20)
def setup():
    s = socket.create_server((addr, 9000), backlog=128)
    while True:
        c = s.accept()[0]
        c.sendall(b"x")  # the set-up is over when the client has it
        c.close()
def bulk(port, once=False):
    s = socket.create_server((addr, port), backlog=8)
    while True:
        c = s.accept()[0]
        for _ in range(mib):
            c.sendall(buf)
        c.close()
        if once:
            return
if len(sys.argv) > 3:  # one transfer on that port (a published port's server), then exit
    bulk(int(sys.argv[3]), True)
    # not at once: the jail's end would end the relay of what is still in
    # flight (the client then reads short)
    time.sleep(2)
    sys.exit(0)
threading.Thread(target=setup, daemon=True).start()
bulk(9001)
EOF
cat >"$work/p/cli.py" <<'EOF'
import socket, statistics, sys, time
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
proxy = len(sys.argv) > 5 and sys.argv[5] == "proxy"
if len(sys.argv) > 5 and sys.argv[5] == "once":  # one lookup, then the address
    host = socket.gethostbyname(host)
def conn():  # the socket, and the bytes of the host's read with the proxy's 200
    if not proxy:
        return socket.create_connection((host, port)), 0
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port))
    r = b""
    while b"\r\n\r\n" not in r:
        r += s.recv(4096)
    assert r.startswith(b"HTTP/1.1 200"), r
    return s, len(r) - r.index(b"\r\n\r\n") - 4
if mode == "setup":
    ts = []
    for _ in range(int(sys.argv[4])):
        t = time.perf_counter()
        c, got = conn()
        if not got:
            assert c.recv(1) == b"x"
        ts.append((time.perf_counter() - t) * 1e6)
        c.close()
    ts.sort()
    print("%.0f %.0f" % (statistics.median(ts), ts[int(len(ts) * 0.99)]))
else:
    t = time.perf_counter()
    (c, n), b = conn(), bytearray(1 << 18)
    while True:
        r = c.recv_into(b)
        if not r:
            break
        n += r
    assert n == int(sys.argv[4]) << 20, n
    print("%.0f" % (n / 2**20 / (time.perf_counter() - t)))
EOF
cp "$root/tests/lib/dns.py" "$root/tests/lib/netns.sh" "$work/"
cat >"$work/in.sh" <<'EOF'
set -eu
work=$1 mib=$2 setups=$3 rounds=$4 uid=$5 gid=$6
py=/usr/bin/python3
. "$work/netns.sh"
netns_outside 198.51.100
out=$netns_out
nsenter -t "$out" -n $py "$work/srv.py" 198.51.100.7 "$mib" &
srv=$!
nss=$(netns_nameservers)
$py "$work/dns.py" '*=198.51.100.7' $nss &
dns=$!
trap 'kill $srv $dns $out 2>/dev/null' EXIT
sleep 1
cd "$work/p"
J() { unshare -U --map-user="$uid" --map-group="$gid" env -i PATH=/usr/bin:/bin HOME=/nonexistent "$@" </dev/null; }
pub=9100
for r in $(seq "$rounds"); do
	echo "round $r"
	echo "setup direct $($py cli.py setup 198.51.100.7 9000 "$setups")"
	echo "setup proxy  $(J "$work/jail-relaybench" $py cli.py setup bench.test 9000 "$setups" proxy)"
	echo "setup relay  $(J "$work/jail-relaybench" $py cli.py setup bench.test 9000 "$setups")"
	echo "setup relay, one lookup $(J "$work/jail-relaybench" $py cli.py setup bench.test 9000 "$setups" once)"
	echo "bulk direct  $($py cli.py bulk 198.51.100.7 9001 "$mib")"
	echo "bulk proxy   $(J "$work/jail-relaybench" $py cli.py bulk bench.test 9001 "$mib" proxy)"
	echo "bulk relay   $(J "$work/jail-relaybench" $py cli.py bulk bench.test 9001 "$mib")"
	# a published port: the server in a 'network none' jail, the client here
	pub=$((pub + 1))
	$py srv.py 127.0.0.1 "$mib" $pub &
	s=$!
	sleep 1
	echo "bulk loopback $($py cli.py bulk 127.0.0.1 $pub "$mib")"
	wait $s
	pub=$((pub + 1))
	J "$bin/jail-worker" --jail-no-net --jail-publish=$pub $py srv.py 127.0.0.1 "$mib" $pub &
	s=$!
	sleep 1
	echo "bulk publish $($py cli.py bulk 127.0.0.1 $pub "$mib")"
	wait $s
done
EOF
cp "$work/srv.py" "$work/p/srv.py"
unshare -Urnm env bin="$bin" bash "$work/in.sh" "$work" "$mib" "$setups" "$rounds" "$(id -u)" "$(id -g)"
