#!/usr/bin/env python3
"""bench/pool_dask.py: calls per second of aijail.dask against Pool.map alone.

    python3 bench/pool_dask.py STUB_DIR [CALLS ROUNDS]

The pool figures' trivial handler (it copies its input to its output), run
CALLS times (default 400) each way, the ways interleaved in ROUNDS rounds
(default 3) so that each compares the same minutes of the machine:

  pool           aijail.Pool(jail-worker, workers=2).map in this process
  dask 1 worker  aijail.dask.map pinned to one Dask worker (2 threads,
                 a pool of 2 jails): a task per call, then batch=50
  dask 2 workers the same over both workers (4 jails in all)

The cluster is tests/python/dask_cluster.py's: a scheduler and two
workers as separate processes on 127.0.0.1.  Prints a markdown table of
the median calls per second over the rounds (and the lowest and highest).
Run it as the user the jails are for (not root: the tests' user).  A
benchmark, not a test.
"""

import os
import shutil
import statistics as st
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("AIJAIL_PYTHON", os.path.join(HERE, "..", "python")))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

import aijail  # noqa: E402
import aijail.dask  # noqa: E402
from dask_cluster import Cluster  # noqa: E402

SRC = "import sys\nopen(sys.argv[2], 'wb').write(open(sys.argv[1], 'rb').read())\n"


def rate(fn, n):
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    assert len(out) == n and all(r.returncode == 0 for r in out), "a call failed"
    assert [r.output for r in out] == [str(i).encode() for i in range(n)], "wrong results"
    return n / dt


def main():
    stub_dir = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    stub = os.path.join(os.path.abspath(stub_dir), "jail-worker")
    tmp = tempfile.mkdtemp(prefix="aijail-bench-dask.")
    inputs = [str(i) for i in range(calls)]
    cluster = Cluster(tmp, workers=2, nthreads=2)
    try:
        client = cluster.client(2)
        aijail.dask.register(client, aijail.dask.PoolPlugin(stub=stub, workers=2, dir=tmp))
        info = client.scheduler_info()["workers"]
        w1 = [a for a, w in info.items() if w["name"] == "w1"][0]
        ways = {
            "Pool.map, 2 jails, this process": None,
            "dask, 1 worker (2 jails), a task per call": dict(batch=1, workers=[w1]),
            "dask, 1 worker (2 jails), batch=50": dict(batch=50, workers=[w1]),
            "dask, 2 workers (2 jails each), a task per call": dict(batch=1),
            "dask, 2 workers (2 jails each), batch=50": dict(batch=50),
        }
        got = {k: [] for k in ways}
        with aijail.Pool(stub=stub, workers=2, dir=tmp) as pool:
            # One warm-up of each way: imports, connections, first forks.
            list(pool.map(SRC, inputs[:20]))
            aijail.dask.map(client, SRC, inputs[:20])
            for _ in range(rounds):
                for k, kw in ways.items():
                    if kw is None:
                        got[k].append(rate(lambda: list(pool.map(SRC, inputs)), calls))
                    else:
                        got[k].append(rate(lambda: aijail.dask.map(client, SRC, inputs, **kw),
                                           calls))
        client.close()
    finally:
        cluster.close()
        shutil.rmtree(tmp, ignore_errors=True)
    base = st.median(got["Pool.map, 2 jails, this process"])
    print("%d calls a run, %d rounds, %d CPUs, as %s\n" % (calls, rounds, os.cpu_count(),
                                                          os.environ.get("USER", "?")))
    print("| how | calls/s (median) | lowest | highest | against Pool.map |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for k, v in got.items():
        print("| %s | %.0f | %.0f | %.0f | %.2f |" % (k, st.median(v), min(v), max(v),
                                                     st.median(v) / base))


if __name__ == "__main__":
    main()
