#!/bin/sh
# smoke.sh: the aarch64 smoke suite, inside the VM, as root; every jail runs
# as the unprivileged user ajt (uid 1000) in its project.  One line per case
# on the serial console: "AJSMOKE PASS|FAIL|SKIP NAME[: why]"; run.sh reads
# them.
P=/home/ajt/proj
A=/opt/aj/bin
export PATH=$A:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/home/ajt

pass() { echo "AJSMOKE PASS $1"; }
fail() { echo "AJSMOKE FAIL $1: $2"; }
skip() { echo "AJSMOKE SKIP $1: $2"; }

# user CMD...: CMD as ajt in the project; OUT, ERR and RC.
user() {
	OUT=$(timeout 120 $A/helper as 1000 1000 $P "$@" 2>/tmp/err)
	RC=$?
	ERR=$(cat /tmp/err)
}

echo "AJSMOKE INFO kernel $(uname -r) $(uname -m)"
echo "AJSMOKE INFO lsm $(cat /sys/kernel/security/lsm 2>/dev/null)"
echo "AJSMOKE INFO userns max $(cat /proc/sys/user/max_user_namespaces 2>/dev/null)," \
	"unprivileged_userns_clone $(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null)"

case "$(uname -m)" in
aarch64) pass arch ;;
*) fail arch "uname -m says $(uname -m)" ;;
esac
case ",$(cat /sys/kernel/security/lsm 2>/dev/null)," in
*,landlock,*) pass kernel-landlock ;;
*) fail kernel-landlock "landlock is not in the kernel's LSM list: $(cat /sys/kernel/security/lsm 2>/dev/null)" ;;
esac

# The controls: what the jail must take away is there outside it.
user ./tools/probe read .env
env_outside=$OUT
user ./tools/probe read secrets/key
key_outside=$OUT
user ./tools/probe read empty
empty_read=$OUT
user ./tools/probe read README
readme_read=$OUT
case "$env_outside$key_outside$readme_read" in
*"SMOKE_ENV_SECRET"*"SMOKE_KEY_SECRET"*"smoke readme"*) pass controls ;;
*) fail controls "outside the jail, .env and secrets/key read: $env_outside / $key_outside" ;;
esac

# jail-worker runs a static probe (a file the project holds).
user $A/jail-worker ./tools/probe read README
if [ "$RC" = 0 ] && [ "$OUT" = "$readme_read" ]; then
	pass worker-probe
else
	fail worker-probe "exit $RC, out '$OUT', err '$ERR'"
fi

# A masked .env reads as an empty file; secrets/ is refused.
user $A/jail-worker ./tools/probe read .env
if [ "$RC" = 0 ] && [ "$OUT" = "$empty_read" ]; then
	pass env-masked
else
	fail env-masked "exit $RC, out '$OUT' (an empty file reads '$empty_read'), err '$ERR'"
fi
user $A/jail-worker ./tools/probe read secrets/key
case "$RC:$OUT" in
*SMOKE_KEY_SECRET*) fail secrets-refused "secrets/key was read: $OUT" ;;
1:"read: E"*) pass secrets-refused ;;
*) fail secrets-refused "exit $RC, out '$OUT', err '$ERR'" ;;
esac

# No network: a listener on the VM's loopback, reachable outside the jail,
# is not from inside it.
if $A/helper listen 8765; then
	user ./tools/probe connect-tcp 127.0.0.1 8765
	if [ "$RC:$OUT" != "0:connect-tcp: ok" ]; then
		skip no-network "the control connect outside the jail failed: exit $RC, $OUT $ERR"
	else
		user $A/jail-worker ./tools/probe connect-tcp 127.0.0.1 8765
		case "$RC:$OUT" in
		"1:connect-tcp: E"*) pass no-network ;;
		*) fail no-network "expected exit 1 and connect-tcp: E…, got exit $RC, out '$OUT', err '$ERR'" ;;
		esac
	fi
else
	skip no-network "no listener on 127.0.0.1:8765"
fi

# ptrace is refused, and the refusal reported on the way out.
user $A/jail-worker ./tools/probe ptrace
if [ "$RC" = 1 ] && [ "$OUT" = "ptrace: EPERM" ] && [ "$ERR" = "jail-worker: refused 1 call (ptrace)" ]; then
	pass ptrace-refused
else
	fail ptrace-refused "exit $RC, out '$OUT', err '$ERR'"
fi

# --jail-explain names the kernel's Landlock ABI, enforced.
user $A/jail-worker --jail-explain
ll=$(echo "$OUT" | grep -i '^ *landlock')
case "$ll" in
*"kernel ABI "[1-9]*": enforced"*) pass explain-landlock; echo "AJSMOKE INFO $ll" ;;
*) fail explain-landlock "exit $RC, landlock line '$ll', err '$ERR'" ;;
esac
user $A/jail-worker --jail-explain=json
case "$OUT" in
*'"kernel_abi":'[1-9]*) pass explain-json-landlock ;;
*) fail explain-json-landlock "exit $RC, no kernel_abi in the JSON; err '$ERR'" ;;
esac
