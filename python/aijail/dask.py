"""aijail.dask: warm jails on a Dask cluster (docs/pool.md, "On Dask").

::

    from distributed import Client
    import aijail.dask

    client = Client("tcp://scheduler:8786")
    aijail.dask.register(client, aijail.dask.PoolPlugin(profile="jail-worker",
                                                        handler_timeout=10))
    results = aijail.dask.map(client, SOURCE, records)   # HandlerResults, in order

PoolPlugin is a WorkerPlugin: each Dask worker that has it keeps one
aijail.Pool (started in setup, closed in teardown; a worker that joins
later gets it too), and run(), submitted to the cluster, runs a handler in
the pool of the worker it landed on.  The result is a WorkerResult: the
HandlerResult Pool.run_handler returns, which says besides where the call
ran (.worker, the Dask worker's address; .jail, the jail's user namespace,
"user:[INODE]", which the handler inside sees as /proc/self/ns/user).

A call's errors are the pool's (HandlerTimeout, LimitExceeded, WorkerLost,
...), raised by the task and so by its future.  A Dask worker that dies
takes its pool with it (its jails end with their stdin); the scheduler
runs its calls again on the others (Dask's allowed-failures, 3 by
default), so a handler should be safe to run twice, as any Dask task.

Needs Dask's distributed (Debian: python3-distributed); the rest of aijail
does not.  Every worker host needs aijail itself: the package and the stub
(the wheel, or the Debian packages), not found on PATH only.
"""

import asyncio
import builtins
import concurrent.futures

from distributed import get_worker, wait
from distributed.diagnostics.plugin import WorkerPlugin

from . import HandlerResult
from .pool import Pool

__all__ = ["PoolPlugin", "WorkerResult", "register", "run", "run_batch", "map", "NAME"]

#: The plugin's name on each worker unless PoolPlugin(name=) says another.
NAME = "aijail-pool"


class WorkerResult(HandlerResult):
    """A HandlerResult, and where the call ran: .worker (the Dask worker's
    address) and .jail (the jail's user namespace, "user:[INODE]")."""

    def __new__(cls, result, worker, jail):
        self = super().__new__(cls, *result)
        self.worker = worker
        self.jail = jail
        return self

    def __reduce__(self):
        # A namedtuple pickles its fields only: the two more go along.
        return (WorkerResult, (HandlerResult(*self), self.worker, self.jail))

    def __repr__(self):
        return "%s, worker=%r, jail=%r)" % (super().__repr__()[:-1], self.worker, self.jail)


class PoolPlugin(WorkerPlugin):
    """An aijail.Pool on each Dask worker.

    profile, and every keyword of aijail.Pool (handler_timeout, memory,
    stub, preload, ...), are the pool's.  workers: its jails, by default
    the Dask worker's threads (--nthreads), so that each thread that runs
    a call has a jail ready.  name: the plugin's name on the worker (NAME
    by default); run() and map() take the same.

    setup() starts the pool, and raises SandboxError (the stub's message)
    where its jails cannot be built: registering the plugin fails then,
    before any call is sent.
    """

    def __init__(self, profile="jail-worker", workers=None, *, name=NAME, **pool_kw):
        self.name = name
        self.profile = profile
        self.workers = workers
        self.pool_kw = pool_kw
        self.pool = None
        self.address = None

    def setup(self, worker):
        n = self.workers or getattr(worker, "nthreads", None) or 2
        self.address = worker.address
        self.size = n

        def start():
            self.pool = Pool(self.profile, workers=n, **self.pool_kw)

        # The jails start off the worker's event loop (up to the pool's
        # start_timeout): its heartbeats go on meanwhile.  Dask awaits
        # what setup returns, so an error still fails the registration.
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            start()
            return None
        return loop.run_in_executor(None, start)

    def teardown(self, worker):
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    # The plugin goes to every worker by pickle: its pool never does.
    def __getstate__(self):
        d = dict(self.__dict__)
        d["pool"] = None
        d["address"] = None
        return d


def register(client, plugin=None, **kw):
    """Register plugin (else PoolPlugin(**kw)) on every worker of client's
    cluster, and on every worker that joins later; returns the plugin."""
    if plugin is None:
        plugin = PoolPlugin(**kw)
    # register_plugin since distributed 2023.9, which deprecates the other.
    reg = getattr(client, "register_plugin", None) or client.register_worker_plugin
    reg(plugin, name=plugin.name)
    return plugin


def _plugin(name):
    w = get_worker()
    p = w.plugins.get(name)
    if p is None or getattr(p, "pool", None) is None:
        raise RuntimeError("Dask worker %s has no aijail pool %r: register "
                           "aijail.dask.PoolPlugin(...) on the client first" % (w.address, name))
    return w, p


def run(handler, record, *, plugin=NAME):
    """On a Dask worker: the handler run on record in that worker's pool.
    Returns a WorkerResult; raises as Pool.run_handler raises."""
    w, p = _plugin(plugin)
    res, jail = p.pool._run(handler, record)
    return WorkerResult(res, w.address, jail)


def run_batch(handler, records, *, plugin=NAME):
    """On a Dask worker: the handler run on each record, spread over the
    pool's jails; a list of WorkerResults, with a call's exception in its
    place."""
    w, p = _plugin(plugin)

    def one(record):
        try:
            res, jail = p.pool._run(handler, record)
            return WorkerResult(res, w.address, jail)
        except Exception as e:  # noqa: BLE001 -- handed back in its place
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=p.size) as ex:
        return builtins.list(ex.map(one, records))


# client.map passes the record first.
def _run_one(record, *, handler, plugin):
    return run(handler, record, plugin=plugin)


def _run_chunk(records, *, handler, plugin):
    return run_batch(handler, records, plugin=plugin)


def map(client, handler, records, *, plugin=NAME, batch=1, return_exceptions=False, **kw):
    """handler run on every record across the cluster: a list of
    WorkerResults in the records' order (Pool.map's order).

    batch: records per Dask task.  1 gives each call a task of its own
    (the scheduler balances call by call, and a lost worker costs one call
    each); more amortise Dask's cost per task (docs/pool.md, the figures).
    A call's exception is raised (the first in order), or put in its place
    with return_exceptions=True.  Other keywords go to client.map
    (workers=, resources=, priority=, ...).
    """
    records = builtins.list(records)
    if not isinstance(batch, int) or batch < 1:
        raise ValueError("batch must be a positive number of records, not %r" % (batch,))
    if batch == 1:
        # pure=False: two equal records are two calls, never one shared
        # result (a handler may read the clock, or be counted).
        futs = client.map(_run_one, records, handler=handler, plugin=plugin, pure=False, **kw)
    else:
        chunks = [records[i:i + batch] for i in range(0, len(records), batch)]
        futs = client.map(_run_chunk, chunks, handler=handler, plugin=plugin, pure=False, **kw)
    wait(futs)
    # One gather for every finished task (a result each is a round trip
    # each); the failed ones' exceptions fetched apart, put in their place.
    ok = [f for f in futs if f.status == "finished"]
    done = dict(zip((f.key for f in ok), client.gather(ok)))
    out = []
    for f in futs:
        if f.key in done:
            got = done[f.key] if batch > 1 else [done[f.key]]
        else:
            got = [f.exception()]
        for r in got:
            if isinstance(r, BaseException) and not return_exceptions:
                raise r
            out.append(r)
    return out
