# shellcheck shell=bash disable=SC2154 # sourced: as_root and tuser are user.sh's
# netns.sh: can the test user make the namespaces the network cases run in
# (their own user, network and mount namespaces, a veth pair to a second
# one: no packet of theirs leaves the machine)?  netns_why TOOL... prints
# why not (a tool missing, or unshare refused), or nothing.  netns_pre is
# the prefix that runs a command as the test user.
netns_pre=()
[ "${as_root:-0}" -eq 1 ] && netns_pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups)
netns_why() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || {
			echo "$t is not installed"
			return
		}
	done
	"${netns_pre[@]}" unshare -Urnm sh -c 'ip link set lo up && unshare -U --map-user=1 true' 2>/dev/null ||
		echo "the test user cannot make user and network namespaces here (unshare -Urnm)"
}

# In the namespaces the case made (unshare -Urnm; the case's in.sh sources
# this file): netns_outside NET [ADDRESS...] brings lo up and makes the
# "outside", a second network namespace (netns_out: the pid that holds
# it) joined by a veth pair, va here NET.1/24 and vb there NET.7/24; each
# ADDRESS is the outside's too, routed to it by va.  Status 4: no veth
# pair; 5: its outside end could not be set up.
netns_outside() {
	local net=$1 a
	shift
	ip link set lo up
	unshare -n sleep 3600 &
	netns_out=$!
	for _ in $(seq 100); do
		[ "$(readlink /proc/$netns_out/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
		sleep 0.05
	done
	ip link add va type veth peer name vb netns "$netns_out" || return 4
	ip addr add "$net.1/24" dev va
	ip link set va up
	for a; do
		ip route add "$a/32" dev va
	done
	# shellcheck disable=SC2016 # expanded by the outside's sh
	nsenter -t "$netns_out" -n sh -c 'net=$1 && shift && ip link set lo up && ip link set vb up &&
		ip addr add "$net.7/24" dev vb || exit 1
	for a; do ip addr add "$a/32" dev vb || exit 1; done
	[ $# -eq 0 ] || ip route add "$net.1/32" dev vb' sh "$net" "$@" || return 5
}

# netns_nameservers prints the nameservers resolv.conf names (at most
# three; 127.0.0.1 when it names none), each not a loopback one made an
# address of lo, so that a stand-in nameserver here answers the stub's
# parent where it looks.
netns_nameservers() {
	local a nss
	nss=$(awk '$1 == "nameserver" { print $2 }' /etc/resolv.conf | head -n 3)
	[ -n "$nss" ] || nss=127.0.0.1
	for a in $nss; do
		case $a in
		127.* | ::1) ;;
		*:*) ip addr add "$a/128" dev lo nodad ;;
		*) ip addr add "$a/32" dev lo ;;
		esac
	done
	echo "$nss"
}
