#!/bin/sh
# smoke.sh: make check-apparmor's cases, inside the VM, as root; the stubs
# and --doctor run as the unprivileged user ajt (uid 1000).  One line per
# case on the serial console: "AJSMOKE PASS|FAIL|SKIP NAME[: why]", and
# --doctor's text as "AJDOC " lines; run.sh reads them.
#
# With kernel.apparmor_restrict_unprivileged_userns=1 (Ubuntu's default,
# turned on here) a stub without a profile gets a user namespace with no
# capabilities and fails closed; /etc/apparmor.d/aijail, loaded, gives the
# stubs their namespaces back; --doctor must say so before and after, as
# the stubs' runs do.
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
export HOME=/home/ajt
P=/home/ajt/proj
H=/opt/aj/helper
PARSER="/opt/aa/lib/ld-linux-x86-64.so.2 --library-path /opt/aa/lib /opt/aa/bin/apparmor_parser"
R=/proc/sys/kernel/apparmor_restrict_unprivileged_userns

pass() { echo "AJSMOKE PASS $1"; }
fail() { echo "AJSMOKE FAIL $1: $2"; }
skip() { echo "AJSMOKE SKIP $1: $2"; }

# user CMD...: CMD as ajt in the project; OUT, ERR and RC.
user() {
	OUT=$(timeout 300 $H as 1000 1000 $P "$@" 2>/tmp/err)
	RC=$?
	ERR=$(cat /tmp/err)
}
# doctor NAME [DIR]: --doctor as ajt (DIR/aijail-status, default /usr/bin),
# its text on the console, its JSON in DOC, its exit in DRC.
doctor() {
	user "${2:-/usr/bin}/aijail-status" --doctor
	echo "$OUT" | sed "s/^/AJDOC [$1] /"
	user "${2:-/usr/bin}/aijail-status" --doctor --json
	DOC=$OUT
	DRC=$RC
}
# check_state NAME STATE: the named check's state in DOC.
state_of() {
	echo "$DOC" | grep "\"name\": \"$1\"" | sed 's/.*"state": "\([a-z]*\)".*/\1/'
}

echo "AJSMOKE INFO kernel $(uname -r), lsm $(cat /sys/kernel/security/lsm 2>/dev/null)"
echo "AJSMOKE INFO $($PARSER --version 2>&1 | head -1)"

if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then pass apparmor-enabled; else
	fail apparmor-enabled "AppArmor is not enabled: $(cat /sys/module/apparmor/parameters/enabled 2>&1)"
fi

# The profile parses (-Q: not loaded, -K: no cache) as the package's.
out=$($PARSER -Q -K /etc/apparmor.d/aijail 2>&1)
if [ $? = 0 ]; then pass profile-parses; else fail profile-parses "$out"; fi
n=$(grep -c '^profile /usr/bin/jail' /etc/apparmor.d/aijail)
if [ "$n" = "$(ls /usr/bin/jail /usr/bin/jail-* | wc -l)" ]; then pass profile-every-stub; else
	fail profile-every-stub "$n profiles for $(ls /usr/bin/jail /usr/bin/jail-* | wc -l) stubs"
fi

if [ -e $R ]; then
	echo 1 >$R
	restrict=$(cat $R)
else
	restrict=
fi
if [ "$restrict" = 1 ]; then
	pass restriction-on
	# Without the profile: the full jail fails closed naming the sysctl,
	# and --doctor says it fails, with the profile as the fix.
	user /usr/bin/jail /usr/bin/aijail-status --json
	case "$RC:$ERR" in
	125:*apparmor_restrict_unprivileged_userns*) pass refused-without-profile ;;
	*) fail refused-without-profile "exit $RC, err '$ERR'" ;;
	esac
	doctor before
	s=$(state_of apparmor)
	r=$(state_of stubs_run)
	if [ "$DRC" = 1 ] && [ "$s" != ok ] && [ "$r" != ok ] &&
		echo "$DOC" | grep -q 'apparmor_parser -r /etc/apparmor.d/aijail'; then
		pass doctor-before
	else
		fail doctor-before "exit $DRC, apparmor $s, stubs_run $r: $DOC"
	fi
else
	case " $(cat /proc/cmdline) " in
	*" aj_restrict=required "*) fail restriction-on "this kernel has no $R" ;;
	*) skip restriction-on "this kernel has no $R (Ubuntu's, not in Linux's tree): the cases without the profile cannot be seen" ;;
	esac
fi

out=$($PARSER -r /etc/apparmor.d/aijail 2>&1)
if [ $? = 0 ]; then pass profile-loads; else fail profile-loads "$out"; fi
missing=
for s in /usr/bin/jail /usr/bin/jail-*; do
	grep -q "^$s (unconfined)\$" /sys/kernel/security/apparmor/profiles || missing="$missing $s"
done
if [ -z "$missing" ]; then pass profiles-loaded; else
	fail profiles-loaded "not in /sys/kernel/security/apparmor/profiles:$missing"
fi

# Under the profile: the full jail, its label, the worker's namespaces.
user /usr/bin/jail /usr/bin/aijail-status --json
if [ "$RC" = 0 ] && echo "$OUT" | grep -q '"in_jail": true'; then pass jail-under-profile; else
	fail jail-under-profile "exit $RC, err '$ERR'"
fi
user /usr/bin/jail cat /proc/self/attr/current
echo "AJSMOKE INFO the label of a command in jail: '$OUT' (exit $RC)"
user /usr/bin/jail-worker --jail-explain=json
if [ "$RC" = 0 ] && echo "$OUT" | grep -q '"namespaces":{[^}]*"available":true'; then
	pass worker-namespaces
else
	fail worker-namespaces "exit $RC, err '$ERR'"
fi
# The profiles' stubs whose command is not here (python3, npm, ...):
# their namespaces, as each explains them.
bad=
for s in /usr/bin/jail-*; do
	user "$s" --jail-explain=json
	echo "$OUT" | grep -q '"namespaces":{[^}]*"available":true' || bad="$bad ${s##*/} (exit $RC, err '$ERR')"
done
if [ -z "$bad" ]; then pass stubs-namespaces; else fail stubs-namespaces "$bad"; fi

doctor after
s=$(state_of apparmor)
r=$(state_of stubs_run)
u=$(state_of userns)
# Its exit status is its verdict: 0 only when no check falls back or fails
# (here the cgroup may: no delegation in this VM).
v=$(echo "$DOC" | sed -n 's/^  "verdict": "\([a-z]*\)".*/\1/p')
if [ "$s" = ok ] && [ "$r" = ok ] && [ "$u" = ok ] &&
	{ [ "$DRC:$v" = 0:ok ] || [ "$DRC:$v" = 1:fallback ]; }; then
	pass doctor-after
else
	fail doctor-after "exit $DRC, verdict $v, apparmor $s, userns $u, stubs_run $r: $DOC"
fi
# As root, --doctor reads the loaded profiles: every stub covered.
out=$(/usr/bin/aijail-status --doctor --json)
if echo "$out" | grep -q '"covered": false' || ! echo "$out" | grep -q '"covered": true'; then
	fail doctor-root-covered "$out"
else
	pass doctor-root-covered
fi

# A copy of the stubs elsewhere is not covered: the profile goes by path,
# and --doctor says which.
if [ "$restrict" = 1 ]; then
	mkdir -p /tmp/elsewhere && cp /usr/bin/jail /usr/bin/jail-worker /usr/bin/aijail-status /tmp/elsewhere/
	chmod 0755 /tmp/elsewhere
	user /tmp/elsewhere/jail /usr/bin/aijail-status --json
	jrc=$RC
	doctor elsewhere /tmp/elsewhere
	fix=$(echo "$DOC" | grep '"name": "apparmor"' | sed 's/.*"fix": "\(.*\)"}.*/\1/')
	if [ "$jrc" = 125 ] && [ "$DRC" = 1 ] && [ "$(state_of stubs_run)" != ok ] &&
		[ "$fix" = "sudo sh -c '/tmp/elsewhere/aijail-status --apparmor-profile >/etc/apparmor.d/aijail.tmp.elsewhere' && sudo apparmor_parser -r /etc/apparmor.d/aijail.tmp.elsewhere" ]; then
		pass doctor-uncovered-copy
	else
		fail doctor-uncovered-copy "jail exit $jrc, doctor exit $DRC, fix '$fix': $DOC"
	fi
	# That fix, run (sudo dropped: this is root), covers the copy.
	out=$(sh -c "apparmor_parser() { $PARSER \"\$@\"; }; $(echo "$fix" | sed 's/sudo //g')" 2>&1)
	user /tmp/elsewhere/jail /usr/bin/aijail-status --json
	if [ "$RC" = 0 ] && echo "$OUT" | grep -q '"in_jail": true' &&
		grep -q '^/tmp/elsewhere/jail (unconfined)$' /sys/kernel/security/apparmor/profiles; then
		pass doctor-fix-covers-copy
	else
		fail doctor-fix-covers-copy "exit $RC, err '$ERR', the fix said: $out"
	fi
fi

# The release archive in /usr/local: INSTALL's one command (sudo dropped:
# this is root) installs and loads its profile; before it, on Ubuntu's
# kernel its stubs fail closed and --doctor names that very command.
if [ "$restrict" = 1 ]; then
	user /usr/local/bin/jail /usr/bin/aijail-status --json
	jrc=$RC
	doctor dist-before /usr/local/bin
	if [ "$jrc" = 125 ] && [ "$DRC" = 1 ] &&
		echo "$DOC" | grep -q 'sudo install -m 0644 /usr/local/share/aijail/apparmor/aijail /etc/apparmor.d/aijail.usr.local.bin && sudo apparmor_parser -r /etc/apparmor.d/aijail.usr.local.bin'; then
		pass dist-doctor-before
	else
		fail dist-doctor-before "jail exit $jrc, doctor exit $DRC: $DOC"
	fi
fi
cmd=$(cat /opt/aj/dist-install)
echo "AJSMOKE INFO INSTALL's command: $cmd"
# busybox-static has no install(1): the one form the command uses, by cp.
shim='install() { m=$2; shift 2; cp "$1" "$2" && chmod "$m" "$2"; }'
out=$(sh -c "$shim; apparmor_parser() { $PARSER \"\$@\"; }; $cmd" 2>&1)
if [ $? = 0 ] && grep -q '^/usr/local/bin/jail-worker (unconfined)$' /sys/kernel/security/apparmor/profiles &&
	grep -q '^/usr/bin/jail-worker (unconfined)$' /sys/kernel/security/apparmor/profiles; then
	pass dist-profile-loads
else
	fail dist-profile-loads "$out"
fi
user /usr/local/bin/jail /usr/bin/aijail-status --json
if [ "$RC" = 0 ] && echo "$OUT" | grep -q '"in_jail": true'; then pass dist-jail-runs; else
	fail dist-jail-runs "exit $RC, err '$ERR'"
fi
doctor dist-after /usr/local/bin
if [ "$(state_of apparmor)" = ok ] && [ "$(state_of stubs_run)" = ok ] && [ "$(state_of userns)" = ok ]; then
	pass dist-doctor-after
else
	fail dist-doctor-after "exit $DRC: $DOC"
fi
