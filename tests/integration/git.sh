# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# git.sh: masks that understand git (stub/scan/git.c), with real git, as
# the test user, inside the jail: a tracked masked file is denied (and
# named, once, on stderr and by --jail-explain), an untracked one stays
# masked and silent, a tracked denied file is named too; the project at the
# top of a repository, below it, a repository nested in it, a worktree, and
# indexes of versions 2, 3 and 4.  The commit cases check on the host that
# no jailed commit recorded a masked file as emptied.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.

gr=$T/git
mkdir -p "$gr"
chown "$tuid:$tgid" "$gr"

# hgit DIR ARGS…: git on the host, as the test user, in DIR, with no
# configuration but an identity.
hgit() {
	local d=$1
	shift
	as_user env -i PATH=/usr/bin:/bin HOME="$gr" GIT_CONFIG_NOSYSTEM=1 \
		GIT_CONFIG_GLOBAL=/dev/null git -c user.name=AJ -c user.email=aj@example.invalid \
		-c init.defaultBranch=main -C "$d" "$@"
}

# jgit DIR ARGS…: git in the jail, from DIR, as an agent would run it.
jgit() {
	local d=$1
	shift
	CWD=$d jrun user -- jail git -c user.name=AJ -c user.email=aj@example.invalid "$@"
}

# A repository made by the test user from the shell commands given.
mkrepo() {
	as_user mkdir -p "$1"
	hgit "$1" init -q
	as_user sh -c "cd '$1' && $2"
}

# warned: how many warning lines the last jrun printed about tracked files.
warned() {
	printf '%s\n' "$ERR" | grep -c ': warning: git tracks '
}

# explained NAME DIR LINE…: --jail-explain from DIR lists each LINE (a
# fixed string) among its masked and denied paths.
explained() {
	local name=$1 d=$2 l
	shift 2
	CWD=$d jrun user -- jail-worker --jail-explain
	for l in "$@"; do
		if ! printf '%s\n' "$OUT" | grep -qxF -- "$l"; then
			fail "$name" "--jail-explain has no line $(q "$l"); it lists: $(q "$(printf '%s\n' "$OUT" | sed -n '/^masked and denied/,/^pruned/p')")"
			return 1
		fi
	done
	return 0
}

tracked_note=$'\t(tracked by git: denied, not masked, so that no commit empties it; its content is in the history)'

if ! command -v git >/dev/null; then
	c 'git-*' && skip git-cases "git is not installed"
else

	# --- the project at the top: .env tracked; .env.local and x.key ignored ------------------

	gt=$gr/top
	mkrepo "$gt" "printf 'SECRET=real\n' >.env && printf 'KEY\n' >x.key && printf 'a\n' >a.txt &&
		printf 'b\n' >b.txt && printf '.env.local\nx.key\n' >.gitignore && printf 'LOCAL=1\n' >.env.local"
	hgit "$gt" add .env a.txt b.txt .gitignore
	hgit "$gt" commit -qm first

	if c git-tracked-warns-once; then
		CWD=$gt jrun user -- jail-worker true
		if [ "$RC" != 0 ]; then
			fail git-tracked-warns-once "exit status $RC"
		elif [ "$(warned)" != 1 ]; then
			fail git-tracked-warns-once "$(warned) warning lines, expected one"
		elif [[ $ERR != *"git tracks .env: "*"history"*"git rm --cached .env"*"rotate"* ]]; then
			fail git-tracked-warns-once "the warning does not say what and why: $(q "$ERR")"
		else
			pass git-tracked-warns-once
		fi
	fi

	if c git-tracked-explain; then
		explained git-tracked-explain "$gt" $'  deny\t.env'"$tracked_note" \
			$'  deny\tx.key' $'  mask\t.env.local' && pass git-tracked-explain
	fi

	if c git-tracked-mask-denied; then
		CWD=$gt jrun user -- jail-python -c "$PYREAD" .env .env.local
		expect git-tracked-mask-denied 0 "EACCES
''"
	fi

	if c git-status-diff; then
		as_user sh -c "printf 'more\n' >>'$gt/a.txt'"
		jgit "$gt" status --porcelain
		st=$RC
		st_out=$OUT
		jgit "$gt" diff --stat -- a.txt
		if [ "$st" != 0 ] || [[ $st_out != *" M a.txt"* ]]; then
			fail git-status-diff "git status: exit status $st, $(q "$st_out")"
		else
			expect git-status-diff 0 " a.txt | 1 +
 1 file changed, 1 insertion(+)"
		fi
	fi

	# The emptied commit: `git commit -am` must not record .env as
	# emptied; git refuses it, naming .env; a commit by name goes through.
	if c git-commit-am; then
		as_user sh -c "printf 'more\n' >>'$gt/b.txt'"
		jgit "$gt" commit -qam 'all, in the jail'
		am_rc=$RC
		am_err=$ERR
		jgit "$gt" commit -qm 'by name, in the jail' -- b.txt
		name_rc=$RC
		ERR=$am_err
		head_env=$(hgit "$gt" show HEAD:.env)
		touched=$(hgit "$gt" log --format=%s -- .env)
		head_b=$(hgit "$gt" show HEAD:b.txt)
		if [ "$head_env" != SECRET=real ]; then
			fail git-commit-am "on the host, git show HEAD:.env is $(q "$head_env"), not the real content"
		elif [ "$touched" != first ]; then
			fail git-commit-am "on the host, commits that touch .env: $(q "$touched")"
		elif [ "$am_rc" = 0 ] || [[ $am_err != *".env"* ]]; then
			fail git-commit-am "git commit -am: exit status $am_rc; expected a refusal that names .env"
		elif [ "$name_rc" != 0 ] || [ "$head_b" != $'b\nmore' ]; then
			fail git-commit-am "git commit -- b.txt: exit status $name_rc; HEAD:b.txt $(q "$head_b")"
		elif [ "$(cat "$gt/.env")" != SECRET=real ]; then
			fail git-commit-am "the host's .env changed"
		else
			pass git-commit-am
		fi
	fi

	if c git-add-other; then
		as_user sh -c "printf 'new\n' >'$gt/c.txt'"
		jgit "$gt" add c.txt
		add_rc=$RC
		jgit "$gt" commit -qm 'c, in the jail'
		if [ "$add_rc" != 0 ] || [ "$RC" != 0 ]; then
			fail git-add-other "git add c.txt: exit status $add_rc, git commit: $RC"
		elif [ "$(hgit "$gt" show HEAD:c.txt)" != new ] || [ "$(hgit "$gt" show HEAD:.env)" != SECRET=real ]; then
			fail git-add-other "HEAD on the host: c.txt $(q "$(hgit "$gt" show HEAD:c.txt)")"
		else
			pass git-add-other
		fi
	fi

	# --- a tracked denied file: named, and git refuses what would stage it -----------------

	gk=$gr/key
	mkrepo "$gk" "printf 'KEY\n' >x.key && printf 'a\n' >a.txt"
	hgit "$gk" add x.key a.txt
	hgit "$gk" commit -qm first

	if c git-tracked-deny; then
		if explained git-tracked-deny "$gk" $'  deny\tx.key\t(tracked by git: its content is in the history)'; then
			as_user sh -c "printf 'more\n' >>'$gk/a.txt'"
			jgit "$gk" commit -qam 'all, in the jail'
			if [ "$RC" = 0 ] || [[ $ERR != *x.key* ]] || [ "$(warned)" != 1 ]; then
				fail git-tracked-deny "git commit -am: exit status $RC, $(warned) warnings; expected a refusal that names x.key"
			elif [ "$(hgit "$gk" show HEAD:x.key)" != KEY ]; then
				fail git-tracked-deny "HEAD:x.key on the host: $(q "$(hgit "$gk" show HEAD:x.key)")"
			else
				pass git-tracked-deny
			fi
		fi
	fi

	# --- the usual case: .env untracked and ignored ------------------------------------------

	gu=$gr/usual
	mkrepo "$gu" "printf 'SECRET=real\n' >.env && printf '.env\n' >.gitignore && printf 'a\n' >a.txt"
	hgit "$gu" add .gitignore a.txt
	hgit "$gu" commit -qm first

	if c git-untracked-silent; then
		CWD=$gu jrun user -- jail-worker true
		if [ "$RC" != 0 ] || [ -n "$ERR" ]; then
			fail git-untracked-silent "exit status $RC, stderr $(q "$ERR"); expected nothing"
		else
			explained git-untracked-silent "$gu" $'  mask\t.env' && pass git-untracked-silent
		fi
	fi

	if c git-untracked-commit-am; then
		as_user sh -c "printf 'more\n' >>'$gu/a.txt'"
		jgit "$gu" commit -qam 'all, in the jail'
		if [ "$RC" != 0 ]; then
			fail git-untracked-commit-am "git commit -am: exit status $RC"
		elif [ "$(hgit "$gu" show HEAD:a.txt)" != $'a\nmore' ] ||
			[ -n "$(hgit "$gu" ls-files .env)" ] || [ "$(cat "$gu/.env")" != SECRET=real ]; then
			fail git-untracked-commit-am "HEAD on the host: $(q "$(hgit "$gu" show --stat HEAD)")"
		else
			CWD=$gu jrun user -- jail-python -c "$PYREAD" .env
			expect git-untracked-commit-am 0 "''"
		fi
	fi

	# --- the project below the top of its repository (index version 3) -----------------------

	gs=$gr/sub
	mkrepo "$gs" "mkdir -p app/secrets other && printf 'SECRET=real\n' >app/.env &&
		printf 'db\n' >app/secrets/db.txt && printf 'x\n' >other/.env && printf 'a\n' >app/a.txt &&
		printf 'u\n' >app/.env.untracked"
	hgit "$gs" add app/.env app/a.txt app/secrets/db.txt other/.env
	as_user sh -c "printf 'n\n' >'$gs/app/new.txt'"
	hgit "$gs" add -N app/new.txt # intent to add: an extended flag, so version 3
	hgit "$gs" commit -qm first -- app/.env app/a.txt app/secrets/db.txt other/.env

	if c git-subdir; then
		if [ "$(head -c 8 "$gs/.git/index" | od -An -tx1 | tr -d ' ')" != 4449524300000003 ]; then
			skip git-subdir "git did not write a version 3 index here"
		elif explained git-subdir "$gs/app" $'  deny\t.env'"$tracked_note" \
			$'  deny\tsecrets/\t(tracked by git: its content is in the history)' \
			$'  mask\t.env.untracked'; then
			CWD=$gs/app jrun user -- jail-python -c "$PYREAD" .env .env.untracked
			expect git-subdir 0 "EACCES
''"
		fi
	fi

	# --- a repository nested in the project (index version 4) --------------------------------

	gn=$gr/nest
	mkrepo "$gn" "printf 'o\n' >outer.txt && printf 'inner/\n' >.gitignore"
	hgit "$gn" add outer.txt .gitignore
	hgit "$gn" commit -qm outer
	mkrepo "$gn/inner" "printf 'SECRET=inner\n' >.env && printf 'i\n' >i.txt"
	hgit "$gn/inner" update-index --index-version 4
	hgit "$gn/inner" add .env i.txt
	hgit "$gn/inner" commit -qm inner

	if c git-nested; then
		if [ "$(head -c 8 "$gn/inner/.git/index" | od -An -tx1 | tr -d ' ')" != 4449524300000004 ]; then
			skip git-nested "git did not write a version 4 index here"
		elif explained git-nested "$gn" $'  deny\tinner/.env'"$tracked_note"; then
			as_user sh -c "printf 'more\n' >>'$gn/inner/i.txt'"
			jgit "$gn" -C inner commit -qam 'all, in the jail'
			am_rc=$RC
			jgit "$gn" -C inner commit -qm 'by name, in the jail' -- i.txt
			if [ "$am_rc" = 0 ] || [ "$RC" != 0 ]; then
				fail git-nested "git commit -am: exit status $am_rc (expected a refusal), by name: $RC"
			elif [ "$(hgit "$gn/inner" show HEAD:.env)" != SECRET=inner ] ||
				[ "$(hgit "$gn/inner" show HEAD:i.txt)" != $'i\nmore' ]; then
				fail git-nested "HEAD on the host: $(q "$(hgit "$gn/inner" show --stat HEAD)")"
			else
				pass git-nested
			fi
		fi
	fi

	# --- a worktree: its own index, found through the .git file ----------------------------

	gw=$gr/wt
	mkrepo "$gw/main" "printf 'SECRET=real\n' >.env && printf 'a\n' >a.txt"
	hgit "$gw/main" add .env a.txt
	hgit "$gw/main" commit -qm first
	hgit "$gw/main" worktree add -q ../tree
	hgit "$gw/main" worktree add -q ../untracked
	hgit "$gw/untracked" rm -q --cached .env

	if c git-worktree; then
		if ! head -c 8 "$gw/tree/.git" | grep -q '^gitdir: '; then
			skip git-worktree "git worktree add made no .git file"
		elif explained git-worktree "$gw/tree" $'  deny\t.env'"$tracked_note"; then
			# The same repository, but this worktree's index no longer
			# has .env: masked, and nothing said.
			CWD=$gw/untracked jrun user -- jail-python -c "$PYREAD" .env
			if [ "$RC" != 0 ] || [ "$OUT" != "''" ] || [ -n "$ERR" ]; then
				fail git-worktree "the worktree without .env in its index: exit status $RC, $(q "$OUT"), stderr $(q "$ERR")"
			else
				pass git-worktree
			fi
		fi
	fi

	# --- a .git the jail could have written -------------------------------------------------

	gh=$gr/hostile
	mkrepo "$gh" "printf 'SECRET=real\n' >.env && printf 'a\n' >a.txt"
	hgit "$gh" add .env a.txt
	hgit "$gh" commit -qm first

	if c git-hostile-index; then
		# Cut short, then a gitdir that leads to a FIFO: the jail starts,
		# nothing blocks, and the mask stays a mask.
		as_user sh -c "cp '$gh/.git/index' '$gh/index.good' && head -c 100 '$gh/index.good' >'$gh/.git/index'"
		CWD=$gh jrun user -- jail-python -c "$PYREAD" .env
		r1="$RC $OUT"
		as_user sh -c "mkdir -p '$gh/fifo' && mkfifo '$gh/fifo/index' && mv '$gh/.git' '$gh/git.real' && printf 'gitdir: fifo\n' >'$gh/.git'"
		CWD=$gh jrun user -- jail-python -c "$PYREAD" .env
		r2="$RC $OUT"
		as_user sh -c "rm '$gh/.git' && mv '$gh/git.real' '$gh/.git' && cp '$gh/index.good' '$gh/.git/index'"
		if [ "$r1" != "0 ''" ] || [ "$r2" != "0 ''" ]; then
			fail git-hostile-index "a cut index: $(q "$r1"); a FIFO: $(q "$r2")"
		else
			CWD=$gh jrun user -- jail-python -c "$PYREAD" .env
			expect git-hostile-index 0 EACCES
		fi
	fi
fi
