#!/bin/bash
# tests/docker/run.sh: the stubs in real Docker containers (make check-docker).
#
# Starts a dockerd of its own (networking left alone: no iptables, no
# bridge; its state under a temporary directory) and stops it by its pid
# on the way out.  The images are made here, by docker import of a
# tarball: a static busybox, the stubs and the static probe; nothing is
# pulled from a registry.  Three layouts: merged /usr (/bin a link), /bin a
# directory of its own (Alpine-style), and no /usr at all.
#
# With Docker's default seccomp profile, as root and as a user without a
# passwd entry (HOME=/): jail-worker runs in its declared fallback and says
# so, a denied file is EACCES, a masked file's content cannot be read, a
# write outside the project fails, a TCP server this script started
# outside (the container on --network host) is refused, a denied system
# call is EPERM; the generic jail, which declares no fallback, exits 125
# naming the container's seccomp profile.  The fallback's own promises
# (issue 20): a secret renamed, moved out of a denied folder or linked by
# one run stays denied in the next ones; the container's /dev/shm and a
# pty the jail was not given are refused, its own terminal is not; names
# another user took in /tmp do not stop it; --jail-explain (text and JSON)
# lists the rules in force, not the full jail's.  With the options that
# allow namespaces, the full jail runs and says so.
#
# contrib/docker/Dockerfile is built for real (on a debootstrap root made
# here, tests/lib/minbase.sh; its build stage reaches the Debian mirror
# through the host's network) with a Debian and an Alpine-style shipped
# stage, and its image runs with Docker's defaults as root and as a user.
# AJ_DOCKER_PARTS="layouts" or "dockerfile" runs one part, saying so.
# AJ_DOCKER_PARTS: the parts to run (default all three: "layouts dockerfile
# packages"); the last is the Debian packages on fresh Debian 12 and 13
# (tests/docker/pkg.sh, AJ_PKG_RELEASES).  AJ_DOCKER_LAYOUTS: the layouts
# to test (default "merged bindir nousr").
#
# No engine (no dockerd, or one that does not start): SKIPPED, never
# passed; with AJ_REQUIRE_DOCKER=1 (CI) that is a failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# AIJAIL_BUILD: the stubs to test (a build before a change, say); the
# probe is this tree's when that build has none.
B=${AIJAIL_BUILD:-$ROOT/build}
PROBE=$B/tests/probe
[ -x "$PROBE" ] || PROBE=$ROOT/build/tests/probe
pass=0 fail=0

skip() {
	echo "check-docker: SKIPPED: $*"
	[ "${AJ_REQUIRE_DOCKER:-0}" = 1 ] && { echo "check-docker: AJ_REQUIRE_DOCKER=1: a skip fails"; exit 1; }
	exit 0
}

[ "$(id -u)" = 0 ] || skip "dockerd needs root (run as root)"
DOCKERD=$(command -v dockerd) || skip "no dockerd (make deps installs docker.io)"
DOCKER=$(command -v docker) || skip "no docker client"
command -v python3 >/dev/null || skip "no python3 (make deps installs it)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
BUSYBOX=$(command -v busybox) || skip "no busybox (make deps installs busybox-static)"
file -L "$BUSYBOX" | grep -q 'statically linked' || skip "$BUSYBOX is not static (busybox-static)"
for f in "$B/bin/jail-worker" "$B/bin/jail" "$PROBE"; do
	[ -x "$f" ] || { echo "check-docker: $f is missing (make all build/tests/probe)"; exit 1; }
done

T=$(mktemp -d /tmp/aj-docker.XXXXXX)
chmod 711 "$T"
LPID=
# shellcheck source=tests/lib/dockerd.sh
. "$ROOT/tests/lib/dockerd.sh"
cleanup() {
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null
	dockerd_stop
	# The vfs layers and the container state: nothing else is ours.
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

dockerd_start "$T" || skip "dockerd did not start (log above)"
echo "check-docker: dockerd $("$DOCKER" version --format '{{.Server.Version}}') (pid $DPID, state in $T)"

# The fallback's own checks, as scripts in the image (/t): each prints
# one line of verdicts.
make_scripts() {
	mkdir -p "$1"
	# A project of the caller's own (a hard link needs that), with
	# secrets; one run renames, moves out of a denied folder, links and
	# renames a folder; the next reads each new name, renames one again;
	# the third reads that.
	cat >"$1/rename.sh" <<-'EOS'
	set -u
	mkdir /outside/p && cd /outside/p || exit 99
	echo S1 >.env; mkdir secrets; echo S2 >secrets/token; echo S3 >id.key; echo S4 >secrets/other
	echo plain >a.txt
	jail-worker sh -c 'mv .env env.txt; mv secrets/token tok.txt; ln id.key link.txt; rm id.key; mv secrets store'
	ls env.txt tok.txt link.txt store/other >/dev/null || { echo "the first run did not move them"; exit 98; }
	out=$(jail-worker sh -c 'for f in env.txt tok.txt link.txt store/other a.txt; do probe read $f; done; mv env.txt e2')
	out="$out $(jail-worker probe read e2)"
	echo "$out" | grep -q 'S[1-4]' && echo "LEAKED: $out"
	echo "$out" | grep -q plain || echo "a plain file is unreadable: $out"
	echo "denied $(echo "$out" | grep -c 'EACCES') of 5"
	EOS
	# The container's /dev/shm, which a sibling uses.
	cat >"$1/shm.sh" <<-'EOS'
	echo sibling >/dev/shm/aj-sibling || exit 99
	r=$(jail-worker probe read /dev/shm/aj-sibling)
	w=$(jail-worker probe write /dev/shm/aj-new)
	echo "shm $r, $w"
	EOS
	# Run with docker run -t: the terminal is the caller's own when the
	# jail is given it, another's when it is not.
	cat >"$1/pty.sh" <<-'EOS'
	t=$(tty) || { echo "no terminal"; exit 99; }
	own=$(jail-worker sh -c 'probe write "$(tty)"' 2>&1)
	caller=$(jail-worker probe write "$t" 2>&1)
	pass=$(jail-worker --jail-terminal=passthrough probe write "$t" 2>&1)
	other=$(jail-worker --jail-terminal=passthrough probe write "$t" </dev/null 2>&1 | cat)
	echo "own $own, caller's $caller, passthrough $pass, other $other"
	EOS
	# Another user has taken, in the /tmp this shares, every name the
	# old stubs would try for the next pids, and the record's directory
	# of root and of uid 1000.
	cat >"$1/squat.sh" <<-'EOS'
	names=
	for p in $(seq 1 40); do for n in $(seq 0 101); do names="$names /tmp/aijail.$p.$n"; done; done
	mkdir $names /tmp/aijail-0 /tmp/aijail-1000 && chmod 777 /tmp/aijail-0 /tmp/aijail-1000 && echo squatted
	EOS
}

# One image per layout.  $1: name; $2: where the programs go.
make_image() {
	local name=$1 layout=$2 r=$T/img-$1 bin
	mkdir -p "$r/etc" "$r/tmp" "$r/proj/secrets" "$r/proj/src" "$r/outside" "$r/proc" "$r/dev" "$r/sys"
	case $layout in
	merged)
		mkdir -p "$r/usr/bin" "$r/usr/sbin" "$r/usr/lib"
		ln -s usr/bin "$r/bin"; ln -s usr/sbin "$r/sbin"; ln -s usr/lib "$r/lib"
		bin=$r/usr/bin ;;
	bindir)
		mkdir -p "$r/bin" "$r/sbin" "$r/lib" "$r/usr/bin"
		bin=$r/bin ;;
	nousr)
		mkdir -p "$r/bin"
		bin=$r/bin ;;
	esac
	cp "$BUSYBOX" "$bin/busybox"
	for a in sh cat ls echo id env grep touch rm mkdir sleep true mv ln tty seq; do ln -s busybox "$bin/$a"; done
	# Alpine keeps the stubs' kind of program in /usr/bin beside a /bin of its own.
	local sbin=$bin
	[ "$layout" = bindir ] && sbin=$r/usr/bin
	cp "$B/bin/jail-worker" "$B/bin/jail" "$sbin/"
	# aijail-status --doctor asks the stubs beside it.
	[ -x "$B/bin/aijail-status" ] && cp "$B/bin/aijail-status" "$sbin/"
	cp "$PROBE" "$sbin/probe"
	make_scripts "$r/t"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
	echo 'root:x:0:' >"$r/etc/group"
	echo 'SECRET=env-content' >"$r/proj/.env"
	echo 'token-content' >"$r/proj/secrets/token"
	echo 'key-content' >"$r/proj/id.key"
	echo 'plain' >"$r/proj/src/a.txt"
	chmod 1777 "$r/tmp"
	chmod 777 "$r/proj" "$r/proj/src" "$r/outside"
	chmod 644 "$r/proj/.env" "$r/proj/secrets/token" "$r/proj/id.key"
	tar --numeric-owner --owner=0 --group=0 -C "$r" -cf "$T/$name.tar" .
	"$DOCKER" import "$T/$name.tar" "aj-check:$name" >/dev/null || { echo "docker import failed"; exit 1; }
}

ok() { pass=$((pass + 1)); echo "  ok    $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL  $*"; }

# expect DESCRIPTION WANT_RC PATTERN -- docker run args…: the run's exit
# status and combined output.
expect() {
	local what=$1 want=$2 pat=$3 out rc
	shift 4
	out=$("$DOCKER" run --rm "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s\n' "$out" | grep -Eq -- "$pat"; then
		ok "$what"
	else
		bad "$what (exit $rc, wanted $want; output:)"
		printf '%s\n' "$out" | sed 's/^/        /' | head -20
	fi
}

# doctor_expect DESCRIPTION WANT_RC|any PYEXPR WANT -- docker run args…:
# aijail-status --doctor --json in the container; PYEXPR (s the JSON) must
# print WANT, so that what it says is checked against what the stubs did
# in the same run (s["runs"]).
doctor_expect() {
	local what=$1 want=$2 expr=$3 val=$4 out rc got
	shift 5
	out=$("$DOCKER" run --rm "$@" aijail-status --doctor --json 2>&1)
	rc=$?
	got=$(printf '%s' "$out" | python3 -c 'import json, sys; s = json.load(sys.stdin); print(eval(sys.argv[1]))' "$expr" 2>&1)
	if { [ "$want" = any ] || [ "$rc" = "$want" ]; } && [ "$got" = "$val" ]; then
		ok "$what"
	else
		bad "$what (exit $rc, wanted $want; $expr is $got, wanted $val; output:)"
		printf '%s\n' "$out" | sed 's/^/        /' | head -30
	fi
}
# state NAME: the expression for a check's state.
dstate() { printf '[c["state"] for c in s["checks"] if c["name"] == "%s"][0]' "$1"; }

# expect_not: the output must not contain PATTERN (content that must not leak).
expect_not() {
	local what=$1 pat=$2 out
	shift 3
	out=$("$DOCKER" run --rm "$@" 2>&1)
	if printf '%s\n' "$out" | grep -Eq -- "$pat"; then
		bad "$what (output:)"
		printf '%s\n' "$out" | sed 's/^/        /' | head -10
	else
		ok "$what"
	fi
}

# explain_true TEXT JSON WHO: --jail-explain in the fallback says what is
# in force there: no rule on /tmp, none granting the project's files
# (the fence), the private directory's rule, the record, RLIMIT_NPROC per
# user, /dev/shm and other ptys refused, a denied folder's names visible,
# no namespace's host name or network.
explain_true() {
	local t=$1 j=$2 who=$3 why
	why=$(printf '%s\n' "$t" | awk -v ORS='; ' '
		/^landlock rules/ { r = 1; next } r && !/^  / { r = 0 }
		r && /^  \/tmp all$/ { print "a rule grants /tmp"; }
		r && /^  \/proj all$/ { print "a rule grants the whole project"; }
		r && /^  \/dev\/(shm|pts)( |$)/ { print "a rule grants " $1; }
		r && /^  \/tmp\/aijail\.[^ ]+ all$/ { p = 1 }
		/RLIMIT_NPROC, per user namespace/ { print "RLIMIT_NPROC per user namespace"; }
		/^hostname: +jail$/ { print "the policy'"'"'s host name"; }
		/a private network namespace/ { print "a network namespace"; }
		END { if (!p) print "no rule for the private directory"; }')
	printf '%s\n' "$t" | grep -q 'record of secrets /' || why="$why; no record of secrets"
	printf '%s\n' "$t" | grep -q 'a private /dev/shm and /dev/pts' || why="$why; /dev/shm and ptys not listed"
	printf '%s\n' "$t" | grep -q 'hiding what a denied directory holds' || why="$why; a denied folder's names not listed"
	why="$why$(printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rules = {r["path"]: r["rights"] for r in d["landlock_rules"]}
out = []
if "/tmp" in rules: out.append("JSON: a rule on /tmp")
if "read_file" in rules.get("/proj", []): out.append("JSON: the project readable as a whole")
if not any(p.startswith("/tmp/aijail.") for p in rules): out.append("JSON: no private directory")
if not d["fallback"].get("record"): out.append("JSON: no record")
if d["network"]["namespace"] != "host": out.append("JSON: a network namespace")
if d["hostname"] == "jail": out.append("JSON: the policy host name")
print("".join("; " + o for o in out), end="")
' 2>&1)"
	if [ -z "$why" ]; then
		ok "explain tells what is in force in the fallback ($who)"
	else
		bad "explain tells what is in force in the fallback ($who): $why"
	fi
}

# A TCP server outside every container, on the host's loopback.
PORT=$((20000 + RANDOM % 20000))
python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
while True:
    s.accept()[0].close()
' "$PORT" &
LPID=$!
for _ in $(seq 50); do "$PROBE" connect-tcp 127.0.0.1 "$PORT" >/dev/null 2>&1 && break; sleep 0.1; done

for layout in ${AJ_DOCKER_LAYOUTS-merged bindir nousr}; do
	make_image "$layout" "$layout"
done
# A socket to stand for a Docker socket bound into a container.
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/d.sock"

# AJ_DOCKER_PARTS: which parts run (default all: "layouts dockerfile packages").
parts=" ${AJ_DOCKER_PARTS:-layouts dockerfile packages} "
[[ $parts == *" layouts "* ]] || echo "SKIP the layouts' cases: AJ_DOCKER_PARTS=$parts leaves them out"
for layout in ${AJ_DOCKER_LAYOUTS-merged bindir nousr}; do
	[[ $parts == *" layouts "* ]] || break
	img=aj-check:$layout
	for who in root user; do
		u=()
		[ "$who" = user ] && u=(--user 1000:1000)
		base=(-w /proj --network host "${u[@]}" "$img")
		echo "== $layout, $who, Docker's default seccomp profile"
		# The probes must see something outside the jail, or their
		# refusals inside would prove nothing.
		expect "outside the jail: the secret is readable" 0 'key-content' -- "${base[@]}" cat id.key
		expect "outside the jail: the loopback server answers" 0 'connect-tcp: ok' -- "${base[@]}" probe connect-tcp 127.0.0.1 "$PORT"
		expect "outside the jail: ptrace is allowed" 0 'ptrace: ok' -- "${base[@]}" probe ptrace
		expect "explain: the fallback, and exit 2" 2 'fallback: +landlock, declared' -- "${base[@]}" jail-worker --jail-explain
		expect "explain: names the seccomp profile" 2 'NOT available here: a seccomp filter.*seccomp=unconfined' -- "${base[@]}" jail-worker --jail-explain
		expect "explain: lists what is not in force" 2 'not in force:' -- "${base[@]}" jail-worker --jail-explain
		case $layout in
		merged) expect "explain: /bin is the image's own link" 2 '/bin -> usr/bin.*the host.s own link' -- "${base[@]}" jail-worker --jail-explain ;;
		*) expect "explain: /bin is the image's directory, read-only" 2 '/bin.*the host has a directory here' -- "${base[@]}" jail-worker --jail-explain ;;
		esac
		[ "$layout" = nousr ] && expect "explain: no /usr, skipped" 2 '/usr.*skipped: missing' -- "${base[@]}" jail-worker --jail-explain
		[ "$who" = user ] && expect "explain: HOME=/ gets a private home" 2 'home: +\$HOME: it is "/": the jail gets a private one' -- "${base[@]}" jail-worker --jail-explain
		expect "the command runs" 0 '^ran$' -- "${base[@]}" jail-worker sh -c 'echo ran'
		expect "a denied file: EACCES" 1 'read: EACCES' -- "${base[@]}" jail-worker probe read id.key
		expect "a denied directory's file: EACCES" 1 'read: EACCES' -- "${base[@]}" jail-worker probe read secrets/token
		expect "a masked file: EACCES (denied instead)" 1 'read: EACCES' -- "${base[@]}" jail-worker probe read .env
		expect_not "a masked file's content is not readable" 'env-content' -- "${base[@]}" jail-worker sh -c 'cat .env; cat /proj/.env'
		expect "a plain project file is readable" 0 'plain' -- "${base[@]}" jail-worker cat src/a.txt
		expect "a write in the project works" 0 'write: ok' -- "${base[@]}" jail-worker probe write /proj/src/new.txt
		expect "a write outside the project fails" 1 'write: EACCES' -- "${base[@]}" jail-worker probe write /outside/x
		expect "a write to the container's /tmp fails" 1 'write: EACCES' -- "${base[@]}" jail-worker probe write /tmp/x
		expect "a write to the private \$HOME and \$TMPDIR works" 0 '^wrote$' -- "${base[@]}" jail-worker sh -c 'touch "$HOME/h" "$TMPDIR/t" && echo wrote'
		expect "the loopback server outside is refused" 1 'connect-tcp: (EAFNOSUPPORT|EACCES)' -- "${base[@]}" jail-worker probe connect-tcp 127.0.0.1 "$PORT"
		expect "a denied system call: EPERM" 1 'ptrace: EPERM' -- "${base[@]}" jail-worker probe ptrace
		expect "outside the jail: a netlink socket opens" 0 'socket-netlink: ok' -- "${base[@]}" probe socket-netlink
		expect "no socket but AF_UNIX (network none)" 1 'socket-netlink: EAFNOSUPPORT' -- "${base[@]}" jail-worker probe socket-netlink
		expect "the timeout holds" 124 '' -- "${base[@]}" jail-worker --jail-timeout=1 sleep 30
		expect "the private directory is gone afterwards" 0 '^none$' -- "${base[@]}" sh -c 'jail-worker true; ls -d /tmp/aijail.* 2>/dev/null || echo none'
		expect "the lockdown mode runs too (an allowlist filter)" 0 '^ran$' -- "${base[@]}" jail-worker --jail-mode=lockdown sh -c 'echo ran' 
		# What the fallback promises, or says it cannot (issue 20).
		expect "a secret renamed, moved or linked by a run stays denied in the next ones" 0 '^denied 5 of 5$' -- "${base[@]}" sh /t/rename.sh
		expect_not "... and none of it leaks" 'LEAKED|unreadable' -- "${base[@]}" sh /t/rename.sh
		expect "the container's /dev/shm: refused" 0 '^shm read: EACCES, write: EACCES$' -- "${base[@]}" sh /t/shm.sh
		# The jail's terminal is a pty of its own, relayed through the filter
		# (issue 23): the caller's is not given, so not writable; with
		# --jail-terminal=passthrough it is given, and another pty is not.
		expect "the jail's own pty: writable; the caller's terminal: refused; passthrough: given, another pty refused" 0 \
			"own write: ok, caller's write: EACCES, passthrough write: ok, other write: EACCES" -- -t "${base[@]}" sh /t/pty.sh
		vol=aj-squat-$layout-$who
		expect "another user takes the private directory's names" 0 squatted -- -v "$vol:/tmp" --user 2000:2000 "$img" sh /t/squat.sh
		expect "... and the jail runs all the same" 0 '^ran$' -- -v "$vol:/tmp" "${base[@]}" jail-worker sh -c 'echo ran'
		expect "... and keeps its record of secrets elsewhere" 0 '^denied 5 of 5$' -- -v "$vol:/tmp" "${base[@]}" sh /t/rename.sh
		"$DOCKER" volume rm "$vol" >/dev/null 2>&1
		ex=$("$DOCKER" run --rm "${base[@]}" jail-worker --jail-explain 2>&1)
		exj=$("$DOCKER" run --rm "${base[@]}" jail-worker --jail-explain=json 2>&1)
		explain_true "$ex" "$exj" "$who"
		expect "a Docker socket in the container: the fallback refuses (125)" 125 'Docker socket is root on its host' -- -v "$T/d.sock:/var/run/docker.sock" "${base[@]}" jail-worker true
		expect "a stub without the fallback: 125, naming the seccomp profile" 125 'seccomp filter was already loaded.*seccomp=unconfined' -- "${base[@]}" jail sh -c true
		expect "its explain: exit 125" 125 'fallback: +none declared' -- "${base[@]}" jail --jail-explain sh
		# --doctor: the container's seccomp profile and its covered /proc
		# named with their fixes, and the verdict what the stubs just did:
		# jail fails closed (125), jail-worker falls back (0).
		if [ "$layout:$who" = merged:root ]; then
			echo "  --doctor's text here:"
			"$DOCKER" run --rm "${base[@]}" aijail-status --doctor 2>&1 | sed 's/^/        /'
		fi
		doctor_expect "doctor: no full jail, the fallback, as the stubs did" 1 \
			"s['verdict'], s['userns']['available'], $(dstate userns), $(dstate container_seccomp), $(dstate proc_masks), $(dstate stubs_run), [r['exit'] for r in s['runs']], s['proc_covered'], s['seccomp']['mode_before_us']" \
			"('fallback', False, 'fallback', 'fallback', 'fallback', 'fallback', [125, 0], True, 2)" -- "${base[@]}"
		doctor_expect "doctor: the fixes name the container's options" 1 \
			"'seccomp=unconfined' in [c['fix'] for c in s['checks'] if c['name'] == 'container_seccomp'][0], 'systempaths=unconfined' in [c['fix'] for c in s['checks'] if c['name'] == 'proc_masks'][0]" \
			"(True, True)" -- "${base[@]}"
		doctor_expect "doctor: a Docker socket in the container fails the fallback, as jail-worker then does" 1 \
			"s['verdict'], s['docker_socket'], $(dstate docker_socket), [r['exit'] for r in s['runs']]" \
			"('fails', '/var/run/docker.sock', 'fails', [125, 125])" -- -v "$T/d.sock:/var/run/docker.sock" "${base[@]}"
	done
	echo "== $layout, root and user, --security-opt seccomp=unconfined systempaths=unconfined apparmor=unconfined"
	for who in root user; do
		u=()
		[ "$who" = user ] && u=(--user 1000:1000)
		full=(-w /proj --security-opt seccomp=unconfined --security-opt systempaths=unconfined
			--security-opt apparmor=unconfined "${u[@]}" "$img")
		expect "$who: explain: the full jail, exit 0" 0 'namespaces: .*available: the full jail' -- "${full[@]}" jail-worker --jail-explain
		expect "$who: the command runs" 0 '^ran$' -- "${full[@]}" jail-worker sh -c 'echo ran'
		expect "$who: a masked file is empty" 0 "read: ''" -- "${full[@]}" jail-worker probe read .env
		expect "$who: a denied file: EACCES" 1 'read: EACCES' -- "${full[@]}" jail-worker probe read id.key
		expect "$who: a write outside the project fails" 1 'write: (EACCES|EROFS|ENOENT)' -- "${full[@]}" jail-worker probe write /outside/x
		expect "$who: the generic jail runs too" 0 '^ran$' -- "${full[@]}" jail sh -c 'echo ran'
		# (Its exit status also weighs the cgroup, which is the host's affair.)
		doctor_expect "$who: doctor: the full jail, as the stubs did" any \
			"s['userns']['available'], $(dstate userns), $(dstate container_seccomp), $(dstate proc_masks), $(dstate stubs_run), [r['exit'] for r in s['runs']]" \
			"(True, 'ok', 'ok', 'ok', 'ok', [0, 0])" -- "${full[@]}"
	done
	echo "== $layout, seccomp=unconfined only: /proc is covered"
	expect "the generic jail: 125, naming systempaths=unconfined" 125 'systempaths=unconfined' -- -w /proj --security-opt seccomp=unconfined --security-opt apparmor=unconfined "$img" jail sh -c true
	expect "jail-worker: the fallback, naming the covered /proc" 0 '^ran$' -- -w /proj --security-opt seccomp=unconfined --security-opt apparmor=unconfined "$img" jail-worker sh -c 'echo ran'
done

# --- contrib/docker/Dockerfile, built for real -----------------------------------
# Its build stage on a Debian root of our own (debootstrap minbase, docker
# import: nothing pulled), with the mirror through the host's network; the
# shipped stage once on that Debian root and once on the Alpine-style
# image above (/bin a directory of its own).  Then, with Docker's default
# options, as root and as a user: the image's entry point is the jail.
dockerfile_images() {
	local rel=${AJ_DOCKERFILE_RELEASE:-bookworm} tar log
	tar=$ROOT/build/minbase/$rel.tar
	log=$T/dockerfile-build.log
	if ! "$ROOT/tests/lib/minbase.sh" "$rel" "$tar" >"$log" 2>&1; then
		bad "Dockerfile: a $rel minbase root (tests/lib/minbase.sh): $(tail -n 3 "$log" | tr '\n' ' ')"
		return 1
	fi
	"$DOCKER" import "$tar" "aj-minbase:$rel" >/dev/null || { bad "Dockerfile: docker import of $tar"; return 1; }
	local name run
	for name in debian alpine; do
		run=aj-minbase:$rel
		[ "$name" = alpine ] && run=aj-check:bindir
		echo "== contrib/docker/Dockerfile: BASE=aj-minbase:$rel RUN_BASE=$run"
		if (cd "$ROOT" && DOCKER_BUILDKIT=0 "$DOCKER" build --network host -q -f contrib/docker/Dockerfile \
			--build-arg BASE="aj-minbase:$rel" --build-arg RUN_BASE="$run" \
			-t "aj-check:df-$name" .) >"$log" 2>&1; then
			ok "Dockerfile builds ($name: RUN_BASE=$run)"
		else
			bad "Dockerfile builds ($name: RUN_BASE=$run); the build's last lines:"
			tail -n 15 "$log" | sed 's/^/        /'
			return 1
		fi
	done
}

if [[ $parts != *" dockerfile "* ]]; then
	echo "SKIP contrib/docker/Dockerfile: AJ_DOCKER_PARTS=$parts leaves it out"
elif dockerfile_images; then
	dproj=$T/dfproj
	for name in debian alpine; do
		img=aj-check:df-$name
		for who in root user; do
			u=()
			[ "$who" = user ] && u=(--user 1000:1000)
			rm -rf "$dproj"
			mkdir -p "$dproj/secrets" "$dproj/src"
			echo 'SECRET=df-env-content' >"$dproj/.env"
			echo 'df-token-content' >"$dproj/secrets/token"
			echo 'df-plain' >"$dproj/src/a.txt"
			chmod 777 "$dproj" "$dproj/src"
			chmod 755 "$dproj/secrets"
			chmod 644 "$dproj/.env" "$dproj/secrets/token" "$dproj/src/a.txt"
			d=(-v "$dproj:/work" "${u[@]}")
			echo "== the Dockerfile's image ($name), $who, Docker's default options"
			expect "outside the jail: .env is readable" 0 'df-env-content' -- "${d[@]}" --entrypoint cat "$img" .env
			expect "outside the jail: /tmp is writable" 0 '^w$' -- "${d[@]}" --entrypoint sh "$img" -c 'touch /tmp/df-out && echo w'
			expect "--jail-explain names the fallback (exit 2)" 2 'fallback: +landlock, declared' -- "${d[@]}" "$img" --jail-explain
			expect "the command runs in the jail" 0 '^ran$' -- "${d[@]}" "$img" sh -c 'echo ran'
			expect "a masked .env is refused" 1 'Permission denied' -- "${d[@]}" "$img" cat .env
			expect_not "a masked .env reads nothing" 'df-env-content' -- "${d[@]}" "$img" sh -c 'cat .env; cat /work/.env; head -c 64 .env'
			expect "secrets/ is refused" 1 'Permission denied' -- "${d[@]}" "$img" cat secrets/token
			expect_not "secrets/ reads nothing" 'df-token-content' -- "${d[@]}" "$img" sh -c 'cat secrets/token; ls secrets'
			expect "a plain project file is readable" 0 '^df-plain$' -- "${d[@]}" "$img" cat src/a.txt
			expect "a write in the project works" 0 '^w$' -- "${d[@]}" "$img" sh -c 'touch src/new && echo w'
			expect "a write outside the project fails" 1 'Permission denied|Read-only' -- "${d[@]}" "$img" touch /tmp/df-out
		done
	done
fi

# The Debian packages on fresh Debian 12 and 13 (AJ_PKG_RELEASES).
if [[ $parts == *" packages "* ]]; then
	# shellcheck source=tests/docker/pkg.sh
	. "$ROOT/tests/docker/pkg.sh"
else
	echo "SKIP the Debian packages: AJ_DOCKER_PARTS=$parts leaves them out"
fi

echo "check-docker: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
