#!/usr/bin/env python3
"""Fixture projects for bench/run.sh, and the mask/deny matches of a project.

usage:
  fixture.py make FIXDIR          create FIXDIR/proj and FIXDIR/bigrepo if missing
  fixture.py matches PROJECT AJ…  print 'mask PATH', 'deny-file PATH' and
                                  'deny-dir PATH' for every entry of PROJECT
                                  that the mask/deny globs of the .aj files match

Run it as the user the benchmark measures, so that the fixture is theirs.

proj     a small project (a few dozen files) with secret-looking entries for
         every kind of rule: masked files (.env, .env.local, *.pem,
         credentials.json) and denied ones (secrets/ with db.txt, x.key).
         Every /bin/true start-up figure is taken in it.
bigrepo  a git work tree of BIG_FILES (20000) small files in 420 directories,
         committed and packed, for the file-heavy runs (git status, the
         stub's project scan on a large tree).

The globs follow docs/language.md: `*` within a name, `?`, `[…]`, `**` a whole
component; no '/' = the name at any depth; a '/' inside = anchored at the
project root; a trailing '/' = directories only.  Symlinks are not followed,
and nothing below a denied directory is listed (the deny hides it all).
"""
import os
import re
import subprocess
import sys

BIG_FILES = int(os.environ.get("BIG_FILES", "20000"))
STAMP = "ajbench-fixture-v1"


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, mode)


def make_proj(d):
    files = {
        "README.md": "# fixture project for bench/run.sh\n",
        "main.py": 'print("hello")\n',
        "pyproject.toml": '[project]\nname = "fixture"\nversion = "0"\n',
        ".gitignore": "__pycache__/\n.venv/\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/config": "[core]\n\trepositoryformatversion = 0\n",
        # masked (present, empty, read-only)
        ".env": "DATABASE_URL=postgres://admin:hunter2@db/prod\n",
        ".env.local": "API_KEY=sk-do-not-read\n",
        "config/credentials.json": '{"token": "do-not-read"}\n',
        "certs/dev.pem": "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n",
        # denied (present, EACCES)
        "secrets/db.txt": "root:hunter2\n",
        "secrets/api/stripe.txt": "sk_live_do_not_read\n",
        "x.key": "-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n",
    }
    for i in range(8):
        files[f"src/pkg{i}/__init__.py"] = ""
        for j in range(4):
            files[f"src/pkg{i}/mod{j}.py"] = f"def f{j}():\n    return {i * 10 + j}\n"
    for i in range(6):
        files[f"docs/page{i}.md"] = f"# page {i}\n"
    for rel, text in files.items():
        p = os.path.join(d, rel)
        if not os.path.exists(p):
            write(p, text, 0o600 if rel in (".env", ".env.local", "x.key") else 0o644)


def make_bigrepo(d):
    stamp = os.path.join(d, ".git", STAMP)
    if os.path.exists(stamp):
        return
    os.makedirs(d, exist_ok=True)
    ndirs, nsub = 20, 20
    per = max(1, BIG_FILES // (ndirs * nsub))
    for a in range(ndirs):
        for b in range(nsub):
            sub = os.path.join(d, f"lib{a:02d}", f"mod{b:02d}")
            os.makedirs(sub, exist_ok=True)
            for c in range(per):
                with open(os.path.join(sub, f"f{c:03d}.c"), "w") as fh:
                    fh.write(f"/* {a}/{b}/{c} */\nint f_{a}_{b}_{c}(void) {{ return {c}; }}\n")
        write(os.path.join(d, f"lib{a:02d}", ".gitignore"), "*.o\n")
    write(os.path.join(d, "README"), "large tree for git status\n")
    write(os.path.join(d, ".env"), "TOKEN=do-not-read\n", 0o600)
    write(os.path.join(d, "secrets", "prod.txt"), "do-not-read\n", 0o600)
    git = ["git", "-c", "user.name=ajbench", "-c", "user.email=ajbench@localhost",
           "-c", "init.defaultBranch=main", "-C", d]
    q = {"stdout": subprocess.DEVNULL}
    subprocess.run(git + ["init", "-q"], check=True, **q)
    # the secrets stay untracked, as they would in a real project
    with open(os.path.join(d, ".git", "info", "exclude"), "a") as fh:
        fh.write(".env\nsecrets/\n")
    subprocess.run(git + ["add", "-A"], check=True, **q)
    subprocess.run(git + ["commit", "-q", "-m", "fixture"], check=True, **q)
    subprocess.run(git + ["repack", "-adq"], check=True, **q)
    subprocess.run(git + ["prune-packed"], check=True, **q)
    subprocess.run(git + ["status", "--porcelain"], check=True, **q)  # refresh the index
    open(stamp, "w").close()


# --- mask/deny globs ---------------------------------------------------------

def strip_comments(text):
    """The .aj text with every # comment outside a string removed."""
    out, in_str, esc, skip = [], False, False, False
    for c in text:
        if skip:
            if c == "\n":
                skip = False
                out.append(c)
            continue
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "#":
            skip = True
            continue
        out.append(c)
    return "".join(out)


def rules_of(files):
    """(kind, pattern) for every mask/deny statement in the .aj files."""
    out = []
    for f in files:
        with open(f) as fh:
            text = strip_comments(fh.read())
        for m in re.finditer(r"\b(mask|deny)\s+(nocase\s+)?((?:\"(?:[^\"\\]|\\.)*\"\s*)+);", text):
            for pat in re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(3)):
                out.append((m.group(1), pat, bool(m.group(2))))
    return out


def glob_re(pat):
    """Regex for one glob, matched against a relative path (anchored) or a name."""
    out, i = "", 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pat.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                out += re.escape(c)
            else:
                body = pat[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += "[" + body.replace("\\", "\\\\") + "]"
                i = j
        else:
            out += re.escape(c)
        i += 1
    return out + r"\Z"


def compile_rules(rules):
    out = []
    for kind, pat, nocase in rules:
        dir_only = pat.endswith("/")
        p = pat.rstrip("/")
        anchored = "/" in p
        rx = re.compile(glob_re(p.lstrip("/")), re.IGNORECASE if nocase else 0)
        out.append((kind, rx, anchored, dir_only))
    return out


def matches(project, files):
    rules = compile_rules(rules_of(files))
    res = []

    def walk(rel):
        try:
            it = sorted(os.scandir(os.path.join(project, rel)), key=lambda e: e.name)
        except OSError:
            return
        for e in it:
            r = f"{rel}/{e.name}" if rel else e.name
            is_dir = e.is_dir(follow_symlinks=False)
            hit = None
            for kind, rx, anchored, dir_only in rules:
                if dir_only and not is_dir:
                    continue
                if rx.match(r if anchored else e.name):
                    hit = kind
                    break
            path = os.path.join(project, r)
            if hit == "deny":
                res.append(("deny-dir" if is_dir else "deny-file", path))
                continue  # nothing below a denied directory is reachable
            if hit == "mask":
                res.append(("mask", path))
            if is_dir:
                walk(r)

    walk("")
    return res


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        fix = sys.argv[2]
        make_proj(os.path.join(fix, "proj"))
        make_bigrepo(os.path.join(fix, "bigrepo"))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "matches":
        for kind, path in matches(sys.argv[2], sys.argv[3:]):
            print(kind, path)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
