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

import errno
import json
import locale
import math
import os
import selectors
import shutil
import stat
import subprocess
import tempfile
import time
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


def _check_cap(cap):
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
        raise ValueError("output_cap must be a non-negative number of bytes, not %r" % (cap,))
    return cap


def _decode(data):
    """As subprocess decodes with universal_newlines=True."""
    enc = locale.getpreferredencoding(False)
    return data.decode(enc).replace("\r\n", "\n").replace("\r", "\n")


def _kill(proc):
    # The stub's pid 1 dies with it (PR_SET_PDEATHSIG), and with pid 1
    # everything in the jail.
    try:
        proc.kill()
    except OSError:
        pass
    proc.wait()


def _pump(proc, data, cap, deadline, *, truncate=False, names=None, cmd=None, tick=None):
    """Feed data (bytes or None) to proc's stdin; read its stdout and stderr.

    Each stream is kept to at most cap bytes.  Past it: with truncate, the
    rest is read and dropped (the stream's over flag is set); without, at
    most cap+1 bytes were read and OutputLimitExceeded is raised at once,
    naming the stream from names (stdout's, stderr's).  deadline is a
    time.monotonic() value or None; past it the pump returns with timed_out
    set and the caller stops the process.  tick bounds each wait (seconds).
    Returns (stdout, stderr, stdout_over, stderr_over, timed_out).  The
    caller closes the pipes.
    """
    ofd, efd = proc.stdout.fileno(), proc.stderr.fileno()
    bufs = {ofd: bytearray(), efd: bytearray()}
    over = {ofd: False, efd: False}
    names = dict(zip((ofd, efd), names or ("stdout", "stderr")))
    pending = memoryview(bytes(data)) if data is not None else None
    timed_out = False
    sel = selectors.DefaultSelector()
    try:
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        if pending is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            if len(pending):
                sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        while sel.get_map():
            left = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
            if tick is not None:
                left = tick if left is None else min(left, tick)
            for key, _ in sel.select(left):
                fd = key.fd
                if fd in bufs:
                    buf = bufs[fd]
                    want = _CHUNK if truncate else min(_CHUNK, cap + 1 - len(buf))
                    chunk = os.read(fd, want)
                    if not chunk:
                        sel.unregister(fd)
                        continue
                    room = cap - len(buf)
                    if len(chunk) > room:
                        if not truncate:
                            raise OutputLimitExceeded(names[fd], cap, cmd)
                        over[fd] = True
                        chunk = chunk[:max(room, 0)]
                    buf += chunk
                else:
                    try:
                        n = os.write(fd, pending[:_CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        n = len(pending)
                    pending = pending[n:]
                    if not len(pending):
                        sel.unregister(fd)
                        proc.stdin.close()
    finally:
        sel.close()
    return bytes(bufs[ofd]), bytes(bufs[efd]), over[ofd], over[efd], timed_out


def _run_capped(argv, cmd, cwd, env, input, timeout, text, cap, pass_fds=()):
    """argv run with stdout and stderr piped, each read to at most cap+1 bytes.

    Returns (returncode, stdout, stderr); raises OutputLimitExceeded over
    the cap, subprocess.TimeoutExpired past timeout (seconds, or None).
    """
    if input is not None and text and isinstance(input, str):
        input = input.encode(locale.getpreferredencoding(False))
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        pass_fds=pass_fds,
    )
    deadline = time.monotonic() + timeout if timeout else None
    try:
        out, err, _, _, timed_out = _pump(
            proc, input, cap, deadline, cmd=cmd,
            names=("the jailed command's stdout", "the jailed command's stderr"))
        try:
            if timed_out:
                raise subprocess.TimeoutExpired(argv, timeout)
            proc.wait(None if deadline is None else max(0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(proc)
            if text:
                out, err = _decode(out), _decode(err)
            raise subprocess.TimeoutExpired(argv, timeout, out, err) from None
    except subprocess.TimeoutExpired:
        raise
    except BaseException:
        _kill(proc)
        raise
    finally:
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    if text:
        out, err = _decode(out), _decode(err)
    return proc.returncode, out, err


HandlerResult = namedtuple("HandlerResult", "output returncode stdout stderr directory")
HandlerResult.__doc__ = """What run_handler() read back.

output      the bytes the handler wrote to its output file, or None if it
            wrote none
returncode  the handler's exit status
stdout, stderr  what it printed (str)
directory   the temporary project directory (already removed)
"""


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


def explain(cmd=None, *, stub=None, mode=None, cwd=None, env=None, ro_maps=(), rw_maps=(),
            no_net=False):
    """What the jail would be here and now: the stub's --jail-explain=json, a dict.

    The keys are docs/explain.md's.  cmd names the command (the generic jail
    picks its command group by it).  A jail that cannot be built here is
    still explained: the dict's ["buildable"]["ok"] is False and
    ["buildable"]["reasons"] says why (the stub exits 125 then).  Raises
    SandboxError when the stub stops before it can explain (a bad option, a
    refused map, a project it will not jail), ExplainUnsupported when the
    stub has no JSON form of --jail-explain.
    """
    stub = find_stub(stub)
    argv = _stub_argv(stub, ro_maps, rw_maps, no_net, None, mode, ["--jail-explain=json"])
    if cmd:
        argv.append("--")
        argv.extend(os.fspath(a) for a in ([cmd] if isinstance(cmd, str) else cmd))
    cp = subprocess.run(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
    )
    try:
        found = json.loads(cp.stdout) if cp.stdout.strip() else None
    except ValueError as e:
        raise SandboxError("%s --jail-explain=json printed no JSON: %s" % (stub, e), argv,
                           cp.stderr, cp.returncode) from None
    if cp.returncode in (0, EXIT_SETUP) and isinstance(found, dict) and "buildable" in found:
        return found
    if cp.returncode == EXIT_SETUP:
        msg = _stub_message(stub, cp.stderr)
        if "unknown option" in msg and "--jail-explain=json" in msg:
            raise ExplainUnsupported(
                "this stub has no --jail-explain=json (%s)" % msg, argv, cp.stderr
            )
        raise SandboxError(msg, argv, cp.stderr)
    raise SandboxError(
        "%s --jail-explain=json exited %d: %s" % (stub, cp.returncode, cp.stderr.strip()),
        argv, cp.stderr, cp.returncode,
    )


def status(*, stub=None, status_tool=None, mode=None, cwd=None, env=None, no_net=False,
           ro_maps=(), timeout=60):
    """aijail-status --json, run inside the jail: what is really in force, a dict.

    The tool is brought in read-only unless it lives in a tree the jail
    already binds (/usr, /etc, /opt).  "in_jail" is False (and the tool
    exits 1) when it finds itself unconfined.  Its output is read within
    OUTPUT_CAP, as run_sandboxed reads (OutputLimitExceeded past it).
    """
    tool = find_status_tool(status_tool)
    maps = list(ro_maps)
    if not tool.startswith(_SYSTEM_TREES):
        maps.append(tool)
    cp = run_sandboxed([tool, "--json"], ro_maps=maps, no_net=no_net, timeout=timeout,
                       mode=mode, cwd=cwd, env=env, stub=stub)
    if cp.returncode not in (0, 1):
        raise SandboxError("aijail-status exited %d: %s" % (cp.returncode, cp.stderr.strip()),
                           [tool, "--json"], cp.stderr, cp.returncode)
    return json.loads(cp.stdout)


def _read_capped(path, cap):
    """The bytes of the regular file at path, at most cap; None if there is none.

    One descriptor, opened without following a link (a handler may leave one
    to anywhere) and without blocking (a FIFO), then read in chunks to at
    most cap+1 bytes: the size the file claims is never trusted.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP, errno.ENXIO, errno.ENOTDIR):
            return None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = bytearray()
        while len(data) <= cap:
            chunk = os.read(fd, min(_CHUNK, cap + 1 - len(data)))
            if not chunk:
                break
            data += chunk
        if len(data) > cap:
            raise OutputLimitExceeded("the handler's output file", cap)
        return bytes(data)
    finally:
        os.close(fd)


def run_handler(source, input, *, interpreter=("python3",), filename="handler.py",
                input_name="input", output_name="output", timeout=60, no_net=True,
                mode=None, ro_maps=(), env=None, stub=None, dir=None,
                output_cap=OUTPUT_CAP):
    """The code-stage pattern: run untrusted handler code on one input, jailed.

    A temporary project directory is made (in dir, default $TMPDIR), the
    handler's source and its input are written there, and the jail runs
    ``INTERPRETER... FILENAME INPUT OUTPUT`` in it, the two last arguments
    the names of the input file and of the file the handler is to write.
    The output is read back and the directory removed, whatever happened.
    input is bytes, str, or anything json.dumps takes.  No network unless
    no_net=False.  Returns a HandlerResult; raises as run_sandboxed does.

    output_cap bounds what is read back, in bytes (default OUTPUT_CAP,
    64 MiB): the output file (a regular file, not followed if a link), and
    the handler's stdout and stderr each.  The file is read to at most
    output_cap+1 bytes, whatever size it claims (a sparse file written at
    offset 3 GiB claims 3 GiB and costs the jail nothing); over the cap,
    OutputLimitExceeded is raised and nothing more is read.
    """
    _check_cap(output_cap)
    if isinstance(input, str):
        data = input.encode()
    elif isinstance(input, (bytes, bytearray)):
        data = bytes(input)
    else:
        data = json.dumps(input).encode()
    if isinstance(source, str):
        source = source.encode()
    project = tempfile.mkdtemp(prefix="aijail-handler.", dir=dir)
    try:
        with open(os.path.join(project, filename), "wb") as f:
            f.write(source)
        with open(os.path.join(project, input_name), "wb") as f:
            f.write(data)
        cp = run_sandboxed(
            list(interpreter) + [filename, input_name, output_name],
            ro_maps=ro_maps, no_net=no_net, timeout=timeout, mode=mode, cwd=project,
            env=env, stub=stub, output_cap=output_cap,
        )
        output = _read_capped(os.path.join(project, output_name), output_cap)
        return HandlerResult(output, cp.returncode, cp.stdout, cp.stderr, project)
    finally:
        shutil.rmtree(project, ignore_errors=True)


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
