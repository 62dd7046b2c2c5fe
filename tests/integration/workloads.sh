# shellcheck shell=bash disable=SC2154 # sourced by run.sh, which sets the variables
# workloads.sh: the real tools in their profiles, as the test user, in a
# project of their own ($T/wl): python with the Hugging Face cache, venv
# and pip with a wheel built here, npm twice (the second time from
# ~/.npm), pnpm through npx, cargo offline, git, uv when installed.
# Sourced by run.sh (its helpers, fixture and counters); not run alone.
#
# The npm cases need the registry: when it cannot be reached they are
# skipped, and the summary says why.

wl=$T/wl
mkdir -p "$wl"
chown "$tuid:$tgid" "$wl"

# wl_run [VAR=VALUE…] -- COMMAND ARGS…: jrun as the user, in $WLDIR (default $wl).
wl_run() {
	CWD=${WLDIR:-$wl} jrun user "$@"
}

# --- python: the project and the Hugging Face cache ------------------------------------

if c wl-python-hf; then
	as_user mkdir -p "$thome/.cache/huggingface/hub/aijail-it"
	as_user sh -c "printf '{\"model_type\": \"aijail-it\"}' >'$thome/.cache/huggingface/hub/aijail-it/config.json'"
	cat >"$wl/job.py" <<'EOF'
import json, os
cfg = os.path.expanduser("~/.cache/huggingface/hub/aijail-it/config.json")
with open(cfg) as f:
    model = json.load(f)["model_type"]
os.makedirs("results", exist_ok=True)
with open("results/out.txt", "w") as f:
    f.write("model " + model + "\n")
print("wrote results/out.txt")
EOF
	chown "$tuid:$tgid" "$wl/job.py"
	wl_run -- jail-python job.py
	got=$(cat "$wl/results/out.txt" 2>/dev/null)
	if [ "$RC" != 0 ] || [ "$OUT" != "wrote results/out.txt" ]; then
		fail wl-python-hf "exit status $RC, stdout $(q "$OUT")"
	elif [ "$got" != "model aijail-it" ] || [ "$(stat -c %u "$wl/results/out.txt")" != "$tuid" ]; then
		fail wl-python-hf "results/out.txt on the host: $(q "$got"), owner $(stat -c %u "$wl/results/out.txt" 2>/dev/null)"
	else
		pass wl-python-hf
	fi
	rm -rf "$thome/.cache/huggingface/hub/aijail-it"
fi

# --- venv, a wheel built here, pip install --no-index ---------------------------------------

# A wheel by hand (zipfile), for hosts without setuptools and wheel.
MKWHEEL='import base64, hashlib, os, sys, zipfile
name, ver = "ajdemo", "0.1.0"
info = name + "-" + ver + ".dist-info"
files = {
    name + "/__init__.py": open("pkg/ajdemo/__init__.py").read(),
    info + "/METADATA": "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + ver + "\n",
    info + "/WHEEL": "Wheel-Version: 1.0\nGenerator: aijail-it\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
for p, text in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (p, d, len(text.encode()))
files[info + "/RECORD"] = record + info + "/RECORD,,\n"
os.makedirs("dist", exist_ok=True)
with zipfile.ZipFile("dist/%s-%s-py3-none-any.whl" % (name, ver), "w") as z:
    for p, text in files.items():
        z.writestr(p, text)
print("built by hand")'

if c wl-venv || c wl-wheel || c wl-pip-install; then
	mkdir -p "$wl/pkg/ajdemo"
	printf 'GREETING = "hello from ajdemo"\n' >"$wl/pkg/ajdemo/__init__.py"
	cat >"$wl/pkg/pyproject.toml" <<'EOF'
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "ajdemo"
version = "0.1.0"
EOF
	chown -R "$tuid:$tgid" "$wl/pkg"

	wl_run -- jail-python -m venv .venv
	if [ "$RC" = 0 ] && [ -x "$wl/.venv/bin/python" ] && [ -x "$wl/.venv/bin/pip" ]; then
		c wl-venv && pass wl-venv
	else
		c wl-venv && fail wl-venv "exit status $RC; no .venv/bin/python and pip"
	fi

	whl=$wl/dist/ajdemo-0.1.0-py3-none-any.whl
	if $py -c 'import setuptools, wheel' 2>/dev/null && $py -m pip --version >/dev/null 2>&1; then
		how="pip wheel"
		wl_run -- jail-python -m pip wheel --no-index --no-build-isolation --no-deps -w dist ./pkg
	else
		how="zipfile (no setuptools or wheel here)"
		wl_run -- jail-python -c "$MKWHEEL"
	fi
	if [ "$RC" = 0 ] && [ -f "$whl" ]; then
		c wl-wheel && pass "wl-wheel ($how)"
	else
		c wl-wheel && fail wl-wheel "$how: exit status $RC, no $whl"
	fi

	if c wl-pip-install; then
		wl_run PATH="$wl/.venv/bin:/usr/local/bin:/usr/bin:/bin" VIRTUAL_ENV="$wl/.venv" -- \
			jail-pip install --no-index "$whl"
		rc1=$RC
		wl_run -- jail .venv/bin/python -c 'import ajdemo, sys; print(ajdemo.GREETING, sys.prefix)'
		if [ "$rc1" != 0 ]; then
			RC=$rc1
			fail wl-pip-install "jail-pip install: exit status $rc1"
		else
			expect wl-pip-install 0 "hello from ajdemo $wl/.venv"
		fi
	fi
fi

# --- npm, twice: the second install is served by ~/.npm --------------------------------------

npm_cases="wl-npm-install wl-npm-offline wl-npm-offline-control wl-pnpm"
want_npm=0
for n in $npm_cases; do c "$n" && want_npm=1; done
registry=https://registry.npmjs.org/
if [ $want_npm = 1 ] && ! command -v npm >/dev/null; then
	skip wl-npm "npm is not installed (make deps-test installs it)"
elif [ $want_npm = 1 ] && ! why=$(timeout 30 $py -c 'import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1] + "is-number", timeout=20).read(64)
except Exception as e:
    print(e)
    sys.exit(1)' "$registry" 2>&1); then
	skip wl-npm "the npm registry $registry is unreachable from this machine ($why): npm install, the cache and pnpm are not tested"
elif [ $want_npm = 1 ]; then
	nd=$wl/node
	mkdir -p "$nd"
	printf '{"name": "aijail-it", "version": "1.0.0", "private": true}\n' >"$nd/package.json"
	chown -R "$tuid:$tgid" "$nd"
	npm_flags=(--no-audit --no-fund --no-update-notifier --loglevel=http)

	if c wl-npm-install; then
		WLDIR=$nd wl_run -- jail-npm install --prefer-online "${npm_flags[@]}" is-number@7.0.0
		v=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$nd/node_modules/is-number/package.json" 2>/dev/null)
		if [ "$RC" != 0 ] || [ "$v" != 7.0.0 ]; then
			fail wl-npm-install "exit status $RC, node_modules/is-number version $(q "$v")"
		elif [[ $ERR != *"GET 200 ${registry}is-number"* ]]; then
			fail wl-npm-install "no fetch from the registry in npm's log"
		elif [ "$(stat -c %u "$thome/.npm/_cacache")" != "$tuid" ]; then
			fail wl-npm-install "$thome/.npm/_cacache is not owned by uid $tuid"
		else
			pass wl-npm-install
		fi
	fi

	if c wl-npm-offline; then
		rm -rf "$nd/node_modules" "$nd/package-lock.json"
		WLDIR=$nd wl_run -- jail-npm install --offline "${npm_flags[@]}" is-number@7.0.0
		# npm 10 logs a served entry as "(cache hit)"; Debian 12's npm 9,
		# with --offline, as "(cache stale)": both came from ~/.npm, since
		# --offline never asks the registry ("revalidated" would have).
		hit=$(printf '%s\n' "$ERR" | grep -m1 -E 'cache hit|\(cache stale\)')
		if [ "$RC" = 0 ] && [ -f "$nd/node_modules/is-number/package.json" ] && [ -n "$hit" ]; then
			pass "wl-npm-offline: the second install came from ~/.npm: $hit"
		else
			fail wl-npm-offline "exit status $RC, npm's log: $(q "$(printf '%s\n' "$ERR" | grep 'npm http' | head -3)")"
		fi
	fi

	# --offline really is offline: what was never fetched cannot be installed.
	if c wl-npm-offline-control; then
		WLDIR=$nd wl_run -- jail-npm install --offline "${npm_flags[@]}" aijail-it-never-published@1.0.0
		if [ "$RC" != 0 ] && [[ $ERR == *ENOTCACHED* ]]; then pass wl-npm-offline-control; else
			fail wl-npm-offline-control "exit status $RC; expected ENOTCACHED"
		fi
	fi

	# pnpm through npx (both in the npm group): its store and cache are mounted.
	if c wl-pnpm; then
		pd=$wl/pnpm
		mkdir -p "$pd"
		printf '{"name": "aijail-it-pnpm", "version": "1.0.0", "private": true}\n' >"$pd/package.json"
		chown -R "$tuid:$tgid" "$pd"
		WLDIR=$pd wl_run -- jail npx --yes pnpm@9 add is-number@7.0.0
		if [ "$RC" = 0 ] && [ -f "$pd/node_modules/is-number/package.json" ] &&
			[ -d "$thome/.local/share/pnpm/store" ] && [ -d "$thome/.cache/pnpm" ]; then
			pass wl-pnpm
		else
			fail wl-pnpm "exit status $RC, stdout $(q "$(printf '%s\n' "$OUT" | tail -3)")"
		fi
	fi
fi

# --- cargo, offline, a crate without dependencies ----------------------------------------------

if c wl-cargo; then
	if ! PATH=/usr/local/bin:/usr/bin:/bin command -v cargo >/dev/null; then
		skip wl-cargo "cargo is not installed for the test user (make deps-test installs Debian's)"
	else
		cr=$wl/crate
		mkdir -p "$cr/src"
		printf '[package]\nname = "ajcrate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' >"$cr/Cargo.toml"
		printf 'fn main() {\n    println!("hello from ajcrate");\n}\n' >"$cr/src/main.rs"
		chown -R "$tuid:$tgid" "$cr"
		WLDIR=$cr wl_run -- jail-cargo build --offline
		rc1=$RC
		WLDIR=$cr wl_run -- jail ./target/debug/ajcrate
		if [ "$rc1" != 0 ]; then
			RC=$rc1
			fail wl-cargo "jail-cargo build --offline: exit status $rc1"
		else
			expect wl-cargo 0 "hello from ajcrate"
		fi
	fi
fi

# --- git: init, add, commit ------------------------------------------------------------------------

if c wl-git; then
	wl_run -- jail git init -q repo
	rc1=$RC
	printf 'hello\n' >"$wl/repo/README"
	chown "$tuid:$tgid" "$wl/repo/README"
	WLDIR=$wl/repo wl_run -- jail git add README
	rc2=$RC
	WLDIR=$wl/repo wl_run -- jail git -c user.name=AJ -c user.email=aj@example.invalid commit -q -m first
	rc3=$RC
	# The identity can also come from the environment (the git command group keeps it).
	WLDIR=$wl/repo wl_run GIT_AUTHOR_NAME=Env GIT_AUTHOR_EMAIL=env@example.invalid \
		GIT_COMMITTER_NAME=Env GIT_COMMITTER_EMAIL=env@example.invalid -- \
		jail git commit -q --allow-empty -m second
	rc4=$RC
	WLDIR=$wl/repo wl_run -- jail git log --format='%an %s'
	if [ "$rc1$rc2$rc3$rc4" != 0000 ]; then
		fail wl-git "exit statuses init $rc1, add $rc2, commit $rc3, commit (env) $rc4"
	else
		expect wl-git 0 "Env second
AJ first"
	fi
fi

# --- uv, when it is installed ------------------------------------------------------------------------

# uv_why: why there is no uv, from what apt knows here, not from a release
# number written down once.
uv_why() {
	local rel
	rel=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-this system}")
	if ! command -v apt-cache >/dev/null; then
		echo "${rel:-this system} has no apt to ask for a package"
	elif [ -n "$(apt-cache policy uv 2>/dev/null | grep 'Candidate:' | grep -v '(none)')" ]; then
		echo "apt has a uv package here: apt-get install uv"
	else
		echo "apt knows no uv package on ${rel:-this system}"
	fi
}
if c wl-uv; then
	uvpath=/usr/local/bin:/usr/bin:/bin:$thome/.local/bin:$thome/.cargo/bin
	if ! PATH=$uvpath command -v uv >/dev/null; then
		skip wl-uv "uv is not installed (not on $uvpath; $(uv_why); install it, e.g. into ~/.local/bin, to run this case)"
	elif [ ! -f "$wl/dist/ajdemo-0.1.0-py3-none-any.whl" ]; then
		skip wl-uv "no wheel to install (the wheel case did not run)"
	else
		wl_run PATH="$uvpath" -- jail-uv venv -q .uvenv
		rc1=$RC
		wl_run PATH="$uvpath" -- jail-uv pip install -q --offline --python .uvenv/bin/python \
			dist/ajdemo-0.1.0-py3-none-any.whl
		rc2=$RC
		wl_run -- jail .uvenv/bin/python -c 'import ajdemo; print(ajdemo.GREETING)'
		if [ "$rc1$rc2" != 00 ]; then
			fail wl-uv "uv venv: exit status $rc1, uv pip install: $rc2"
		elif [ ! -d "$thome/.cache/uv" ]; then
			fail wl-uv "no ~/.cache/uv on the host"
		else
			expect wl-uv 0 "hello from ajdemo"
		fi
	fi
fi
