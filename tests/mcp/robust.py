#!/usr/bin/env python3
"""robust.py: aijail-mcp fed what no client should send, over a raw pipe.

Each case starts a server, starts a long run_command in it (a jail that
waits for a file the test makes at the end), sends its input, and checks
the answers (exactly those, nothing more: a ping's answer closes each
exchange, and the server answers in order), that the server still answers
tools/list, and that the long call ends with its real result: the input
neither ended the server nor touched another call's jail.  The fuzz case
does the same with a few thousand random and mutated lines (seeded).

Usage: robust.py SERVER PROJECT [PATTERN]  (PATTERN: fnmatch of the case
names).  Environment: AJ_MCP_FUZZ_SEED, AJ_MCP_FUZZ_LINES.  Prints PASS,
FAIL and SKIP lines; run by tests/mcp/run.sh as the test user.
"""

import fnmatch
import json
import os
import random
import subprocess
import sys
import threading
import time

SERVER, PROJECT = sys.argv[1], sys.argv[2]
PATTERN = sys.argv[3] if len(sys.argv) > 3 else "*"

# The server's documented bounds (docs/mcp.md).
MAX_LINE = 1 << 20
MAX_DEPTH = 64
MAX_ID_CHARS = 1024
MAX_WAITING = 64

# Guards against a hang, never a measure: a case fails on a missing answer
# only after this long (or at once when the server's stdout ends).
GUARD = 180

# Ids and file names the fuzz never makes: its strings lack this character.
MARK = "\u00a7"


def line(o):
    return json.dumps(o).encode() + b"\n"


def req(rid, method, params=None):
    m = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        m["params"] = params
    return m


class Session:
    """One server on pipes: its answers by id, the id-null ones in order."""

    def __init__(self, args=(), read=True, nonblocking=False):
        stdin = stdout = subprocess.PIPE
        if nonblocking:
            # The server's stdin and stdout left O_NONBLOCK, as a careless
            # parent may.
            stdin, w = os.pipe()
            r, stdout = os.pipe()
            os.set_blocking(stdin, False)
            os.set_blocking(stdout, False)
        self.p = subprocess.Popen(
            [SERVER, "--root", PROJECT] + list(args), cwd=PROJECT,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")},
            stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
        if nonblocking:
            os.close(stdin)
            os.close(stdout)
            self.p.stdin = os.fdopen(w, "wb")
            self.p.stdout = os.fdopen(r, "rb")
        self.cv = threading.Condition()
        self.got = []          # every message, in order
        self.bad = []          # lines that are not a JSON-RPC 2.0 message
        self.eof = False
        self.err = bytearray()
        self.seq = 0
        self.threads = [threading.Thread(target=self._stderr, daemon=True)]
        if read:
            self.threads.append(threading.Thread(target=self._stdout, daemon=True))
        for t in self.threads:
            t.start()

    def _stdout(self):
        for raw in self.p.stdout:
            try:
                m = json.loads(raw, parse_constant=_no_constant)
                ok = isinstance(m, dict) and m.get("jsonrpc") == "2.0" and \
                    ("result" in m) != ("error" in m) and \
                    (m.get("id") is None or isinstance(m["id"], (str, int))) and \
                    not isinstance(m.get("id"), bool)
            except ValueError:
                ok = False
            with self.cv:
                if ok:
                    self.got.append(m)
                else:
                    self.bad.append(raw[:200])
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def _stderr(self):
        for raw in self.p.stderr:
            if len(self.err) < 65536:
                self.err += raw

    def send(self, *items):
        for it in items:
            data = it if isinstance(it, bytes) else line(it)
            try:
                self.p.stdin.write(data)
                self.p.stdin.flush()
            except OSError:
                return False
        return True

    def mark(self):
        with self.cv:
            return len(self.got)

    def wait_id(self, rid, guard=GUARD):
        """The answer to rid, or None when the server's stdout ended first."""
        end = time.monotonic() + guard
        with self.cv:
            while True:
                for m in self.got:
                    if "id" in m and m["id"] == rid and type(m["id"]) is type(rid):
                        return m
                if self.eof or time.monotonic() > end:
                    return None
                self.cv.wait(1)

    def exchange(self, *items):
        """What the server answered to items: every message after them up to
        a ping's answer (exclusive), or None when it ended."""
        self.seq += 1
        pid = "ping" + MARK + str(self.seq)
        start = self.mark()
        self.send(*items)
        self.send(req(pid, "ping"))
        if self.wait_id(pid) is None:
            return None
        with self.cv:
            out = self.got[start:]
        return [m for m in out if m.get("id") != pid]

    def initialize(self):
        r = self.exchange(req(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                "clientInfo": {"name": "robust", "version": "1"}}),
                          {"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r is not None and len(r) == 1 and r[0].get("id") == 0 and "result" in r[0]

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            rc = self.p.wait(GUARD)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "still running"
        for t in self.threads:
            t.join(10)
        return rc

    def end(self):
        """The server ended, by the end of its stdin if it still runs (it
        then kills its jails and removes their logs; SIGKILL would leave
        both), by SIGKILL only if that does not end it."""
        if self.p.poll() is None and self.close() == "still running":
            self.p.wait()

    def why_dead(self):
        rc = self.p.poll()
        tail = bytes(self.err).decode("utf-8", "replace").strip().splitlines()[-3:]
        return "server %s; stderr: %s" % ("running" if rc is None else "exited %s" % rc,
                                          " | ".join(tail) or "(none)")


def _no_constant(name):
    raise ValueError("non-JSON constant " + name)


class Long:
    """A run_command whose jail runs until the test makes a file."""

    n = 0

    def __init__(self, s, extra_marker=False):
        Long.n += 1
        self.s = s
        self.tag = "%d-%d" % (os.getpid(), Long.n)
        self.rid = "long" + MARK + self.tag
        self.started = os.path.join(PROJECT, "started-" + self.tag)
        self.go = os.path.join(PROJECT, "go-" + self.tag)
        self.done = os.path.join(PROJECT, "done-" + self.tag)
        script = ('touch "started-$1"; while [ ! -e "go-$1" ]; do sleep 0.05; done; '
                  'echo "released $1" >"done-$1"; echo "released $1"')
        s.send(req(self.rid, "tools/call", {"name": "run_command", "arguments": {
            "command": ["sh", "-c", script, "sh", self.tag], "timeout": 300}}))

    def wait_started(self):
        end = time.monotonic() + GUARD
        while not os.path.exists(self.started):
            if self.s.p.poll() is not None or time.monotonic() > end:
                return False
            time.sleep(0.05)
        return True

    def release(self):
        open(self.go, "w").close()

    def result_ok(self):
        """(ok, detail): its answer is the command's own."""
        self.release()
        m = self.s.wait_id(self.rid)
        if m is None:
            return False, "the long call got no answer: " + self.s.why_dead()
        sc = (m.get("result") or {}).get("structuredContent") or {}
        ok = sc.get("exit_code") == 0 and sc.get("stdout") == "released %s\n" % self.tag and \
            not m["result"].get("isError")
        return ok, "long call: " + json.dumps(m)[:300]

    def cleanup(self):
        for f in (self.started, self.go, self.done):
            try:
                os.unlink(f)
            except OSError:
                pass


results = {"pass": 0, "fail": 0}


def verdict(name, ok, why, detail=""):
    if ok:
        results["pass"] += 1
        print("PASS %s%s" % (name, " (%s)" % detail if detail else ""), flush=True)
    else:
        results["fail"] += 1
        print("FAIL %s: %s" % (name, why.replace("\n", " ")[:700]), flush=True)


def err_is(m, code, rid=None):
    return "error" in m and m["error"].get("code") == code and "id" in m and m["id"] == rid and \
        type(m["id"]) is type(rid) and isinstance(m["error"].get("message"), str)


def case(name, args=()):
    """A case: fn(s) -> (ok, why, detail), run beside a long call."""
    def deco(fn):
        CASES.append((name, args, fn))
        return fn
    return deco


CASES = []


def run_case(name, args, fn, nonblocking=False):
    s = Session(args, nonblocking=nonblocking)
    long = None
    try:
        if not s.initialize():
            return verdict(name, False, "initialize failed: " + s.why_dead())
        long = Long(s)
        if not long.wait_started():
            return verdict(name, False, "the long call's jail never started: " + s.why_dead())
        ok, why, detail = fn(s)
        if not ok:
            return verdict(name, False, why)
        tl = s.exchange(req("list" + MARK, "tools/list"))
        names = sorted(t.get("name") for t in ((tl or [{}])[0].get("result") or {}).get("tools", []))
        if tl is None or names != ["run_command", "sandbox_status"]:
            return verdict(name, False, "tools/list after it: %s; %s" % (tl, s.why_dead()))
        lok, ldetail = long.result_ok()
        if not lok:
            return verdict(name, False, ldetail)
        if s.bad:
            return verdict(name, False, "lines that are not JSON-RPC: %r" % s.bad[:3])
        rc = s.close()
        if rc != 0 or b"Traceback" in s.err:
            return verdict(name, False, "at stdin's end: %s; stderr %s" % (rc, bytes(s.err[-400:])))
        verdict(name, True, "", detail)
    finally:
        s.end()
        if long:
            long.cleanup()


def expect(s, items, checks, what):
    """Send items; the answers must be exactly one per check, in order."""
    got = s.exchange(*items)
    if got is None:
        return False, "%s: the server ended: %s" % (what, s.why_dead()), ""
    if len(got) != len(checks) or not all(c(m) for c, m in zip(checks, got)):
        return False, "%s: answers %s" % (what, json.dumps(got)[:500]), ""
    return True, "", ""


def all_of(*steps):
    def fn(s):
        details = []
        for items, checks, what in steps:
            ok, why, _ = expect(s, items, checks, what)
            if not ok:
                return ok, why, ""
            details.append(what)
        return True, "", "%d exchanges" % len(details)
    return fn


parse_err = lambda m: err_is(m, -32700, None)
invalid_null = lambda m: err_is(m, -32600, None)
none = []


def invalid_with(rid):
    return lambda m: err_is(m, -32600, rid)


def params_err(rid):
    return lambda m: err_is(m, -32602, rid)


def tool_err(rid, pattern=None):
    def c(m):
        r = m.get("result") or {}
        text = "".join(x.get("text", "") for x in r.get("content") or [])
        return m.get("id") == rid and r.get("isError") is True and \
            (pattern is None or pattern in text)
    return c


def ok_result(rid):
    return lambda m: m.get("id") == rid and isinstance(m.get("result"), dict)


_ABSENT = object()


def call(rid, name, arguments=_ABSENT, **extra):
    p = {"name": name}
    if arguments is not _ABSENT:
        p["arguments"] = arguments
    p.update(extra)
    return req(rid, "tools/call", p)


# --- the three findings, each its own case -------------------------------------------

@case("finding-deep-array")
def _(s):
    return expect(s, [b"[" * 100000 + b"\n"], [parse_err], "100000 [")


@case("finding-name-array")
def _(s):
    return expect(s, [call(1, ["run_command"], {"command": ["true"]})], [params_err(1)],
                  "tools/call name [..]")


@case("finding-cancel-array")
def _(s):
    return expect(s, [{"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": [1], "reason": "x"}}], none,
                  "cancel requestId [1]")


# --- one case per class ------------------------------------------------------------------

CASES.append(("depth-bound", (), all_of(
    ([b'{"jsonrpc":"2.0","method":"ping","id":1,"params":{"a":' + b"[" * (MAX_DEPTH - 2) +
      b"]" * (MAX_DEPTH - 2) + b"}}\n"], [ok_result(1)], "depth %d answered" % MAX_DEPTH),
    ([b'{"jsonrpc":"2.0","method":"ping","id":2,"params":{"a":' + b"[" * (MAX_DEPTH - 1) +
      b"]" * (MAX_DEPTH - 1) + b"}}\n"], [parse_err], "depth %d refused" % (MAX_DEPTH + 1)),
    ([b'{"a":' * 100000 + b"\n"], [parse_err], "100000 objects deep"),
    # Brackets inside strings are not nesting.
    ([line(req(3, "ping", {"s": "[" * 100000 + "\\\"{" * 1000}))], [ok_result(3)],
     "brackets in a string"),
)))

CASES.append(("line-bound", (), all_of(
    ([line(req(1, "ping", {"pad": "a" * (MAX_LINE - 200)}))], [ok_result(1)],
     "a line just under the bound"),
    ([line(req(2, "ping", {"pad": "a" * MAX_LINE}))], [parse_err], "a line over the bound"),
    ([b"x" * (3 * MAX_LINE) + b"\n"], [parse_err], "3 bounds of garbage"),
    # After a line too long, the next line is read from its start.
    ([b"[" * (MAX_LINE + 10) + b"\n", line(req(4, "ping"))], [parse_err, ok_result(4)],
     "the line after a long one"),
)))

CASES.append(("not-utf8", (), all_of(
    ([b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\xff\xfe"}}\n'], [parse_err],
     "invalid UTF-8"),
    ([b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\xed\xa0\x80"}}\n'], [parse_err],
     "an encoded surrogate"),
    ([b'\x00{\x00"\x00j\x00\n'], [parse_err], "UTF-16"),
    # An escaped lone surrogate is JSON; the answer must stay valid UTF-8.
    ([b'{"jsonrpc":"2.0","id":3,"method":"no/such\\ud800"}\n'],
     [lambda m: err_is(m, -32601, 3)], "a lone surrogate in a method"),
    ([line(call(4, "run_command", {"command": ["echo", "\udc80"]}))], [tool_err(4)],
     "a lone surrogate in an argument"),
)))

CASES.append(("not-object", (), all_of(
    ([b"1\n", b'"x"\n', b"null\n", b"true\n", b"[]\n", b"1e999\n"],
     [invalid_null] * 6, "scalars and []"),
    ([line([req(1, "ping")]), line([req(2, "ping"), req(3, "ping")])], [invalid_null] * 2,
     "batches"),
    ([b"NaN\n", b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":Infinity}}\n'],
     [parse_err, parse_err], "NaN and Infinity"),
)))

CASES.append(("duplicate-keys", (), all_of(
    ([b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}\n'], [invalid_null], "two ids"),
    ([b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":1,"a":2}}\n'], [invalid_with(3)],
     "a duplicate below"),
    ([b'{"jsonrpc":"2.0","id":4,"method":"tools/call","method":"ping"}\n'], [invalid_with(4)],
     "two methods"),
)))

CASES.append(("id-types", (), all_of(
    ([line({"jsonrpc": "2.0", "id": v, "method": "ping"}) for v in
      (1.5, True, {}, [], None, "x" * (MAX_ID_CHARS + 1), 2 ** 63, -2 ** 63 - 1)] +
     [b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n'],
     [invalid_null] * 9, "ids not a string or an integer, or too long"),
    ([line(req("x" * MAX_ID_CHARS, "ping")), line(req(2 ** 63 - 1, "ping")), line(req("", "ping"))],
     [ok_result("x" * MAX_ID_CHARS), ok_result(2 ** 63 - 1), ok_result("")], "ids at the bounds"),
    # A tools/call with a bad id runs nothing.
    ([line({"jsonrpc": "2.0", "id": [7], "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": ["touch", "ran"]}}})],
     [invalid_null], "a call with a bad id"),
)))

CASES.append(("envelope", (), all_of(
    ([line({"jsonrpc": v, "id": 1, "method": "ping"}) for v in (2.0, "1.0", None, ["2.0"])] +
     [line({"id": 1, "method": "ping"})], [invalid_with(1)] * 5, "jsonrpc"),
    ([line({"jsonrpc": "2.0", "id": 2, "method": v}) for v in (5, None, [], {"a": 1})] +
     [line({"jsonrpc": "2.0", "id": 2})], [invalid_with(2)] * 5, "method"),
    ([line({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": v})
      for v in ([], "x", 0, None, False, [1])], [params_err(3)] * 6, "params"),
    ([line({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": v}})
      for v in ("x", [], {"progressToken": []}, {"progressToken": 1.5}, {"progressToken": True},
                {"progressToken": None})], [params_err(4)] * 6, "_meta"),
    ([line(req(5, "ping", {"_meta": {"progressToken": "t"}})),
      line(req(6, "ping", {"_meta": {"progressToken": 7, "other": [1]}}))],
     [ok_result(5), ok_result(6)], "_meta well formed"),
)))

CASES.append(("tools-call-params", (), all_of(
    ([line(call(1, v, {"command": ["true"]})) for v in (["run_command"], 5, None, {}, True)] +
     [line(req(1, "tools/call", {"arguments": {"command": ["true"]}}))],
     [params_err(1)] * 6, "name"),
    ([line(call(2, "no_such_tool", {}))], [params_err(2)], "an unknown tool"),
    ([line(call(3, "run_command", v)) for v in ([], "x", 5, None, [["true"]])],
     [params_err(3)] * 5, "arguments"),
    ([line(call(4, "run_command", {"command": ["true"]}, _meta={"progressToken": [1]}))],
     [params_err(4)], "progressToken"),
)))

_ARG_CASES = [
    {"command": [1]}, {"command": []}, {"command": "ls"}, {"command": None},
    {"command": ["touch", "ran"], "timeout": "5"}, {"command": ["touch", "ran"], "timeout": True},
    {"command": ["touch", "ran"], "timeout": 0}, {"command": ["touch", "ran"], "timeout": -1},
    {"command": ["touch", "ran"], "timeout": 1e300}, {"command": ["touch", "ran"], "timeout": 2 ** 80},
    {"command": ["touch", "ran"], "timeout": [5]}, {"command": ["touch", "ran"], "profile": 5},
    {"command": ["touch", "ran"], "profile": "jail-nonesuch"}, {"command": ["touch", "ran"], "stdin": 5},
    {"command": ["touch", "ran"], "allow_hosts": [1]}, {"command": ["touch", "ran"], "allow_hosts": "x"},
    {"command": ["touch", "ran"], "cwd": 5}, {"command": ["touch", "ran"], "cwd": []},
    {"command": ["touch", "ran"], "mode": {}}, {"command": ["touch", "ran"], "net": True},
    {"command": ["touch", "ran"], "ro_maps": ["/"]}, {"command": ["touch", "ran"], "nonesuch": 1},
    {"command": ["touch", "ran", "\0"]},
]


def _args_case(s):
    items = [line(call(10 + i, "run_command", a)) for i, a in enumerate(_ARG_CASES)]
    items.append(b'{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"run_command",'
                 b'"arguments":{"command":["touch","ran"],"timeout":1e400}}}\n')
    items += [line(call(100, "sandbox_status", {"cwd": []})),
              line(call(101, "sandbox_status", {"profile": {}})),
              line(call(102, "sandbox_status", {"x": 1}))]
    checks = [tool_err(10 + i) for i in range(len(_ARG_CASES))] + [tool_err(99)] + \
        [tool_err(100), tool_err(101), tool_err(102)]
    # The calls are answered from their threads: in any order.
    start = s.mark()
    got = s.exchange(*items)
    if got is None:
        return False, "the server ended: " + s.why_dead(), ""
    for c, rid in zip(checks, [10 + i for i in range(len(_ARG_CASES))] + [99, 100, 101, 102]):
        m = s.wait_id(rid)
        if m is None or not c(m):
            return False, "argument case %d: %s" % (rid, json.dumps(m)[:300]), ""
    if os.path.exists(os.path.join(PROJECT, "ran")):
        return False, "a refused command ran", ""
    with s.cv:
        n = len(s.got) - start
    # One answer each, plus the ping's.
    if n != len(items) + 1:
        return False, "%d answers to %d requests" % (n - 1, len(items)), ""
    m = s.wait_id(22)
    if "--profile" not in m["result"]["content"][0]["text"]:
        return False, "an unknown profile's message names no rule: %s" % json.dumps(m), ""
    return True, "", "%d argument errors" % len(items)


CASES.append(("tool-arguments", (), _args_case))

_CANCELS = [{"requestId": v} for v in ([1], {}, None, 1.5, True, "x" * 100000, 2 ** 80)] + \
    [{}, {"requestId": "long" + MARK, "reason": []}]

CASES.append(("notifications", (), all_of(
    ([line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": p}) for p in _CANCELS] +
     [line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": v})
      for v in ([], "x", None, 5)], none, "cancels of every shape"),
    ([line({"jsonrpc": "2.0", "method": m, "params": p})
      for m in ("notifications/initialized", "notifications/progress",
                "notifications/roots/list_changed", "no/such", "tools/call")
      for p in ([], {"progressToken": []}, "x")], none, "other notifications"),
    # Not a notification either: JSON-RPC answers an invalid request, id null.
    ([line({"jsonrpc": "2.0", "method": m}) for m in (5, None, [])] +
     [line({"jsonrpc": "1.0", "method": "notifications/initialized"})],
     [invalid_null] * 4, "invalid requests without an id"),
)))

CASES.append(("responses", (), all_of(
    ([line({"jsonrpc": "2.0", "id": 5, "result": {}}),
      line({"jsonrpc": "2.0", "id": [5], "result": []}),
      line({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "m"}}),
      line({"jsonrpc": "2.0", "id": "long" + MARK, "error": "x"}),
      line({"jsonrpc": "2.0", "result": 5})], none, "unasked responses"),
)))

CASES.append(("other-methods", (), all_of(
    ([line(req(1, "initialize", {"protocolVersion": v, "capabilities": {}, "clientInfo": {}}))
      for v in ([], 5, {}, None)] +
     [line(req(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": "x"})),
      line(req(1, "initialize", {"protocolVersion": "2025-06-18", "clientInfo": 5}))],
     [params_err(1)] * 6, "initialize"),
    ([line(req(2, "tools/list", {"cursor": v})) for v in ([], 5, {}, "c")],
     [params_err(2)] * 4, "tools/list cursor"),
    ([line(req(3, m, p)) for m, p in (("logging/setLevel", {"level": []}),
                                      ("resources/list", {"cursor": []}),
                                      ("prompts/get", {"name": []}),
                                      ("completion/complete", {"ref": 5}),
                                      ("x" * 100000, {}))],
     [lambda m: err_is(m, -32601, 3) and len(m["error"]["message"]) < 400] * 5, "other methods"),
    ([line(req(4, "ping", {"x": [1, {"y": None}]}))], [ok_result(4)], "ping's params"),
)))


def _waiting(s):
    # --max-concurrent 1: the long call holds the slot, these wait.
    n = MAX_WAITING + 5
    start = s.mark()
    s.send(*[line(call("q%d" % i, "run_command", {"command": ["touch", "ran-%d" % i]}))
             for i in range(n)])
    got = s.exchange()
    if got is None:
        return False, "the server ended: " + s.why_dead(), ""
    busy = [m for m in got if "error" in m and m["error"].get("code") == -32000]
    others = [m for m in got if m not in busy]
    ok = len(busy) == n - MAX_WAITING and not others
    # The waiting ones cancelled: none may run after the long call.
    s.send(*[line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": "q%d" % i}}) for i in range(n)])
    if s.exchange() is None:
        return False, "the server ended: " + s.why_dead(), ""
    return ok, "answers while waiting: %s" % json.dumps(got)[:400], \
        "%d refused as busy" % len(busy)


CASES.append(("too-many-waiting", ("--max-concurrent", "1"), _waiting))


def _nonblocking(s):
    ok, why, _ = expect(s, [b"{bad\n", line(req(1, "tools/list"))], [parse_err, ok_result(1)],
                        "lines after waits")
    if not ok:
        return ok, why, ""
    # An answer of 300 kB: more than a pipe holds, written in turns.
    n = 300000
    s.send(call(2, "run_command", {"command": ["sh", "-c", "head -c %d /dev/zero | tr '\\0' a" % n]}))
    m = s.wait_id(2)
    out = ((m or {}).get("result") or {}).get("structuredContent", {}).get("stdout")
    return out == "a" * n, "a large answer: %s" % json.dumps(m)[:300], "300 kB answered"


CASES.append(("stdio-nonblocking", (), _nonblocking))


def broken_pipe():
    """The client closes the server's stdout: writes fail, the jails run on,
    and the end of stdin still ends the server cleanly."""
    name = "broken-pipe"
    s = Session(read=False)
    long = None
    try:
        s.send(req(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "robust", "version": "1"}}))
        first = s.p.stdout.readline()
        if b'"result"' not in first:
            return verdict(name, False, "initialize: %r %s" % (first[:200], s.why_dead()))
        long = Long(s)
        if not long.wait_started():
            return verdict(name, False, "the long call's jail never started: " + s.why_dead())
        s.p.stdout.close()
        # Answers now fail to be written: ping, errors, a call's result.
        s.send(req(1, "ping"), b"{bad\n", call(2, "run_command", {"command": ["true"]}),
               req(3, "tools/list"))
        long.release()
        end = time.monotonic() + GUARD
        while not os.path.exists(long.done) and s.p.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        if not os.path.exists(long.done):
            return verdict(name, False, "the long call's jail did not finish: " + s.why_dead())
        alive = s.p.poll() is None
        rc = s.close()
        ok = alive and rc == 0 and b"Traceback" not in s.err and b"Exception" not in s.err
        verdict(name, ok, "alive after the writes failed: %s; at stdin's end: %s; stderr: %r"
                % (alive, rc, bytes(s.err[-300:])), "the jail finished, exit 0")
    finally:
        s.end()
        if long:
            long.cleanup()


# --- the fuzz --------------------------------------------------------------------------------

_ALPHA = "abc/_- .{}[]\"\\:,0\u00e9\u4e2d\U0001f600\ud800\udc80\x00\n\t"

TEMPLATES = [
    req(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                          "clientInfo": {"name": "fuzz", "version": "1"}}),
    req(2, "ping"),
    req(3, "tools/list", {}),
    call(4, "run_command", {"command": ["true"], "cwd": ".", "timeout": 5, "stdin": "x",
                            "profile": "jail", "allow_hosts": []}, _meta={"progressToken": "t"}),
    call(5, "run_command", {"command": ["true"], "mode": "normal"}),
    call(6, "sandbox_status", {"cwd": "."}),
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4, "reason": "r"}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 7, "result": {}},
    req(8, "logging/setLevel", {"level": "debug"}),
    req(9, "resources/list", {"cursor": "c"}),
]


_KEYS = ["id", "method", "params", "jsonrpc", "name", "arguments", "command", "timeout", "profile",
         "cwd", "stdin", "mode", "allow_hosts", "net", "ro_maps", "requestId", "reason", "_meta",
         "progressToken", "cursor", "protocolVersion", "capabilities", "clientInfo", "result"]


class Fuzz:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def string(self):
        r = self.r
        n = r.choice((0, 1, 3, 8, 30))
        # Never a program's name: a run_command it makes runs nothing.
        return "%" + "".join(r.choice(_ALPHA) for _ in range(n))

    def value(self, depth=0):
        r = self.r
        k = r.randrange(14 if depth < 4 else 9)
        if k == 0:
            return None
        if k == 1:
            return r.choice((True, False))
        if k == 2:
            return r.choice((0, 1, -1, 7, 2 ** 31, 2 ** 53 + 1, 2 ** 63, -2 ** 64, 10 ** 30))
        if k == 3:
            return r.choice((0.5, -1e-9, 1e308, 3.0, 1e16))
        if k in (4, 5, 6):
            return self.string()
        if k == 7:
            return [self.string() for _ in range(r.randrange(4))]
        if k == 8:
            return r.choice(("run_command", "sandbox_status", "2.0", "tools/call", "long" + MARK,
                             ["true"], "jail", "normal", ".", 5, "2025-06-18", {}, []))
        if k in (9, 10):
            return [self.value(depth + 1) for _ in range(r.randrange(4))]
        if k in (11, 12):
            return {self.string(): self.value(depth + 1) for _ in range(r.randrange(4))}
        return self.nest(r.choice((3, 20, 63, 70, 500)))

    def nest(self, n):
        v = self.string()
        for _ in range(n):
            v = [v] if self.r.random() < 0.5 else {"k": v}
        return v

    def mutate(self, o, top=False):
        """o with one node changed (replaced, a key removed or added), the
        node picked by a walk down that mostly goes into params."""
        r = self.r
        if isinstance(o, dict) and o and r.random() < (0.9 if top else 0.75):
            o = dict(o)
            k = "params" if top and "params" in o and r.random() < 0.9 else r.choice(list(o))
            o[k] = self.mutate(o[k])
            return o
        if isinstance(o, list) and o and r.random() < 0.75:
            o = list(o)
            i = r.randrange(len(o))
            o[i] = self.mutate(o[i])
            return o
        op = r.randrange(4)
        if isinstance(o, dict) and o and op == 0:
            o = dict(o)
            del o[r.choice(list(o))]
            return o
        if isinstance(o, dict) and op == 1:
            o = dict(o)
            o[r.choice(_KEYS + [self.string()])] = self.value()
            return o
        return self.value()

    def line(self):
        r = self.r
        k = r.randrange(20)
        if k == 0:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 60))).replace(b"\n", b"") + b"\n"
        if k == 1:
            return json.dumps(self.value()).encode() + b"\n"
        t = json.loads(json.dumps(r.choice(TEMPLATES)))
        t["id"] = r.choice((r.randrange(50), self.string())) if "id" in t else None
        if t["id"] is None:
            del t["id"]
        for _ in range(r.randrange(1, 4)):
            t = self.mutate(t, top=True)
        text = json.dumps(t, allow_nan=True, ensure_ascii=r.random() < 0.8)
        data = text.encode("utf-8", "surrogatepass")
        if k == 2 and len(data) > 2:
            data = data[:r.randrange(1, len(data))]
        elif k == 3:
            i = r.randrange(len(data) + 1)
            data = data[:i] + bytes([r.randrange(256)]) + data[i:]
            data = data.replace(b"\n", b"")
        elif k == 4 and data.startswith(b"{"):
            data = b'{"id":' + r.choice((b"1", b"[]", b'"a"')) + b"," + data[1:]
        elif k == 5:
            data = b"[" + data + b"]"
        elif k == 6 and r.random() < 0.02:
            data = data + b" " * (MAX_LINE + 1)
        return data + b"\n"


def fuzz():
    name = "fuzz"
    seed = int(os.environ.get("AJ_MCP_FUZZ_SEED", "36"))
    total = int(os.environ.get("AJ_MCP_FUZZ_LINES", "5000"))
    batch = 100
    f = Fuzz(seed)
    s = Session()
    long = None
    t0 = time.monotonic()
    try:
        if not s.initialize():
            return verdict(name, False, "initialize failed: " + s.why_dead())
        long = Long(s)
        if not long.wait_started():
            return verdict(name, False, "the long call's jail never started: " + s.why_dead())
        sent = 0
        while sent < total:
            lines = [f.line() for _ in range(min(batch, total - sent))]
            sent += len(lines)
            got = s.exchange(*(lines + [line(req("list" + MARK + str(sent), "tools/list"))]))
            tl = s.wait_id("list" + MARK + str(sent), 1)
            if got is None or tl is None or len((tl.get("result") or {}).get("tools", [])) != 2:
                return verdict(name, False, "seed %d, after line %d: tools/list %s; %s; the "
                               "batch: %r" % (seed, sent, tl, s.why_dead(), lines[:5]))
            if s.bad:
                return verdict(name, False, "seed %d: lines that are not JSON-RPC: %r"
                               % (seed, s.bad[:3]))
        lok, ldetail = long.result_ok()
        if not lok:
            return verdict(name, False, "seed %d: %s" % (seed, ldetail))
        with s.cv:
            defects = [m for m in s.got if "error" in m and m["error"].get("code") == -32603]
        if defects:
            # An input no check caught, answered by the last resort.
            return verdict(name, False, "seed %d: internal errors: %s; stderr %r"
                           % (seed, json.dumps(defects[:3]), bytes(s.err[-600:])))
        with s.cv:
            n = len(s.got)
            kinds = {}
            for m in s.got:
                k = "error %s" % m["error"].get("code") if "error" in m else \
                    "tool error" if m["result"].get("isError") else \
                    "run" if "exit_code" in (m["result"].get("structuredContent") or {}) else "result"
                kinds[k] = kinds.get(k, 0) + 1
        rc = s.close()
        if rc != 0 or b"Traceback" in s.err:
            return verdict(name, False, "seed %d: at stdin's end: %s; stderr %r"
                           % (seed, rc, bytes(s.err[-400:])))
        verdict(name, True, "", "seed %d, %d lines, %d answers (%s), %.0f s"
                % (seed, total, n, ", ".join("%s: %d" % kv for kv in sorted(kinds.items())),
                   time.monotonic() - t0))
    finally:
        s.end()
        if long:
            long.cleanup()


def main():
    for name, args, fn in CASES:
        if fnmatch.fnmatch(name, PATTERN):
            run_case(name, args, fn, nonblocking=name == "stdio-nonblocking")
    if fnmatch.fnmatch("broken-pipe", PATTERN):
        broken_pipe()
    if fnmatch.fnmatch("fuzz", PATTERN):
        fuzz()
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
