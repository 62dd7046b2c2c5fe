#!/usr/bin/env python3
"""rooms_doc.py: docs/layout.md's table of rooms names every file of each room.

Usage: tests/layers/rooms_doc.py   (run from anywhere; paths from tests/..)

Each row of the table, | `ROOM/` | what | `a.c b.c …` |, must list exactly
the .c files in stub/ROOM/, and every folder of stub/ must have a row: a
file added, moved or removed without the page saying so fails here.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
with open(os.path.join(ROOT, "docs", "layout.md"), encoding="utf-8") as f:
    text = f.read()
rows = {m.group(1): set(m.group(2).split())
        for m in re.finditer(r"^\| `(\w+)/` \|.*\| `([^`]*)` \|$", text, re.M)}
stub = os.path.join(ROOT, "stub")
fail = 0
for room in sorted(d for d in os.listdir(stub) if os.path.isdir(os.path.join(stub, d))):
    files = {n for n in os.listdir(os.path.join(stub, room)) if n.endswith(".c")}
    if room not in rows:
        print("FAIL docs/layout.md: no row for stub/%s/" % room)
        fail = 1
        continue
    for n in sorted(files - rows[room]):
        print("FAIL docs/layout.md: stub/%s/%s is not in its room's row" % (room, n))
        fail = 1
    for n in sorted(rows[room] - files):
        print("FAIL docs/layout.md: its row for %s/ names %s, which is not there" % (room, n))
        fail = 1
for room in sorted(set(rows) - {d for d in os.listdir(stub)}):
    print("FAIL docs/layout.md: a row for %s/, which is not a folder of stub/" % room)
    fail = 1
if fail:
    sys.exit(1)
print("PASS rooms doc: docs/layout.md names the %d rooms' files" % len(rows))
