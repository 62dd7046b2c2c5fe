#!/usr/bin/env python3
"""bench/pool.py: issue 24's pool figures (make bench, PARTS=pool).

    python3 bench/pool.py STUB_DIR OUT.json [POOL_CALLS RUN_HANDLER_CALLS FORKS ROUNDS]

A trivial Python handler (reads its input file, writes it back as its
output) run three ways, interleaved in ROUNDS rounds so that each ratio
compares the same minutes of this shared machine:

  pool         aijail.Pool(jail-worker, workers=2): POOL_CALLS calls (1000)
               one after another, each timed from pool.run_handler() to
               its result; and the same count through pool.map(), whose
               figure is the wall time per call (both workers busy)
  run_handler  aijail.run_handler with jail-worker: RUN_HANDLER_CALLS (50)
  fork         FORKS (1000) forks of this warm interpreter, unjailed, each
               child running the handler as the pool's does (scratch dir,
               handler.py input output) and the parent reading its output
  bare fork    FORKS forks of it whose child only exits: the floor under
               any design that gives each call a fresh process

Prints a markdown section (per-call median and p99 of each, the ratios,
issue 24's targets PASS/FAIL) and writes the samples to OUT.json.  A
benchmark, not a test: it exits 0 whatever the figures.
"""

import json
import os
import shutil
import statistics as st
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("AIJAIL_PYTHON", os.path.join(HERE, "..", "python")))

import aijail  # noqa: E402

SRC = "import sys\nopen(sys.argv[2], 'wb').write(open(sys.argv[1], 'rb').read())\n"


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def fork_call(scratch, i):
    """One call the pool's way, without a jail: fork, run, wait, read."""
    data = str(i).encode()
    pid = os.fork()
    if pid == 0:
        try:
            os.mkdir(scratch)
            os.chdir(scratch)
            with open("handler.py", "w") as f:
                f.write(SRC)
            with open("input", "wb") as f:
                f.write(data)
            sys.argv = ["handler.py", "input", "output"]
            exec(compile(SRC, "handler.py", "exec"), {"__name__": "__main__"})
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    with open(os.path.join(scratch, "output"), "rb") as f:
        out = f.read()
    shutil.rmtree(scratch)
    if status != 0 or out != data:
        raise RuntimeError("fork call %d failed (%d)" % (i, status))


def bare_fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def main():
    stubs, out = sys.argv[1], sys.argv[2]
    n_pool, n_rh, n_fork, rounds = (list(map(int, sys.argv[3:7])) or [1000, 50, 1000, 5])
    stub = os.path.join(stubs, "jail-worker")
    tmp = tempfile.mkdtemp(prefix="ajbench-pool.")
    S = {"pool": [], "map": [], "run_handler": [], "fork": [], "bare": []}
    per_round = []
    try:
        t0 = time.perf_counter()
        pool = aijail.Pool(stub=stub, workers=2, handler_timeout=30, dir=tmp)
        start = time.perf_counter() - t0
        with pool:
            for i in range(20):  # warm-up
                pool.run_handler(SRC, i)
                aijail.run_handler(SRC, i, stub=stub, dir=tmp) if i < 2 else None
            for r in range(rounds):
                rs = {k: [] for k in S}
                for i in range(n_pool // rounds):
                    t = time.perf_counter()
                    res = pool.run_handler(SRC, i)
                    rs["pool"].append(time.perf_counter() - t)
                    if res.output != str(i).encode():
                        raise RuntimeError("pool call %d: %r" % (i, res))
                items = list(range(n_pool // rounds))
                t = time.perf_counter()
                got = [x.output for x in pool.map(SRC, items)]
                rs["map"].append((time.perf_counter() - t) / len(items))
                if got != [str(i).encode() for i in items]:
                    raise RuntimeError("pool.map: results out of order")
                for i in range(n_rh // rounds):
                    t = time.perf_counter()
                    res = aijail.run_handler(SRC, i, stub=stub, dir=tmp)
                    rs["run_handler"].append(time.perf_counter() - t)
                    if res.output != str(i).encode():
                        raise RuntimeError("run_handler call %d: %r" % (i, res))
                scratch = os.path.join(tmp, "fork-scratch")
                for i in range(n_fork // rounds):
                    t = time.perf_counter()
                    fork_call(scratch, i)
                    rs["fork"].append(time.perf_counter() - t)
                for i in range(n_fork // rounds):
                    t = time.perf_counter()
                    bare_fork()
                    rs["bare"].append(time.perf_counter() - t)
                for k in S:
                    S[k] += rs[k]
                per_round.append(st.median(rs["run_handler"]) / st.median(rs["pool"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ms = {k: (st.median(v) * 1e3, q(v, 0.99) * 1e3) for k, v in S.items()}
    ratio = st.median(S["run_handler"]) / st.median(S["pool"])
    with open(out, "w") as f:
        json.dump({"samples": S, "start_s": start, "ratio_rounds": per_round,
                   "load": os.getloadavg()}, f)
    print("## Pool (issue 24): warm jails against run_handler and bare forks")
    print()
    print("A trivial handler (input file copied to the output file); %d rounds, "
          "interleaved; load average at the end %.2f %.2f %.2f on %d CPUs."
          % ((rounds,) + os.getloadavg() + (os.cpu_count(),)))
    print("Pool start (2 workers, both jails ready): %.1f ms." % (start * 1e3))
    print()
    print("| how | calls | median ms | p99 ms |")
    print("| --- | ---: | ---: | ---: |")
    print("| Pool, jail-worker, 2 workers, one call at a time | %d | %.3f | %.3f |"
          % ((len(S["pool"]),) + ms["pool"]))
    print("| Pool.map, 2 workers busy: wall time per call (median of rounds) | %d | %.3f | — |"
          % (n_pool // rounds * rounds, ms["map"][0]))
    print("| run_handler, jail-worker | %d | %.3f | %.3f |"
          % ((len(S["run_handler"]),) + ms["run_handler"]))
    print("| fork of this warm interpreter, unjailed | %d | %.3f | %.3f |"
          % ((len(S["fork"]),) + ms["fork"]))
    print("| fork of this warm interpreter whose child only exits, unjailed | %d | %.3f | %.3f |"
          % ((len(S["bare"]),) + ms["bare"]))
    print()
    print("run_handler / Pool, medians: %.1f (per round %s)."
          % (ratio, ", ".join("%.1f" % x for x in per_round)))
    print("Pool / unjailed fork doing the same, medians: %.2f; Pool / a fork that only exits: %.2f."
          % (ms["pool"][0] / ms["fork"][0], ms["pool"][0] / ms["bare"][0]))
    print()
    print("| target (issue 24) | value | |")
    print("| --- | --- | --- |")
    print("| Pool median ≤ 1/20 of run_handler's | 1/%.1f | %s |"
          % (ratio, "PASS" if ratio >= 20 else "FAIL"))
    print("| Pool p99 < 5 ms | %.3f ms | %s |"
          % (ms["pool"][1], "PASS" if ms["pool"][1] < 5 else "FAIL"))


if __name__ == "__main__":
    main()
