# user.sh: who runs the jails in the shell suites (sourced).  As root: the
# unprivileged user ajtest, created when missing, reached through setpriv;
# as anyone else: that user.  Sets as_root, tuser, thome (root only: the
# callers choose a throw-away one otherwise), tuid, tgid.
if [ "$(id -u)" -eq 0 ]; then
	as_root=1
	tuser=${AJTEST_USER:-ajtest}
	if ! id "$tuser" >/dev/null 2>&1; then
		useradd -m -s /bin/sh "$tuser" || {
			echo "FAIL setup: useradd $tuser failed"
			exit 1
		}
	fi
	thome=$(getent passwd "$tuser" | cut -d: -f6)
else
	as_root=0
	tuser=$(id -un)
fi
tuid=$(id -u "$tuser")
tgid=$(id -g "$tuser")
