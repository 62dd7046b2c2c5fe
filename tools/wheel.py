"""wheel.py: write aijail's platform wheel (make wheel), standard library only.

    wheel.py --version V --arch ARCH --out DIR --python DIR --readme FILE \
        --license FILE BIN...

A wheel is a zip with a fixed layout (PEP 427, PEP 491), so it is written
here rather than by a build backend: no PyPI, no setuptools, and the bytes
are ours to fix.  What goes in:

  aijail/*.py                        the package (purelib)
  aijail-V.data/scripts/NAME         each static binary: pip and uv copy a
                                     script that does not start with
                                     "#!python" as it is, mode kept, into the
                                     environment's bin/ (as ruff's and uv's
                                     wheels ship theirs), so jail-python runs
                                     from there with no Python in front
  aijail-V.dist-info/                METADATA, WHEEL, entry_points.txt
                                     (aijail-mcp), LICENSE, RECORD

The tags say what the binaries need: they are static (musl, no dynamic
loader, no libc of the host), so any glibc or musl Linux of the
architecture; the Python code asks for 3.8 and nothing compiled.  The
lowest manylinux that pip knows for aarch64 is manylinux2014
(manylinux_2_17): both architectures say that and musllinux_1_1, the
first musllinux.

Reproducible: every entry's time is SOURCE_DATE_EPOCH (the last commit's,
as make dist; no earlier than 1980, zip's epoch), its mode 0644 or 0755,
its owner none (zip has none), the entries in a fixed order (the package
sorted, the scripts sorted, then the dist-info with RECORD last, as PEP
427 wants it), one compression level.
"""

import argparse
import base64
import hashlib
import io
import os
import sys
import time
import zipfile

NAME = "aijail"
SUMMARY = "Jails for the commands AI agents run: static stubs, a Python API, an MCP server"
# aijail-mcp is the one console script: the stubs are binaries, copied as
# they are (data/scripts above).
CONSOLE_SCRIPTS = [("aijail-mcp", "aijail.mcp:main")]


def tags(arch):
    return ["py3-none-manylinux_2_17_%s" % arch, "py3-none-manylinux2014_%s" % arch,
            "py3-none-musllinux_1_1_%s" % arch]


def wheel_name(version, arch):
    plat = ".".join(t.split("-")[2] for t in tags(arch))
    return "%s-%s-py3-none-%s.whl" % (NAME, version, plat)


def digest(data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + h.decode()


def metadata(version, readme):
    head = [
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + version,
        "Summary: " + SUMMARY,
        "License: MIT",
        "Requires-Python: >=3.8",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: License :: OSI Approved :: MIT License",
        "Classifier: Programming Language :: Python :: 3",
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(head) + "\n\n" + readme).encode()


def main(argv):
    ap = argparse.ArgumentParser(prog="wheel.py")
    ap.add_argument("--version", required=True)
    ap.add_argument("--arch", required=True, choices=("x86_64", "aarch64"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--python", required=True, help="the folder that holds aijail/")
    ap.add_argument("--readme", required=True)
    ap.add_argument("--license", required=True)
    ap.add_argument("bins", nargs="+")
    a = ap.parse_args(argv)

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or 0)
    # zip stores local time fields with no zone: UTC, as tar's --mtime.
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    data_dir = "%s-%s.data" % (NAME, a.version)
    info_dir = "%s-%s.dist-info" % (NAME, a.version)

    entries = []  # (name, bytes, executable)
    pkg = os.path.join(a.python, NAME)
    files = []
    for d, dirs, names in os.walk(pkg):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for n in names:
            if n.endswith((".pyc", ".pyo")):
                continue
            files.append(os.path.relpath(os.path.join(d, n), a.python))
    for rel in sorted(files):
        with open(os.path.join(a.python, rel), "rb") as f:
            entries.append((rel.replace(os.sep, "/"), f.read(), False))
    for b in sorted(a.bins, key=os.path.basename):
        with open(b, "rb") as f:
            data = f.read()
        if data[:4] != b"\x7fELF":
            sys.exit("wheel.py: %s is not an ELF binary" % b)
        entries.append(("%s/scripts/%s" % (data_dir, os.path.basename(b)), data, True))

    with open(a.readme, encoding="utf-8") as f:
        readme = f.read()
    with open(a.license, "rb") as f:
        lic = f.read()
    wheel = "Wheel-Version: 1.0\nGenerator: aijail tools/wheel.py\nRoot-Is-Purelib: false\n" + \
        "".join("Tag: %s\n" % t for t in tags(a.arch))
    eps = "[console_scripts]\n" + "".join("%s = %s\n" % e for e in CONSOLE_SCRIPTS)
    entries += [
        (info_dir + "/LICENSE", lic, False),
        (info_dir + "/METADATA", metadata(a.version, readme), False),
        (info_dir + "/WHEEL", wheel.encode(), False),
        (info_dir + "/entry_points.txt", eps.encode(), False),
    ]
    record = io.StringIO()
    for name, data, _ in entries:
        record.write("%s,%s,%d\n" % (name, digest(data), len(data)))
    record.write("%s/RECORD,,\n" % info_dir)
    entries.append((info_dir + "/RECORD", record.getvalue().encode(), False))

    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, wheel_name(a.version, a.arch))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for name, data, exe in entries:
            zi = zipfile.ZipInfo(name, date_time=stamp)
            zi.create_system = 3  # Unix: external_attr holds the mode
            zi.external_attr = ((0o100755 if exe else 0o100644) << 16)
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data, compresslevel=9)
    os.replace(tmp, path)
    print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
