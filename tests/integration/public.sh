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
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

pb_cases="public-standin public-standin-name public-standin-connect public-loopback public-loopback-2
	public-loopback-v6 public-rfc1918 public-metadata public-mapped public-decimal public-odd-name
	public-own-address public-mixed public-rebind public-log public-explain public-net-option"
want_pb=0
for n in $pb_cases; do c "$n" && want_pb=1; done

pb_why=
if [ $want_pb = 1 ]; then
	for t in unshare nsenter ip curl; do
		command -v "$t" >/dev/null || pb_why="$t is not installed"
	done
	pb_pre=()
	[ "$as_root" -eq 1 ] && pb_pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups)
	if [ -z "$pb_why" ] && ! "${pb_pre[@]}" unshare -Urnm sh -c 'ip link set lo up && unshare -U --map-user=1 true' 2>/dev/null; then
		pb_why="the test user cannot make user and network namespaces here (unshare -Urnm)"
	fi
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
	chmod 0755 "$bin/jail-pubtest"
	chown -R "$tuid:$tgid" "$T/pb"
	# Run inside the namespaces: sets them up, then one line a case in
	# res/NAME: the jail's exit status, stdout, then stderr.
	cat >"$T/pb/in.sh" <<'EOF'
set -u
T=$1 bin=$2 tuid=$3 tgid=$4 thome=$5
pb=$T/pb
mount --bind "$pb/hosts" /etc/hosts || exit 3
ip link set lo up
unshare -n sleep 3600 &
out=$!
for _ in $(seq 100); do
	[ "$(readlink /proc/$out/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.05
done
ip link add va type veth peer name vb netns "$out" || exit 4
ip addr add 198.51.100.1/24 dev va
ip link set va up
ip route add 10.1.2.3/32 dev va
ip route add 169.254.169.254/32 dev va
nsenter -t "$out" -n sh -c 'ip link set lo up && ip link set vb up &&
	ip addr add 198.51.100.7/24 dev vb && ip addr add 10.1.2.3/32 dev vb &&
	ip addr add 169.254.169.254/32 dev vb && ip route add 198.51.100.1/32 dev vb' || exit 5
# the outside: one server on every address of the other namespace
nsenter -t "$out" -n python3 -m http.server --bind 0.0.0.0 --directory "$pb/www" 8080 >/dev/null 2>&1 &
srv1=$!
# the host: every address of this namespace, both families
python3 -m http.server --bind :: --directory "$pb/www" 8081 >/dev/null 2>&1 &
srv2=$!
trap 'kill $srv1 $srv2 $out 2>/dev/null' EXIT
# controls: each listener answers from here (none of this is the jail)
for u in 198.51.100.7:8080 10.1.2.3:8080 169.254.169.254:8080 127.0.0.1:8081 127.0.0.2:8081 '[::1]:8081' 198.51.100.1:8081; do
	ok=
	for _ in $(seq 100); do
		[ "$(curl -s -m 5 --noproxy '*' "http://$u/hi.txt")" = pub-ok ] && ok=1 && break
		sleep 0.1
	done
	[ -n "$ok" ] || { echo "control: $u does not answer" >"$pb/res/control"; exit 6; }
done
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
# the generic jail's default group (no network) raised at run time
STUB=jail jail public-net-option --jail-net=public sh -c "$CURL" - http://198.51.100.7:8080/hi.txt http://127.0.0.1:8081/hi.txt
EOF
	"${pb_pre[@]}" unshare -Urnm bash "$T/pb/in.sh" "$T" "$bin" "$tuid" "$tgid" "$thome" \
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
