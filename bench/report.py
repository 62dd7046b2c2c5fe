#!/usr/bin/env python3
"""The markdown report of one bench/run.sh pass, with the targets of issue 6.

usage: report.py PASSDIR > report.md

PASSDIR holds what run.sh measured (every file optional except meta.tsv):
  meta.tsv            key<TAB>value: date, machine, commit, knobs
  notes.txt           lines for the report (skips, warnings), in order
  main-cmds.tsv       name<TAB>baseline<TAB>command line
  main-r<K>.json      hyperfine --export-json of round K (all main commands)
  heavy-cmds.tsv, heavy-r<K>.json      the same for the file-heavy runs
  mounts-cmds.tsv, mounts-<SCEN>-r<K>.json, mounts-<SCEN>.count
  rss.tsv             name<TAB>KiB<TAB>exit status, one line per run
  rss-cmds.tsv        name<TAB>command line
  tput.json, tput-cmds.tsv   from throughput.py
  sizes.tsv           name<TAB>bytes (stripped)
  egress-cmds.tsv, egress-r<K>.json   the proxy of issue 14 (run_egress)
  egress-latency.tsv                  its set-ups timed one by one (issue 24)

Statistics: medians and min–max pool every sample of a command; a ratio
between two commands is taken within each round (one hyperfine invocation,
same minutes of machine load) and the median over rounds is reported with
its range.  Only ratios decide PASS/FAIL; absolute times on a shared VM are
context.
"""
import glob
import json
import os
import re
import statistics as st
import sys

STUB = "jail-worker"
NOLL = "jail-worker-nolandlock"
LLON = "jail-worker-landlock"  # jail-worker rebuilt from the same sources as NOLL
BLK = "jail-worker-blocked"    # jail-worker with `network blocked` (no network namespace)

# The targets of issue 6 (point 2).
T_OVER_BWRAP = 0.12   # (stub - bare) / (bwrap - bare)
T_VS_UNSHARE = 0.8    # stub / unshare
T_MOUNTS = 1.1        # stub with 200 more host mounts / stub without
T_RSS_MIB = 1.2       # peak RSS
T_SIZE_KIB = 64       # stripped stub
T_LANDLOCK_MS = 0.1   # Landlock on - off, start-up


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [l.rstrip("\n").split("\t") for l in fh if l.strip()]


def rounds_of(pattern):
    """[{name: [ms…]}] per round, [name…] in first-seen order, {name: failed runs}."""
    def key(f):
        m = re.search(r"-r(\d+)\.json$", f)
        return int(m.group(1)) if m else 0
    rounds, order, failed = [], [], {}
    for f in sorted(glob.glob(pattern), key=key):
        with open(f) as fh:
            res = json.load(fh)["results"]
        per = {}
        for r in res:
            n = r["command"]
            per[n] = [t * 1000.0 for t in r["times"]]
            failed[n] = failed.get(n, 0) + sum(1 for c in (r.get("exit_codes") or []) if c)
            if n not in order:
                order.append(n)
        rounds.append(per)
    return rounds, order, failed


def pooled(rounds, name):
    out = []
    for r in rounds:
        out.extend(r.get(name, []))
    return out


def per_round(rounds, f, *names):
    """f(median of names[0] in round, …) for every round that has them all."""
    out = []
    for r in rounds:
        if all(n in r and r[n] for n in names):
            try:
                out.append(f(*[st.median(r[n]) for n in names]))
            except ZeroDivisionError:
                pass
    return out


def fmt_range(v, fmt="{:.2f}"):
    if not v:
        return "–"
    return f"{fmt.format(st.median(v))} ({fmt.format(min(v))}–{fmt.format(max(v))})"


def verdict(value, limit, ok_if_le=True):
    if value is None:
        return "n/a"
    return "PASS" if (value <= limit if ok_if_le else value >= limit) else "FAIL"


def time_table(rounds, order, failed, base_of):
    """Markdown rows: name, median, min–max, × base (rounds), + ms over base."""
    lines = ["| command | median ms | min–max ms | × its bare (median of rounds, range) | + ms over its bare |",
             "|---|---:|---:|---:|---:|"]
    for n in order:
        t = pooled(rounds, n)
        if not t:
            continue
        b = base_of.get(n)
        ratio = over = "–"
        if b and b != n and pooled(rounds, b):
            rr = per_round(rounds, lambda x, y: x / y, n, b)
            ratio = fmt_range(rr)
            over = f"{st.median(t) - st.median(pooled(rounds, b)):+.2f}"
        elif b == n:
            ratio, over = "1 (base)", "0"
        fl = f" ({failed[n]} of {len(t)} runs exited non-zero)" if failed.get(n) else ""
        lines.append(f"| {n}{fl} | {st.median(t):.2f} | {min(t):.2f}–{max(t):.2f} | {ratio} | {over} |")
    return lines


# The targets of issue 13 (point 2).
T13_BIG = 1.5        # jail-worker in the 145k-entry project / in the small one
T13_FIRST = 1.05     # the first launch there / the walk alone (noise allowed: the same walk)
T13_PER_OPEN = 0.05  # per-open cost of what replaces the walk, × Landlock and seccomp alone
T13_FLOOR = 1.25     # (jail-worker - bare) / (floor - bare)
T13_BWRAP = 0.3      # (jail-worker - bare) / (bwrap - bare)
T13_MOUNTS = 0.03    # jail-worker's slowdown with 200 mounts - unshare's
T38_ROOT = 1.10      # (jail-worker - bare) / (root floor - bare): floor -r builds the least root
T38_BWRAP = 0.45     # (jail-worker - bare) / (bwrap - bare), issue 38's bound


def issue13(d, meta, rounds):
    """Lines of the issue 13 sections and their targets."""
    out, targets = [], []
    p = out.append
    have = set()
    for r in rounds:
        have |= set(r)
    # --- small project: floor and bwrap --------------------------------------
    for fl in ("floor", "floor -n"):
        if not ({STUB, "bare", fl} <= have):
            continue
        v = per_round(rounds, lambda s, b, f: (s - b) / (f - b), STUB, "bare", fl)
        lim = f"≤ {T13_FLOOR}"
        if fl == "floor":
            targets.append(("small project: (jail-worker − bare) / (floor − bare), same namespaces",
                            fmt_range(v, "{:.2f}"), lim, verdict(st.median(v), T13_FLOOR)))
        else:
            targets.append(("small project: (jail-worker − bare) / (floor −n − bare), floor without a network namespace",
                            fmt_range(v, "{:.2f}"), lim, "reported"))
        if BLK in have and fl == "floor -n":
            v = per_round(rounds, lambda s, b, f: (s - b) / (f - b), BLK, "bare", fl)
            targets.append(("small project: (jail-worker-blocked − bare) / (floor −n − bare), both without",
                            fmt_range(v, "{:.2f}"), lim, f"reported ({verdict(st.median(v), T13_FLOOR)})"))
    if {STUB, "bare", "root floor"} <= have:
        v = per_round(rounds, lambda s, b, f: (s - b) / (f - b), STUB, "bare", "root floor")
        targets.append(("small project: (jail-worker − bare) / (root floor − bare), the floor that also "
                        "builds the least root (issue 38)", fmt_range(v, "{:.2f}"), f"≤ {T38_ROOT}",
                        verdict(st.median(v), T38_ROOT)))
    if {STUB, "bare", "layers floor"} <= have:
        v = per_round(rounds, lambda s, b, f: (s - b) / (f - b), STUB, "bare", "layers floor")
        targets.append(("small project: (jail-worker − bare) / (layers floor − bare), the root floor plus "
                        "Landlock, the capability drop, jail-worker's seccomp filter and a supervising pid 1",
                        fmt_range(v, "{:.2f}"), "reported", "–"))
        for fl, bound in (("floor", T13_FLOOR), ("root floor", T38_ROOT)):
            if fl in have:
                v = per_round(rounds, lambda s, b, f: (s - b) / (f - b), "layers floor", "bare", fl)
                targets.append((f"the layers floor itself: (layers floor − bare) / ({fl} − bare), "
                                f"against jail-worker's bound ≤ {bound}", fmt_range(v, "{:.2f}"), "reported",
                                "–"))
    if {STUB, "bare", "bwrap"} <= have:
        v = per_round(rounds, lambda s, b, w: (s - b) / (w - b), STUB, "bare", "bwrap")
        targets.append(("small project: (jail-worker − bare) / (bwrap − bare)", fmt_range(v, "{:.3f}"),
                        f"≤ {T13_BWRAP} (issue 38: ≤ {T38_BWRAP}: {verdict(st.median(v), T38_BWRAP)})",
                        verdict(st.median(v), T13_BWRAP)))
    # --- the large project ----------------------------------------------------
    brounds, border, bfailed = rounds_of(os.path.join(d, "big-r*.json"))
    if brounds:
        p(f"## The 145,000-entry project ({meta.get('big_tree', '?')} entries, directories, files; "
          f"{len(brounds)} rounds, interleaved)")
        p("")
        base = {r[0]: r[1] for r in read_tsv(os.path.join(d, "big-cmds.tsv"))}
        out.extend(time_table(brounds, border, bfailed, base))
        p("")
        p("`env -C DIR` puts each launch in its project; `bare, small` is `env -C` with `/bin/true`. "
          "The `seccomp allow`, `notify continue` and `notify addfd` rows are bench/candidates.c's "
          "prototype of candidate (d): a filter on open/openat that decides nothing, one that sends "
          "every open to a supervisor which lets the kernel go on, and one whose supervisor opens the "
          "file itself (/dev/null for a .env) and hands the descriptor back.")
        p("")
        src = meta.get("big_source", "?")
        p(f"The scan's source for `jail-worker, big` (`--jail-explain`, just before the rounds): {src}. "
          "`jail-worker, big, the walk` is the same launch with `AIJAIL_WATCH=0`: what every launch "
          "cost before the watcher, and what the first launch in a project still costs.")
        p("")
        v = per_round(brounds, lambda b, s: b / s, "jail-worker, big", "jail-worker, small")
        if v:
            targets.append((f"145k-entry project: repeat launch / launch in the small project (scan from {src})",
                            fmt_range(v, "{:.2f}"), f"≤ {T13_BIG}", verdict(st.median(v), T13_BIG)))
        v = per_round(brounds, lambda f, w: f / w, "jail-worker, big, first launch",
                      "jail-worker, big, the walk")
        if v:
            targets.append(("145k-entry project: first launch (no watcher yet: a failed connect, then "
                            "the walk) / the walk alone (`AIJAIL_WATCH=0`, the code before the watcher)",
                            fmt_range(v, "{:.3f}"), f"≤ {T13_FIRST}", verdict(st.median(v), T13_FIRST)))
        for w in ("git status", "python imports"):
            for k in ("notify continue", "notify addfd"):
                v = per_round(brounds, lambda a, s: a / s - 1, f"{w}, {k}", f"{w}, seccomp allow")
                if v:
                    targets.append((f"per open, candidate (d) `{k}`, {w}: × seccomp alone − 1",
                                    fmt_range(v, "{:+.3f}"), f"≤ {T13_PER_OPEN}",
                                    f"reported ({verdict(st.median(v), T13_PER_OPEN)})"))
            # What replaces the walk, per open: the command's time in the jail
            # less the jail's own start, with the watcher's scan against the
            # walk's (a jail whose per-open cost is Landlock and seccomp alone).
            v = per_round(brounds, lambda a, at, b, bt: (a - at) / (b - bt) - 1,
                          f"{w}, jail-worker", "jail-worker, big",
                          f"{w}, jail-worker, the walk", "jail-worker, big, the walk")
            if v:
                targets.append((f"per open, the watcher, {w}: (under jail-worker − its `/bin/true`) / "
                                "(the same with the walk, `AIJAIL_WATCH=0`: Landlock and seccomp alone) − 1",
                                fmt_range(v, "{:+.3f}"), f"≤ {T13_PER_OPEN}", verdict(st.median(v), T13_PER_OPEN)))
            v = per_round(brounds, lambda a, s: a / s - 1, f"{w}, jail-worker", f"{w}, seccomp allow")
            if v:
                targets.append((f"{w} under jail-worker (start-up, Landlock and seccomp included) × a "
                                "seccomp filter alone − 1", fmt_range(v, "{:+.3f}"), "reported", "–"))
    if meta.get("big_newenv"):
        res = meta["big_newenv"].split(":", 1)
        targets.append(("a .env made since the previous launch is masked on the next", res[1].strip(),
                        "masked", res[0]))
    # --- mounts: stub's slowdown vs unshare's ---------------------------------
    pr, _, _ = rounds_of(os.path.join(d, "mounts-plain-r*.json"))
    orr, _, _ = rounds_of(os.path.join(d, "mounts-outside-r*.json"))
    if pr and orr:
        def slow(n):
            return [st.median(b[n]) / st.median(a[n]) for a, b in zip(pr, orr) if a.get(n) and b.get(n)]
        js, us = slow(STUB), slow("unshare")
        if js and us:
            diff = [a - b for a, b in zip(js, us)]
            targets.append(("200 more host mounts: jail-worker's slowdown − unshare's",
                            f"{fmt_range(diff, '{:+.3f}')} (jail-worker × {st.median(js):.3f}, unshare × {st.median(us):.3f})",
                            f"≤ {T13_MOUNTS}", verdict(st.median(diff), T13_MOUNTS)))
    # --- the agent's commands --------------------------------------------------
    arounds, aorder, afailed = rounds_of(os.path.join(d, "agent-r*.json"))
    diffs = {}
    for r in read_tsv(os.path.join(d, "agent-diff.tsv")):
        diffs[(r[0], r[1])] = (r[2], r[3] if len(r) > 3 else "")
    if arounds:
        names = [r[0] for r in read_tsv(os.path.join(d, "agent-list.tsv"))]
        p(f"## 20 agent commands, side by side ({len(arounds)} rounds, interleaved; cwd: the 20,000-file git repo)")
        p("")
        p("| command | bare median ms | jail: + ms | bwrap: + ms | jail output | bwrap output |")
        p("|---|---:|---:|---:|---|---|")
        ndiff = {"jail": [], "bwrap": []}
        for n in names:
            b = pooled(arounds, f"{n}: bare")
            if not b:
                continue
            row = f"| {n} | {st.median(b):.1f} |"
            for k in ("jail", "bwrap"):
                o = per_round(arounds, lambda x, y: x - y, f"{n}: {k}", f"{n}: bare")
                row += f" {fmt_range(o, '{:+.1f}')} |"
            for k in ("jail", "bwrap"):
                s, why = diffs.get((n, k), ("–", ""))
                if s == "differs":
                    ndiff[k].append(n)
                    row += f" differs: `{why.strip()[:80]}` |"
                else:
                    row += f" {s} |"
            p(row)
        p("")
        listed = False
        for i, n in enumerate(names, 1):
            for k in ("jail", "bwrap"):
                f = os.path.join(d, f"agent-diff-{i}-{k}.txt")
                if n in ndiff[k] and os.path.exists(f):
                    if not listed:
                        p("The differences, `diff` of bare against each (< bare, > under it; at most 40 lines):")
                        p("")
                        listed = True
                    p(f"{n}, {k}:")
                    p("")
                    p("```")
                    out.extend(l.rstrip("\n") for l in open(f, errors="replace"))
                    p("```")
                    p("")
        for k in ("jail", "bwrap"):
            targets.append((f"agent commands whose output differs from bare, under {k}",
                            ", ".join(ndiff[k]) or "none", "none", "PASS" if not ndiff[k] else "FAIL"))
    # --- candidates --------------------------------------------------------------
    cand = read_tsv(os.path.join(d, "candidates.tsv"))
    if cand:
        its = {}
        for r in cand:
            if r[1] != "inotify":
                its.setdefault(r[0], {})[r[1]] = (float(r[2]), float(r[3]), r[4])
        p(f"## Candidates on the 145,000-entry project (bench/candidates.c; {len(its)} interleaved "
          "iterations, each the median of 3 fresh processes)")
        p("")
        p("| candidate | median ms (min–max over iterations) | × serial walk, same iteration | what it saw |")
        p("|---|---:|---:|---|")
        what = {"walk": "serial getdents walk", "statdirs": "(a) cache validation: fstatat of every directory",
                "pwalk-2": "(c) parallel walk, 2 threads", "pwalk-4": "(c) parallel walk, 4 threads"}
        for n in ("walk", "statdirs", "pwalk-2", "pwalk-4"):
            v = [it[n][0] for it in its.values() if n in it]
            rr = [it[n][0] / it["walk"][0] for it in its.values() if n in it and "walk" in it and it["walk"][0]]
            seen = next((it[n][2] for it in its.values() if n in it), "?")
            if v:
                p(f"| {what[n]} | {fmt_range(v, '{:.1f}')} | {fmt_range(rr)} | {seen} entries |")
        for r in cand:
            if r[1] == "inotify":
                p(f"| (b) watcher: walk + a watch on every directory, once | {r[2].split()[1]} | | "
                  f"{r[3]}; {r[5]}; {r[6]}; {r[7]} |")
                p(f"| (b) watcher: one request over a path socket, queue drained first | | | {r[4]} |")
        p("")
        p(f"inotify limits: {meta.get('watches', '?')}.")
        p("")
    return out, targets


def issue14(d, meta):
    """Lines of the proxy section (issue 14, point 5) and its figures."""
    out, targets = [], []
    p = out.append
    er, eorder, efailed = rounds_of(os.path.join(d, "egress-r*.json"))
    if not er:
        return out, targets
    cmds = read_tsv(os.path.join(d, "egress-cmds.tsv"))
    base = {r[0]: r[1] for r in cmds}
    em = re.match(r"(\d+) set-ups per run, (\d+) bytes", meta.get("egress", ""))
    n, nbytes = (int(em.group(1)), int(em.group(2))) if em else (0, 0)
    p(f"## The proxy of `network allow` ({len(er)} rounds, interleaved; {meta.get('egress', '?')})")
    p("")
    out.extend(time_table(er, [c[0] for c in cmds if c[0] in set(eorder)], efailed, base))
    p("")
    p("`start:` rows are `/bin/true` under jail-worker (`network none`) and under jail-worker-allow "
      "(the same policy with `network allow` of the server's two ports on 127.0.0.1, listed literally). "
      "`netbench` is bench/netbench.c: `connect 0` bare and in the jail is the base each figure below is "
      "taken over, so that start-up cancels; a direct set-up is connect() and close() on the host's "
      "loopback, one through the proxy is connect() to 127.0.0.1:3128 inside, the CONNECT, its 200 read, "
      "close(); the bulk rows read the server's bytes until EOF (short: the run fails).")
    p("")
    have = set(eorder)
    if {"start: network none", "start: network allow", "bare"} <= have:
        d_ = per_round(er, lambda a, z: a - z, "start: network allow", "start: network none")
        v = per_round(er, lambda a, z, b: (a - b) / (z - b), "start: network allow", "start: network none", "bare")
        targets.append(("start-up, `/bin/true`: allow − none, ms; (allow − bare) / (none − bare)",
                        f"{fmt_range(d_, '{:+.2f}')}; × {fmt_range(v)}", "reported", "–"))

    def per_op(name, b, k):
        return per_round(er, lambda x, y: (x - y) / k, name, b)
    if n and {"set-ups: direct", "set-ups: through the proxy", "netbench: bare", "netbench: in the jail"} <= have:
        dr = per_op("set-ups: direct", "netbench: bare", n / 1000.0)
        px = per_op("set-ups: through the proxy", "netbench: in the jail", n / 1000.0)
        rr = per_round(er, lambda a, ab, c, cb: (a - ab) / (c - cb), "set-ups: through the proxy",
                       "netbench: in the jail", "set-ups: direct", "netbench: bare")
        targets.append((f"connection set-up, µs each ({n} per run): through the proxy; direct",
                        f"{fmt_range(px, '{:.1f}')}; {fmt_range(dr, '{:.1f}')}", "reported", "–"))
        targets.append(("connection set-up: through the proxy / direct", f"× {fmt_range(rr, '{:.2f}')}",
                        "reported", "–"))
    if nbytes and {"bulk: direct", "bulk: through the proxy", "netbench: bare", "netbench: in the jail"} <= have:
        mib = nbytes / 1048576.0
        dr = per_round(er, lambda x, y: mib / ((x - y) / 1000.0), "bulk: direct", "netbench: bare")
        px = per_round(er, lambda x, y: mib / ((x - y) / 1000.0), "bulk: through the proxy", "netbench: in the jail")
        rr = per_round(er, lambda a, ab, c, cb: (c - cb) / (a - ab), "bulk: through the proxy",
                       "netbench: in the jail", "bulk: direct", "netbench: bare")
        targets.append((f"bulk, {mib:.0f} MiB on loopback, MiB/s: through the proxy (splice); direct",
                        f"{fmt_range(px, '{:.0f}')}; {fmt_range(dr, '{:.0f}')}", "reported", "–"))
        targets.append(("bulk throughput: through the proxy / direct", f"× {fmt_range(rr, '{:.2f}')}",
                        "≥ 0.9", verdict(st.median(rr) if rr else None, 0.9, ok_if_le=False)))
    if nbytes and {"bulk: direct", "bulk: through a forward", "netbench: bare",
                   "netbench: in the jail, forward"} <= have:
        mib = nbytes / 1048576.0
        fw = per_round(er, lambda x, y: mib / ((x - y) / 1000.0), "bulk: through a forward",
                       "netbench: in the jail, forward")
        rr = per_round(er, lambda a, ab, c, cb: (c - cb) / (a - ab), "bulk: through a forward",
                       "netbench: in the jail, forward", "bulk: direct", "netbench: bare")
        targets.append((f"bulk, {mib:.0f} MiB, MiB/s: through a forward (--jail-forward)",
                        fmt_range(fw, '{:.0f}'), "reported", "–"))
        targets.append(("bulk throughput: through a forward / direct", f"× {fmt_range(rr, '{:.2f}')}",
                        "reported", "–"))
    # Each set-up timed on its own: rows "ROUND\tdirect|proxy\tMEDIAN P99 MEAN" (µs).
    lat = {}
    try:
        with open(os.path.join(d, "egress-latency.tsv")) as fh:
            for line in fh:
                r, w, v = line.rstrip("\n").split("\t")
                lat.setdefault(r, {})[w] = [float(x) for x in v.split()]
    except (OSError, ValueError):
        lat = {}
    both = [v for v in lat.values() if "direct" in v and "proxy" in v]
    if both:
        for i, what in ((0, "median"), (1, "p99")):
            px = [v["proxy"][i] for v in both]
            dr = [v["direct"][i] for v in both]
            rr = [v["proxy"][i] / v["direct"][i] for v in both if v["direct"][i]]
            targets.append((f"connection set-up {what}, µs ({n} timed per run): through the proxy; direct",
                            f"{fmt_range(px, '{:.1f}')}; {fmt_range(dr, '{:.1f}')}", "reported", "–"))
            targets.append((f"connection set-up {what}: through the proxy / direct",
                            f"× {fmt_range(rr, '{:.2f}')}", "≤ 2" if i == 0 else "reported",
                            verdict(st.median(rr) if rr else None, 2.0) if i == 0 else "–"))
    # Issue 23: jail-worker (Landlock and seccomp on) with --jail-forward
    # of the bulk port, against without; the transfer through the forward.
    if {"start: network none, a forward", "start: network none"} <= have:
        d_ = per_round(er, lambda a, z: a - z, "start: network none, a forward", "start: network none")
        targets.append(("start-up, `/bin/true`: with a forward − without (`network none`), ms",
                        fmt_range(d_, '{:+.2f}'), "reported", "–"))
    return out, targets


def main():
    d = sys.argv[1]
    meta = dict((r[0], r[1] if len(r) > 1 else "") for r in read_tsv(os.path.join(d, "meta.tsv")))
    notes = []
    if os.path.exists(os.path.join(d, "notes.txt")):
        with open(os.path.join(d, "notes.txt")) as fh:
            notes = [l.rstrip("\n") for l in fh if l.strip()]
    # The bwrap twin binds over what fixture.py found; say so if the stub's
    # own scan (--jail-explain) found something else.
    ex = os.path.join(d, "explain.txt")
    mt = read_tsv(os.path.join(d, "matches.txt"))
    if os.path.exists(ex) and mt:
        proj = meta.get("project", "")
        stub_set, sect = set(), False
        for line in open(ex, errors="replace"):
            if line.startswith("masked and denied in"):
                sect = True
                continue
            if sect:
                if not line.startswith((" ", "\t")):
                    break
                f = line.split()
                if len(f) >= 2:
                    stub_set.add((f[0], f[1].rstrip("/")))
        ours = set()
        for r in mt:
            kind, path = r[0].split(" ", 1) if len(r) == 1 else (r[0], r[1])
            ours.add(("mask" if kind == "mask" else "deny", os.path.relpath(path, proj)))
        if sect and stub_set != ours:
            notes.append(f"the bwrap twin's masks/denies differ from the stub's scan: stub {sorted(stub_set)}, "
                         f"bwrap {sorted(ours)}")
        elif sect:
            notes.append(f"bwrap twin binds over the same {len(ours)} entries the stub masks/denies "
                         "(checked against --jail-explain)")
    out = []
    p = out.append

    p(f"# aijail start-up benchmark: {meta.get('pass', '?')} ({meta.get('who', '?')})")
    p("")
    p(f"- date: {meta.get('date', '?')}")
    p(f"- machine: {meta.get('machine', '?')}")
    p(f"- commit: {meta.get('commit', '?')}")
    p(f"- stubs measured: {meta.get('build', '?')}")
    p(f"- tools: {meta.get('tools', '?')}")
    p(f"- knobs: {meta.get('knobs', '?')}")
    p(f"- project fixture: {meta.get('project', '?')} (masked: {meta.get('masked', '?')}; "
      f"denied: {meta.get('denied', '?')})")
    p(f"- environment of every command: {meta.get('env', '?')}")
    p("")
    if notes:
        for n in notes:
            p(f"> {n}")
        p("")

    # --- start-up -----------------------------------------------------------
    cmds = read_tsv(os.path.join(d, "main-cmds.tsv"))
    base_of = {c[0]: c[1] for c in cmds}
    rounds, order, failed = rounds_of(os.path.join(d, "main-r*.json"))
    have = set(order)
    targets = []
    if rounds:
        p(f"## Start-up: one interleaved run ({len(rounds)} rounds, order rotated, "
          f"{len(pooled(rounds, order[0]))} runs per command)")
        p("")
        order = [c[0] for c in cmds if c[0] in have] + [n for n in order if n not in base_of]
        out.extend(time_table(rounds, order, failed, base_of))
        p("")
        p("\"Its bare\" is `/bin/true` for the `/bin/true` rows and `python3 -c pass` for the python rows. "
          "The bwrap rows build the same jail as jail-worker (binds, symlinks, tmpfs, /dev, /proc, "
          "private HOME, the project with the same masks and denies, all namespaces, clean env) but load "
          "no seccomp filter and no Landlock ruleset, which jail-worker does: that flatters bwrap a little.")
        p("")

        if {STUB, "bare", "bwrap"} <= have:
            v = per_round(rounds, lambda s, b, w: (s - b) / (w - b), STUB, "bare", "bwrap")
            pm = [st.median(pooled(rounds, n)) for n in (STUB, "bare", "bwrap")]
            targets.append(("(jail-worker − bare) / (bwrap − bare), `/bin/true`",
                            f"{fmt_range(v, '{:.3f}')}; pooled medians {(pm[0] - pm[1]) / (pm[2] - pm[1]):.3f}",
                            f"≤ {T_OVER_BWRAP}", verdict(st.median(v), T_OVER_BWRAP)))
        else:
            targets.append(("(jail-worker − bare) / (bwrap − bare)", "not measured", f"≤ {T_OVER_BWRAP}", "n/a"))
        if {STUB, "unshare"} <= have:
            v = per_round(rounds, lambda s, u: s / u, STUB, "unshare")
            targets.append(("jail-worker / `unshare -Urmpf --mount-proc`", fmt_range(v, "{:.3f}"),
                            f"≤ {T_VS_UNSHARE}", verdict(st.median(v), T_VS_UNSHARE)))
        else:
            targets.append(("jail-worker / unshare", "not measured", f"≤ {T_VS_UNSHARE}", "n/a"))
        # The same ratios for the opt-in level without a network namespace:
        # reported beside the targets, which are the shipped profile's.
        if {BLK, "bare", "bwrap"} <= have:
            v = per_round(rounds, lambda s, b, w: (s - b) / (w - b), BLK, "bare", "bwrap")
            targets.append(("(jail-worker-blocked − bare) / (bwrap − bare), `network blocked`",
                            fmt_range(v, "{:.3f}"), f"≤ {T_OVER_BWRAP}",
                            f"reported ({verdict(st.median(v), T_OVER_BWRAP)})"))
        if {BLK, "unshare"} <= have:
            v = per_round(rounds, lambda s, u: s / u, BLK, "unshare")
            targets.append(("jail-worker-blocked / `unshare -Urmpf --mount-proc`, `network blocked`",
                            fmt_range(v, "{:.3f}"), f"≤ {T_VS_UNSHARE}",
                            f"reported ({verdict(st.median(v), T_VS_UNSHARE)})"))
    else:
        p("## Start-up: not measured")
        p("")

    # --- mounts -------------------------------------------------------------
    scen_order = [s for s in ("plain", "outside", "inside")
                  if glob.glob(os.path.join(d, f"mounts-{s}-r*.json"))]
    mrounds = {s: rounds_of(os.path.join(d, f"mounts-{s}-r*.json")) for s in scen_order}
    mtarget = None
    mblocked = None
    if "plain" in mrounds:
        counts = {}
        for s in scen_order:
            f = os.path.join(d, f"mounts-{s}.count")
            if os.path.exists(f):
                counts[s] = open(f).read().strip()
        desc = {"plain": "a private copy of the host's mounts",
                "outside": "+ extra tmpfs mounts under a /tmp dir no jail binds",
                "inside": "+ extra tmpfs mounts under the project dir (bound recursively)"}
        p("## Host mount count (private mount namespaces of the benchmark; the host's table is never touched)")
        p("")
        for s in scen_order:
            p(f"- {s}: {counts.get(s, '?')} mounts — {desc[s]}")
        p(f"- host mount table unchanged afterwards: {meta.get('mounts_check', '?')}")
        p("")
        names = mrounds["plain"][1]
        mc = [r[0] for r in read_tsv(os.path.join(d, "mounts-cmds.tsv"))]
        names = [n for n in mc if n in names] + [n for n in names if n not in mc]
        hdr = "| command | " + " | ".join(f"{s} median ms" for s in scen_order)
        sep = "|---|" + "---:|" * len(scen_order)
        for s in scen_order[1:]:
            hdr += f" | × own plain, {s} (rounds)"
            sep += "---:|"
        p(hdr + " |")
        p(sep)
        for n in names:
            row = f"| {n} |"
            for s in scen_order:
                t = pooled(mrounds[s][0], n)
                row += f" {st.median(t):.2f} |" if t else " – |"
            for s in scen_order[1:]:
                pr, sr = mrounds["plain"][0], mrounds[s][0]
                rr = [st.median(b[n]) / st.median(a[n]) for a, b in zip(pr, sr)
                      if a.get(n) and b.get(n)]
                row += f" {fmt_range(rr)} |"
                if n == STUB and s == "outside" and rr:
                    mtarget = rr
                if n == BLK and s == "outside" and rr:
                    mblocked = rr
            p(row)
        p("")
    if mtarget:
        targets.append(("jail-worker with 200 more host mounts / without",
                        fmt_range(mtarget, "{:.3f}"), f"≤ {T_MOUNTS}", verdict(st.median(mtarget), T_MOUNTS)))
    else:
        targets.append(("jail-worker with 200 more host mounts / without",
                        meta.get("mounts_skip", "not measured"), f"≤ {T_MOUNTS}", "n/a"))
    if mblocked:
        targets.append(("jail-worker-blocked with 200 more host mounts / without",
                        fmt_range(mblocked, "{:.3f}"), f"≤ {T_MOUNTS}",
                        f"reported ({verdict(st.median(mblocked), T_MOUNTS)})"))

    # --- RSS ----------------------------------------------------------------
    rss_cmds = read_tsv(os.path.join(d, "rss-cmds.tsv"))
    rss = {}
    for r in read_tsv(os.path.join(d, "rss.tsv")):
        if len(r) >= 3 and r[1].isdigit():
            rss.setdefault(r[0], []).append((int(r[1]), int(r[2])))
    # tree: name -> rep -> [(depth, proc, kib)], and the exit status per rep
    tree, texit = {}, {}
    for r in read_tsv(os.path.join(d, "rss-tree.tsv")):
        if len(r) == 4 and r[2] == "exit":
            texit.setdefault(r[0], []).append(int(r[3]))
        elif len(r) == 5 and r[4].lstrip("-").isdigit():
            tree.setdefault(r[0], {}).setdefault(r[1], []).append((int(r[2]), r[3], int(r[4])))
    rss_t = None
    if rss or tree:
        p("## Peak RSS")
        p("")
    if rss:
        p("Whole tree, `/bin/true` as the target (ru_maxrss from wait4, what GNU `time -v` reports; "
          "this is how the peers' figures in research/perf-baseline.md were taken). "
          "A dynamic `/bin/true` is about 1 MiB by itself, so this is mostly the target; a launcher that "
          "does not wait for its jail's processes only shows its own, and a tiny static process can read 0 "
          "(the kernel folds RSS counters per CPU in batches):")
        p("")
        p("| command | KiB median (min–max) | MiB |")
        p("|---|---:|---:|")
        for c in rss_cmds:
            if c[1] != "max" or c[0] not in rss:
                continue
            v = [k for k, _ in rss[c[0]]]
            bad = sum(1 for _, s_ in rss[c[0]] if s_)
            fl = f" ({bad} runs exited non-zero)" if bad else ""
            p(f"| {c[0]}{fl} | {st.median(v):.0f} ({min(v)}–{max(v)}) | {st.median(v) / 1024:.2f} |")
        p("")
    if tree:
        p("The launcher's own processes, each one's VmHWM (/proc/PID/status, exact) read while "
          "the target (a static probe that holds until released) runs inside, so set-up is complete. "
          "\"own peak\" is the largest process of the launcher, \"own sum\" all of them together:")
        p("")
        p("| command | processes (depth name: KiB median) | own peak KiB median (min–max) | own sum KiB median |")
        p("|---|---|---:|---:|")
        for c in rss_cmds:
            if c[1] != "tree" or c[0] not in tree:
                continue
            reps = tree[c[0]]
            by_pos, peaks, sums = {}, [], []
            for rep in reps.values():
                own = [(dp, nm, k) for dp, nm, k in rep if nm != "ajprobe"]
                for dp, nm, k in rep:
                    by_pos.setdefault((dp, nm), []).append(k)
                if own:
                    peaks.append(max(k for _, _, k in own))
                    sums.append(sum(k for _, _, k in own))
            procs = ", ".join(f"{dp} {nm}: {st.median(v):.0f}" for (dp, nm), v in sorted(by_pos.items()))
            bad = sum(1 for x in texit.get(c[0], []) if x)
            fl = f" ({bad} runs exited non-zero)" if bad else ""
            p(f"| {c[0]}{fl} | {procs} | {fmt_range(peaks, '{:.0f}')} | "
              f"{st.median(sums):.0f} |" if peaks else f"| {c[0]}{fl} | {procs} | – | – |")
            if c[0] == STUB and peaks:
                rss_t = st.median(peaks) / 1024
        p("")
    targets.append(("peak RSS of jail-worker (its largest process, VmHWM), MiB",
                    f"{rss_t:.3f}" if rss_t is not None else "not measured",
                    f"≤ {T_RSS_MIB}", verdict(rss_t, T_RSS_MIB)))

    # --- sizes --------------------------------------------------------------
    sizes = read_tsv(os.path.join(d, "sizes.tsv"))
    size_t = None
    if sizes:
        p("## Stripped stub sizes")
        p("")
        p("| stub | bytes | KiB |")
        p("|---|---:|---:|")
        for n, b in sizes:
            p(f"| {n} | {int(b)} | {int(b) / 1024:.1f} |")
            if n == STUB:
                size_t = int(b) / 1024
        p("")
    targets.append(("stripped jail-worker, KiB", f"{size_t:.1f}" if size_t is not None else "not built",
                    f"≤ {T_SIZE_KIB}", verdict(size_t, T_SIZE_KIB)))

    # --- Landlock on/off ------------------------------------------------------
    ll = None
    llon = LLON if LLON in have else STUB
    if rounds and {llon, NOLL} <= have:
        ll = per_round(rounds, lambda a, b: a - b, llon, NOLL)
        targets.append((f"Landlock on − off at start-up ({llon} − {NOLL}), ms",
                        fmt_range(ll, "{:+.3f}"), f"≤ {T_LANDLOCK_MS}", verdict(st.median(ll), T_LANDLOCK_MS)))
    else:
        targets.append(("Landlock on − off at start-up, ms", "not measured", f"≤ {T_LANDLOCK_MS}", "n/a"))

    hcmds = read_tsv(os.path.join(d, "heavy-cmds.tsv"))
    hrounds, horder, hfailed = rounds_of(os.path.join(d, "heavy-r*.json"))
    if hrounds:
        hbase = {c[0]: c[1] for c in hcmds}
        p(f"## File-heavy work, in the large project ({meta.get('bigrepo', '?')}; "
          f"{len(hrounds)} rounds, {len(pooled(hrounds, horder[0]))} runs per command)")
        p("")
        horder = [c[0] for c in hcmds if c[0] in set(horder)] + [n for n in horder if n not in hbase]
        out.extend(time_table(hrounds, horder, hfailed, hbase))
        p("")
        hl = set(horder)
        for w in ("find", "git", "true"):
            on, off = f"{w}: {llon}", f"{w}: {NOLL}"
            if {on, off} <= hl:
                dd = per_round(hrounds, lambda a, b: a - b, on, off)
                rr = per_round(hrounds, lambda a, b: a / b, on, off)
                label = {"find": "`find /usr -type f`", "git": "`git status` on the large tree",
                         "true": "`/bin/true` started in the large project (scan of 20k entries)"}[w]
                targets.append((f"Landlock on − off, {label}, ms (× off)",
                                f"{fmt_range(dd, '{:+.2f}')}; × {fmt_range(rr, '{:.3f}')}", "reported", "–"))

    # --- throughput -----------------------------------------------------------
    tp = os.path.join(d, "tput.json")
    if os.path.exists(tp):
        with open(tp) as fh:
            t = json.load(fh)
        p(f"## Throughput: {t['n']} jails per burst through `xargs -P J`, {t['reps']} repetitions, interleaved")
        p("")
        hdr, sep = "| command |", "|---|"
        for j in t["jobs"]:
            hdr += f" -P {j} jails/s median (min–max) | -P {j} × bare rate |"
            sep += "---:|---:|"
        p(hdr)
        p(sep)
        for n in t["names"]:
            row = f"| {n} |"
            for j in t["jobs"]:
                k = f"{n}|{j}"
                v, r = t["rates"][k], t["rel"][k]
                fl = f" ({t['failed'][k]} bursts had failures)" if t["failed"].get(k) else ""
                row += f" {fmt_range(v, '{:.0f}')}{fl} | {fmt_range(r)} |"
            p(row)
        p("")

    # --- python -----------------------------------------------------------------
    if rounds and {"python", "jail-python"} <= have:
        v = per_round(rounds, lambda s, b: s / b, "jail-python", "python")
        o = per_round(rounds, lambda s, b: s - b, "jail-python", "python")
        extra = ""
        if "bwrap python" in have:
            ob = per_round(rounds, lambda s, b: s - b, "bwrap python", "python")
            extra = f"; bwrap: + {fmt_range(ob)} ms"
        targets.append(("`jail-python -c pass` vs `python3 -c pass`",
                        f"× {fmt_range(v, '{:.3f}')}, + {fmt_range(o)} ms{extra}", "reported", "–"))

    lines13, targets13 = issue13(d, meta, rounds)
    out.extend(lines13)
    lines14, targets14 = issue14(d, meta)
    out.extend(lines14)

    # --- targets first in the file, then the tables -------------------------
    tl = ["## Targets of issue 6 (ratios within rounds: median (min–max over rounds))", "",
          "| target | measured | limit | result |", "|---|---|---|---|"]
    for name, val, lim, res in targets:
        tl.append(f"| {name} | {val} | {lim} | **{res}** |" if res in ("PASS", "FAIL")
                  else f"| {name} | {val} | {lim} | {res} |")
    tl.append("")
    if targets13:
        tl += ["## Targets of issue 13 (ratios within rounds: median (min–max over rounds))", "",
               "| target | measured | limit | result |", "|---|---|---|---|"]
        for name, val, lim, res in targets13:
            tl.append(f"| {name} | {val} | {lim} | **{res}** |" if res in ("PASS", "FAIL")
                      else f"| {name} | {val} | {lim} | {res} |")
        tl.append("")
    if targets14:
        tl += ["## Figures of issue 14, the proxy (within rounds: median (min–max over rounds))", "",
               "| figure | measured | limit | result |", "|---|---|---|---|"]
        for name, val, lim, res in targets14:
            tl.append(f"| {name} | {val} | {lim} | {res} |")
        tl.append("")
    head_end = next(i for i, l in enumerate(out) if l.startswith("## ")) if any(
        l.startswith("## ") for l in out) else len(out)
    out[head_end:head_end] = tl

    cmdl, seen = [], set()
    for label, f in (("start-up", "main-cmds.tsv"), ("file-heavy (cwd: the large project)", "heavy-cmds.tsv"),
                     ("mounts", "mounts-cmds.tsv"), ("large project", "big-cmds.tsv"),
                     ("agent commands", "agent-cmds.tsv"), ("egress (issue 14)", "egress-cmds.tsv"),
                     ("RSS", "rss-cmds.tsv"), ("throughput", "tput-cmds.tsv")):
        rows = read_tsv(os.path.join(d, f))
        if rows:
            cmdl.append(f"{label}:")
            cmdl.append("")
            if f == "agent-cmds.tsv":
                cmdl.append("- each `NAME: jail` row is `jail` followed by its bare command, each `NAME: bwrap` row "
                            "the bwrap twin of jail-worker with this project followed by it")
                rows = [r for r in rows if r[0].endswith(": bare")]
            for r in rows:
                nm = f"{r[0]} ({'tree' if r[1] == 'tree' else 'ru_maxrss'})" if f == "rss-cmds.tsv" else r[0]
                cmdl.append(f"- {nm}: " + ("as above" if r[-1] in seen else f"`{r[-1]}`"))
                seen.add(r[-1])
            cmdl.append("")
    if cmdl:
        out.append("## Command lines")
        out.append("")
        out.extend(cmdl)
    print("\n".join(out).rstrip("\n"))


if __name__ == "__main__":
    sys.exit(main())
