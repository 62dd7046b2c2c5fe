"""aijail.Pool: warm jails for handlers run many times (docs/pool.md).

::

    with aijail.Pool(profile="jail-worker", workers=2, handler_timeout=10) as pool:
        res = pool.run_handler(SOURCE, {"n": [1, 2, 3]})
        for res in pool.map(SOURCE, records):
            ...

Each worker is one jail (the stub named by ``profile``), started once, in a
private temporary project, running a zygote: a warm Python interpreter
that forks a fresh child per call.  The child runs the handler the way
``run_handler`` does (``handler.py input output`` in a scratch directory of
its own, ``/tmp/aijail-call``), under per-call bounds; the return is the same
HandlerResult.  After each call the zygote kills every process the call
left (``kill(-1)`` in the jail's pid namespace reaches all but pid 1 and
itself), removes everything the call wrote in the jail's writable
directories, its SysV IPC objects, and puts back the modes and extended
attributes of those directories; a zygote whose own attributes the call
changed from outside (its scheduling, affinity, rlimits, I/O priority...)
retires instead.  What a call can still see of an earlier one is listed
in docs/pool.md.

The channel to each worker is the stub's stdin and stdout.  Both ways a
message is a frame, a 4-byte big-endian length and that many bytes of UTF-8
JSON (a header, at most 64 KiB), followed by the raw bytes the header
counts.  A request is ``{"source": N, "input": M}`` then the source (UTF-8)
and the input, each at most ``input_cap`` bytes (default OUTPUT_CAP,
64 MiB); a result is ``{"returncode", "limit", "stdout": N, "stderr": M,
"output": K or null}`` then those bytes, each at most ``output_cap``
(default OUTPUT_CAP); after each result, once the zygote has put the jail
back, ``{"clean": true}`` (or ``{"retire": why}`` and the zygote exits),
which the host reads before the worker's next call.  A worker that breaks
the framing or announces more is killed and replaced.

Errors of a call (the pool goes on):
  HandlerTimeout         (a subprocess.TimeoutExpired) the handler ran past
                         handler_timeout: every process of the call killed
  LimitExceeded          the handler died of its memory bound (an uncaught
                         MemoryError) or its process bound (an uncaught
                         EAGAIN from fork); .limit says which, .result holds
                         what it printed
  OutputLimitExceeded    it wrote more than output_cap to a stream or file
  InputLimitExceeded     the input or source is over input_cap; nothing ran
  WorkerLost             the worker died or stopped answering (within
                         handler_timeout + grace); it is replaced
SandboxError is raised by Pool() when a worker's jail cannot be built, and
by a call when a dead worker cannot be restarted.

Standard library only.
"""

import collections
import json
import os
import re
import select
import selectors
import shutil
import struct
import subprocess
import tempfile
import threading
import time

from . import (
    OUTPUT_CAP,
    HandlerResult,
    OutputLimitExceeded,
    SandboxError,
    _check_cap,
    _decode,
    _read_record,
    _record_message,
    _status_option,
    _stub_argv,
    find_stub,
)

_NS = re.compile(r"user:\[[0-9]+\]")

__all__ = ["Pool", "PoolError", "WorkerLost", "LimitExceeded", "HandlerTimeout",
           "InputLimitExceeded", "SCRATCH"]

#: The call's scratch directory inside the jail, fresh for each call.
SCRATCH = "/tmp/aijail-call"

_HEAD = struct.Struct(">I")
_HEADER_CAP = 64 * 1024
_STDERR_CAP = 64 * 1024
_ZYGOTE = None


def _zygote_source():
    global _ZYGOTE
    if _ZYGOTE is None:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_zygote.py")) as f:
            _ZYGOTE = f.read()
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


class Pool:
    """Warm jails that run handler code, one fresh process per call.

    profile          the stub each worker is (a name on PATH or a path;
                     default jail-worker); stub= overrides it
    workers          how many jails (default 2)
    handler_timeout  seconds a call may run (default 60); past it every
                     process of the call is killed and HandlerTimeout raised
    memory           the call's address-space bound, bytes (RLIMIT_AS,
                     default 1 GiB; None: the jail's own)
    processes        the call's process bound, itself included (RLIMIT_NPROC,
                     which counts per user namespace, threads too; the
                     stub's three processes there are added; default 32)
    file_size        the largest file a call may write (RLIMIT_FSIZE,
                     default 1 GiB)
    input_cap        bound on the input and on the source, bytes
                     (default OUTPUT_CAP)
    output_cap       bound on each of output file, stdout, stderr read back
                     (default OUTPUT_CAP); over it OutputLimitExceeded
    preload          modules the zygote imports once, before any call
    mode, no_net, ro_maps, env, dir   as for run_handler (no network by
                     default; dir holds the workers' temporary projects)
    project          the directory every worker's jail is built on instead
                     of a temporary one of its own: the policy's masks and
                     denies apply there (a .env reads empty).  It must be
                     read-only in the jail (mode defaults to "lockdown"
                     then); a worker that finds it writable raises
                     SandboxError, since the pool would remove what the
                     caller adds there
    language         "python" (the only one: docs/pool.md says why not node)
    interpreter      the jailed interpreter (default: python3's real path,
                     which the generic jail gives its base group: no
                     caches, no network)
    start_timeout    seconds a worker may take to be ready (default 60)
    grace            seconds past handler_timeout before the host kills a
                     worker that does not answer (default 5)

    Raises SandboxError when a worker's jail cannot be built.
    """

    def __init__(self, profile="jail-worker", workers=2, handler_timeout=60, *,
                 memory=1 << 30, processes=32, file_size=1 << 30,
                 input_cap=OUTPUT_CAP, output_cap=OUTPUT_CAP, preload=(), mode=None,
                 no_net=True, ro_maps=(), env=None, dir=None, project=None, stub=None,
                 language="python", interpreter=None, start_timeout=60, grace=5):
        if language != "python":
            raise ValueError("language=%r: only python has a zygote; docs/pool.md says why "
                             "node has none" % (language,))
        if not isinstance(workers, int) or workers < 1:
            raise ValueError("workers must be a positive number, not %r" % (workers,))
        if not handler_timeout or handler_timeout <= 0:
            raise ValueError("handler_timeout must be a positive number of seconds")
        _check_cap(output_cap)
        _check_cap(input_cap)
        self.stub = find_stub(stub or profile)
        self.handler_timeout = handler_timeout
        self.memory, self.processes = memory, processes
        self.input_cap, self.output_cap = input_cap, output_cap
        self.env, self.dir = env, dir
        self.project = None
        if project is not None:
            self.project = os.path.realpath(os.fspath(project))
            if mode is None:
                mode = "lockdown"
        self.start_timeout, self.grace = start_timeout, grace
        if interpreter is None:
            found = shutil.which("python3") or "/usr/bin/python3"
            interpreter = (os.path.realpath(found),)
        elif isinstance(interpreter, str):
            interpreter = (interpreter,)
        cfg = {
            "scratch": SCRATCH,
            "output_cap": output_cap,
                "request_cap": input_cap,
            "timeout": handler_timeout,
            # RLIMIT_NPROC counts per user namespace, and three processes
            # of the jail's are in it already: the stub's parent (which
            # joins the namespace), pid 1 and the zygote
            "memory": memory or 0,
            "processes": processes + 3 if processes else 0,
            "file_size": file_size or 0,
            "preload": list(preload),
        }
        self._explain_kw = dict(mode=mode, no_net=no_net, ro_maps=ro_maps, env=env,
                                cwd=self.project)
        self.argv = _stub_argv(self.stub, ro_maps, (), no_net, None, mode) + \
            ["--"] + list(interpreter) + ["-c", _zygote_source(), json.dumps(cfg)]
        self._cv = threading.Condition()
        self._idle = collections.deque()
        self._all = []
        self._closed = False
        started = []
        try:
            for _ in range(workers):
                w = _Worker(self)
                started.append(w)
                w.spawn()
            self._await_ready(started)
        except BaseException:
            for w in started:
                w.stop(kill=True)
            for w in started:
                w.reap()
            raise
        self._all = started
        self._idle.extend(started)

    # -- start -------------------------------------------------------------------
    def _await_ready(self, workers):
        deadline = time.monotonic() + self.start_timeout
        sel = selectors.DefaultSelector()
        pending = {}
        try:
            for w in workers:
                sel.register(w.rfd, selectors.EVENT_READ, w)
                pending[w.rfd] = w
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    w = next(iter(pending.values()))
                    w.stop(kill=True)
                    raise SandboxError("a pool worker was not ready within %gs: %s"
                                       % (self.start_timeout, w.stderr_text().strip()),
                                       self.argv)
                for key, _ in sel.select(left):
                    w = key.data
                    try:
                        frame = w.on_read()
                    except EOFError:
                        raise w.fail_start() from None
                    if frame is None:
                        continue
                    hello = frame[0]
                    if not hello.get("ready"):
                        raise SandboxError("a pool worker said %r instead of ready" % hello,
                                           self.argv)
                    w.zygote_pid = hello.get("pid")
                    ns = hello.get("ns")
                    w.identity = ns if isinstance(ns, str) and _NS.fullmatch(ns) else None
                    if self.project is not None and self.project in hello.get("dirs", ()):
                        w.stop(kill=True)
                        raise SandboxError(
                            "project=%s is writable in the jail: the pool would remove what "
                            "is added there after each call; use a mode where it is read-only "
                            "(lockdown)" % self.project, self.argv)
                    sel.unregister(w.rfd)
                    del pending[w.rfd]
        finally:
            sel.close()

    def _restart(self, w):
        w.stop(kill=True)
        w.reap()
        w.spawn()
        try:
            self._await_ready([w])
        except BaseException:
            w.stop(kill=True)
            w.reap()
            raise

    # -- workers in and out ------------------------------------------------------
    def _take(self, block=True):
        with self._cv:
            while not self._idle:
                if self._closed:
                    raise ValueError("the pool is closed")
                if not block:
                    return None
                self._cv.wait()
            if self._closed:
                raise ValueError("the pool is closed")
            w = self._idle.popleft()
        self._ready(w)
        if not w.alive:
            try:
                self._restart(w)
            except BaseException:
                self._give(w)
                raise
        return w

    def _ready(self, w):
        """A worker taken for a call: its last call cleaned after, and
        nothing else to say (readable means it ended, or broke the
        protocol, since); else it is stopped, to be started again before
        this call is sent to it."""
        if w.alive and not w.settle(self.handler_timeout + self.grace):
            w.stop(kill=True)
        if w.alive and (w.inbuf or w.poll.poll(0)):
            w.stop(kill=True)

    def _give(self, w):
        with self._cv:
            self._idle.append(w)
            self._cv.notify()

    def _lost(self, w):
        """A worker that failed: killed, and started again when possible."""
        w.stop(kill=True)
        w.reap()
        try:
            self._restart(w)
        except (SandboxError, OSError):
            pass  # left dead: the next _take tries again and raises

    # -- calls -------------------------------------------------------------------
    def _request(self, source, input):
        """The request: a frame (4-byte length, JSON header with the byte
        counts), then the source (UTF-8) and the input, raw."""
        if isinstance(source, str):
            source = source.encode()
        else:
            # The call's child decodes it; a worker is not lost over a typo.
            bytes(source).decode("utf-8")
        if len(source) > self.input_cap:
            raise InputLimitExceeded("the handler's source", self.input_cap)
        data = _encode_input(input)
        if len(data) > self.input_cap:
            raise InputLimitExceeded("the input", self.input_cap)
        head = json.dumps({"source": len(source), "input": len(data)}).encode()
        return b"".join((_HEAD.pack(len(head)), head, source, data))

    def _result(self, got):
        res, payload = got
        no, ne = res["stdout"], res["stderr"]
        out = _decode(payload[:no])
        err = _decode(payload[no:no + ne])
        output = None if res.get("output") is None else payload[no + ne:]
        hr = HandlerResult(output, res["returncode"], out, err, SCRATCH)
        limit = res.get("limit")
        if limit == "timeout":
            raise HandlerTimeout(["handler.py"], self.handler_timeout, out, err)
        if limit == "memory":
            raise LimitExceeded("memory", self.memory, hr)
        if limit == "processes":
            raise LimitExceeded("processes", self.processes, hr)
        if limit == "setup":
            raise PoolError("the call could not be set up in the worker (exit status 125)")
        if limit and limit.startswith("output:"):
            what = {"stdout": "the handler's stdout", "stderr": "the handler's stderr",
                    "output": "the handler's output file"}.get(limit[7:], limit[7:])
            raise OutputLimitExceeded(what, self.output_cap)
        return hr

    def _pump(self, busy, deadlines):
        """Drive the busy workers until one finishes: [(worker, result or exception)]."""
        sel = selectors.DefaultSelector()
        try:
            for w in busy:
                sel.register(w.rfd, selectors.EVENT_READ, w)
                if w.out is not None:
                    sel.register(w.wfd, selectors.EVENT_WRITE, w)
            done = []
            while not done:
                now = time.monotonic()
                first = min(deadlines[w] for w in busy)
                if first <= now:
                    for w in busy:
                        if deadlines[w] <= now:
                            done.append((w, WorkerLost(
                                "the worker did not answer within handler_timeout + grace "
                                "(%gs); it was killed and replaced"
                                % (self.handler_timeout + self.grace))))
                    break
                for key, ev in sel.select(first - now):
                    w = key.data
                    if key.fd == w.wfd:
                        try:
                            w.on_write()
                        except OSError as e:
                            done.append((w, WorkerLost("the worker stopped reading: %s" % e)))
                            sel.unregister(w.wfd)
                            continue
                        if w.out is None:
                            sel.unregister(w.wfd)
                        continue
                    try:
                        frame = w.on_read()
                    except EOFError:
                        done.append((w, WorkerLost(
                            "the worker ended during the call (%s); it was replaced"
                            % (w.stderr_text().strip() or "no message"))))
                        continue
                    except PoolError as e:
                        done.append((w, WorkerLost("%s; it was replaced" % e)))
                        continue
                    if frame is not None:
                        done.append((w, frame))
            return done
        finally:
            sel.close()

    def _pump_one(self, w, deadline):
        """_pump for one worker, with its own poll object: the common case
        of run_handler, where a selector per call is most of the host's
        cost.  The request usually fits the pipe and goes at once."""
        try:
            while w.out is not None and w.on_write():
                pass
        except OSError as e:
            return WorkerLost("the worker stopped reading: %s" % e)
        if w.out is not None:
            return self._pump([w], {w: deadline})[0][1]
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return WorkerLost("the worker did not answer within handler_timeout + grace "
                                  "(%gs); it was killed and replaced"
                                  % (self.handler_timeout + self.grace))
            if not w.poll.poll(int(left * 1000) + 1):
                continue
            try:
                got = w.on_read()
            except EOFError:
                return WorkerLost("the worker ended during the call (%s); it was replaced"
                                  % (w.stderr_text().strip() or "no message"))
            except PoolError as e:
                return WorkerLost("%s; it was replaced" % e)
            if got is not None:
                return got

    def _finish(self, w, got):
        """The call's outcome (a HandlerResult or an exception), the worker fixed up."""
        if isinstance(got, BaseException):
            self._lost(w)
            return got
        w.dirty = True
        try:
            return self._result(got)
        except (ValueError, KeyError, TypeError) as e:
            self._lost(w)
            return WorkerLost("the worker answered out of protocol (%s); it was replaced" % e)
        except BaseException as e:
            return e

    def run_handler(self, source, input):
        """Run the handler on one input in a fresh process of a warm jail.

        As aijail.run_handler: the handler runs as ``handler.py input output``
        in its scratch directory and returns a HandlerResult (its directory
        is SCRATCH, inside the jail, already emptied).  Raises as the module
        docstring lists.
        """
        return self._run(source, input)[0]

    def _run(self, source, input):
        """run_handler, and the identity of the jail that ran the call
        (its user namespace, "user:[INODE]": aijail.dask reports it)."""
        payload = self._request(source, input)
        w = self._take()
        try:
            w.send(payload)
            identity = w.identity
            got = self._finish(w, self._pump_one(w, time.monotonic() + self.handler_timeout
                                                 + self.grace))
        finally:
            self._give(w)
        if isinstance(got, BaseException):
            raise got
        return got, identity

    def map(self, source, inputs, *, return_exceptions=False):
        """The handler run on each input, the results yielded in order.

        The calls spread over every idle worker.  A call's error is raised
        when its turn comes (the calls still running then are waited for and
        their results dropped), or yielded in its place with
        return_exceptions=True.
        """
        held = [self._take()]
        while True:
            w = self._take(block=False)
            if w is None:
                break
            held.append(w)
        it = iter(inputs)
        window = 2 * len(held)
        free = list(held)
        busy = {}
        deadlines = {}
        results = {}
        nxt = 0
        issued = 0
        exhausted = False
        try:
            while True:
                while free and not exhausted and issued - nxt < window:
                    w = free[-1]
                    self._ready(w)
                    if not w.alive:
                        # Lost on an earlier call and not restarted then.
                        try:
                            self._restart(w)
                        except (SandboxError, OSError):
                            free.pop()
                            if not free and not busy:
                                raise
                            continue
                    try:
                        item = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    try:
                        payload = self._request(source, item)
                    except InputLimitExceeded as e:
                        results[issued] = e
                        issued += 1
                        continue
                    free.pop()
                    w.send(payload)
                    busy[w] = issued
                    deadlines[w] = time.monotonic() + self.handler_timeout + self.grace
                    issued += 1
                if nxt in results:
                    r = results.pop(nxt)
                    nxt += 1
                    if isinstance(r, BaseException) and not return_exceptions:
                        raise r
                    yield r
                    continue
                if not busy:
                    if exhausted:
                        return
                    continue
                for w, got in self._pump(list(busy), deadlines):
                    results[busy.pop(w)] = self._finish(w, got)
                    del deadlines[w]
                    free.append(w)
        finally:
            while busy:
                for w, got in self._pump(list(busy), deadlines):
                    self._finish(w, got)
                    del busy[w]
                    del deadlines[w]
            for w in held:
                self._give(w)

    # -- the end -----------------------------------------------------------------
    def close(self):
        """Stop every worker (its zygote ends at EOF) and remove its project."""
        with self._cv:
            if self._closed:
                return
            self._closed = True
            self._cv.notify_all()
        for w in self._all:
            w.stop()
        for w in self._all:
            w.reap()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def explain(self):
        """The stub's --jail-explain=json for a worker's command line (a dict)."""
        from . import explain

        argv = self.argv
        i = argv.index("--")
        return explain(argv[i + 1:i + 2], stub=self.stub, **self._explain_kw)
