"""aijail: run commands inside an aijail jail, from Python.

The jail is one of aijail's static stubs (``jail``, ``jail-worker``,
``jail-python``, ...).  Which one: the ``stub=`` argument, else the
``AIJAIL_STUB`` environment variable, else ``jail`` found on ``PATH``.
Everything here calls the stub through its documented options
(``--jail-ro``, ``--jail-rw``, ``--jail-no-net``, ``--jail-mode``,
``--jail-timeout``, ``--jail-explain``); nothing is confined by Python
itself.

Exit statuses of the stub, as jail(1) lists them: the command's own; 128+N
when it died of signal N; 124 when the jail's timeout killed it (raised here
as ``subprocess.TimeoutExpired``); 125 when the jail could not be built
(raised as ``SandboxError``, carrying the stub's message); 126 the command
cannot run; 127 it was not found.

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
    "ExplainUnsupported",
    "OutputLimitExceeded",
    "OUTPUT_CAP",
    "HandlerResult",
    "find_stub",
    "find_status_tool",
    "run_sandboxed",
    "explain",
    "status",
    "run_handler",
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
    """The jail could not be built (the stub exited 125); nothing ran.

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


def _run_capped(argv, cmd, cwd, env, input, timeout, text, cap):
    """argv run with stdout and stderr piped, each read to at most cap+1 bytes.

    Returns (returncode, stdout, stderr); raises OutputLimitExceeded over
    the cap, subprocess.TimeoutExpired past timeout (seconds, or None).
    """
    if input is not None and text and isinstance(input, str):
        input = input.encode(locale.getpreferredencoding(False))
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
    )
    ofd, efd = proc.stdout.fileno(), proc.stderr.fileno()
    bufs = {ofd: bytearray(), efd: bytearray()}
    names = {ofd: "the jailed command's stdout", efd: "the jailed command's stderr"}
    deadline = time.monotonic() + timeout if timeout else None
    pending = memoryview(bytes(input)) if input is not None else None
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
                    raise subprocess.TimeoutExpired(argv, timeout)
            for key, _ in sel.select(left):
                fd = key.fd
                if fd in bufs:
                    buf = bufs[fd]
                    chunk = os.read(fd, min(_CHUNK, cap + 1 - len(buf)))
                    if not chunk:
                        sel.unregister(fd)
                        continue
                    buf += chunk
                    if len(buf) > cap:
                        raise OutputLimitExceeded(names[fd], cap, cmd)
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
        left = None
        if deadline is not None:
            left = max(0, deadline - time.monotonic())
        try:
            proc.wait(left)
        except subprocess.TimeoutExpired:
            raise subprocess.TimeoutExpired(argv, timeout) from None
    except subprocess.TimeoutExpired as e:
        _kill(proc)
        out, err = bytes(bufs[ofd]), bytes(bufs[efd])
        if text:
            out, err = _decode(out), _decode(err)
        raise subprocess.TimeoutExpired(e.cmd, e.timeout, out, err) from None
    except BaseException:
        _kill(proc)
        raise
    finally:
        sel.close()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    out, err = bytes(bufs[ofd]), bytes(bufs[efd])
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


def find_stub(stub=None):
    """The stub's path: stub, else $AIJAIL_STUB, else ``jail`` on PATH."""
    name = stub or os.environ.get("AIJAIL_STUB") or "jail"
    if os.sep in name:
        return name
    found = shutil.which(name)
    if not found:
        raise SandboxError(
            "no aijail stub: %r is not on PATH; install aijail, set AIJAIL_STUB "
            "or pass stub=" % name
        )
    return found


def find_status_tool(tool=None):
    """aijail-status: tool, else $AIJAIL_STATUS, else on PATH."""
    name = tool or os.environ.get("AIJAIL_STATUS") or "aijail-status"
    if os.sep in name:
        return os.path.abspath(name)
    found = shutil.which(name)
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

    Raises SandboxError when the jail could not be built (exit 125),
    subprocess.TimeoutExpired when the timeout killed the command,
    OutputLimitExceeded when the command wrote more than output_cap.
    """
    if isinstance(cmd, (str, bytes, os.PathLike)):
        cmd = [cmd]
    stub = find_stub(stub)
    extra = ["--jail-log=" + os.fspath(log)] if log is not None else []
    argv = _stub_argv(stub, ro_maps, rw_maps, no_net, timeout, mode, extra)
    argv.append("--")
    argv.extend(os.fspath(a) for a in cmd)
    _check_cap(output_cap)
    started = time.monotonic()
    try:
        if capture_output:
            rc, out, err = _run_capped(argv, list(cmd), cwd, env, input,
                                       (timeout + _GRACE) if timeout else None, text,
                                       output_cap)
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
            )
    except subprocess.TimeoutExpired as e:
        # The stub outlived its own deadline: subprocess.run killed it, and
        # the jail's pid 1 died with it.
        raise subprocess.TimeoutExpired(list(cmd), timeout, e.output, e.stderr) from None
    elapsed = time.monotonic() - started
    if cp.returncode == EXIT_SETUP:
        raise SandboxError(_stub_message(stub, cp.stderr), argv, _text(cp.stderr))
    # 124 is also what a command may exit with (timeout(1) does): it is the
    # jail's timeout only when one was set and its time has passed.
    if cp.returncode == EXIT_TIMEOUT and timeout and elapsed >= math.ceil(timeout) - 0.5:
        raise subprocess.TimeoutExpired(list(cmd), timeout, cp.stdout, cp.stderr)
    return subprocess.CompletedProcess(list(cmd), cp.returncode, cp.stdout, cp.stderr)


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
