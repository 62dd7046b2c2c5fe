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

    def test_no_net_is_what_cuts(self):
        # python3's command group has the host's network: without no_net
        # the jailed snippet reaches the listener, so no_net is what cut it.
        srv = Listener()
        try:
            cp = aijail.run_sandboxed(["python3", "-c", HOSTILE, str(srv.port), self.home_file],
                                      cwd=self.project, env=self.env, timeout=30)
        finally:
            srv.close()
        self.assertEqual(cp.returncode, 0, cp.stderr)
        self.assertEqual(json.loads(cp.stdout)["net"], "connected")


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


if __name__ == "__main__":
    unittest.main()
