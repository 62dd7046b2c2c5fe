#!/usr/bin/env python3
"""bench/appear.py: the window between a secret name appearing in a running
jail's project and its cover (stub/root/appear.c).

Usage: bench/appear.py STUB [N] [USER]
Makes a project in /tmp, starts STUB (jail-python's kind: it runs
python3) in it with a script that, for each of N names w<i>.key created
by this process, polls lstat() until the name is another device (the
cover is a mount), and records CLOCK_MONOTONIC then; this process records
it just before it creates the name.  The clock is the same on both sides
(no time namespace).  Prints the median, p90 and max in milliseconds.
The jail's poll sleeps 0.1 ms between looks, so each figure may be up to
that much late.  As root, USER runs the jail (setpriv)."""
import os, shutil, statistics, subprocess, sys, tempfile, time

stub = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
user = sys.argv[3] if len(sys.argv) > 3 else None

INSIDE = r'''
import os, sys, time
n = int(sys.argv[1])
dev = os.stat(".").st_dev
open("ready", "w").close()
out = []
for i in range(n):
    name = "w%d.key" % i
    while True:
        try:
            if os.lstat(name).st_dev != dev:
                break
        except FileNotFoundError:
            pass
        time.sleep(0.0001)
    out.append(time.monotonic())
with open("times", "w") as f:
    f.write("\n".join("%.9f" % t for t in out))
'''

proj = tempfile.mkdtemp(prefix="apbench-", dir="/tmp")
os.chmod(proj, 0o755)
pre = []
if user:
    import pwd
    pw = pwd.getpwnam(user)
    os.chown(proj, pw.pw_uid, pw.pw_gid)
    pre = ["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--reset-env",
           "env", "-i", "HOME=" + tempfile.mkdtemp(prefix="apbench-home-"), "PATH=/usr/bin:/bin"]
    os.chown(pre[-2].split("=", 1)[1], pw.pw_uid, pw.pw_gid)
p = subprocess.Popen(pre + [stub, "-c", INSIDE, str(n)], cwd=proj)
while not os.path.exists(os.path.join(proj, "ready")):
    time.sleep(0.01)
time.sleep(0.3)  # the covering process has listed the project by now
made = []
for i in range(n):
    path = os.path.join(proj, "w%d.key" % i)
    made.append(time.monotonic())
    with open(path, "w") as f:
        f.write("K")
    time.sleep(0.02)
rc = p.wait()
with open(os.path.join(proj, "times")) as f:
    seen = [float(x) for x in f.read().split()]
shutil.rmtree(proj)
ms = sorted((s - m) * 1000 for s, m in zip(seen, made))
print("%s n=%d rc=%d median %.2f ms, p90 %.2f ms, max %.2f ms" %
      (user or "root", len(ms), rc, statistics.median(ms), ms[int(len(ms) * 0.9)], ms[-1]))
