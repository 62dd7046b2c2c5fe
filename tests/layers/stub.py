#!/usr/bin/env python3
"""stub.py: the stub's files call each other without a cycle, and none is
much over 700 lines.  Every stub file includes the one sys.h, so the
graph is read from the objects: who defines a symbol, who uses it (nm).

Usage: tests/layers/stub.py OBJ...   (the stub's objects, one per file)
"""
import collections
import os
import subprocess
import sys

LIMIT = 720  # "about 700"

defs, uses = {}, collections.defaultdict(set)
for obj in sys.argv[1:]:
    mod = os.path.basename(obj).rsplit(".", 2)[0]
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defs[f[2]] = mod
        elif len(f) == 2 and f[0] == "U":
            uses[mod].add(f[1])
graph = {m: {defs[u] for u in us if u in defs and defs[u] != m} for m, us in uses.items()}

fail = 0
state = {}
def visit(m, path):
    global fail
    state[m] = 1
    for n in sorted(graph.get(m, ())):
        if state.get(n) == 1:
            print("FAIL cycle: " + " -> ".join(path[path.index(n):] + [n]))
            fail = 1
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2
for m in sorted(graph):
    if m not in state:
        visit(m, [m])

for m in sorted(set(graph) | set(defs.values())):
    src = os.path.join("stub", m + ".c")
    if os.path.exists(src):
        n = sum(1 for _ in open(src, encoding="utf-8"))
        if n > LIMIT:
            print("FAIL %s: %d lines (about 700 at most)" % (src, n))
            fail = 1
print("stub layers: %d files, %s" % (len(graph), "a cycle or a long file" if fail else "no cycle"))
sys.exit(fail)
