#!/usr/bin/env python3
"""stub.py: the stub's rooms hold (docs/layout.md).

Usage: tests/layers/stub.py ROOM... -- OBJ...
  ROOM  the rooms, lowest first (the Makefile's ROOMS)
  OBJ   the stub's objects built for the unit tests, one per file

From the sources' #include lines (the rule is in them, not in nm):
  - a room calls only the rooms EDGES names for it (docs/layout.md draws
    the same graph); its header includes base/base.h and the headers of
    those rooms, nothing else, so a room sees what it uses and no more;
  - a file in stub/ROOM/ includes no project header but its room's own
    (ROOM/ROOM.h, or another in ROOM/ shared by some of its files), the
    common/ ones and the include/ ones SHARED gives its room;
  - the entry points (stub/*.c) include stub.h (policy.c: aj_table.h alone);
  - no "../" in any include between top-level folders;
  - no .c file directly in stub/ but the entry points (ENTRY).
From the objects (nm): a call from one room into another follows EDGES; no
room reads or writes another room's variable (it calls a function of that
room: only base/'s hooks and the contract's tables are shared); no
cycle between files, so that no room's files call
upwards through a function pointer's back door either, none is over
600 lines (LIMIT; OVER names the exceptions on their way out), and every name a file defines for the others begins with the
file's own name (prefix = file: plan_ in plan.c, wire_ in wire.c), so that
a call says where to look; but the contract's own tables (aj_table.h's
extern aj_ names, defined in base/contract.c).
"""
import collections
import glob
import os
import re
import subprocess
import sys

LIMIT = 600
# Files still over LIMIT while their split is under way, by name, each
# with the limit it keeps meanwhile (none now).
OVER = {}

# Which rooms each room calls (and so includes), lowest first.  base is
# under every room.  A new edge is a decision: add it here and to
# docs/layout.md's graph, and keep the order (no room calls one later in
# ROOMS).
EDGES = {
    "base": [],
    "variant": ["base"],
    "scan": ["base", "variant"],
    "watch": ["base", "variant", "scan"],
    "confine": ["base", "variant"],
    "root": ["base", "variant", "scan", "confine"],
    "notify": ["base", "root"],
    "egress": ["base", "variant", "confine", "notify"],
    "term": ["base"],
    "proc": ["base", "variant", "scan", "confine", "root", "notify", "egress", "term"],
    "fallback": ["base", "variant", "scan", "confine", "root", "term"],
    "explain": ["base", "variant", "scan", "watch", "confine", "root", "egress", "term", "proc",
                "fallback"],
}
ENTRY = {"main.c", "options.c", "fallback.c", "policy.c"}
# include/'s headers another program reads too, and the rooms that may
# include them (aj_table.h: base.h alone, as EDGES' "want" says).
SHARED = {"aj_watchstate.h": {"watch"}, "aj_owndir.h": {"variant"}}

args = sys.argv[1:]
sep = args.index("--")
rooms, objs = args[:sep], args[sep + 1:]
rank = {r: i for i, r in enumerate(rooms)}
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
fail = 0


def bad(msg):
    global fail
    print("FAIL " + msg)
    fail = 1


def includes(path):
    with open(path, encoding="utf-8") as f:
        return inc_re.findall(f.read())


for path in sorted(glob.glob("stub/*.c")):
    if os.path.basename(path) not in ENTRY:
        bad("%s: a .c file outside a room (only %s may be)" % (path, ", ".join(sorted(ENTRY))))
    for inc in includes(path):
        if inc not in ("stub.h", "aj_table.h"):
            bad("%s includes \"%s\" (an entry point includes stub.h; policy.c the contract alone)" % (path, inc))

for room in rooms:
    if room not in EDGES:
        bad("stub/%s/: a room with no line in EDGES (tests/layers/stub.py)" % room)
        continue
    for r in EDGES[room]:
        if rank.get(r, len(rooms)) >= rank[room]:
            bad("EDGES: %s calls %s, which is not below it in ROOMS" % (room, r))
    own = "%s/%s.h" % (room, room)
    want = ["%s/%s.h" % (r, r) for r in EDGES[room]] + (["aj_table.h"] if room == "base" else [])
    for path in sorted(glob.glob("stub/%s/*.[ch]" % room)):
        for inc in includes(path):
            if ".." in inc.split("/"):
                bad("%s includes \"%s\": no ../ between folders" % (path, inc))
            elif inc.startswith("common/"):
                continue
            elif path == "stub/" + own:
                if inc not in want and room not in SHARED.get(inc, ()):
                    bad("%s includes \"%s\" (a room header includes base/base.h and the "
                        "rooms it calls: %s)" % (path, inc, ", ".join(want)))
            elif inc.split("/")[0] == room:
                continue  # its room's header, or one shared by some of its files
            elif room in SHARED.get(inc, ()):
                continue  # what the room shares with another program (include/)
            else:
                bad("%s includes \"%s\": not its room's (a room's file includes %s)" %
                    (path, inc, own))
    if os.path.exists("stub/" + own):
        got = includes("stub/" + own)
        for w in want:
            if w not in got:
                bad("stub/%s does not include \"%s\" (EDGES says %s calls it)" % (own, w, room))
for path in sorted(glob.glob("stub/*/")):
    r = os.path.basename(os.path.dirname(path))
    if r not in rank:
        bad("stub/%s/: a folder that is not a room (the Makefile's ROOMS)" % r)

# The files' calls, from the objects.
defs, uses = {}, collections.defaultdict(set)
src_of = {}
for obj in objs:
    rel = os.path.relpath(obj).split(os.sep)
    i = rel.index("test")
    mod = "/".join(rel[i + 1:])[:-2]  # stub/scan/scan, common/hosts
    src_of[mod] = mod + ".c"
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defs[f[2]] = mod
        elif len(f) == 2 and f[0] == "U":
            uses[mod].add(f[1])
graph = {m: {defs[u] for u in us if u in defs and defs[u] != m} for m, us in uses.items()}


def room_of(mod):
    p = mod.split("/")
    return p[1] if p[0] == "stub" and len(p) == 3 else None


# Variables: a room's own.  base/'s are the floor's hooks (die_*, rp_json)
# every room may set; the entry points wire the rooms together.
data = {}
for obj in objs:
    rel = os.path.relpath(obj).split(os.sep)
    mod = "/".join(rel[rel.index("test") + 1:])[:-2]
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "DBRC":
            data[f[2]] = mod
for m, us in sorted(uses.items()):
    a = room_of(m)
    for u in sorted(us):
        b = room_of(data.get(u, ""))
        if a and b and a != b and b != "base" and not u.startswith("aj_"):
            bad("%s.c uses %s, a variable of %s/ (%s.c): a room's variables are its own; "
                "call a function of %s/" % (m, u, b, data[u], b))

for m, callees in sorted(graph.items()):
    a = room_of(m)
    for n in sorted(callees):
        b = room_of(n)
        if a and b and a != b and b not in EDGES.get(a, ()):
            bad("%s.c calls into %s.c: %s does not call %s (EDGES)" % (m, n, a, b))

# The contract's own tables (include/aj_table.h declares them, one file
# of each program defines them): their names are the contract's, aj_.
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(root, "include", "aj_table.h"), encoding="utf-8") as f:
    contract = set(re.findall(r"^extern\s[^;]*?\b(aj_\w+)\s*\[", f.read(), re.M))

for name, mod in sorted(defs.items()):
    base = mod.rsplit("/", 1)[-1]
    if not name.startswith(base) and name != "main" and name not in contract:
        bad("%s.c defines %s: a name of its own begins with \"%s\"" % (mod, name, base))

state = {}


def visit(m, path):
    state[m] = 1
    for n in sorted(graph.get(m, ())):
        if state.get(n) == 1:
            bad("cycle: " + " -> ".join(path[path.index(n):] + [n]))
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2


for m in sorted(graph):
    if m not in state:
        visit(m, [m])

for m in sorted(src_of):
    n = sum(1 for _ in open(src_of[m], encoding="utf-8"))
    if n > OVER.get(src_of[m], LIMIT):
        bad("%s: %d lines (%d at most)" % (src_of[m], n, OVER.get(src_of[m], LIMIT)))
print("stub layers: %d rooms, %d files, %s" % (len(rooms), len(src_of),
                                                "a wrong include, a cycle or a long file"
                                                if fail else "no upward include, no cycle"))
sys.exit(fail)
