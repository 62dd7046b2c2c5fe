#!/usr/bin/env python3
"""python.py: no file of the Python package is over LIMIT lines (issue 35).

Usage: tests/layers/python.py [DIR]   (default: python/, beside tests/)

Every *.py below DIR counts, __pycache__ aside.  A file past the bound is
split by what it does (aijail.mcp into _mcp_json, _mcp_options, _mcp_run),
its public names kept where they were.
"""
import os
import sys

LIMIT = 600

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
files = []
for d, dirs, names in os.walk(top):
    dirs[:] = sorted(x for x in dirs if x != "__pycache__")
    files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
if not files:
    print("FAIL python layers: no .py file below %s" % top)
    sys.exit(1)
fail = 0
for f in files:
    with open(f, "rb") as fh:
        n = fh.read().count(b"\n")
    if n > LIMIT:
        print("FAIL %s: %d lines, over %d: split it by what it does" % (os.path.relpath(f), n, LIMIT))
        fail = 1
if fail:
    print("FAIL python layers: a file over %d lines" % LIMIT)
else:
    print("PASS python layers: %d files, none over %d lines" % (len(files), LIMIT))
sys.exit(fail)
