#!/usr/bin/env bash
# bench/run.sh: the start-up benchmark of issue 6 (`make bench`).
#
# One interleaved hyperfine run of bare /bin/true, `unshare -Urmpf
# --mount-proc`, bubblewrap with jail-worker's policy, jail-worker (and a
# Landlock-off build of it), and python3 -c pass bare and under jail-python;
# then file-heavy work with Landlock on and off, the host-mount-count
# sensitivity, peak RSS, stub size and jails per second.  Prints one markdown
# report per pass and writes it to bench/results/YYYY-MM-DD-HHMM-<user|root>.md.
#
# As root (the normal way) there are two passes: as the unprivileged user
# $BENCH_USER (created with useradd -m if missing; commands run through
# setpriv), then as root.  As any other user there is one pass, as that user,
# and the mount-count part is skipped (it needs root to make its private
# mount namespaces).
#
# Nothing is mounted on the host: the extra mounts live only in private mount
# namespaces made with `unshare -m --propagation private` that end with the
# hyperfine run inside them; the host's mount table is compared before and
# after.  Every target line says PASS or FAIL, and the script exits 0 either
# way: a benchmark is not a test.
#
# Knobs (environment):
#   QUICK=1      a smoke run of about a minute per pass (small counts below)
#   RUNS         start-up runs per command in total (300; QUICK 30)
#   ROUNDS       hyperfine invocations those runs are split over, each with
#                every command, order rotated (5; QUICK 3)
#   WARMUP       warm-up runs per command per round (20; QUICK 3)
#   HEAVY_RUNS   runs per command of the file-heavy part (20; QUICK 3)
#   MOUNT_RUNS   runs per command per mount scenario (150; QUICK 30)
#   MOUNTS       extra mounts per scenario (200)
#   TPUT_N TPUT_REPS TPUT_JOBS   jails per burst (128; QUICK 32), repetitions
#                (3; QUICK 1), in-flight counts ("2 4")
#   RSS_REPS     RSS samples per command (10; QUICK 3)
#   PASSES       "user root" (root) or "self" (otherwise)
#   BENCH_USER   the unprivileged user (ajbench)
#   PARTS        "main heavy mounts rss size tput egress big agent candidates scan pool"
#                (any subset; pool is issue 24's aijail.Pool: POOL_CALLS calls
#                through a 2-worker pool against POOL_RH run_handler calls and
#                POOL_CALLS bare forks, bench/pool.py; egress is issue 14's proxy: start-up with and
#                without an allowlist, connection set-ups and 1 GiB through
#                the proxy against direct, and issue 23's forward: start-up
#                with --jail-forward and 1 GiB through it; scan is bench/scan.sh, the project scan's
#                discovery, issue 4; big, agent and candidates are issue 13's:
#                the 145,000-entry project of bench/bigproj.py, the 20 agent
#                commands side by side, the prototypes of bench/candidates.c)
#   AGENT_RUNS   runs per agent command per round (10; QUICK 3)
#   EGRESS_RUNS  runs per egress command per round (10; QUICK 3)
#   EGRESS_CONNS connection set-ups per egress run, and per latency run
#                (each timed: median and p99) (1000; QUICK 300)
#   EGRESS_BYTES bytes of the bulk transfer (1073741824, 1 GiB)
#   BIG_RUNS     runs per command per round in the large project (20; QUICK 5)
#   RESULTS      where the reports go (bench/results); SAVE=0 prints only
#   AIJAIL_BUILD the build dir with bin/ (build)
#   BASELINE     another build dir (say a worktree of an older commit): its
#                jail-worker and jail-python are measured in the same
#                interleaved run, as jail-worker-baseline, jail-python-baseline
set -euo pipefail
shopt -s nullglob

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${AIJAIL_BUILD:-$root/build}
me=$(id -u)

if [ "${QUICK:-0}" = 1 ]; then
	d=(30 3 3 3 30 32 1 3)
else
	d=(300 5 20 20 150 128 3 10)
fi
RUNS=${RUNS:-${d[0]}}
ROUNDS=${ROUNDS:-${d[1]}}
WARMUP=${WARMUP:-${d[2]}}
HEAVY_RUNS=${HEAVY_RUNS:-${d[3]}}
MOUNT_RUNS=${MOUNT_RUNS:-${d[4]}}
TPUT_N=${TPUT_N:-${d[5]}}
TPUT_REPS=${TPUT_REPS:-${d[6]}}
TPUT_JOBS=${TPUT_JOBS:-"2 4"}
RSS_REPS=${RSS_REPS:-${d[7]}}
MOUNTS=${MOUNTS:-200}
if [ "${QUICK:-0}" = 1 ]; then AGENT_RUNS=${AGENT_RUNS:-3} BIG_RUNS=${BIG_RUNS:-5}; else AGENT_RUNS=${AGENT_RUNS:-10} BIG_RUNS=${BIG_RUNS:-20}; fi
if [ "${QUICK:-0}" = 1 ]; then EGRESS_RUNS=${EGRESS_RUNS:-3} EGRESS_CONNS=${EGRESS_CONNS:-300}; else EGRESS_RUNS=${EGRESS_RUNS:-10} EGRESS_CONNS=${EGRESS_CONNS:-1000}; fi
EGRESS_BYTES=${EGRESS_BYTES:-1073741824}
if [ "${QUICK:-0}" = 1 ]; then POOL_CALLS=${POOL_CALLS:-200} POOL_RH=${POOL_RH:-10}; else POOL_CALLS=${POOL_CALLS:-1000} POOL_RH=${POOL_RH:-50}; fi
BENCH_USER=${BENCH_USER:-ajbench}
PARTS=${PARTS:-"main heavy mounts rss size tput egress big agent candidates scan pool"}
RESULTS=${RESULTS:-$here/results}
SAVE=${SAVE:-1}
HF_TIMEOUT=${HF_TIMEOUT:-3600}
if [ "$me" -eq 0 ]; then PASSES=${PASSES:-"user root"}; else PASSES=${PASSES:-self}; fi
CLEANPATH=/usr/local/bin:/usr/bin:/bin

log() { printf '%s\n' "$*" >&2; }
die() {
	log "bench: $*"
	exit 2
}
want() { [[ " $PARTS " == *" $1 "* ]]; }

command -v hyperfine >/dev/null || die "hyperfine missing: apt-get install -y hyperfine (make deps-bench)"
command -v python3 >/dev/null || die "python3 missing"
[ -x "$build/bin/aijail-compile" ] || die "$build/bin/aijail-compile missing: run make first"
for p in $PASSES; do
	case $p in
	user | root) [ "$me" -eq 0 ] || die "pass '$p' needs root (PASSES=self runs as you)" ;;
	self) ;;
	*) die "unknown pass '$p' (user, root, self)" ;;
	esac
done

# --- the work dir: stubs readable by the bench user, helpers -----------------

work=$(mktemp -d /tmp/ajbench-run.XXXXXX)
chmod 755 "$work"
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# only dirs of ours; every mount this script makes died with its namespace
	# (rmdir, not rm -r, for the mount points in the fixture project)
	[ -n "${inner:-}" ] && rmdir "$inner"/m* "$inner" 2>/dev/null
	[ -n "${netpid:-}" ] && kill "$netpid" 2>/dev/null
	rm -rf "$work" 2>/dev/null || true
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin=$work/bin
mkdir -p "$bin" "$work/tools"
cp "$here/fixture.py" "$here/throughput.py" "$here/bigproj.py" "$here/pool.py" "$work/tools/" # readable by the bench user
cp -r "$root/python" "$work/tools/python"
printf 'import json, email, http.client\n' >"$work/tools/imports.py" # copied into .git of the projects: the jail's /tmp is its own
for f in "$build"/bin/*; do
	[ -f "$f" ] && cp -p "$f" "$bin/"
done
if [ -n "${BASELINE:-}" ]; then
	for f in jail-worker jail-python; do
		[ -x "$BASELINE/bin/$f" ] && cp -p "$BASELINE/bin/$f" "$bin/$f-baseline"
	done
fi
# what is measured: the stubs as copied now, and the commit they came from
commit_line="$(git -C "$root" log -1 --format='%h %s' 2>/dev/null || echo unknown)$(
	[ -n "$(git -C "$root" status --porcelain -- stub compiler include policies grammar 2>/dev/null)" ] &&
		echo ' (+ uncommitted changes in stub/compiler/include/policies/grammar)' || true)"
build_line="$build/bin (jail-worker built $(date -r "$bin/jail-worker" '+%Y-%m-%d %H:%M' 2>/dev/null || echo '—'), copied at $(date '+%H:%M'))"
chmod -R a+rX "$bin"

notes_global=()
note() { notes_global+=("$*"); log "note: $*"; }

if [ ! -x "$bin/jail-worker" ]; then
	note "jail-worker: not built ($build/bin/jail-worker missing); its rows and targets are skipped"
fi
stale=
[ -x "$bin/jail-worker" ] && stale=$(cd "$root" && find stub include -newer "$build/bin/jail-worker" -type f 2>/dev/null | head -3 | tr '\n' ' ' || true)
[ -n "$stale" ] && [ -x "$bin/jail-worker" ] &&
	note "stub sources are newer than build/bin/jail-worker ($stale…): run \`make bench\` to measure the current code"

# maxrss: the peak RSS helper, static and small (also the in-jail probe).
musl=${MUSLCC:-musl-gcc}
command -v "$musl" >/dev/null || musl=${CC:-cc}
if "$musl" -Os -static -s -o "$work/tools/maxrss" "$here/maxrss.c" 2>"$work/tools/cc.err"; then
	:
else
	note "RSS: could not build the helpers with $musl ($(head -c 200 "$work/tools/cc.err")); RSS skipped"
	PARTS=${PARTS//rss/}
fi

# floor: the kernel's floor (issue 13), static like the stubs; candidates:
# the prototypes of what could replace the walk, with the host's cc.
if "$musl" -O2 -static -s -o "$work/tools/floor" "$here/floor.c" 2>"$work/tools/cc.err"; then
	:
else
	note "floor: could not build bench/floor.c ($(head -c 200 "$work/tools/cc.err")); its rows are skipped"
fi
if ! ${CC:-cc} -O2 -pthread -o "$work/tools/candidates" "$here/candidates.c" 2>"$work/tools/cc.err"; then
	note "candidates: could not build bench/candidates.c ($(head -c 200 "$work/tools/cc.err")); skipped"
	PARTS=${PARTS//candidates/}
fi

# jail-worker with Landlock off: bench/policies/worker-nolandlock.aj compiled
# with the shipped compiler, linked by the Makefile's own stub rules into a
# private build dir (make B=…; -o keeps make from rebuilding the compiler
# there), so it is the same stub code with other tables.  jail-worker is
# rebuilt the same way beside it: when the stub sources moved on since
# build/bin was made (others commit while we measure), that rebuilt copy,
# jail-worker-landlock, is the Landlock-on side of the comparison, so both
# sides come from the same sources; when it is byte-identical to
# build/bin/jail-worker, jail-worker itself is.
if [ -x "$bin/jail-worker" ]; then
	vb=$work/build
	mkdir -p "$vb/gen"
	if "$bin/aijail-compile" -I "$root/policies" -o "$vb/gen/worker.h" "$root/policies/worker.aj" 2>"$work/variant.log" &&
		"$bin/aijail-compile" -I "$root/policies" -o "$vb/gen/worker-nolandlock.h" \
			"$here/policies/worker-nolandlock.aj" 2>>"$work/variant.log" &&
		"$bin/aijail-compile" -I "$root/policies" -o "$vb/gen/worker-blocked.h" \
			"$here/policies/worker-blocked.aj" 2>>"$work/variant.log" &&
		make -C "$root" -s --no-print-directory B="$vb" -o "$vb/gen/worker.h" -o "$vb/gen/worker-nolandlock.h" \
			-o "$vb/gen/worker-blocked.h" "$vb/bin/jail-worker" "$vb/bin/jail-worker-nolandlock" \
			"$vb/bin/jail-worker-blocked" >>"$work/variant.log" 2>&1; then
		cp "$vb/bin/jail-worker-nolandlock" "$vb/bin/jail-worker-blocked" "$bin/"
		if ! cmp -s "$vb/bin/jail-worker" "$bin/jail-worker"; then
			cp "$vb/bin/jail-worker" "$bin/jail-worker-landlock"
			note "build/bin/jail-worker is not what the current stub sources build; Landlock on/off compares jail-worker-landlock (rebuilt now) with jail-worker-nolandlock, both from the same sources"
		fi
		chmod 755 "$bin"/jail-worker-*
		# The layers floor (floor -l) loads jail-worker's own filter.
		python3 "$here/bpfdump.py" "$vb/gen/worker.h" "$work/tools/worker.bpf" >/dev/null &&
			chmod 644 "$work/tools/worker.bpf" ||
			note "layers floor: could not take jail-worker's filter from its table; its row is skipped"
	else
		note "jail-worker-nolandlock, jail-worker-blocked: build failed, Landlock on/off and network blocked skipped: $(tail -3 "$work/variant.log" | tr '\n' ' ')"
	fi
fi

# The egress part (issue 14): netbench's server on two free ports of the
# host's 127.0.0.1 (one that accepts and closes, one that sends
# EGRESS_BYTES), started once for both passes and stopped on the way out;
# and jail-worker-allow, jail-worker with those two ports listed literally
# (bench/policies/worker-allow.aj.in), built like the variants above.
if want egress && [ -x "$bin/jail-worker" ]; then
	net_setup= net_bulk=
	if ! "$musl" -O2 -static -s -o "$work/tools/netbench" "$here/netbench.c" 2>"$work/tools/cc.err"; then
		note "egress: could not build bench/netbench.c ($(head -c 200 "$work/tools/cc.err")); skipped"
	else
		"$work/tools/netbench" serve "$EGRESS_BYTES" >"$work/netbench.ports" 2>"$work/netbench.err" &
		netpid=$!
		for _ in $(seq 50); do
			read -r net_setup net_bulk <"$work/netbench.ports" 2>/dev/null && [ -n "$net_bulk" ] && break
			sleep 0.1
		done
		[ -n "$net_bulk" ] || note "egress: the netbench server did not start: $(head -c 200 "$work/netbench.err")"
	fi
	if [ -n "$net_bulk" ]; then
		vb=$work/build
		mkdir -p "$vb/gen"
		sed -e "s/@SETUP@/$net_setup/" -e "s/@BULK@/$net_bulk/" "$here/policies/worker-allow.aj.in" \
			>"$work/worker-allow.aj"
		if "$bin/aijail-compile" -I "$root/policies" -o "$vb/gen/worker-allow.h" "$work/worker-allow.aj" \
			>"$work/variant-allow.log" 2>&1 &&
			make -C "$root" -s --no-print-directory B="$vb" -o "$vb/gen/worker-allow.h" \
				"$vb/bin/jail-worker-allow" >>"$work/variant-allow.log" 2>&1; then
			cp "$vb/bin/jail-worker-allow" "$bin/"
			chmod 755 "$bin/jail-worker-allow"
		else
			note "jail-worker-allow: build failed, the egress part is skipped: $(tail -3 "$work/variant-allow.log" | tr '\n' ' ')"
		fi
	fi
fi

# Command lines are plain words (every path here is checked to be plain) split
# at blanks, without globbing (read -a); hyperfine -N splits them the same way.
plain_path() { case $1 in *[!A-Za-z0-9/._+-]*) die "path '$1' has characters this harness does not quote" ;; esac; }
plain_path "$work"

# --- per pass ------------------------------------------------------------------

# The bubblewrap twin of jail-worker: policies/base.aj + jail.aj + worker.aj,
# as `jail-worker --jail-explain` shows it.  $1 = project, $2 = HOME, $3 =
# the project's matches (default: the small project's).
bwrap_cmd() {
	local proj=$1 home=$2 matches=${3:-$out/matches.txt} kind path
	printf 'bwrap --unshare-all --die-with-parent --new-session --hostname jail'
	printf ' --ro-bind /usr /usr --ro-bind /etc /etc'
	[ -d /opt ] && printf ' --ro-bind /opt /opt'
	printf ' --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64'
	printf ' --tmpfs /tmp --tmpfs /var/tmp --tmpfs /run --dev /dev --proc /proc'
	printf ' --tmpfs %s --bind %s %s' "$home" "$proj" "$proj"
	while read -r kind path; do
		case $kind in
		mask | deny-file) printf ' --ro-bind /dev/null %s' "$path" ;;
		deny-dir) printf ' --perms 0000 --tmpfs %s' "$path" ;;
		esac
	done <"$matches"
	printf ' --chdir %s --clearenv' "$proj"
	printf ' --setenv PATH %s --setenv TERM dumb --setenv LANG C.UTF-8 --setenv USER %s --setenv LOGNAME %s' \
		"$CLEANPATH" "$uname" "$uname"
	printf ' --setenv HOME %s --setenv AIJAIL 1 --' "$home"
}

# try NAME OKMAX CMD…: run once as the pass user in $cwd; 0 if it exits with
# a status ≤ OKMAX (find exits 1 for the root-only dirs under /usr).
try() {
	local name=$1 okmax=$2 rc=0
	shift 2
	(cd "$cwd" && timeout -k 5 60 "${AS[@]}" "$@" </dev/null >/dev/null 2>"$out/try.err") || rc=$?
	if [ "$rc" -gt "$okmax" ]; then
		pnote "$name: skipped, its test run exited $rc: $(tail -c 300 "$out/try.err" | tr '\n' ' ')"
		return 1
	fi
}

pnote() { printf '%s\n' "$*" >>"$out/notes.txt"; log "note: $*"; }

# add FILE NAME BASE CMD [OKMAX]: append to a command list if the command works.
add() {
	local file=$1 name=$2 base=$3 cmd=$4 okmax=${5:-0} argv
	read -ra argv <<<"$cmd"
	try "$name" "$okmax" "${argv[@]}" || return 0
	printf '%s\t%s\t%s\n' "$name" "$base" "$cmd" >>"$file"
}

# hf OUTJSON CMDSFILE RUNS WARMUP ROUNDNO [PREFIX…]: one hyperfine invocation
# of every command in CMDSFILE, order rotated by ROUNDNO, as the pass user.
hf() {
	local json=$1 file=$2 runs=$3 warm=$4 r=$5 n k j
	shift 5
	local names=() cmds=() args=()
	while IFS=$'\t' read -r a _ c; do names+=("$a") cmds+=("$c"); done <"$file"
	n=${#names[@]}
	[ "$n" -gt 0 ] || return 0
	for ((k = 0; k < n; k++)); do
		j=$(((k + r) % n))
		args+=(-n "${names[$j]}" "${cmds[$j]}")
	done
	(cd "$cwd" && timeout -k 10 "$HF_TIMEOUT" "$@" "${AS[@]}" hyperfine -N -i --style none \
		--warmup "$warm" --runs "$runs" --export-json "$json" "${args[@]}" \
		>"${json%.json}.log" 2>&1) || {
		pnote "hyperfine failed for $(basename "$json"): $(tail -3 "${json%.json}.log" | tr '\n' ' ')"
		rm -f "$json"
	}
}

per() { echo $((($1 + ROUNDS - 1) / ROUNDS)); } # runs per round

run_pass() {
	local p=$1
	local tag uid gid
	case $p in
	user)
		if ! id "$BENCH_USER" >/dev/null 2>&1; then
			useradd -m -s /bin/sh "$BENCH_USER" || die "useradd $BENCH_USER failed"
		fi
		uname=$BENCH_USER uid=$(id -u "$BENCH_USER") gid=$(id -g "$BENCH_USER")
		uhome=$(getent passwd "$BENCH_USER" | cut -d: -f6)
		tag=user
		;;
	root)
		uname=root uid=0 gid=0 tag=root
		uhome=/tmp/ajbench-fixture-root/home # keeps /root out of it (jail-python's rw+ caches)
		;;
	self)
		uname=$(id -un) uid=$me gid=$(id -g) uhome=${HOME:?}
		if [ "$me" -eq 0 ]; then tag=root; else tag=user; fi
		;;
	esac
	local fix=/tmp/ajbench-fixture-$uname
	plain_path "$uhome"
	proj=$fix/proj
	AS=(env -i "PATH=$CLEANPATH" "HOME=$uhome" LANG=C.UTF-8 TERM=dumb "USER=$uname" "LOGNAME=$uname")
	[ "$p" = user ] && AS=(setpriv --reuid="$uid" --regid="$gid" --init-groups "${AS[@]}")
	out=$work/$p
	mkdir -p "$out"
	# /tmp is shared: never follow a planted symlink, never adopt a stranger's dir
	if [ -L "$fix" ] || { [ -e "$fix" ] && [ ! -d "$fix" ]; }; then die "$fix is not a plain directory"; fi
	if [ ! -d "$fix" ]; then
		if [ "$me" -eq 0 ]; then install -d -m 755 -o "$uid" -g "$gid" "$fix"; else mkdir -m 755 "$fix"; fi
	fi
	[ "$(stat -c %u "$fix")" = "$uid" ] || die "$fix is not owned by $uname"
	[ "$p" = root ] && install -d -m 700 "$uhome"
	[ "$me" -eq 0 ] && chown "$uid:$gid" "$out"
	: >"$out/notes.txt"
	for n in "${notes_global[@]}"; do printf '%s\n' "$n" >>"$out/notes.txt"; done

	log "== pass $p: as $uname (uid $uid), HOME=$uhome, project $proj"
	cwd=/
	log "fixture: $fix (the large tree takes a few seconds the first time)"
	(cd / && "${AS[@]}" python3 "$work/tools/fixture.py" make "$fix") || die "fixture failed"
	if want rss; then # the in-jail end of `maxrss --tree`
		"${AS[@]}" install -D -m 755 "$work/tools/maxrss" "$proj/bin/ajprobe"
	fi
	"${AS[@]}" python3 "$work/tools/fixture.py" matches "$proj" "$root/policies/base.aj" \
		"$root/policies/jail.aj" "$root/policies/worker.aj" >"$out/matches.txt"
	cwd=$proj

	local stamp
	stamp=$(date +%Y-%m-%d-%H%M)
	{
		printf 'pass\t%s\n' "$tag"
		printf 'who\t%s, uid %s%s\n' "$uname" "$uid" "$([ "$p" = user ] && echo ', through setpriv from root')"
		printf 'date\t%s\n' "$(date '+%Y-%m-%d %H:%M %Z')"
		printf 'machine\t%s\n' "$(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/^MemTotal:/{printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
		printf 'commit\t%s\n' "$commit_line"
		printf 'build\t%s\n' "$build_line"
		printf 'tools\t%s; %s; %s; Landlock ABI %s\n' "$(hyperfine --version)" \
			"$(bwrap --version 2>/dev/null || echo 'bwrap: not installed')" "$(unshare --version | head -1)" \
			"$(python3 -c 'import ctypes;l=ctypes.CDLL(None,use_errno=True);print(l.syscall(444,None,0,1))' 2>/dev/null || echo '?')"
		printf 'knobs\tRUNS=%s ROUNDS=%s WARMUP=%s HEAVY_RUNS=%s MOUNT_RUNS=%s MOUNTS=%s TPUT_N=%s TPUT_REPS=%s TPUT_JOBS="%s" RSS_REPS=%s%s\n' \
			"$RUNS" "$ROUNDS" "$WARMUP" "$HEAVY_RUNS" "$MOUNT_RUNS" "$MOUNTS" "$TPUT_N" "$TPUT_REPS" "$TPUT_JOBS" "$RSS_REPS" \
			"$([ "${QUICK:-0}" = 1 ] && echo ' (QUICK=1)')"
		printf 'project\t%s\n' "$proj"
		printf 'masked\t%s\n' "$(awk '$1=="mask"{sub(".*/proj/","",$2);printf "%s ",$2}' "$out/matches.txt")"
		printf 'denied\t%s\n' "$(awk '$1~/^deny/{sub(".*/proj/","",$2);printf "%s%s ",$2,($1=="deny-dir"?"/":"")}' "$out/matches.txt")"
		printf 'env\t%s\n' "${AS[*]: -6}"
		printf 'bigrepo\t%s\n' "$fix/bigrepo: $(git -c safe.directory='*' -C "$fix/bigrepo" ls-files | wc -l) tracked files"
	} >"$out/meta.tsv"

	if [ -x "$bin/jail-worker" ]; then
		(cd "$cwd" && timeout 30 "${AS[@]}" "$bin/jail-worker" --jail-explain /bin/true >"$out/explain.txt" 2>&1) || true
		cp "$out/explain.txt" "$work/explain-$p.txt" 2>/dev/null || true
	fi

	local bw=""
	if command -v bwrap >/dev/null; then
		bw=$(bwrap_cmd "$proj" "$uhome")
	else
		pnote "bwrap: not installed, skipped (apt-get install -y bubblewrap)"
	fi
	local have_unshare=1
	command -v unshare >/dev/null || { have_unshare=0; pnote "unshare: not installed, skipped"; }

	# --- start-up ---------------------------------------------------------------
	if want main; then
		local f=$out/main-cmds.tsv
		: >"$f"
		add "$f" bare bare /bin/true
		[ "$have_unshare" = 1 ] && add "$f" unshare bare "unshare -Urmpf --mount-proc /bin/true"
		[ -x "$work/tools/floor" ] && add "$f" floor bare "$work/tools/floor /bin/true"
		[ -x "$work/tools/floor" ] && add "$f" "floor -n" bare "$work/tools/floor -n /bin/true"
		[ -x "$work/tools/floor" ] && add "$f" "root floor" bare "$work/tools/floor -r /bin/true"
		[ -x "$work/tools/floor" ] && [ -s "$work/tools/worker.bpf" ] &&
			add "$f" "layers floor" bare "$work/tools/floor -l $work/tools/worker.bpf /bin/true"
		[ -n "$bw" ] && add "$f" bwrap bare "$bw /bin/true"
		[ -x "$bin/jail-worker" ] && add "$f" jail-worker bare "$bin/jail-worker /bin/true"
		[ -x "$bin/jail-worker-landlock" ] && add "$f" jail-worker-landlock bare "$bin/jail-worker-landlock /bin/true"
		[ -x "$bin/jail-worker-nolandlock" ] && add "$f" jail-worker-nolandlock bare "$bin/jail-worker-nolandlock /bin/true"
		[ -x "$bin/jail-worker-blocked" ] && add "$f" jail-worker-blocked bare "$bin/jail-worker-blocked /bin/true"
		[ -x "$bin/jail-worker-baseline" ] && add "$f" jail-worker-baseline bare "$bin/jail-worker-baseline /bin/true"
		add "$f" python python "/usr/bin/python3 -c pass"
		if [ -x "$bin/jail-python" ]; then
			add "$f" jail-python python "$bin/jail-python -c pass"
			[ -x "$bin/jail-python-baseline" ] && add "$f" jail-python-baseline python "$bin/jail-python-baseline -c pass"
		else
			pnote "jail-python: not built, skipped"
		fi
		[ -n "$bw" ] && add "$f" "bwrap python" python "$bw /usr/bin/python3 -c pass"
		local r
		for ((r = 1; r <= ROUNDS; r++)); do
			log "[$p] start-up round $r/$ROUNDS: $(wc -l <"$f") commands x $(per "$RUNS") runs"
			hf "$out/main-r$r.json" "$f" "$(per "$RUNS")" "$WARMUP" "$r"
		done
	fi

	# --- file-heavy: Landlock on vs off -------------------------------------------
	if want heavy && [ -x "$bin/jail-worker-nolandlock" ]; then
		local f=$out/heavy-cmds.tsv s llon=jail-worker
		[ -x "$bin/jail-worker-landlock" ] && llon=jail-worker-landlock
		: >"$f"
		cwd=$fix/bigrepo
		for s in "find:1:find /usr -type f" "git:0:git status" "true:0:/bin/true"; do
			local w=${s%%:*} c=${s#*:*:} ok=${s#*:}
			ok=${ok%%:*}
			add "$f" "$w: bare" "$w: bare" "$c" "$ok"
			add "$f" "$w: $llon" "$w: bare" "$bin/$llon $c" "$ok"
			add "$f" "$w: jail-worker-nolandlock" "$w: bare" "$bin/jail-worker-nolandlock $c" "$ok"
		done
		local hr=$((ROUNDS < 3 ? ROUNDS : 3)) r
		for ((r = 1; r <= hr; r++)); do
			log "[$p] file-heavy round $r/$hr"
			hf "$out/heavy-r$r.json" "$f" $(((HEAVY_RUNS + hr - 1) / hr)) 1 "$r"
		done
		cwd=$proj
	elif want heavy; then
		pnote "file-heavy Landlock on/off: skipped (no jail-worker-nolandlock)"
	fi

	# --- host mount count ---------------------------------------------------------
	if want mounts; then
		if [ "$me" -ne 0 ]; then
			printf 'mounts_skip\tneeds root (private mount namespaces)\n' >>"$out/meta.tsv"
			pnote "mount-count runs: skipped, they need root"
		else
			run_mounts
		fi
	fi

	# --- peak RSS -------------------------------------------------------------------
	# ru_maxrss of the whole tree with /bin/true (as the peers were measured),
	# and VmHWM of every process of the launcher while the target runs.
	if want rss; then
		local f=$out/rss-cmds.tsv i name mode c argv line
		local probe="$proj/bin/ajprobe --hold"
		: >"$f"
		printf 'bare /bin/true\tmax\t/bin/true\n' >>"$f"
		[ "$have_unshare" = 1 ] && printf 'unshare\tmax\tunshare -Urmpf --mount-proc /bin/true\n' >>"$f"
		[ -n "$bw" ] && printf 'bwrap\tmax\t%s /bin/true\n' "$bw" >>"$f"
		[ -x "$bin/jail-worker" ] && printf 'jail-worker\tmax\t%s /bin/true\n' "$bin/jail-worker" >>"$f"
		printf 'bare probe\ttree\t%s\n' "$probe" >>"$f"
		[ "$have_unshare" = 1 ] && printf 'unshare\ttree\tunshare -Urmpf --mount-proc %s\n' "$probe" >>"$f"
		[ -n "$bw" ] && printf 'bwrap\ttree\t%s %s\n' "$bw" "$probe" >>"$f"
		[ -x "$bin/jail-worker" ] && printf 'jail-worker\ttree\t%s %s\n' "$bin/jail-worker" "$probe" >>"$f"
		log "[$p] peak RSS: $RSS_REPS x $(wc -l <"$f") commands"
		: >"$out/rss.tsv"
		: >"$out/rss-tree.tsv"
		for ((i = 0; i < RSS_REPS; i++)); do
			while IFS=$'\t' read -r name mode c; do
				read -ra argv <<<"$c"
				if [ "$mode" = max ]; then
					read -r line < <(cd "$cwd" && timeout 60 "${AS[@]}" "$work/tools/maxrss" "${argv[@]}") || continue
					printf '%s\t%s\n' "$name" "${line// /$'\t'}" >>"$out/rss.tsv"
				else
					(cd "$cwd" && timeout 60 "${AS[@]}" "$work/tools/maxrss" --tree "${argv[@]}") |
						while read -r line; do printf '%s\t%s\t%s\n' "$name" "$i" "${line// /$'\t'}"; done >>"$out/rss-tree.tsv" || true
				fi
			done <"$f"
		done
	fi

	# --- size -----------------------------------------------------------------------
	if want size; then
		: >"$out/sizes.tsv"
		for s in "$bin"/jail*; do
			strip -o "$work/stripped" "$s" 2>/dev/null || cp "$s" "$work/stripped"
			printf '%s\t%s\n' "$(basename "$s")" "$(stat -c %s "$work/stripped")" >>"$out/sizes.tsv"
		done
	fi

	# --- throughput -----------------------------------------------------------------
	if want tput; then
		local f=$out/tput-cmds.tsv
		: >"$f"
		printf 'bare\t/bin/true\n' >>"$f"
		[ "$have_unshare" = 1 ] && printf 'unshare\tunshare -Urmpf --mount-proc /bin/true\n' >>"$f"
		[ -n "$bw" ] && printf 'bwrap\t%s /bin/true\n' "$bw" >>"$f"
		[ -x "$bin/jail-worker" ] && grep -q '^jail-worker	' "$out/main-cmds.tsv" 2>/dev/null &&
			printf 'jail-worker\t%s /bin/true\n' "$bin/jail-worker" >>"$f"
		[ -x "$bin/jail-worker-blocked" ] && grep -q '^jail-worker-blocked	' "$out/main-cmds.tsv" 2>/dev/null &&
			printf 'jail-worker-blocked\t%s /bin/true\n' "$bin/jail-worker-blocked" >>"$f"
		log "[$p] throughput: $TPUT_N jails x -P $TPUT_JOBS x $TPUT_REPS reps"
		# shellcheck disable=SC2086
		(cd "$cwd" && "${AS[@]}" python3 "$work/tools/throughput.py" "$f" "$out/tput.json" "$TPUT_N" "$TPUT_REPS" $TPUT_JOBS) ||
			pnote "throughput failed"
	fi

	want egress && [ -x "$bin/jail-worker-allow" ] && run_egress
	want big && [ -x "$bin/jail-worker" ] && run_big
	want agent && [ -x "$bin/jail" ] && run_agent
	want candidates && run_candidates
	want pool && [ -x "$bin/jail-worker" ] && run_pool

	# --- report ---------------------------------------------------------------------
	local rep=$work/report-$p.md
	python3 "$here/report.py" "$out" >"$rep"
	if [ -s "$out/explain.txt" ]; then
		{
			echo
			echo "## \`jail-worker --jail-explain /bin/true\` (this pass)"
			echo
			echo '```'
			head -c 6000 "$out/explain.txt"
			echo '```'
		} >>"$rep"
	fi
	[ -s "$out/pool.md" ] && { echo; cat "$out/pool.md"; } >>"$rep"
	cat "$rep"
	echo
	if [ "$SAVE" = 1 ]; then
		mkdir -p "$RESULTS"
		cp "$rep" "$RESULTS/$stamp-$tag.md"
		[ "$me" -eq 0 ] && chmod 644 "$RESULTS/$stamp-$tag.md"
		log "written: $RESULTS/$stamp-$tag.md"
	fi
}

# Mount-count sensitivity, as root: each scenario is one private mount
# namespace per round (unshare -m --propagation private), holding MOUNTS more
# tmpfs mounts (or none), in which hyperfine runs as the pass user; the
# namespace and its mounts end with that hyperfine.
run_mounts() {
	local f=$out/mounts-cmds.tsv before after mdir
	: >"$f"
	grep -E '^(bare|unshare|bwrap|jail-worker|jail-worker-blocked)	' "$out/main-cmds.tsv" >"$f" 2>/dev/null ||
		{
			add "$f" bare bare /bin/true
			[ -x "$bin/jail-worker" ] && add "$f" jail-worker bare "$bin/jail-worker /bin/true"
		}
	mdir=$work/mnt
	inner=$proj/.ajbench-mounts
	mkdir -p "$mdir"
	local i
	for ((i = 1; i <= MOUNTS; i++)); do mkdir -p "$mdir/m$i"; done
	before=$(cat /proc/self/mountinfo)
	local scen=(plain outside inside) r k s base
	for ((r = 1; r <= ROUNDS; r++)); do
		for ((k = 0; k < 3; k++)); do
			s=${scen[$(((k + r) % 3))]}
			case $s in plain) base="" ;; outside) base=$mdir ;; inside) base=$inner ;; esac
			# The mount points inside the project exist only while the
			# inside scenario runs: in the others the project, and so the
			# stub's scan of it, is the one the start-up part measures.
			if [ "$s" = inside ]; then
				"${AS[@]}" mkdir -p "$inner"
				(cd "$inner" && "${AS[@]}" sh -c 'i=1; while [ $i -le "$1" ]; do mkdir -p m$i; i=$((i+1)); done' sh "$MOUNTS")
			fi
			log "[$p] mounts round $r/$ROUNDS: $s"
			hf "$out/mounts-$s-r$r.json" "$f" "$(per "$MOUNT_RUNS")" $((WARMUP < 5 ? WARMUP : 5)) "$r" \
				unshare -m --propagation private -- bash -c '
					set -e
					base=$1 n=$2 count=$3
					shift 3
					if [ -n "$base" ]; then
						i=1
						while [ "$i" -le "$n" ]; do
							mount -t tmpfs -o size=16k,mode=755 ajbench "$base/m$i"
							i=$((i + 1))
						done
					fi
					wc -l </proc/self/mountinfo >"$count"
					exec "$@"' bash "$base" "$MOUNTS" "$out/mounts-$s.count"
			[ "$s" = inside ] && { rmdir "$inner"/m* "$inner" 2>/dev/null || true; }
		done
	done
	after=$(cat /proc/self/mountinfo)
	if [ "$before" = "$after" ]; then
		printf 'mounts_check\tyes (%s mounts before and after)\n' "$(wc -l <<<"$after")" >>"$out/meta.tsv"
	else
		printf 'mounts_check\tNO: the host mount table changed during the run (see notes)\n' >>"$out/meta.tsv"
		pnote "WARNING: /proc/self/mountinfo differs before/after the mount-count runs: $(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"
	fi
	rmdir "$mdir"/m* "$mdir" 2>/dev/null || true
	rmdir "$inner"/m* "$inner" 2>/dev/null || true
	inner=
}

# --- issue 24: the pool --------------------------------------------------------

# bench/pool.py as the pass user in its own temporary directory: a 2-worker
# aijail.Pool of jail-worker, run_handler with jail-worker and bare forks
# of the same warm interpreter, interleaved over ROUNDS rounds.
run_pool() {
	log "[$p] pool: $POOL_CALLS pool calls, $POOL_RH run_handler calls, $POOL_CALLS forks, $ROUNDS rounds"
	(cd / && "${AS[@]}" AIJAIL_PYTHON="$work/tools/python" python3 "$work/tools/pool.py" "$bin" \
		"$out/pool.json" "$POOL_CALLS" "$POOL_RH" "$POOL_CALLS" "$ROUNDS") >"$out/pool.md" 2>"$out/pool.err" ||
		pnote "pool: bench/pool.py failed: $(tail -c 300 "$out/pool.err" | tr '\n' ' ')"
}

# --- issue 14: the proxy ------------------------------------------------------

# One interleaved run: start-up with `network none` (jail-worker) and with
# an allowlist (jail-worker-allow: a proxy in the stub's parent, a
# listening socket handed over by pid 1); EGRESS_CONNS connection set-ups
# made directly on the host's loopback and from inside the jail through
# the proxy (CONNECT, its 200, close); EGRESS_BYTES the same two ways.
# `netbench connect 0`, bare and in the jail, is the base the set-ups and
# the transfer are measured over, so that start-up cancels out.
run_egress() {
	local f=$out/egress-cmds.tsv nb=$proj/bin/ajnet a=$net_setup b=$net_bulk
	local j=$bin/jail-worker-allow px=3128 n=$EGRESS_CONNS r
	"${AS[@]}" install -D -m 755 "$work/tools/netbench" "$nb"
	: >"$f"
	add "$f" "bare" "bare" "/bin/true"
	add "$f" "start: network none" "bare" "$bin/jail-worker /bin/true"
	add "$f" "start: network allow" "bare" "$j /bin/true"
	add "$f" "start: network none, a forward" "bare" "$bin/jail-worker --jail-forward=$b /bin/true"
	add "$f" "netbench: bare" "netbench: bare" "$nb connect 0 $a"
	add "$f" "netbench: in the jail" "netbench: in the jail" "$j $nb connect 0 $a $px"
	add "$f" "set-ups: direct" "netbench: bare" "$nb connect $n $a"
	add "$f" "set-ups: through the proxy" "netbench: in the jail" "$j $nb connect $n $a $px"
	add "$f" "bulk: direct" "netbench: bare" "$nb bulk $EGRESS_BYTES $b"
	add "$f" "bulk: through the proxy" "netbench: in the jail" "$j $nb bulk $EGRESS_BYTES $b $px"
	# The forward (--jail-forward) relays with the proxy's data path: the
	# same transfer from a 'network none' jail through it.
	add "$f" "netbench: in the jail, forward" "netbench: in the jail, forward" \
		"$bin/jail-worker --jail-forward=$b $nb connect 0 $b"
	add "$f" "bulk: through a forward" "netbench: in the jail, forward" \
		"$bin/jail-worker --jail-forward=$b $nb bulk $EGRESS_BYTES $b"
	printf 'egress\t%s set-ups per run, %s bytes per transfer, server on 127.0.0.1:%s and :%s\n' \
		"$n" "$EGRESS_BYTES" "$a" "$b" >>"$out/meta.tsv"
	: >"$out/egress-latency.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		log "[$p] egress round $r/$ROUNDS: $(wc -l <"$f") commands x $EGRESS_RUNS runs"
		hf "$out/egress-r$r.json" "$f" "$EGRESS_RUNS" 1 "$r"
		# Each set-up timed on its own (netbench latency), for the
		# median and the tail a total cannot show; direct and through
		# the proxy alternate, in the order of the round.
		local ways=("direct" "proxy") w got
		((r % 2)) || ways=("proxy" "direct")
		for w in "${ways[@]}"; do
			# (net_setup, not a: hf reads its lines into a)
			local cmd=("$nb" latency "$n" "$net_setup")
			[ "$w" = proxy ] && cmd=("$j" "$nb" latency "$n" "$net_setup" "$px")
			if got=$(cd "$cwd" && "${AS[@]}" "${cmd[@]}" 2>&1); then
				printf '%s\t%s\t%s\n' "$r" "$w" "$got" >>"$out/egress-latency.tsv"
			else
				pnote "egress: netbench latency ($w) failed: $(head -c 200 <<<"$got")"
			fi
		done
	done
	"${AS[@]}" rm -f "$nb"
}

# --- issue 13: the large project, the agent's commands, the candidates ------

# The 145,000-entry project (bench/bigproj.py, made once as the pass user):
# jail-worker there against the small project, interleaved (env -C puts
# both in their project, bare `env -C` is the base of both); git status and
# python imports there, bare, under jail-worker and under the seccomp
# notification prototypes; and a .env made since the previous launch must
# be masked on the next one.
run_big() {
	local big=$fix/big f=$out/big-cmds.tsv r deep got c
	local cand=$work/tools/candidates
	log "[$p] large project: $big (made once, about a minute)"
	(cd / && "${AS[@]}" python3 "$work/tools/bigproj.py" make "$big") || {
		pnote "big: bench/bigproj.py failed, the large-project part is skipped"
		return 0
	}
	plain_path "$big"
	printf 'big_tree\t%s\n' "$(cd / && "${AS[@]}" python3 "$work/tools/bigproj.py" count "$big")" >>"$out/meta.tsv"
	"${AS[@]}" cp "$work/tools/imports.py" "$big/.git/ajbench-imports.py"
	cwd=$big
	: >"$f"
	add "$f" "bare, small" "bare, small" "env -C $proj /bin/true"
	add "$f" "jail-worker, small" "bare, small" "env -C $proj $bin/jail-worker /bin/true"
	add "$f" "jail-worker, big" "bare, small" "env -C $big $bin/jail-worker /bin/true"
	add "$f" "jail-worker, big, the walk" "bare, small" "env -C $big AIJAIL_WATCH=0 $bin/jail-worker /bin/true"
	# A first launch, again and again: a runtime directory of its own with
	# no watcher in it, and a threshold no walk reaches, so that it never
	# leaves the mark that would start one.
	local first=$work/xdg-first-$p
	rm -rf "$first"
	mkdir -m 0700 "$first"
	chown "$uid:$gid" "$first"
	add "$f" "jail-worker, big, first launch" "bare, small" \
		"env -C $big XDG_RUNTIME_DIR=$first AIJAIL_WATCH_MIN=999999 $bin/jail-worker /bin/true"
	for c in "git status:git status --porcelain" "python imports:python3 .git/ajbench-imports.py"; do
		local w=${c%%:*} cmd=${c#*:}
		add "$f" "$w" "$w" "$cmd"
		add "$f" "$w, jail-worker" "$w" "$bin/jail-worker $cmd"
		add "$f" "$w, jail-worker, the walk" "$w" "env AIJAIL_WATCH=0 $bin/jail-worker $cmd"
		if [ -x "$cand" ]; then
			add "$f" "$w, seccomp allow" "$w" "$cand notif allow $cmd"
			add "$f" "$w, notify continue" "$w" "$cand notif continue $cmd"
			add "$f" "$w, notify addfd" "$w" "$cand notif addfd $cmd"
		fi
	done
	# The watcher: the first launch walks and marks the project, the
	# second starts the watcher, the next ones ask it.
	for r in 1 2 3; do (cd "$big" && "${AS[@]}" "$bin/jail-worker" /bin/true) || true; done
	printf 'big_source\t%s\n' "$(cd "$big" && "${AS[@]}" "$bin/jail-worker" --jail-explain=json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["scan"]["source"])' 2>&1)" >>"$out/meta.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		log "[$p] large project round $r/$ROUNDS: $(wc -l <"$f") commands x $BIG_RUNS runs"
		hf "$out/big-r$r.json" "$f" "$BIG_RUNS" 2 "$r"
	done
	# A .env deep in the tree and one in a new directory, both made after
	# a launch, read by the next one.
	deep=$(python3 "$work/tools/bigproj.py" deep "$big")
	plain_path "$deep"
	(cd "$big" && "${AS[@]}" "$bin/jail-worker" /bin/true) || true
	(cd "$big" && "${AS[@]}" sh -c 'printf "TOKEN=new\n" >"$1/.env.ajbench" && mkdir -p ajbench-new/x &&
		printf "TOKEN=new\n" >ajbench-new/x/.env' sh "$deep")
	got=$(cd "$big" && "${AS[@]}" "$bin/jail-worker" cat "$deep/.env.ajbench" ajbench-new/x/.env 2>&1) || true
	if [ -n "$got" ] && [[ $got == *TOKEN=new* ]]; then
		printf 'big_newenv\tFAIL: read %s\n' "$(head -c 100 <<<"$got" | tr '\n' ' ')" >>"$out/meta.tsv"
	else
		printf 'big_newenv\tPASS: %s/.env.ajbench and ajbench-new/x/.env, made after a launch, read empty by the next\n' \
			"$deep" >>"$out/meta.tsv"
	fi
	(cd "$big" && "${AS[@]}" rm -rf "$deep/.env.ajbench" ajbench-new)
	cwd=$proj
}

# The same 20 agent commands in the large git repo, bare, under `jail` and
# under bubblewrap with jail-worker's policy, interleaved; and whether each
# one's output (stdout and stderr) differs from bare.
run_agent() {
	local repo=$fix/bigrepo f=$out/agent-cmds.tsv list=$out/agent-list.tsv bwa="" r i name c argv k
	"${AS[@]}" python3 "$work/tools/fixture.py" matches "$repo" "$root/policies/base.aj" \
		"$root/policies/jail.aj" "$root/policies/worker.aj" >"$out/agent-matches.txt"
	command -v bwrap >/dev/null && bwa=$(bwrap_cmd "$repo" "$uhome" "$out/agent-matches.txt")
	"${AS[@]}" cp "$work/tools/imports.py" "$repo/.git/ajbench-imports.py"
	cwd=$repo
	cat >"$list" <<-EOF
		git status	git status --porcelain
		git log	git log --oneline -20
		git diff	git diff HEAD --stat
		git show	git show --stat HEAD
		git ls-files	git ls-files lib07
		git grep	git grep -n f_3_4_ -- lib03
		grep -r	grep -rn f_3_4_ lib03
		find	find lib05 -name *.c
		sed	sed -n 1,5p lib00/mod00/f000.c
		cat	cat README
		head	head -3 lib01/mod01/f001.c
		wc	wc -l lib02/mod02/f002.c
		sort	sort lib00/.gitignore README
		ls -la	ls -la
		du	du -s lib00
		python3	python3 .git/ajbench-imports.py
		node	node -e 1+1
		gcc	gcc -fsyntax-only lib00/mod00/f000.c
		file write	cp README ajbench-copy.txt
		id	id
	EOF
	: >"$f"
	mkdir -p "$out/agent-out"
	[ "$me" -eq 0 ] && chown "$uid:$gid" "$out/agent-out"
	: >"$out/agent-diff.tsv"
	i=0
	while IFS=$'\t' read -r name c; do
		i=$((i + 1))
		add "$f" "$name: bare" "$name: bare" "$c"
		add "$f" "$name: jail" "$name: bare" "$bin/jail $c"
		[ -n "$bwa" ] && add "$f" "$name: bwrap" "$name: bare" "$bwa $c"
		for k in bare jail bwrap; do
			local pre=""
			case $k in jail) pre="$bin/jail" ;; bwrap) [ -n "$bwa" ] || continue; pre=$bwa ;; esac
			read -ra argv <<<"$pre $c"
			(cd "$repo" && timeout 60 "${AS[@]}" "${argv[@]}" </dev/null >"$out/agent-out/$i-$k" 2>&1) || true
		done
		for k in jail bwrap; do
			[ -e "$out/agent-out/$i-$k" ] || continue
			if cmp -s "$out/agent-out/$i-bare" "$out/agent-out/$i-$k"; then
				printf '%s\t%s\tsame\t\n' "$name" "$k" >>"$out/agent-diff.tsv"
			else
				printf '%s\t%s\tdiffers\t%s\n' "$name" "$k" "$(diff "$out/agent-out/$i-bare" "$out/agent-out/$i-$k" |
					grep '^[<>]' | head -2 | cut -c1-90 | tr '\t\n' '  ')" >>"$out/agent-diff.tsv"
				# the whole difference (bounded), for the report's listing
				diff "$out/agent-out/$i-bare" "$out/agent-out/$i-$k" | head -40 >"$out/agent-diff-$i-$k.txt" || true
			fi
		done
	done <"$list"
	(cd "$repo" && "${AS[@]}" rm -f ajbench-copy.txt)
	local ar=$((ROUNDS < 3 ? ROUNDS : 3))
	for ((r = 1; r <= ar; r++)); do
		log "[$p] agent commands round $r/$ar: $(wc -l <"$f") commands x $AGENT_RUNS runs"
		hf "$out/agent-r$r.json" "$f" "$AGENT_RUNS" 1 "$r"
	done
	(cd "$repo" && "${AS[@]}" rm -f ajbench-copy.txt)
	cwd=$proj
}

# The candidates of issue 13 on the large project: walks, the statx of
# every directory, interleaved (ROUNDS*2 iterations of each, 3 fresh
# processes per iteration, so that each ratio compares the same minutes);
# then the watcher's set-up and request latency.
run_candidates() {
	local big=$fix/big cand=$work/tools/candidates n=$((ROUNDS * 2)) i m a
	[ -e "$big/.git" ] || (cd / && "${AS[@]}" python3 "$work/tools/bigproj.py" make "$big") || return 0
	log "[$p] candidates on $big: $n iterations"
	: >"$out/candidates.tsv"
	for ((i = 1; i <= n; i++)); do
		for m in walk statdirs "pwalk 2" "pwalk 4"; do
			read -ra a <<<"$m"
			(cd / && "${AS[@]}" "$cand" "${a[0]}" "$big" 3 "${a[@]:1}") 2>>"$out/notes.txt" |
				sed "s/^/$i\t/" >>"$out/candidates.tsv" || pnote "candidates: $m failed"
		done
	done
	(cd / && "${AS[@]}" "$cand" inotify "$big" 2000) 2>>"$out/notes.txt" | sed 's/^/0\t/' >>"$out/candidates.tsv" ||
		pnote "candidates: the watcher prototype failed"
	printf 'watches\tfs.inotify.max_user_watches %s, max_queued_events %s\n' \
		"$(cat /proc/sys/fs/inotify/max_user_watches)" "$(cat /proc/sys/fs/inotify/max_queued_events)" >>"$out/meta.tsv"
}

for p in $PASSES; do
	run_pass "$p"
done
if want scan; then
	"$here/scan.sh" || log "bench/scan.sh failed"
fi
exit 0
