# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# scancache.sh: what a launch must see of the project is what it is now, not
# what an earlier launch saw (issue 13).  Whatever makes repeat launches
# cheap (a cache of the scan, a watcher of the project) has to keep these
# true: a secret made since the previous launch, anywhere in the tree and
# in any way (a new file deep down, a new directory, a directory moved in
# from outside, a hard link under a harmless name, a rename onto a secret's
# name), is covered on the next launch.  Each round launches once, changes
# the tree on the host, then reads through the next launch.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

fr=$T/fresh
fro=$T/fresh-outside
mkdir -p "$fr" "$fro"
d=$fr
for i in $(seq 12); do d=$d/l$i; done
mkdir -p "$d" "$fr/wide/a" "$fr/wide/b"
printf 'plain' >"$fr/wide/a/plain.txt"
printf 'KEEP' >"$fr/keep.txt"
fr_deep=${d#"$fr"/}
chown -R "$tuid:$tgid" "$fr" "$fro"

# fresh_round NAME EXPECT PATH SETUP: a launch, SETUP run as the test user
# on the host in the project, then PATH read by the next launch.
fresh_round() {
	local name=$1 want=$2 path=$3 setup=$4
	c "$name" || return 0
	CWD=$fr jrun user -- jail-worker /bin/true
	if [ "$RC" != 0 ]; then
		fail "$name" "the launch before the change exited $RC"
		return 0
	fi
	as_user sh -c "cd '$fr' && $setup"
	CWD=$fr jrun user -- jail-python -c "$PYREAD" "$path"
	expect "$name" 0 "$want"
}

fresh_round fresh-deep-env "''" "$fr_deep/.env" "printf 'S=1' >$fr_deep/.env"
fresh_round fresh-new-dir-env "''" new1/x/y/.env "mkdir -p new1/x/y && printf 'S=1' >new1/x/y/.env"
fresh_round fresh-moved-in-dir "''" wide/b/moved/.env \
	"mkdir -p '$fro/moved' && printf 'S=1' >'$fro/moved/.env' && mv '$fro/moved' wide/b/moved"
fresh_round fresh-renamed-onto-secret "''" wide/a/.env.local "mv wide/a/plain.txt wide/a/.env.local"
fresh_round fresh-hardlink "''" wide/notes.txt "printf 'S=1' >.env.fresh-hl && ln .env.fresh-hl wide/notes.txt"
fresh_round fresh-new-denied-dir EACCES new2/secrets/db.txt "mkdir -p new2/secrets && printf 'pw' >new2/secrets/db.txt"
fresh_round fresh-dir-renamed-to-secrets EACCES wide/secrets/plain.txt "mkdir -p wide/c && printf 'pw' >wide/c/plain.txt && mv wide/c wide/secrets"
# and what is no secret stays readable through all of it
fresh_round fresh-plain-readable "'KEEP'" keep.txt "touch keep.txt"
