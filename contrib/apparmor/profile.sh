#!/bin/sh
# profile.sh BINDIR STUB...: the AppArmor profile for aijail's stubs
# installed in BINDIR, on stdout.  One profile per stub, named by its path,
# so that a stub's label is its path (aijail-status --doctor finds it in
# /sys/kernel/security/apparmor/profiles) and profiles for two installs
# (the package's /usr/bin, an archive's /usr/local/bin) never replace each
# other.  The file's name under /etc/apparmor.d is "aijail" for /usr/bin,
# else "aijail" and BINDIR with dots for slashes; its first lines carry the
# command that installs it, which --doctor prints as the fix.
#
# Why unconfined with userns, and nothing else: Ubuntu's
# kernel.apparmor_restrict_unprivileged_userns takes away only the
# capabilities of a user namespace made by a program without a profile
# that says userns; this gives them back to these paths alone.  A
# confining profile would also confine every command run in a jail (the
# target inherits the stub's profile through exec), so it would have to
# allow what python, npm or cargo do, that is everything; the stub confines
# those itself (seccomp refuses new namespaces and mount, capabilities
# dropped, Landlock), which is why a namespace of the stub's is no gadget
# for the code it runs, unlike a general tool's (Ubuntu restricts bwrap's
# children for that reason).  abi 4.0 is the first that knows userns.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BINDIR STUB..." >&2; exit 2; }
bindir=${1%/}
shift
case $bindir in
/*) ;;
*) echo "$0: BINDIR must be absolute: $bindir" >&2; exit 2 ;;
esac
if [ "$bindir" = /usr/bin ]; then name=aijail; else name=aijail$(printf %s "$bindir" | tr / .); fi
cat <<HEAD
# AppArmor profile for aijail's stubs in $bindir: each may make a user
# namespace (userns) where kernel.apparmor_restrict_unprivileged_userns=1
# (Ubuntu 24.04 and later) and is otherwise unconfined; the stub confines
# what it runs itself (namespaces, seccomp, Landlock).
# Install: sudo install -m 0644 THIS-FILE /etc/apparmor.d/$name && sudo apparmor_parser -r /etc/apparmor.d/$name
# Needs AppArmor 4.0 or later (the userns rule); AppArmor 3 has no such
# restriction to meet.

abi <abi/4.0>,

include <tunables/global>
HEAD
for s in "$@"; do
	printf '\nprofile %s/%s flags=(unconfined) {\n  userns,\n\n  # Site-specific additions and overrides: local/README.\n  include if exists <local/%s>\n}\n' \
		"$bindir" "$s" "$name"
done
