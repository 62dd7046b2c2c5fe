"""Tests of the aijail Python package against the real stubs.

Run by tests/python/run.sh (make python-check) as the unprivileged test
user, with AIJAIL_STUB and AIJAIL_STATUS naming copies of the built stub
and status tool.  Every "gets nothing" case first shows, outside the jail,
that the same snippet does get the thing: a test that could not see would
otherwise pass.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import aijail

# What an eval()-style pipeline stage might try: one JSON line of findings.
HOSTILE = r"""
import json, os, socket, sys
port, home_file = int(sys.argv[1]), sys.argv[2]
r = {}
try:
    r["dotenv"] = open(".env").read()
except OSError as e:
    r["dotenv"] = "error: " + e.__class__.__name__
r["aws"] = os.environ.get("AWS_SECRET_ACCESS_KEY")
try:
    socket.create_connection(("127.0.0.1", port), 3).close()
    r["net"] = "connected"
except OSError as e:
    r["net"] = "error: " + e.__class__.__name__
try:
    r["home"] = open(home_file).read()
except OSError as e:
    r["home"] = "error: " + e.__class__.__name__
print(json.dumps(r))
"""

SECRET_ENV = "AIJAIL-PYTEST-DOTENV"
SECRET_AWS = "AIJAIL-PYTEST-AWS"
SECRET_HOME = "AIJAIL-PYTEST-HOME"


class Listener:
    """A TCP listener on the host's loopback that answers every connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            c.close()

    def close(self):
        self.sock.close()


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stub = aijail.find_stub()
        cls.home = os.path.expanduser("~")
        cls.tmp = tempfile.mkdtemp(prefix="aijail-pytest.")
        cls.project = os.path.join(cls.tmp, "proj")
        os.mkdir(cls.project)
        with open(os.path.join(cls.project, ".env"), "w") as f:
            f.write("KEY=" + SECRET_ENV)
        fd, cls.home_file = tempfile.mkstemp(prefix=".aijail-pytest.", dir=cls.home)
        with os.fdopen(fd, "w") as f:
            f.write(SECRET_HOME)
        cls.env = dict(os.environ, AWS_SECRET_ACCESS_KEY=SECRET_AWS)

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.home_file)
        shutil.rmtree(cls.tmp, ignore_errors=True)


class HostileSnippet(Base):
    def run_snippet(self, jailed, port):
        argv = [sys.executable if not jailed else "python3", "-c", HOSTILE, str(port),
                self.home_file]
        if jailed:
            cp = aijail.run_sandboxed(argv, no_net=True, cwd=self.project, env=self.env,
                                      timeout=30)
        else:
            cp = subprocess.run(argv, cwd=self.project, env=self.env, stdout=subprocess.PIPE,
                                universal_newlines=True, timeout=30)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return json.loads(cp.stdout)

    def test_gets_nothing(self):
        srv = Listener()
        try:
            outside = self.run_snippet(False, srv.port)
            inside = self.run_snippet(True, srv.port)
        finally:
            srv.close()
        # The control: unjailed, the same snippet finds all four.
        self.assertEqual(outside, {"dotenv": "KEY=" + SECRET_ENV, "aws": SECRET_AWS,
                                   "net": "connected", "home": SECRET_HOME})
        self.assertEqual(inside["dotenv"], "", "the masked .env is present and empty")
        self.assertIsNone(inside["aws"])
        self.assertTrue(inside["net"].startswith("error:"), inside["net"])
        self.assertEqual(inside["home"], "error: FileNotFoundError")
        self.assertNotIn(SECRET_ENV, json.dumps(inside))
        self.assertNotIn(SECRET_HOME, json.dumps(inside))

    def test_python_reaches_no_host_loopback(self):
        # python3's command group has 'network public' (issue 32): without
        # no_net the jailed snippet still cannot reach the host's
        # 127.0.0.1 listener, which answers from outside (the control).
        srv = Listener()
        try:
            socket.create_connection(("127.0.0.1", srv.port), 3).close()
            cp = aijail.run_sandboxed(["python3", "-c", HOSTILE, str(srv.port), self.home_file],
                                      cwd=self.project, env=self.env, timeout=30)
        finally:
            srv.close()
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertTrue(json.loads(cp.stdout)["net"].startswith("error:"), cp.stdout)


class Runs(Base):
    def test_exit_status_and_output(self):
        cp = aijail.run_sandboxed(["sh", "-c", "echo out; echo err >&2; exit 7"],
                                  cwd=self.project)
        self.assertEqual((cp.returncode, cp.stdout, cp.stderr), (7, "out\n", "err\n"))
        self.assertEqual(cp.args, ["sh", "-c", "echo out; echo err >&2; exit 7"])

    def test_input(self):
        cp = aijail.run_sandboxed(["cat"], input="line 1\nline 2\n", cwd=self.project)
        self.assertEqual(cp.stdout, "line 1\nline 2\n")

    def test_refusal_log(self):
        log = os.path.join(self.tmp, "refusals.jsonl")
        cp = aijail.run_sandboxed(
            ["python3", "-c", "import ctypes; print(ctypes.CDLL(None).syscall(101, 0, 0, 0, 0))"],
            cwd=self.project, log=log)
        self.assertEqual((cp.returncode, cp.stdout), (0, "-1\n"), cp.stderr)
        self.assertEqual(cp.stderr, "jail: refused 1 call (ptrace)\n")
        with open(log) as f:
            lines = [json.loads(l) for l in f]
        self.assertEqual([(e["kind"], e["name"], e["errno"]) for e in lines], [("call", "ptrace", 1)])

    def test_signal_status(self):
        cp = aijail.run_sandboxed(["sh", "-c", "kill -TERM $$"], cwd=self.project)
        self.assertEqual(cp.returncode, 128 + 15)

    def test_maps(self):
        ro = os.path.join(self.tmp, "ro")
        rw = os.path.join(self.tmp, "rw")
        os.makedirs(ro, exist_ok=True)
        os.makedirs(rw, exist_ok=True)
        with open(os.path.join(ro, "in.txt"), "w") as f:
            f.write("mapped")
        script = ('cat "$1/in.txt"; echo; echo x >"$1/new" 2>/dev/null || echo ro-refused; '
                  'echo written >"$2/out.txt"')
        cp = aijail.run_sandboxed(["sh", "-c", script, "sh", ro, rw], ro_maps=[ro],
                                  rw_maps=[rw], cwd=self.project)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(cp.stdout, "mapped\nro-refused\n")
        self.assertFalse(os.path.exists(os.path.join(ro, "new")))
        with open(os.path.join(rw, "out.txt")) as f:
            self.assertEqual(f.read(), "written\n")
        # Unmapped, the same directory is not there at all.
        cp = aijail.run_sandboxed(["sh", "-c", 'test -e "$1" || echo absent', "sh", ro],
                                  cwd=self.project)
        self.assertEqual(cp.stdout, "absent\n")

    def test_mode(self):
        cp = aijail.run_sandboxed(["sh", "-c", 'echo "$AIJAIL_MODE"; touch x 2>/dev/null || '
                                   'echo ro'], mode="lockdown", cwd=self.project)
        self.assertEqual(cp.stdout, "lockdown\nro\n")


class Timeout(Base):
    def test_timeout(self):
        started = time.monotonic()
        with self.assertRaises(subprocess.TimeoutExpired) as cm:
            aijail.run_sandboxed(["sh", "-c", "echo started; sleep 30"], timeout=2,
                                 cwd=self.project)
        took = time.monotonic() - started
        self.assertLess(took, 10, "the jail's timeout, not Python's backstop")
        self.assertEqual(cm.exception.timeout, 2)
        self.assertEqual(cm.exception.output, "started\n")

    def test_124_without_timeout(self):
        cp = aijail.run_sandboxed(["sh", "-c", "exit 124"], timeout=None, cwd=self.project)
        self.assertEqual(cp.returncode, 124)


class SetupFailure(Base):
    def test_missing_map(self):
        missing = os.path.join(self.tmp, "does-not-exist")
        with self.assertRaises(aijail.SandboxError) as cm:
            aijail.run_sandboxed(["true"], ro_maps=[missing], cwd=self.project)
        e = cm.exception
        self.assertEqual(e.returncode, 125)
        self.assertEqual(str(e), "%s: fatal: unable to map %s: No such file or directory: "
                         "create it first" % (os.path.basename(self.stub), missing))

    def test_home_as_project(self):
        with self.assertRaises(aijail.SandboxError) as cm:
            aijail.run_sandboxed(["true"], cwd=self.home)
        self.assertIn("it is your home directory", cm.exception.message)

    def test_unknown_mode(self):
        with self.assertRaises(aijail.SandboxError) as cm:
            aijail.run_sandboxed(["true"], mode="no-such-mode", cwd=self.project)
        self.assertIn("this policy has no such mode", cm.exception.message)

    def test_no_stub(self):
        with self.assertRaises(aijail.SandboxError):
            aijail.run_sandboxed(["true"], stub="aijail-no-such-stub", cwd=self.project)


# A command that ran, wrote a file and exited 125 with a line that looks
# like the stub's: its own status, not "the jail could not be built".
FAKE_125 = ("echo made >made.txt; echo out; echo 'jail: fatal: unable to create the "
            "namespaces: Operation not permitted' >&2; exit 125")


class EndRecord(Base):
    def test_ran_and_exited_125(self):
        made = os.path.join(self.project, "made.txt")
        try:
            cp = aijail.run_sandboxed(["sh", "-c", FAKE_125], cwd=self.project)
            self.assertEqual((cp.returncode, cp.stdout), (125, "out\n"))
            self.assertIn("unable to create the namespaces", cp.stderr)
            self.assertTrue(os.path.exists(made), "the command ran")
        finally:
            if os.path.exists(made):
                os.unlink(made)

    def test_ran_and_exited_125_uncaptured(self):
        made = os.path.join(self.project, "made.txt")
        try:
            cp = aijail.run_sandboxed(["sh", "-c", FAKE_125 + " >/dev/null 2>&1"],
                                      cwd=self.project, capture_output=False)
            self.assertEqual(cp.returncode, 125)
        finally:
            if os.path.exists(made):
                os.unlink(made)

    def test_handler_exits_125(self):
        src = ("import sys\n"
               "open(sys.argv[2], 'w').write('written')\n"
               "print('jail: fatal: unable to pivot_root: Invalid argument', file=sys.stderr)\n"
               "sys.exit(125)\n")
        res = aijail.run_handler(src, "", dir=self.tmp)
        self.assertEqual((res.returncode, res.output), (125, b"written"))

    def test_not_found(self):
        cp = aijail.run_sandboxed(["aijail-no-such-command"], cwd=self.project)
        self.assertEqual(cp.returncode, 127)
        self.assertIn("command not found", cp.stderr)

    def test_no_record(self):
        """A stub that ends without a record: nothing is guessed from 125."""
        fake = os.path.join(self.tmp, "norecord-stub")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'jail: fatal: unable to x: y' >&2\nexit 125\n")
        os.chmod(fake, 0o755)
        with self.assertRaises(aijail.StatusUnknown) as cm:
            aijail.run_sandboxed(["true"], stub=fake, cwd=self.project)
        self.assertEqual((cm.exception.returncode, cm.exception.record), (125, None))
        self.assertIn("no record", str(cm.exception))


class Handler(Base):
    SOURCE = ("import json, sys\n"
              "data = json.load(open(sys.argv[1]))\n"
              "open(sys.argv[2], 'w').write(json.dumps({'sum': sum(data['n'])}))\n"
              "print('done')\n")

    def test_writes_output(self):
        res = aijail.run_handler(self.SOURCE, {"n": [1, 2, 3]}, dir=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(json.loads(res.output), {"sum": 6})
        self.assertEqual(res.stdout, "done\n")
        self.assertFalse(os.path.exists(res.directory), "the directory is removed")

    def test_no_output(self):
        res = aijail.run_handler("import sys; sys.exit(3)", "", dir=self.tmp)
        self.assertEqual((res.returncode, res.output), (3, None))
        self.assertFalse(os.path.exists(res.directory))

    def test_handler_is_jailed(self):
        src = ("import os, sys\n"
               "open(sys.argv[2], 'w').write(repr((os.environ.get('AWS_SECRET_ACCESS_KEY'), "
               "os.path.exists(%r))))\n" % self.home_file)
        res = aijail.run_handler(src, "", env=self.env, dir=self.tmp)
        self.assertEqual(res.output, b"(None, False)")


# Run in a child Python, under an address-space limit: the read back of a
# sparse 3 GiB file must raise the cap's error without ever holding more
# than the cap (an unbounded read would need 3 GiB and hit the limit).
SPARSE_CHILD = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
import aijail
src = ("import sys\n"
       "with open(sys.argv[2], 'wb') as f:\n"
       "    f.seek(3 << 30)\n"
       "    f.write(b'x')\n")
t0 = time.monotonic()
try:
    aijail.run_handler(src, "", dir=sys.argv[1])
    r = {"raised": None}
except Exception as e:
    r = {"raised": type(e).__name__, "msg": str(e), "cap": getattr(e, "cap", None)}
r["secs"] = time.monotonic() - t0
r["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(r))
"""


class Bounds(Base):
    """What the jail wrote is read back within output_cap, never past it."""

    def test_sparse_output_file(self):
        cp = subprocess.run([sys.executable, "-c", SPARSE_CHILD, self.tmp],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, timeout=120)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        r = json.loads(cp.stdout)
        self.assertEqual(r["raised"], "OutputLimitExceeded", r)
        self.assertEqual(r["cap"], aijail.OUTPUT_CAP)
        self.assertIn(str(aijail.OUTPUT_CAP), r["msg"])
        self.assertIn("output file", r["msg"])
        # The cap (64 MiB) and Python itself; never the 3 GiB claimed.
        self.assertLess(r["maxrss_kib"], 256 * 1024, r)
        self.assertLess(r["secs"], 60, r)

    def test_output_file_at_the_cap(self):
        # The input is the number of bytes to write.
        src = ("import sys\nn = int(open(sys.argv[1]).read())\n"
               "open(sys.argv[2], 'wb').write(b'y' * n)\n")
        res = aijail.run_handler(src, "1000", dir=self.tmp, output_cap=1000)
        self.assertEqual(res.output, b"y" * 1000, res.stderr)
        with self.assertRaises(aijail.OutputLimitExceeded) as cm:
            aijail.run_handler(src, "1001", dir=self.tmp, output_cap=1000)
        self.assertEqual(cm.exception.cap, 1000)
        self.assertIn("1000 bytes", str(cm.exception))

    def test_output_file_not_followed(self):
        src = "import os, sys\nos.symlink('/etc/passwd', sys.argv[2])\n"
        res = aijail.run_handler(src, "", dir=self.tmp)
        self.assertEqual((res.returncode, res.output), (0, None), res.stderr)

    def test_stdout_flood(self):
        # 100 MB on stdout, then the command would go on for 30 s: the
        # read stops at the cap and the jail is stopped there.
        t0 = time.monotonic()
        try:
            cp = aijail.run_sandboxed(["sh", "-c", "head -c 100000000 /dev/zero; sleep 30"],
                                      cwd=self.project, timeout=60)
        except Exception as e:
            err = e
        else:
            self.fail("%d bytes of stdout were read, after %.1f s" %
                      (len(cp.stdout), time.monotonic() - t0))
        secs = time.monotonic() - t0
        self.assertEqual(type(err).__name__, "OutputLimitExceeded", err)
        self.assertEqual(err.cap, aijail.OUTPUT_CAP)
        self.assertIn("stdout", str(err))
        self.assertIn(str(aijail.OUTPUT_CAP), str(err))
        self.assertLess(secs, 20)

    def test_stderr_cap(self):
        with self.assertRaises(aijail.OutputLimitExceeded) as cm:
            aijail.run_sandboxed(["sh", "-c", "head -c 5000 /dev/zero >&2"],
                                 cwd=self.project, output_cap=4096)
        self.assertIn("stderr", str(cm.exception))
        cp = aijail.run_sandboxed(["sh", "-c", "head -c 4096 /dev/zero >&2; echo ok"],
                                  cwd=self.project, output_cap=4096)
        self.assertEqual((cp.returncode, cp.stdout, len(cp.stderr)), (0, "ok\n", 4096))

    def test_bad_cap(self):
        with self.assertRaises(ValueError):
            aijail.run_sandboxed(["true"], cwd=self.project, output_cap=-1)


class Status(Base):
    def test_status(self):
        s = aijail.status(cwd=self.project)
        self.assertTrue(s["in_jail"], s["missing"])
        self.assertEqual(s["seccomp"]["mode"], 2)
        self.assertTrue(s["no_new_privs"])
        self.assertTrue(s["namespaces"]["user"]["private"])
        self.assertEqual(s["mode"]["floor"], "normal")

    def test_status_no_net(self):
        s = aijail.status(cwd=self.project, no_net=True)
        self.assertTrue(s["network"]["none"])


class Explain(Base):
    def test_explain(self):
        e = aijail.explain(["python3"], cwd=self.project, env=self.env)
        self.assertIsInstance(e, dict)
        self.assertEqual(e["stub"], os.path.basename(self.stub))
        self.assertEqual(e["command"]["group"], "python")
        self.assertTrue(e["buildable"]["ok"], e["buildable"])
        self.assertEqual(e["project"], os.path.realpath(self.project))
        found = {(h["kind"], h["path"]) for h in e["scan"]["found"]}
        self.assertIn(("mask", ".env"), found)
        # names only: the dropped secret's value appears nowhere
        self.assertNotIn(SECRET_AWS, json.dumps(e))
        self.assertNotIn("AWS_SECRET_ACCESS_KEY", e["env"]["passed"])

    def test_explain_no_net(self):
        e = aijail.explain(["true"], cwd=self.project, no_net=True)
        self.assertEqual(e["network"]["level"], "none")
        self.assertEqual(e["network"]["namespace"], "private")

    def test_explain_refused(self):
        with self.assertRaises(aijail.SandboxError) as cm:
            aijail.explain(["true"], cwd=self.project, ro_maps=["/usr/lib"])
        self.assertIn("system directory", cm.exception.message)



class WheelBindir(unittest.TestCase):
    """find_stub() after a wheel's install: the binaries where the dist-info's
    RECORD says, before PATH; nothing from a RECORD that names no jail."""

    def run_in(self, site, code, path):
        env = {"PATH": path, "PYTHONPATH": site, "HOME": os.environ.get("HOME", "/")}
        cp = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(cp.returncode, 0, cp.stderr)
        return cp.stdout.split()

    def test_record(self):
        tmp = tempfile.mkdtemp(prefix="aijail-pytest-wheel.")
        try:
            site = os.path.join(tmp, "lib", "site-packages")
            bindir = os.path.join(tmp, "bin")
            other = os.path.join(tmp, "other")
            os.makedirs(bindir)
            os.makedirs(other)
            shutil.copytree(os.path.dirname(aijail.__file__), os.path.join(site, "aijail"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            for d in (bindir, other):
                for n in ("jail", "jail-worker", "aijail-status"):
                    shutil.copy(aijail.find_stub(), os.path.join(d, n))
            code = ("import aijail; print(aijail.wheel_bindir(), aijail.find_stub(), "
                    "aijail.find_stub('jail-worker'), aijail.find_status_tool())")
            # No dist-info: PATH's.
            self.assertEqual(self.run_in(site, code, other),
                             ["None", other + "/jail", other + "/jail-worker",
                              other + "/aijail-status"])
            info = os.path.join(site, "aijail-0.1.dist-info")
            os.makedirs(info)
            with open(os.path.join(info, "RECORD"), "w") as f:
                f.write("aijail/__init__.py,sha256=x,1\n")
            self.assertEqual(self.run_in(site, code, other)[0], "None")
            with open(os.path.join(info, "RECORD"), "a") as f:
                for n in ("jail", "jail-worker", "aijail-status"):
                    f.write("../../bin/%s,sha256=x,1\n" % n)
            self.assertEqual(self.run_in(site, code, other),
                             [bindir, bindir + "/jail", bindir + "/jail-worker",
                              bindir + "/aijail-status"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Pickled(unittest.TestCase):
    """Every error a call raises crosses a process boundary whole (a Dask
    task, multiprocessing): pickled and loaded, the same class and fields."""

    def test_errors_pickle(self):
        import pickle

        res = aijail.HandlerResult(b"o", 1, "out", "err", "/tmp/aijail-call")
        cases = [
            (aijail.SandboxError("m", ["jail"], "err", 125), ("message", "cmd", "stderr", "returncode")),
            (aijail.StatusUnknown("m", ["jail"], 1, "o", "e", {"end": "unknown"}),
             ("cmd", "returncode", "stdout", "stderr", "record")),
            (aijail.HandlerTimeout(["jail"], 3), ("cmd", "timeout")),
            (aijail.WorkerLost("gone"), ()),
            (aijail.LimitExceeded("memory", 1 << 20, res), ("limit", "bound", "result")),
            (aijail.InputLimitExceeded("the input", 5), ("what", "cap")),
            (aijail.OutputLimitExceeded("the handler's output file", 5, ["jail"]), ("what", "cap", "cmd")),
        ]
        for e, fields in cases:
            with self.subTest(type(e).__name__):
                q = pickle.loads(pickle.dumps(e))
                self.assertIs(type(q), type(e))
                self.assertEqual(str(q), str(e))
                for f in fields:
                    self.assertEqual(getattr(q, f), getattr(e, f), f)

if __name__ == "__main__":
    unittest.main()


# --- aijail.Pool (docs/pool.md) ---------------------------------------------

# The first call leaves everything it can behind and says what it left (the
# control: a check that could not see would otherwise pass); the next call,
# on the same worker, reports what it finds of it.
LEAVE = r"""
import builtins, ctypes, json, os, subprocess, sys, time
project = open(sys.argv[1]).read()
builtins.AIJAIL_LEAK = 1
json.AIJAIL_LEAK = 1
open("/tmp/x", "w").write("x")
open("scratch-file", "w").write("s")
open("/dev/shm/x", "w").write("x")
os.mkdir(os.path.expanduser("~/left"))
os.chmod("/tmp", 0o777)
try:
    os.setxattr("/tmp", "user.aijail", b"leak")
    xattr = os.getxattr("/tmp", "user.aijail") == b"leak"
except OSError:
    xattr = None  # no user xattrs on this tmpfs: nothing to carry
open(os.path.join(project, "left"), "w").write("p")
shm = ctypes.CDLL(None).shmget(0, 4096, 0o1600)
sleeper = subprocess.Popen(["sleep", "300"]).pid
pid = os.fork()
if pid == 0:
    os.setsid()
    time.sleep(300)
    os._exit(0)
time.sleep(0.2)
print(json.dumps({
    "global": builtins.AIJAIL_LEAK == 1, "tmp": os.path.exists("/tmp/x"),
    "scratch": os.getcwd(), "shm_file": os.path.exists("/dev/shm/x"),
    "home": os.path.isdir(os.path.expanduser("~/left")),
    "xattr": xattr, "sysv": shm >= 0, "project": os.listdir(project),
    "alive": [p for p in (sleeper, pid) if os.path.exists("/proc/%d" % p)],
}))
"""

FIND = r"""
import builtins, json, os, stat, sys
project = open(sys.argv[1]).read()
procs = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
try:
    zfd = os.listdir("/proc/2/fd")
except OSError as e:
    zfd = e.__class__.__name__
print(json.dumps({
    "global": hasattr(builtins, "AIJAIL_LEAK") or hasattr(json, "AIJAIL_LEAK"),
    "tmp": sorted(os.listdir("/tmp")), "scratch": sorted(os.listdir(".")),
    "shm": os.listdir("/dev/shm"), "home": os.listdir(os.path.expanduser("~")),
    "tmp_mode": oct(stat.S_IMODE(os.stat("/tmp").st_mode)), "xattr": os.listxattr("/tmp"),
    "sysv": open("/proc/sysvipc/shm").read().splitlines()[1:],
    "procs": procs, "me": os.getpid(), "zygote_fds": zfd, "project": os.listdir(project),
}))
"""


class PoolBase(Base):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.worker_stub = os.path.join(os.path.dirname(cls.stub), "jail-worker")
        if not os.access(cls.worker_stub, os.X_OK):
            raise unittest.SkipTest("no jail-worker beside %s" % cls.stub)

    def pool(self, **kw):
        kw.setdefault("workers", 1)
        kw.setdefault("handler_timeout", 20)
        return aijail.Pool(stub=self.worker_stub, dir=self.tmp, **kw)


class PoolCalls(PoolBase):
    def test_as_run_handler(self):
        with self.pool() as pool:
            res = pool.run_handler(Handler.SOURCE, {"n": [1, 2, 3]})
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(json.loads(res.output), {"sum": 6})
            self.assertEqual(res.stdout, "done\n")
            res = pool.run_handler("import sys; sys.exit(3)", "")
            self.assertEqual((res.returncode, res.output), (3, None))
            # A handler's own 125 is no call that could not be set up.
            for src in ("import sys; sys.exit(125)", "import os; os._exit(125)"):
                res = pool.run_handler(src, "")
                self.assertEqual(res.returncode, 125, src)
            res = pool.run_handler("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", "")
            self.assertEqual(res.returncode, 128 + 15)
            res = pool.run_handler("raise ValueError('bad')", "")
            self.assertEqual(res.returncode, 1)
            self.assertIn('File "handler.py", line 1', res.stderr)
            self.assertIn("ValueError: bad", res.stderr)
            self.assertNotIn("_call", res.stderr, "the zygote's own frame is not shown")

    def test_file_left_open(self):
        # A handler that leaves its output file open at module level: its
        # buffer is flushed, as the interpreter's exit does for run_handler
        # (the call's child once ended with os._exit and lost it).
        src = ("import sys\nf = open(sys.argv[2], 'w')\nf.write('kept')\n"
               "class C:\n    pass\nc = C()\nc.me = c\nc.f = open('side', 'w')\n"
               "c.f.write('x')\nprint('out', end='')\n")
        with self.pool() as pool:
            res = pool.run_handler(src, "")
            self.assertEqual((res.returncode, res.output, res.stdout), (0, b"kept", "out"))

    def test_preload(self):
        with self.pool(preload=["decimal"]) as pool:
            res = pool.run_handler("import sys\nprint('decimal' in sys.modules)", "")
        self.assertEqual(res.stdout, "True\n")
        with self.pool() as pool:
            res = pool.run_handler("import sys\nprint('decimal' in sys.modules)", "")
        self.assertEqual(res.stdout, "False\n")

    def test_map_in_order(self):
        src = "import sys\nopen(sys.argv[2], 'w').write(open(sys.argv[1]).read() * 2)\n"
        with self.pool(workers=2) as pool:
            got = [r.output for r in pool.map(src, [str(i) for i in range(40)])]
        self.assertEqual(got, [(str(i) * 2).encode() for i in range(40)])

    def test_nothing_survives_a_call(self):
        with self.pool() as pool:
            project = pool._all[0].project
            stub_pid = pool._all[0].proc.pid
            before = json.loads(pool.run_handler(FIND, project).stdout)
            left = pool.run_handler(LEAVE, project)
            self.assertEqual(left.returncode, 0, left.stderr)
            left = json.loads(left.stdout)
            # The control: inside the first call, all of it was there.
            self.assertEqual(left["scratch"], aijail.SCRATCH)
            for k in ("global", "tmp", "shm_file", "home", "sysv"):
                self.assertTrue(left[k], k)
            self.assertEqual(left["project"], ["left"])
            self.assertEqual(len(left["alive"]), 2, left)
            found = pool.run_handler(FIND, project)
            self.assertEqual(found.returncode, 0, found.stderr)
            found = json.loads(found.stdout)
            # The same jail: the worker was emptied, not replaced.
            self.assertEqual(pool._all[0].proc.pid, stub_pid)
        # The next call finds what the one before the leaver found.
        self.assertEqual(dict(found, me=0, procs=0), dict(before, me=0, procs=0))
        self.assertFalse(found["global"])
        self.assertNotIn("x", found["tmp"])
        self.assertEqual(found["scratch"], ["handler.py", "input"])
        self.assertEqual(found["shm"], [])
        self.assertEqual(found["home"], [])
        self.assertEqual(found["tmp_mode"], "0o755")
        if left["xattr"] is not None:
            self.assertEqual(found["xattr"], [])
        self.assertEqual(found["sysv"], [])
        self.assertEqual(found["project"], [])
        # pid 1, the zygote, this call: nothing of the last one.
        self.assertEqual(found["procs"], [1, 2, found["me"]])
        self.assertEqual(found["zygote_fds"], "PermissionError")

    def test_leftover_writes_after_result(self):
        # The result goes out when the handler says it is done, before the
        # call's processes are killed: one it left keeps writing, in /tmp,
        # its scratch directory and its output, right then.  The next call
        # (one worker: the same jail) finds none of it.
        src = ("import os, time, itertools\n"
               "if os.fork() == 0:\n"
               "    for i in itertools.count():\n"
               "        for d in ('/tmp', '.'):\n"
               "            try:\n"
               "                open(os.path.join(d, 'late-%d' % i), 'w').write('x')\n"
               "            except OSError:\n"
               "                pass\n"
               "        try:\n"
               "            open('output', 'a').write('y' * 1000)\n"
               "        except OSError:\n"
               "            pass\n"
               "time.sleep(0.05)\n"
               "print('left')\n")
        look = ("import os, json\nprint(json.dumps(sorted(os.listdir('/tmp')) + "
                "sorted(os.listdir('.'))))\n")
        with self.pool() as pool:
            stub_pid = pool._all[0].proc.pid
            for _ in range(3):
                res = pool.run_handler(src, "")
                self.assertEqual((res.returncode, res.stdout), (0, "left\n"), res.stderr)
                after = pool.run_handler(look, "")
                self.assertEqual(after.returncode, 0, after.stderr)
                names = json.loads(after.stdout)
                self.assertEqual([n for n in names if n.startswith("late-")], [], names)
                self.assertIn("handler.py", names)
            self.assertEqual(pool._all[0].proc.pid, stub_pid)

    def test_secrets(self):
        srv = Listener()
        try:
            with self.pool(project=self.project) as pool:
                res = pool.run_handler(HOSTILE.replace("sys.argv[1]", "sys.argv[3]")
                                       .replace("sys.argv[2]", "sys.argv[4]")
                                       .replace("import json, os, socket, sys",
                                                "import json, os, socket, sys\n"
                                                "sys.argv += open(sys.argv[1]).read().split()\n"
                                                "os.chdir(%r)" % self.project),
                                       "%d %s" % (srv.port, self.home_file))
        finally:
            srv.close()
        self.assertEqual(res.returncode, 0, res.stderr)
        inside = json.loads(res.stdout)
        self.assertEqual(inside["dotenv"], "", "the masked .env is present and empty")
        self.assertIsNone(inside["aws"])
        self.assertTrue(inside["net"].startswith("error:"), inside["net"])
        self.assertEqual(inside["home"], "error: FileNotFoundError")
        with self.pool() as pool:
            res = pool.run_handler("import os\nprint(os.listdir(os.path.expanduser('~')), "
                                   "os.path.exists(os.path.expanduser('~/.ssh')))", "")
        self.assertEqual(res.stdout, "[] False\n")

    def test_writable_project_refused(self):
        with self.assertRaises(aijail.SandboxError) as cm:
            self.pool(project=self.project, mode="worker")
        self.assertIn("writable", str(cm.exception))

    def test_bounds(self):
        with self.pool(input_cap=1000, output_cap=1000) as pool:
            with self.assertRaises(aijail.InputLimitExceeded):
                pool.run_handler("pass", "x" * 1001)
            src = "import sys\nopen(sys.argv[2], 'wb').write(b'y' * int(open(sys.argv[1]).read()))\n"
            self.assertEqual(pool.run_handler(src, "1000").output, b"y" * 1000)
            with self.assertRaises(aijail.OutputLimitExceeded) as cm:
                pool.run_handler(src, "1001")
            self.assertIn("output file", str(cm.exception))
            with self.assertRaises(aijail.OutputLimitExceeded) as cm:
                pool.run_handler("print('z' * 5000)", "")
            self.assertIn("stdout", str(cm.exception))
            self.assertEqual(pool.run_handler("print('ok')", "").stdout, "ok\n")


class PoolRunaways(PoolBase):
    def test_endless_loop_alone(self):
        with self.pool(workers=2, handler_timeout=2) as pool:
            src = ("import sys\nif open(sys.argv[1]).read() == 'loop':\n    while True: pass\n"
                   "print('done')\n")
            t0 = time.monotonic()
            got = list(pool.map(src, ["a", "loop", "b", "c", "d", "e"], return_exceptions=True))
            secs = time.monotonic() - t0
        self.assertIsInstance(got[1], aijail.HandlerTimeout)
        self.assertIsInstance(got[1], subprocess.TimeoutExpired)
        self.assertEqual([r.stdout for i, r in enumerate(got) if i != 1], ["done\n"] * 5)
        self.assertLess(secs, 15)

    def test_fork_bomb(self):
        with self.pool(processes=16) as pool:
            with self.assertRaises(aijail.LimitExceeded) as cm:
                pool.run_handler("import os\nwhile True:\n    os.fork()\n", "")
            self.assertEqual(cm.exception.limit, "processes")
            res = json.loads(pool.run_handler(FIND, pool._all[0].project).stdout)
            self.assertEqual(res["procs"], [1, 2, res["me"]])

    def test_process_bound_exact(self):
        # processes=4: the call and three children, not one more (RLIMIT_NPROC
        # counts the stub's own processes in the jail's user namespace too).
        src = ("import os, time\nk = 0\ntry:\n    while k < 10:\n        if os.fork() == 0:\n"
               "            time.sleep(30)\n        k += 1\nexcept BlockingIOError:\n    pass\n"
               "print(k)\n")
        with self.pool(processes=4) as pool:
            self.assertEqual(pool.run_handler(src, "").stdout, "3\n")

    def test_memory_bomb(self):
        with self.pool(memory=256 << 20) as pool:
            with self.assertRaises(aijail.LimitExceeded) as cm:
                pool.run_handler("x = []\nwhile True:\n    x.append(bytearray(1 << 22))\n", "")
            self.assertEqual(cm.exception.limit, "memory")
            self.assertIn("MemoryError", cm.exception.result.stderr)
            self.assertEqual(pool.run_handler("print(len(bytearray(100 << 20)))", "").stdout,
                             "%d\n" % (100 << 20))


class PoolWorkers(PoolBase):
    def test_jail_not_built(self):
        t0 = time.monotonic()
        with self.assertRaises(aijail.SandboxError) as cm:
            self.pool(workers=2, ro_maps=[os.path.join(self.tmp, "no-such-dir")])
        self.assertIn("no-such-dir", str(cm.exception))
        self.assertLess(time.monotonic() - t0, 30)
        with self.assertRaises(aijail.SandboxError):
            self.pool(mode="no-such-mode")

    def test_zygote_exits_125(self):
        """An interpreter that ran and exited 125 is no jail that could not be built."""
        quit125 = ("import sys; print('jail-worker: fatal: unable to pivot_root: x', "
                   "file=sys.stderr); sys.exit(125)")
        with self.assertRaises(aijail.SandboxError) as cm:
            self.pool(interpreter=("python3", "-c", quit125))
        self.assertIn("the pool's zygote ended before it was ready (exit status 125)",
                      str(cm.exception))

    def test_killed_worker_replaced(self):
        with self.pool() as pool:
            first = pool._all[0].proc.pid
            os.kill(first, signal.SIGKILL)
            time.sleep(0.2)
            self.assertEqual(pool.run_handler("print('a')", "").stdout, "a\n")
            self.assertNotEqual(pool._all[0].proc.pid, first)
            # The call kills its own zygote: it fails, the pool goes on.
            with self.assertRaises(aijail.WorkerLost):
                pool.run_handler("import os\nos.kill(os.getppid(), 9)\n", "")
            self.assertEqual(pool.run_handler("print('b')", "").stdout, "b\n")

    def test_changed_zygote_retires(self):
        # A call lowers its zygote's rlimit (prlimit reaches any process of
        # the same user): that worker is replaced before the next call.
        src = ("import os, resource\ntry:\n    resource.prlimit(os.getppid(), "
               "resource.RLIMIT_NOFILE, (64, 64))\n    print('lowered')\n"
               "except OSError as e:\n    print('refused', e)\n")
        with self.pool() as pool:
            first = pool._all[0].proc.pid
            res = pool.run_handler(src, "")
            if not res.stdout.startswith("lowered"):
                self.skipTest("prlimit on the zygote was refused: %s" % res.stdout)
            # The zygote says it retires after the result; the next call
            # (one worker: the same one) finds a fresh one.
            res = pool.run_handler("import resource\n"
                                   "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] > 64)", "")
            self.assertEqual(res.stdout, "True\n")
            self.assertNotEqual(pool._all[0].proc.pid, first)

    def test_silent_worker_replaced(self):
        # A call that stops its zygote: the host's guard kills the worker
        # at handler_timeout + grace.
        with self.pool(handler_timeout=1, grace=1) as pool:
            t0 = time.monotonic()
            with self.assertRaises(aijail.WorkerLost) as cm:
                pool.run_handler("import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n"
                                 "import time\ntime.sleep(30)\n", "")
            self.assertIn("did not answer", str(cm.exception))
            self.assertLess(time.monotonic() - t0, 10)
            self.assertEqual(pool.run_handler("print('c')", "").stdout, "c\n")

    def test_no_node_zygote(self):
        with self.assertRaises(ValueError):
            aijail.Pool(language="node", stub=self.worker_stub)


# What a pool call sees of a process's attributes that a call can change
# from outside it (the same user: sched_setattr, sched_setaffinity,
# setpriority, prlimit, ioprio_set): the call's own (as forked from its
# zygote) and its zygote's.
ATTRS = r"""
import ctypes, json, os, resource, sys
libc = ctypes.CDLL(None, use_errno=True)
# ioprio_set, ioprio_get, sched_setattr, sched_getattr
NR = {"x86_64": (251, 252, 314, 315), "aarch64": (30, 31, 274, 275)}.get(os.uname().machine)
z = os.getppid()
RLIMITS = 16

class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32),
                ("flags", ctypes.c_uint64), ("nice", ctypes.c_int32),
                ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64),
                ("util_min", ctypes.c_uint32), ("util_max", ctypes.c_uint32)]

def sched_attr(pid):
    a = SchedAttr()
    if libc.syscall(NR[3], pid, ctypes.byref(a), ctypes.sizeof(a), 0):
        raise OSError(ctypes.get_errno(), "sched_getattr")
    return a

def attrs(pid):
    a = {"policy": os.sched_getscheduler(pid), "priority": os.sched_getparam(pid).sched_priority,
         "nice": os.getpriority(os.PRIO_PROCESS, pid),
         "affinity": sorted(os.sched_getaffinity(pid)),
         "rlimits": [resource.prlimit(pid, r) for r in range(RLIMITS)]}
    if NR:
        a["ioprio"] = libc.syscall(NR[1], 1, pid)
        s = sched_attr(pid)
        a["sched_attr"] = [s.policy, s.flags, s.nice, s.priority, s.util_min, s.util_max]
    return a

def refused(why):
    print(json.dumps({"refused": why}))
    sys.exit(0)
"""

OBSERVE = ATTRS + "print(json.dumps({'call': attrs(0), 'zygote': attrs(z)}))\n"

# Each a change a call makes to its zygote.  The rlimit ones are made
# below, one per resource.
CHANGES = {
    "SCHED_IDLE": "os.sched_setscheduler(z, os.SCHED_IDLE, os.sched_param(0))\n",
    "SCHED_BATCH": "os.sched_setscheduler(z, os.SCHED_BATCH, os.sched_param(0))\n",
    "reset-on-fork": "os.sched_setscheduler(z, os.sched_getscheduler(z) | os.SCHED_RESET_ON_FORK,"
                     " os.sched_param(0))\n",
    "nice": "os.setpriority(os.PRIO_PROCESS, z, os.getpriority(os.PRIO_PROCESS, z) + 1)\n",
    "affinity": "cpus = sorted(os.sched_getaffinity(z))\n"
                "if len(cpus) < 2:\n    refused('the zygote may run on one CPU only')\n"
                "os.sched_setaffinity(z, cpus[:1])\n",
    "ioprio": "if not NR:\n    refused('no ioprio_set number for ' + os.uname().machine)\n"
              "if libc.syscall(NR[0], 1, z, (3 << 13) | 0):\n"
              "    refused('ioprio_set: errno %d' % ctypes.get_errno())\n",
    "uclamp": "if not NR:\n    refused('no sched_setattr number for ' + os.uname().machine)\n"
              "s = sched_attr(z)\ns.size = ctypes.sizeof(s)\n"
              "s.flags = 0x08 | 0x10 | 0x40\n"  # KEEP_POLICY, KEEP_PARAMS, UTIL_CLAMP_MAX
              "s.util_max = 512 if s.util_max != 512 else 511\n"
              "if libc.syscall(NR[2], z, ctypes.byref(s), 0):\n"
              "    refused('sched_setattr of a utilization clamp: errno %d (95: a kernel without "
              "CONFIG_UCLAMP_TASK)' % ctypes.get_errno())\n",
}
# Linux's rlimits by number (RLIM_NLIMITS, 16); the resource module names
# all but LOCKS.
for _r, _name in enumerate("CPU FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS LOCKS SIGPENDING "
                           "MSGQUEUE NICE RTPRIO RTTIME".split()):
    CHANGES["RLIMIT_" + _name] = (
        "soft, hard = resource.prlimit(z, %d)\n"
        "inf = resource.RLIM_INFINITY\n"
        "if soft != hard:\n    new = (hard, hard)\n"
        "elif soft == inf:\n    new = (1 << 40, hard)\n"
        "elif soft > 0:\n    new = (soft - 1, hard)\n"
        "else:\n    refused('its soft and hard limits are 0: nothing to lower or raise')\n"
        "resource.prlimit(z, %d, new)\n" % (_r, _r))

# Of the zygote's /proc files, the writable ones that set what a call
# inherits.  The zygote is not dumpable, so they belong to the overflow
# uid; writes to /proc are outside every profile's Landlock rules too.
PROC_WRITES = {
    "oom_score_adj": "500", "oom_adj": "5", "autogroup": "10", "timerslack_ns": "1000000",
    "coredump_filter": "0x1", "comm": "aijail-x",
}


# The same write from a program the call starts: dumpable again after
# execve, its /proc/self is its own, and its autogroup the zygote's.
EXEC_AUTOGROUP = ("try:\n    open('/proc/self/autogroup', 'w').write('10')\n    print('written')\n"
                  "except OSError as e:\n    print(e.__class__.__name__)\n")


class PoolZygoteState(PoolBase):
    """A call that changes its zygote from outside (anything the next call
    would inherit: a standing slowdown, a channel between calls) retires
    that worker; the next call finds a fresh one as the first was."""

    def observe(self, pool):
        res = pool.run_handler(OBSERVE, "")
        self.assertEqual(res.returncode, 0, res.stderr)
        return json.loads(res.stdout)

    def test_change_retires(self):
        with self.pool() as pool:
            base = self.observe(pool)
        for name, change in CHANGES.items():
            # A pool each: a change the check missed stays in its worker.
            with self.subTest(name), self.pool() as pool:
                first = pool._all[0].proc.pid
                src = ATTRS + change + "print(json.dumps({'changed': attrs(z)}))\n"
                res = pool.run_handler(src, "")
                self.assertEqual(res.returncode, 0, res.stderr)
                got = json.loads(res.stdout)
                if "refused" in got:
                    self.skipTest("%s: %s" % (name, got["refused"]))
                self.assertNotEqual(got["changed"], base["zygote"], "the change took")
                self.assertEqual(self.observe(pool), base)
                self.assertNotEqual(pool._all[0].proc.pid, first, "the worker was replaced")

    def test_no_change_keeps_worker(self):
        # Every attribute set to what it is: the worker stays.
        src = ATTRS + (
            "p = os.sched_getscheduler(z)\n"
            "os.sched_setscheduler(z, p, os.sched_getparam(z))\n"
            "os.sched_setaffinity(z, os.sched_getaffinity(z))\n"
            "os.setpriority(os.PRIO_PROCESS, z, os.getpriority(os.PRIO_PROCESS, z))\n"
            "for r in range(RLIMITS):\n    resource.prlimit(z, r, resource.prlimit(z, r))\n"
            "if NR:\n    libc.syscall(NR[0], 1, z, libc.syscall(NR[1], 1, z))\n"
            "print('same')\n")
        with self.pool() as pool:
            base = self.observe(pool)
            first = pool._all[0].proc.pid
            for _ in range(3):
                self.assertEqual(pool.run_handler(src, "").stdout, "same\n")
                self.assertEqual(self.observe(pool), base)
            self.assertEqual(pool._all[0].proc.pid, first)

    def test_zygote_out_of_reach(self):
        # What a call cannot do to its zygote: trace it, write the /proc
        # files that set what it passes on (oom_score_adj, the session's
        # autogroup nice, its timer slack, coredump filter, name), from the
        # call or from a program it starts (dumpable again after execve),
        # or move it to another cgroup.
        src = ("import ctypes, json, os, subprocess, sys\nz = os.getppid()\nr = {}\n"
               "for name, v in %r.items():\n"
               "    for who in (z, 'self'):\n"
               "        try:\n"
               "            with open('/proc/%%s/%%s' %% (who, name), 'w') as f:\n"
               "                f.write(v)\n"
               "            r['%%s %%s' %% (who, name)] = 'written'\n"
               "        except OSError as e:\n"
               "            r['%%s %%s' %% (who, name)] = e.__class__.__name__\n"
               "libc = ctypes.CDLL(None, use_errno=True)\n"
               "PTRACE_ATTACH = {'x86_64': 101, 'aarch64': 117}.get(os.uname().machine)\n"
               "if PTRACE_ATTACH:\n"
               "    r['ptrace'] = libc.syscall(PTRACE_ATTACH, 16, z, 0, 0)\n"
               "r['exec autogroup'] = subprocess.run([sys.executable, '-c', %r], "
               "stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()\n"
               "for path in ('/sys/fs/cgroup/cgroup.procs',\n"
               "             '/sys/fs/cgroup/memory/cgroup.procs'):\n"
               "    try:\n"
               "        with open(path, 'w') as f:\n"
               "            f.write(str(z))\n"
               "        r['cgroup ' + path] = 'written'\n"
               "    except OSError as e:\n"
               "        r['cgroup ' + path] = e.__class__.__name__\n"
               "print(json.dumps(r))\n" % (PROC_WRITES, EXEC_AUTOGROUP))
        with self.pool() as pool:
            res = pool.run_handler(src, "")
            self.assertEqual(res.returncode, 0, res.stderr)
            got = json.loads(res.stdout)
        self.assertEqual(got.pop("ptrace", -1), -1)
        # FileNotFoundError: a kernel without CONFIG_SCHED_AUTOGROUP
        self.assertIn(got["exec autogroup"], ("PermissionError", "FileNotFoundError"))
        self.assertEqual(sorted(k for k, v in got.items() if v == "written"), [])
