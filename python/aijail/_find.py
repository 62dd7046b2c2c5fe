"""Where the stubs and aijail-status are: the wheel's bin folder, beside
this package, AIJAIL_STUB/AIJAIL_STATUS, PATH.  Part of aijail, which
re-exports find_stub, find_status_tool and wheel_bindir.
"""

import os
import shutil

from . import SandboxError


_BINDIR = []


def wheel_bindir():
    """Where the wheel this package came from put its binaries, or None.

    The wheel (make wheel) installs the stubs and aijail-status as scripts,
    into the environment's bin/ (a venv's, ~/.local/bin for --user, uvx's
    own): not necessarily on PATH, and not at a fixed place relative to the
    package.  The installer wrote where in the dist-info's RECORD beside
    the package, so that is read (once): the folder of its ``jail``.  None
    for a package not installed from the wheel (the Debian package, make
    install, the source tree).
    """
    if _BINDIR:
        return _BINDIR[0]
    found = None
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        infos = [n for n in os.listdir(site)
                 if n.startswith("aijail-") and n.endswith(".dist-info")]
    except OSError:
        infos = []
    for info in sorted(infos):
        try:
            with open(os.path.join(site, info, "RECORD"), encoding="utf-8") as f:
                rows = f.read().splitlines()
        except OSError:
            continue
        for row in rows:
            path = row.rsplit(",", 2)[0]
            if os.path.basename(path) != "jail":
                continue
            p = os.path.normpath(os.path.join(site, path))
            if os.path.isfile(p) and os.access(p, os.X_OK):
                found = os.path.dirname(p)
                break
        if found:
            break
    _BINDIR.append(found)
    return found


def _beside(name):
    d = wheel_bindir()
    if d is None:
        return None
    p = os.path.join(d, name)
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def find_stub(stub=None):
    """The stub's path: stub, else $AIJAIL_STUB, else ``jail``: the wheel's
    (wheel_bindir()) when this package came from the wheel, else on PATH."""
    name = stub or os.environ.get("AIJAIL_STUB") or "jail"
    if os.sep in name:
        return name
    found = _beside(name) or shutil.which(name)
    if not found:
        raise SandboxError(
            "no aijail stub: %r is not on PATH; install aijail, set AIJAIL_STUB "
            "or pass stub=" % name
        )
    return found


def find_status_tool(tool=None):
    """aijail-status: tool, else $AIJAIL_STATUS, else the wheel's, else on PATH."""
    name = tool or os.environ.get("AIJAIL_STATUS") or "aijail-status"
    if os.sep in name:
        return os.path.abspath(name)
    found = _beside(name) or shutil.which(name)
    if not found:
        raise SandboxError(
            "no aijail-status: %r is not on PATH; install aijail, set AIJAIL_STATUS "
            "or pass status_tool=" % name
        )
    return os.path.abspath(found)
