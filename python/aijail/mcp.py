"""aijail-mcp: an MCP server over stdio that runs commands in aijail's jails.

The Model Context Protocol (revision 2025-11-25, older ones negotiated),
newline-delimited JSON-RPC 2.0 on stdin and stdout.  Two tools:

run_command     a command (argv) run by one of the stubs in a directory below
                one of the roots the person who started the server allowed
sandbox_status  what a run there would have: the stub's --jail-explain=json
                (or, when this server itself runs in a jail, aijail-status)

The person who starts the server decides what an agent may ask for (the
options, docs/mcp.md); a request outside that is a tool error naming the
rule, and nothing runs.  The confinement is the stub's: nothing here
confines anything, it only chooses the stub's options.

Standard library only: it runs from the installed tree, offline.
"""


import json
import os
import select
import signal
import sys
import threading
import time
import traceback

from . import wheel_bindir

# The server's parts live in modules of their own (_mcp_json: reading a
# message; _mcp_options: the options and a request's checks; _mcp_run: the
# tools); their public names stay aijail.mcp's.
from ._mcp_json import (  # noqa: F401
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, MAX_DEPTH, MAX_ID_CHARS, MAX_LINE,
    MAX_WAITING, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_BUSY, _tool_error, parse, read_lines,
    valid_id)
from ._mcp_options import (  # noqa: F401
    RUN_OUTPUT_SCHEMA, Refused, STATUS_OUTPUT_SCHEMA, __version__, _installed_stubs,
    _schema_error, _short, modes_of, parse_options, tools)
from ._mcp_run import (  # noqa: F401
    EXIT_SETUP, EXIT_TIMEOUT, Job, run_command, sandbox_status, summarize)


LATEST = "2025-11-25"
# Newest first.  outputSchema and structuredContent came with 2025-06-18.
SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
_STRUCTURED_SINCE = "2025-06-18"


# --- the server -------------------------------------------------------------------------------

_TOOLS = {"run_command": run_command, "sandbox_status": sandbox_status}


class Server:
    """The protocol on a file descriptor pair.

    Nothing a client sends ends it but the end of its input: each line is
    checked (docs/mcp.md, "Bounds and errors") and answered, a failure of this code in
    handling one is answered as an internal error, and a failed write (the
    client closed its end) drops that answer and nothing else.
    """

    def __init__(self, opts, out_fd):
        self.opts = opts
        self.out_fd = out_fd
        self.wlock = threading.Lock()
        self.broken = False
        self.jobs = {}
        # Reentrant: the signal handler (kill_all) runs in the reading
        # thread, which may hold it.
        self.jlock = threading.RLock()
        self.slots = threading.BoundedSemaphore(opts.max_concurrent)
        self.threads = []
        self.protocol = LATEST
        self.schemas = {t["name"]: t["inputSchema"] for t in tools(opts)}
        self.defects = 0

    def send(self, msg):
        try:
            data = json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (from a client's \ud800): escaped, the line
            # stays UTF-8.
            data = json.dumps(msg, separators=(",", ":")).encode("ascii")
        with self.wlock:
            if self.broken:
                return
            # Unbuffered: nothing is left for the interpreter to flush at
            # exit into a closed pipe.
            view = memoryview(data + b"\n")
            try:
                while view:
                    try:
                        view = view[os.write(self.out_fd, view):]
                    except BlockingIOError:
                        # stdout left non-blocking: a full pipe is a wait.
                        select.select([], [self.out_fd], [])
            except OSError:
                self.broken = True

    def error(self, rid, code, message):
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def result(self, rid, result):
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def handle_line(self, data):
        """One line, answered as JSON-RPC says (or not: a notification, a
        response); never raises."""
        try:
            self._handle(data)
        except Exception as e:  # a defect of this server: the line's, not the server's end
            self.defects += 1
            if self.defects <= 10:
                try:
                    traceback.print_exc(file=sys.stderr)
                except Exception:
                    pass  # stderr closed: the answer below still says it
            self.error(None, INTERNAL_ERROR, "internal error: %s: %s"
                       % (type(e).__name__, _short(str(e))))

    def _handle(self, data):
        try:
            msg, dups = parse(data)
        except (ValueError, RecursionError) as e:
            self.error(None, PARSE_ERROR, "parse error: %s" % _short(str(e), 200))
            return
        if isinstance(msg, list):
            self.error(None, INVALID_REQUEST, "batches are not supported (MCP 2025-06-18 and "
                                              "later have none)")
            return
        if not isinstance(msg, dict):
            self.error(None, INVALID_REQUEST, "a message must be a JSON object")
            return
        if "method" not in msg and ("result" in msg or "error" in msg):
            return  # a response, and this server asks nothing: never answered
        has_id = "id" in msg
        rid = msg.get("id")
        answer_to = rid if has_id and valid_id(rid) else None
        if dups:
            twice = dups[-1][1] if dups[-1][0] is msg else ()
            self.error(None if "id" in twice else answer_to, INVALID_REQUEST,
                       "a key named twice in an object: %s"
                       % _short(", ".join(sorted(dups[0][1]))))
            return
        if msg.get("jsonrpc") != "2.0":
            self.error(answer_to, INVALID_REQUEST, 'not JSON-RPC 2.0: jsonrpc must be "2.0"')
            return
        method = msg.get("method")
        if not isinstance(method, str):
            self.error(answer_to, INVALID_REQUEST, "method must be a string")
            return
        if has_id and answer_to is None:
            self.error(None, INVALID_REQUEST, "id must be a string of at most %d characters or "
                                              "an integer of 64 bits" % MAX_ID_CHARS)
            return
        params = msg.get("params", {})
        why = None
        if not isinstance(params, dict):
            why = "params must be an object"
        elif "_meta" in params:
            meta = params["_meta"]
            if not isinstance(meta, dict) or \
                    ("progressToken" in meta and not valid_id(meta["progressToken"])):
                why = "_meta must be an object, its progressToken a string or an integer"
        if not has_id:
            # A notification is never answered: one that is not well formed
            # is dropped.
            if why is None:
                self.notification(method, params)
            return
        if why:
            self.error(rid, INVALID_PARAMS, why)
            return
        self.request(rid, method, params)

    def request(self, rid, method, params):
        if method == "initialize":
            asked = params.get("protocolVersion")
            if not isinstance(asked, str):
                self.error(rid, INVALID_PARAMS, "protocolVersion must be a string")
                return
            for k in ("capabilities", "clientInfo"):
                if k in params and not isinstance(params[k], dict):
                    self.error(rid, INVALID_PARAMS, "%s must be an object" % k)
                    return
            self.protocol = asked if asked in SUPPORTED else LATEST
            self.result(rid, {
                "protocolVersion": self.protocol,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "aijail-mcp", "title": "aijail", "version": __version__},
                "instructions": "run_command runs argv in an aijail jail below the roots %s; "
                                "sandbox_status says what is in force there."
                                % ", ".join(r for r, _ in self.opts.roots),
            })
        elif method == "ping":
            self.result(rid, {})
        elif method == "tools/list":
            if params.get("cursor") is not None:
                self.error(rid, INVALID_PARAMS, "unknown cursor (the list is one page)")
                return
            ts = tools(self.opts)
            if self.protocol < _STRUCTURED_SINCE:
                for t in ts:
                    t.pop("outputSchema", None)
                    t.pop("title", None)
            self.result(rid, {"tools": ts})
        elif method == "tools/call":
            self.tools_call(rid, params)
        else:
            self.error(rid, METHOD_NOT_FOUND, "method not found: %s" % _short(method))

    def tools_call(self, rid, params):
        name = params.get("name")
        if not isinstance(name, str):
            self.error(rid, INVALID_PARAMS, "name must be a string")
            return
        fn = _TOOLS.get(name)
        if fn is None:
            self.error(rid, INVALID_PARAMS, "unknown tool: %s" % _short(name))
            return
        args = params.get("arguments", {})
        if not isinstance(args, dict):
            self.error(rid, INVALID_PARAMS, "arguments must be an object")
            return
        why = _schema_error(self.schemas[name], args)
        if why:
            # A tool error, as the specification has it for input that does
            # not match the schema: the model reads it and corrects.
            self.result(rid, _tool_error("refused, nothing was run: " + why))
            return
        job = Job()
        key = (type(rid), rid)
        with self.jlock:
            if key in self.jobs:
                self.error(rid, INVALID_REQUEST, "request id %s is in use" % _short(rid))
                return
            if len(self.jobs) >= self.opts.max_concurrent + MAX_WAITING:
                self.error(rid, SERVER_BUSY, "busy: %d calls running or waiting for a slot "
                           "(--max-concurrent %d and %d waiting); try again when one ends"
                           % (len(self.jobs), self.opts.max_concurrent, MAX_WAITING))
                return
            self.jobs[key] = job
        t = threading.Thread(target=self.call, args=(rid, key, fn, args, job), daemon=True)
        self.threads = [x for x in self.threads if x.is_alive()]
        try:
            t.start()
        except RuntimeError as e:
            with self.jlock:
                self.jobs.pop(key, None)
            self.error(rid, SERVER_BUSY, "busy: no thread for the call: %s" % e)
            return
        self.threads.append(t)

    def notification(self, method, params):
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            if not valid_id(rid):
                return
            with self.jlock:
                job = self.jobs.get((type(rid), rid))
            if job is not None:
                job.cancelled = True
                job.kill()
        # Any other (initialized, progress, roots/list_changed, unknown):
        # nothing to do.

    def call(self, rid, key, fn, args, job):
        try:
            self.slots.acquire()
            try:
                if job.cancelled:
                    return
                try:
                    res = fn(self.opts, args, job)
                except Refused as e:
                    res = _tool_error("refused, nothing was run: %s" % e)
                except Exception as e:  # a tool's failure is the caller's to read
                    res = _tool_error("aijail-mcp: internal error: %s: %s"
                                      % (type(e).__name__, e))
            finally:
                self.slots.release()
            if res is None or job.cancelled:
                return
            if self.protocol < _STRUCTURED_SINCE:
                res.pop("structuredContent", None)
            self.result(rid, res)
        finally:
            with self.jlock:
                self.jobs.pop(key, None)

    def kill_all(self):
        with self.jlock:
            jobs = list(self.jobs.values())
        for j in jobs:
            j.cancelled = True
            j.kill()

    def shutdown(self):
        self.kill_all()
        for t in self.threads:
            t.join(5)


def main(argv=None):
    bindir = os.path.dirname(os.path.realpath(sys.argv[0]))
    # python3 -m aijail.mcp: no stub beside the module, but the wheel's.
    if not _installed_stubs(bindir) and wheel_bindir():
        bindir = wheel_bindir()
    opts = parse_options(sys.argv[1:] if argv is None else argv, bindir)
    server = Server(opts, sys.stdout.fileno())

    def stop(signum, frame):
        # The jails are in sessions of their own: a signal to the server's
        # group does not reach them, so they are killed here.
        server.kill_all()
        # A moment for the calls to remove their refusal logs.
        end = time.monotonic() + 3
        for t in list(server.threads):
            t.join(max(0, end - time.monotonic()))
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, stop)
    try:
        for line in read_lines(sys.stdin.fileno()):
            if line is None:
                server.error(None, PARSE_ERROR, "parse error: a line longer than %d bytes"
                             % MAX_LINE)
            elif line.strip():
                server.handle_line(line)
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
