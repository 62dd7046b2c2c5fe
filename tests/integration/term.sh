# shellcheck shell=bash disable=SC2154,SC2016,SC2034,SC2153 # sourced by run.sh, which sets the variables
# term.sh: the jail's terminal (stub/term/), seen from the caller's side.
# Each case runs the stub on a terminal of its own (tests/lib/ptydrive.py:
# a new session, the pty's slave its stdin, stdout and stderr and its
# controlling terminal, as a shell gives a command) and reads what reached
# that terminal: OSC 52 and the title reports never do, colours, the
# alternate screen and a full-screen program's output do, byte for byte;
# --jail-terminal=passthrough passes everything; none of the jail's
# descriptors is the caller's terminal, and a write to each of them puts
# no OSC 52 on it; the terminal's mode is the same after the run, after
# SIGKILL of the target and after --jail-timeout; a size change reaches
# the target; keys reach it (^C as SIGINT); ^Z stops the stub as a job;
# pipes are left alone.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

term_cases="term-osc52 term-c1-utf8 term-c1-twice term-title-query term-kept term-less term-passthrough term-fds term-restore-kill
	term-restore-timeout term-restore-125 term-winch term-keys term-ctrl-c term-ctrl-z term-pipe term-explain term-fallback"
want_term=0
for n in $term_cases; do c "$n" && want_term=1; done

# prun [DRIVER-OPTION…] -- COMMAND ARGS…: jrun's user and environment, on a
# terminal. Sets RC (the command's), TMODE (same or changed) and TOUT (a
# file: every byte the terminal got).
prun() {
	local pre=() opts=()

	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	[ -x "$bin/$1" ] && set -- "$bin/$1" "${@:2}"
	if [ "$as_root" -eq 1 ]; then
		pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env
			env -i HOME="${PHOME:-$thome}" USER="$tuser" LOGNAME="$tuser")
	else
		pre=(env -i HOME="${PHOME:-$thome}" USER="$tuser" LOGNAME="$tuser")
	fi
	TOUT=$T/tty/out
	mkdir -p "$T/tty"
	chown "$tuid:$tgid" "$T/tty"
	rm -f "$TOUT"
	local line
	line=$(cd "$P" && PTYDRIVE_TIMEOUT=$tmo timeout -k 5 "$((tmo + 10))" "${pre[@]}" \
		PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm "$py" "$root/tests/lib/ptydrive.py" "$TOUT" "${opts[@]}" -- "$@" 2>"$T/out/stderr")
	ERR=$(cat "$T/out/stderr")
	RC=${line#rc=}
	RC=${RC%% *}
	TMODE=${line##*termios=}
	TSTOP=${TMODE#* stopped=}
	TMODE=${TMODE%% *}
	[ -f "$TOUT" ] || : >"$TOUT"
}

# tty_has FILE TEXT: whether FILE holds TEXT (printf escapes), byte for byte.
tty_has() {
	$py -c 'import sys; sys.exit(0 if sys.argv[2].encode().decode("unicode_escape").encode("latin-1") in open(sys.argv[1], "rb").read() else 1)' "$1" "$2"
}

tty_show() { "$py" -c 'import sys; print(repr(open(sys.argv[1], "rb").read()[:300]))' "$1"; }

if [ $want_term = 1 ]; then
	if c term-osc52; then
		prun -- jail sh -c 'printf "A\033]52;c;SGVsbG8=\aB"'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'AB' && ! tty_has "$TOUT" '52;'; then pass term-osc52; else
			fail term-osc52 "exit status $RC, the terminal got $(tty_show "$TOUT"); expected AB without the OSC 52"
		fi
	fi
	# A C1 control after a lead byte it cannot follow (0xe0, then 0x9d an
	# OSC 52, then 0x9b a title report) is a C1 control, not a character's:
	# of the character only the lead byte arrives (issue 36).
	if c term-c1-utf8; then
		prun -- jail sh -c 'printf "A\340\23552;c;SGVsbG8=\aB\340\23321tC"'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'A\xe0B\xe0C' && ! tty_has "$TOUT" '52;' && ! tty_has "$TOUT" '21t'; then
			pass term-c1-utf8
		else
			fail term-c1-utf8 "exit status $RC, the terminal got $(tty_show "$TOUT"); expected A, B, C each after 0xe0 alone"
		fi
	fi
	# 64 KiB of 0x9b m, which the filter writes as ESC [ m, half as much
	# again: every one arrives, once (the filter wrote in place, and passed
	# the bytes it had not read yet when a read brought more than 8 KiB).
	if c term-c1-twice; then
		prun -- jail sh -c 's=$(printf "\233m"); for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do s=$s$s; done; printf "%sZ" "$s"'
		if [ "$RC" = 0 ] && "$py" -c 'import sys; b = open(sys.argv[1], "rb").read(); sys.exit(0 if b.count(b"\x1b[m") == 32768 and b"\x1b[mZ" in b and b"\x9b" not in b else 1)' "$TOUT"; then
			pass term-c1-twice
		else
			fail term-c1-twice "exit status $RC, the terminal got $("$py" -c 'import sys; b = open(sys.argv[1], "rb").read(); print(len(b), "bytes,", b.count(b"\x1b[m"), "ESC [ m of 32768")' "$TOUT")"
		fi
	fi
	# A title set, then both reports asked for: the reports are dropped
	# (the title set is kept: it stays on the window, not in the input).
	if c term-title-query; then
		prun -- jail sh -c 'printf "A\033]2;rm -rf ~\a\033[21tB\033[20tC\033P\$qm\033\\\\D"'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'A\x1b]2;rm -rf ~\x07BCD' && ! tty_has "$TOUT" '[21t' && ! tty_has "$TOUT" '[20t' && ! tty_has "$TOUT" '$q'; then
			pass term-title-query
		else
			fail term-title-query "exit status $RC, the terminal got $(tty_show "$TOUT"); expected the title without CSI 20/21 t and DECRQSS"
		fi
	fi
	# What a full-screen program writes: colours, cursor moves, the
	# alternate screen, bracketed paste, UTF-8 (its continuation bytes
	# 0x80-0x9f too), byte for byte.
	if c term-kept; then
		kept='\033[?1049h\033[H\033[2J\033[1;31mred\033[0m\033[5;10H\033[?2004h\033[38;5;208m\342\200\234\303\251\342\224\200\033[?2004l\033[?1049l'
		prun -- jail sh -c "printf '$kept'"
		if [ "$RC" = 0 ] && tty_has "$TOUT" "$(printf '%s' "$kept" | "$py" -c 'import re, sys; print(re.sub(r"\\([0-7]{3})", lambda m: "\\x%02x" % int(m[1], 8), sys.stdin.read()), end="")')"; then pass term-kept; else
			fail term-kept "exit status $RC, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	# less on a file, quit with q: the alternate screen and the text.
	if c term-less; then
		if ! command -v less >/dev/null; then
			skip term-less "less is not installed"
		else
			printf 'line-one\nline-two\n' >"$P/term-less.txt"
			chown "$tuid:$tgid" "$P/term-less.txt"
			prun --send 'q@2' -- jail less term-less.txt
			if [ "$RC" = 0 ] && tty_has "$TOUT" 'line-one' && tty_has "$TOUT" '\x1b[?1049h' && [ "$TMODE" = same ]; then pass term-less; else
				fail term-less "exit status $RC, termios $TMODE, the terminal got $(tty_show "$TOUT")"
			fi
			rm -f "$P/term-less.txt"
		fi
	fi
	if c term-passthrough; then
		prun -- jail --jail-terminal=passthrough sh -c 'printf "A\033]52;c;SGVsbG8=\aB\033[21t"'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'A\x1b]52;c;SGVsbG8=\x07B\x1b[21t'; then pass term-passthrough; else
			fail term-passthrough "exit status $RC, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	# From inside: no descriptor is the caller's terminal (its device
	# number), and a write to every one puts no OSC 52 on it.
	if c term-fds; then
		prun -- jail "$py" -c 'import os, sys
mine = [fd for fd in map(int, os.listdir("/proc/self/fd")) if os.path.exists("/proc/self/fd/%d" % fd) and os.stat(fd).st_rdev == int(sys.argv[1])]
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, b"\033]52;c;ZXZpbA==\a")
    except OSError:
        pass
print("caller-fds:", mine)' '{RDEV}'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'caller-fds: []' && ! tty_has "$TOUT" 'ZXZpbA'; then pass term-fds; else
			fail term-fds "exit status $RC, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	if c term-restore-kill; then
		prun -- jail sh -c 'kill -9 $$'
		if [ "$RC" = 137 ] && [ "$TMODE" = same ]; then pass term-restore-kill; else
			fail term-restore-kill "exit status $RC (expected 137), the terminal's mode after: $TMODE"
		fi
	fi
	if c term-restore-timeout; then
		prun -- jail --jail-timeout=1 sleep 20
		if [ "$RC" = 124 ] && [ "$TMODE" = same ]; then pass term-restore-timeout; else
			fail term-restore-timeout "exit status $RC (expected 124), the terminal's mode after: $TMODE"
		fi
	fi
	# pid 1 fails after the pseudo-terminal was made (a cache jail-python
	# binds cannot be read: exit 125): the message reaches the terminal,
	# and its mode is back.
	if c term-restore-125; then
		if [ "$as_root" -eq 0 ]; then
			skip term-restore-125 "needs root, to make a directory the test user cannot read"
		else
			mkdir -p "$T/tty/h125/.cache/huggingface"
			chown "$tuid:$tgid" "$T/tty/h125" "$T/tty/h125/.cache"
			chmod 0700 "$T/tty/h125/.cache/huggingface"
			PHOME=$T/tty/h125 prun -- jail-python -c 'print("ran")'
			if [ "$RC" = 125 ] && [ "$TMODE" = same ] && tty_has "$TOUT" 'fatal: unable to' && ! tty_has "$TOUT" ran; then
				pass term-restore-125
			else
				fail term-restore-125 "exit status $RC (expected 125), the terminal's mode after: $TMODE, it got $(tty_show "$TOUT")"
			fi
		fi
	fi
	if c term-winch; then
		prun --size 24x80 --resize 40x100@2 -- jail "$py" -c 'import os, signal, time
heard = []
signal.signal(signal.SIGWINCH, lambda *a: heard.append(1))
print("was", *os.get_terminal_size(0), flush=True)
end = time.monotonic() + 20
while time.monotonic() < end and not (heard and os.get_terminal_size(0) == (100, 40)):
    time.sleep(0.1)
print("now" if heard else "unheard", *os.get_terminal_size(0))'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'was 80 24' && tty_has "$TOUT" 'now 100 40'; then pass term-winch; else
			fail term-winch "exit status $RC, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	if c term-keys; then
		prun --send 'hello\r@2' -- jail sh -c 'read x; echo "got:$x"'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'got:hello' && [ "$TMODE" = same ]; then pass term-keys; else
			fail term-keys "exit status $RC, termios $TMODE, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	# ^C typed: the jail's own line discipline makes it SIGINT.
	if c term-ctrl-c; then
		prun --send '\x03@2' -- jail sleep 20
		if [ "$RC" = 130 ] && [ "$TMODE" = same ]; then pass term-ctrl-c; else
			fail term-ctrl-c "exit status $RC (expected 130), termios $TMODE"
		fi
	fi
	# ^Z typed: the stub stops (the caller's shell gets its terminal back,
	# in its own mode), the jail runs on, fg resumes; as before the pty.
	if c term-ctrl-z; then
		prun --send '\x1a@1' -- jail sh -c 'sleep 3; echo done'
		if [ "$RC" = 0 ] && [ "$TSTOP" = yes-termios-same ] && [ "$TMODE" = same ] && tty_has "$TOUT" "done"; then pass term-ctrl-z; else
			fail term-ctrl-z "exit status $RC, stopped: $TSTOP, termios after: $TMODE, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	# stdout a pipe (jrun: stdin /dev/null, stdout and stderr files): no
	# pseudo-terminal, the descriptors as they were.
	if c term-pipe; then
		jrun user -- jail sh -c 'readlink /proc/self/fd/1; printf "\033]52;c;SGVsbG8=\a"'
		if [ "$RC" = 0 ] && [[ $OUT == *"]52;c;SGVsbG8="* ]] && [[ $OUT != *"/dev/pts"* ]]; then pass term-pipe; else
			fail term-pipe "exit status $RC, stdout $(q "$OUT")"
		fi
	fi
	# The fallback (no namespaces: a file of /proc covered and the Docker
	# socket hidden, as run.sh's fallback cases do it: tests/lib/fallback.sh):
	# the same pseudo-terminal, filtered, and the caller's terminal not among
	# the descriptors.
	if c term-fallback && ! fb_ready; then
		skip term-fallback "$fb_why"
	elif c term-fallback; then
		prun -- unshare -Urm sh -c "$fb_cover" sh "$bin/jail-worker" "$py" -c 'import os, sys
mine = [fd for fd in map(int, os.listdir("/proc/self/fd")) if os.path.exists("/proc/self/fd/%d" % fd) and os.stat(fd).st_rdev == int(sys.argv[1])]
os.write(1, b"A\033]52;c;SGVsbG8=\aB\n")
print("caller-fds:", mine)' '{RDEV}'
		if [ "$RC" = 0 ] && tty_has "$TOUT" 'AB' && tty_has "$TOUT" 'caller-fds: []' && ! tty_has "$TOUT" '52;'; then pass term-fallback; else
			fail term-fallback "exit status $RC, the terminal got $(tty_show "$TOUT")"
		fi
	fi
	if c term-explain; then
		prun -- jail --jail-explain=json
		a=$("$py" -c 'import json, sys; t = json.loads(open(sys.argv[1], "rb").read().decode().replace("\r\n", "\n"))["terminal"]; print(t["handling"], t["pty"], ",".join(t["terminals"]))' "$TOUT" 2>&1)
		prun -- jail --jail-terminal=passthrough --jail-explain
		if [ "$a" = "filter True stdin,stdout,stderr" ] && tty_has "$TOUT" 'passthrough (the jail writes to your terminal as it is'; then pass term-explain; else
			fail term-explain "json: $a; text $(tty_show "$TOUT")"
		fi
	fi
fi
