# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# public.sh: 'network public' (issue 32), seen from inside, with no packet
# to any real network.  Every case runs in a user, network and mount
# namespace the test makes as the test user (unshare -Urnm): its own lo,
# and a veth pair to a second network namespace that carries the
# "outside": 198.51.100.7 (a documentation range, which the shipped stub
# treats as public, as it must: registries resolve into such ranges),
# 10.1.2.3 and 169.254.169.254.  The namespace's own lo and 198.51.100.1
# play the host.  /etc/hosts is a file of the test's, bound over the real
# one inside that mount namespace only: the stub's resolver reads it on
# every lookup, so a name's answer can change between two connections.
# The stub itself runs in one more user namespace that maps the test
# user's uid back (unshare --map-user), so it starts as it would for that
# user.  No public stand-in marking exists: nothing a shipped stub could
# carry.  Each aimed-at listener answers the namespace's own client first
# (the control), so a refusal is the jail's and not an absent server.
# The transparent relay's cases (relay-*) run in the same namespaces: a
# nameserver stand-in (a few lines of Python, on this namespace's lo at
# each address the real /etc/resolv.conf names, so the jail's libc reads
# the file it would anyway) answers the names the parent's resolver asks;
# ssh reaches a banner-speaking stand-in (no sshd is installed here).
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

pb_cases="public-standin public-standin-name public-standin-connect public-loopback public-loopback-2
	public-loopback-v6 public-rfc1918 public-metadata public-mapped public-decimal public-odd-name
	public-own-address public-mixed public-rebind public-log public-explain public-net-option
	relay-node-fetch relay-python-socket relay-ssh relay-unlisted relay-public-private relay-explain
	relay-nameservers"
want_pb=0
for n in $pb_cases; do c "$n" && want_pb=1; done

pb_why=
if [ $want_pb = 1 ]; then
	pb_why=$(netns_why unshare nsenter ip curl)
	pb_pre=("${netns_pre[@]}")
fi

if [ $want_pb = 1 ] && [ -n "$pb_why" ]; then
	for n in $pb_cases; do c "$n" && skip "$n" "$pb_why"; done
elif [ $want_pb = 1 ]; then
	mkdir -p "$T/pb/www" "$T/pb/proj" "$T/pb/res"
	printf 'pub-ok' >"$T/pb/www/hi.txt"
	printf '127.0.0.1 localhost\n' >"$T/pb/hosts"
	cat >"$T/pb/public.aj" <<EOF
include "base.aj";

policy pubtest extends base {
    network public;
}
EOF
	if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-pubtest" "$T/pb/public.aj" \
		>"$T/pb/build.log" 2>&1; then
		ERR=$(cat "$T/pb/build.log")
		fail public-build "aijail-compile --build of the test policy failed"
	fi
	cat >"$T/pb/relay.aj" <<EOF
include "base.aj";

policy relaytest extends base {
    network allow "rl.test:8080" "rl.test:443" "rl.test:2222";
}
EOF
	if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-relaytest" "$T/pb/relay.aj" \
		>"$T/pb/build.log" 2>&1; then
		ERR=$(cat "$T/pb/build.log")
		fail relay-build "aijail-compile --build of the relay's test policy failed"
	fi
	chmod 0755 "$bin/jail-pubtest" "$bin/jail-relaytest"
	printf '198.51.100.7 rl.test\n198.51.100.7 pub2.test\n10.1.2.3 priv.test\n' >"$T/pb/dns"
	# The nameserver stand-in: A from the file (read at each question),
	# no AAAA, NXDOMAIN for the rest.
	cp "$root/tests/lib/dns.py" "$T/pb/dns.py"
	cat >"$T/pb/banner.py" <<'EOF'
import socket
s = socket.create_server(("0.0.0.0", 2222))
while True:
    c, _ = s.accept()
    c.sendall(b"SSH-2.0-aijail_standin\r\n")
    c.close()
EOF
	chown -R "$tuid:$tgid" "$T/pb"
	# Run inside the namespaces: sets them up, then one line a case in
	# res/NAME: the jail's exit status, stdout, then stderr.
	cat >"$T/pb/in.sh" <<'EOF'
set -u
T=$1 bin=$2 tuid=$3 tgid=$4 thome=$5 lib=$6
pb=$T/pb
mount --bind "$pb/hosts" /etc/hosts || exit 3
# shellcheck source=tests/lib/netns.sh
. "$lib/netns.sh"
netns_outside 198.51.100 10.1.2.3 169.254.169.254 || exit
out=$netns_out
# the outside: one server on every address of the other namespace
nsenter -t "$out" -n python3 -m http.server --bind 0.0.0.0 --directory "$pb/www" 8080 >/dev/null 2>&1 &
srv1=$!
# the host: every address of this namespace, both families
python3 -m http.server --bind :: --directory "$pb/www" 8081 >/dev/null 2>&1 &
srv2=$!
# the relay's: the outside on 443, 80 and ssh's 2222; the nameserver
# stand-in wherever resolv.conf points (127.0.0.1 when it names none)
nsenter -t "$out" -n python3 -m http.server --bind 0.0.0.0 --directory "$pb/www" 443 >/dev/null 2>&1 &
srv3=$!
nsenter -t "$out" -n python3 -m http.server --bind 0.0.0.0 --directory "$pb/www" 80 >/dev/null 2>&1 &
srv4=$!
nsenter -t "$out" -n python3 "$pb/banner.py" >/dev/null 2>&1 &
srv5=$!
nss=$(netns_nameservers)
# shellcheck disable=SC2086 # one argument an address
python3 "$pb/dns.py" "$pb/dns" $nss >"$pb/res/dns.log" 2>&1 &
srv6=$!
trap 'kill $srv1 $srv2 $srv3 $srv4 $srv5 $srv6 $out 2>/dev/null' EXIT
# controls: each listener answers from here (none of this is the jail)
for u in 198.51.100.7:8080 10.1.2.3:8080 169.254.169.254:8080 127.0.0.1:8081 127.0.0.2:8081 '[::1]:8081' 198.51.100.1:8081; do
	ok=
	for _ in $(seq 100); do
		[ "$(curl -s -m 5 --noproxy '*' "http://$u/hi.txt")" = pub-ok ] && ok=1 && break
		sleep 0.1
	done
	[ -n "$ok" ] || { echo "control: $u does not answer" >"$pb/res/control"; exit 6; }
done
ok=
for _ in $(seq 100); do
	[ "$(getent hosts rl.test)" ] && [ "$(curl -s -m 5 --noproxy '*' http://198.51.100.7:443/hi.txt)" = pub-ok ] &&
		[ "$(curl -s -m 5 --noproxy '*' http://198.51.100.7:80/hi.txt)" = pub-ok ] &&
		python3 -c 'import socket; assert socket.create_connection(("198.51.100.7", 2222), 5).recv(8) == b"SSH-2.0-"' 2>/dev/null && ok=1 && break
	sleep 0.1
done
[ -n "$ok" ] || { echo "control: the relay's stand-ins do not answer" >"$pb/res/control"; exit 6; }
echo ok >"$pb/res/control"
cd "$pb/proj" || exit 7
jail() { # NAME ARGS…: the stub as the test user, in a user namespace mapping it back
	local name=$1
	shift
	unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
		timeout -k 5 60 "$bin/${STUB:-jail-pubtest}" "$@" >"$pb/res/$name.out" 2>"$pb/res/$name.err" </dev/null
	echo $? >"$pb/res/$name.rc"
}
BODY='curl -s -m 10 -w " %{http_code}" "$@"; echo " rc=$?"'
# each URL's status only (the proxy's refusal body is checked by the unit tests)
CURL='for u; do curl -s -m 10 -o /dev/null -w " %{http_code}" "$u"; done; echo'
jail public-standin sh -c "$BODY" - http://198.51.100.7:8080/hi.txt
printf '198.51.100.7 pub.test\n' >"$pb/hosts"
jail public-standin-name sh -c "$BODY" - http://pub.test:8080/hi.txt
jail public-standin-connect sh -c "$BODY" - -p http://pub.test:8080/hi.txt
jail public-loopback sh -c "$CURL" - http://127.0.0.1:8081/hi.txt
jail public-loopback-2 sh -c "$CURL" - http://127.0.0.2:8081/hi.txt
jail public-loopback-v6 sh -c "$CURL" - 'http://[::1]:8081/hi.txt'
jail public-rfc1918 sh -c "$CURL" - http://10.1.2.3:8080/hi.txt
jail public-metadata sh -c "$CURL" - http://169.254.169.254:8080/hi.txt
jail public-mapped sh -c "$CURL" - 'http://[::ffff:127.0.0.1]:8081/hi.txt' 'http://[::ffff:a01:203]:8080/hi.txt' 'http://[::ffff:169.254.169.254]:8080/hi.txt'
jail public-decimal sh -c "$CURL" - http://2130706433:8081/hi.txt http://167838211:8080/hi.txt http://2852039166:8080/hi.txt http://0x7f.1:8081/hi.txt
# the spellings only inet_aton reads, sent to the proxy as written
jail public-odd-name python3 -c 'import socket
for h in ("2130706433:8081", "0x7f.1:8081", "127.1:8081", "0251.0376.0251.0376:8080"):
    s = socket.create_connection(("127.0.0.1", 3128), 10)
    s.sendall(b"CONNECT " + h.encode() + b" HTTP/1.1\r\nHost: " + h.encode() + b"\r\n\r\n")
    print(h, s.recv(64).split(b"\r\n")[0].decode())
    s.close()'
jail public-own-address sh -c "$CURL" - http://198.51.100.1:8081/hi.txt
printf '198.51.100.7 mixed.test\n10.1.2.3 mixed.test\n' >"$pb/hosts"
jail public-mixed sh -c "$CURL" - http://mixed.test:8080/hi.txt
# one run, two connections to one name: public the first time, private
# after the file changed; the jail waits for the change (no clock)
printf '198.51.100.7 flip.test\n' >"$pb/hosts"
rm -f "$pb/proj/flipped"
jail public-rebind sh -c 'curl -s -m 10 http://flip.test:8080/hi.txt; echo " 1st"; echo >ready; while [ ! -e flipped ]; do sleep 0.05; done; curl -s -m 10 -o /dev/null -w " %{http_code}" http://flip.test:8080/hi.txt; echo " 2nd"' &
jp=$!
# the jail sees the project read-only or read-write: the first answer is
# what tells this side to flip, whichever it is
for _ in $(seq 600); do grep -q 1st "$pb/res/public-rebind.out" 2>/dev/null && break; sleep 0.05; done
printf '10.1.2.3 flip.test\n' >"$pb/hosts"
touch "$pb/proj/flipped"
wait $jp
printf '10.1.2.3 mixed.test\n' >"$pb/hosts"
jail public-log --jail-log="$pb/res/log.jsonl" sh -c "$BODY" - http://mixed.test:8080/hi.txt
jail public-explain --jail-explain=json true
# The transparent relay: clients that ignore the proxy variables
STUB=jail-relaytest jail relay-node-fetch node -e 'fetch("http://rl.test:8080/hi.txt").then(r => r.text()).then(t => console.log(t, "ok"), e => { console.log("failed", String(e.cause || e)); process.exit(1); })'
STUB=jail-relaytest jail relay-python-socket --jail-log="$pb/res/relay.jsonl" python3 -c 'import socket
s = socket.create_connection(("rl.test", 443), 10)
s.sendall(b"GET /hi.txt HTTP/1.0\r\nHost: rl.test\r\n\r\n")
d = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    d += b
print(d.split(b"\r\n\r\n", 1)[-1].decode(), s.getpeername()[0].startswith("127."))'
STUB=jail-relaytest jail relay-ssh ssh -v -p 2222 -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=10 rl.test true
STUB=jail-relaytest jail relay-unlisted --jail-log="$pb/res/unlisted.jsonl" sh -c 'getent hosts priv.test; echo "rc=$?"'
# under public: a name the nameserver points at 10.1.2.3, once through
# the relay, once through the proxy (CONNECT): the same refusal
cat >"$pb/proj/private.py" <<'PY'
import socket
s = socket.create_connection(("pub2.test", 80), 10)
s.sendall(b"GET /hi.txt HTTP/1.0\r\n\r\n")
print(s.makefile("rb").read().split(b"\r\n\r\n")[-1].decode())
s = socket.create_connection(("priv.test", 80), 10)
s.sendall(b"GET /hi.txt HTTP/1.0\r\n\r\n")
try:
    print(len(s.recv(100)))
except OSError as e:
    print(type(e).__name__)
PY
jail relay-public-private --jail-log="$pb/res/private.jsonl" sh -c 'python3 private.py; curl -s -p -o /dev/null -w "%{http_connect}\n" http://priv.test:80/hi.txt; true'
STUB=jail-relaytest jail relay-explain --jail-explain=json true
# the generic jail's default group (no network) raised at run time
STUB=jail jail public-net-option --jail-net=public sh -c "$CURL" - http://198.51.100.7:8080/hi.txt http://127.0.0.1:8081/hi.txt
# last, as it changes resolv.conf: three nameservers, each answered in the
# jail (the parent asks the stand-in on the first two)
ip addr add 192.0.2.53/32 dev lo && ip addr add 192.0.2.54/32 dev lo &&
	printf 'nameserver 192.0.2.53\nnameserver 192.0.2.54\nnameserver 192.0.2.55\n' >"$pb/resolv.conf" &&
	mount --bind "$pb/resolv.conf" /etc/resolv.conf || exit 8
python3 "$pb/dns.py" "$pb/dns" 192.0.2.53 192.0.2.54 >"$pb/res/dns2.log" 2>&1 &
srv7=$!
trap 'kill $srv1 $srv2 $srv3 $srv4 $srv5 $srv6 $srv7 $out 2>/dev/null' EXIT
STUB=jail-relaytest jail relay-nameservers python3 -c 'import socket, subprocess
print(sorted(a.split()[3] for a in subprocess.run(["ip", "-o", "-4", "addr", "show", "lo"], capture_output=True, text=True).stdout.splitlines()))
print(socket.gethostbyname("rl.test"))'
EOF
	"${pb_pre[@]}" unshare -Urnm bash "$T/pb/in.sh" "$T" "$bin" "$tuid" "$tgid" "$thome" "$root/tests/lib" \
		>"$T/pb/in.log" 2>&1
	pb_rc=$?
	ERR=$(cat "$T/pb/in.log")
	pb_res() { # NAME: RC OUT ERR of the case
		RC=$(cat "$T/pb/res/$1.rc" 2>/dev/null)
		OUT=$(cat "$T/pb/res/$1.out" 2>/dev/null)
		ERR=$(cat "$T/pb/res/$1.err" 2>/dev/null)
	}
	if [ "$(cat "$T/pb/res/control" 2>/dev/null)" != ok ]; then
		ERR="$ERR $(cat "$T/pb/res/control" 2>/dev/null)"
		for n in $pb_cases; do c "$n" && fail "$n" "the namespaces or their servers could not be set up (exit $pb_rc)"; done
		want_pb=0
	fi
fi

# pb_refused NAME WANT-OUT WHY…: refused by the proxy (403) with a line
# naming each address and why.
pb_refused() {
	local name=$1 want=$2 w
	shift 2
	c "$name" || return 0
	pb_res "$name"
	if [ "$RC" != 0 ]; then
		fail "$name" "exit status $RC, expected 0; stdout $(q "$OUT")"
		return
	fi
	if [ "$OUT" != "$want" ]; then
		fail "$name" "stdout $(q "$OUT"), expected $(q "$want")"
		return
	fi
	for w in "$@"; do
		if ! grep -qF -- "$w" <<<"$ERR"; then
			fail "$name" "stderr names no $(q "$w")"
			return
		fi
	done
	pass "$name"
}

if [ $want_pb = 1 ]; then
	if c public-standin; then pb_res public-standin; expect public-standin 0 "pub-ok 200 rc=0"; fi
	if c public-standin-name; then pb_res public-standin-name; expect public-standin-name 0 "pub-ok 200 rc=0"; fi
	if c public-standin-connect; then pb_res public-standin-connect; expect public-standin-connect 0 "pub-ok 200 rc=0"; fi
	pb_refused public-loopback " 403" \
		"it resolves to 127.0.0.1, a loopback address"
	pb_refused public-loopback-2 " 403" \
		"it resolves to 127.0.0.2, a loopback address"
	pb_refused public-loopback-v6 " 403" \
		"it resolves to ::1, a loopback address"
	pb_refused public-rfc1918 " 403" \
		"it resolves to 10.1.2.3, a private address"
	pb_refused public-metadata " 403" \
		"it resolves to 169.254.169.254, the cloud metadata address"
	pb_refused public-mapped " 403 403 403" \
		"::ffff:127.0.0.1, a loopback address" "::ffff:10.1.2.3, a private address" \
		"::ffff:169.254.169.254, the cloud metadata address"
	pb_refused public-decimal " 403 403 403 403" \
		"127.0.0.1, a loopback address" "10.1.2.3, a private address" "169.254.169.254, the cloud metadata address"
	# not a name the proxy takes: refused before any lookup
	pb_refused public-odd-name "2130706433:8081 HTTP/1.1 400 Bad Request
0x7f.1:8081 HTTP/1.1 400 Bad Request
127.1:8081 HTTP/1.1 400 Bad Request
0251.0376.0251.0376:8080 HTTP/1.1 400 Bad Request"
	pb_refused public-own-address " 403" \
		"it resolves to 198.51.100.1, an address of the host itself"
	pb_refused public-mixed " 403" \
		"refused a connection to mixed.test:8080: it resolves to 10.1.2.3, a private address"
	pb_refused public-rebind "pub-ok 1st
 403 2nd" \
		"refused a connection to flip.test:8080: it resolves to 10.1.2.3, a private address"
	if c public-log; then
		pb_res public-log
		l=$(grep -F '"host":"mixed.test"' "$T/pb/res/log.jsonl" 2>/dev/null)
		if grep -qF '"reason":"it resolves to 10.1.2.3, a private address"' <<<"$l"; then
			pass public-log
		else
			fail public-log "--jail-log has no refusal naming 10.1.2.3: $(q "$(cat "$T/pb/res/log.jsonl" 2>/dev/null)")"
		fi
	fi
	pb_refused public-net-option " 200 403" "it resolves to 127.0.0.1, a loopback address"
	if c relay-node-fetch && ! command -v node >/dev/null; then
		skip relay-node-fetch "node is not installed"
	elif c relay-node-fetch; then
		pb_res relay-node-fetch
		expect relay-node-fetch 0 "pub-ok ok"
	fi
	if c relay-python-socket; then
		pb_res relay-python-socket
		l=$(grep -F '"kind":"allowed"' "$T/pb/res/relay.jsonl" 2>/dev/null)
		if [ "$RC $OUT" != "0 pub-ok True" ]; then
			fail relay-python-socket "exit $RC, stdout $(q "$OUT"), expected pub-ok through a loopback address"
		elif ! grep -qF '"host":"rl.test","port":443,"address":"198.51.100.7"' <<<"$l"; then
			fail relay-python-socket "--jail-log has no allowed line for rl.test:443: $(q "$(cat "$T/pb/res/relay.jsonl" 2>/dev/null)")"
		else
			pass relay-python-socket
		fi
	fi
	if c relay-ssh && ! command -v ssh >/dev/null; then
		skip relay-ssh "ssh is not installed"
	elif c relay-ssh; then
		pb_res relay-ssh
		if grep -qF 'remote software version aijail_standin' <<<"$ERR"; then
			pass relay-ssh
		else
			fail relay-ssh "ssh did not read the stand-in's banner (exit $RC)"
		fi
	fi
	if c relay-unlisted && ! grep -qF '"kind":"lookup","host":"priv.test","reason":"not in the list"' "$T/pb/res/unlisted.jsonl" 2>/dev/null; then
		fail relay-unlisted "--jail-log has no lookup refusal: $(q "$(cat "$T/pb/res/unlisted.jsonl" 2>/dev/null)")"
	else
		pb_refused relay-unlisted "rc=2" "refused a lookup of priv.test: not in the list"
	fi
	if c relay-public-private; then
		pb_res relay-public-private
		# both refusals, the same record but its time
		recs=$(grep -F '"host":"priv.test"' "$T/pb/res/private.jsonl" 2>/dev/null | sed 's/"time":[0-9.]*,//' | sort | uniq -c)
		if [ "$RC" != 0 ] || ! grep -qxE 'pub-ok (0|ConnectionResetError) 403' <<<"${OUT//$'\n'/ }"; then
			fail relay-public-private "exit $RC, stdout $(q "$OUT")"
		elif ! grep -qF '2 {"kind":"connection","host":"priv.test","port":80,"reason":"it resolves to 10.1.2.3, a private address"}' <<<"$recs"; then
			fail relay-public-private "the relay's and the proxy's refusals differ: $(q "$recs")"
		else
			pass relay-public-private
		fi
	fi
	if c relay-explain; then
		pb_res relay-explain
		got=$($py -c 'import json, sys
n = json.loads(sys.stdin.read())["network"]
print(n["relay"]["udp"], "127.77.1." in n["relay"]["addresses"])' <<<"$OUT" 2>&1)
		if [ "$got" = "not relayed True" ]; then
			pass relay-explain
		else
			fail relay-explain "network object: $(q "$got")"
		fi
	fi
	if c relay-nameservers; then
		pb_res relay-nameservers
		expect relay-nameservers 0 "['127.0.0.1/8', '192.0.2.53/32', '192.0.2.54/32', '192.0.2.55/32']
127.77.1.1"
	fi
	if c public-explain; then
		pb_res public-explain
		got=$($py -c 'import json, sys
n = json.loads(sys.stdin.read())["network"]
print(n["level"], n["hosts"], "169.254" in n["excluded"] or "metadata" in n["excluded"], "host" in n["excluded"])' <<<"$OUT" 2>&1)
		if [ "$got" = "public any name True True" ]; then
			pass public-explain
		else
			fail public-explain "network object: $(q "$got")"
		fi
	fi
fi
