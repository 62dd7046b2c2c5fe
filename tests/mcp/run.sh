#!/bin/bash
# run.sh: aijail-mcp driven by the official MCP clients, as the unprivileged
# test user: the TypeScript SDK's Client (client.mjs), then the Inspector's
# CLI where this node runs it, then a real MCP server from npm
# (server-filesystem) run inside the generic jail by the SDK's client.
#
# The test-only npm packages (tests/mcp/package.json, exact versions) are
# installed into build/mcp-test, never globally (make mcp-deps).
#
# Usage: tests/mcp/run.sh.  Environment: AIJAIL_BUILD (default build),
# AJTEST_USER (the test user, tests/lib/user.sh).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"
build=${AIJAIL_BUILD:-$root/build}
server=$build/bin/aijail-mcp
mods=$root/build/mcp-test/node_modules

summary() {
	echo "mcp: $npass passed, $nfail failed, $nskip skipped${failed:+ (${failed[*]})}"
	[ "$nfail" -eq 0 ]
	exit
}

if ! command -v node >/dev/null 2>&1; then
	skip mcp "no node on PATH (make deps-test installs nodejs)"
	summary
fi
if [ ! -x "$server" ]; then
	fail mcp "$server is missing: run make"
	summary
fi
if [ ! -f "$mods/@modelcontextprotocol/sdk/package.json" ] ||
	! cmp -s "$root/tests/mcp/package.json" "$root/build/mcp-test/package.json"; then
	if ! make -C "$root" --no-print-directory mcp-deps >/tmp/aijail-mcp-deps.$$ 2>&1; then
		ERR=$(tail -n 8 /tmp/aijail-mcp-deps.$$)
		rm -f /tmp/aijail-mcp-deps.$$
		fail mcp-deps "npm install into build/mcp-test failed"
		summary
	fi
	rm -f /tmp/aijail-mcp-deps.$$
fi

tmp=$(mktemp -d /tmp/aijail-mcp.XXXXXX)
keymade=
cleanup() {
	rm -rf "$tmp"
	[ -n "$keymade" ] && rm -f "$keymade"
}
trap cleanup EXIT
chmod 0755 "$tmp"
project=$tmp/project
outside=$tmp/outside
mkdir -p "$project/src" "$outside"
echo 'API_KEY=hunter2' >"$project/.env"
echo 'print("hello")' >"$project/src/main.py"

# as_user CMD…: CMD as the test user, with its own home.
if [ "$as_root" -eq 1 ]; then
	chown -R "$tuid:$tgid" "$tmp"
	home=$thome
	as_user() { setpriv --reuid "$tuid" --regid "$tgid" --init-groups env -i PATH="$PATH" HOME="$home" "$@"; }
else
	home=$HOME
	as_user() { env -i PATH="$PATH" HOME="$home" "$@"; }
fi
# The test user's key: made for the test when it has none, removed after.
if [ ! -e "$home/.ssh/id_rsa" ]; then
	as_user sh -c 'mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh" &&
		printf "%s\n" "-----BEGIN OPENSSH PRIVATE KEY-----" "aijail-mcp-test-key" \
			"-----END OPENSSH PRIVATE KEY-----" >"$HOME/.ssh/id_rsa" && chmod 600 "$HOME/.ssh/id_rsa"'
	keymade=$home/.ssh/id_rsa
fi

while IFS= read -r line; do
	case $line in
	PASS\ *) npass=$((npass + 1)) ;;
	FAIL\ *) nfail=$((nfail + 1)); n=${line#FAIL }; failed+=("${n%%:*}") ;;
	SKIP\ *) nskip=$((nskip + 1)) ;;
	EXIT\ *)
		[ "${line#EXIT }" != 0 ] && [ "$nfail" -eq 0 ] && fail sdk-client "node exited ${line#EXIT }"
		continue
		;;
	esac
	echo "$line"
done < <(cd "$project" && as_user node "$root/tests/mcp/client.mjs" "$mods" "$server" "$project" \
	"$outside" "$build/bin" 2>&1; echo "EXIT $?")

summary
