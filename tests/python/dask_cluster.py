"""A Dask cluster of separate processes on 127.0.0.1, for test_dask.py and
bench/pool_dask.py: a scheduler and N workers started as a user would start them
(``dask scheduler``, ``dask worker``; ``dask-scheduler``, ``dask-worker``
where the dask command has no such subcommand), ports chosen by the kernel,
no dashboard, no nanny (a worker killed stays dead, as a lost machine).
The workers inherit this process's environment (PYTHONPATH, AIJAIL_STUB).
"""

import os
import shutil
import signal
import subprocess
import sys
import time


def _cli(what):
    dask = shutil.which("dask")
    if dask:
        probe = subprocess.run([dask, what, "--help"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            return [dask, what]
    alone = shutil.which("dask-" + what)
    if alone:
        return [alone]
    # Where neither script is on PATH: the modules they run.
    return [sys.executable, "-m", "distributed.cli.dask_" + what]


class Cluster:
    def __init__(self, tmp, workers=2, nthreads=2, start_timeout=120):
        self.tmp = tmp
        self.procs = []
        self.workers = {}  # name -> Popen
        self.file = os.path.join(tmp, "scheduler.json")
        self.start_timeout = start_timeout
        self.log = open(os.path.join(tmp, "dask.log"), "ab")
        self.procs.append(self._start(_cli("scheduler") + [
            "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--scheduler-file", self.file]))
        self._await(lambda: os.path.exists(self.file), "the scheduler's file")
        self.nthreads = nthreads
        for i in range(workers):
            self.add_worker("w%d" % (i + 1))

    def _start(self, argv):
        # A session of its own: a worker is killed alone, by its pid.
        return subprocess.Popen(argv, cwd=self.tmp, stdin=subprocess.DEVNULL, stdout=self.log,
                                stderr=subprocess.STDOUT, start_new_session=True)

    def _await(self, cond, what):
        end = time.monotonic() + self.start_timeout
        while not cond():
            if time.monotonic() > end:
                self.close()
                raise RuntimeError("no %s within %ds: %s" % (what, self.start_timeout,
                                                             self.tail()))
            time.sleep(0.1)

    def add_worker(self, name):
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        p = self._start(_cli("worker") + [
            "--scheduler-file", self.file, "--host", "127.0.0.1", "--nthreads",
            str(self.nthreads), "--no-nanny", "--no-dashboard", "--name", name,
            "--local-directory", d])
        self.procs.append(p)
        self.workers[name] = p
        return p

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.tmp, "dask.log"), "rb") as f:
            return f.read()[-1500:].decode("utf-8", "replace")

    def client(self, workers):
        from distributed import Client

        c = Client(scheduler_file=self.file, timeout=self.start_timeout)
        c.wait_for_workers(workers, timeout=self.start_timeout)
        return c

    def kill(self, name):
        self.workers[name].send_signal(signal.SIGKILL)
        self.workers[name].wait()

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.log.close()
