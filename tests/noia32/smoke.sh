#!/bin/sh
# smoke.sh: make check-noia32's cases, inside the VM, as root; the jails and
# the probe outside them run as the unprivileged user ajt (uid 1000) in its
# project.  One line per case on the serial console: "AJSMOKE PASS|FAIL|SKIP
# NAME[: why]"; run.sh reads them.  Booted with ia32_emulation=false the
# int 0x80 cases must skip naming the cause; booted without it they must
# run, and a skip there is a failure.
P=/home/ajt/proj
A=/opt/aj/bin
export PATH=$A:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/home/ajt

pass() { echo "AJSMOKE PASS $1"; }
fail() { echo "AJSMOKE FAIL $1: $2"; }
skip() {
	if [ "$ia32" = on ]; then fail "$1" "skipped though the kernel has IA32 emulation: $2"; else echo "AJSMOKE SKIP $1: $2"; fi
}

# user CMD...: CMD as ajt in the project; OUT, ERR and RC.
user() {
	OUT=$(timeout 120 $A/helper as 1000 1000 $P "$@" 2>/tmp/err)
	RC=$?
	ERR=$(cat /tmp/err)
}

case " $(cat /proc/cmdline) " in
*" ia32_emulation=false "*) ia32=off ;;
*) ia32=on ;;
esac
echo "AJSMOKE INFO kernel $(uname -r) $(uname -m), IA32 emulation asked $ia32"
echo "AJSMOKE INFO lsm $(cat /sys/kernel/security/lsm 2>/dev/null)"

case "$(uname -m)" in
x86_64) pass arch ;;
*) fail arch "uname -m says $(uname -m)" ;;
esac

# The control: int 0x80 under no filter answers the pid with emulation on
# and faults without it; anything else and this boot tests nothing.
user ./tools/probe int80
case "$ia32:$RC:$OUT" in
"on:0:int80: ok" | off:139:) pass ia32-control ;;
*) fail ia32-control "IA32 emulation asked $ia32, int 0x80 outside any jail: exit $RC, out '$OUT', err '$ERR'" ;;
esac

# The jail runs here at all.
user $A/jail-worker ./tools/probe read empty
if [ "$RC" = 0 ] && [ "$OUT" = "read: ''" ]; then pass worker-probe; else
	fail worker-probe "exit $RC, out '$OUT', err '$ERR'"
fi
user $A/jail-worker ./tools/probe read .env
if [ "$RC" = 0 ] && [ "$OUT" = "read: ''" ]; then pass env-masked; else
	fail env-masked "exit $RC, out '$OUT', err '$ERR'"
fi

# tests/unit/compiler/test_seccomp: every shipped filter against the table,
# live and interpreted (it drops to nobody itself).
out=$(cd /opt/aj/unit && timeout 300 /opt/aj/lib/ld-linux-x86-64.so.2 --library-path /opt/aj/lib ./test_seccomp 2>&1)
rc=$?
echo "$out" | grep -E '^(verified|SKIP)' | sed 's/^/AJSMOKE INFO test_seccomp: /'
if [ "$rc" != 0 ]; then
	echo "$out" | grep -v -e '^verified' -e '^SKIP' | tail -12 | sed 's/^/AJSMOKE INFO test_seccomp: /'
	fail unit-seccomp "exit $rc"
else
	pass unit-seccomp
	why=$(echo "$out" | sed -n 's/^SKIP live int 0x80 rows (interpreted only): //p')
	if [ -n "$why" ]; then skip unit-seccomp-int80-live "$why"; else pass unit-seccomp-int80-live; fi
fi

# tests/integration/run.sh's probe-x32 and probe-int80, the same way.
user $A/jail-worker ./tools/probe x32
if [ "$RC" = 159 ] && [ -z "$OUT" ]; then pass probe-x32; else
	fail probe-x32 "exit $RC (expected 159, SIGSYS), out '$OUT', err '$ERR'"
fi
user ./tools/probe int80
if [ "$RC" = 139 ]; then
	skip probe-int80 "this kernel has no IA32 emulation: int 0x80 outside any jail dies of SIGSEGV (ia32_emulation=false on its command line), so there is no i386 entry to filter"
	user $A/jail-worker ./tools/probe int80
	echo "AJSMOKE INFO int 0x80 in jail-worker here: exit $RC (139 SIGSEGV, 159 SIGSYS)"
elif [ "$RC" != 0 ] || [ "$OUT" != "int80: ok" ]; then
	fail probe-int80 "outside the jail: exit status $RC, out '$OUT', expected int80: ok"
else
	user $A/jail-worker ./tools/probe int80
	if [ "$RC" = 159 ] && [ -z "$OUT" ]; then pass probe-int80; else
		fail probe-int80 "exit $RC (expected 159, SIGSYS), out '$OUT', err '$ERR'"
	fi
fi
