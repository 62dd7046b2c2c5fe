# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# publish.sh: --jail-publish, seen from the host.  A plain HTTP server in a
# 'network none' jail, on the jail's own 127.0.0.1:PORT, answers curl on
# the host's 127.0.0.1:HOSTPORT (free ports the test picks); --jail-log has
# a 'published' line with the bytes of each connection; a host port in use
# ends the run with 125 naming it, before the command runs; lockdown
# refuses the option; --jail-explain lists it, text and JSON.  A policy's
# 'publish' (jail-pbpol, built here for the test's ports) serves in
# lockdown too, where its mode block says so, and the run adds none.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

pb_cases="publish-reach publish-log publish-drain publish-in-use publish-lockdown publish-explain publish-policy-lockdown"
want_pb=0
for n in $pb_cases; do c "$n" && want_pb=1; done

pb_port() {
	$py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pb_get PORT: the host's GET of http://127.0.0.1:PORT/p.txt, polled while
# the jail starts (60 s at most: a slow fork is no failure).
pb_get() {
	local got
	for _ in $(seq 300); do
		got=$(curl -s -m 5 "http://127.0.0.1:$1/p.txt" 2>/dev/null) && [ -n "$got" ] && {
			printf '%s' "$got"
			return 0
		}
		sleep 0.2
	done
	return 1
}

# pb_serve HOSTPORT JAILPORT [OPTION…]: the jail, in the background, serving
# its /tmp/p.txt on its 127.0.0.1:JAILPORT; BGPID is the stub.  PB_STUB
# and PB_OPT replace jail-worker and its --jail-publish.
pb_serve() {
	local hp=$1 jp=$2
	shift 2
	bg "${PB_STUB:-jail-worker}" --jail-no-net --jail-timeout=120 "${PB_OPT:---jail-publish=$hp:$jp}" "$@" \
		sh -c 'printf publish-ok >/tmp/p.txt && exec python3 -m http.server "$1" --bind 127.0.0.1 --directory /tmp' sh "$jp"
	bgpids+=("$BGPID")
}

# pb_stop: the background jail ended (SIGTERM to the stub, which passes it on).
pb_stop() {
	kill "$BGPID" 2>/dev/null
	wait "$BGPID" 2>/dev/null
}

if [ $want_pb = 1 ]; then
	mkdir -p "$T/pb/log"
	chown "$tuid:$tgid" "$T/pb" "$T/pb/log"
	if c publish-reach; then
		hp=$(pb_port) jp=$(pb_port)
		pb_serve "$hp" "$jp"
		got=$(pb_get "$hp")
		pb_stop
		if [ "$got" = publish-ok ]; then pass publish-reach; else
			fail publish-reach "curl http://127.0.0.1:$hp/p.txt got $(q "$got"); expected publish-ok"
		fi
	fi
	# A server that writes its last reply and exits at once: what is still
	# in the kernel's buffers when the jail ends reaches the host's client
	# whole (the parent drains before it ends: stub/egress/forward.c).  The
	# client reads slowly, so the buffers are full when the server exits.
	if c publish-drain; then
		hp=$(pb_port) jp=$(pb_port)
		bg jail-worker --jail-no-net --jail-timeout=60 --jail-publish="$hp:$jp" python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
c, _ = s.accept()
c.sendall(b"x" * (8 << 20))
c.close()' "$jp"
		bgpids+=("$BGPID")
		got=$($py -c '
import socket, sys, time
for _ in range(300):
    try:
        c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
        first = c.recv(65536)
    except OSError:
        first = b""
    if first:
        break
    time.sleep(0.2)
n = len(first)
while True:
    time.sleep(0.01)
    b = c.recv(65536)
    if not b:
        break
    n += len(b)
print(n)' "$hp")
		wait "$BGPID" 2>/dev/null
		if [ "$got" = $((8 << 20)) ]; then pass publish-drain; else
			fail publish-drain "the host's client got $(q "$got") bytes of the jail's last reply, expected $((8 << 20))"
		fi
	fi
	if c publish-log; then
		hp=$(pb_port) jp=$(pb_port)
		rm -f "$T/pb/log/l.jsonl"
		pb_serve "$hp" "$jp" --jail-log="$T/pb/log/l.jsonl"
		got=$(pb_get "$hp")
		pb_stop
		logged=$($py -c 'import json, sys
out = []
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("kind") == "published":
        ok = j["bytes_up"] > 0 and j["bytes_down"] > 0 and j["time"] > 0 and j["duration_ms"] >= 0
        out.append("%s:%s>%s:%s" % (j["host"], j["host_port"], j["port"], "ok" if ok else l.strip()))
print(" ".join(sorted(set(out))))' "$T/pb/log/l.jsonl" 2>&1)
		if [ "$got" = publish-ok ] && [ "$logged" = "127.0.0.1:$hp>$jp:ok" ]; then pass publish-log; else
			fail publish-log "got $(q "$got"), the log $(q "$logged"); expected 127.0.0.1:$hp>$jp:ok"
		fi
	fi
	# A port another program holds: 125 naming it, and the command never ran.
	if c publish-in-use; then
		hp=$(pb_port)
		$py -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True); time.sleep(120)' "$hp" >"$T/pb/holder" &
		holder=$!
		bgpids+=("$holder")
		for _ in $(seq 100); do [ -s "$T/pb/holder" ] && break; sleep 0.1; done
		rm -f "$P/pb-ran"
		jrun user -- jail-worker --jail-no-net --jail-publish="$hp:8000" sh -c 'touch pb-ran'
		kill "$holder" 2>/dev/null
		wait "$holder" 2>/dev/null
		if [ "$RC" = 125 ] && [ ! -e "$P/pb-ran" ] &&
			[[ $ERR == *"127.0.0.1:$hp for --jail-publish=$hp:8000"*"another program listens there"* ]]; then
			pass publish-in-use
		else
			fail publish-in-use "exit status $RC, ran: $([ -e "$P/pb-ran" ] && echo yes || echo no), stderr $(q "$ERR")"
		fi
		rm -f "$P/pb-ran"
	fi
	if c publish-lockdown; then
		jrun user -- jail-worker --jail-mode=lockdown --jail-publish=8000 true
		if [ "$RC" = 125 ] && [[ $ERR == *"--jail-publish=8000: this mode fixes the network"* ]]; then
			pass publish-lockdown
		else
			fail publish-lockdown "exit status $RC, stderr $(q "$ERR"); expected 125 naming the option"
		fi
	fi
	if c publish-explain; then
		jrun user -- jail-worker --jail-no-net --jail-publish=127.0.0.2:3001:3000 --jail-publish=8080 --jail-explain=json
		got=$(printf '%s' "$OUT" | $py -c 'import json, sys
n = json.load(sys.stdin)["network"]
print(" ".join("%s:%s>%s" % (p["host"], p["host_port"], p["port"]) for p in n["published"]))' 2>&1)
		jrun user -- jail-worker --jail-no-net --jail-publish=8080 --jail-explain
		if [ "$got" = "127.0.0.2:3001>3000 127.0.0.1:8080>8080" ] &&
			[[ $OUT == *"published ports of the jail"*"127.0.0.1:8080 -> 127.0.0.1:8080 (option --jail-publish=8080)"* ]]; then
			pass publish-explain
		else
			fail publish-explain "json $(q "$got"), text $(q "$OUT")"
		fi
	fi
	# The policy's lockdown block publishes its port: served there, and
	# --jail-publish is refused in that mode.
	if c publish-policy-lockdown; then
		hp=$(pb_port) jp=$(pb_port)
		cat >"$T/pb/pbpol.aj" <<EOF
include "base.aj";

policy pbpol extends base {
    network none;
    mode lockdown {
        network none;
        publish $hp:$jp;
    }
}
EOF
		if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-pbpol" "$T/pb/pbpol.aj" >"$T/pb/build.log" 2>&1; then
			fail publish-policy-lockdown "aijail-compile --build of the test policy failed: $(tail -n 3 "$T/pb/build.log")"
		else
			chmod 0755 "$bin/jail-pbpol"
			PB_STUB=jail-pbpol PB_OPT=--jail-mode=lockdown pb_serve "$hp" "$jp"
			got=$(pb_get "$hp")
			pb_stop
			jrun user -- jail-pbpol --jail-mode=lockdown --jail-publish=8000 true
			if [ "$got" = publish-ok ] && [ "$RC" = 125 ] && [[ $ERR == *"this mode fixes the network"* ]]; then
				pass publish-policy-lockdown
			else
				fail publish-policy-lockdown "curl got $(q "$got"); with --jail-publish: exit status $RC, stderr $(q "$ERR")"
			fi
		fi
	fi
fi
