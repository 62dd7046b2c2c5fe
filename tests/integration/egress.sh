# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# egress.sh: 'network allow', seen from inside: plain HTTP servers started
# here, on the host, outside every jail (on an address of this machine
# that is not loopback when it has one, else on 127.0.0.1, listed
# literally), and a test policy that lists some of them.  A listed
# host:port answers through the stub's proxy (absolute-URI HTTP and
# CONNECT), an unlisted one gets a 403 and one line on stderr, a
# connection that ignores the proxy has no route, the jail has no DNS, a
# listed name that resolves to loopback is refused unless the address is
# listed literally, --jail-allow-host adds a host, --jail-net gives the
# whole network and says so, and a profile without a list has no proxy.
# 'follow TOOL': each tool's registry, as its variables and its files in a
# $HOME of the test's name it (the rows the compiler emits for the tool).
# Then jail-npm against the real registry, when it can be reached.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

eg_cases="egress-listed-http egress-listed-connect egress-one-request egress-client-gone egress-low-nofile egress-late-request egress-unlisted egress-direct egress-dns
	egress-loopback-name egress-loopback-literal egress-allow-host egress-jail-net
	egress-worker-no-proxy egress-explain egress-log-allowed egress-log-allowed-no egress-follow
	egress-npm-install egress-npm-postinstall egress-npm-log"
want_eg=0
for n in $eg_cases; do c "$n" && want_eg=1; done

eg_addr=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
[ -n "$eg_addr" ] || eg_addr=127.0.0.1

# eg_port: a free TCP port of eg_addr.
eg_port() {
	$py -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$1"
}

# eg_serve ADDR PORT: a plain HTTP server of $T/eg/www, in the background.
eg_serve() {
	$py -m http.server --bind "$1" --directory "$T/eg/www" "$2" >/dev/null 2>&1 &
	eg_pids+=($!)
	bgpids+=($!) # for run.sh's cleanup, if it ends before this file does
	for _ in $(seq 50); do
		(exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# eg_log_lines FILE [ADDRESS]: --jail-log's lines as KIND:HOST:PORT, sorted;
# an "allowed" line's last field is "ok" when it has a time, the address
# (any, without ADDRESS), bytes both ways and a duration, else the line.
eg_log_lines() {
	"$py" -c 'import json, sys
out = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["kind"] == "allowed":
        ok = (isinstance(e.get("time"), float) and e.get("address") and
              e["address"] == (sys.argv[2:] or [e["address"]])[0] and
              e["bytes_up"] > 0 and e["bytes_down"] > 0 and isinstance(e.get("duration_ms"), int))
        out.append("allowed:%s:%s:%s" % (e["host"], e["port"], "ok" if ok else line.strip()))
    else:
        out.append("%s:%s:%s" % (e["kind"], e.get("host"), e.get("port")))
print(" ".join(sorted(out)))' "$@" 2>&1
}

# In the jail: curl ARGS…, printing the HTTP status and the body.
EG_CURL='curl -s -m 10 -w " %{http_code}" "$@"; echo " rc=$?"'

eg_ok=0
eg_pids=() # the servers, stopped at the end: later cases wait for their own children
if [ $want_eg = 1 ]; then
	mkdir -p "$T/eg/www"
	printf 'egress-ok' >"$T/eg/www/hi.txt"
	head -c 33554432 /dev/zero >"$T/eg/www/big.bin"
	p_listed=$(eg_port "$eg_addr")
	p_unlisted=$(eg_port "$eg_addr")
	p_lo_name=$(eg_port 127.0.0.1)
	p_lo_lit=$(eg_port 127.0.0.1)
	p_pipe=$(eg_port "$eg_addr")
	cat >"$T/eg/egress.aj" <<EOF
include "base.aj";

policy egress extends base {
    network allow "$eg_addr:$p_listed" "localhost:$p_lo_name" "127.0.0.1:$p_lo_lit" "$eg_addr:$p_pipe";
}
EOF
	eg_ok=1
	if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-egress" "$T/eg/egress.aj" \
		>"$T/eg/build.log" 2>&1; then
		eg_ok=0
		ERR=$(cat "$T/eg/build.log")
		fail egress-build "aijail-compile --build of the test policy failed"
	fi
	chmod 0755 "$bin/jail-egress" 2>/dev/null
	for ap in "$eg_addr:$p_listed" "$eg_addr:$p_unlisted" "127.0.0.1:$p_lo_name" "127.0.0.1:$p_lo_lit"; do
		eg_serve "${ap%:*}" "${ap##*:}" || {
			eg_ok=0
			ERR=
			fail egress-servers "the test server on $ap did not start"
		}
	done
	# A server that answers the first request on a connection and keeps
	# it open whatever Connection says, logging every request line it
	# is sent (and the bytes after the first head): what the proxy relays.
	cat >"$T/eg/pipe.py" <<'EOF'
import socket, sys, threading
srv = socket.create_server((sys.argv[1], int(sys.argv[2])))
log = sys.argv[3]
def serve(c):
    data, answered = b"", False
    c.settimeout(3)
    try:
        while True:
            got = c.recv(65536)
            if not got:
                break
            data += got
            if not answered and b"\r\n\r\n" in data:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfirs")
                answered = True
    except OSError:
        pass
    c.close()
    lines = [l for l in data.split(b"\r\n") if l.split(b" ")[-1:] == [b"HTTP/1.1"]]
    body = data.split(b"\r\n\r\n", 1)[1][:6] if b"\r\n\r\n" in data else b""
    with open(log, "a") as f:
        f.write(" | ".join(l.decode() for l in lines) + " || " + body.decode() + "\n")
while True:
    threading.Thread(target=serve, args=(srv.accept()[0],)).start()
EOF
	$py "$T/eg/pipe.py" "$eg_addr" "$p_pipe" "$T/eg/pipe.log" >/dev/null 2>&1 &
	eg_pids+=($!)
	bgpids+=($!)
	for _ in $(seq 50); do
		(exec 3<>"/dev/tcp/$eg_addr/$p_pipe") 2>/dev/null && break
		sleep 0.1
	done
	if ! command -v curl >/dev/null; then
		eg_ok=0
		skip egress "curl is not installed: the proxy cases need a client that speaks to it"
	fi
fi

if [ $want_eg = 1 ] && [ "$eg_ok" = 1 ]; then
	if c egress-listed-http; then
		jrun user -- jail-egress sh -c "$EG_CURL" sh "http://$eg_addr:$p_listed/hi.txt"
		expect egress-listed-http 0 "egress-ok 200 rc=0"
	fi
	# CONNECT: curl tunnels through the proxy even for http://.
	if c egress-listed-connect; then
		jrun user -- jail-egress sh -c "$EG_CURL" sh --proxytunnel "http://$eg_addr:$p_listed/hi.txt"
		expect egress-listed-connect 0 "egress-ok 200 rc=0"
	fi
	# A client that hangs up mid-download: the proxy (the stub's parent)
	# carries on, and the run's status is the command's.
	if c egress-client-gone; then
		jrun user -- jail-egress sh -c 'for i in 1 2 3 4 5; do
	curl -s "$1/big.bin" | head -c 10 >/dev/null
	$2 -c "import socket, sys
s = socket.create_connection((\"127.0.0.1\", 3128))
s.sendall(b\"GET $1/big.bin HTTP/1.1\r\n\r\n\")
s.recv(10)
s.shutdown(socket.SHUT_RDWR)
s.close()"
done
sleep 0.5
curl -s "$1/hi.txt"; echo " rc=$?"' sh "http://$eg_addr:$p_listed" "$py"
		expect egress-client-gone 0 "egress-ok rc=0"
	fi
	# The listener defers its accept until a request comes
	# (TCP_DEFER_ACCEPT, 5 s): a client that connects and says nothing
	# for longer than that is still served when it speaks, and one that
	# sends its request while another is silent is served at once.
	if c egress-late-request; then
		jrun user -- jail-egress "$py" -c 'import socket, sys, time
host = sys.argv[1]
req = ("GET http://%s/hi.txt HTTP/1.1\r\nHost: %s\r\n\r\n" % (host, host)).encode()
def answer(s):
    s.settimeout(10)
    out = b""
    while True:
        b = s.recv(4096)
        if not b:
            return out
        out += b
late = socket.create_connection(("127.0.0.1", 3128))
t = time.monotonic()
now = socket.create_connection(("127.0.0.1", 3128))
now.sendall(req)
first = answer(now).endswith(b"egress-ok")
quick = time.monotonic() - t < 3
time.sleep(9)
late.sendall(req)
print(first, quick, answer(late).endswith(b"egress-ok"))' "$eg_addr:$p_listed"
		expect egress-late-request 0 "True True True"
	fi
	# A low descriptor limit (the caller's): the proxy's poll stays
	# within it, and waits for descriptors rather than spinning.
	if c egress-low-nofile; then
		jrun user -- prlimit --nofile=24:24 "$bin/jail-egress" sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
	(exec 3<>/dev/tcp/127.0.0.1/3128; sleep 2) &
done
sleep 0.5
curl -s -m 8 "$1/hi.txt"; echo " rc=$?"; wait' sh "http://$eg_addr:$p_listed"
		expect egress-low-nofile 0 "egress-ok rc=0"
	fi
	# Plain HTTP is one request per connection: a second one in the same
	# write as the first (pipelined, in its absolute form, so not
	# rewritten) and a third sent after the first answer are never
	# relayed, and the first one's body is relayed to its length.
	if c egress-one-request; then
		: >"$T/eg/pipe.log"
		jrun user -- jail-egress "$py" -c 'import socket, sys
u = sys.argv[1].encode()
s = socket.create_connection(("127.0.0.1", 3128))
s.settimeout(5)
s.sendall(b"POST " + u + b"/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nxy"
          b"GET " + u + b"/b HTTP/1.1\r\nHost: x\r\n\r\n")
got = b""
while not got.endswith(b"firs"):
    got += s.recv(4096)
try:
    s.sendall(b"GET " + u + b"/c HTTP/1.1\r\nHost: x\r\n\r\n")
except OSError:
    pass
print(got.split(b"\r\n")[0].decode(), got[-4:].decode())' "http://$eg_addr:$p_pipe"
		for _ in $(seq 60); do
			[ -s "$T/eg/pipe.log" ] && break
			sleep 0.1
		done
		log=$(cat "$T/eg/pipe.log")
		if [ "$RC" = 0 ] && [ "$OUT" = "HTTP/1.1 200 OK firs" ] && [ "$log" = "POST /a HTTP/1.1 || xy" ]; then
			pass egress-one-request
		else
			fail egress-one-request "exit status $RC, stdout $(q "$OUT"), the server got $(q "$log"); expected only 'POST /a HTTP/1.1 || xy'"
		fi
	fi
	if c egress-unlisted; then
		jrun user -- jail-egress sh -c "$EG_CURL" sh -o /dev/null "http://$eg_addr:$p_unlisted/hi.txt"
		line="jail-egress: refused a connection to $eg_addr:$p_unlisted: not in the list (policy egress); --jail-allow-host=$eg_addr:$p_unlisted allows it"
		if [ "$RC" != 0 ] || [ "$OUT" != " 403 rc=0" ]; then
			fail egress-unlisted "exit status $RC, stdout $(q "$OUT"); expected a 403"
		elif [ "$(printf '%s\n' "$ERR" | grep -c 'refused a connection')" != 1 ] ||
			! printf '%s\n' "$ERR" | grep -qxF "$line"; then
			fail egress-unlisted "stderr is not the one line $(q "$line")"
		else
			pass egress-unlisted
		fi
	fi
	# Past the proxy there is no route: lo is the jail's only interface.
	if c egress-direct; then
		jrun user -- jail-egress "$py" -c 'import socket, sys, errno
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), 5).close()
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$eg_addr" "$p_listed"
		if [ "$eg_addr" = 127.0.0.1 ]; then
			expect egress-direct 0 ECONNREFUSED
		else
			expect egress-direct 0 ENETUNREACH
		fi
	fi
	if c egress-dns; then
		jrun user -- jail-egress "$py" -c 'import socket
try:
    socket.getaddrinfo("registry.npmjs.org", 443)
    print("resolved")
except socket.gaierror as e:
    print("no-dns")'
		expect egress-dns 0 no-dns
	fi
	# "localhost" is listed by name: it resolves to loopback, refused.
	if c egress-loopback-name; then
		jrun user -- jail-egress sh -c "$EG_CURL" sh -o /dev/null "http://localhost:$p_lo_name/hi.txt"
		if [ "$OUT" = " 403 rc=0" ] &&
			[[ $ERR == *"refused a connection to localhost:$p_lo_name: it resolves to a loopback address"* ]]; then
			pass egress-loopback-name
		else
			fail egress-loopback-name "exit status $RC, stdout $(q "$OUT"); expected a 403 and the line"
		fi
	fi
	if c egress-loopback-literal; then
		jrun user -- jail-egress sh -c "$EG_CURL" sh "http://127.0.0.1:$p_lo_lit/hi.txt"
		expect egress-loopback-literal 0 "egress-ok 200 rc=0"
	fi
	if c egress-allow-host; then
		jrun user -- jail-egress --jail-allow-host="$eg_addr:$p_unlisted" sh -c "$EG_CURL" sh \
			"http://$eg_addr:$p_unlisted/hi.txt"
		expect egress-allow-host 0 "egress-ok 200 rc=0"
	fi
	if c egress-jail-net; then
		jrun user -- jail-egress --jail-net sh -c "$EG_CURL" sh --noproxy '*' "http://$eg_addr:$p_unlisted/hi.txt"
		if [ "$RC" = 0 ] && [ "$OUT" = "egress-ok 200 rc=0" ] &&
			[[ $ERR == *"--jail-net: the whole network, not only the hosts of policy egress"* ]]; then
			pass egress-jail-net
		else
			fail egress-jail-net "exit status $RC, stdout $(q "$OUT"); expected the server and the line"
		fi
	fi
	# A policy without a list: no proxy variables, nothing on the port.
	if c egress-worker-no-proxy; then
		jrun user -- jail-worker sh -c 'echo "${HTTPS_PROXY-unset}"; ./tools/probe connect-tcp 127.0.0.1 3128'
		if [ "$RC" = 1 ] && [[ $OUT == "unset"$'\n'"connect-tcp: E"* ]]; then pass egress-worker-no-proxy; else
			fail egress-worker-no-proxy "exit status $RC, $(q "$OUT")"
		fi
	fi
	if c egress-explain; then
		jrun user -- jail-egress --jail-explain
		if [[ $OUT == *"network:   allow"*"$eg_addr:$p_listed"*"localhost:$p_lo_name"* ]]; then
			pass egress-explain
		else
			fail egress-explain "--jail-explain does not list the hosts: $(q "$(printf '%s\n' "$OUT" | grep -A3 '^network')")"
		fi
	fi
	# --jail-log: one "allowed" line per connection the proxy let through
	# (a plain request, a CONNECT), as it closes, beside the refusal's, by
	# default;
	# --jail-log-allowed=no: the refusal's only.
	for eg_case in egress-log-allowed egress-log-allowed-no; do
		c $eg_case || continue
		mkdir -p "$T/eg/log"
		chown "$tuid:$tgid" "$T/eg/log"
		rm -f "$T/eg/log/$eg_case.jsonl"
		eg_opt=()
		[ $eg_case = egress-log-allowed-no ] && eg_opt=(--jail-log-allowed=no)
		jrun user -- jail-egress --jail-log="$T/eg/log/$eg_case.jsonl" "${eg_opt[@]}" sh -c 'curl -s "$1/hi.txt"; echo
curl -s --proxytunnel "$1/hi.txt"; echo
curl -s -o /dev/null -w "%{http_code}\n" "$2/hi.txt"' sh "http://$eg_addr:$p_listed" "http://$eg_addr:$p_unlisted"
		logged=$(eg_log_lines "$T/eg/log/$eg_case.jsonl" "$eg_addr")
		want="allowed:$eg_addr:$p_listed:ok allowed:$eg_addr:$p_listed:ok request:$eg_addr:$p_unlisted"
		[ $eg_case = egress-log-allowed-no ] && want="request:$eg_addr:$p_unlisted"
		if [ "$RC" = 0 ] && [ "$OUT" = $'egress-ok\negress-ok\n403' ] && [ "$logged" = "$want" ] &&
			[ "$(printf '%s\n' "$ERR" | tail -n 1)" = "jail-egress: refused 1 connection ($eg_addr:$p_unlisted)" ]; then
			pass $eg_case
		else
			fail $eg_case "exit status $RC, stdout $(q "$OUT"), the log $(q "$logged"); expected $(q "$want") and the summary of the refusal only"
		fi
	done
fi

# --- 'follow TOOL': the registries the tools' own configuration names -------------

# eg_follow WANT STUB [VAR=VALUE…]: --jail-explain=json of STUB in the
# $HOME below, as "host<from" lines and the registry variable handed over,
# against WANT.
eg_follow() {
	local want=$1 stub=$2 got
	shift 2
	jrun user HOME="$T/egf" "$@" -- "$stub" --jail-explain=json
	got=$(printf '%s' "$OUT" | $py -c '
import json, sys
d = json.load(sys.stdin)
h = ["%s<%s" % (x["host"], x["from"]) for x in d["network"]["hosts"]]
p = [v for v in d["env"]["passed"] if v.endswith(("REGISTRY", "INDEX_URL", "DEFAULT_INDEX"))]
print(" ".join(h + p))' 2>&1)
	[ "$got" = "$want" ] || eg_follow_bad+="$stub $*: $(q "$got"), expected $(q "$want"); "
}

if c egress-follow; then
	mkdir -p "$T/egf/.config/pip" "$T/egf/.pip" "$T/egf/.config/uv" "$T/egf/.cargo" "$T/egf/ch"
	printf '; npm\nregistry = "https://npm.corp.example/"\n@acme:registry=https://acme.example:8443/npm/\n//npm.corp.example/:_authToken=x\n' >"$T/egf/.npmrc"
	printf '[global]\nindex-url = https://pypi.corp.example/simple\nextra-index-url = http://extra.example:8080/simple\n' >"$T/egf/.config/pip/pip.conf"
	printf '[global]\nindex-url = https://legacy.example/simple\n' >"$T/egf/.pip/pip.conf"
	printf 'index-url = "https://uv.corp.example/simple"\n[[index]]\nname = "x"\nurl = "https://uvx.example/simple"\n' >"$T/egf/.config/uv/uv.toml"
	printf '[source.mirror]\nregistry = "sparse+https://cargo.corp.example/index/"\n[registries.other]\nindex = "https://other.example/git/index"\n' >"$T/egf/.cargo/config.toml"
	printf '[source.mirror]\nregistry = "sparse+https://chome.example/index/"\n' >"$T/egf/ch/config.toml"
	chown -R "$tuid:$tgid" "$T/egf"
	conf="<the tool's configuration"
	eg_follow_bad=
	eg_follow "npm.corp.example:443<$T/egf/.npmrc acme.example:8443$conf NPM_CONFIG_REGISTRY" jail-npm
	eg_follow "envreg.example:443<NPM_CONFIG_REGISTRY acme.example:8443$conf NPM_CONFIG_REGISTRY" \
		jail-npm NPM_CONFIG_REGISTRY=https://envreg.example/
	eg_follow "lower.example:443<npm_config_registry acme.example:8443$conf" \
		jail-npm npm_config_registry=https://lower.example/
	eg_follow "pypi.corp.example:443<$T/egf/.config/pip/pip.conf extra.example:8080$conf PIP_INDEX_URL" jail-pip
	eg_follow "pe.example:443<PIP_INDEX_URL pex.example:443$conf extra.example:8080$conf PIP_INDEX_URL PIP_EXTRA_INDEX_URL" \
		jail-pip PIP_INDEX_URL=https://pe.example/simple PIP_EXTRA_INDEX_URL=https://pex.example/simple
	eg_follow "uv.corp.example:443<$T/egf/.config/uv/uv.toml uvx.example:443$conf UV_DEFAULT_INDEX" jail-uv
	eg_follow "ud.example:443<UV_DEFAULT_INDEX ua.example:443$conf ub.example:443$conf uvx.example:443$conf UV_DEFAULT_INDEX" \
		jail-uv "UV_INDEX=a=https://ua.example/simple https://ub.example/simple" UV_DEFAULT_INDEX=https://ud.example/
	eg_follow "cargo.corp.example:443<$T/egf/.cargo/config.toml other.example:443$conf" jail-cargo
	eg_follow "chome.example:443<$T/egf/ch/config.toml" jail-cargo CARGO_HOME="$T/egf/ch"
	eg_follow "cargo.corp.example:443<$T/egf/.cargo/config.toml other.example:443$conf" jail-cargo CARGO_HOME=ch
	if [ -z "$eg_follow_bad" ]; then
		pass egress-follow
	else
		fail egress-follow "$eg_follow_bad"
	fi
fi

if [ ${#eg_pids[@]} -gt 0 ]; then
	kill "${eg_pids[@]}" 2>/dev/null
	wait "${eg_pids[@]}" 2>/dev/null
	eg_keep=()
	for eg_p in "${bgpids[@]}"; do
		[[ " ${eg_pids[*]} " == *" $eg_p "* ]] || eg_keep+=("$eg_p")
	done
	bgpids=("${eg_keep[@]}")
	eg_pids=()
fi

# --- jail-npm against the registry --------------------------------------------------

want_egnpm=0
for n in egress-npm-install egress-npm-postinstall egress-npm-log; do c "$n" && want_egnpm=1; done
if [ $want_egnpm = 1 ] && ! command -v npm >/dev/null; then
	skip egress-npm "npm is not installed (make deps-test installs it)"
elif [ $want_egnpm = 1 ] && ! why=$(timeout 30 "$py" -c 'import sys, urllib.request
try:
    urllib.request.urlopen("https://registry.npmjs.org/is-number", timeout=20).read(1)
except Exception as e:
    print(e); sys.exit(1)'); then
	skip egress-npm "the npm registry is unreachable from this machine ($why): the allowlisted install is not tested"
elif [ $want_egnpm = 1 ]; then
	en=$T/eg/npm
	mkdir -p "$en/evil"
	# A local package whose install script calls out to an unlisted host.
	# Its answer goes to $INIT_CWD (where npm was run): npm 9 (Debian 12)
	# runs the script in node_modules/aijail-evil, the link, not evil/.
	cat >"$en/evil/package.json" <<'EOF'
{"name": "aijail-evil", "version": "1.0.0",
 "scripts": {"postinstall": "curl -s -m 10 -o /dev/null -w '%{http_connect}' https://example.com/ >\"$INIT_CWD/postinstall.out\"; true"}}
EOF
	printf '{"name": "aijail-egress", "version": "1.0.0"}\n' >"$en/package.json"
	chown -R "$tuid:$tgid" "$en"
	if c egress-npm-install; then
		WLDIR=$en wl_run -- jail-npm install --no-audit --no-fund --no-update-notifier --prefer-online is-number@7.0.0
		v=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$en/node_modules/is-number/package.json" 2>/dev/null)
		if [ "$RC" = 0 ] && [ "$v" = 7.0.0 ] && [[ $ERR != *"refused a connection"* ]]; then
			pass egress-npm-install
		else
			fail egress-npm-install "exit status $RC, node_modules/is-number version $(q "$v")"
		fi
	fi
	# The line as it happens, the summary at the end, and the log.
	if c egress-npm-postinstall; then
		mkdir -p "$T/eg/log"
		chown "$tuid:$tgid" "$T/eg/log"
		WLDIR=$en wl_run -- jail-npm --jail-log="$T/eg/log/npm.jsonl" install --no-audit --no-fund \
			--no-update-notifier --foreground-scripts ./evil
		got=$(cat "$en/postinstall.out" 2>/dev/null)
		logged=$("$py" -c 'import json, sys
print(" ".join("%s:%s:%s" % (e["kind"], e.get("host"), e.get("port")) for e in map(json.loads, open(sys.argv[1])) if e["kind"] == "connection"))' \
			"$T/eg/log/npm.jsonl" 2>&1)
		if [ "$RC" = 0 ] && [ "$got" = 403 ] &&
			[[ $ERR == *"jail-npm: refused a connection to example.com:443: not in the list (policy npm); --jail-allow-host=example.com:443 allows it"* ]] &&
			[[ $(printf '%s\n' "$ERR" | tail -n 1) =~ ^"jail-npm: refused 1 connection (example.com:443)"( and [0-9]+ calls? \([a-z_0-9, ]+\))?$ ]] &&
			[ "$logged" = "connection:example.com:443" ]; then
			pass egress-npm-postinstall
		else
			fail egress-npm-postinstall "exit status $RC, the script got $(q "$got"), the log $(q "$logged"); expected 403, the line, the summary and one connection logged"
		fi
	fi
	# What the jail reached: the registry, bytes both ways.
	if c egress-npm-log; then
		mkdir -p "$T/eg/log"
		chown "$tuid:$tgid" "$T/eg/log"
		rm -rf "$en/node_modules" "$T/eg/log/npm-reach.jsonl"
		WLDIR=$en wl_run -- jail-npm --jail-log="$T/eg/log/npm-reach.jsonl" install --no-audit --no-fund \
			--no-update-notifier --prefer-online is-number@7.0.0
		logged=$(eg_log_lines "$T/eg/log/npm-reach.jsonl")
		if [ "$RC" = 0 ] && [[ " $logged " == *" allowed:registry.npmjs.org:443:ok "* ]] &&
			[[ $logged != *"allowed:registry.npmjs.org:443:{"* ]]; then
			pass egress-npm-log
		else
			fail egress-npm-log "exit status $RC, the log $(q "$logged"); expected allowed lines for registry.npmjs.org:443 with bytes both ways"
		fi
	fi
fi
