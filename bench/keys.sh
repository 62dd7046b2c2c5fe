#!/bin/bash
# keys.sh: what --jail-secret costs (docs/keys.md), in a user, network and
# mount namespace of its own as tests/integration/keys.sh makes it: a
# stand-in HTTPS host (tests/keys/standin.py) behind a veth pair, reached
# by name, verified against a copy of /etc/ssl that holds the test's
# authority.  Prints, in one run: a request's round trip with its
# handshake and on a kept-alive connection, direct (from outside any jail),
# through the jail's proxy (no key) and through interception (a bound
# key); a download of 100 MiB each way; the programs' sizes.
# Usage: bench/keys.sh [BUILD] (default build/); run as root or a user who
# may make user namespaces.  N=requests per figure (default 50).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
N=${N:-50}
t=$(mktemp -d /tmp/aijail-keys-bench.XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/pki" "$t/proj"
(
	cd "$t/pki"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=bench authority" -keyout ca.key -out ca.pem
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=api.keys.test" \
		-keyout good.key -out good.csr
	printf 'subjectAltName=DNS:api.keys.test\n' >good.ext
	openssl x509 -req -in good.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile good.ext -out good.pem
) >/dev/null 2>&1
cp -a /etc/ssl "$t/ssl"
rm -f "$t/ssl/certs/ca-certificates.crt"
cat /etc/ssl/certs/ca-certificates.crt "$t/pki/ca.pem" >"$t/ssl/certs/ca-certificates.crt"
printf '127.0.0.1 localhost\n203.0.113.7 api.keys.test\n' >"$t/hosts"
cp "$root/tests/keys/standin.py" "$build/bin/jail" "$build/bin/aijail-keys" "$t/"
chmod -R a+rX "$t"
cat >"$t/in.sh" <<'EOF'
set -eu
t=$1 N=$2 uid=$3 gid=$4
mount --bind "$t/hosts" /etc/hosts
mount --bind "$t/ssl" /etc/ssl
ip link set lo up
unshare -n sleep 3600 &
out=$!
sleep 0.3
ip link add va type veth peer name vb netns "$out"
ip addr add 203.0.113.1/24 dev va
ip link set va up
nsenter -t "$out" -n sh -c 'ip link set lo up && ip link set vb up && ip addr add 203.0.113.7/24 dev vb'
nsenter -t "$out" -n python3 "$t/standin.py" 203.0.113.7 443 "$t/pki/good.pem" "$t/pki/good.key" /dev/null real-bench-value &
srv=$!
trap 'kill $srv $out 2>/dev/null' EXIT
for _ in $(seq 100); do curl -sk -o /dev/null --noproxy '*' https://api.keys.test/ && break; sleep 0.1; done
cd "$t/proj"
run() { unshare -U --map-user="$uid" --map-group="$gid" env -i PATH=/usr/bin:/bin TOKEN=real-bench-value "$@"; }
# each: N handshakes + requests, then N requests on one connection, then 100 MiB
LOOP='H="Authorization: Bearer $TOKEN"
for i in $(seq $N); do curl -s -o /dev/null -w "%{time_total}\n" -H "$H" https://api.keys.test/x; done | awk "{s+=\$1} END {printf \"%.2f \", 1000*s/NR}"
urls=$(for i in $(seq $N); do printf -- "-o /dev/null https://api.keys.test/x%s " $i; done)
curl -s -w "%{time_total}\n" -H "$H" $urls | awk "NR>1 {s+=\$1; n++} END {printf \"%.2f \", 1000*s/n}"
curl -s -o /dev/null -w "%{speed_download}\n" -H "$H" https://api.keys.test/big/100 | awk "{printf \"%.0f\n\", \$1/1048576}"'
printf 'direct '
run env N=$N TOKEN=real-bench-value CURL_CA_BUNDLE="$t/pki/ca.pem" sh -c "$LOOP"
printf "proxy (no key) "
run "$t/jail" --jail-allow-host=api.keys.test -- env N=$N sh -c "TOKEN=real-bench-value; $LOOP"
printf 'interception '
run "$t/jail" --jail-allow-host=api.keys.test --jail-secret=TOKEN=api.keys.test -- env N=$N sh -c "$LOOP"
EOF
pre=()
[ "$(id -u)" = 0 ] && id ajtest >/dev/null 2>&1 && pre=(setpriv --reuid=ajtest --regid=ajtest --init-groups)
uid=$(id -u ajtest 2>/dev/null || id -u)
gid=$(id -g ajtest 2>/dev/null || id -g)
echo "route        handshake+request ms  kept-alive request ms  100 MiB MiB/s"
"${pre[@]}" unshare -Urnm bash "$t/in.sh" "$t" "$N" "$uid" "$gid"
echo "sizes: jail $(stat -c %s "$build/bin/jail") B, aijail-keys $(stat -c %s "$build/bin/aijail-keys") B"
