#!/usr/bin/env python3
"""links.py: every relative link in the README and docs/ leads somewhere.

Usage: tests/layers/links.py [FILE.md...]   (default: README.md, docs/*.md,
python/README.md, beside tests/)

A link [text](target) or <a href="target"> that is not a URL (scheme:) is a
path relative to the page: the file or folder must exist, and a #anchor
(on its own, or after a .md) must be a heading of that page, as GitHub
makes its ids (lower case, punctuation dropped, blanks to hyphens, a -N
for the Nth repeat).  Links inside code (``` blocks, `spans`) are text.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|href=\"([^\"]+)\"")


def strip_code(text):
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "``", line))
    return out


def anchors(path, cache={}):
    if path not in cache:
        seen, ids = {}, set()
        fence = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.lstrip().startswith("```"):
                    fence = not fence
                m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
                slug = re.sub(r"[^\w\- ]", "", h).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                ids.add(slug if n == 0 else "%s-%d" % (slug, n))
        cache[path] = ids
    return cache[path]


def check(page):
    bad = []
    with open(page, encoding="utf-8") as f:
        lines = strip_code(f.read())
    for no, line in enumerate(lines, 1):
        for m in LINK.finditer(line):
            target = m.group(1) or m.group(2)
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = "%s:%d: %s" % (os.path.relpath(page, ROOT), no, target)
            if not os.path.exists(dest):
                bad.append("%s: no such file" % where)
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append("%s: no heading #%s in %s" % (where, frag, os.path.relpath(dest, ROOT)))
    return bad


pages = sys.argv[1:] or [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "python", "README.md")] + \
    sorted(os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md"))
fail = []
count = 0
for p in pages:
    fail += check(p)
    count += 1
for b in fail:
    print("FAIL " + b)
if fail:
    print("FAIL links: %d broken in %d pages" % (len(fail), count))
    sys.exit(1)
print("PASS links: %d pages, every relative link leads somewhere" % count)
