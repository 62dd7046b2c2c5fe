#!/usr/bin/env python3
"""The large project of issue 13, generated the same way every time.

usage:
  bigproj.py make DIR     create DIR if its stamp is missing (about a minute)
  bigproj.py count DIR    print "entries directories files" of DIR, .git aside
  bigproj.py deep DIR     print the deepest directory's path, relative to DIR

DIR holds ENTRIES (145000) entries below it in DIRS (16000) directories, the
shape of a copy of /usr/lib and /usr/share: a random recursive tree (each new
directory's parent drawn from those made so far, at most 15 levels deep),
the files spread over the directories, names made of library-ish words with
an index, sizes drawn from a wide distribution (most under 8 KiB, a few of
MiBs; the files are sparse, so the tree costs little disk).  Every draw comes
from one fixed linear congruential generator, not Python's `random`, so the
tree is the same with any Python.

Secrets: a .env at the top and four deep in the tree (they count among the
entries).  The tree is a git work tree too (.git is not counted: base.aj
prunes .git/objects, and the objects are packed), with .env ignored as a
real project would, so `git status` in it reads an index of every file.
"""
import os
import subprocess
import sys

ENTRIES = int(os.environ.get("BIGPROJ_ENTRIES", "145000"))
DIRS = int(os.environ.get("BIGPROJ_DIRS", "16000"))
MAXDEPTH = 14
STAMP = "ajbench-bigproj-v1"

WORDS = ("lib", "share", "locale", "doc", "python3", "perl5", "x86_64", "gnu", "include", "man",
         "icons", "hicolor", "scalable", "apps", "mime", "packages", "site", "dist", "modules",
         "encodings", "email", "http", "json", "xml", "dom", "parsers", "test", "tests", "data",
         "fonts", "truetype", "zoneinfo", "America", "Europe", "terminfo", "vim", "syntax",
         "ftplugin", "autoload", "gcc", "plugin", "bfd", "ssl", "engines", "gconv", "systemd",
         "udev", "rules", "firmware", "kernel", "drivers", "net", "sound", "media", "git",
         "templates", "hooks", "node", "npm", "bin", "cmake", "pkgconfig", "aclocal", "info")
EXTS = (".so", ".so.1", ".py", ".pyc", ".h", ".mo", ".gz", ".txt", ".html", ".png", ".svg",
        ".pm", ".pl", ".vim", ".xml", ".conf", ".a", ".la", ".js", ".css", ".cmake", ".pc", "")


class Lcg:
    """64-bit linear congruential generator (Knuth's MMIX constants)."""

    def __init__(self, seed):
        self.s = seed & (2**64 - 1)

    def next(self, n):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return (self.s >> 33) % n


def plan(entries=ENTRIES, ndirs=DIRS):
    """(directories, files): relative paths, files with their sizes."""
    r = Lcg(13)
    dirs = [("", 0)]  # (path, depth)
    names = {"": set()}
    for i in range(1, ndirs + 1):
        # Biased to recent directories: deep chains as well as wide levels.
        k = len(dirs) - 1 - r.next(min(len(dirs), 64)) if r.next(3) else r.next(len(dirs))
        parent, depth = dirs[k]
        if depth >= MAXDEPTH:
            parent, depth = dirs[r.next(len(dirs) // 4 + 1)]
        n = WORDS[r.next(len(WORDS))] + ("" if r.next(2) else "-%d" % r.next(100))
        while n in names[parent]:
            n += "x"
        names[parent].add(n)
        p = parent + "/" + n if parent else n
        names[p] = set()
        dirs.append((p, depth + 1))
    deep = sorted(dirs, key=lambda d: (-d[1], d[0]))
    secrets = [".env"] + [d[0] + "/.env" for d in deep[:4]]
    files = [(s, 40) for s in secrets] + [(".gitignore", 5)]
    for j in range(entries - ndirs - len(files)):
        parent = dirs[r.next(len(dirs))][0]
        n = "%s_%d%s" % (WORDS[r.next(len(WORDS))], j, EXTS[r.next(len(EXTS))])
        if r.next(8) == 0:
            size = 0
        elif r.next(50) == 0:
            size = 1 << (20 + r.next(3))
        else:
            size = (1 << r.next(14)) + r.next(1024)
        files.append((parent + "/" + n if parent else n, size))
    return [d[0] for d in dirs[1:]], files, secrets


def make(top):
    if os.path.exists(os.path.join(top, ".git", STAMP)):
        return
    dirs, files, secrets = plan()
    os.makedirs(top, exist_ok=True)
    for d in dirs:
        os.makedirs(os.path.join(top, d), exist_ok=True)
    for f, size in files:
        p = os.path.join(top, f)
        if f in secrets:
            with open(p, "w") as fh:
                fh.write("TOKEN=do-not-read-%d\n" % secrets.index(f))
            os.chmod(p, 0o600)
        elif f == ".gitignore":
            with open(p, "w") as fh:
                fh.write(".env\n")
        else:
            with open(p, "wb") as fh:
                fh.truncate(size)
    git = ["git", "-c", "user.name=ajbench", "-c", "user.email=ajbench@localhost",
           "-c", "init.defaultBranch=main", "-C", top]
    q = {"stdout": subprocess.DEVNULL}
    subprocess.run(git + ["init", "-q"], check=True, **q)
    subprocess.run(git + ["add", "-A"], check=True, **q)
    subprocess.run(git + ["commit", "-q", "-m", "bigproj"], check=True, **q)
    subprocess.run(git + ["repack", "-adq"], check=True, **q)
    subprocess.run(git + ["prune-packed"], check=True, **q)
    subprocess.run(git + ["status", "--porcelain"], check=True, **q)  # refresh the index
    open(os.path.join(top, ".git", STAMP), "w").close()


def count(top):
    nd = nf = 0
    for root, ds, fs in os.walk(top):
        if root == top and ".git" in ds:
            ds.remove(".git")
        nd += len(ds)
        nf += len(fs)
    return nd + nf, nd, nf


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "count", "deep"):
        sys.exit(__doc__)
    top = sys.argv[2]
    if sys.argv[1] == "make":
        make(top)
    elif sys.argv[1] == "count":
        print(*count(top))
    else:
        dirs = plan()[0]
        print(max(dirs, key=lambda d: (d.count("/"), d)))


if __name__ == "__main__":
    main()
