#!/usr/bin/env python3
"""Jails per second with a few in flight: N starts of each command through
`xargs -0 -P J`, timed from the first spawn to the last exit.

usage: throughput.py CMDS.tsv OUT.json N REPS J [J…]

CMDS.tsv: name<TAB>command line (shell words, no shell is run).  xargs execs
the command's first word with the remaining words as arguments, N times, J
at a time, so nothing but xargs stands between the clock and the launcher.
Repetitions are interleaved over commands and J, with the order rotated each
repetition; the rate relative to the first command (bare) is taken within a
repetition.  A burst in which any start failed is recorded as such.
"""
import json
import shlex
import subprocess
import sys
import tempfile
import time


def burst(argv, n, jobs):
    head, rest = argv[0], argv[1:] or ["x"]  # xargs needs one argument per call
    data = b"".join(a.encode() + b"\0" for a in rest) * n
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.seek(0)
        t0 = time.perf_counter()
        r = subprocess.run(["xargs", "-0", "-n", str(len(rest)), "-P", str(jobs), head],
                           stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0, r.returncode


def main():
    tsv, out, n, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    jobs = [int(j) for j in sys.argv[5:]] or [2, 4]
    cmds = []
    with open(tsv) as fh:
        for line in fh:
            name, cmd = line.rstrip("\n").split("\t", 1)
            cmds.append((name, shlex.split(cmd)))
    rates = {f"{name}|{j}": [] for name, _ in cmds for j in jobs}
    rel = {k: [] for k in rates}
    failed = {k: 0 for k in rates}
    for rep in range(reps):
        for j in jobs:
            k = rep % len(cmds)
            got = {}
            for name, argv in cmds[k:] + cmds[:k]:
                dt, rc = burst(argv, n, j)
                got[name] = n / dt
                rates[f"{name}|{j}"].append(n / dt)
                if rc:
                    failed[f"{name}|{j}"] += 1
            base = cmds[0][0]
            for name, _ in cmds:
                rel[f"{name}|{j}"].append(got[name] / got[base])
            print(f"  throughput rep {rep + 1}/{reps} -P {j}: " +
                  ", ".join(f"{nm} {got[nm]:.0f}/s" for nm, _ in cmds), file=sys.stderr)
    with open(out, "w") as fh:
        json.dump({"n": n, "reps": reps, "jobs": jobs, "names": [c[0] for c in cmds],
                   "rates": rates, "rel": rel, "failed": failed}, fh, indent=1)


if __name__ == "__main__":
    main()
