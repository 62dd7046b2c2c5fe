# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# upstream.sh: a corporate proxy upstream (issue 32 item 6), seen from
# inside, with no packet to any real network.  As public.sh: every case
# runs in a user, network and mount namespace the test makes (unshare
# -Urnm), with a veth pair to a second network namespace holding the
# "outside" (198.51.100.7, 10.1.2.3), /etc/hosts and /etc/resolv.conf
# files of the test's own bound over the real ones there (no nameserver:
# the stub's resolver asks nothing that leaves the namespace).  The
# caller's HTTPS_PROXY/HTTP_PROXY name a stand-in CONNECT proxy on the
# namespace's 127.0.0.1 (upstream.py below, the test's own), with a user
# and password; it resolves names itself (up.test is known to it only),
# records each request line and its Proxy-Authorization, and refuses
# deny.test with a 403.  NO_PROXY names direct.test, which /etc/hosts
# knows.  Sourced by run.sh (its helpers, fixture and counters); not run
# alone.

up_cases="upstream-connect upstream-plain upstream-auth upstream-environ upstream-noproxy
	upstream-denied upstream-public upstream-public-literal upstream-log upstream-explain
	upstream-explain-text upstream-down upstream-bad-url upstream-bad-scheme"
want_up=0
for n in $up_cases; do c "$n" && want_up=1; done

up_why=
if [ $want_up = 1 ]; then
	up_why=$(netns_why unshare nsenter ip curl)
	up_pre=("${netns_pre[@]}")
fi

if [ $want_up = 1 ] && [ -n "$up_why" ]; then
	for n in $up_cases; do c "$n" && skip "$n" "$up_why"; done
elif [ $want_up = 1 ]; then
	mkdir -p "$T/up/www" "$T/up/proj" "$T/up/res"
	printf 'up-ok' >"$T/up/www/hi.txt"
	printf '127.0.0.1 localhost\n198.51.100.7 direct.test\n' >"$T/up/hosts"
	: >"$T/up/resolv.conf"
	for lvl in allow public; do
		if [ $lvl = allow ]; then
			net='network allow "up.test:8080" "deny.test:8080" "direct.test:8080" "10.1.2.3:8080";'
		else
			net='network public;'
		fi
		cat >"$T/up/$lvl.aj" <<EOF
include "base.aj";

policy up$lvl extends base {
    $net
}
EOF
		if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-up$lvl" "$T/up/$lvl.aj" \
			>"$T/up/build.log" 2>&1; then
			ERR=$(cat "$T/up/build.log")
			fail upstream-build "aijail-compile --build of the test policy failed"
		fi
		chmod 0755 "$bin/jail-up$lvl"
	done
	# The stand-in upstream (tests/lib/connectproxy.py): CONNECT only,
	# up.test from its own table, one line per request in its log: the
	# request line, then the Proxy-Authorization header's value ("-" when
	# none).
	cp "$root/tests/lib/connectproxy.py" "$T/up/upstream.py"
	chown -R "$tuid:$tgid" "$T/up"
	# Run inside the namespaces: one case a file in res/NAME.{rc,out,err}.
	cat >"$T/up/in.sh" <<'EOF'
set -u
T=$1 bin=$2 tuid=$3 tgid=$4 thome=$5 lib=$6
up=$T/up
mount --bind "$up/hosts" /etc/hosts || exit 3
mount --bind "$up/resolv.conf" /etc/resolv.conf || exit 3
# shellcheck source=tests/lib/netns.sh
. "$lib/netns.sh"
netns_outside 198.51.100 10.1.2.3 || exit
out=$netns_out
nsenter -t "$out" -n python3 -m http.server --bind 0.0.0.0 --directory "$up/www" 8080 >/dev/null 2>&1 &
srv1=$!
python3 "$up/upstream.py" "$up/res/upstream.log" "$up/res/port" up.test=198.51.100.7 2>"$up/res/upstream.err" &
srv2=$!
trap 'kill $srv1 $srv2 $out 2>/dev/null' EXIT
ok=
for _ in $(seq 100); do
	[ -s "$up/res/port" ] && [ "$(curl -s -m 5 --noproxy '*' http://198.51.100.7:8080/hi.txt)" = up-ok ] && ok=1 && break
	sleep 0.1
done
[ -n "$ok" ] || { echo "control: the outside or the upstream does not answer" >"$up/res/control"; exit 6; }
port=$(cat "$up/res/port")
# the control: the stand-in reaches up.test itself
[ "$(curl -s -m 5 -p -x "http://127.0.0.1:$port" http://up.test:8080/hi.txt)" = up-ok ] ||
	{ echo "control: the upstream does not relay" >"$up/res/control"; exit 6; }
: >"$up/res/upstream.log"
echo ok >"$up/res/control"
cd "$up/proj" || exit 7
URL="http://ajuser:s3cr%40t@127.0.0.1:$port"
jail() { # NAME ARGS…: the stub as the test user, behind the upstream
	local name=$1
	shift
	unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
		https_proxy="${UP_HTTPS-$URL}" HTTP_PROXY="$URL" NO_PROXY=direct.test \
		timeout -k 5 60 "$bin/${STUB:-jail-upallow}" "$@" >"$up/res/$name.out" 2>"$up/res/$name.err" </dev/null
	echo $? >"$up/res/$name.rc"
}
BODY='curl -s -m 10 -w " %{http_code}" "$@"; echo " rc=$?"'
CODE='for u; do curl -s -m 10 -o /dev/null -w " %{http_code}" "$u"; done; echo'
jail upstream-connect sh -c "$BODY" - -p http://up.test:8080/hi.txt
cp "$up/res/upstream.log" "$up/res/connect.log"
jail upstream-plain sh -c "$BODY" - http://up.test:8080/hi.txt
cp "$up/res/upstream.log" "$up/res/plain.log"
jail upstream-environ sh -c 'cat /proc/self/environ | tr "\0" "\n"; echo; cat /proc/1/environ 2>/dev/null | tr "\0" "\n"'
jail upstream-noproxy sh -c "$BODY" - http://direct.test:8080/hi.txt
cp "$up/res/upstream.log" "$up/res/noproxy.log"
jail upstream-denied sh -c "$CODE" - http://deny.test:8080/hi.txt
STUB=jail-uppublic jail upstream-public sh -c "$BODY" - http://up.test:8080/hi.txt
: >"$up/res/upstream.log"
STUB=jail-uppublic jail upstream-public-literal sh -c "$CODE" - http://10.1.2.3:8080/hi.txt http://127.0.0.1:$port/
cp "$up/res/upstream.log" "$up/res/literal.log"
jail upstream-log --jail-log="$up/res/log.jsonl" sh -c "$BODY" - http://up.test:8080/hi.txt
jail upstream-explain --jail-explain=json true
jail upstream-explain-text --jail-explain true
UP_HTTPS='http://ajuser:s3cr3t@proxy.invalid:99999' jail upstream-bad-url true
UP_HTTPS='socks5://ajuser:s3cr3t@127.0.0.1:1080' jail upstream-bad-scheme true
kill $srv2
wait $srv2 2>/dev/null
jail upstream-down --jail-log="$up/res/down.jsonl" sh -c "$CODE" - http://up.test:8080/hi.txt
echo "$port" >"$up/res/port"
EOF
	"${up_pre[@]}" unshare -Urnm bash "$T/up/in.sh" "$T" "$bin" "$tuid" "$tgid" "$thome" "$root/tests/lib" \
		>"$T/up/in.log" 2>&1
	up_rc=$?
	ERR=$(cat "$T/up/in.log")
	if [ "$(cat "$T/up/res/control" 2>/dev/null)" != ok ]; then
		ERR="$ERR $(cat "$T/up/res/control" 2>/dev/null)"
		for n in $up_cases; do c "$n" && fail "$n" "the namespaces or their servers could not be set up (exit $up_rc)"; done
		want_up=0
	fi
fi

up_res() { # NAME: RC OUT ERR of the case
	RC=$(cat "$T/up/res/$1.rc" 2>/dev/null)
	OUT=$(cat "$T/up/res/$1.out" 2>/dev/null)
	ERR=$(cat "$T/up/res/$1.err" 2>/dev/null)
}

# up_secret NAME TEXT [PORT]: fails NAME when TEXT holds the user, the
# password (as written, decoded, or in the Basic header), or PORT.
up_secret() {
	local w
	for w in ajuser s3cr '%40t' YWp1c2VyOnMzY3JAdA ${3:+"$3"}; do
		if grep -qF -- "$w" <<<"$2"; then
			fail "$1" "the jail or a message sees $(q "$w"): $(q "$2")"
			return 0
		fi
	done
	return 1
}

if [ $want_up = 1 ]; then
	up_port=$(cat "$T/up/res/port" 2>/dev/null)
	# YWp1c2VyOnMzY3JAdA== is base64 of "ajuser:s3cr@t" (%40 decoded)
	up_auth="YWp1c2VyOnMzY3JAdA=="
	if c upstream-connect; then
		up_res upstream-connect
		if grep -qxF "CONNECT up.test:8080 HTTP/1.1 | Basic $up_auth" "$T/up/res/connect.log"; then
			expect upstream-connect 0 "up-ok 200 rc=0"
		else
			fail upstream-connect "the upstream saw $(q "$(cat "$T/up/res/connect.log")"); stdout $(q "$OUT"), stderr $(q "$ERR")"
		fi
	fi
	if c upstream-plain; then
		up_res upstream-plain
		if [ "$(grep -cxF "CONNECT up.test:8080 HTTP/1.1 | Basic $up_auth" "$T/up/res/plain.log")" = 2 ]; then
			expect upstream-plain 0 "up-ok 200 rc=0"
		else
			fail upstream-plain "the upstream saw $(q "$(cat "$T/up/res/plain.log")"); stdout $(q "$OUT")"
		fi
	fi
	if c upstream-auth; then
		# every request the stand-in saw carried the credentials
		if grep -q . "$T/up/res/plain.log" && ! grep -vqF "| Basic $up_auth" "$T/up/res/plain.log"; then
			pass upstream-auth
		else
			fail upstream-auth "requests without Proxy-Authorization: $(q "$(cat "$T/up/res/plain.log")")"
		fi
	fi
	if c upstream-environ; then
		up_res upstream-environ
		if ! up_secret upstream-environ "$OUT" "$up_port"; then
			if grep -qx 'https_proxy=http://127.0.0.1:3128' <<<"$OUT" &&
				grep -qx 'HTTP_PROXY=http://127.0.0.1:3128' <<<"$OUT"; then
				pass upstream-environ
			else
				fail upstream-environ "the jail's proxy variables are not the stub's: $(q "$OUT")"
			fi
		fi
	fi
	if c upstream-noproxy; then
		up_res upstream-noproxy
		if grep -qF direct.test "$T/up/res/noproxy.log"; then
			fail upstream-noproxy "the upstream saw the NO_PROXY host: $(q "$(cat "$T/up/res/noproxy.log")")"
		else
			expect upstream-noproxy 0 "up-ok 200 rc=0"
		fi
	fi
	if c upstream-denied; then
		up_res upstream-denied
		if [ "$OUT" != " 403" ]; then
			fail upstream-denied "stdout $(q "$OUT"), expected ' 403'"
		elif ! grep -qF "refused a connection to deny.test:8080: the upstream proxy 127.0.0.1:$up_port refused the connection: 403" <<<"$ERR"; then
			fail upstream-denied "stderr does not name the upstream's refusal: $(q "$ERR")"
		elif ! up_secret upstream-denied "${ERR//127.0.0.1:$up_port/}$OUT"; then
			pass upstream-denied
		fi
	fi
	if c upstream-public; then up_res upstream-public; expect upstream-public 0 "up-ok 200 rc=0"; fi
	if c upstream-public-literal; then
		# a private and a loopback literal: refused by the stub, never sent
		up_res upstream-public-literal
		if [ "$OUT" != " 403 403" ]; then
			fail upstream-public-literal "stdout $(q "$OUT"), expected ' 403 403'"
		elif [ -s "$T/up/res/literal.log" ]; then
			fail upstream-public-literal "the upstream was asked: $(q "$(cat "$T/up/res/literal.log")")"
		elif ! grep -qF "it resolves to 10.1.2.3, a private address" <<<"$ERR"; then
			fail upstream-public-literal "stderr $(q "$ERR")"
		else
			pass upstream-public-literal
		fi
	fi
	if c upstream-log; then
		up_res upstream-log
		l=$(cat "$T/up/res/log.jsonl" 2>/dev/null)
		if ! grep -q '"kind":"allowed".*"host":"up.test"' <<<"$l"; then
			fail upstream-log "no allowed line for up.test: $(q "$l"); stdout $(q "$OUT")"
		elif ! up_secret upstream-log "$l"; then
			pass upstream-log
		fi
	fi
	if c upstream-explain; then
		up_res upstream-explain
		got=$($py -c 'import json, sys
n = json.loads(sys.stdin.read())["network"]["upstream"]
print(n["https"], n["https_from"], n["http"], n["http_from"], n["no_proxy"])' <<<"$OUT" 2>&1)
		if [ "$got" != "127.0.0.1:$up_port https_proxy 127.0.0.1:$up_port HTTP_PROXY ['direct.test']" ]; then
			fail upstream-explain "network.upstream: $(q "$got")"
		elif ! up_secret upstream-explain "${OUT//127.0.0.1:$up_port/}"; then
			pass upstream-explain
		fi
	fi
	if c upstream-explain-text; then
		up_res upstream-explain-text
		if ! grep -qF "then through the upstream proxy 127.0.0.1:$up_port (https_proxy) for CONNECT" <<<"$OUT"; then
			fail upstream-explain-text "no upstream line: $(q "$OUT")"
		elif ! up_secret upstream-explain-text "${OUT//127.0.0.1:$up_port/}"; then
			pass upstream-explain-text
		fi
	fi
	for n in upstream-bad-url upstream-bad-scheme; do
		c $n || continue
		up_res $n
		if [ "$RC" != 125 ]; then
			fail $n "exit status $(q "$RC"), expected 125; stderr $(q "$ERR")"
		elif ! grep -qF "read the upstream proxy of https_proxy" <<<"$ERR"; then
			fail $n "stderr names no variable: $(q "$ERR")"
		elif ! up_secret $n "$ERR"; then
			pass $n
		fi
	done
	if c upstream-down; then
		up_res upstream-down
		l=$(cat "$T/up/res/down.jsonl" 2>/dev/null)
		if [ "$OUT" != " 502" ]; then
			fail upstream-down "stdout $(q "$OUT"), expected ' 502'; stderr $(q "$ERR")"
		elif ! grep -qF "refused a connection to up.test:8080: the upstream proxy 127.0.0.1:$up_port did not answer" <<<"$ERR"; then
			fail upstream-down "stderr does not name the upstream: $(q "$ERR")"
		elif ! grep -qF "the upstream proxy 127.0.0.1:$up_port did not answer" <<<"$l"; then
			fail upstream-down "--jail-log does not name the upstream: $(q "$l")"
		elif ! up_secret upstream-down "${ERR//127.0.0.1:$up_port/}${l//127.0.0.1:$up_port/}"; then
			pass upstream-down
		fi
	fi
fi
