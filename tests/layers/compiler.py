#!/usr/bin/env python3
"""compiler.py: the compiler and the tools keep the stub's rules.

Usage: tests/layers/compiler.py COMPILER_OBJ... -- STUB_OBJ...
  COMPILER_OBJ  the compiler's objects, one per compiler/X.c (the
                grammar's generated objects are skipped: bison names them)
  STUB_OBJ      the stub's objects (the layer check's, one per file)

From the objects (nm), as tests/layers/stub.py for the stub:
  - every name compiler/X.c defines for the others begins with "X"
    (prefix = file), but main and the contract's own aj_ tables;
  - no name is defined in both programs, so that a name says which
    program (and which file) to read;
  - no cycle between the compiler's files.
From the sources:
  - no file in compiler/ or tools/ over LIMIT lines;
  - no include in compiler/ or tools/ reaches into another top-level
    folder by "../": what two programs share lives in include/ or common/.
"""
import collections
import glob
import os
import re
import subprocess
import sys

LIMIT = 600
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = sys.argv[1:]
sep = args.index("--") if "--" in args else len(args)
cobjs, sobjs = args[:sep], args[sep + 1:]
fail = 0


def bad(msg):
    global fail
    print("FAIL " + msg)
    fail = 1


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defs, uses = [], set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defs.append(f[2])
        elif len(f) == 2 and f[0] == "U":
            uses.add(f[1])
    return defs, uses


with open(os.path.join(root, "include", "aj_table.h"), encoding="utf-8") as f:
    contract = set(re.findall(r"^extern\s[^;]*?\b(aj_\w+)\s*\[", f.read(), re.M))

defs, uses = {}, collections.defaultdict(set)
for obj in cobjs:
    parts = os.path.normpath(obj).split(os.sep)
    if "compiler" not in parts:
        continue  # grammar/, common/: not the compiler's own files
    mod = os.path.basename(obj)[:-2]
    d, u = symbols(obj)
    uses[mod] |= u
    for name in d:
        defs[name] = mod
        if not name.startswith(mod) and name != "main" and name not in contract:
            bad("compiler/%s.c defines %s: a name of its own begins with \"%s\"" % (mod, name, mod))

stub_defs = set()
for obj in sobjs:
    stub_defs.update(symbols(obj)[0])
for name in sorted(set(defs) & stub_defs):
    if name != "main" and name not in contract:
        bad("%s is defined in compiler/%s.c and in the stub: one name, one program" %
            (name, defs[name]))

graph = {m: {defs[n] for n in us if n in defs and defs[n] != m} for m, us in uses.items()}
state = {}


def visit(m, path):
    state[m] = 1
    for n in sorted(graph.get(m, ())):
        if state.get(n) == 1:
            bad("cycle: " + " -> ".join("compiler/%s.c" % p for p in path[path.index(n):] + [n]))
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2


for m in sorted(graph):
    if m not in state:
        visit(m, [m])

inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = sorted(glob.glob(os.path.join(root, "compiler", "*.[ch]")) +
               glob.glob(os.path.join(root, "tools", "*.[ch]")))
for path in files:
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = text.count("\n")
    if n > LIMIT:
        bad("%s: %d lines (%d at most: split it by what it does)" % (rel, n, LIMIT))
    for inc in inc_re.findall(text):
        if ".." in inc.split("/"):
            bad("%s includes \"%s\": no ../ between top-level folders (include/ holds "
                "what two programs share)" % (rel, inc))

print("compiler layers: %d files, %d names, %s" %
      (len(files), len(defs), "a wrong name, a cycle, a long file or a ../ include"
       if fail else "prefix = file, no name in both programs, no cycle, none over %d lines" % LIMIT))
sys.exit(fail)
