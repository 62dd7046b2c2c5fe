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
