# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# forward.sh: --jail-forward, seen from inside.  A plain HTTP server on the
# host's 127.0.0.1, started as the test user outside every jail, answers a
# client that knows nothing of proxies (Python's urllib, no proxy
# variables) in a 'network none' jail through --jail-forward=PORT, and not
# without it; another host port and a name lookup still fail; [::1] is
# reached as 127.0.0.1 inside; a mode that fixes the network, --jail-net
# and a bad host refuse the option; --jail-explain lists it.  The policy's
# 'network host' (jail-python) is narrowed to the forwarded ports.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

fw_cases="forward-reach forward-with-allow forward-without forward-other-port forward-dns forward-v6 forward-lockdown
	forward-jail-net forward-bad-host forward-narrows-host forward-explain"
want_fw=0
for n in $fw_cases; do c "$n" && want_fw=1; done

fw_port() {
	$py -c 'import socket, sys; s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$1"
}

# fw_serve ADDR PORT: a plain HTTP server of $T/fw/www, as the test user.
fw_serve() {
	local pre=()

	[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups)
	"${pre[@]}" $py -m http.server --bind "$1" --directory "$T/fw/www" "$2" >/dev/null 2>&1 &
	fw_pids+=($!)
	bgpids+=($!)
	for _ in $(seq 50); do
		$py -c 'import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1).close()' "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# In the jail: GET http://127.0.0.1:PORT/hi.txt, the body or the errno's name.
FW_GET='import sys, errno, urllib.request
try:
    print(urllib.request.urlopen("http://127.0.0.1:%s/hi.txt" % sys.argv[1], timeout=10).read().decode())
except OSError as e:
    e = getattr(e, "reason", e)
    print(errno.errorcode.get(getattr(e, "errno", None), str(e)))'

fw_pids=()
if [ $want_fw = 1 ]; then
	mkdir -p "$T/fw/www"
	printf 'forward-ok' >"$T/fw/www/hi.txt"
	chown -R "$tuid:$tgid" "$T/fw"
	fw_p=$(fw_port 127.0.0.1)
	fw_other=$(fw_port 127.0.0.1)
	fw_p6=
	fw_serve 127.0.0.1 "$fw_p" && fw_serve 127.0.0.1 "$fw_other" || fw_p=
	if fw_p6=$(fw_port ::1 2>/dev/null) && [ -n "$fw_p6" ]; then
		fw_serve ::1 "$fw_p6" || fw_p6=
	fi
fi

if [ $want_fw = 1 ] && [ -z "$fw_p" ]; then
	for n in $fw_cases; do c "$n" && skip "$n" "no HTTP server on 127.0.0.1 could be started"; done
elif [ $want_fw = 1 ]; then
	if c forward-reach; then
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" "$py" -c "$FW_GET" "$fw_p"
		expect forward-reach 0 forward-ok
	fi
	# Beside 'network allow' (the proxy's variables set): the client goes
	# straight to the port, which answers, while the proxy still refuses it.
	if c forward-with-allow; then
		jrun user -- jail-worker --jail-allow-host=example.com:443 --jail-forward="$fw_p" "$py" -c 'import os, sys, urllib.request
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
print(os.environ.get("HTTP_PROXY", "unset") != "unset", direct.open("http://127.0.0.1:%s/hi.txt" % sys.argv[1], timeout=10).read().decode())' "$fw_p"
		expect forward-with-allow 0 "True forward-ok"
	fi
	# The same jail without the option: the port is not there.
	if c forward-without; then
		jrun user -- jail-worker --jail-no-net "$py" -c "$FW_GET" "$fw_p"
		if [ "$RC" = 0 ] && [ -n "$OUT" ] && [ "$OUT" != forward-ok ]; then pass forward-without; else
			fail forward-without "exit status $RC, stdout $(q "$OUT"); expected an error"
		fi
	fi
	# Another port of the host's, listening too: refused inside (by
	# Landlock where it handles TCP, else nothing listens there).
	if c forward-other-port; then
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" "$py" -c "$FW_GET" "$fw_other"
		if [ "$RC" = 0 ] && { [ "$OUT" = EACCES ] || [ "$OUT" = ECONNREFUSED ]; }; then pass forward-other-port; else
			fail forward-other-port "exit status $RC, stdout $(q "$OUT"); expected EACCES or ECONNREFUSED"
		fi
	fi
	if c forward-dns; then
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" "$py" -c 'import socket
try:
    socket.getaddrinfo("example.com", 80)
    print("resolved")
except socket.gaierror:
    print("no-dns")'
		expect forward-dns 0 no-dns
	fi
	if c forward-v6; then
		if [ -z "$fw_p6" ]; then
			skip forward-v6 "no listener on ::1 (IPv6 off here)"
		else
			jrun user -- jail-worker --jail-no-net --jail-forward="[::1]:$fw_p6" "$py" -c "$FW_GET" "$fw_p6"
			expect forward-v6 0 forward-ok
		fi
	fi
	if c forward-lockdown; then
		jrun user -- jail-worker --jail-mode=lockdown --jail-forward="$fw_p" true
		if [ "$RC" = 125 ] && [[ $ERR == *"--jail-forward=$fw_p: this mode fixes the network"* ]]; then
			pass forward-lockdown
		else
			fail forward-lockdown "exit status $RC, stderr $(q "$ERR"); expected 125 naming the option"
		fi
	fi
	if c forward-jail-net; then
		jrun user -- jail-worker --jail-net --jail-forward="$fw_p" true
		if [ "$RC" = 125 ] && [[ $ERR == *"--jail-forward=$fw_p: --jail-net gives the host's network"* ]]; then
			pass forward-jail-net
		else
			fail forward-jail-net "exit status $RC, stderr $(q "$ERR"); expected 125 naming the option"
		fi
	fi
	if c forward-bad-host; then
		jrun user -- jail-worker --jail-forward="10.0.0.1:$fw_p" true
		if [ "$RC" != 0 ] && [[ $ERR == *"127.0.0.1 or ::1 only"* ]]; then pass forward-bad-host; else
			fail forward-bad-host "exit status $RC, stderr $(q "$ERR")"
		fi
	fi
	# jail-python's 'network host' becomes the loopback with the port only.
	if c forward-narrows-host; then
		jrun user -- jail-python --jail-forward="$fw_p" -c "$FW_GET"'
print(sys.argv[2])
s = __import__("socket")
try:
    s.getaddrinfo("example.com", 80)
    print("resolved")
except s.gaierror:
    print("no-dns")' "$fw_p" x
		expect forward-narrows-host 0 "forward-ok"$'\n'"x"$'\n'"no-dns"
	fi
	if c forward-explain; then
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" --jail-explain=json
		got=$(printf '%s' "$OUT" | $py -c 'import json, sys
n = json.load(sys.stdin)["network"]
print(n["level"], " ".join("%s>%s:%s" % (f["port"], f["host"], f["host_port"]) for f in n["forwards"]))' 2>&1)
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" --jail-explain
		if [ "$got" = "none $fw_p>127.0.0.1:$fw_p" ] && [[ $OUT == *"forwarded host ports"*"$fw_p -> 127.0.0.1:$fw_p"* ]]; then
			pass forward-explain
		else
			fail forward-explain "json $(q "$got"), text $(q "$OUT")"
		fi
	fi
fi
if [ ${#fw_pids[@]} -gt 0 ]; then
	kill "${fw_pids[@]}" 2>/dev/null
	wait "${fw_pids[@]}" 2>/dev/null
fi
