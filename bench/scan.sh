#!/usr/bin/env bash
# bench/scan.sh: the discovery benchmark of issue 4 (part of `make bench`,
# never of `make check`).
#
# Generated projects of 1k, 10k and 100k entries, each twice: plain (a
# source tree, a .git with loose objects, a few secrets) and with a
# node_modules-like subtree holding most of the entries (packages, nested
# node_modules, test fixtures named like secrets).  bench/scanbench.c times,
# in one run with the order rotating, the stub's one walk with base.aj's
# patterns as shipped, the same walk with nothing pruned, and one walk per
# mask/deny pattern, as ai-jail discovers them.  Prints a markdown table and
# writes it to bench/results/YYYY-MM-DD-HHMM-scan.md (SAVE=0: print only).
#
# Then the fence's cost (Landlock behind the covers, stub/root/mask.c): what
# one rule costs, the way the stub adds it, on directories of 16 to 1024
# entries (a whole start-up is too noisy on a shared machine to show
# 0.1 ms; this is not).
#
# Knobs: SCAN_SIZES ("1000 10000 100000"), SCAN_ROUNDS (15; QUICK=1: 5),
# SCAN_TREES (where the trees are kept between runs: /tmp/ajscan-bench),
# FENCE_SIZES ("16 64 256 1024"), RESULTS (bench/results), AIJAIL_BUILD
# (build).  Nothing here needs root or a namespace.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${AIJAIL_BUILD:-$root/build}
sizes=${SCAN_SIZES:-"1000 10000 100000"}
if [ "${QUICK:-0}" = 1 ]; then rounds=${SCAN_ROUNDS:-5}; else rounds=${SCAN_ROUNDS:-15}; fi
trees=${SCAN_TREES:-/tmp/ajscan-bench}
results=${RESULTS:-$here/results}
musl=${MUSLCC:-musl-gcc}

die() {
	printf 'bench/scan.sh: %s\n' "$*" >&2
	exit 2
}
[ -x "$build/bin/aijail-compile" ] || die "$build/bin/aijail-compile is missing: run make first"
[ -e "$build/kh/.stamp" ] || die "$build/kh (kernel headers for musl) is missing: run make first"
command -v "$musl" >/dev/null || die "$musl is missing (apt-get install musl-tools)"

work=$(mktemp -d /tmp/ajscan-run.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The patterns as shipped: base.aj's normal mode, compiled.
"$build/bin/aijail-compile" -I "$root/policies" -o "$work/base.h" "$root/policies/base.aj"
"$musl" -O2 -std=gnu11 -D_GNU_SOURCE -static -Wall -Wextra -Wno-unused-parameter \
	-I"$root" -I"$root/include" -I"$root/stub" -isystem "$build/kh" \
	-DAJ_POLICY_HEADER="\"$work/base.h\"" -o "$work/scanbench" "$here/scanbench.c" \
	"$root/stub/policy.c" "$root"/stub/base/*.c "$root"/stub/variant/*.c "$root"/stub/scan/*.c "$root"/common/*.c

# The trees, made once (a stamp holds the generator's version).
mkdir -p "$trees"
python3 - "$trees" $sizes <<'PY'
import os, sys

STAMP = "ajscan-tree-v1"

def make(d, total, nm):
    """About `total` entries; with nm, 80 % of them in node_modules."""
    if os.path.exists(os.path.join(d, STAMP)):
        return
    os.makedirs(d, exist_ok=True)
    n = [0]

    def f(path, data=""):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(data)
        n[0] += 1

    def mk(path):
        os.makedirs(path, exist_ok=True)
        n[0] += 1

    # secrets where projects keep them
    for rel in (".env", ".env.local", "config/credentials.json", "certs/dev.pem",
                "secrets/db.txt", "x.key", "services/api/.env"):
        f(os.path.join(d, rel), "do-not-read\n")
    for rel in ("config", "certs", "secrets", "services", "services/api"):
        n[0] += 1
    # .git with loose objects: 5 %
    for i in range(max(1, total // 20)):
        f(os.path.join(d, ".git/objects", "%02x" % (i % 256), "%038x" % i))
    budget = total * (0.2 if nm else 1.0)
    # the source tree: directories of 20, four levels
    i = 0
    while n[0] < budget:
        a, b, c = i // 400, (i // 20) % 20, i % 20
        f(os.path.join(d, "src", "mod%03d" % a, "sub%02d" % b, "file%02d.py" % c))
        i += 1
    # node_modules: packages of ~50 entries, some with nested node_modules
    # and test fixtures named like secrets
    p = 0
    while nm and n[0] < total:
        pkg = os.path.join(d, "node_modules", "pkg%05d" % p)
        f(os.path.join(pkg, "package.json"), "{}\n")
        for j in range(20):
            f(os.path.join(pkg, "lib", "m%02d.js" % j))
            f(os.path.join(pkg, "dist", "m%02d.min.js" % j))
        if p % 10 == 0:
            f(os.path.join(pkg, "test", "fixtures", "server.pem"))
            f(os.path.join(pkg, "test", "fixtures", ".env"))
        if p % 5 == 0:
            for j in range(8):
                f(os.path.join(pkg, "node_modules", "dep%d" % j, "index.js"))
        p += 1
    open(os.path.join(d, STAMP), "w").close()

top = sys.argv[1]
for size in map(int, sys.argv[2:]):
    make(os.path.join(top, "plain-%d" % size), size, False)
    make(os.path.join(top, "nm-%d" % size), size, True)
PY

args=()
for s in $sizes; do args+=("$trees/plain-$s" "$trees/nm-$s"); done
"$work/scanbench" "$rounds" "${args[@]}" >"$work/raw.tsv"

report() {
	printf '# Project scan: one walk against one walk per pattern (issue 4)\n\n'
	printf -- '- date: %s; %s, %s CPUs\n' "$(date '+%Y-%m-%d %H:%M %Z')" "$(uname -sr)" "$(nproc)"
	printf -- '- commit: %s\n' "$(git -C "$root" log -1 --format='%h %s' 2>/dev/null | cut -c1-100 || echo unknown)"
	printf -- '- patterns: policies/base.aj, normal mode:%s\n' "$(head -1 "$work/raw.tsv" | cut -c2-)"
	printf -- '- %s rounds per tree, order rotated, each measurement in a fresh process (fork not timed), warm page cache\n\n' "$rounds"
	python3 - "$work/raw.tsv" <<'PY'
import sys, os
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")][1:]
by = {}
bad = []
for r in rows:
    if r[1] == "MISMATCH":
        bad.append(r)
        continue
    by.setdefault(r[0], {})[r[1]] = r
def entries(d):
    n = 0
    for _, ds, fs in os.walk(d):
        n += len(ds) + len(fs)
    return n - 1  # the stamp
print("| tree | entries | one walk, shipped (ms) | one walk, nothing pruned (ms) | one walk per pattern (ms) | per pattern / shipped | per pattern / nothing pruned | covers (shipped / nothing pruned) | pruned dirs |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for d, m in by.items():
    w, a, g = (float(m[k][2]) for k in ("walk", "walk-all", "per-glob"))
    print(f"| {os.path.basename(d)} | {entries(d)} | {w:.2f} | {a:.2f} | {g:.2f} | {g / w:.0f}x | {g / a:.1f}x | {m['walk'][4]} / {m['walk-all'][4]} | {m['walk'][5]} |")
print()
print("Medians; the minima are in the raw table below.  \"covers\": entries a mask or deny goes on; the")
print("walk with nothing pruned and the per-pattern walks must find the same ones" +
      (": they do." if not bad else ": THEY DO NOT: " + "; ".join("\t".join(b) for b in bad)))
PY
	printf '\n<details><summary>raw</summary>\n\n```\n'
	cat "$work/raw.tsv"
	printf '```\n</details>\n'
}

# The fence's cost per rule: scanbench rules on directories of N entries.
fence_report() {
	local n
	printf '\n## The fence: what a Landlock rule costs\n\n'
	printf 'Per entry of a directory on the way, what stub/root/mask.c does: an O_PATH open and a\n'
	printf 'landlock_add_rule; then landlock_restrict_self with all of them.  Medians of %s rounds, each in a\n' "$rounds"
	printf 'fresh process.\n\n| entries (rules) | open + add_rule, µs per rule | landlock_restrict_self, µs | total, ms |\n|---:|---:|---:|---:|\n'
	for n in ${FENCE_SIZES:-16 64 256 1024}; do
		mkdir -p "$work/fence-$n"
		for ((f = 0; f < n; f++)); do : >"$work/fence-$n/f$f"; done
		"$work/scanbench" rules "$rounds" "$work/fence-$n" | awk -F'\t' \
			'{ printf "| %d | %.2f | %.1f | %.3f |\n", $3, $4, $5, ($3 * $4 + $5) / 1000 }' ||
			printf '| %s | (no Landlock here) | | |\n' "$n"
	done
}

{
	report
	fence_report
} | tee "$work/report.md"
if [ "${SAVE:-1}" = 1 ]; then
	mkdir -p "$results"
	cp "$work/report.md" "$results/$(date +%Y-%m-%d-%H%M)-scan.md"
fi
