#!/bin/bash
# keyns.sh: run.sh's key cases, inside the namespaces the test user made
# (unshare -Urnm, as tests/integration/keys.sh does): the stand-in model
# API at 203.0.113.7 behind a veth pair in a second network namespace,
# over TLS on 443 (the test's authority, which this mount namespace's
# /etc/ssl adds, as aijail-keys verifies a real host) and plain HTTP on
# 8080; /etc/hosts names it api.agents.test.  Then the agent, as the test
# user again (a user namespace mapping it back), with the real key in its
# environment.  No packet leaves the machine, nothing is mounted outside.
#
# Usage: keyns.sh DIR UID GID STANDIN COMMAND -- VAR=VALUE… -- STUB ARGS…
#   DIR holds hosts, ssl/, pki/good.{pem,key}; the stand-ins' logs go to
#   DIR/seen.443.jsonl and DIR/seen.8080.jsonl, the agent's output to
#   DIR/stdout, DIR/stderr, DIR/rc.
set -u
d=$1 tuid=$2 tgid=$3 standin=$4 cmd=$5
shift 6
envs=()
while [ "$1" != -- ]; do envs+=("$1"); shift; done
shift
mount --bind "$d/hosts" /etc/hosts || exit 3
mount --bind "$d/ssl" /etc/ssl || exit 3
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
netns_outside 203.0.113 || exit $?
out=$netns_out
nsenter -t "$out" -n python3 "$standin" "$d/port.443" "$d/seen.443.jsonl" "$cmd" 203.0.113.7 443 \
	"$d/pki/good.pem" "$d/pki/good.key" >"$d/standin.443.log" 2>&1 &
s1=$!
nsenter -t "$out" -n python3 "$standin" "$d/port.8080" "$d/seen.8080.jsonl" "$cmd" 203.0.113.7 8080 \
	>"$d/standin.8080.log" 2>&1 &
s2=$!
trap 'kill $s1 $s2 $out 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$d/port.443" ] && [ -s "$d/port.8080" ] && break; sleep 0.1; done
# The control: the TLS stand-in answers, verified as aijail-keys will.
if ! curl -s -m 5 --noproxy '*' -o /dev/null https://api.agents.test/v1/models; then
	echo "the TLS stand-in does not answer at https://api.agents.test" >"$d/control"
	exit 6
fi
: >"$d/seen.443.jsonl"
echo ok >"$d/control"
unshare -U --map-user="$tuid" --map-group="$tgid" env -i "${envs[@]}" "$@" >"$d/stdout" 2>"$d/stderr" </dev/null
echo $? >"$d/rc"
