# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# keys.sh: --jail-secret (issue 33), seen from inside and from the host it is
# for, with no packet to any real network.  As public.sh does: a user,
# network and mount namespace the test makes as the test user
# (unshare -Urnm), a veth pair to a second network namespace that carries
# the stand-in HTTPS host (tests/keys/standin.py) at 203.0.113.7, and, in
# that mount namespace only, /etc/hosts naming it and a copy of /etc/ssl
# whose bundle adds the test's authority: the stub's aijail-keys verifies
# the host against the system's store as it will for users, and no option
# of the stub is for the test.  The stand-in answers 200 only to the real
# value and logs every request it gets.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

ks_cases="keys-unset keys-unreachable keys-placeholder keys-curl keys-basic keys-header-query
	keys-keepalive keys-python keys-requests keys-git keys-node keys-memory keys-files
	keys-scrub keys-plain-refused keys-unbound-tunnel keys-unknown-ca keys-wrong-name keys-smuggle
	keys-oversize keys-bad-chunk keys-no-key-as-before keys-explain keys-python-api keys-mcp keys-upstream keys-policy keys-policy-explain keys-cert-strict"
want_ks=0
for n in $ks_cases; do c "$n" && want_ks=1; done

ks_why=
if [ $want_ks = 1 ]; then
	ks_why=$(netns_why unshare nsenter ip curl openssl)
	[ -n "$ks_why" ] || [ -x "$bin/aijail-keys" ] || ks_why="build/bin/aijail-keys is not built"
	ks_pre=("${netns_pre[@]}")
fi

if [ $want_ks = 1 ] && [ -n "$ks_why" ]; then
	for n in $ks_cases; do c "$n" && skip "$n" "$ks_why"; done
elif [ $want_ks = 1 ]; then
	kt=$T/ks
	mkdir -p "$kt/proj" "$kt/res" "$kt/pki"
	ks_real="real-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	printf '%s' "$ks_real" >"$kt/real"
	# The test's authority and the stand-in's certificates: one for the
	# bound names, one from an authority no store holds, one for another
	# name.
	(
		cd "$kt/pki" || exit 1
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=aijail test authority" -keyout ca.key -out ca.pem
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=stranger authority" -keyout stranger.key -out stranger.pem
		leaf() { # NAME CA SAN
			openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
				-keyout "$1.key" -out "$1.csr"
			printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$3" >"$1.ext"
			openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days 2 \
				-extfile "$1.ext" -out "$1.pem"
		}
		leaf good ca "DNS:api.keys.test,DNS:other.keys.test,DNS:git.keys.test,DNS:node.keys.test"
		leaf bad stranger "DNS:unknown.keys.test"
		leaf wrong ca "DNS:someone.else.test"
	) >"$kt/pki.log" 2>&1 || ks_why="openssl could not make the test's certificates"
	cp -a /etc/ssl "$kt/ssl"
	rm -f "$kt/ssl/certs/ca-certificates.crt"
	cat /etc/ssl/certs/ca-certificates.crt "$kt/pki/ca.pem" >"$kt/ssl/certs/ca-certificates.crt"
	cat >"$kt/hosts" <<'EOF'
127.0.0.1 localhost
203.0.113.7 api.keys.test other.keys.test git.keys.test unknown.keys.test wrong.keys.test
EOF
	cp "$root/tests/keys/standin.py" "$root/tests/lib/dns.py" "$root/tests/lib/connectproxy.py" "$kt/"
	# the statement: a stub whose policy binds TOKEN, no option
	cat >"$kt/keytest.aj" <<'EOF'
include "base.aj";

policy keytest extends base {
    network allow "api.keys.test" "other.keys.test";
    secret TOKEN "api.keys.test";
}
EOF
	if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-keytest" "$kt/keytest.aj" \
		>"$kt/build.log" 2>&1; then
		ks_why="aijail-compile --build of the test policy failed: $(cat "$kt/build.log")"
	fi
	chmod 0755 "$bin/jail-keytest" 2>/dev/null
	chown -R "$tuid:$tgid" "$kt"
	cat >"$kt/in.sh" <<'EOF'
set -u
T=$1 bin=$2 tuid=$3 tgid=$4 thome=$5 pydir=$6 lib=$7
kt=$T/ks
real=$(cat "$kt/real")
mount --bind "$kt/hosts" /etc/hosts || exit 3
mount --bind "$kt/ssl" /etc/ssl || exit 3
# shellcheck source=tests/lib/netns.sh
. "$lib/netns.sh"
netns_outside 203.0.113 || exit
out=$netns_out
srv=
for p in "443 good" "8443 bad" "9443 wrong"; do
	set -- $p
	nsenter -t "$out" -n python3 "$kt/standin.py" 203.0.113.7 "$1" "$kt/pki/$2.pem" "$kt/pki/$2.key" \
		"$kt/res/seen.$1" "$real" >"$kt/res/standin.$1.log" 2>&1 &
	srv="$srv $!"
done
# plain HTTP, for the refusal: a server that logs what it gets
nsenter -t "$out" -n python3 -c 'import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[1], "a").write(self.requestline + "\n")
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
http.server.HTTPServer(("203.0.113.7", 8080), H).serve_forever()' "$kt/res/seen.8080" >/dev/null 2>&1 &
srv="$srv $!"
# node.keys.test is in no /etc/hosts: a nameserver stand-in wherever
# resolv.conf points (127.0.0.1 when it names none) answers it, for the
# stub's parent; in the jail the relay answers it (Node's fetch)
nss=$(netns_nameservers)
# shellcheck disable=SC2086 # one argument an address
python3 "$kt/dns.py" node.keys.test=203.0.113.7 $nss >"$kt/res/dns.log" 2>&1 &
srv="$srv $!"
trap 'kill $srv $out 2>/dev/null' EXIT
# controls: each stand-in answers from here, verified as the jail's
# host will verify it (none of this is the jail)
for u in https://api.keys.test/ https://wrong.keys.test:9443/ https://node.keys.test/; do
	ok=
	for _ in $(seq 100); do
		code=$(curl -s -m 5 --noproxy '*' -k -o /dev/null -w '%{http_code}' "$u")
		[ "$code" = 401 ] && ok=1 && break
		sleep 0.1
	done
	[ -n "$ok" ] || { echo "control: $u does not answer ($code)" >"$kt/res/control"; exit 6; }
done
[ "$(curl -s -m 5 --noproxy '*' http://203.0.113.7:8080/)" = ok ] || { echo "control: plain" >"$kt/res/control"; exit 6; }
: >"$kt/res/seen.443"
: >"$kt/res/seen.8443"
: >"$kt/res/seen.9443"
: >"$kt/res/seen.8080"
echo ok >"$kt/res/control"
cd "$kt/proj" || exit 7
ALLOW="--jail-allow-host=api.keys.test --jail-allow-host=other.keys.test --jail-allow-host=git.keys.test \
--jail-allow-host=unknown.keys.test:8443 --jail-allow-host=wrong.keys.test:9443 --jail-allow-host=203.0.113.7:8080"
BIND="--jail-secret=TOKEN=api.keys.test,git.keys.test,unknown.keys.test:8443,wrong.keys.test:9443"
jail() { # NAME ARGS…: the stub as the test user, in a user namespace mapping it back
	local name=$1
	shift
	unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
		TOKEN="$real" timeout -k 5 60 "$bin/${stub:-jail}" "$@" >"$kt/res/$name.out" 2>"$kt/res/$name.err" </dev/null
	echo $? >"$kt/res/$name.rc"
}
CURL='curl -s -m 20 -w " %{http_code}\n" "$@"'
jail keys-unset --jail-secret=NOPE_UNSET=api.keys.test $ALLOW -- true
jail keys-unreachable --jail-secret=TOKEN=api.keys.test -- true
jail keys-placeholder $ALLOW $BIND -- sh -c 'printf "%s\n" "$TOKEN"'
jail keys-placeholder-2 $ALLOW $BIND -- sh -c 'printf "%s\n" "$TOKEN"'
jail keys-curl $ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://api.keys.test/bearer' -
jail keys-basic $ALLOW $BIND -- sh -c "$CURL"' -u "me:$TOKEN" https://api.keys.test/basic' -
jail keys-header-query $ALLOW $BIND -- sh -c "$CURL"' -H "X-Api-Key: $TOKEN" https://api.keys.test/xkey "https://api.keys.test/q?key=$TOKEN"' -
jail keys-keepalive $ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: token $TOKEN" https://api.keys.test/ka1 https://api.keys.test/ka2 -d x=1 https://api.keys.test/ka3' -
jail keys-python $ALLOW $BIND -- python3 -c 'import os, urllib.request
r = urllib.request.Request("https://api.keys.test/urllib", headers={"Authorization": "Bearer " + os.environ["TOKEN"]})
print(urllib.request.urlopen(r, timeout=20).status)'
jail keys-requests $ALLOW $BIND -- python3 -c 'import os
try:
    import requests
except ImportError:
    print("no-requests"); raise SystemExit
print(requests.get("https://api.keys.test/requests", headers={"Authorization": "Bearer " + os.environ["TOKEN"]}, timeout=20).status_code)'
# Node's fetch reads no proxy variable: it resolves the name in the jail,
# where the relay (egress/names.c) answers it, and connects there
if command -v node >/dev/null; then
	jail keys-node --jail-allow-host=node.keys.test --jail-secret=TOKEN=node.keys.test -- node -e 'fetch("https://node.keys.test/node", {headers: {Authorization: "Bearer " + process.env.TOKEN}})
	.then(async r => console.log(r.status, (await r.text()).trim()), e => { console.log("error", e.cause || e); process.exit(1); })'
fi
jail keys-git $ALLOW $BIND -- sh -c 'git -c credential.helper="!f() { echo username=me; echo password=\$TOKEN; }; f" ls-remote https://git.keys.test/repo.git 2>&1'
jail keys-memory $ALLOW $BIND -- python3 -c 'import os, re
real = open("/proc/self/environ", "rb").read()
found = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        env = open("/proc/%s/environ" % pid, "rb").read()
        maps = open("/proc/%s/maps" % pid).read().splitlines()
        mem = open("/proc/%s/mem" % pid, "rb", 0)
    except OSError:
        continue
    blob = env
    for l in maps:
        a, b = (int(x, 16) for x in l.split()[0].split("-"))
        if "r" not in l.split()[1] or "[vvar]" in l:
            continue
        try:
            mem.seek(a); blob += mem.read(b - a)
        except (OSError, ValueError, OverflowError):
            pass
    found.append((pid, len(blob), blob))
tok = os.environ["TOKEN"].encode()
print("scanned", len(found), "placeholder-seen", any(tok in b for _, _, b in found))
# checked for the real value outside the jail
open("scan.bin", "wb").write(b"".join(b for _, _, b in found))'
mv scan.bin "$kt/res/scan.bin" 2>/dev/null
jail keys-files $ALLOW $BIND -- sh -c 'env >"$HOME/env.txt"; env >/tmp/env.txt; cp /proc/self/environ /tmp/environ.bin; mkdir dump && cp -r /tmp "$HOME" dump/ 2>/dev/null; env >dump/env.txt; grep -rlF -- "$TOKEN" dump | wc -l'
# pid 1 and the stub's parent, scanned from the host's root (run.sh, below:
# only it may read a non-dumpable process of another user namespace's
# making): the value must be gone from the memory they were cloned with,
# not only unreadable.
rm -f "$kt/proj/ready" "$kt/proj/done"
jail keys-scrub $ALLOW $BIND -- sh -c 'echo >ready; while [ ! -e done ]; do sleep 0.05; done; echo over' &
jp=$!
for _ in $(seq 600); do [ -e "$kt/proj/ready" ] && break; sleep 0.05; done
touch "$kt/res/scrub-ready"
for _ in $(seq 1200); do [ -e "$kt/res/scrub-scanned" ] && break; sleep 0.05; done
touch "$kt/proj/done"
wait $jp
jail keys-plain-refused $ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" http://203.0.113.7:8080/plain' -
jail keys-unbound-tunnel $ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://other.keys.test/unbound' -
jail keys-unknown-ca $ALLOW $BIND --jail-log="$kt/res/unknown-ca.jsonl" -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://unknown.keys.test:8443/x' -
jail keys-wrong-name $ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://wrong.keys.test:9443/x' -
RAW='import os, socket, ssl, sys
ctx = ssl.create_default_context()
s = socket.create_connection(("127.0.0.1", 3128), 20)
s.sendall(b"CONNECT api.keys.test:443 HTTP/1.1\r\nHost: api.keys.test:443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
t = ctx.wrap_socket(s, server_hostname="api.keys.test")
tok = os.environ["TOKEN"].encode()
t.sendall(sys.argv[1].encode().replace(b"TOK", tok).decode("unicode_escape").encode("latin-1"))
out = b""
while True:
    try:
        d = t.recv(65536)
    except (ssl.SSLError, OSError):
        break
    if not d:
        break
    out += d
print(out.split(b"\r\n")[0].decode())'
jail keys-smuggle $ALLOW $BIND -- python3 -c "$RAW" 'POST /smuggle HTTP/1.1\r\nHost: api.keys.test\r\nAuthorization: Bearer TOK\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /hidden HTTP/1.1\r\nHost: api.keys.test\r\nAuthorization: Bearer TOK\r\n\r\n'
jail keys-oversize $ALLOW $BIND -- python3 -c "$RAW" "GET /big HTTP/1.1\\r\\nHost: api.keys.test\\r\\nAuthorization: Bearer TOK\\r\\nX-Pad: $(head -c 20000 /dev/zero | tr '\0' a)\\r\\n\\r\\n"
jail keys-bad-chunk $ALLOW $BIND -- python3 -c "$RAW" 'POST /chunk HTTP/1.1\r\nHost: api.keys.test\r\nAuthorization: Bearer TOK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'
# the run authority as the jail's trust holds it and the leaf aijail-keys
# presents for a bound host, in DER, for the check of their encoding below
jail keys-cert-strict $ALLOW $BIND -- python3 -c 'import base64, os, re, socket, ssl
ctx = ssl.create_default_context()
s = socket.create_connection(("127.0.0.1", 3128), 20)
s.sendall(b"CONNECT api.keys.test:443 HTTP/1.1\r\nHost: api.keys.test:443\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
t = ctx.wrap_socket(s, server_hostname="api.keys.test")
print("leaf", base64.b64encode(t.getpeercert(True)).decode())
bundle = os.environ.get("SSL_CERT_FILE") or ssl.get_default_verify_paths().openssl_cafile
for pem in re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", open(bundle).read(), re.S):
    der = ssl.PEM_cert_to_DER_cert(pem)
    if b"aijail run authority" in der:
        print("ca", base64.b64encode(der).decode())'
jail keys-no-key-as-before $ALLOW -- sh -c 'printf "%s|%s|" "${SSL_CERT_FILE:-none}" "${TOKEN:-none}"; grep -c "BEGIN CERT" /etc/ssl/certs/ca-certificates.crt'
grep -c "BEGIN CERT" /etc/ssl/certs/ca-certificates.crt >"$kt/res/bundle-count"
# aijail.run_sandboxed(..., secrets=...): the package from the tree
unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
	TOKEN="$real" PYTHONPATH="$pydir" AIJAIL_STUB="$bin/jail" timeout -k 5 60 python3 -c 'import aijail
cp = aijail.run_sandboxed(["sh", "-c", "curl -s -w \" %{http_code}\" -H \"Authorization: Bearer $TOKEN\" https://api.keys.test/pyapi"],
                          secrets={"TOKEN": ["api.keys.test"]})
print(cp.returncode, cp.stdout)' >"$kt/res/keys-python-api.out" 2>"$kt/res/keys-python-api.err" </dev/null
echo $? >"$kt/res/keys-python-api.rc"
# a corporate proxy upstream (the caller's https_proxy): the bound host is
# reached through its tunnel, and the key added inside it all the same
# (the stand-in, tests/lib/connectproxy.py)
python3 "$kt/connectproxy.py" "$kt/res/upstream.log" "$kt/res/upstream.port" 2>/dev/null &
srv="$srv $!"
for _ in $(seq 100); do [ -s "$kt/res/upstream.port" ] && break; sleep 0.05; done
unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
	TOKEN="$real" https_proxy="http://127.0.0.1:$(cat "$kt/res/upstream.port")" timeout -k 5 60 "$bin/jail" \
	$ALLOW $BIND -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://api.keys.test/upstream' - \
	>"$kt/res/keys-upstream.out" 2>"$kt/res/keys-upstream.err" </dev/null
echo $? >"$kt/res/keys-upstream.rc"
# aijail-mcp --secret TOKEN=api.keys.test: a request names the key
unshare -U --map-user="$tuid" --map-group="$tgid" env -i HOME="$thome" PATH=/usr/local/bin:/usr/bin:/bin \
	TOKEN="$real" timeout -k 5 90 python3 -c 'import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "--root", ".", "--profile", "jail", "--stub-dir", sys.argv[2],
                      "--secret", "TOKEN=api.keys.test"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
cmd = ["sh", "-c", "curl -s -w \" %{http_code}\" -H \"Authorization: Bearer $TOKEN\" https://api.keys.test/mcp"]
r = call(2, "tools/call", {"name": "run_command", "arguments": {"command": cmd, "secrets": ["TOKEN"]}})
print(r["result"]["structuredContent"]["stdout"])
r = call(3, "tools/call", {"name": "run_command", "arguments": {"command": ["true"], "secrets": ["OTHER"]}})
print(r["result"].get("isError"), "refused, nothing was run: secrets" in r["result"]["content"][0]["text"])' "$bin/aijail-mcp" "$bin" \
	>"$kt/res/keys-mcp.out" 2>"$kt/res/keys-mcp.err" </dev/null
echo $? >"$kt/res/keys-mcp.rc"
jail keys-explain $ALLOW $BIND --jail-explain=json -- true
# 'secret TOKEN "api.keys.test";' in the policy, no option
stub=jail-keytest jail keys-policy -- sh -c "$CURL"' -H "Authorization: Bearer $TOKEN" https://api.keys.test/policy https://other.keys.test/policy-unbound' -
stub=jail-keytest jail keys-policy-explain --jail-explain=json -- true
jail keys-explain-text $ALLOW $BIND --jail-explain -- true
EOF
	if [ -z "$ks_why" ]; then
		"${ks_pre[@]}" unshare -Urnm bash "$kt/in.sh" "$T" "$bin" "$tuid" "$tgid" "$thome" "$root/python" "$root/tests/lib" >"$kt/in.log" 2>&1 &
		ks_in=$!
		bgpids+=($ks_in)
		while kill -0 "$ks_in" 2>/dev/null && [ ! -e "$kt/res/scrub-ready" ]; do sleep 0.05; done
		if [ -e "$kt/res/scrub-ready" ] && [ "$as_root" -eq 1 ]; then
			"$py" - "$bin/jail" "$ks_real" >"$kt/res/scrub.scan" 2>&1 <<'PY'
import os, sys
exe, real = sys.argv[1], sys.argv[2].encode()
seen = []
for pid in os.listdir("/proc"):
    try:
        if not pid.isdigit() or os.readlink("/proc/%s/exe" % pid) != exe:
            continue
        maps = open("/proc/%s/maps" % pid).read().splitlines()
        mem = open("/proc/%s/mem" % pid, "rb", 0)
    except OSError:
        continue
    n, hit = 0, False
    for l in maps:
        a, b = (int(x, 16) for x in l.split()[0].split("-"))
        if "r" not in l.split()[1] or "[vvar]" in l or "[vsyscall]" in l:
            continue
        try:
            mem.seek(a)
            d = mem.read(b - a)
        except (OSError, ValueError, OverflowError):
            continue
        n += len(d)
        hit = hit or real in d
    seen.append("%s:%s" % ("HELD" if hit else "clean", "read" if n else "unread"))
print(" ".join(sorted(seen)))
PY
		fi
		touch "$kt/res/scrub-scanned"
		wait "$ks_in"
		ks_rc=$?
	fi
	ks_res() { # NAME: RC OUT ERR of the case
		RC=$(cat "$kt/res/$1.rc" 2>/dev/null)
		OUT=$(cat "$kt/res/$1.out" 2>/dev/null)
		ERR=$(cat "$kt/res/$1.err" 2>/dev/null)
	}
	# ks_seen PATTERN: the stand-in's log lines (port 443) matching PATTERN
	ks_seen() { grep -F -- "$1" "$kt/res/seen.443" 2>/dev/null; }
	# ks_got PATH: a request for PATH… reached the stand-in with the real
	# value (in its line or a header, a Basic one decoded).
	ks_got() {
		"$py" -c 'import base64, json, sys
path, real, got = sys.argv[1], sys.argv[2], False
for l in open(sys.argv[3]):
    e = json.loads(l)
    if not e["line"].split()[1].startswith(path):
        continue
    texts = [e["line"]] + list(e["headers"].values())
    for v in e["headers"].values():
        if v.startswith("Basic "):
            texts.append(base64.b64decode(v[6:]).decode(errors="replace"))
    got = got or any(real in t for t in texts)
sys.exit(0 if got else 1)' "$1" "$real" "$kt/res/seen.443"
	}
	if [ -n "$ks_why" ]; then
		for n in $ks_cases; do c "$n" && skip "$n" "$ks_why"; done
		want_ks=0
	elif [ "$(cat "$kt/res/control" 2>/dev/null)" != ok ]; then
		ERR="$(cat "$kt/in.log") $(cat "$kt/res/control" 2>/dev/null)"
		for n in $ks_cases; do c "$n" && fail "$n" "the namespaces or the stand-in could not be set up (exit $ks_rc)"; done
		want_ks=0
	fi
fi

if [ $want_ks = 1 ]; then
	real=$ks_real
	# A placeholder as the jail saw it (the TOKEN its runs printed).
	ph_re='^aijail-secret-TOKEN-[0-9a-f]{32}$'
	if c keys-unset; then
		ks_res keys-unset
		if [ "$RC" != 125 ] || ! grep -qF "unable to bind the key NOPE_UNSET: it is not set in your environment" <<<"$ERR"; then
			fail keys-unset "exit $RC, stderr $(q "$ERR")"
		else pass keys-unset; fi
	fi
	if c keys-unreachable; then
		ks_res keys-unreachable
		if [ "$RC" != 125 ] || ! grep -qF "unable to bind the key TOKEN: a key is added by the jail's proxy" <<<"$ERR"; then
			fail keys-unreachable "exit $RC, stderr $(q "$ERR")"
		else pass keys-unreachable; fi
	fi
	if c keys-placeholder; then
		ks_res keys-placeholder
		p1=$OUT
		ks_res keys-placeholder-2
		if [ "$RC" != 0 ] || ! [[ $p1 =~ $ph_re ]] || ! [[ $OUT =~ $ph_re ]]; then
			fail keys-placeholder "exit $RC, TOKEN $(q "$p1") then $(q "$OUT")"
		elif [ "$p1" = "$OUT" ]; then
			fail keys-placeholder "the placeholder is the same in two runs: $p1"
		else pass keys-placeholder; fi
	fi
	# ks_ok NAME WANT-OUT PATH…: the jail's output, and the stand-in saw
	# each PATH with the real value and never a placeholder.
	ks_ok() {
		local name=$1 want=$2 p
		shift 2
		c "$name" || return 0
		ks_res "$name"
		if [ "$RC" != 0 ] || [ "$OUT" != "$want" ]; then
			fail "$name" "exit $RC, stdout $(q "$OUT"), expected $(q "$want"); stderr $(q "$ERR")"
			return
		fi
		for p in "$@"; do
			if ! ks_got "$p"; then
				fail "$name" "the stand-in did not get $p with the real value: $(q "$(ks_seen " $p")")"
				return
			fi
		done
		if grep -E '"Host": "(api|git)\.keys\.test"' "$kt/res/seen.443" | grep -q 'aijail-secret-'; then
			fail "$name" "a placeholder reached a bound host: $(q "$(grep aijail-secret- "$kt/res/seen.443" | head -n 2)")"
			return
		fi
		pass "$name"
	}
	ks_ok keys-curl "real-ok 200" /bearer
	ks_ok keys-basic "real-ok 200" /basic
	ks_ok keys-header-query "real-ok 200
real-ok 200" /xkey /q
	if c keys-keepalive; then
		ks_ok keys-keepalive "real-ok 200
real-ok 200
real-ok 200" /ka1 /ka2 /ka3
		conns=$(grep -E '"GET /ka[12]|"POST /ka3' "$kt/res/seen.443" | "$py" -c 'import json, sys; print(len({json.loads(l)["conn"] for l in sys.stdin}))')
		[ "$conns" = 1 ] || fail keys-keepalive "three requests came on $conns connections, expected one"
	fi
	ks_ok keys-python "200" /urllib
	ks_ok keys-python-api "0 real-ok 200" /pyapi
	if c keys-upstream; then
		ks_ok keys-upstream "real-ok 200" /upstream
		grep -qx 'CONNECT api.keys.test:443 HTTP/1.1 | -' "$kt/res/upstream.log" 2>/dev/null ||
			fail keys-upstream "the upstream saw no CONNECT api.keys.test:443: $(q "$(cat "$kt/res/upstream.log" 2>/dev/null)")"
	fi
	ks_ok keys-mcp "real-ok 200
True True" /mcp
	if c keys-requests; then
		ks_res keys-requests
		if [ "$OUT" = no-requests ]; then skip keys-requests "Python's requests is not installed"
		else ks_ok keys-requests "200" /requests; fi
	fi
	if c keys-git; then
		ks_res keys-git
		if [ "$RC" != 0 ] || [ "$OUT" != "1111111111111111111111111111111111111111	HEAD" ]; then
			fail keys-git "exit $RC, stdout $(q "$OUT"); stderr $(q "$ERR")"
		elif ! ks_got /repo.git/info/refs; then
			fail keys-git "the stand-in never got the real value from git"
		else pass keys-git; fi
	fi
	if c keys-node; then
		if ! command -v node >/dev/null; then skip keys-node "node is not installed"
		else ks_ok keys-node "200 real-ok" /node; fi
	fi
	if c keys-memory; then
		ks_res keys-memory
		if [ "$RC" != 0 ] || ! [[ $OUT == "scanned "*" placeholder-seen True" ]] || [[ $OUT == "scanned 0 "* ]] ||
			[ ! -s "$kt/res/scan.bin" ]; then
			fail keys-memory "exit $RC, stdout $(q "$OUT"); stderr $(q "$ERR")"
		elif grep -qaF -- "$real" "$kt/res/scan.bin"; then
			fail keys-memory "the real value is in the memory of a process in the jail"
		else pass keys-memory; fi
	fi
	if c keys-files; then
		ks_res keys-files
		if [ "$RC" != 0 ] || [ "$OUT" -lt 2 ]; then
			fail keys-files "exit $RC, $(q "$OUT") files with the placeholder, expected 2 or more; stderr $(q "$ERR")"
		elif grep -rqF -- "$real" "$kt/proj" 2>/dev/null; then
			fail keys-files "the real value is in a file the jail wrote in the project"
		else pass keys-files; fi
	fi
	ks_capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	if c keys-scrub && [ "$as_root" -eq 0 ]; then
		skip keys-scrub "only root may read the memory of the jail's non-dumpable processes (run as root)"
	elif c keys-scrub && ! (((0x${ks_capeff:-0} >> 19) & 1)); then
		# Docker drops it: a container's root cannot read another
		# user's non-dumpable process's memory.
		skip keys-scrub "reading the memory of the jail's non-dumpable processes needs CAP_SYS_PTRACE, which this root lacks (CapEff $ks_capeff; a container's root)"
	elif c keys-scrub; then
		ks_res keys-scrub
		scan=$(cat "$kt/res/scrub.scan")
		# the parent, pid 1 and the target's sh before its exec are the
		# stub's image; at least the parent and pid 1 must have been read
		if [ "$RC" != 0 ] || [ "$OUT" != over ]; then
			fail keys-scrub "exit $RC, stdout $(q "$OUT"); stderr $(q "$ERR")"
		elif [[ $scan == *HELD* ]]; then
			fail keys-scrub "a process of the stub holds the real value: $scan"
		elif [ "$(grep -o 'clean:read' <<<"$scan" | wc -l)" -lt 2 ]; then
			fail keys-scrub "fewer than two of the stub's processes could be read: $(q "$scan")"
		else pass keys-scrub; fi
	fi
	if c keys-plain-refused; then
		ks_res keys-plain-refused
		if [ "$OUT" != "aijail: a key's placeholder goes only over https to its hosts
 403" ] ||
			! grep -qF "refused a connection to 203.0.113.7:8080: it carries the placeholder of the key TOKEN in plain HTTP" <<<"$ERR"; then
			fail keys-plain-refused "stdout $(q "$OUT"), stderr $(q "$ERR")"
		elif [ -s "$kt/res/seen.8080" ]; then
			fail keys-plain-refused "the plain host got a request: $(q "$(cat "$kt/res/seen.8080")")"
		elif grep -qF -- "$real" <<<"$ERR"; then
			fail keys-plain-refused "the real value is in the message"
		else pass keys-plain-refused; fi
	fi
	if c keys-unbound-tunnel; then
		ks_res keys-unbound-tunnel
		if [ "$OUT" != "no-key 401" ]; then
			fail keys-unbound-tunnel "stdout $(q "$OUT"), expected the stand-in's 401; stderr $(q "$ERR")"
		elif ! ks_seen ' /unbound' | grep -q 'aijail-secret-TOKEN-'; then
			fail keys-unbound-tunnel "the unbound host did not get the placeholder: $(q "$(ks_seen ' /unbound')")"
		elif ks_seen ' /unbound' | grep -qF -- "$real"; then
			fail keys-unbound-tunnel "the real value went to a host it is not bound to"
		else pass keys-unbound-tunnel; fi
	fi
	# ks_refused NAME PORT WHY: a 502 naming the host's verification error,
	# the log line naming host and port, and no request at the host.
	ks_refused() {
		local name=$1 port=$2 why=$3
		c "$name" || return 0
		ks_res "$name"
		if ! [[ $OUT == *"the host's certificate does not verify"*" 502" ]]; then
			fail "$name" "stdout $(q "$OUT"), expected a 502 naming the verification; stderr $(q "$ERR")"
		elif ! grep -qF "aijail-keys: refused ${name#keys-}" <<<"$ERR" && ! grep -qF ":$port: the host's certificate does not verify ($why" <<<"$ERR"; then
			fail "$name" "no log line naming the host, port $port and $(q "$why"): $(q "$ERR")"
		elif [ -s "$kt/res/seen.$port" ]; then
			fail "$name" "the host got a request: $(q "$(cat "$kt/res/seen.$port")")"
		else pass "$name"; fi
	}
	ks_refused keys-unknown-ca 8443 "The certificate is not correctly signed by the trusted CA"
	# and --jail-log has a line other than "allowed" naming host, port, why
	if c keys-unknown-ca; then
		logged=$("$py" -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["kind"] != "allowed" and e.get("host") == "unknown.keys.test" and e.get("port") == 8443:
        print(e["kind"], e.get("reason"))' "$kt/res/unknown-ca.jsonl" 2>&1)
		[[ $logged == *"not correctly signed by the trusted CA"* ]] ||
			fail keys-unknown-ca "--jail-log has no refusal naming unknown.keys.test:8443 and why: $(q "$logged")"
	fi
	ks_refused keys-wrong-name 9443 "The certificate Common Name (CN) does not match with the expected CN"
	# ks_closed NAME PATH WHY: 400, the log says why, nothing forwarded.
	ks_closed() {
		local name=$1 path=$2 why=$3
		c "$name" || return 0
		ks_res "$name"
		if [ "$OUT" != "HTTP/1.1 400 Bad Request" ] || ! grep -qF -- "$why" <<<"$ERR"; then
			fail "$name" "stdout $(q "$OUT"), stderr $(q "$ERR"); expected a 400 and $(q "$why")"
		elif ks_seen " $path" >/dev/null || ks_seen " /hidden" >/dev/null; then
			fail "$name" "the host got the request: $(q "$(ks_seen " $path")")"
		else pass "$name"; fi
	}
	ks_closed keys-smuggle /smuggle "both Content-Length and Transfer-Encoding (request smuggling)"
	ks_closed keys-oversize /big "the request's head is over 16384 bytes"
	ks_closed keys-bad-chunk /chunk "bad chunking (a malformed chunk size)"
	if c keys-explain; then
		ks_res keys-explain
		keys=$("$py" -c 'import json, sys; print(json.load(sys.stdin)["network"]["keys"])' <<<"$OUT" 2>&1)
		text=$(cat "$kt/res/keys-explain-text.out" "$kt/res/keys-explain-text.err")
		if [ "$RC" != 0 ] || [ "$keys" != "[{'name': 'TOKEN', 'hosts': ['api.keys.test:443', 'git.keys.test:443', 'unknown.keys.test:8443', 'wrong.keys.test:9443']}]" ]; then
			fail keys-explain "exit $RC, keys $(q "$keys")"
		elif ! grep -qF "key TOKEN, a placeholder in the jail, its value added on the way to api.keys.test:443" <<<"$text"; then
			fail keys-explain "the text names no key: $(q "$text")"
		elif grep -qF -- "$real" <<<"$OUT$text"; then
			fail keys-explain "--jail-explain shows the value"
		else pass keys-explain; fi
	fi
	if c keys-policy; then
		ks_ok keys-policy "real-ok 200
no-key 401" /policy
		ks_seen ' /policy-unbound' | grep -qF -- "$real" &&
			fail keys-policy "the real value went to other.keys.test, which the policy does not bind"
	fi
	if c keys-policy-explain; then
		ks_res keys-policy-explain
		keys=$("$py" -c 'import json, sys; print(json.load(sys.stdin)["network"]["keys"])' <<<"$OUT" 2>&1)
		if [ "$RC" != 0 ] || [ "$keys" != "[{'name': 'TOKEN', 'hosts': ['api.keys.test:443']}]" ]; then
			fail keys-policy-explain "exit $RC, keys $(q "$keys"); stderr $(q "$ERR")"
		elif grep -qF -- "$real" <<<"$OUT$ERR"; then
			fail keys-policy-explain "--jail-explain shows the value"
		else pass keys-policy-explain; fi
	fi
	if c keys-no-key-as-before; then
		ks_res keys-no-key-as-before
		if [ "$RC" != 0 ] || [ "$OUT" != "none|none|$(cat "$kt/res/bundle-count")" ]; then
			fail keys-no-key-as-before "stdout $(q "$OUT"), expected none|none|$(cat "$kt/res/bundle-count" 2>/dev/null); stderr $(q "$ERR")"
		else pass keys-no-key-as-before; fi
	fi
	# RFC 5758 section 3.2: ecdsa-with-SHA* has its parameters absent, in
	# the TBSCertificate's signature and in the outer signatureAlgorithm;
	# rustls/webpki (Codex, uv) refuses a certificate with a NULL there.
	if c keys-cert-strict; then
		ks_res keys-cert-strict
		why=$("$py" -c 'import base64, sys
def tlv(b, i):  # tag, start, content start, end
    n, j = b[i + 1], i + 2
    if n & 0x80:
        n, j = int.from_bytes(b[j:j + (n & 0x7f)], "big"), j + (n & 0x7f)
    return b[i], i, j, j + n
def kids(b, t):
    out, i = [], t[2]
    while i < t[3]:
        out.append(tlv(b, i))
        i = out[-1][3]
    return out
bad, seen = [], set()
for line in sys.stdin:
    name, der = line.split()[0], base64.b64decode(line.split()[1])
    seen.add(name)
    tbs, outer, _ = kids(der, tlv(der, 0))
    f = kids(der, tbs)
    inner = f[2] if f[0][0] == 0xa0 else f[1]
    for where, a in (("inner", inner), ("outer", outer)):
        ai = der[a[1]:a[3]]
        k = kids(der, a)
        if len(k) != 1 or not der[k[0][1]:k[0][3]].startswith(bytes.fromhex("06082a8648ce3d0403")):
            bad.append("%s %s AlgorithmIdentifier %s" % (name, where, ai.hex()))
if seen != {"leaf", "ca"}:
    bad.append("certificates seen: %s" % sorted(seen))
print("; ".join(bad))' <<<"$OUT" 2>&1)
		if [ "$RC" != 0 ] || [ -n "$why" ]; then
			fail keys-cert-strict "exit $RC, ${why:-stdout $(q "$OUT")}; stderr $(q "$ERR")"
		else pass keys-cert-strict; fi
	fi
fi
