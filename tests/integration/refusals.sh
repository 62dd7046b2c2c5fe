# shellcheck shell=bash disable=SC2154,SC2016 # sourced by run.sh, which sets the variables
# refusals.sh: the report of what the jail refused (stub/notify/notify.c,
# stub/notify/refusals.c).  A refused call gets the errno it gets with the plain
# filter (the same calls run again under a process that already holds a
# seccomp listener, where the stub cannot have one and installs the
# filter as compiled), and the summary names it; ENOSYS (clone3) and a
# run that refuses nothing say nothing at all; the kill rules still kill;
# two refused proxy requests are both named, with a refused call in the
# same line; --jail-log writes one JSON line per refusal, which the jail
# cannot open; a log inside the project is refused.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

rf_cases="refusals-errno-same refusals-summary-call refusals-summary-calls refusals-quiet
	refusals-quiet-enosys refusals-kill refusals-no-listener refusals-proxy refusals-log
	refusals-log-unreachable refusals-log-in-project refusals-log-in-mount refusals-explain"
want_rf=0
for n in $rf_cases; do c "$n" && want_rf=1; done

# The calls of the probe the shipped jail-worker refuses, with the errno
# each gets: EPERM but clone3's ENOSYS and the socket families'
# EAFNOSUPPORT.
rf_probes="ptrace ptrace-attach keyctl mount bpf perf_event_open open_by_handle_at userfaultfd
	io_uring_setup ioctl-tiocsti ioctl-tiocsti-high unshare-user clone-newuser clone3"
RF_ALL='for c in '$(echo $rf_probes)'; do ./tools/probe $c; done
/usr/bin/python3 -c "import socket, errno
for f in (socket.AF_PACKET, socket.AF_VSOCK, socket.AF_ALG):
    try:
        socket.socket(f, socket.SOCK_DGRAM if f != socket.AF_ALG else socket.SOCK_SEQPACKET)
        print(f, \"ok\")
    except OSError as e:
        print(int(f), errno.errorcode[e.errno])"; ./tools/probe ptrace >/dev/null'

# rf_nolistener: runs its arguments under a seccomp filter that allows
# everything and holds a listener, kept open across the exec: the stub's
# pid 1 then cannot have one of its own (EBUSY) and must fall back to
# the filter as compiled.
RF_NOLISTENER='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]
insn = (Insn * 1)(Insn(0x06, 0, 0, 0x7fff0000))
prog = Prog(1, insn)
if libc.prctl(38, 1, 0, 0, 0):
    sys.exit("no_new_privs: %s" % os.strerror(ctypes.get_errno()))
fd = libc.syscall(317, 1, 8, ctypes.byref(prog))
if fd < 0:
    sys.exit("seccomp listener: %s" % os.strerror(ctypes.get_errno()))
os.set_inheritable(fd, True)
os.execv(sys.argv[1], sys.argv[1:])'

rf=$T/rf
if [ $want_rf = 1 ]; then
	mkdir -p "$rf"
	chown "$tuid:$tgid" "$rf"
fi

if c refusals-errno-same; then
	jrun user -- jail-worker sh -c "$RF_ALL"
	with=$OUT
	rc_with=$RC
	jrun user -- "$py" -c "$RF_NOLISTENER" "$bin/jail-worker" sh -c "$RF_ALL"
	if [ "$rc_with" != 1 ] || [ "$RC" != 1 ]; then
		fail refusals-errno-same "exit statuses $rc_with (listener), $RC (plain filter), expected 1"
	elif [ "$with" != "$OUT" ]; then
		fail refusals-errno-same "with the listener $(q "$with"), with the plain filter $(q "$OUT")"
	elif [[ $with != *"ptrace: EPERM"*"keyctl: EPERM"*"mount: EPERM"*"clone3: ENOSYS"*"17 EAFNOSUPPORT"*"40 EAFNOSUPPORT"*"38 EAFNOSUPPORT"* ]]; then
		fail refusals-errno-same "not the policy's errnos: $(q "$with")"
	else
		pass refusals-errno-same
	fi
fi

if c refusals-summary-call; then
	jrun user -- jail-worker ./tools/probe ptrace
	if [ "$RC" = 1 ] && [ "$OUT" = "ptrace: EPERM" ] && [ "$ERR" = "jail-worker: refused 1 call (ptrace)" ]; then
		pass refusals-summary-call
	else
		fail refusals-summary-call "exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR")"
	fi
fi

# Every refusal counts, a name is given once; the vfork child's own
# calls and those of a grandchild count too.
if c refusals-summary-calls; then
	jrun user -- jail-worker sh -c './tools/probe ptrace; ./tools/probe keyctl; sh -c "./tools/probe ptrace"; true'
	if [ "$RC" = 0 ] && [ "$ERR" = "jail-worker: refused 3 calls (ptrace, keyctl)" ]; then
		pass refusals-summary-calls
	else
		fail refusals-summary-calls "exit status $RC, stderr $(q "$ERR")"
	fi
fi

if c refusals-quiet; then
	jrun user -- jail-worker sh -c 'echo hi; ./tools/probe read normal.txt >/dev/null'
	if [ "$RC" = 0 ] && [ "$OUT" = hi ] && [ -z "$ERR" ]; then pass refusals-quiet; else
		fail refusals-quiet "exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR"): expected nothing on stderr"
	fi
fi

# ENOSYS is how the policy makes libc fall back to clone(2): no refusal.
if c refusals-quiet-enosys; then
	jrun user -- jail-worker ./tools/probe clone3
	if [ "$RC" = 1 ] && [ "$OUT" = "clone3: ENOSYS" ] && [ -z "$ERR" ]; then pass refusals-quiet-enosys; else
		fail refusals-quiet-enosys "exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR")"
	fi
fi

if c refusals-kill; then
	jrun user -- jail-worker ./tools/probe x32
	if [ "$RC" = 159 ] && [ -z "$OUT" ] && [ -z "$ERR" ]; then pass refusals-kill; else
		fail refusals-kill "exit status $RC (expected 159, SIGSYS), stdout $(q "$OUT"), stderr $(q "$ERR")"
	fi
fi

# No listener to be had: refused all the same, without a word.
if c refusals-no-listener; then
	jrun user -- "$py" -c "$RF_NOLISTENER" "$bin/jail-worker" ./tools/probe ptrace
	if [ "$RC" = 1 ] && [ "$OUT" = "ptrace: EPERM" ] && [ -z "$ERR" ]; then pass refusals-no-listener; else
		fail refusals-no-listener "exit status $RC, stdout $(q "$OUT"), stderr $(q "$ERR")"
	fi
fi

# A test policy with a list (as egress.sh has it) and two ports of the
# host's 127.0.0.1 it does not list: one plain request, one CONNECT.
rf_proxy=0
if [ $want_rf = 1 ] && { c refusals-proxy || c refusals-log || c refusals-log-unreachable; }; then
	if ! command -v curl >/dev/null; then
		skip refusals-proxy "curl is not installed: the proxy cases need a client that speaks to it"
	else
		rf_p1=$(eg_port 127.0.0.1)
		rf_p2=$(eg_port 127.0.0.1)
		rf_p3=$(eg_port 127.0.0.1)
		cat >"$rf/refuse.aj" <<EOF
include "base.aj";

policy refuse extends base {
    network allow "127.0.0.1:$rf_p3";
}
EOF
		if "$build/bin/aijail-compile" --build -I "$root/policies" -o "$bin/jail-refuse" "$rf/refuse.aj" \
			>"$rf/build.log" 2>&1; then
			chmod 0755 "$bin/jail-refuse"
			rf_proxy=1
		else
			ERR=$(cat "$rf/build.log")
			fail refusals-build "aijail-compile --build of the test policy failed"
		fi
	fi
fi
RF_CURLS='curl -s -m 10 -o /dev/null -w "%{http_code} " "http://127.0.0.1:$1/a"
curl -s -m 10 -o /dev/null -w "%{http_connect} " --proxytunnel "http://127.0.0.1:$2/b"
./tools/probe ptrace >/dev/null; echo'

if [ $rf_proxy = 1 ] && c refusals-proxy; then
	jrun user -- jail-refuse sh -c "$RF_CURLS" sh "$rf_p1" "$rf_p2"
	sum="jail-refuse: refused 2 connections (127.0.0.1:$rf_p1, 127.0.0.1:$rf_p2) and 1 call (ptrace)"
	if [ "$RC" != 0 ] || [ "$OUT" != "403 403 " ]; then
		fail refusals-proxy "exit status $RC, stdout $(q "$OUT"); expected two 403s"
	elif [ "$(printf '%s\n' "$ERR" | grep -c 'refused a connection')" != 2 ]; then
		fail refusals-proxy "not one line per refused host: $(q "$ERR")"
	elif [ "$(printf '%s\n' "$ERR" | tail -n 1)" != "$sum" ] ||
		[ "$(printf '%s\n' "$ERR" | grep -c ': refused [0-9]')" != 1 ]; then
		fail refusals-proxy "the last line is not the one summary $(q "$sum"): $(q "$ERR")"
	else
		pass refusals-proxy
	fi
fi

rf_log=$rf/refusals.jsonl
if [ $rf_proxy = 1 ] && c refusals-log; then
	rm -f "$rf_log"
	jrun user -- jail-refuse --jail-log="$rf_log" sh -c "$RF_CURLS"'
./tools/probe keyctl >/dev/null; true' sh "$rf_p1" "$rf_p2"
	got=$("$py" -c 'import json, sys
kinds = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    assert isinstance(e["time"], float), e
    if e["kind"] == "call":
        kinds.append("call:%s:%d:%s" % (e["name"], e["nr"], e["errno"]))
    else:
        kinds.append("%s:%s:%d" % (e["kind"], e["host"], e["port"]))
print(" ".join(kinds))' "$rf_log" 2>&1)
	want="request:127.0.0.1:$rf_p1 connection:127.0.0.1:$rf_p2 call:ptrace:101:1 call:keyctl:250:1"
	mode=$(stat -c %a "$rf_log" 2>/dev/null)
	if [ "$RC" != 0 ]; then
		fail refusals-log "exit status $RC; stderr $(q "$ERR")"
	elif [ "$got" != "$want" ]; then
		fail refusals-log "the log reads $(q "$got"), expected $(q "$want")"
	elif [ "$mode" != 600 ]; then
		fail refusals-log "the log's mode is $mode, expected 600"
	else
		pass refusals-log
	fi
fi

# The log is the parent's, outside: not in the jail's /tmp, not among
# any of its processes' fds.
if [ $rf_proxy = 1 ] && c refusals-log-unreachable; then
	jrun user -- jail-refuse --jail-log="$rf_log" sh -c './tools/probe read "$1"; ./tools/probe write "$1";
		for f in /proc/[0-9]*/fd/*; do case $(readlink "$f") in *refusals.jsonl*) echo "held: $f";; esac; done' sh "$rf_log"
	if [ "$RC" = 0 ] && [ "$OUT" = "read: ENOENT"$'\n'"write: ENOENT" ]; then pass refusals-log-unreachable; else
		fail refusals-log-unreachable "exit status $RC, stdout $(q "$OUT")"
	fi
fi

if c refusals-log-in-project; then
	jrun user -- jail-worker --jail-log=./refusals.jsonl true
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to open the refusal log ./refusals.jsonl: the jail can write there"* ]]; then
		pass refusals-log-in-project
	else
		fail refusals-log-in-project "exit status $RC, stderr $(q "$ERR")"
	fi
	rm -f "$P/refusals.jsonl"
	# A writable mount of the policy's other than the project: jail-python's
	# Hugging Face cache (rw+, made when missing; made here first, as a run
	# of jail-python would, so that the case does not depend on the order
	# the cases ran in).
	[ -d "$thome/.cache/huggingface" ] ||
		install -d -o "$tuid" -g "$tgid" "$thome/.cache" "$thome/.cache/huggingface"
	jrun user -- jail-python --jail-log="$thome/.cache/huggingface/refusals.jsonl" -c 'print(1)'
	if [ "$RC" = 125 ] && [[ $ERR == *"unable to open the refusal log"*"the jail can write there"* ]]; then
		pass refusals-log-in-mount
	else
		fail refusals-log-in-mount "exit status $RC, stderr $(q "$ERR")"
	fi
	rm -f "$thome/.cache/huggingface/refusals.jsonl"
fi

if c refusals-explain; then
	jrun user -- jail-worker --jail-explain=json
	got=$(printf '%s' "$OUT" | "$py" -c 'import json, sys
r = json.load(sys.stdin)["seccomp"]["reported"]
print(r["calls"] > 0, r["listener"])' 2>&1)
	if [ "$got" = "True True" ]; then pass refusals-explain; else
		fail refusals-explain "seccomp.reported: $(q "$got")"
	fi
fi
