"""One worker of aijail.Pool: its jail's process, the frames on its
channel (pool.py's docstring) and the errors of a call.  Part of
aijail.pool, which re-exports the errors; standard library only.
"""

import json
import os
import re
import select
import shutil
import struct
import subprocess
import tempfile
import time

from . import SandboxError, _read_record, _record_message, _status_option

_NS = re.compile(r"user:\[[0-9]+\]")

_HEAD = struct.Struct(">I")
_HEADER_CAP = 64 * 1024
_STDERR_CAP = 64 * 1024
_ZYGOTE = None


def _zygote_source():
    # One program in two files: _zygote_state.py defines what _zygote.py's
    # main() calls, so it comes first.
    global _ZYGOTE
    if _ZYGOTE is None:
        here = os.path.dirname(os.path.abspath(__file__))
        parts = []
        for name in ("_zygote_state.py", "_zygote.py"):
            with open(os.path.join(here, name)) as f:
                parts.append(f.read())
        _ZYGOTE = "\n".join(parts)
    return _ZYGOTE


class PoolError(RuntimeError):
    """A call through a Pool failed in a way the handler's status does not say."""


class WorkerLost(PoolError):
    """The worker died or stopped answering during the call; it was replaced."""


class LimitExceeded(PoolError):
    """The call ran into its memory or process bound and was stopped alone.

    ``limit`` is "memory" or "processes", ``bound`` the bound (bytes, or
    processes of the call counting itself), ``result`` the HandlerResult
    (its stderr holds the traceback).
    """

    def __init__(self, limit, bound, result):
        super().__init__("the handler exceeded its %s bound (%s)" % (limit, bound))
        self.limit = limit
        self.bound = bound
        self.result = result

    # Pickled as built (a Dask task raises it on another machine).
    def __reduce__(self):
        return (type(self), (self.limit, self.bound, self.result))


class HandlerTimeout(subprocess.TimeoutExpired):
    """The handler ran past handler_timeout; every process of the call was killed."""


class InputLimitExceeded(ValueError):
    """The input or the source is larger than input_cap; nothing ran."""

    def __init__(self, what, cap):
        super().__init__("%s is larger than the cap of %d bytes (input_cap=%d); nothing ran"
                         % (what, cap, cap))
        self.what = what
        self.cap = cap

    def __reduce__(self):
        return (type(self), (self.what, self.cap))


# aijail.pool documents and re-exports these: named as its own, so that a
# traceback and a pickle say aijail.pool.WorkerLost, as before the split.
for _cls in (PoolError, WorkerLost, LimitExceeded, HandlerTimeout, InputLimitExceeded):
    _cls.__module__ = "aijail.pool"
del _cls


def _encode_input(input):
    if isinstance(input, str):
        return input.encode()
    if isinstance(input, (bytes, bytearray, memoryview)):
        return bytes(input)
    return json.dumps(input).encode()


class _Worker:
    """One jail and its zygote, driven without blocking."""

    def __init__(self, pool):
        self.pool = pool
        self.proc = None
        self.project = None
        self.alive = False
        # A result came and the zygote's "clean" frame after it not yet.
        self.dirty = False
        self.zygote_pid = None
        # Which jail: its user namespace, "user:[INODE]", as the zygote
        # said when ready (the stub is not dumpable: its /proc/PID/ns is
        # not the caller's to read).
        self.identity = None
        self.status_r = -1  # the stub's record of how its jail ended (jail(1))

    # -- life --------------------------------------------------------------------
    def spawn(self):
        p = self.pool
        if p.project is None:
            self.project = tempfile.mkdtemp(prefix="aijail-pool.", dir=p.dir)
        self._close_status()
        # No covering process beside the zygote (docs/secrets.md, "Names
        # that appear during the run"): the zygote must be the only
        # process under pid 1, since it ends each call with kill(-1), which
        # below Landlock ABI 6 would reach that process and end the jail.
        env = dict(os.environ if p.env is None else p.env, AIJAIL_APPEAR="0")
        rfd, wfd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                p.argv[:1] + [_status_option(wfd)] + p.argv[1:], cwd=self.project or p.project,
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=(wfd,),
            )
        except BaseException:
            os.close(rfd)
            raise
        finally:
            os.close(wfd)
        self.status_r = rfd
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(f.fileno(), False)
        self.rfd = self.proc.stdout.fileno()
        self.wfd = self.proc.stdin.fileno()
        self.poll = select.poll()
        self.poll.register(self.rfd, select.POLLIN)
        self.inbuf = bytearray()
        self.head = None
        self.need = 0
        self.out = None
        self.dirty = False
        self.alive = True

    def stderr_text(self):
        data = b""
        try:
            data = os.read(self.proc.stderr.fileno(), _STDERR_CAP)
        except (OSError, ValueError):
            pass
        return data.decode("utf-8", "replace")

    def fail_start(self):
        """The SandboxError for a worker that ended before it was ready."""
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.stderr_text()
        rc = self.proc.returncode
        stub = self.pool.stub
        rec, self.status_r = _read_record(self.status_r), -1
        end = rec.get("end") if rec else None
        # The record, not the status: the interpreter, or the zygote's
        # call child (EXIT_BAD), may exit 125 too; the jail was built then.
        if end == "notbuilt":
            msg = _record_message(stub, rec, err)
        elif end is None or end == "unknown":
            msg = "the pool's stub ended before its zygote was ready, without saying how " \
                  "(exit status %s, %s): %s" % (
                      rc, "no record" if rec is None else "record: unknown",
                      err.strip() or "no message")
        else:
            msg = "the pool's zygote ended before it was ready (exit status %s): %s" % (
                rc, err.strip() or "no message")
        self.stop(kill=True)
        return SandboxError(msg, self.pool.argv, err, rc)

    def _close_status(self):
        if self.status_r >= 0:
            os.close(self.status_r)
            self.status_r = -1

    def stop(self, kill=False):
        proc = self.proc
        if proc is not None:
            if kill:
                try:
                    proc.kill()
                except OSError:
                    pass
            for f in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    f.close()
                except OSError:
                    pass
        self.alive = False

    def reap(self, wait=2.0):
        proc = self.proc
        if proc is not None:
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            self.proc = None
        self._close_status()
        if self.project:
            shutil.rmtree(self.project, ignore_errors=True)
            self.project = None

    def settle(self, timeout):
        """After a call: the zygote's second frame, sent once it has put the
        jail back (``{"clean": true}``, or ``{"retire": why}`` before it
        exits).  True when the worker may take the next call."""
        deadline = time.monotonic() + timeout
        while self.dirty:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if not self.inbuf and not self.poll.poll(int(left * 1000) + 1):
                continue
            try:
                got = self.on_read()
            except (EOFError, PoolError):
                return False
            if got is None:
                continue
            if got[0].get("clean") is not True:
                return False
            self.dirty = False
        return True

    # -- frames ------------------------------------------------------------------
    def send(self, payload):
        self.out = memoryview(payload)

    def on_write(self):
        """Write what the pipe takes; False when it took nothing."""
        try:
            n = os.write(self.wfd, self.out[:1 << 20])
        except BlockingIOError:
            return False
        self.out = self.out[n:]
        if not len(self.out):
            self.out = None
        return True

    def on_read(self):
        """The next frame (header dict, payload bytes) once whole, else None;
        raises EOFError, PoolError.

        A frame is a 4-byte length and a JSON header, then, raw, the byte
        counts a result's header names: stdout, stderr, output.  The
        zygote's "clean" frame follows a result at once, so one read may
        hold both: what is past a frame stays for the next."""
        got = self._frame()
        if got is not None:
            return got
        want = 1 << 16 if self.head is None else self.need - len(self.inbuf)
        try:
            chunk = os.read(self.rfd, min(max(want, 1 << 16), 1 << 20))
        except BlockingIOError:
            return None
        if not chunk:
            raise EOFError
        self.inbuf += chunk
        return self._frame()

    def _frame(self):
        buf = self.inbuf
        if self.head is None:
            if len(buf) < 4:
                return None
            (n,) = _HEAD.unpack_from(buf)
            if n > _HEADER_CAP:
                raise PoolError("the worker sent a header of %d bytes, more than %d"
                                % (n, _HEADER_CAP))
            if len(buf) < 4 + n:
                return None
            try:
                head = json.loads(bytes(buf[4:4 + n]))
                lens = [head.get(k) or 0 for k in ("stdout", "stderr", "output")]
                if not isinstance(head, dict) or head.get("ready"):
                    lens = [0, 0, 0]
            except (ValueError, AttributeError) as e:
                raise PoolError("the worker sent a header that is not JSON: %s" % e) from None
            if any(not isinstance(x, int) or x < 0 or x > self.pool.output_cap for x in lens):
                raise PoolError("the worker announced more than output_cap bytes")
            self.head = head
            self.need = sum(lens)
            del buf[:4 + n]
        if len(buf) < self.need:
            return None
        got = (self.head, bytes(buf[:self.need]))
        del buf[:self.need]
        self.head = None
        self.need = 0
        return got
