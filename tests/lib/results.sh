# results.sh: the counters and verdict lines of the shell suites (sourced).
# pass NAME [DETAIL], fail NAME WHY (the last command's stderr, $ERR, follows
# indented), skip NAME WHY; npass, nfail, nskip and failed[] for the summary
# each suite prints itself.
npass=0
nfail=0
nskip=0
failed=()

pass() {
	npass=$((npass + 1))
	echo "PASS $1${2:+ ($2)}"
}

fail() {
	nfail=$((nfail + 1))
	failed+=("$1")
	echo "FAIL $1: $2"
	if [ -n "${ERR:-}" ]; then
		printf '%s\n' "$ERR" | head -n 8 | sed 's/^/    stderr: /'
	fi
}

skip() {
	nskip=$((nskip + 1))
	echo "SKIP $1: $2"
}
