# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# watch.sh: the watcher of a project (stub/watch/watch.c, issue 13).  A launch
# that walked a large project marks it; the next starts a watcher; the ones
# after take the scan from it.  Everything here checks that what the
# watcher answers is what a walk would find now, and that every way the
# watcher can be wrong, gone, slow or an impostor ends in the walk.
# AIJAIL_WATCH_MIN=1 makes this small tree "large".
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

wp=$T/watched
wpo=$T/watched-outside
wx=$T/xdg
mkdir -p "$wp/wide/a" "$wp/wide/b" "$wpo" "$wx"
d=$wp
for i in $(seq 12); do d=$d/l$i; done
mkdir -p "$d"
wp_deep=${d#"$wp"/}
printf 'plain' >"$wp/wide/a/plain.txt"
printf 'KEEP' >"$wp/keep.txt"
printf 'S=top' >"$wp/.env"
chown -R "$tuid:$tgid" "$wp" "$wpo" "$wx"
chmod 0700 "$wx"
WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120)
if [ $as_root -eq 1 ]; then
	pre_user=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env
		env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
else
	pre_user=(env -i HOME="$thome" USER="$tuser" LOGNAME="$tuser")
fi

# wrun ARGS…: jail-worker as the user in the watched project.
wrun() { CWD=$wp jrun user "${WENV[@]}" -- jail-worker "$@"; }

# The scan's source a launch here would use now.
wsource() {
	wrun --jail-explain=json
	WSRC=$(printf '%s' "$OUT" | $py -c 'import json,sys; print(json.load(sys.stdin)["scan"]["source"])' 2>/dev/null)
}

# The watchers of the test user: processes named aijail-watch outside any
# pid namespace of their own (whichever stub forked them).
watchers() {
	local p d
	WPIDS=
	for p in $(pgrep -u "$tuid" -x aijail-watch 2>/dev/null); do
		# Only this suite's: its descriptor 3 is the runtime directory
		# (watchd.c); another run of the tests as the same user has
		# watchers of its own.  Where that cannot be read (a
		# container's root lacks CAP_SYS_PTRACE, and the watcher is not
		# dumpable), every watcher of the user counts, as one run at a
		# time there has them all.
		d=$(readlink "/proc/$p/fd/3" 2>/dev/null)
		[ -z "$d" ] || [ "$d" = "$(readlink -m "$wx/aijail")" ] || continue
		# A zombie has given way already (pid 1 here may reap late).
		[ "$(awk '/^NSpid:/ {print NF - 1}' "/proc/$p/status" 2>/dev/null)" = 1 ] &&
			! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null &&
			WPIDS="$WPIDS $p"
	done
	WPIDS=${WPIDS# }
}

# alive PID: a process that runs (not a zombie).
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

watchers_kill() {
	watchers
	[ -n "$WPIDS" ] || return 0
	# shellcheck disable=SC2086
	kill -9 $WPIDS 2>/dev/null
	for _ in $(seq 50); do
		watchers
		[ -z "$WPIDS" ] && return 0
		sleep 0.1
	done
}

# Until the watcher answers (it walks once when it starts).
watch_up() {
	for _ in $(seq 3); do
		wrun /bin/true
		wsource
		[ "$WSRC" = "the watcher" ] && return 0
	done
	return 1
}

if c watch-starts; then
	watchers_kill
	rm -rf "${wx:?}"/aijail
	wsource
	first=$WSRC
	wrun /bin/true # walks, and marks the project
	lock=$(ls "$wx/aijail/" 2>/dev/null | grep -c '\.lock$')
	# The launch that starts the watcher: its output through a pipe ends
	# with it (the watcher holds none of the caller's descriptors).
	SECONDS=0
	piped=$(cd "$wp" && timeout 20 "${pre_user[@]}" "${WENV[@]}" PATH=/usr/bin:/bin \
		"$bin/jail-worker" /bin/echo piped 2>/dev/null)
	secs=$SECONDS
	watch_up
	if [ "$first" != "the walk" ]; then
		fail watch-starts "the first launch's scan came from $(q "$first"), expected the walk"
	elif [ "$lock" != 1 ]; then
		fail watch-starts "no mark left in $wx/aijail after a walk ($(ls "$wx"/aijail 2>&1))"
	elif [ "$piped" != piped ] || [ "$secs" -gt 10 ]; then
		fail watch-starts "the launch that started the watcher printed $(q "$piped") in ${secs}s through a pipe"
	elif [ "$WSRC" != "the watcher" ]; then
		fail watch-starts "three launches later the scan still came from $(q "$WSRC")"
	else
		watchers
		st=$(stat -c %a "$wx/aijail")
		if [ -z "$WPIDS" ]; then
			fail watch-starts "the watcher answered, but no watcher process was found"
		elif [ "$st" != 700 ]; then
			fail watch-starts "its directory has mode $st, expected 700"
		else
			pass watch-starts
		fi
	fi
fi

# watch_round NAME EXPECT PATH SETUP [SOURCE]: SETUP as the user on the host
# in the project, then PATH read by the next launch, whose scan must come
# from SOURCE (the watcher unless given).
watch_round() {
	local name=$1 want=$2 path=$3 setup=$4 src=${5:-the watcher}
	c "$name" || return 0
	if ! watch_up; then
		fail "$name" "no watcher answers (the scan came from $(q "$WSRC"))"
		return 0
	fi
	as_user sh -c "cd '$wp' && $setup"
	wsource
	if [ "$WSRC" != "$src" ]; then
		fail "$name" "the scan came from $(q "$WSRC"), expected $src"
		return 0
	fi
	wrun $py -c "$PYREAD" "$path"
	expect "$name" 0 "$want"
}

watch_round watch-deep-env "''" "$wp_deep/.env" "printf 'S=1' >$wp_deep/.env"
watch_round watch-new-dirs-env "''" new1/x/y/.env "mkdir -p new1/x/y && printf 'S=1' >new1/x/y/.env"
watch_round watch-moved-in-dir "''" wide/b/moved/.env \
	"mkdir -p '$wpo/moved/in' && printf 'S=1' >'$wpo/moved/in/.env' && mv '$wpo/moved' wide/b/moved && mv wide/b/moved/in/.env wide/b/moved/.env"
watch_round watch-dir-moved-within "''" wide/b/m2/l2/.env \
	"mkdir -p wide/a/m2/l2 && printf 'S=1' >wide/a/m2/l2/.env && mv wide/a/m2 wide/b/m2"
watch_round watch-renamed-onto-secret "''" wide/a/.env.local "mv wide/a/plain.txt wide/a/.env.local"
watch_round watch-new-denied-dir EACCES new2/secrets/db.txt "mkdir -p new2/secrets && printf 'pw' >new2/secrets/db.txt"
watch_round watch-dir-renamed-to-secrets EACCES wide/secrets/plain.txt \
	"mkdir -p wide/c && printf 'pw' >wide/c/plain.txt && mv wide/c wide/secrets"
watch_round watch-unreadable-dir EACCES new3/closed/plain.txt \
	"mkdir -p new3/closed && printf 'pw' >new3/closed/plain.txt && chmod 0 new3/closed"
# A masked file's other name: the walk's second pass finds it, not the watcher.
watch_round watch-hardlink "''" wide/notes.txt \
	"printf 'S=1' >.env.hl && ln .env.hl wide/notes.txt" "the walk"
# Its other name gone, the watcher answers again, and the harmless name is
# readable.
as_user rm -f "$wp/.env.hl"
watch_round watch-hardlink-gone "'S=1'" wide/notes.txt ":"
watch_round watch-plain-readable "'KEEP'" keep.txt "touch keep.txt && mkdir -p many && for i in \$(seq 200); do mkdir many/d\$i; done"
watch_round watch-removed-tree "'KEEP'" keep.txt "rm -rf many new1 wide/b/moved"
as_user chmod 0700 "$wp/new3/closed" 2>/dev/null

# Gone, or never answering, or not ours: the walk, and the secret masked.
if c watch-killed; then
	if watch_up; then
		watchers_kill
		wsource
		s1=$WSRC
		wrun $py -c "$PYREAD" .env
		if [ "$s1" != "the walk" ]; then
			fail watch-killed "with the watcher killed the scan came from $(q "$s1")"
		else
			expect watch-killed 0 "''"
		fi
	else
		fail watch-killed "no watcher answers"
	fi
fi

# impostor NAME HOW: a server at the watcher's socket that answers "nothing
# to cover" for this project, run as the user (HOW: "" in our namespaces but
# never answering, "userns": in a user namespace of its own).
WFAKE='import socket, struct, sys, os, time
path, dev, ino, how = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
try:
    os.unlink(path)
except OSError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(8)
print("up", flush=True)
while True:
    c, _ = s.accept()
    try:
        c.recv(64)
        if how == "silent":
            time.sleep(30)
        else:
            c.sendall(struct.pack("=IIQQII", 0x32776a61, 0, dev, ino, 0, 0))
    except OSError:
        pass
    c.close()'
impostor() {
	local name=$1 how=$2 sock dev ino wrap=()
	c "$name" || return 0
	if ! watch_up; then
		fail "$name" "no watcher answers"
		return 0
	fi
	sock=$(ls "$wx"/aijail/*.sock 2>/dev/null | head -n 1)
	watchers_kill
	read -r dev ino < <(stat -c '%d %i' "$wp")
	if [ "$how" = userns ]; then
		if ! as_user unshare -Ur true 2>/dev/null; then
			skip "$name" "unshare -Ur does not work here"
			return 0
		fi
		wrap=(unshare -Ur)
	fi
	as_user "${wrap[@]}" $py -c "$WFAKE" "$sock" "$dev" "$ino" "$how" >"$T/out/fake" 2>&1 &
	fpid=$!
	for _ in $(seq 50); do
		grep -q up "$T/out/fake" 2>/dev/null && break
		sleep 0.1
	done
	wsource
	wrun $py -c "$PYREAD" .env
	kill "$fpid" 2>/dev/null
	pkill -u "$tuid" -f "WFAKE|0x32776a61" 2>/dev/null
	wait "$fpid" 2>/dev/null
	if ! grep -q up "$T/out/fake"; then
		fail "$name" "the impostor did not start: $(q "$(cat "$T/out/fake")")"
	elif [ "$WSRC" != "the walk" ]; then
		fail "$name" "the impostor's answer was taken (the scan came from $(q "$WSRC"))"
	else
		expect "$name" 0 "''"
	fi
	watchers_kill
}
impostor watch-impostor-userns userns
impostor watch-impostor-silent silent

if c watch-off; then
	watchers_kill
	rm -rf "${wx:?}"/aijail
	for _ in 1 2 3; do
		CWD=$wp jrun user XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH=0 -- jail-worker /bin/true
	done
	watchers
	if [ -n "$WPIDS" ] || [ -e "$wx/aijail" ]; then
		fail watch-off "AIJAIL_WATCH=0, yet a watcher ($WPIDS) or its directory exists"
	else
		pass watch-off
	fi
fi

if c watch-idle; then
	watchers_kill
	WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=1)
	if watch_up; then
		sleep 2.5
		watchers
		if [ -n "$WPIDS" ] || ls "$wx"/aijail/*.sock >/dev/null 2>&1; then
			fail watch-idle "idle for 2.5 s with AIJAIL_WATCH_IDLE=1, the watcher ($WPIDS) or its socket is still there"
		else
			pass watch-idle
		fi
	else
		fail watch-idle "no watcher answers"
	fi
	WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120)
fi

# A mount made in the project since the watcher walked it: what is below the
# mount now is what counts.  The mount needs a namespace of its own that the
# watcher lives in and that the test user's jails share: a mount namespace
# of the real root (CAP_SYS_ADMIN in the first user namespace; a container's
# root without it cannot), and root to run the jails as the test user.
if c watch-mount; then
	mns_rc=0
	[ $as_root -eq 1 ] && { mns_err=$(unshare -m --propagation private true 2>&1) || mns_rc=$?; }
	if [ $as_root -ne 1 ]; then
		skip watch-mount "needs root, for a mount namespace the watcher shares"
	elif [ $mns_rc -ne 0 ]; then
		skip watch-mount "needs CAP_SYS_ADMIN for a mount namespace the watcher shares: unshare -m: ${mns_err:-exit $mns_rc}"
	else
		watchers_kill
		mkdir -p "$wp/mnt"
		chown "$tuid:$tgid" "$wp/mnt"
		cat >"$T/out/wmount.sh" <<EOF
cd '$wp' || exit 9
u() { setpriv --reuid='$tuser' --regid='$tuser' --init-groups env -i HOME='$thome' PATH=/usr/bin:/bin XDG_RUNTIME_DIR='$wx' AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=5 "\$@"; }
for i in 1 2 3 4; do u '$bin/jail-worker' /bin/true; done
src=\$(u '$bin/jail-worker' --jail-explain=json | $py -c 'import json,sys; print(json.load(sys.stdin)["scan"]["source"])')
mount -t tmpfs -o mode=0777 tmpfs '$wp/mnt' || exit 8
u sh -c "printf S=1 >'$wp/mnt/.env'"
printf '%s\n' "\$src"
u '$bin/jail-worker' $py -c '$PYREAD' mnt/.env
EOF
		out=$(timeout 60 unshare -m --propagation private sh "$T/out/wmount.sh" 2>&1)
		rc=$?
		if [ "$rc" != 0 ]; then
			fail watch-mount "exit $rc: $(q "$out")"
		elif [ "$out" != "the watcher"$'\n'"''" ]; then
			fail watch-mount "output $(q "$out"), expected the watcher, then ''"
		else
			pass watch-mount
		fi
		rmdir "$wp/mnt" 2>/dev/null
		watchers_kill
	fi
fi

# Nothing of the watcher is reachable from a jail: its directory is in none.
if c watch-unreachable; then
	if watch_up; then
		wrun $py -c "$PYLS" "$wx/aijail" "$wx"
		expect watch-unreachable 0 "ENOENT"$'\n'"ENOENT"
	else
		fail watch-unreachable "no watcher answers"
	fi
	watchers_kill
fi

# --- issue 20: one watcher per project, a bounded share, a directory of ours ---

# wsrc_of STUB [ARGS…]: the scan's source and the watcher's state for one
# launch of STUB in the watched project (WSRC, WSTATE).
wsrc_of() {
	CWD=$wp jrun user "${WENV[@]}" -- "$@" --jail-explain=json
	WSRC=$(printf '%s' "$OUT" | $py -c 'import json,sys; print(json.load(sys.stdin)["scan"]["source"])' 2>/dev/null)
	WSTATE=$(printf '%s' "$OUT" | $py -c 'import json,sys; print(json.load(sys.stdin)["scan"]["watcher"])' 2>/dev/null)
}

# The inotify watches the user's watchers hold, from the kernel.
watches_held() {
	local p n=0
	watchers
	for p in $WPIDS; do
		n=$((n + $(cat /proc/"$p"/fdinfo/* 2>/dev/null | grep -c '^inotify wd')))
	done
	echo "$n"
}

# One project used through several stubs and modes: one watcher answers them
# all, with one watch per directory.
if c watch-one-per-project; then
	watchers_kill
	rm -rf "${wx:?}"/aijail
	bad=
	for sm in jail-worker:normal jail-worker:lockdown jail:normal jail:lockdown \
		jail-python:normal jail-python:lockdown jail-npm:normal jail-browser:normal; do
		for _ in 1 2 3 4; do
			wsrc_of "${sm%%:*}" --jail-mode="${sm#*:}"
			[ "$WSRC" = "the watcher" ] && break
		done
		[ "$WSRC" = "the watcher" ] || bad="$bad $sm($WSRC)"
	done
	watchers
	n=$(echo "$WPIDS" | wc -w)
	dirs=$(find "$wp" -type d | wc -l)
	held=$(watches_held)
	if [ -n "$bad" ]; then
		fail watch-one-per-project "not answered by a watcher:$bad"
	elif [ "$n" != 1 ]; then
		fail watch-one-per-project "$n watchers for one project used through 8 stub/mode pairs (pids $WPIDS), expected 1"
	elif [ "$held" -gt "$dirs" ]; then
		fail watch-one-per-project "the watcher holds $held inotify watches for $dirs directories"
	else
		pass watch-one-per-project
	fi
fi

# Each table is classified as its own stub would: a socket file is denied
# to a jail without the host's network (jail-worker), not to one with it
# (jail-python --jail-net), both answered by the same watcher.
if c watch-tables-differ; then
	watchers_kill
	as_user $py -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$wp/wide/a/app.sock"
	FOUND='import json,sys; s=json.load(sys.stdin)["scan"]; print(s["source"], [f["path"] + ":" + str(f["why"]) for f in s["found"] if f["path"].endswith("app.sock")])'
	for _ in 1 2 3 4; do
		wsrc_of jail-worker
		[ "$WSRC" = "the watcher" ] && break
	done
	w=$(printf '%s' "$OUT" | $py -c "$FOUND" 2>&1)
	for _ in 1 2 3; do
		wsrc_of jail-python --jail-net
		[ "$WSRC" = "the watcher" ] && break
	done
	p=$(printf '%s' "$OUT" | $py -c "$FOUND" 2>&1)
	wsrc_of jail-worker
	w2=$(printf '%s' "$OUT" | $py -c "$FOUND" 2>&1)
	watchers
	if [ "$w" != "the watcher ['wide/a/app.sock:socket']" ] || [ "$w2" != "$w" ]; then
		fail watch-tables-differ "jail-worker found $(q "$w"), then $(q "$w2")"
	elif [ "$p" != "the watcher []" ]; then
		fail watch-tables-differ "jail-python --jail-net (the host's network) found $(q "$p")"
	elif [ "$(echo "$WPIDS" | wc -w)" != 1 ]; then
		fail watch-tables-differ "watchers: $WPIDS"
	else
		pass watch-tables-differ
	fi
	rm -f "$wp/wide/a/app.sock"
fi

# A second project whose watcher needs room: with a share that holds either
# project but not both, the watcher unused the longest gives way, and
# launches there walk (the secret still masked).
if c watch-share; then
	watchers_kill
	rm -rf "${wx:?}"/aijail
	wq=$T/watched-q
	mkdir -p "$wq"
	for i in $(seq 25); do mkdir -p "$wq/d$i/e"; done
	printf 'S=q' >"$wq/.env"
	chown -R "$tuid:$tgid" "$wq"
	a=$(find "$wp" -type d | wc -l)
	b=$(find "$wq" -type d | wc -l)
	lim=$((a > b ? a + 4 : b + 4))
	WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120 AIJAIL_WATCH_LIMIT=$lim)
	watch_up
	up_a=$WSRC
	watchers
	pid_a=$WPIDS
	for _ in 1 2 3 4; do
		CWD=$wq jrun user "${WENV[@]}" -- jail-worker --jail-explain=json
		src_b=$(printf '%s' "$OUT" | $py -c 'import json,sys; print(json.load(sys.stdin)["scan"]["source"])' 2>/dev/null)
		[ "$src_b" = "the watcher" ] && break
	done
	sleep 0.3
	watchers
	held=$(watches_held)
	wsource
	src_a=$WSRC
	wrun $py -c "$PYREAD" .env
	if [ "$up_a" != "the watcher" ] || [ "$src_b" != "the watcher" ]; then
		fail watch-share "the watchers did not answer (first project: $(q "$up_a"), second: $(q "$src_b"))"
	elif [ "$held" -gt "$lim" ]; then
		fail watch-share "the watchers hold $held inotify watches, more than the limit $lim ($a + $b directories; watchers $WPIDS)"
	elif alive "$pid_a"; then
		fail watch-share "the first project's watcher ($pid_a) did not give way; the watchers hold $held of $lim"
	elif [ "$src_a" != "the walk" ]; then
		fail watch-share "after giving way, the first project's scan came from $(q "$src_a")"
	else
		expect watch-share 0 "''"
	fi
	WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120)
	watchers_kill
fi

# Without $XDG_RUNTIME_DIR, a directory under the caller's own home: another
# user who made /tmp/aijail-UID first does not turn the watcher off, and
# /tmp is no longer used.
if c watch-tmp-taken; then
	tdir=/tmp/aijail-$tuid
	if [ $as_root -ne 1 ]; then
		skip watch-tmp-taken "needs root, to make $tdir as another user"
	elif [ -e "$tdir" ] && [ "$(stat -c %U "$tdir")" = "$tuser" ]; then
		skip watch-tmp-taken "$tdir exists already and is the test user's"
	else
		watchers_kill
		made=
		if [ ! -e "$tdir" ]; then
			mkdir -m 0700 "$tdir" && chown nobody "$tdir" && made=1
		fi
		WENV=(AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120)
		watch_up
		st=$WSRC
		watchers
		sock=$(ls "$thome"/.cache/aijail/run/*.sock 2>/dev/null | head -n 1)
		wrun $py -c "$PYREAD" .env
		if [ "$st" != "the watcher" ]; then
			fail watch-tmp-taken "with $tdir made by another user and no XDG_RUNTIME_DIR, the scan came from $(q "$st")"
		elif [ -z "$sock" ]; then
			fail watch-tmp-taken "no socket under $thome/.cache/aijail/run"
		elif [ "$(stat -c '%U %a' "$thome/.cache/aijail/run")" != "$tuser 700" ]; then
			fail watch-tmp-taken "$thome/.cache/aijail/run is $(stat -c '%U %a' "$thome/.cache/aijail/run")"
		else
			expect watch-tmp-taken 0 "''"
		fi
		watchers_kill
		[ -n "$made" ] && rmdir "$tdir"
		# And nothing is made in /tmp any more.
		if [ ! -e "$tdir" ]; then
			watch_up
			if [ -e "$tdir" ]; then
				fail watch-tmp-unused "a launch made $tdir"
			else
				pass watch-tmp-unused
			fi
			watchers_kill
		fi
		WENV=(XDG_RUNTIME_DIR="$wx" AIJAIL_WATCH_MIN=1 AIJAIL_WATCH_IDLE=120)
	fi
fi

# No place only the caller can make: the launch walks, and says why.
if c watch-no-dir; then
	watchers_kill
	CWD=$wp jrun user HOME=/ AIJAIL_WATCH_MIN=1 -- jail-worker --jail-explain=json
	state=$(printf '%s' "$OUT" | $py -c 'import json,sys; s=json.load(sys.stdin)["scan"]; print(s["source"] + "|" + s["watcher"])' 2>/dev/null)
	CWD=$wp jrun user HOME=/ AIJAIL_WATCH_MIN=1 -- jail-worker --jail-explain
	text=$(printf '%s' "$OUT" | grep '^watcher:')
	CWD=$wp jrun user HOME=/ AIJAIL_WATCH_MIN=1 -- jail-worker $py -c "$PYREAD" .env
	if [[ $state != "the walk|off, because "*HOME* ]]; then
		fail watch-no-dir "JSON scan source|watcher: $(q "$state")"
	elif [[ $text != "watcher:"*"off, because "* ]]; then
		fail watch-no-dir "the text explain says $(q "$text")"
	else
		expect watch-no-dir 0 "''"
	fi
fi

watchers_kill
