# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# explain.sh: --jail-explain=json (docs/explain.md), sourced by run.sh.
# Each case runs the JSON form and the text form of the same run, parses
# the JSON, and holds it against the text: the same mounts in the same
# order, the same masks and denies, the same mode and network.  No value
# of a variable reaches the JSON; a jail that cannot be built here says
# so and exits 125, as the run itself then does.

# explain_pair WHO CASE [VAR=VALUE…] -- STUB ARGS…: the text form to
# $T/out/CASE.txt and the JSON form to $T/out/CASE.json; TRC and JRC their
# exit statuses.
explain_pair() {
	local who=$1 name=$2 envs=() stub args=()
	shift 2
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	stub=$1
	shift
	args=("$@")
	jrun "$who" "${envs[@]}" -- "$stub" --jail-explain "${args[@]}"
	TRC=$RC
	printf '%s\n' "$OUT" >"$T/out/$name.txt"
	jrun "$who" "${envs[@]}" -- "$stub" --jail-explain=json "${args[@]}"
	JRC=$RC
	printf '%s\n' "$OUT" >"$T/out/$name.json"
}

# The JSON against the text, and the keys docs/explain.md promises; prints
# what differs, nothing when all agrees.
cat >"$T/explain_check.py" <<'EOF'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().splitlines()
d = json.load(open(sys.argv[2], encoding="utf-8"))
bad = []
keys = ("schema policy stub identity command mode project hostname network terminal namespaces "
        "landlock toggles timeout mounts scan fence landlock_rules env rlimits limits "
        "seccomp buildable").split()
bad += ["missing key " + k for k in keys if k not in d]
def section(start, stop):
    out, on = [], False
    for l in text:
        if on and (l.startswith(stop) or not l.startswith("  ")):
            break
        if on:
            out.append(l)
        on = on or l.startswith(start)
    return out
def value(name):
    for l in text:
        if l.startswith(name + ":"):
            return l[len(name) + 1:].lstrip(" ")
    return None
# the mounts, in order
tm = [l.split("\t")[:2] for l in section("mounts, in order:", "patterns:")]
jm = []
for m in d["mounts"]:
    fl = ("+" if "create" in m["flags"] else "") + ("?" if "optional" in m["flags"] or "as_host" in m["flags"] else "")
    path = m["path"] if m["path"] is not None else "$" + m["var"]
    if m["op"] == "link":
        path += " -> " + m["target"]
    jm.append(["  " + m["op"] + fl, path])
if tm != jm:
    bad.append("mounts differ: text %r, json %r" % (tm, jm))
for m in d["mounts"]:
    if m["state"] not in ("mounted", "skipped", "refused", "missing", "created"):
        bad.append("mount state %r" % m["state"])
# the masks and denies found
tf = [l.split("\t")[:2] for l in section("masked and denied in", "pruned") if l != "  (nothing)"]
jf = [["  " + h["kind"], h["path"] + ("/" if h["dir"] else "")] for h in d["scan"]["found"]]
if tf != jf:
    bad.append("masks differ: text %r, json %r" % (tf, jf))
# the mode and the network
mode = d["mode"]["name"] + " (" + d["mode"]["why"] + (" " + d["mode"]["by"] if d["mode"]["by"] else "") + ")"
if value("mode") != mode:
    bad.append("mode: text %r, json %r" % (value("mode"), mode))
n = d["network"]
net = (n["level"] + ", " + n["meaning"]) if n["meaning"].startswith("here ") else n["level"] + " (" + n["meaning"] + ")"
if n["option"]:
    net += " (" + n["option"] + ")"
if value("network") != net:
    bad.append("network: text %r, json %r" % (value("network"), net))
if value("policy") != d["policy"] + " (" + d["stub"] + ")":
    bad.append("policy: text %r" % value("policy"))
# every toggle, on or off as the text says
for t, v in d["toggles"].items():
    if not (value(t) or "").startswith("on" if v["on"] else "off"):
        bad.append("toggle %s: text %r, json on=%r" % (t, value(t), v["on"]))
# the same buildable verdict
b = value("buildable")
if (b == "yes") != d["buildable"]["ok"]:
    bad.append("buildable: text %r, json %r" % (b, d["buildable"]))
# names only: every entry of env is a variable's name or a keep/drop pattern
for k in ("keep", "drop", "set", "passed"):
    for name in d["env"][k]:
        if not re.fullmatch(r"[A-Za-z_*][A-Za-z0-9_*?\[\]-]*", name):
            bad.append("env %s entry %r is not a name" % (k, name))
# stable keys: every element carries the keys docs/explain.md lists
need = {"mounts": set("op flags toggle var path option state why".split()),
        "found": set("kind path dir why git_tracked git_note covered".split()),
        "landlock_rules": set("path var optional rights skipped".split())}
for name, arr in (("mounts", d["mounts"]), ("found", d["scan"]["found"]),
                  ("landlock_rules", d["landlock_rules"])):
    for x in arr:
        if not need[name] <= set(x):
            bad.append("%s entry without %s" % (name, sorted(need[name] - set(x))))
for k in ("memory", "processes"):
    if set(d["limits"][k]) != set("value percent total enforced_by cgroup cgroup_file cgroup_version why".split()):
        bad.append("limits.%s keys %s" % (k, sorted(d["limits"][k])))
print("\n".join(bad))
EOF

explain_check() { # CASE: fails or passes the case on explain_check.py
	local name=$1 got
	ERR=
	if ! "$py" -m json.tool "$T/out/$name.json" >/dev/null 2>"$T/out/json.err"; then
		ERR=$(cat "$T/out/json.err")
		fail "$name" "python3 -m json.tool refuses the JSON: $(q "$(head -c 200 "$T/out/$name.json")")"
		return 1
	fi
	got=$("$py" "$T/explain_check.py" "$T/out/$name.txt" "$T/out/$name.json" 2>&1)
	if [ -n "$got" ]; then
		fail "$name" "$(printf '%s' "$got" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	return 0
}

for spec in \
	"explain-json-python:user:jail-python" \
	"explain-json-jail:user:jail true" \
	"explain-json-jail-python3:user:jail python3" \
	"explain-json-worker:user:jail-worker true" \
	"explain-json-lockdown:user:jail --lockdown true" \
	"explain-json-worker-lockdown:user:jail-worker --jail-mode=lockdown true" \
	"explain-json-python-root:root:jail-python" \
	"explain-json-worker-root:root:jail-worker true"; do
	name=${spec%%:*}
	rest=${spec#*:}
	who=${rest%%:*}
	cmd=${rest#*:}
	c "$name" || continue
	if [ "$who" = root ] && [ "$as_root" -eq 0 ]; then
		skip "$name" "not running as root"
		continue
	fi
	# shellcheck disable=SC2086 # cmd is words
	explain_pair "$who" "$name" -- $cmd
	if [ "$TRC" != 0 ] || [ "$JRC" != 0 ]; then
		fail "$name" "exit statuses $TRC (text) and $JRC (json), expected 0"
	elif explain_check "$name"; then
		pass "$name"
	fi
done

# The masks the project has, found and named with their reason.
if c explain-json-masks; then
	jrun user -- jail-python --jail-explain=json
	got=$(printf '%s' "$OUT" | "$py" -c 'import json, sys
d = json.load(sys.stdin)
f = {(h["kind"], h["path"], h["why"]) for h in d["scan"]["found"]}
print(("mask", ".env", "name") in f, ("deny", "secrets", "name") in f,
      ("mask", "hl.txt", "hardlink") in f, d["buildable"]["ok"])' 2>&1)
	if [ "$RC" = 0 ] && [ "$got" = "True True True True" ]; then pass explain-json-masks; else
		fail explain-json-masks "exit status $RC, $(q "$got") (.env masked, secrets/ denied, hl.txt a hard link, buildable)"
	fi
fi

# No value of any variable the stub was given is in the JSON: not of the
# dropped ones (STRIPE_SECRET_KEY, which jrun passes, a *_TOKEN and
# DOCKER_HOST), nor of the ones passed (TERM, LANG, HF_HOME).  The text
# form shows the passed ones: the control that the markers arrived.
if c explain-json-no-values; then
	mk=AJVAL$$
	vars=("TERM=$mk-term" "LANG=$mk-lang" "HF_HOME=$mk-hf" "GITHUB_TOKEN=$mk-tok"
		"DOCKER_HOST=$mk-dock" "PYTHONPATH=$mk-pp")
	for stub in jail-python "jail-worker true"; do
		# shellcheck disable=SC2086
		explain_pair user explain-json-no-values "${vars[@]}" -- $stub
		leak=
		for v in "${vars[@]}" STRIPE_SECRET_KEY=sk_live_x PATH=/usr/local/bin:/usr/bin:/bin; do
			grep -qF -- "${v#*=}" "$T/out/explain-json-no-values.json" && leak="$leak ${v%%=*}"
		done
		ctl=$(grep -c -- "=$mk-" "$T/out/explain-json-no-values.txt")
		grep -qF sk_live_x "$T/out/explain-json-no-values.txt" && leak="$leak STRIPE_SECRET_KEY(text)"
		if [ -n "$leak" ] || [ "$ctl" -lt 2 ] || [ "$JRC" != 0 ]; then break; fi
	done
	ERR= # fail() shows it: nothing of the last run's stderr is relevant
	if [ -n "$leak" ]; then
		fail explain-json-no-values "$stub: values in the JSON of:$leak"
	elif [ "$JRC" != 0 ]; then
		fail explain-json-no-values "$stub: exit status $JRC"
	elif [ "$ctl" -lt 2 ]; then
		fail explain-json-no-values "$stub: the text form shows $ctl of the marker values: the control failed"
	else
		pass explain-json-no-values
	fi
fi

# A home whose ~/.cache/huggingface (a mount jail-python requires, made
# when missing) is a symlink to /etc: the jail refuses to bind through a
# link a jailed process could have made, so it cannot be built.  Both
# forms say so and exit 125, and so does the run itself.
# --jail-net-max=public lowers a group of 'host' (the browser's) and
# never raises one of 'none' (aijail-mcp passes it to every run).
if c explain-net-max; then
	jrun user -- jail-browser --jail-net-max=public --jail-explain
	br=$(printf '%s\n' "$OUT" | grep '^network:')
	jrun user -- jail --jail-net-max=public --jail-explain true
	gen=$(printf '%s\n' "$OUT" | grep '^network:')
	if [[ $br == "network:   public "* ]] && [[ $gen == "network:   none "* ]]; then
		pass explain-net-max
	else
		fail explain-net-max "jail-browser: $(q "$br"); jail true: $(q "$gen")"
	fi
fi

if c explain-json-unbuildable; then
	xh=$T/explain-home
	mkdir -p "$xh/.cache"
	ln -sfn /etc "$xh/.cache/huggingface"
	chown -R -h "$tuid:$tgid" "$xh"
	explain_pair user explain-json-unbuildable HOME="$xh" -- jail-python
	got=$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d["buildable"]["reasons"]
m = [m["state"] for m in d["mounts"] if m["path"] == sys.argv[2]]
print(d["buildable"]["ok"], [x["layer"] for x in r] == ["mount"] and r[0]["path"] == sys.argv[2], m)' \
		"$T/out/explain-json-unbuildable.json" "$xh/.cache/huggingface" 2>&1)
	jrun user HOME="$xh" -- jail-python -c 'print("ran")'
	if [ "$JRC" != 125 ] || [ "$TRC" != 125 ]; then
		fail explain-json-unbuildable "exit statuses $TRC (text) and $JRC (json), expected 125"
	elif [ "$got" != "False True ['refused']" ]; then
		fail explain-json-unbuildable "buildable, reasons, state: $(q "$got")"
	elif ! grep -q '^buildable: no: mount: ' "$T/out/explain-json-unbuildable.txt"; then
		fail explain-json-unbuildable "the text form has no 'buildable: no: mount:' line"
	elif [ "$RC" != 125 ] || [ "$OUT" = ran ]; then
		fail explain-json-unbuildable "the run itself exited $RC, $(q "$OUT"): explain did not predict it"
	elif explain_check explain-json-unbuildable; then
		pass explain-json-unbuildable
	fi
	rm -rf "$xh"
fi

# git.sh's repository: .env tracked (a deny, git_tracked), .env.local
# ignored (a mask, not tracked).
if c explain-json-git; then
	if [ ! -d "${gt:-}/.git" ]; then
		skip explain-json-git "no repository from git.sh (git missing, or its cases not selected)"
	else
		CWD=$gt explain_pair user explain-json-git -- jail-worker true
		got=$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = {h["path"]: (h["kind"], h["git_tracked"]) for h in d["scan"]["found"]}
print(f.get(".env"), f.get(".env.local"))' "$T/out/explain-json-git.json" 2>&1)
		if [ "$JRC" != 0 ]; then
			fail explain-json-git "exit status $JRC"
		elif [ "$got" != "('deny', True) ('mask', False)" ]; then
			fail explain-json-git ".env, .env.local: $(q "$got")"
		elif explain_check explain-json-git; then
			pass explain-json-git
		fi
	fi
fi

# Inside a jail, no jail nests: the namespaces cannot be made there.
if c explain-json-nested; then
	jrun user -- jail-worker ./tools/jail-worker --jail-explain=json true
	got=$(printf '%s' "$OUT" | "$py" -c 'import json, sys
d = json.load(sys.stdin)
print(d["buildable"]["ok"], d["namespaces"]["available"], d["mode"]["inside"])' 2>&1)
	if [ "$RC" = 125 ] && [ "$got" = "False False worker" ]; then pass explain-json-nested; else
		fail explain-json-nested "exit status $RC, $(q "$got"), expected 125 and 'False False worker'"
	fi
fi

# A project whose name is not UTF-8 and holds a control character and a
# quote: still valid JSON.  A well-formed sequence (é) passes through; each
# byte of an ill-formed one (a lone 0xff, an overlong 0xc0 0x80, a UTF-16
# surrogate 0xed 0xa0 0x80) is \u00XX.
if c explain-json-escape; then
	xp=$T/$'esc\xff\x01"q\xc3\xa9\xc0\x80\xed\xa0\x80'
	mkdir -p "$xp"
	chown "$tuid:$tgid" "$xp"
	CWD=$xp jrun user -- jail-worker --jail-explain=json true
	got=$(printf '%s' "$OUT" | "$py" -c 'import json, sys
raw = sys.stdin.buffer.read()
d = json.loads(raw.decode("utf-8", "strict"))
print(d["project"].endswith("esc\u00ff\u0001\"q\u00e9\u00c0\u0080\u00ed\u00a0\u0080"),
      b"\\u00ff" in raw and b"\\u0001" in raw and b"\\u00ed\\u00a0\\u0080" in raw,
      "\u00e9".encode() in raw)' 2>&1)
	if [ "$RC" = 0 ] && [ "$got" = "True True True" ]; then pass explain-json-escape; else
		fail explain-json-escape "exit status $RC, $(q "$got")"
	fi
	rmdir "$xp"
fi
