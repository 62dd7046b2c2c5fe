# shellcheck shell=bash disable=SC2016
# fallback.sh: the Landlock-only fallback (stub/fallback/) on this machine,
# without a container.  Sourced by tests/integration/run.sh (term.sh uses it
# through run.sh), after jrun.
#
# fb_cover is the script a fallback case runs in a user and mount namespace
# of its own (unshare -Urm sh -c "$fb_cover" sh COMMAND…), as the test user:
#
# - It hides the Docker socket the stub would see: the path of a unix://
#   $DOCKER_HOST, else /var/run/docker.sock (stub/variant/vars.c,
#   resolve_docker), read from the environment the stub is given.  The
#   fallback rightly refuses to run beside one (Landlock cannot stop a
#   connect to it), so on a workstation with Docker the cases would test
#   that refusal and nothing else.  /dev/null bound over it leaves no
#   socket at that path in the namespace: the stub sees what a container
#   without the socket shows it, and nothing in the jail can reach the
#   socket there.  A socket still there after the bind exits 3 with
#   fb_marker on stderr: the case skips, naming the socket.
# - It covers a file of /proc with /dev/null, as a container runtime does,
#   and the kernel then refuses the jail a procfs of its own: the stub
#   takes the fallback, or refuses when its policy declares none.  fb_proc
#   is this part alone.
fb_marker='aj-test: cannot hide the Docker socket'
fb_proc='for f in /proc/keys /proc/timer_list /proc/kcore; do [ -e "$f" ] && { mount --bind /dev/null "$f"; break; }; done && exec "$@"'
fb_cover='s=/var/run/docker.sock
case ${DOCKER_HOST-} in unix://*) s=${DOCKER_HOST#unix://} ;; esac
if [ -S "$s" ]; then
	e=$(mount --bind /dev/null "$s" 2>&1)
	if [ -S "$s" ]; then
		echo "'"$fb_marker"' $s from the fallback: mount --bind /dev/null over it: ${e:-the socket stays}" >&2
		exit 3
	fi
fi
'"$fb_proc"

# fb_ready: true when the fallback cases can run here; else false, with
# fb_why saying why, for their skip.  Asked once: a user and mount
# namespace as the test user (a kernel or an LSM may refuse it to an
# unprivileged user), and the Docker socket hidden in it.
fb_asked=0
fb_why=
fb_ready() {
	if [ $fb_asked = 0 ]; then
		fb_asked=1
		jrun user -- unshare -Urm sh -c "$fb_cover" sh true
		if [ "$RC" = 3 ] && [[ $ERR == *"$fb_marker"* ]]; then
			fb_why=${ERR#*aj-test: }
		elif [ "$RC" != 0 ]; then
			fb_why="unshare -Urm as the test user: exit $RC, $(printf '%s' "$ERR" | head -c 200)"
		fi
	fi
	[ -z "$fb_why" ]
}
