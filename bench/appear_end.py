#!/usr/bin/env python3
"""bench/appear_end.py: what the end of a run longer than 50 ms costs the
caller while the covering process (stub/root/appear.c) watches, for two
traced builds, interleaved (issue 38).

Usage: bench/appear_end.py BEFORE_BIN AFTER_BIN [ROUNDS] [USER]
BEFORE_BIN and AFTER_BIN are build-trace/bin folders (make TRACE=1) with
jail-worker and jail-python.  Each round runs, in a rotated order, for
both builds: `jail-worker /bin/sleep 0.1`, `jail-python -c 'import time;
time.sleep(0.1)'`, and the first again with AIJAIL_APPEAR=0 (no covering
process, for reference), in a 10-file project with one .env.  The caller
captures stdout and stderr to their end and waits, as run_sandboxed does.
Per command, medians and lower quartiles in ms of: pid 1's end to its
reaping (TRACE marks init status-end to parent reaped), the parent's last
mark (its report; the hand-over of the inotify instance follows it) to
the caller's end of waiting (both pipes at end of file, the exit status
read; the same CLOCK_MONOTONIC), and the caller's whole wait (spawn to
the exit status).  As root, USER runs the jails
(setpriv)."""
import os, shutil, statistics, subprocess, sys, tempfile, time

before, after = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
user = sys.argv[4] if len(sys.argv) > 4 else None

proj = tempfile.mkdtemp(prefix="apend-", dir="/tmp")
os.chmod(proj, 0o755)
for i in range(10):
    with open(os.path.join(proj, "f%d.txt" % i), "w") as f:
        f.write("file %d\n" % i)
with open(os.path.join(proj, ".env"), "w") as f:
    f.write("TOKEN=x\n")
pre = []
if user:
    shutil.chown(proj, user)
    for n in os.listdir(proj):
        shutil.chown(os.path.join(proj, n), user)
    pre = ["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups"]
home = os.path.expanduser("~" + user) if user else tempfile.mkdtemp(prefix="apend-home-", dir="/tmp")
env = ["env", "-i", "HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin"]

cmds = {
    "jail-worker sleep 0.1": ("jail-worker", ["/bin/sleep", "0.1"], []),
    "jail-python time.sleep(0.1)": ("jail-python", ["-c", "import time; time.sleep(0.1)"], []),
    "jail-worker sleep 0.1, AIJAIL_APPEAR=0": ("jail-worker", ["/bin/sleep", "0.1"],
                                              ["AIJAIL_APPEAR=0"]),
}
builds = {"before": before, "after": after}
cases = [(b, c) for c in cmds for b in builds]
res = {k: {"end": [], "tail": [], "wait": []} for k in cases}
try:
    for r in range(rounds + 1):  # one warm-up round
        for k in range(len(cases)):
            b, c = cases[(r + k) % len(cases)]
            stub, args, extra = cmds[c]
            argv = pre + env + extra + [os.path.join(builds[b], stub)] + args
            t0 = time.monotonic_ns()
            p = subprocess.run(argv, cwd=proj, capture_output=True, text=True)
            t1 = time.monotonic_ns()
            if p.returncode:
                raise SystemExit("%s %s: exit %d: %s" % (b, c, p.returncode, p.stderr[-400:]))
            if not r:
                continue
            marks = {}
            last = 0
            for l in p.stderr.splitlines():
                f = l.split("\t")
                if f[0] == "ajtrace":
                    marks[(f[1], f[2])] = int(f[4])
                    if f[1] == "parent":
                        last = max(last, int(f[4]))
            res[(b, c)]["end"].append(marks[("parent", "reaped")] - marks[("init", "status-end")])
            res[(b, c)]["tail"].append(t1 - last)
            res[(b, c)]["wait"].append(t1 - t0)
finally:
    shutil.rmtree(proj, ignore_errors=True)
    if not user:
        shutil.rmtree(home, ignore_errors=True)


def ms(v, q):
    v = sorted(v)
    return "%.2f" % (v[(len(v) - 1) * q // 4] / 1e6 if q != 2 else statistics.median(v) / 1e6)


print("%d rounds, interleaved, %s; ms, median (lower quartile)" % (rounds, user or "root"))
print()
print("| command | build | pid 1's end to reaping | the parent's report to the caller's end "
      "| the caller's wait |")
print("|---|---|---:|---:|---:|")
for b, c in sorted(cases, key=lambda k: (list(cmds).index(k[1]), k[0] != "before")):
    x = res[(b, c)]
    print("| %s | %s | %s (%s) | %s (%s) | %s (%s) |" % (
        c, b, ms(x["end"], 2), ms(x["end"], 1), ms(x["tail"], 2), ms(x["tail"], 1),
        ms(x["wait"], 2), ms(x["wait"], 1)))
