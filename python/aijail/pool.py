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
import selectors
import shutil
import threading
import time

from . import (
    OUTPUT_CAP,
    HandlerResult,
    OutputLimitExceeded,
    SandboxError,
    _check_cap,
    _decode,
    _stub_argv,
    find_stub,
)
from ._pool_worker import (  # noqa: F401 (the errors stay aijail.pool's names)
    HandlerTimeout,
    InputLimitExceeded,
    LimitExceeded,
    PoolError,
    WorkerLost,
    _HEAD,
    _NS,
    _Worker,
    _encode_input,
    _zygote_source,
)

__all__ = ["Pool", "PoolError", "WorkerLost", "LimitExceeded", "HandlerTimeout",
           "InputLimitExceeded", "SCRATCH"]

#: The call's scratch directory inside the jail, fresh for each call.
SCRATCH = "/tmp/aijail-call"


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
