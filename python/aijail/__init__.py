"""aijail: run commands inside an aijail jail, from Python.

The jail is one of aijail's static stubs (``jail``, ``jail-worker``,
``jail-python``, ...).  Which one: the ``stub=`` argument, else the
``AIJAIL_STUB`` environment variable, else ``jail``: the one the wheel
installed beside this package when it came from the wheel, else on ``PATH``.
Everything here calls the stub through its documented options
(``--jail-ro``, ``--jail-rw``, ``--jail-no-net``, ``--jail-mode``,
``--jail-timeout``, ``--jail-explain``); nothing is confined by Python
itself.

Exit statuses of the stub, as jail(1) lists them: the command's own; 128+N
when it died of signal N; 124 when the jail's timeout killed it (raised here
as ``subprocess.TimeoutExpired``); 125 when the jail could not be built
(raised as ``SandboxError``, carrying the stub's message); 126 the command
cannot run; 127 it was not found.  A command may exit 124 or 125 itself,
so none of that is read from the status: every run passes the stub
``--jail-status-fd`` and reads its record (jail(1), STATUS RECORD), which
the jailed command cannot write.  A command that ran and exited 125 is
returned with returncode 125; a run without a record raises
``StatusUnknown``.

What the jail wrote is read back within bounds: a jailed command's stdout
and stderr (run_sandboxed) and a handler's output file (run_handler) are
read to at most ``output_cap`` bytes each (default ``OUTPUT_CAP``, 64 MiB),
never more: a jail can make a file look huge for free (one byte written at
offset 3 GiB of a sparse file) or write forever, and the trusted caller
must not pay for it.  Over the cap, ``OutputLimitExceeded`` is raised,
naming the stream and the cap; at most cap+1 bytes were read.

Standard library only.
"""

import json
import math
import os
import subprocess
from collections import namedtuple

__all__ = [
    "SandboxError",
    "StatusUnknown",
    "ExplainUnsupported",
    "OutputLimitExceeded",
    "OUTPUT_CAP",
    "HandlerResult",
    "find_stub",
    "wheel_bindir",
    "find_status_tool",
    "run_sandboxed",
    "explain",
    "status",
    "run_handler",
    "Pool",
    "PoolError",
    "WorkerLost",
    "LimitExceeded",
    "HandlerTimeout",
    "InputLimitExceeded",
]

EXIT_TIMEOUT = 124
EXIT_SETUP = 125

#: The default bound, in bytes, on each thing read back from a jail: the
#: command's stdout and its stderr (run_sandboxed), the handler's output
#: file (run_handler).  Pass output_cap= to change it.
OUTPUT_CAP = 64 * 1024 * 1024

_CHUNK = 1 << 16

# Trees every shipped policy binds read-only: a binary there is already
# visible inside, and the stub refuses to map them again.
_SYSTEM_TREES = ("/usr/", "/etc/", "/opt/")

# How long past the jail's own timeout Python waits before it kills the
# stub itself (the stub's pid 1 dies with it: PR_SET_PDEATHSIG).
_GRACE = 10


class SandboxError(RuntimeError):
    """The jail could not be built (the stub's record says "notbuilt", and it
    exited 125); nothing ran.  Also raised before any stub runs (none found).

    ``message`` is the stub's own message (``jail: fatal: unable to STEP:
    REASON: HINT`` or a usage line), ``stderr`` all it wrote, ``cmd`` the
    stub's full argument list, ``returncode`` its exit status.
    """

    def __init__(self, message, cmd=None, stderr="", returncode=EXIT_SETUP):
        super().__init__(message)
        self.message = message
        self.cmd = cmd
        self.stderr = stderr
        self.returncode = returncode


class StatusUnknown(RuntimeError):
    """The stub ended without saying how the jail ended: no record on its
    status descriptor (it was killed, or is older than --jail-status-fd),
    or a record whose end is "unknown" (pid 1 was killed from outside).
    Whether the command ran, and how it ended, is not known; nothing is
    guessed from the exit status.

    ``record`` is the stub's record (a dict) or None, ``returncode`` the
    stub's exit status, ``cmd``, ``stdout``, ``stderr`` as captured.
    """

    def __init__(self, message, cmd=None, returncode=None, stdout=None, stderr=None,
                 record=None):
        super().__init__(message)
        self.cmd = cmd
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.record = record


class ExplainUnsupported(SandboxError):
    """This stub has no ``--jail-explain=json``."""


class OutputLimitExceeded(RuntimeError):
    """The jail wrote more than the caller reads back; nothing past the cap was read.

    ``what`` names it ("the jailed command's stdout", "...'s stderr", "the
    handler's output file"),
    ``cap`` is the bound in bytes (the output_cap= argument, default
    OUTPUT_CAP).  The jail was stopped (for a stream) or had ended (for the
    handler's file); its project directory is removed all the same.
    """

    def __init__(self, what, cap, cmd=None):
        super().__init__(
            "%s is larger than the cap of %d bytes (output_cap=%d); nothing past the cap "
            "was read" % (what, cap, cap)
        )
        self.what = what
        self.cap = cap
        self.cmd = cmd

    # Pickled as built (a Dask task raises it on another machine).
    def __reduce__(self):
        return (type(self), (self.what, self.cap, self.cmd))


# Reading what a jail wrote within bounds, and finding the stubs: modules of
# their own that use the names above (hence here, not at the top).
from ._capped import _check_cap, _decode, _kill, _pump, _run_capped  # noqa: E402,F401
from ._find import _beside, find_status_tool, find_stub, wheel_bindir  # noqa: E402,F401


HandlerResult = namedtuple("HandlerResult", "output returncode stdout stderr directory")
HandlerResult.__doc__ = """What run_handler() read back.

output      the bytes the handler wrote to its output file, or None if it
            wrote none
returncode  the handler's exit status
stdout, stderr  what it printed (str)
directory   the temporary project directory (already removed)
"""


def _text(data):
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data


def _stub_message(stub, stderr):
    """The stub's own lines of stderr (PROG: fatal:/usage:), else all of it."""
    prog = os.path.basename(stub) + ": "
    lines = [l for l in _text(stderr).splitlines() if l.startswith(prog)]
    ours = [l for l in lines if l.startswith(prog + "fatal:") or l.startswith(prog + "usage:")]
    return "\n".join(ours or lines) or _text(stderr).strip() or "the jail could not be built"


_RECORD_CAP = 8192


def _read_record(fd):
    """The stub's record from the read end fd of its status pipe, read
    after the stub ended (what is there is all there is), and fd closed:
    a dict, or None when there is none (or it is not one)."""
    data = bytearray()
    try:
        os.set_blocking(fd, False)
        while len(data) < _RECORD_CAP:
            chunk = os.read(fd, _RECORD_CAP - len(data))
            if not chunk:
                break
            data += chunk
    except BlockingIOError:
        pass
    finally:
        os.close(fd)
    line = bytes(data).split(b"\n", 1)
    if len(line) < 2:
        return None  # no whole line: the writer did not finish
    try:
        rec = json.loads(line[0].decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(rec, dict) or rec.get("aijail_status") != 1 or \
            not isinstance(rec.get("end"), str):
        return None
    return rec


def _record_message(stub, rec, stderr):
    """What a "notbuilt" record says, in the stub's own words when it
    printed them (nothing ran, so all of stderr is the stub's)."""
    msg = _stub_message(stub, stderr)
    if msg == "the jail could not be built" and rec and rec.get("step"):
        msg = "%s: fatal: unable to %s: %s" % (os.path.basename(stub), rec.get("step"),
                                               rec.get("cause", ""))
    return msg


def _status_option(wfd):
    return "--jail-status-fd=%d" % wfd


def _stub_argv(
    stub, ro_maps=(), rw_maps=(), no_net=False, timeout=None, mode=None, extra=()
):
    argv = [stub]
    for p in ro_maps:
        argv.append("--jail-ro=" + os.fspath(p))
    for p in rw_maps:
        argv.append("--jail-rw=" + os.fspath(p))
    if no_net:
        argv.append("--jail-no-net")
    if mode:
        argv.append("--jail-mode=" + mode)
    if timeout:
        argv.append("--jail-timeout=%d" % max(1, math.ceil(timeout)))
    argv.extend(extra)
    return argv


def _secret_options(secrets):
    """--jail-secret (and --jail-allow-host for its hosts) for each key of
    secrets, a mapping of variable names to a host or a list of hosts."""
    out = []
    for name, hosts in (secrets or {}).items():
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
            raise ValueError("secrets: %r is not a variable's name" % (name,))
        if isinstance(hosts, str):
            hosts = [hosts]
        hosts = list(hosts)
        if not hosts or not all(isinstance(h, str) and h and "," not in h for h in hosts):
            raise ValueError("secrets: %s needs one or more hosts, HOST[:PORT] each" % name)
        out += ["--jail-allow-host=" + h for h in hosts]
        out.append("--jail-secret=%s=%s" % (name, ",".join(hosts)))
    return out


def run_sandboxed(
    cmd,
    ro_maps=(),
    rw_maps=(),
    no_net=False,
    timeout=60,
    mode=None,
    cwd=None,
    env=None,
    input=None,
    *,
    stub=None,
    text=True,
    capture_output=True,
    log=None,
    output_cap=OUTPUT_CAP,
    secrets=None,
):
    """Run cmd (a list of arguments) in the jail; a subprocess.CompletedProcess.

    With the generic stubs (jail, jail-worker) cmd is the command and its
    arguments; a per-tool stub (jail-python, ...) runs its own tool, and
    cmd is that tool's arguments (["-c", "print(1)"]).

    ro_maps, rw_maps  more paths, read-only or writable (--jail-ro, --jail-rw);
                      the stub refuses /, $HOME and its parents, system trees
    no_net            no network at all (--jail-no-net: a network namespace
                      of the jail's own, without interfaces)
    timeout           seconds; the jail kills everything at the deadline
                      (--jail-timeout) and subprocess.TimeoutExpired is raised.
                      None or 0: the policy's own timeout, if any
    mode              a mode of the policy (--jail-mode), e.g. "worker",
                      "lockdown"; a jail inside a jail never gets a weaker one
    cwd               the project directory (default: the current one); it
                      may not be / or $HOME
    env               the environment the stub starts with (default:
                      os.environ); the policy still decides which variables
                      reach the command: a dict here adds none it drops
    input             stdin data (str when text, else bytes)
    stub              the stub (default: $AIJAIL_STUB or jail on PATH)
    log               a file the stub appends what the jail refused to, one
                      JSON line per refusal (--jail-log), and one per
                      connection its proxy allowed (kind "allowed"); not one
                      the jail can write.  The stub also ends stderr with one
                      line counting the refusals, when anything was refused
    text, capture_output  as for subprocess.run (captured by default)
    secrets           {"NAME": ["HOST[:PORT]", ...]}: keys the command may use
                      and never holds (--jail-secret, docs/keys.md).  NAME is
                      a variable of env; the jail sees a placeholder, and the
                      stub adds the value only to https requests to the
                      hosts, which are allowed too (--jail-allow-host: the
                      network becomes the listed hosts).  Names only, never
                      values: the value stays in env
    output_cap        the most bytes read of each of stdout and stderr when
                      captured (default OUTPUT_CAP, 64 MiB): past it the jail
                      is stopped and OutputLimitExceeded raised; nothing
                      beyond cap+1 bytes is read or kept

    Raises SandboxError when the jail could not be built (its record says
    "notbuilt"; a command that ran and exited 125 is returned, returncode
    125), subprocess.TimeoutExpired when the timeout killed the command,
    OutputLimitExceeded when the command wrote more than output_cap,
    StatusUnknown when the stub ended without a record of how.
    """
    if isinstance(cmd, (str, bytes, os.PathLike)):
        cmd = [cmd]
    stub = find_stub(stub)
    extra = ["--jail-log=" + os.fspath(log)] if log is not None else []
    extra += _secret_options(secrets)
    _check_cap(output_cap)
    rfd, wfd = os.pipe()
    try:
        argv = _stub_argv(stub, ro_maps, rw_maps, no_net, timeout, mode, extra)
        # First: a per-tool stub reads its options up to the first other one.
        argv.insert(1, _status_option(wfd))
        argv.append("--")
        argv.extend(os.fspath(a) for a in cmd)
        try:
            if capture_output:
                rc, out, err = _run_capped(argv, list(cmd), cwd, env, input,
                                           (timeout + _GRACE) if timeout else None, text,
                                           output_cap, pass_fds=(wfd,))
                cp = subprocess.CompletedProcess(argv, rc, out, err)
            else:
                cp = subprocess.run(
                    argv,
                    cwd=cwd,
                    env=env,
                    input=input,
                    stdin=None if input is not None else subprocess.DEVNULL,
                    timeout=(timeout + _GRACE) if timeout else None,
                    universal_newlines=text,
                    pass_fds=(wfd,),
                )
        except subprocess.TimeoutExpired as e:
            # The stub outlived its own deadline: subprocess.run killed it, and
            # the jail's pid 1 died with it.
            raise subprocess.TimeoutExpired(list(cmd), timeout, e.output, e.stderr) from None
    finally:
        os.close(wfd)
        rec = _read_record(rfd)
    return _ended(stub, argv, list(cmd), timeout, rec, cp)


def _ended(stub, argv, cmd, timeout, rec, cp):
    """The run's end as its record tells it (never from the exit status,
    which the command shares: it may exit 124 or 125 itself)."""
    end = rec.get("end") if rec else None
    if end == "notbuilt":
        raise SandboxError(_record_message(stub, rec, cp.stderr), argv, _text(cp.stderr),
                           cp.returncode)
    if end == "timeout":
        raise subprocess.TimeoutExpired(cmd, timeout, cp.stdout, cp.stderr)
    if end in ("exit", "signal", "notran"):
        rc = cp.returncode
        if end == "exit" and isinstance(rec.get("code"), int):
            rc = rec["code"]
        elif end == "signal" and isinstance(rec.get("signal"), int):
            rc = 128 + rec["signal"]
        return subprocess.CompletedProcess(cmd, rc, cp.stdout, cp.stderr)
    if rec is None:
        why = "the stub wrote no record of how the jail ended (exit status %s): it was " \
              "killed, or is older than --jail-status-fd" % cp.returncode
    else:
        why = "the jail ended without telling how (exit status %s, the command %s)" % (
            cp.returncode, "ran" if rec.get("ran") else "had not started")
        if rec.get("step"):
            why += ": unable to %s: %s" % (rec.get("step"), rec.get("cause", ""))
    tail = _text(cp.stderr).strip()
    if tail:
        why += "; its stderr ends: " + tail[-500:]
    raise StatusUnknown(why, cmd, cp.returncode, cp.stdout, cp.stderr, rec)


# explain, status and run_handler build on run_sandboxed (docs/python.md).
from ._calls import _read_capped, explain, run_handler, status  # noqa: E402,F401



# The pool builds on the names above (docs/pool.md).
from .pool import (  # noqa: E402
    HandlerTimeout,
    InputLimitExceeded,
    LimitExceeded,
    SCRATCH,
    Pool,
    PoolError,
    WorkerLost,
)
