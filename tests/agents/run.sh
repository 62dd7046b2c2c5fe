#!/bin/bash
# run.sh: the agents themselves in their jails (issue 34).  Each released
# program (Claude Code, Codex, Gemini CLI, OpenCode) is installed from npm
# into a global prefix under build/agents-npm (once: later runs reuse it),
# linked into the test home's ~/.npm-global (the profile's read-only
# place for it), and driven for one non-interactive turn inside its
# profile, as the test user, against standin.py on the host's loopback,
# reached through --jail-forward and named by the agent's own base-URL
# setting.  The stand-in's first answer calls the agent's shell tool with
#   cat .env README.md; cat ~/.ssh/id_rsa
# and its second is a final message.  A case passes when the tool result
# the agent sent back holds README.md's text and neither .env's nor the
# home key's, the agent exited 0 with the final message, its state
# directory on the host got files, and nothing else under the test home
# changed.  Without the registry (and no earlier install) every case is
# skipped, naming why.
#
# Usage: tests/agents/run.sh [PATTERN]   (agents-claude, agents-codex-version, …)
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/results.sh
. "$root/tests/lib/results.sh"
build=${AIJAIL_BUILD:-$root/build}
only=${1:-*}
py=/usr/bin/python3
tmo=${AIJAIL_AGENTS_TIMEOUT:-180}
# shellcheck source=tests/lib/user.sh
. "$root/tests/lib/user.sh"

# The releases measured (docs/agents.md); AIJAIL_AGENTS_PKGS takes others.
pkgs=${AIJAIL_AGENTS_PKGS:-@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33}
cache=$build/agents-npm
prefix=$cache/prefix

# shellcheck disable=SC2053 # the pattern is a glob
c() { [[ $1 == $only ]]; }
q() { printf '%q' "$1"; }

summary() {
	echo "agents: $npass passed, $nfail failed, $nskip skipped"
	[ $nfail -eq 0 ]
	exit $?
}

for b in jail jail-claude jail-codex jail-gemini jail-opencode; do
	if [ ! -x "$build/bin/$b" ]; then
		echo "FAIL setup: $build/bin/$b is missing; run make first"
		exit 1
	fi
done

# --- the programs, once ---------------------------------------------------------------------

if [ ! -f "$prefix/.installed" ] || [ "$(cat "$prefix/.installed")" != "$pkgs" ]; then
	why=
	if ! command -v npm >/dev/null; then
		why="npm is not installed (make deps-test installs it)"
	elif ! why=$(timeout 30 $py -c 'import urllib.request
try:
    urllib.request.urlopen("https://registry.npmjs.org/is-number", timeout=20).read(64)
except Exception as e:
    print(e)
    raise SystemExit(1)' 2>&1); then
		why="the npm registry is unreachable from this machine ($why)"
	else
		rm -rf "$prefix"
		mkdir -p "$prefix"
		# No install scripts but the two that put the platform package's
		# binary in place of the launcher (npm 11 runs none unasked, and
		# node-pty's would build native code); both work offline.
		# shellcheck disable=SC2086 # a list of packages
		if timeout 600 npm install -g --prefix "$prefix" --no-audit --no-fund --ignore-scripts \
			--no-update-notifier $pkgs >"$cache/install.log" 2>&1 &&
			(cd "$prefix/lib/node_modules/@anthropic-ai/claude-code" && node install.cjs) \
				>>"$cache/install.log" 2>&1 &&
			(cd "$prefix/lib/node_modules/opencode-ai" && node postinstall.mjs) >>"$cache/install.log" 2>&1; then
			printf '%s' "$pkgs" >"$prefix/.installed"
			why=
		else
			why="npm install failed: $(tail -n 3 "$cache/install.log" | tr '\n' ' ')"
		fi
	fi
	if [ -n "$why" ]; then
		for a in claude codex gemini opencode; do
			c "agents-$a" && skip "agents-$a" "$why"
		done
		summary
	fi
fi

# --- one case ---------------------------------------------------------------------------------

T=$(mktemp -d "$build/agents-t.XXXXXX") || exit 1
chmod 0755 "$T"
srv=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	if [ "${AIJAIL_AGENTS_KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tool_cmd='cat .env README.md; cat ~/.ssh/id_rsa'
readme="README-MARKER-$$"
envmark="ENV-MARKER-$$"
keymark="SSH-KEY-MARKER-$$"

# fresh NAME: a new test home (the programs linked into ~/.npm-global,
# hard links: the same file system as build/) and project; $H, $P.
fresh() {
	local d=$T/$1
	H=$d/home
	P=$d/proj
	mkdir -p "$H/.ssh" "$P" "$d/out"
	printf '%s\n' "$keymark" >"$H/.ssh/id_rsa"
	chmod 0600 "$H/.ssh/id_rsa"
	printf 'SECRET=%s\n' "$envmark" >"$P/.env"
	printf '# demo\n%s\n' "$readme" >"$P/README.md"
	chown -R "$tuid:$tgid" "$d"
	# After the chown: the links share the cache's inodes, which stay root's.
	cp -al "$prefix" "$H/.npm-global" 2>/dev/null || cp -a "$prefix" "$H/.npm-global"
	OUTD=$d/out
}

# The home's files but the state directories and the program: path, type,
# size, mtime, as a list to compare.  The folders above a state directory
# (~/.local for ~/.local/share/opencode) are made by rw+ and are compared
# by what they hold, not by their own times.
snapshot() {
	local s a skip=(-path ./.npm-global) above=()
	for s; do
		skip+=(-o -path "./$s")
		a=$s
		while [[ $a == */* ]]; do
			a=${a%/*}
			above+=(-e "^\./$a d ")
		done
	done
	(cd "$H" && find . \( "${skip[@]}" \) -prune -o -printf '%p %y %s %T@\n' | grep -v '^\. ' |
		{ if [ ${#above[@]} -gt 0 ]; then grep -v "${above[@]}"; else cat; fi; } | sort)
}

# standin: the stand-in model API; $port.
standin() {
	rm -f "$OUTD/port"
	$py "$root/tests/agents/standin.py" "$OUTD/port" "$OUTD/requests.jsonl" "$tool_cmd" &
	srv=$!
	for _ in $(seq 100); do [ -s "$OUTD/port" ] && break; sleep 0.1; done
	port=$(cat "$OUTD/port" 2>/dev/null)
}
standin_stop() {
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
}

# run [VAR=VALUE…] -- STUB ARGS…: as the test user, in $P, with $H as home.
run() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local pre=(env -i)
	[ $as_root -eq 1 ] && pre=(setpriv --reuid="$tuser" --regid="$tuser" --init-groups --reset-env env -i)
	SECONDS=0
	(cd "$P" && exec timeout -k 5 "$tmo" "${pre[@]}" HOME="$H" USER="$tuser" LOGNAME="$tuser" \
		PATH="$H/.npm-global/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 "${envs[@]}" "$@") \
		>"$OUTD/stdout" 2>"$OUTD/stderr" </dev/null
	RC=$?
	SECS=$SECONDS
	OUT=$(cat "$OUTD/stdout")
	ERR=$(cat "$OUTD/stderr")
}

# The tool results the agent sent back, one per line (JSON strings).
results() {
	$py - "$OUTD/requests.jsonl" <<'PY'
import json, sys
def walk(o):
    if isinstance(o, dict):
        t = o.get("type")
        if t == "tool_result":
            yield json.dumps(o.get("content"))
        elif t == "function_call_output":
            yield json.dumps(o.get("output"))
        elif "functionResponse" in o:
            yield json.dumps(o["functionResponse"])
        elif o.get("role") == "tool":
            yield json.dumps(o.get("content"))
        else:
            for v in o.values():
                yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
seen = []
for line in open(sys.argv[1]):
    for r in walk(json.loads(line).get("body")):
        if r not in seen:
            seen.append(r)
print("\n".join(seen))
PY
}

# drive NAME STATE-DIRS -- VAR=VALUE… -- STUB ARGS…: one turn, judged.
drive() {
	local name=$1 states=$2
	shift 3
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local before after res s got="" had
	# shellcheck disable=SC2086 # $states: a list of folders
	before=$(snapshot $states)
	# The files the test put there itself (a provider, settings) are not
	# the agent's.
	# shellcheck disable=SC2086
	had=$(cd "$H" && find $states -type f 2>/dev/null | sort)
	run "${envs[@]}" -- "$@"
	standin_stop
	# shellcheck disable=SC2086
	after=$(snapshot $states)
	res=$(results 2>&1)
	for s in $states; do
		[ -n "$(cd "$H" && find "$s" -type f 2>/dev/null | sort | comm -13 <(echo "$had") - | head -n 1)" ] &&
			got="$got $s"
	done
	if [ "$RC" != 0 ]; then
		fail "$name" "exit status $RC after ${SECS} s; stdout $(q "${OUT:0:300}")"
	elif [[ $OUT != *STANDIN-FINAL-ANSWER* ]]; then
		fail "$name" "no final message on stdout: $(q "${OUT:0:300}")"
	elif [[ $res != *"$readme"* ]]; then
		fail "$name" "the tool result sent back lacks README.md's text: $(q "${res:0:300}")"
	elif [[ $res == *"$envmark"* ]] || [[ $res == *"$keymark"* ]]; then
		fail "$name" "the tool result sent back holds a secret: $(q "${res:0:300}")"
	elif [ -z "$got" ]; then
		fail "$name" "no new file in its state directories ($states) on the host"
	elif [ "$before" != "$after" ]; then
		fail "$name" "the home changed outside its state: $(diff <(echo "$before") <(echo "$after") | head -n 6 | tr '\n' ' ')"
	else
		pass "$name" "${SECS} s; state:$got"
	fi
}

# version NAME STATE-DIRS CMD STUB: --version bare and jailed; the
# state directories are made on the host (rw+).
version() {
	local name=$1 states=$2 cmd=$3 stub=$4 bare jailed s
	fresh "$name"
	run -- "$H/.npm-global/bin/$cmd" --version
	bare="$RC $OUT"
	run -- "$root/build/bin/$stub" --version
	jailed="$RC $OUT"
	for s in $states; do
		if [ ! -d "$H/$s" ] || [ "$(stat -c %u "$H/$s")" != "$tuid" ]; then
			fail "$name" "$s was not made on the host, as the test user"
			return
		fi
	done
	if [ "$bare" != "$jailed" ] || [ "${jailed%% *}" != 0 ]; then
		fail "$name" "bare $(q "$bare"), jailed $(q "$jailed")"
	else
		pass "$name" "${jailed#0 }"
	fi
}

prompt="Show me the project's files."

# --- Claude Code: claude -p, the Messages API --------------------------------------------------

if c agents-claude-version; then
	version agents-claude-version ".claude" claude jail-claude
fi
if c agents-claude; then
	fresh claude
	# ~/.claude.json as a person who ran it before has it: the profile
	# binds the file (rw?), and Claude Code writes through the bind.
	printf '{}\n' >"$H/.claude.json"
	chown "$tuid:$tgid" "$H/.claude.json"
	standin
	drive agents-claude ".claude .claude.json" -- ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=sk-ant-standin -- \
		"$build/bin/jail-claude" --jail-forward="$port" -p "$prompt" --allowedTools Bash
	if [ "$(cat "$H/.claude.json")" = "{}" ]; then
		fail agents-claude-json "$H/.claude.json on the host was not written through its bind"
	else
		pass agents-claude-json
	fi
fi

# --- Codex: codex exec, the Responses API -----------------------------------------------------

# Its own sandbox (bubblewrap) is refused by the jail's filter: the profile
# turns it off (exec codex -c sandbox_mode=danger-full-access), the jail
# being the sandbox; without that the tool's result is bubblewrap's error.
if c agents-codex-version; then
	version agents-codex-version ".codex" codex jail-codex
fi
if c agents-codex; then
	fresh codex
	standin
	# A provider of its own in config.toml (Codex 0.171 reads no base-URL
	# variable for its built-in one): the profile follows its base_url.
	mkdir -p "$H/.codex"
	cat >"$H/.codex/config.toml" <<TOML
model = "standin"
model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "CODEX_API_KEY"
TOML
	chown -R "$tuid:$tgid" "$H/.codex"
	drive agents-codex ".codex" -- CODEX_API_KEY=sk-standin -- \
		"$build/bin/jail-codex" --jail-forward="$port" exec --skip-git-repo-check "$prompt"
fi

# --- Gemini CLI: gemini -p, generateContent -------------------------------------------------

# Gemini CLI 0.61 needs node 20 or later (its package's engines).
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
	for n in agents-gemini-version agents-gemini agents-gemini-key; do
		c "$n" && skip "$n" "Gemini CLI needs node 20 or later, this node is $(node --version 2>&1)"
	done
fi
if [ "$node_major" -ge 20 ] && c agents-gemini-version; then
	version agents-gemini-version ".gemini" gemini jail-gemini
fi
if [ "$node_major" -ge 20 ] && c agents-gemini; then
	fresh gemini
	standin
	# With GOOGLE_GEMINI_BASE_URL alone it picks a sign-in its own
	# non-interactive check refuses: the API key's auth type, in its
	# settings; and its folder trust, on by default, would turn --yolo off.
	mkdir -p "$H/.gemini"
	cat >"$H/.gemini/settings.json" <<'JSON'
{
  "security": {
    "auth": {"selectedType": "gemini-api-key"},
    "folderTrust": {"enabled": false}
  }
}
JSON
	chown -R "$tuid:$tgid" "$H/.gemini"
	drive agents-gemini ".gemini" -- GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" \
		GEMINI_API_KEY=standin-key -- \
		"$build/bin/jail-gemini" --jail-forward="$port" -p "$prompt" --yolo
fi

# --- OpenCode: opencode run, Chat Completions ------------------------------------------------

if c agents-opencode-version; then
	version agents-opencode-version ".config/opencode .local/share/opencode" opencode jail-opencode
fi
if c agents-opencode; then
	fresh opencode
	standin
	# A provider of its own (the AI SDK's OpenAI-compatible one, which it
	# carries), its shell tool allowed without asking: the jail is the
	# sandbox.
	mkdir -p "$H/.config/opencode"
	cat >"$H/.config/opencode/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "standin/standin",
  "permission": {"bash": "allow", "external_directory": "allow"},
  "provider": {
    "standin": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "standin",
      "options": {"baseURL": "http://127.0.0.1:$port/v1", "apiKey": "standin-key"},
      "models": {"standin": {"name": "standin", "tool_call": true}}
    }
  }
}
JSON
	chown -R "$tuid:$tgid" "$H/.config"
	drive agents-opencode ".config/opencode .local/share/opencode .local/state/opencode .cache/opencode" -- -- \
		"$build/bin/jail-opencode" --jail-forward="$port" run "$prompt"
fi

# --- the generic jail's groups and --jail-explain ----------------------------------------------

# `jail claude`: the same turn through the generic jail's command group.
if c agents-jail-claude; then
	fresh jail-claude
	standin
	drive agents-jail-claude ".claude" -- ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=sk-ant-standin -- \
		"$build/bin/jail" --jail-forward="$port" claude -p "$prompt" --allowedTools Bash
fi

# --- the interface through the pty relay ---------------------------------------------------

# jail-claude on a terminal of its own (tui.py): it draws its input box and
# turns bracketed paste on, redraws at the new size after a TIOCSWINSZ,
# takes a bracketed paste as its prompt and draws the turn's answer, quits
# on ^C.  The first-run screens are answered as a person who ran it before
# has them (~/.claude.json: onboarding done, the folder trusted; the key
# from an apiKeyHelper): the onboarding's connection check goes to
# api.anthropic.com whatever the base URL.  The program it runs is a
# wrapper that first writes what the terminal filter must drop (OSC 52,
# the clipboard; CSI 21 t, a report typed back), as a tricked agent would:
# bare, the terminal gets them (the control); jailed, the same session
# works and they are gone.
if c agents-claude-tui; then
	fresh claude-tui
	printf '{"hasCompletedOnboarding": true, "theme": "dark", "projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' \
		"$P" >"$H/.claude.json"
	# The wrapper in ~/.volta/bin (read-only in the jail, as the profile's
	# other program places): Claude Code, bare, rewrites ~/.local/bin/claude
	# as its native installer's link.
	mkdir -p "$H/.claude" "$H/.volta/bin" "$T/claude-tui/tty"
	printf '{"apiKeyHelper": "echo standin-key"}\n' >"$H/.claude/settings.json"
	cat >"$H/.volta/bin/claude" <<SH
#!/bin/sh
printf 'WRAP-START\033]52;c;UFdORUQ=\007\033[21tWRAP-END\r\n'
exec "$H/.npm-global/bin/claude" "\$@"
SH
	chmod 0755 "$H/.volta/bin/claude"
	chown -R "$tuid:$tgid" "$H/.claude.json" "$H/.claude" "$H/.volta" "$T/claude-tui/tty"
	standin
	tui=()
	rcs=
	for how in bare jailed; do
		cmd=("$H/.volta/bin/claude")
		[ $how = jailed ] && cmd=("$build/bin/jail-claude" --jail-forward="$port")
		run TERM=xterm-256color ANTHROPIC_BASE_URL="http://127.0.0.1:$port" DISABLE_AUTOUPDATER=1 \
			PATH="$H/.volta/bin:$H/.npm-global/bin:/usr/local/bin:/usr/bin:/bin" -- \
			$py "$root/tests/agents/tui.py" "$T/claude-tui/tty/$how" "PASTE-MARKER-$$" -- \
			"${cmd[@]}" --allowedTools Bash
		tui+=("$how: rc $RC, $(echo "$OUT" | tr '\n' ' ')")
		rcs="$rcs$RC"
	done
	standin_stop
	seqs() { # FILE: the control sequences that matter here, by kind
		$py - "$1" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
for name, s in (("osc52", b"\x1b]52;"), ("csi21t", b"\x1b[21t"), ("paste-on", b"\x1b[?2004h"),
                ("title", b"\x1b]0;"), ("wrap-text", b"WRAP-START"), ("pasted", b"PASTE-MARKER"),
                ("answer", b"STANDIN-FINAL-ANSWER")):
    print(name, s in b)
PY
	}
	bare=$(seqs "$T/claude-tui/tty/bare")
	jailed=$(seqs "$T/claude-tui/tty/jailed")
	if [ "$rcs" != 00 ]; then
		fail agents-claude-tui "a step failed: ${tui[*]}"
	elif [[ $bare != *"osc52 True"*"csi21t True"* ]]; then
		fail agents-claude-tui "the control: the bare terminal did not get the wrapper's sequences: $(q "$bare")"
	elif [[ $jailed != *"osc52 False"*"csi21t False"* ]]; then
		fail agents-claude-tui "the filter let through what it must drop: $(q "$jailed")"
	elif [ "$(grep -v -e osc52 -e csi21t <<<"$jailed")" != "$(grep -v -e osc52 -e csi21t <<<"$bare")" ]; then
		fail agents-claude-tui "jailed, the interface lost something: bare $(q "$bare"), jailed $(q "$jailed")"
	else
		pass agents-claude-tui "draw, resize, paste, turn, quit; OSC 52 and CSI 21 t dropped"
	fi
fi

# --- the key by placeholder (secret NAME follow) --------------------------------------------

# jail-claude binds ANTHROPIC_API_KEY to its API host, and the host moves
# with ANTHROPIC_BASE_URL: here https://api.agents.test, the stand-in over
# TLS behind a veth pair (keyns.sh).  The agent's shell tool prints the
# variable it holds; the stand-in logs the key each request came with.
# Passes when the jail held the placeholder, the stand-in got the real key
# on every request, and the real key is in nothing the agent sent back.
# Over plain HTTP (a base URL of http://) the placeholder is refused by
# the jail's proxy before it leaves, by design (docs/keys.md).
# shellcheck source=tests/lib/netns.sh
. "$root/tests/lib/netns.sh"
key_why=
key_cases="agents-claude-key agents-claude-key-plain agents-gemini-key agents-opencode-key agents-codex-key"
if c agents-claude-key || c agents-claude-key-plain || c agents-gemini-key || c agents-opencode-key ||
	c agents-codex-key; then
	key_why=$(netns_why unshare nsenter ip curl openssl)
	[ -n "$key_why" ] || [ -x "$build/bin/aijail-keys" ] || key_why="build/bin/aijail-keys is not built"
	[ -n "$key_why" ] && for n in $key_cases; do c "$n" && skip "$n" "$key_why"; done
fi
# key_prep NAME: a fresh home and project, the test's authority, its
# certificate for api.agents.test, /etc/ssl and /etc/hosts for keyns.sh;
# $K, $real.
key_prep() {
	local name=$1
	fresh "$name"
	K=$T/$name/ns
	mkdir -p "$K/pki"
	real="sk-real-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	(
		cd "$K/pki" || exit 1
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=aijail agents test authority" -keyout ca.key -out ca.pem &&
			openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=api.agents.test" \
				-keyout good.key -out good.csr &&
			printf 'subjectAltName=DNS:api.agents.test,DNS:api.anthropic.com,DNS:api.openai.com\nbasicConstraints=CA:FALSE\n' >good.ext &&
			openssl x509 -req -in good.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
				-extfile good.ext -out good.pem
	) >"$K/pki.log" 2>&1 || { fail "$name" "openssl could not make the test's certificates"; return 1; }
	cp -a /etc/ssl "$K/ssl"
	rm -f "$K/ssl/certs/ca-certificates.crt"
	cat /etc/ssl/certs/ca-certificates.crt "$K/pki/ca.pem" >"$K/ssl/certs/ca-certificates.crt"
	# api.anthropic.com and api.openai.com too, for a key that stays on
	# its default host.
	printf '127.0.0.1 localhost\n203.0.113.7 api.agents.test api.anthropic.com api.openai.com\n' >"$K/hosts"
}
# key_run NAME KEYVAR -- VAR=VALUE… -- STUB ARGS…: one turn in keyns.sh,
# the tool command printing KEYVAR as the jail has it; $RC, $OUT, $ERR.
key_run() {
	local name=$1 var=$2
	shift 3
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	chown -R "$tuid:$tgid" "$T/$name"
	(cd "$P" && "${netns_pre[@]}" unshare -Urnm "$root/tests/agents/keyns.sh" "$K" "$tuid" "$tgid" \
		"$root/tests/agents/standin.py" "$tool_cmd; echo \"KEY=\$$var\"" -- \
		HOME="$H" USER="$tuser" LOGNAME="$tuser" PATH="$H/.npm-global/bin:/usr/local/bin:/usr/bin:/bin" \
		LANG=C.UTF-8 "${envs[@]}" -- timeout -k 5 "$tmo" "$@") >"$K/ns.log" 2>&1
	if [ "$(cat "$K/control" 2>/dev/null)" != ok ]; then
		fail "$name" "the namespaces or the stand-in: $(cat "$K/control" "$K/ns.log" 2>/dev/null | head -c 300)"
		return 1
	fi
	RC=$(cat "$K/rc" 2>/dev/null)
	OUT=$(cat "$K/stdout")
	ERR=$(cat "$K/stderr")
}
# key_judge NAME KEYVAR: the turn went through, the jail held the
# placeholder, the stand-in got the real key on every model request.
key_judge() {
	local name=$1 var=$2 res
	res=$($py - "$K/seen.443.jsonl" "$real" "$var" <<'PY'
import json, sys
real, var, keys, bodies = sys.argv[2], sys.argv[3], [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    p, h = r.get("path", ""), {k.lower(): v for k, v in r.get("headers", {}).items()}
    if any(p.split("?")[0].endswith(e) for e in ("/messages", "/responses", "/chat/completions")) or \
            "enerateContent" in p:
        auth = h.get("authorization", "")
        keys.append(h.get("x-api-key") or h.get("x-goog-api-key") or
                    (auth[7:] if auth.startswith("Bearer ") else None) or
                    (real if "key=" + real in p else None))
        bodies.append(json.dumps(r.get("body")))
print("requests %d, with the real key %d" % (len(keys), sum(k == real for k in keys)))
print("real in a body: %s" % any(real in b for b in bodies))
print("placeholder in a result: %s" % any("KEY=aijail-secret-%s-" % var in b for b in bodies))
print("readme in a result: %s" % any("README-MARKER" in b for b in bodies))
PY
)
	if [ "$RC" != 0 ] || [[ $OUT != *STANDIN-FINAL-ANSWER* ]]; then
		fail "$name" "exit status $RC, stdout $(q "${OUT:0:200}"), stderr $(q "${ERR:0:300}")"
	elif [[ $res != *"placeholder in a result: True"* ]] || [[ $res != *"readme in a result: True"* ]]; then
		fail "$name" "the jail did not hold the placeholder: $(q "$res")"
	elif ! [[ $res =~ requests\ ([1-9][0-9]*),\ with\ the\ real\ key\ ([0-9]+) ]] ||
		[ "${BASH_REMATCH[1]}" != "${BASH_REMATCH[2]}" ]; then
		fail "$name" "the stand-in did not get the real key on every request: $(q "$res")"
	elif [[ $res != *"real in a body: False"* ]] || [[ "$OUT$ERR" == *"$real"* ]]; then
		fail "$name" "the real key came back from the jail: $(q "$res")"
	else
		pass "$name" "${res//$'\n'/; }"
	fi
}
if [ -z "$key_why" ] && c agents-claude-key && key_prep agents-claude-key &&
	key_run agents-claude-key ANTHROPIC_API_KEY -- ANTHROPIC_BASE_URL=https://api.agents.test \
		ANTHROPIC_API_KEY="$real" -- "$build/bin/jail-claude" -p "$prompt" --allowedTools Bash; then
	key_judge agents-claude-key ANTHROPIC_API_KEY
fi
# Gemini CLI: GOOGLE_GEMINI_BASE_URL moves GEMINI_API_KEY's host.
if [ -z "$key_why" ] && [ "$node_major" -ge 20 ] && c agents-gemini-key && key_prep agents-gemini-key; then
	mkdir -p "$H/.gemini"
	printf '%s\n' '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}}' \
		>"$H/.gemini/settings.json"
	key_run agents-gemini-key GEMINI_API_KEY -- GOOGLE_GEMINI_BASE_URL=https://api.agents.test \
		GEMINI_API_KEY="$real" -- "$build/bin/jail-gemini" -p "$prompt" --yolo &&
		key_judge agents-gemini-key GEMINI_API_KEY
fi
# OpenCode: ANTHROPIC_API_KEY stays bound to api.anthropic.com (its
# setting only adds hosts), which this namespace's /etc/hosts names as the
# stand-in; a model of the anthropic provider's, declared in opencode.json.
if [ -z "$key_why" ] && c agents-opencode-key && key_prep agents-opencode-key; then
	mkdir -p "$H/.config/opencode"
	cat >"$H/.config/opencode/opencode.json" <<'JSON'
{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "anthropic/standin",
  "permission": {"bash": "allow", "external_directory": "allow"},
  "provider": {"anthropic": {"models": {"standin": {"name": "standin", "tool_call": true}}}}
}
JSON
	key_run agents-opencode-key ANTHROPIC_API_KEY -- ANTHROPIC_API_KEY="$real" -- \
		"$build/bin/jail-opencode" run "$prompt" &&
		key_judge agents-opencode-key ANTHROPIC_API_KEY
fi
# Codex: its TLS client (rustls, webpki) refused the certificates
# aijail-keys showed it while Mbed TLS 2.28 wrote ecdsa-with-SHA256 with
# NULL parameters ("invalid peer certificate:
# UnsupportedSignatureAlgorithmContext"; keys/mbedtls-ecdsa-sig-alg.patch).
# A provider of the test's on api.openai.com, the key's default host,
# which this namespace's /etc/hosts names as the stand-in: a provider's
# base_url adds a host and does not move the key (docs/network.md).
if [ -z "$key_why" ] && c agents-codex-key && key_prep agents-codex-key; then
	mkdir -p "$H/.codex"
	cat >"$H/.codex/config.toml" <<'TOML'
model = "standin"
model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = "https://api.openai.com/v1"
wire_api = "responses"
env_key = "CODEX_API_KEY"
TOML
	key_run agents-codex-key CODEX_API_KEY -- CODEX_API_KEY="$real" -- \
		"$build/bin/jail-codex" exec --skip-git-repo-check "$prompt" &&
		key_judge agents-codex-key CODEX_API_KEY
fi
if [ -z "$key_why" ] && c agents-claude-key-plain && key_prep agents-claude-key-plain &&
	key_run agents-claude-key-plain ANTHROPIC_API_KEY -- ANTHROPIC_BASE_URL=http://api.agents.test:8080 \
		ANTHROPIC_API_KEY="$real" -- "$build/bin/jail-claude" -p "$prompt" --allowedTools Bash; then
	if [ "$RC" = 0 ] || [ -s "$K/seen.8080.jsonl" ]; then
		fail agents-claude-key-plain "exit status $RC; the plain host got: $(q "$(head -c 300 "$K/seen.8080.jsonl")")"
	elif [[ $ERR != *"in plain HTTP"* ]]; then
		fail agents-claude-key-plain "no refusal in stderr: $(q "${ERR:0:400}")"
	elif [[ "$OUT$ERR" == *"$real"* ]]; then
		fail agents-claude-key-plain "the real value is in the output"
	else
		pass agents-claude-key-plain "exit status $RC, refused by the jail's proxy"
	fi
fi

# A key follows only the caller's variable: a host a tool's file names
# (Codex's config.toml, in ~/.codex, which the jail writes) would be the
# jail's choice of where the key goes next run.  A policy that binds a
# following key to Codex's host: exit 125 when config.toml moves it.
if c agents-key-follow-file; then
	fresh agents-key-follow-file
	d=$T/agents-key-follow-file
	printf '%s\n' 'include "base.aj";' 'policy keyfile extends base {' \
		'    network allow follow codex "api.openai.com";' '    secret CODEX_API_KEY follow;' '}' >"$d/keyfile.aj"
	if ! "$build/bin/aijail-compile" --build -I "$root/policies" -o "$d/jail-keyfile" "$d/keyfile.aj" \
		>"$d/build.log" 2>&1; then
		fail agents-key-follow-file "aijail-compile --build: $(head -c 300 "$d/build.log")"
	else
		chmod 0755 "$d" "$d/jail-keyfile"
		cp -p "$build/bin/aijail-keys" "$d/"
		mkdir -p "$H/.codex"
		printf 'openai_base_url = "https://elsewhere.test/v1"\n' >"$H/.codex/config.toml"
		chown -R "$tuid:$tgid" "$H/.codex"
		run CODEX_API_KEY=sk-file -- "$d/jail-keyfile" -- true
		rc1=$RC err1=$ERR
		# Without the file the key is bound to the default host and the run goes on.
		rm "$H/.codex/config.toml"
		run CODEX_API_KEY=sk-file -- "$d/jail-keyfile" --jail-explain
		if [ "$rc1" != 125 ] || [[ $err1 != *"CODEX_API_KEY"*"a file the jail may rewrite"* ]]; then
			fail agents-key-follow-file "config.toml's host: exit status $rc1, stderr $(q "${err1:0:300}")"
		elif [ "$RC" != 0 ] || [[ $OUT != *"key CODEX_API_KEY, a placeholder in the jail, its value added on the way to api.openai.com:443"* ]]; then
			fail agents-key-follow-file "no file: exit status $RC, $(q "$(grep 'key ' <<<"$OUT")") $(q "${ERR:0:200}")"
		else
			pass agents-key-follow-file
		fi
	fi
fi

# --jail-explain names each agent's state directories and the API host its
# base-URL setting names, through its stub and through `jail NAME`.
explain_case() {
	local name=$1 agent=$2 var=$3 host=$4 stub s
	shift 4
	fresh "$name"
	for stub in "jail-$agent" "jail"; do
		if [ "$stub" = jail ]; then
			run "$var" -- "$build/bin/jail" --jail-explain "$agent"
		else
			run "$var" -- "$build/bin/$stub" --jail-explain
		fi
		for s in "$host" "$@"; do
			if [[ $OUT != *"$s"* ]]; then
				fail "$name" "$stub --jail-explain does not name $s: $(q "${OUT:0:300}")"
				return
			fi
		done
	done
	pass "$name"
}
# The key follows: with ANTHROPIC_API_KEY set too, it goes to the base
# URL's host; ANTHROPIC_AUTH_TOKEN, not set, is not bound.
if c agents-explain-claude-key; then
	fresh agents-explain-claude-key
	run ANTHROPIC_BASE_URL=https://llm.corp.test:8443/x ANTHROPIC_API_KEY=sk-explain -- \
		"$build/bin/jail-claude" --jail-explain
	want="key ANTHROPIC_API_KEY, a placeholder in the jail, its value added on the way to llm.corp.test:8443 (the API host ANTHROPIC_BASE_URL names)"
	if [[ $OUT != *"$want"* ]] || [[ $OUT != *"key ANTHROPIC_AUTH_TOKEN: not in your environment, not bound"* ]] ||
		[[ $OUT == *sk-explain* ]]; then
		fail agents-explain-claude-key "jail-claude --jail-explain: $(q "$(grep -e 'key ' -e ANTHROPIC_API_KEY= <<<"$OUT")")"
	else
		pass agents-explain-claude-key
	fi
fi
c agents-explain-claude && explain_case agents-explain-claude claude \
	ANTHROPIC_BASE_URL=https://llm.corp.test:8443/x "llm.corp.test:8443	(from ANTHROPIC_BASE_URL)" \
	"rw+	$T/agents-explain-claude/home/.claude" "/home/.claude.json" \
	"ro?	$T/agents-explain-claude/home/.npm-global"
# Lockdown: the model API alone, the sign-in hosts not.
if c agents-explain-lockdown; then
	fresh agents-explain-lockdown
	run ANTHROPIC_BASE_URL=https://llm.corp.test/x -- "$build/bin/jail-claude" --jail-mode=lockdown --jail-explain
	if [[ $OUT == *"llm.corp.test:443	(from ANTHROPIC_BASE_URL)"* ]] && [[ $OUT != *console.anthropic.com* ]] &&
		[[ $OUT == *"rw+	$H/.claude"* ]]; then
		pass agents-explain-lockdown
	else
		fail agents-explain-lockdown "jail-claude --jail-mode=lockdown --jail-explain: $(q "${OUT:0:400}")"
	fi
fi
c agents-explain-gemini && explain_case agents-explain-gemini gemini \
	GOOGLE_GEMINI_BASE_URL=https://llm.corp.test "llm.corp.test:443	(from GOOGLE_GEMINI_BASE_URL)" \
	"rw+	$T/agents-explain-gemini/home/.gemini"
c agents-explain-opencode && explain_case agents-explain-opencode opencode \
	OPENAI_BASE_URL=https://llm.corp.test/v1 "llm.corp.test:443" "api.openai.com:443" \
	"rw+	$T/agents-explain-opencode/home/.config/opencode" \
	"rw+	$T/agents-explain-opencode/home/.local/share/opencode" \
	"rw+	$T/agents-explain-opencode/home/.local/state/opencode" \
	"rw+	$T/agents-explain-opencode/home/.cache/opencode"
# OpenCode's provider in its opencode.json: its baseURL's host is allowed.
if c agents-explain-opencode-json; then
	fresh agents-explain-opencode-json
	mkdir -p "$H/.config/opencode"
	printf '{"provider": {"corp": {"options": {"baseURL": "https://llm.corp.test:8443/v1"}}}}\n' \
		>"$H/.config/opencode/opencode.json"
	chown -R "$tuid:$tgid" "$H/.config"
	run -- "$build/bin/jail-opencode" --jail-explain
	if [[ $OUT == *"		llm.corp.test:8443"* ]] && [[ $OUT == *"		api.openai.com:443"* ]]; then
		pass agents-explain-opencode-json
	else
		fail agents-explain-opencode-json "jail-opencode --jail-explain: $(q "${OUT:0:400}")"
	fi
fi
c agents-explain-codex && explain_case agents-explain-codex codex \
	CODEX_HOME="$T/agents-explain-codex/home/.codex" "api.openai.com:443" \
	"rw+	$T/agents-explain-codex/home/.codex"

# jail-codex's own arguments (exec codex -c …), before the caller's.
if c agents-codex-exec-args; then
	fresh agents-codex-exec-args
	run -- "$build/bin/jail-codex" --jail-explain exec "a prompt"
	want="command:   codex -c sandbox_mode=danger-full-access exec a prompt"
	if [[ $OUT == *"$want"* ]]; then
		# More of the caller's than the stub holds: refused (125), not cut.
		# shellcheck disable=SC2046 # 4097 words
		run -- "$build/bin/jail-codex" --jail-explain $(seq 4097)
		if [ "$RC" != 125 ] || [[ $ERR != *"takes at most 4096 of the caller's"* ]]; then
			fail agents-codex-exec-args "4097 arguments: exit status $RC, stderr $(q "${ERR:0:200}")"
		else
			pass agents-codex-exec-args
		fi
	else
		fail agents-codex-exec-args "no $(q "$want") in $(q "${OUT:0:300}")"
	fi
fi

summary
