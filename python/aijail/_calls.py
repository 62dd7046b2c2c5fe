"""The calls built on run_sandboxed: explain, status and run_handler.
Part of aijail, which re-exports them; imported once run_sandboxed is
defined.
"""

import errno
import json
import os
import shutil
import stat
import subprocess
import tempfile

from . import (
    EXIT_SETUP,
    ExplainUnsupported,
    HandlerResult,
    OUTPUT_CAP,
    OutputLimitExceeded,
    SandboxError,
    _CHUNK,
    _SYSTEM_TREES,
    _stub_argv,
    _stub_message,
    run_sandboxed)


from ._capped import _check_cap
from ._find import find_status_tool, find_stub

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
