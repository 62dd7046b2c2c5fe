# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# forward.sh: --jail-forward, seen from inside.  A plain HTTP server on the
# host's 127.0.0.1, started as the test user outside every jail, answers a
# client that knows nothing of proxies (Python's urllib, no proxy
# variables) in a 'network none' jail through --jail-forward=PORT, and not
# without it; another host port and a name lookup still fail; [::1] is
# reached as 127.0.0.1 inside; a mode that fixes the network, --jail-net
# and a bad host refuse the option; --jail-explain lists it.  The policy's
# 'network public' (jail-python) is narrowed to the forwarded ports; with
# 'network allow' beside a forward, NO_PROXY sends a client to the
# forwarded port directly rather than to the proxy, which refuses it.  A
# policy's 'forward PORT;' (jail-fwpol, built here for the test's port)
# works alike, in lockdown too where its mode block says so; the jail's
# [::1]:PORT answers as its 127.0.0.1:PORT; --jail-log has an 'allowed'
# line per forwarded connection.  Beside 'network allow', clients that
# follow the proxy variables (curl, urllib, node's fetch with
# NODE_USE_ENV_PROXY=1) reach the forwarded port directly: NO_PROXY names
# the jail's loopback.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

fw_cases="forward-reach forward-with-allow forward-without forward-other-port forward-dns forward-v6 forward-lockdown
	forward-jail-net forward-bad-host forward-narrows-host forward-allow-no-proxy forward-explain forward-curl forward-v6-inside
	forward-log forward-policy forward-policy-lockdown forward-policy-explain
	forward-noproxy-curl forward-noproxy-python forward-noproxy-node"
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
	# The policy: the port in every mode but lockdown, whose block
	# forwards it again (its 'network none' keeps its own block's only).
	fw_pol=0
	if [ -n "$fw_p" ]; then
		cat >"$T/fw/fwpol.aj" <<EOF
include "base.aj";

policy fwpol extends base {
    network none;
    forward $fw_p;
    mode lockdown {
        network none;
        forward 127.0.0.1:$fw_p;
    }
}
EOF
		if "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-fwpol" "$T/fw/fwpol.aj" \
			>"$T/fw/build.log" 2>&1; then
			chmod 0755 "$bin/jail-fwpol"
			fw_pol=1
		fi
	fi
fi

# fw_log FILE: --jail-log's allowed lines as HOST:PORT:ADDRESS:ok, where ok
# says bytes went both ways and the line has a time and a duration.
fw_log() {
	"$py" -c 'import json, sys
out = []
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("kind") != "allowed":
        out.append(j.get("kind", "?"))
        continue
    ok = j["bytes_up"] > 0 and j["bytes_down"] > 0 and j["time"] > 0 and j["duration_ms"] >= 0
    out.append("%s:%s:%s:%s" % (j["host"], j["port"], j["address"], "ok" if ok else l.strip()))
print(" ".join(sorted(out)))' "$1" 2>&1
}

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
	# jail-python's 'network public' becomes the loopback with the port only.
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
	# 'network allow' and a forward: a client that honours the proxy
	# variables reaches the forwarded port (NO_PROXY), not the proxy's 403.
	if c forward-allow-no-proxy; then
		jrun user -- jail --jail-allow-host=example.com --jail-forward="$fw_p" python3 -c "$FW_GET" "$fw_p"
		expect forward-allow-no-proxy 0 "forward-ok"
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
if [ $want_fw = 1 ] && [ -n "$fw_p" ]; then
	# A plain client that knows nothing of proxies: curl, no variables.
	if c forward-curl; then
		jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" curl -s -m 10 "http://127.0.0.1:$fw_p/hi.txt"
		expect forward-curl 0 forward-ok
	fi
	# The jail's [::1]:PORT is the same forward, to the host's 127.0.0.1.
	if c forward-v6-inside; then
		if [ ! -e /proc/net/if_inet6 ]; then
			skip forward-v6-inside "no IPv6 in this kernel (no /proc/net/if_inet6): the jail's lo has no ::1"
		else
			jrun user -- jail-worker --jail-no-net --jail-forward="$fw_p" curl -s -m 10 -g "http://[::1]:$fw_p/hi.txt"
			expect forward-v6-inside 0 forward-ok
		fi
	fi
	if c forward-log; then
		mkdir -p "$T/fw/log"
		chown "$tuid:$tgid" "$T/fw/log"
		rm -f "$T/fw/log/l.jsonl"
		fw_v6=()
		[ -n "$fw_p6" ] && fw_v6=(--jail-forward="[::1]:$fw_p6")
		jrun user -- jail-worker --jail-no-net --jail-log="$T/fw/log/l.jsonl" --jail-forward="$fw_p" "${fw_v6[@]}" \
			sh -c 'curl -s -m 10 "http://127.0.0.1:$1/hi.txt"; echo; [ -z "$2" ] || curl -s -m 10 "http://127.0.0.1:$2/hi.txt"' sh "$fw_p" "$fw_p6"
		logged=$(fw_log "$T/fw/log/l.jsonl")
		want="127.0.0.1:$fw_p:127.0.0.1:ok"
		[ -n "$fw_p6" ] && want=$(printf '%s\n' "$want" "::1:$fw_p6:::1:ok" | sort | tr '\n' ' ' | sed 's/ $//')
		if [ "$RC" = 0 ] && [ "$logged" = "$want" ]; then pass forward-log; else
			fail forward-log "exit status $RC, stdout $(q "$OUT"), the log $(q "$logged"); expected $(q "$want")"
		fi
	fi
	if [ $fw_pol = 0 ]; then
		for n in forward-policy forward-policy-lockdown forward-policy-explain; do
			c $n && fail $n "aijail-compile --build of the test policy failed: $(tail -n 3 "$T/fw/build.log")"
		done
	else
		if c forward-policy; then
			jrun user -- jail-fwpol sh -c 'curl -s -m 10 "http://127.0.0.1:$1/hi.txt"; echo; "$2" -c "$3" "$1"' sh "$fw_p" "$py" "$FW_GET"
			expect forward-policy 0 $'forward-ok\nforward-ok'
		fi
		# lockdown's block forwards the port itself; the run adds none.
		if c forward-policy-lockdown; then
			jrun user -- jail-fwpol --jail-mode=lockdown "$py" -c "$FW_GET" "$fw_p"
			a="$RC $OUT"
			jrun user -- jail-fwpol --jail-mode=lockdown --jail-forward="$fw_other" true
			if [ "$a" = "0 forward-ok" ] && [ "$RC" = 125 ] && [[ $ERR == *"this mode fixes the network"* ]]; then
				pass forward-policy-lockdown
			else
				fail forward-policy-lockdown "lockdown: $(q "$a"); with --jail-forward: exit status $RC, stderr $(q "$ERR")"
			fi
		fi
		if c forward-policy-explain; then
			jrun user -- jail-fwpol --jail-forward="[::1]:$fw_other" --jail-explain=json
			got=$(printf '%s' "$OUT" | $py -c 'import json, sys
n = json.load(sys.stdin)["network"]
print(" ".join("%s>%s:%s:%s" % (f["port"], f["host"], f["origin"], f["option"]) for f in n["forwards"]))' 2>&1)
			want="$fw_p>127.0.0.1:policy:None $fw_other>[::1]:option:--jail-forward=[::1]:$fw_other"
			if [ "$got" = "$want" ]; then pass forward-policy-explain; else
				fail forward-policy-explain "got $(q "$got"), expected $(q "$want")"
			fi
		fi
	fi
fi
# 'network allow' and a forward: the proxy variables are set and the proxy
# refuses loopback, so a client that follows them reaches the forwarded
# port only because NO_PROXY names 127.0.0.1.
if [ $want_fw = 1 ] && [ -n "$fw_p" ]; then
	fw_allow=(--jail-allow-host=example.com:443 --jail-forward="$fw_p")
	if c forward-noproxy-curl; then
		jrun user -- jail-worker "${fw_allow[@]}" curl -s -m 10 "http://127.0.0.1:$fw_p/hi.txt"
		expect forward-noproxy-curl 0 forward-ok
	fi
	if c forward-noproxy-python; then
		jrun user -- jail-worker "${fw_allow[@]}" "$py" -c 'import os, sys, urllib.request
print(bool(urllib.request.getproxies().get("http")), urllib.request.urlopen("http://127.0.0.1:%s/hi.txt" % sys.argv[1], timeout=10).read().decode())' "$fw_p"
		expect forward-noproxy-python 0 "True forward-ok"
	fi
	# node's fetch ignores the proxy variables unless NODE_USE_ENV_PROXY=1
	# (Node 22.21, 24.5): without it the case would pass whatever NO_PROXY
	# says.  A node that ignores that variable too is told apart first:
	# outside any jail, its fetch must reach a proxy the test listens as.
	if c forward-noproxy-node; then
		if ! command -v node >/dev/null; then
			skip forward-noproxy-node "node is not installed"
		elif ! fw_np=$($py -c 'import socket, subprocess, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); s.settimeout(20)
env = {"PATH": "/usr/bin:/bin", "NODE_USE_ENV_PROXY": "1", "HTTP_PROXY": "http://127.0.0.1:%d" % s.getsockname()[1]}
p = subprocess.Popen(["node", "-e", "fetch(\"http://127.0.0.1:" + sys.argv[1] + "/\").catch(() => {})"], env=env)
try:
    c, _ = s.accept(); print("proxied" if c.recv(4096).startswith(b"GET http://127.0.0.1:") else "direct")
except OSError:
    print("direct")
p.kill(); p.wait()' "$fw_other" 2>/dev/null) || [ "$fw_np" != proxied ]; then
			skip forward-noproxy-node "node $(node --version 2>/dev/null) ignores NODE_USE_ENV_PROXY (Node 22.21 and 24.5 have it): its fetch never asks a proxy, so NO_PROXY would not be tested"
		else
			jrun user -- jail-worker "${fw_allow[@]}" env NODE_USE_ENV_PROXY=1 node -e 'fetch("http://127.0.0.1:" + process.argv[1] + "/hi.txt").then(r => r.text()).then(t => console.log(t), e => console.log(String((e.cause && e.cause.code) || e)))' "$fw_p"
			expect forward-noproxy-node 0 forward-ok
		fi
	fi
fi
if [ ${#fw_pids[@]} -gt 0 ]; then
	kill "${fw_pids[@]}" 2>/dev/null
	wait "${fw_pids[@]}" 2>/dev/null
fi
