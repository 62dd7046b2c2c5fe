#!/usr/bin/env python3
"""soak.py: many launches of one stub, in sequence and four at a time.

    soak.py STUB N SEED

Run by tests/escape/soak.sh as the test user, from the fixture project.
The first half of the N launches run one after another, the second half
on four workers at once.  Each launch is one of: true (0), false (1),
sh -c 'exit 3' (3), sh -c 'kill -TERM $$' (143), a missing command (127),
or sleep 600 sent SIGKILL, SIGINT or SIGTERM after a random 0-50 ms.

The stub cannot catch SIGKILL: it dies of it (137 to a shell).  It blocks
SIGINT and SIGTERM early and forwards them to pid 1 and the target, then
exits 128+N with the target's death; a signal that lands before it blocked
them kills the stub itself, which a shell also reports as 128+N.  Both are
right; the figures count them apart.

Prints one "wrong KIND: got X, expected Y" line for the first few wrong
statuses and a last line "launches N seq S par P kill K int I term T
early E wrong W hung H seconds X".
"""
import os
import random
import signal
import subprocess
import sys
import threading
import time

STUB, N, SEED = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ENV = {k: os.environ[k] for k in ("HOME", "USER", "LOGNAME", "PATH") if k in os.environ}
ENV["STRIPE_SECRET_KEY"] = "sk_live_soak"

KINDS = [
    ("true", ["true"], {0}),
    ("false", ["false"], {1}),
    ("exit3", ["sh", "-c", "exit 3"], {3}),
    ("selfterm", ["sh", "-c", "kill -TERM $$"], {143}),
    ("missing", ["aijail-soak-no-such-command"], {127}),
    ("kill", ["sleep", "600"], {-signal.SIGKILL}),
    ("int", ["sleep", "600"], {128 + signal.SIGINT, -signal.SIGINT}),
    ("term", ["sleep", "600"], {128 + signal.SIGTERM, -signal.SIGTERM}),
]
SIGS = {"kill": signal.SIGKILL, "int": signal.SIGINT, "term": signal.SIGTERM}

lock = threading.Lock()
fig = {"launches": 0, "kill": 0, "int": 0, "term": 0, "early": 0, "wrong": 0, "hung": 0}
wrong_lines = []


def one(rng):
    name, argv, ok = KINDS[rng.randrange(len(KINDS))]
    p = subprocess.Popen([STUB] + argv, env=ENV, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if name in SIGS:
        time.sleep(rng.uniform(0, 0.05))
        p.send_signal(SIGS[name])
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        with lock:
            fig["hung"] += 1
    with lock:
        fig["launches"] += 1
        if name in SIGS:
            fig[name] += 1
            if rc < 0 and name != "kill":
                fig["early"] += 1
        if rc not in ok:
            fig["wrong"] += 1
            if len(wrong_lines) < 8:
                wrong_lines.append("wrong %s: got %d, expected %s" % (name, rc, sorted(ok)))


def worker(seed, n):
    rng = random.Random(seed)
    for _ in range(n):
        one(rng)


t0 = time.time()
seq = N // 2
par = N - seq
worker(SEED, seq)
threads = []
for w in range(4):
    n = par // 4 + (1 if w < par % 4 else 0)
    t = threading.Thread(target=worker, args=(SEED * 10 + w + 1, n))
    t.start()
    threads.append(t)
for t in threads:
    t.join()
for line in wrong_lines:
    print(line)
print("launches %d seq %d par %d kill %d int %d term %d early %d wrong %d hung %d seconds %.1f" % (
    fig["launches"], seq, par, fig["kill"], fig["int"], fig["term"], fig["early"],
    fig["wrong"], fig["hung"], time.time() - t0))
