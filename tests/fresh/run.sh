#!/bin/bash
# tests/fresh/run.sh: the README's two commands on a fresh machine
# (make check-fresh).
#
# For each release in FRESH_RELEASES (default "bookworm trixie"): a
# debootstrap minbase root (tests/lib/minbase.sh, imported into a dockerd
# of our own: nothing pulled), a copy of this tree (its files, not build/
# nor .git) at /aijail, and in a container with the three relaxations make
# check needs (seccomp, systempaths and apparmor unconfined) and the host's
# network (the Debian mirror, npm's registry):
#   root  the README's two commands, read from the README, as root;
#   user  what the README tells a user without sudo to do first (root
#         installs sudo and adds the user to group sudo), then the two
#         commands as that user, with `su -c '…'` written `sudo sh -c '…'`
#         as the README says.
# FRESH_USERS picks the passes for every release ("root user", "root",
# "user"); by default each release gets the root pass and the last of
# several the user's too, since one pass is about half an hour here (the
# packages, the build, make check) and CI has 90 minutes for all of its
# work (the times are in docs/testing.md).  Each pass's log is
# kept in build/fresh/; the summary gives every suite's PASS, FAIL and
# SKIP counts.  The run passes when every pass's make check exits 0, and
# no case skips unless tests/fresh/skips.allowed names its reason (what
# this machine cannot have, or a root case in the user's pass).
#
# The downloaded packages are kept between runs (build/fresh/apt-REL, as
# the container's /var/cache/apt/archives; FRESH_APT_CACHE=DIR names
# another, DIR/REL, for a run beside this one: apt locks the folder):
# apt installs the same files, only the download is saved.  sudo is given NOPASSWD, since nobody types
# a password here.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
OUT=$ROOT/build/fresh
RELEASES=${FRESH_RELEASES:-bookworm trixie}
USERS=${FRESH_USERS:-}
# users REL: the passes for REL.
users() {
	if [ -n "$USERS" ]; then
		echo "$USERS"
	elif [ "$1" = "${RELEASES##* }" ] && [ "${RELEASES%% *}" != "$RELEASES" ]; then
		echo root user
	else
		echo root
	fi
}
RELAX=(--security-opt seccomp=unconfined --security-opt systempaths=unconfined
	--security-opt apparmor=unconfined --network host)

die() {
	echo "check-fresh: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, a dockerd of its own)"
DOCKERD=$(command -v dockerd) || die "no dockerd (make deps-docker installs docker.io)"
DOCKER=$(command -v docker) || die "no docker client (make deps-docker installs docker.io)"
command -v debootstrap >/dev/null || die "no debootstrap (make deps-docker installs it)"

# The README's two commands: the first sh block after "two commands".
readme_cmds() {
	awk '/two commands/ { want = 1 } want && /^```sh/ { on = 1; next }
		on && /^```/ { exit } on { sub(/[ \t]+#.*$/, ""); print }' "$ROOT/README.md"
}
mapfile -t CMDS < <(readme_cmds)
[ ${#CMDS[@]} = 2 ] || die "the README's quick start has ${#CMDS[@]} commands, not two: $(printf '%s; ' "${CMDS[@]}")"
[[ ${CMDS[0]} == "su -c '"* ]] || die "the README's first command does not start with su -c '…': ${CMDS[0]}"
# With sudo, as the README says: su -c '…' becomes sudo sh -c '…'.
USER_CMD0="sudo sh -c '${CMDS[0]#su -c \'}"

mkdir -p "$OUT"
T=$(mktemp -d /tmp/aj-fresh.XXXXXX)
chmod 711 "$T"
# shellcheck source=tests/lib/dockerd.sh
. "$ROOT/tests/lib/dockerd.sh"
cleanup() {
	dockerd_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

dockerd_start "$T" || die "dockerd did not start (log above)"

# Where this machine reaches npm's registry through a TLS proxy of its own
# (its CA in the host's /usr/local/share/ca-certificates), a fresh root
# cannot: the folder is lent to the container read-only, so that the
# ca-certificates make deps-test installs adds those CAs to the system's
# list (curl, git, Python; npm inside a jail), and node is given them
# (NODE_EXTRA_CA_CERTS, kept through sudo), which it reads at start.
# That is the host's network, not the project; FRESH_HOST_CA=0 leaves it.
CA_ARGS=()
if [ "${FRESH_HOST_CA:-1}" = 1 ] && ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
	cat /usr/local/share/ca-certificates/*.crt >"$T/host-ca.pem"
	chmod 644 "$T/host-ca.pem"
	CA_ARGS=(-v "$T/host-ca.pem:/etc/aj-host-ca.pem:ro" -e NODE_EXTRA_CA_CERTS=/etc/aj-host-ca.pem
		-v /usr/local/share/ca-certificates:/usr/local/share/ca-certificates:ro)
	echo "check-fresh: node trusts the host's own CAs too ($(ls /usr/local/share/ca-certificates/*.crt | tr '\n' ' '))"
fi

# The tree as a user has it after unpacking: its files, no build/, no .git.
tar -C "$ROOT" --exclude=./build --exclude=./.git -cf "$T/src.tar" .

# counts LOG: one line per suite, "SUITE PASS FAIL SKIP VERDICT", from
# make check's "== make check: SUITE" frames; the shell suites' PASS/FAIL/
# SKIP lines, cmocka's [ OK ]/[ FAILED ]/[ SKIPPED ], unittest's "... ok".
counts() {
	awk '
	function flush() {
		# A suite that prints only its totals ("corpus: 113 passed, 0 failed")
		if (s != "" && p + f + k == 0) { p = sp; f = sf }
		if (s != "") printf "%s %d %d %d %s\n", s, p, f, k, v
	}
	/^== make check: [^ ]+$/ { flush(); s = $4; p = f = k = sp = sf = 0; v = "unfinished"; next }
	/^[a-z -]+: [0-9]+ passed, [0-9]+ failed/ {
		match($0, /[0-9]+ passed/); sp += substr($0, RSTART, RLENGTH) + 0
		match($0, /[0-9]+ failed/); sf += substr($0, RSTART, RLENGTH) + 0
	}
	/^== make check: [^ ]+ (passed|FAILED)$/ { v = $5; next }
	s == "" { next }
	/^(PASS|ok) / || /^\[       OK \]/ || / \.\.\. ok$/ { p++ }
	# cmocka names a failed test twice, then its count; unit-check adds a
	# FAIL line per program: the count alone is taken.
	/^\[  FAILED  \] [0-9]+ test/ { match($0, /[0-9]+ test/); f += substr($0, RSTART, RLENGTH) + 0; next }
	/^FAIL build\/tests\/unit\// { next }
	/^(FAIL|FAILED) / || / \.\.\. (FAIL|ERROR)$/ { f++ }
	/^SKIP / || /^\[  SKIPPED \]/ || / \.\.\. skipped/ { k++ }
	END { flush() }' "$1"
}

# skips LOG WHO: the SKIP lines that skips.allowed does not explain.
unexplained_skips() {
	local log=$1 who=$2 line pat ok
	grep -a '^SKIP ' "$log" | sort -u | while IFS= read -r line; do
		ok=0
		while IFS=$'\t' read -r w pat; do
			[[ -z $w || $w == \#* ]] && continue
			[ "$w" = any ] || [ "$w" = "$who" ] || continue
			if printf '%s\n' "${line#SKIP }" | grep -Eq -- "$pat"; then ok=1; break; fi
		done <"$ROOT/tests/fresh/skips.allowed"
		[ $ok = 1 ] || printf '%s\n' "$line"
	done
}

# pass REL WHO: one container, the README's way.  Sets PASS_RC.
run_pass() {
	local rel=$1 who=$2 log=$OUT/$1-$2.log src=$T/src-$1-$2 script apt
	apt=${FRESH_APT_CACHE:+$FRESH_APT_CACHE/$rel}
	apt=${apt:-$OUT/apt-$rel}
	rm -rf "$src"
	mkdir -p "$src" "$apt"
	tar -C "$src" -xf "$T/src.tar"
	if [ "$who" = root ]; then
		script="cd /aijail && ${CMDS[0]} && ${CMDS[1]}"
	else
		chown -R 1000:1000 "$src"
		# What the README tells a user without sudo, done by root, then
		# the two commands as the user.
		script="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y sudo &&
			useradd -m -u 1000 -s /bin/bash -G sudo fresh &&
			echo 'fresh ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/fresh &&
			echo 'Defaults env_keep += \"NODE_EXTRA_CA_CERTS\"' >>/etc/sudoers.d/fresh &&
			su fresh -c $(printf '%q' "cd /aijail && $USER_CMD0 && ${CMDS[1]}")"
	fi
	echo "== check-fresh: $rel, $who: $script"
	local t0=$SECONDS
	"$DOCKER" run --rm "${RELAX[@]}" -v "$src:/aijail" -v "$apt:/var/cache/apt/archives" \
		"${CA_ARGS[@]}" ${AIJAIL_SOAK:+-e AIJAIL_SOAK="$AIJAIL_SOAK"} -e LANG= -e TERM=dumb \
		"aj-fresh:$rel" bash -c "$script" >"$log" 2>&1
	PASS_RC=$?
	PASS_SECS=$((SECONDS - t0))
	rm -rf "$src"
}

# FRESH_SIZES=1: apt's own sizes of make deps, then of make deps-test on
# top of it (and of DEB_DOCKER), on each fresh root, for the README and
# docs/install.md; no pass runs.
if [ "${FRESH_SIZES:-0}" = 1 ]; then
	mk() { make -s -C "$ROOT" --no-print-directory -f - print <<<"include Makefile
print: ; @echo \$($1)"; }
	build=$(mk DEB_BUILD) test=$(mk DEB_TEST) dock=$(mk DEB_DOCKER)
	for rel in $RELEASES; do
		"$ROOT/tests/lib/minbase.sh" "$rel" "$ROOT/build/minbase/$rel.tar" || die "no $rel root"
		"$DOCKER" import "$ROOT/build/minbase/$rel.tar" "aj-fresh:$rel" >/dev/null || die "docker import $rel"
		echo "== $rel"
		"$DOCKER" run --rm --network host -e DEBIAN_FRONTEND=noninteractive "aj-fresh:$rel" bash -c "
			size() { apt-get install --assume-no --no-install-recommends \"\$@\" 2>&1 |
				grep -E '^(Need to get|After this operation)' | tr '\n' ' '; echo; }
			apt-get update -qq >/dev/null
			echo \"deps:        \$(size $build)\"
			echo \"deps-docker: \$(size $dock)\"
			apt-get install -y -qq --no-install-recommends $build >/dev/null 2>&1
			echo \"deps-test:   \$(size $test nodejs npm)\"
			echo \"  chromium:  \$(size chromium)\""
	done
	exit 0
fi

fail=0
summary=
for rel in $RELEASES; do
	t0=$SECONDS
	if ! "$ROOT/tests/lib/minbase.sh" "$rel" "$ROOT/build/minbase/$rel.tar"; then
		summary="$summary$rel: no minbase root (above)"$'\n'
		fail=1
		continue
	fi
	"$DOCKER" import "$ROOT/build/minbase/$rel.tar" "aj-fresh:$rel" >/dev/null || die "docker import $rel"
	for who in $(users "$rel"); do
		run_pass "$rel" "$who"
		log=$OUT/$rel-$who.log
		c=$(counts "$log")
		bad_skips=$(unexplained_skips "$log" "$who")
		verdict=passed
		if [ "$PASS_RC" != 0 ]; then
			verdict="FAILED (exit $PASS_RC)"
			fail=1
		fi
		if [ -n "$bad_skips" ]; then
			verdict="$verdict; skips that should not"
			fail=1
		fi
		summary="$summary== $rel, $who: $verdict, $PASS_SECS s, log $log"$'\n'
		[ -n "$c" ] && summary="$summary$(printf '%s\n' "$c" | awk '{ printf "  %-20s %4d pass %3d fail %3d skip  %s\n", $1, $2, $3, $4, $5 }')"$'\n'
		[ -z "$c" ] && summary="$summary  (no suite ran; the log's last lines:)"$'\n'"$(tail -n 15 "$log" | sed 's/^/    /')"$'\n'
		[ "$PASS_RC" != 0 ] && summary="$summary$(grep -a -e '^FAIL ' -e '^make check: FAILED' -e '^make: \*\*\*' "$log" | head -n 30 | sed 's/^/  /')"$'\n'
		[ -n "$bad_skips" ] && summary="$summary  skips not in tests/fresh/skips.allowed:"$'\n'"$(printf '%s\n' "$bad_skips" | sed 's/^/    /')"$'\n'
		printf '%s' "${summary##*== $rel, $who:}" | head -n 1 | sed "s/^/check-fresh: $rel, $who:/"
	done
	summary="$summary$rel: $((SECONDS - t0)) s in all"$'\n'
done
printf '\n%s' "$summary"
if [ $fail = 0 ]; then
	echo "check-fresh: passed ($RELEASES; ${USERS:-root each, the user on the last})"
else
	echo "check-fresh: FAILED"
fi
exit $fail
