"""Tests of aijail.dask on a real Dask cluster: a scheduler and two workers
started as separate processes (tests/python/dask_cluster.py) on 127.0.0.1,
each worker keeping an aijail.Pool of two jails (jail-worker).

Run by tests/python/run.sh (make python-check) as the unprivileged test
user, beside test_aijail.py: the client, the scheduler, the workers and so
the jails all run as that user.  Skipped, naming the cause, where Dask's
distributed is not importable (make deps-test installs python3-distributed).
"""

import json
import os
import shutil
import tempfile
import threading
import time
import unittest

import aijail

try:
    import distributed  # noqa: F401
    import aijail.dask
    from dask_cluster import Cluster
    WHY = None
except ImportError as e:
    WHY = "Dask's distributed is not importable (%s): make deps-test installs python3-distributed" % e

# A small input bound, so that an input over it is cheap to send.
CAP = 4096

# What the jail is, seen from inside: its user namespace.
HANDLER = r"""
import json, os, sys, time
d = json.load(open(sys.argv[1]))
time.sleep(d.get("sleep", 0))
open(sys.argv[2], "w").write(json.dumps({"n": d["n"], "sq": d["n"] ** 2,
                                         "ns": os.readlink("/proc/self/ns/user")}))
"""


def outputs(results):
    return [json.loads(r.output) for r in results]


def jail_processes(identities):
    """Our processes (the test user's) in one of these user namespaces."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/ns/user" % pid) in identities:
                found.append(int(pid))
        except OSError:
            pass
    return found


@unittest.skipIf(WHY is not None, WHY)
class Dask(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="aijail-dask.")
        stub = os.path.join(os.path.dirname(aijail.find_stub()), "jail-worker")
        cls.cluster = Cluster(cls.tmp, workers=2, nthreads=2)
        try:
            cls.client = cls.cluster.client(2)
            aijail.dask.register(cls.client, aijail.dask.PoolPlugin(
                stub=stub, workers=2, handler_timeout=60, dir=cls.tmp, input_cap=CAP))
            info = cls.client.scheduler_info()["workers"]
            cls.address = {w["name"]: a for a, w in info.items()}
        except BaseException:
            cls.cluster.close()
            raise
        cls.own_ns = os.readlink("/proc/self/ns/user")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.client.close()
        finally:
            cls.cluster.close()
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, results, ns):
        self.assertEqual(len(results), len(ns))
        for r, n in zip(results, ns):
            self.assertIsInstance(r, aijail.HandlerResult)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = json.loads(r.output)
            self.assertEqual((out["n"], out["sq"]), (n, n * n))
            # The call ran in the jail the result names, which is not ours.
            self.assertEqual(out["ns"], r.jail)
            self.assertNotEqual(r.jail, self.own_ns)

    def test_1_each_worker_its_own_jails(self):
        """Calls pinned to each worker run in that worker's jails, two of
        them (its pool), none shared with the other worker."""
        jails = {}
        for name, addr in sorted(self.address.items()):
            futs = [self.client.submit(aijail.dask.run, HANDLER, {"n": i}, workers=[addr],
                                       pure=False) for i in range(12)]
            res = self.client.gather(futs)
            self.check(res, range(12))
            self.assertEqual({r.worker for r in res}, {addr})
            jails[name] = {r.jail for r in res}
            self.assertLessEqual(len(jails[name]), 2, jails[name])
        self.assertEqual(len(jails), 2)
        a, b = jails.values()
        self.assertFalse(a & b, "a jail served both workers: %s" % (a & b))

    def test_2_map_in_order(self):
        """map() over the cluster: the records' order, each result right,
        both workers used."""
        ns = list(range(60))
        res = aijail.dask.map(self.client, HANDLER, [{"n": n} for n in ns])
        self.check(res, ns)
        self.assertEqual({r.worker for r in res}, set(self.address.values()))

    def test_3_batches(self):
        ns = list(range(50))
        res = aijail.dask.map(self.client, HANDLER, [{"n": n} for n in ns], batch=8)
        self.check(res, ns)

    def test_4_errors_in_place(self):
        """A call's error stays the call's: raised by map, or in its place."""
        bad = "import sys\nsys.exit(3)\n"
        res = aijail.dask.map(self.client, bad, [{"n": 1}, {"n": 2}])
        self.assertEqual([r.returncode for r in res], [3, 3])
        with self.assertRaises(aijail.InputLimitExceeded):
            aijail.dask.map(self.client, HANDLER, [{"n": 1}, "x" * (CAP + 1)])
        res = aijail.dask.map(self.client, HANDLER, [{"n": 1}, "x" * (CAP + 1)],
                              batch=2, return_exceptions=True)
        self.check(res[:1], [1])
        self.assertIsInstance(res[1], aijail.InputLimitExceeded)

    def test_5_unbuildable_fails_register(self):
        """A pool whose stub cannot start fails the registration itself,
        naming the stub; the workers' own pools go on."""
        bad = aijail.dask.PoolPlugin(stub=os.path.join(self.tmp, "no-such-jail-worker"),
                                     name="aijail-bad", dir=self.tmp)
        with self.assertRaises(Exception) as cm:
            aijail.dask.register(self.client, bad)
        self.assertIn("no-such-jail-worker", str(cm.exception))
        with self.assertRaises(RuntimeError) as cm:
            self.client.submit(aijail.dask.run, HANDLER, {"n": 1}, plugin="aijail-bad",
                               pure=False).result()
        self.assertIn("no aijail pool", str(cm.exception))
        self.check(aijail.dask.map(self.client, HANDLER, [{"n": 2}]), [2])

    def test_9_worker_killed_mid_map(self):
        """w2 killed (SIGKILL, no nanny) while it runs calls of a map: the
        map still returns every result, right and in order, all from w1
        (w2's finished results died with it and were run again); w2's
        jails end with it."""
        ns = list(range(40))
        w1, w2 = self.address["w1"], self.address["w2"]
        before = self.client.gather([
            self.client.submit(aijail.dask.run, HANDLER, {"n": n}, workers=[w2], pure=False)
            for n in range(6)])
        w2_jails = {r.jail for r in before}
        got = {}

        def go():
            try:
                got["res"] = aijail.dask.map(self.client, HANDLER,
                                             [{"n": n, "sleep": 0.2} for n in ns])
            except BaseException as e:  # noqa: BLE001 -- reported below
                got["err"] = e

        t = threading.Thread(target=go)
        t.start()
        # Until the scheduler has calls of this map running on w2.
        end = time.monotonic() + 120
        while not self.client.processing().get(w2) and time.monotonic() < end:
            time.sleep(0.02)
        self.assertTrue(self.client.processing().get(w2), "w2 never got a call")
        self.cluster.kill("w2")
        t.join(300)
        self.assertFalse(t.is_alive(), "map did not return after w2 was killed")
        self.assertNotIn("err", got)
        self.check(got["res"], ns)
        self.assertEqual({r.worker for r in got["res"]}, {w1})
        # The jails of the dead worker end at their stdin's end of file.
        left = jail_processes(w2_jails)
        end = time.monotonic() + 60
        while left and time.monotonic() < end:
            time.sleep(0.1)
            left = jail_processes(w2_jails)
        self.assertEqual(left, [], "w2's jails outlived it")


if __name__ == "__main__":
    unittest.main()
