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

import argparse
import itertools
import json
import math
import os
import re
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from . import _pump, _read_record, wheel_bindir

__version__ = "0.1"

LATEST = "2025-11-25"
# Newest first.  outputSchema and structuredContent came with 2025-06-18.
SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
_STRUCTURED_SINCE = "2025-06-18"

EXIT_TIMEOUT = 124
EXIT_SETUP = 125

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_BUSY = -32000

# The bounds of what a client sends (docs/mcp.md, "Bounds and errors"): a line is read
# up to MAX_LINE bytes and no further, and its nesting is measured before
# json.loads sees it (the decoder recurses once a level).
MAX_LINE = 1 << 20
MAX_DEPTH = 64
MAX_ID_CHARS = 1024
_ID_RANGE = 1 << 63
# Above this an integer is no longer exact in a JSON number (I-JSON).
_MAX_NUMBER = 1 << 53
_MAX_DIGITS = 64
# Calls accepted beyond the running ones, each a thread waiting for a slot.
MAX_WAITING = 64

# Past the jail's own timeout, how long the server waits before it kills
# the stub's process group itself.
_GRACE = 5
# The refusal log is the jail's to fill; the server reads at most this much.
_LOG_CAP = 1 << 20
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


# The weakest mode a request gets unless the server is started with another
# --min-mode.
_DEFAULT_MIN_MODE = "worker"
# The generic jail's toggles (jail --jail-help): never given to a request
# unless the server allows each, whatever the command's group turns on.
_TOGGLES = (("docker", "the Docker socket (root on the host)"), ("gpu", "the GPU"),
            ("display", "the display (X11, Wayland)"))


class Refused(Exception):
    """A request the server's options do not allow: a tool error, nothing run."""


# --- the tools' schemas -------------------------------------------------------------

def _run_input_schema(opts):
    props = {
        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "argv: the program and its arguments (for a per-tool "
                                   "stub such as jail-python: the tool's arguments)"},
        "cwd": {"type": "string",
                "description": "a directory at or below a root (relative: to the first root); "
                               "default the first root"},
        "profile": {"type": "string", "enum": sorted(opts.profiles),
                    "description": "the stub (default %s)" % opts.default_profile},
        "mode": {"type": "string", "description": "a mode of the stub's policy "
                                                  "(normal, worker, lockdown, ...), at least %s"
                                                  % (opts.min_mode or "normal")},
        "timeout": {"type": "number", "exclusiveMinimum": 0,
                    "description": "seconds, at most %g" % opts.max_timeout},
        "stdin": {"type": "string", "description": "the command's standard input"},
        "allow_hosts": {"type": "array", "items": {"type": "string"},
                        "description": "hosts the jail may reach through its proxy "
                                       "(--jail-allow-host)%s"
                                       % ("" if opts.allow_hosts else "; refused by this server")},
    }
    if opts.allow_net:
        props["net"] = {"type": "boolean", "description": "the host's network (--jail-net)"}
    if opts.allow_maps:
        props["ro_maps"] = {"type": "array", "items": {"type": "string"},
                            "description": "more paths, read-only (--jail-ro)"}
        props["rw_maps"] = {"type": "array", "items": {"type": "string"},
                            "description": "more paths, writable (--jail-rw)"}
    return {"type": "object", "properties": props, "required": ["command"],
            "additionalProperties": False}


RUN_OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "exit_code": {"type": ["integer", "null"]},
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "stdout_truncated": {"type": "boolean"},
        "stderr_truncated": {"type": "boolean"},
        "timed_out": {"type": "boolean"},
        "duration_ms": {"type": "integer"},
        "refusals": {
            "type": "object",
            "properties": {
                "calls": {"type": "array", "items": {"type": "object"}},
                "connections": {"type": "array", "items": {"type": "object"}},
            },
            "required": ["calls", "connections"],
        },
    },
    "required": ["exit_code", "stdout", "stderr", "stdout_truncated", "stderr_truncated",
                 "timed_out", "duration_ms", "refusals"],
}


def _status_input_schema(opts):
    return {
        "type": "object",
        "properties": {
            "cwd": {"type": "string", "description": "a directory at or below a root"},
            "profile": {"type": "string", "enum": sorted(opts.profiles)},
        },
        "additionalProperties": False,
    }


STATUS_OUTPUT_SCHEMA = {
    "type": "object",
    "description": "the stub's --jail-explain=json document (docs/explain.md); inside a jail, "
                   "aijail-status --json's",
}


def tools(opts):
    return [
        {
            "name": "run_command",
            "title": "Run a command in an aijail jail",
            "description": "Runs argv in a jail (namespaces, Landlock, seccomp; secrets in the "
                           "project masked) in a directory below the allowed roots, with a clean "
                           "environment. Returns exit code, capped stdout/stderr and what the "
                           "jail refused.",
            "inputSchema": _run_input_schema(opts),
            "outputSchema": RUN_OUTPUT_SCHEMA,
            "annotations": {"destructiveHint": True, "openWorldHint": False},
        },
        {
            "name": "sandbox_status",
            "title": "What a jail here would have",
            "description": "The protections a run_command there would have: mode, network, "
                           "namespaces, Landlock ABI, seccomp, the secrets masked, full jail "
                           "or fallback.",
            "inputSchema": _status_input_schema(opts),
            "outputSchema": STATUS_OUTPUT_SCHEMA,
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
        },
    ]


# --- the options ----------------------------------------------------------------------

def _installed_stubs(bindir):
    found = {}
    try:
        names = os.listdir(bindir)
    except OSError:
        return found
    for n in names:
        if n == "jail" or n.startswith("jail-"):
            p = os.path.join(bindir, n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                found[n] = p
    return found


def parse_options(argv, bindir):
    ap = argparse.ArgumentParser(prog="aijail-mcp",
                                 description="An MCP server (stdio) that runs commands in "
                                             "aijail's jails.")
    ap.add_argument("--root", action="append", default=[], metavar="DIR",
                    help="a project root commands may run in (repeatable; default: the "
                         "current directory)")
    ap.add_argument("--profile", action="append", default=[], metavar="NAME",
                    help="a stub agents may use (repeatable; default: every jail* stub "
                         "beside this program)")
    ap.add_argument("--default-profile", metavar="NAME")
    ap.add_argument("--min-mode", metavar="MODE",
                    help="the weakest mode an agent may ask for (default: worker, where "
                         "every allowed stub has it)")
    ap.add_argument("--allow-hosts", action="store_true",
                    help="agents may pass allow_hosts (--jail-allow-host)")
    ap.add_argument("--allow-net", action="store_true",
                    help="agents may ask for the host's network (--jail-net)")
    for t, what in _TOGGLES:
        ap.add_argument("--allow-" + t, action="store_true",
                        help="requests may get %s, where their policy and mode turn it on "
                             "(otherwise --jail-no-%s)" % (what, t))
    ap.add_argument("--allow-maps", action="store_true",
                    help="agents may map more paths (--jail-ro, --jail-rw)")
    ap.add_argument("--max-timeout", type=float, default=600, metavar="S")
    ap.add_argument("--max-output", type=int, default=1 << 20, metavar="BYTES",
                    help="the most bytes kept of each of stdout and stderr")
    ap.add_argument("--max-concurrent", type=int, default=4, metavar="N")
    ap.add_argument("--config", metavar="FILE",
                    help="a JSON object of these options by name (root, profile: arrays; "
                         "min_mode, max_timeout, ...; allow_hosts: true); the command line's "
                         "come after it")
    ap.add_argument("--stub-dir", metavar="DIR",
                    help="where the jail* stubs and aijail-status are (default: beside "
                         "this program)")
    ap.add_argument("--version", action="version", version="aijail-mcp " + __version__)
    o = ap.parse_args(argv)
    if o.config:
        o = ap.parse_args(_config_argv(ap, o.config) + list(argv))

    def bad(msg):
        ap.error(msg)

    roots = o.root or [os.getcwd()]
    o.roots = []
    for r in roots:
        try:
            fd = os.open(r, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as e:
            bad("--root %s: %s" % (r, e.strerror))
        st = os.fstat(fd)
        os.close(fd)
        o.roots.append((os.path.realpath(r), (st.st_dev, st.st_ino)))
    installed = _installed_stubs(o.stub_dir or bindir)
    if not installed:
        bad("no jail* stub beside %s; pass --stub-dir" % (o.stub_dir or bindir))
    if o.profile:
        o.profiles = {}
        for p in o.profile:
            if p not in installed:
                bad("--profile %s: no such stub in %s (there are: %s)"
                    % (p, o.stub_dir or bindir, " ".join(sorted(installed))))
            o.profiles[p] = installed[p]
    else:
        o.profiles = installed
    if o.default_profile is None:
        o.default_profile = "jail" if "jail" in o.profiles else sorted(o.profiles)[0]
    elif o.default_profile not in o.profiles:
        bad("--default-profile %s is not an allowed profile" % o.default_profile)
    if o.max_timeout <= 0 or o.max_output < 0 or o.max_concurrent < 1:
        bad("--max-timeout, --max-output and --max-concurrent must be positive")
    o.status_tool = os.path.join(o.stub_dir or bindir, "aijail-status")
    o.modes = {}
    if o.min_mode is None:
        # A request runs no weaker than worker: disposable, no GPU,
        # display or Docker socket.  A stub without that mode (a policy of
        # the person's own) is held at its own default, as before.
        o.min_mode = _DEFAULT_MIN_MODE
        o.min_mode_default = True
    else:
        o.min_mode_default = False
    if o.min_mode:
        # Every allowed stub must know the floor: otherwise it could not be
        # held there.
        for p in o.profiles:
            if o.min_mode not in modes_of(o, p) and o.min_mode_default:
                o.min_mode = None
                break
            if o.min_mode not in modes_of(o, p):
                bad("--min-mode %s: stub %s has no such mode (it has: %s)"
                    % (o.min_mode, p, " ".join(modes_of(o, p))))
    return o


_CONFIG_LISTS = ("root", "profile")
_CONFIG_FLAGS = ("allow_hosts", "allow_net", "allow_maps", "allow_docker", "allow_gpu",
                 "allow_display")
_CONFIG_VALUES = ("default_profile", "min_mode", "max_timeout", "max_output", "max_concurrent")


def _config_argv(ap, path):
    """The config file as options; a key it does not know is an error."""
    try:
        with open(path, "rb") as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        ap.error("--config %s: %s" % (path, e))
    if not isinstance(cfg, dict):
        ap.error("--config %s: not a JSON object" % path)
    out = []
    for k, v in cfg.items():
        opt = "--" + k.replace("_", "-")
        if k in _CONFIG_LISTS and isinstance(v, list) and all(isinstance(x, str) for x in v):
            for x in v:
                out += [opt, x]
        elif k in _CONFIG_FLAGS and isinstance(v, bool):
            if v:
                out.append(opt)
        elif k in _CONFIG_VALUES and isinstance(v, (str, int, float)) and not isinstance(v, bool):
            out += [opt, str(v)]
        else:
            ap.error("--config %s: key %r: unknown, or not of its type" % (path, k))
    return out


def modes_of(opts, profile):
    """The policy's modes, weakest first, as its --jail-help lists them."""
    if profile not in opts.modes:
        cp = subprocess.run([opts.profiles[profile], "--jail-help"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=_clean_env(), timeout=30)
        m = re.search(r"weakest first: ([^\n]*)", cp.stdout.decode("utf-8", "replace"))
        opts.modes[profile] = m.group(1).split() if m else ["normal"]
    return opts.modes[profile]


def _server_limits(opts, net):
    """The stub options that hold a run to what the server allows."""
    # A group of 'host' (the browser's) is lowered to the internet without
    # the host: only --allow-net and a request's "net" reach the host.
    out = ["--jail-net"] if net else ["--jail-net-max=public"]
    return out + ["--jail-no-" + t for t, _ in _TOGGLES if not getattr(opts, "allow_" + t)]


def _clean_env(mode=None):
    env = {"PATH": _PATH, "HOME": os.environ.get("HOME") or "/",
           "LANG": os.environ.get("LANG") or "C.UTF-8", "TERM": "dumb"}
    if mode:
        # The stub takes the strongest of its default, its triggers and
        # AIJAIL_MODE: the floor raises a weaker default, never lowers one.
        env["AIJAIL_MODE"] = mode
    return env


# --- checks of a request ---------------------------------------------------------------

def _is_str_list(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


# The server option that adds an argument to the schema, or that a value of
# it is checked against, for the message of a refusal.
_ARG_RULES = {"profile": "--profile", "net": "--allow-net", "ro_maps": "--allow-maps",
              "rw_maps": "--allow-maps"}


def _schema_error(schema, args):
    """Why args do not match a tool's inputSchema, or None.

    The subset of JSON Schema the tools' schemas use (type, properties,
    required, additionalProperties false, items, minItems, enum,
    exclusiveMinimum), so that a tool sees only the values its schema
    promises, and with numbers finite and exact (bools are not numbers).
    """
    props = schema.get("properties", {})
    for k in schema.get("required", ()):
        if k not in args:
            return "%s is required" % k
    for k, v in args.items():
        sub = props.get(k)
        if sub is None:
            rule = _ARG_RULES.get(k)
            return "argument %s is not accepted%s" % (_short(k), ": rule %s (off)" % rule
                                                      if rule else "")
        why = _value_error(sub, v)
        if why:
            rule = _ARG_RULES.get(k)
            return "%s %s%s" % (k, why, ": rule %s" % rule if rule and "enum" in sub else "")
    return None


def _value_error(s, v):
    t = s.get("type")
    if t == "string":
        if not isinstance(v, str):
            return "must be a string"
        if not _is_unicode(v):
            return "must be valid Unicode (it holds a lone surrogate)"
        if "enum" in s and v not in s["enum"]:
            return "%s is not one of: %s" % (_short(v), ", ".join(s["enum"]))
    elif t == "array":
        item = (s.get("items") or {}).get("type")
        if not isinstance(v, list):
            return "must be an array" + (" of %ss" % item if item else "")
        if len(v) < s.get("minItems", 0):
            return "must hold at least %d item(s)" % s["minItems"]
        for x in v:
            why = _value_error(s.get("items") or {}, x)
            if why:
                return "must be an array of %ss: an item %s" % (item, why)
    elif t in ("number", "integer"):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                (t == "integer" and not isinstance(v, int)):
            return "must be a%s %s" % ("n" if t == "integer" else "", t)
        if isinstance(v, float) and not math.isfinite(v) or abs(v) > _MAX_NUMBER:
            return "must be a finite number of at most 2^53"
        if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
            return "must be more than %g" % s["exclusiveMinimum"]
    elif t == "boolean":
        if not isinstance(v, bool):
            return "must be a boolean"
    elif t == "object":
        if not isinstance(v, dict):
            return "must be an object"
    return None


def _is_unicode(v):
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _short(v, n=100):
    """A client's value for a message: a string, cut short."""
    v = v if isinstance(v, str) else repr(v)
    return v if len(v) <= n else v[:n] + "..."


def _open_cwd(opts, cwd):
    """cwd opened once, checked to be at or below a root by identity; (fd, path)."""
    if cwd is None:
        path = opts.roots[0][0]
    elif not isinstance(cwd, str) or not cwd or "\0" in cwd:
        raise Refused("cwd must be a non-empty string")
    else:
        path = cwd if os.path.isabs(cwd) else os.path.join(opts.roots[0][0], cwd)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        raise Refused("cwd %s: %s" % (path, e.strerror))
    # Up from the opened directory through "..", by descriptor: a rename or
    # a symbolic link on the way cannot move the check elsewhere.
    try:
        inside = _below_root(opts, fd)
    except OSError as e:
        os.close(fd)
        raise Refused("cwd %s: its parents cannot be checked: %s" % (path, e.strerror))
    if inside:
        return fd, path
    os.close(fd)
    raise Refused("cwd %s is outside the roots this server allows (%s): rule --root"
                  % (path, ", ".join(r for r, _ in opts.roots)))


def _profile(opts, args):
    p = args.get("profile", opts.default_profile)
    if not isinstance(p, str):
        raise Refused("profile must be a string")
    if p not in opts.profiles:
        raise Refused("profile %s is not allowed here (allowed: %s): rule --profile"
                      % (p, ", ".join(sorted(opts.profiles))))
    return p


def _mode(opts, profile, args):
    m = args.get("mode")
    if m is None:
        return None
    if not isinstance(m, str):
        raise Refused("mode must be a string")
    modes = modes_of(opts, profile)
    if m not in modes:
        raise Refused("mode %s: %s has no such mode (it has: %s)" % (m, profile, " ".join(modes)))
    if opts.min_mode and modes.index(m) < modes.index(opts.min_mode):
        raise Refused("mode %s is weaker than %s, the weakest this server allows: rule --min-mode"
                      % (m, opts.min_mode))
    return m


# --- running the stub ---------------------------------------------------------------------

class Job:
    """One stub process: its process group is killed on cancel, timeout and exit."""

    def __init__(self):
        self.proc = None
        self.cancelled = False
        self.lock = threading.Lock()

    def kill(self):
        with self.lock:
            if self.proc is not None and self.proc.returncode is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass


def _start(job, argv, cwd_fd, env, with_stdin, pass_fds=()):
    with job.lock:
        if job.cancelled:
            return None
        # cwd through the descriptor opened and checked: the child changes
        # into it before any other file is closed.
        job.proc = subprocess.Popen(
            argv, cwd="/proc/self/fd/%d" % cwd_fd, env=env, start_new_session=True,
            stdin=subprocess.PIPE if with_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds)
    return job.proc


def _collect(job, proc, data, cap, deadline):
    """stdout and stderr, each kept to cap bytes (the rest read and dropped)."""
    killed = False
    try:
        out, err, otr, etr, killed = _pump(proc, data, cap, deadline, truncate=True, tick=1.0)
        if killed:
            job.kill()
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            job.kill()
            killed = True
            proc.wait()
    finally:
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
    return out, err, otr, etr, killed


def _refusals(path):
    """The refusal log summarized: each call and connection once, with a count."""
    calls, conns = {}, {}
    try:
        with open(path, "rb") as f:
            data = f.read(_LOG_CAP)
    except OSError:
        data = b""
    for line in data.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if not isinstance(r, dict):
            continue
        if r.get("kind") == "call":
            k = (r.get("name"), r.get("error"))
            e = calls.setdefault(k, {"name": r.get("name"), "nr": r.get("nr"),
                                     "errno": r.get("errno"), "error": r.get("error"),
                                     "count": 0})
            e["count"] += 1
        elif r.get("kind") in ("connection", "request"):
            k = (r.get("kind"), r.get("host"), r.get("port"), r.get("reason"))
            e = conns.setdefault(k, {"kind": r.get("kind"), "host": r.get("host"),
                                     "port": r.get("port"), "reason": r.get("reason"),
                                     "count": 0})
            e["count"] += 1
    return {"calls": list(calls.values()), "connections": list(conns.values())}


def _fatal_line(profile, stderr):
    lines = stderr.splitlines()
    ours = [l for l in lines if l.startswith(profile + ": fatal:") or
            l.startswith(profile + ": usage:")]
    return "\n".join(ours) or stderr.strip() or "the jail could not be built (exit 125)"


def _text(b):
    return b.decode("utf-8", "replace")


def _private_dir(opts):
    """A directory for the run's refusal log, outside every root.

    The stub refuses a log the jail could write to; a root is the jail's
    project, so the log never goes below one.  The usual temporary
    directory first, then others of the machine's.
    """
    tried = []
    for base in (None, "/dev/shm", os.environ.get("XDG_RUNTIME_DIR"), "/var/tmp"):
        if base is not None and not os.path.isdir(base):
            continue
        try:
            d = tempfile.mkdtemp(prefix="aijail-mcp.", dir=base)
        except OSError:
            continue
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if not _below_root(opts, fd):
                return d
        except OSError:
            pass  # unchecked: not used
        finally:
            os.close(fd)
        os.rmdir(d)
        tried.append(d)
    raise Refused("no temporary directory outside the roots for the refusal log (tried %s); "
                  "set TMPDIR elsewhere" % ", ".join(tried or ["none"]))


def _below_root(opts, fd):
    """Whether the directory open at fd is a root or below one (by identity)."""
    roots = {ident for _, ident in opts.roots}
    cur = os.dup(fd)
    try:
        while True:
            st = os.fstat(cur)
            if (st.st_dev, st.st_ino) in roots:
                return True
            # O_PATH: a parent the user may search but not read still counts.
            up = os.open("..", os.O_PATH | os.O_DIRECTORY, dir_fd=cur)
            ust = os.fstat(up)
            os.close(cur)
            cur = up
            if (ust.st_dev, ust.st_ino) == (st.st_dev, st.st_ino):
                return False
    finally:
        os.close(cur)


def run_command(opts, args, job):
    command = args.get("command")
    if not _is_str_list(command) or not command:
        raise Refused("command must be a non-empty array of strings")
    if any("\0" in a for a in command):
        raise Refused("command: an argument holds a NUL byte")
    for k in args:
        allowed = {"command", "cwd", "profile", "mode", "timeout", "stdin", "allow_hosts"}
        if opts.allow_net:
            allowed.add("net")
        if opts.allow_maps:
            allowed |= {"ro_maps", "rw_maps"}
        if k not in allowed:
            rule = {"net": "--allow-net", "ro_maps": "--allow-maps",
                    "rw_maps": "--allow-maps"}.get(k)
            raise Refused("argument %s is not accepted%s" %
                          (k, ": rule %s (off)" % rule if rule else ""))
    profile = _profile(opts, args)
    mode = _mode(opts, profile, args)
    timeout = args.get("timeout", opts.max_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise Refused("timeout must be a positive number of seconds")
    if timeout > opts.max_timeout:
        raise Refused("timeout %g is over %g seconds: rule --max-timeout"
                      % (timeout, opts.max_timeout))
    stdin = args.get("stdin")
    if stdin is not None and not isinstance(stdin, str):
        raise Refused("stdin must be a string")
    hosts = args.get("allow_hosts")
    if hosts is not None:
        if not _is_str_list(hosts):
            raise Refused("allow_hosts must be an array of strings")
        if hosts and not opts.allow_hosts:
            raise Refused("allow_hosts is not allowed by this server: rule --allow-hosts (off)")
        if any(not h or "\0" in h for h in hosts):
            raise Refused("allow_hosts: an empty host or one with a NUL byte")
    net = args.get("net", False)
    if not isinstance(net, bool):
        raise Refused("net must be a boolean")
    maps = []
    for key, opt in (("ro_maps", "--jail-ro="), ("rw_maps", "--jail-rw=")):
        v = args.get(key)
        if v is None:
            continue
        if not _is_str_list(v) or any(not p or "\0" in p for p in v):
            raise Refused("%s must be an array of non-empty strings" % key)
        maps += [opt + p for p in v]

    cwd_fd, cwd_path = _open_cwd(opts, args.get("cwd"))
    tmp = None
    # The stub's record of how the jail ended (jail(1)): what the command
    # cannot write, unlike its exit status and its stderr.
    rec_r, rec_w = os.pipe()
    try:
        tmp = _private_dir(opts)
        log = os.path.join(tmp, "refusals.jsonl")
        secs = max(1, math.ceil(timeout))
        # Refusals only: the allowed connections' lines would fill _LOG_CAP.
        argv = [opts.profiles[profile], "--jail-status-fd=%d" % rec_w,
                "--jail-log=" + log, "--jail-log-allowed=no", "--jail-timeout=%d" % secs]
        if mode:
            argv.append("--jail-mode=" + mode)
        argv += _server_limits(opts, net)
        argv += ["--jail-allow-host=" + h for h in hosts or ()]
        argv += maps
        argv.append("--")
        argv += command
        started = time.monotonic()
        proc = _start(job, argv, cwd_fd, _clean_env(opts.min_mode),
                      stdin is not None, (rec_w,))
        os.close(rec_w)
        rec_w = -1
        if proc is None:
            return None
        os.close(cwd_fd)
        cwd_fd = -1
        data = stdin.encode("utf-8") if stdin is not None else None
        out, err, otr, etr, killed = _collect(job, proc, data, opts.max_output,
                                              started + secs + _GRACE)
        elapsed = time.monotonic() - started
        rc = proc.returncode
        rec = _read_record(rec_r)
        rec_r = -1
        if job.cancelled:
            return None
        end = rec.get("end") if rec else None
        code = rc if rc >= 0 else 128 - rc
        if end == "exit" and isinstance(rec.get("code"), int):
            code = rec["code"]
        elif end == "signal" and isinstance(rec.get("signal"), int):
            code = 128 + rec["signal"]
        timed_out = killed or end == "timeout"
        res = {
            "exit_code": None if killed or end in (None, "unknown") else code,
            "stdout": _text(out), "stderr": _text(err),
            "stdout_truncated": otr, "stderr_truncated": etr,
            "timed_out": timed_out, "duration_ms": int(elapsed * 1000),
            "refusals": _refusals(log),
        }
        if end == "notbuilt":
            # The stub's own verdict: nothing ran.  The structured content
            # keeps the output schema's shape.
            return _tool_error("the jail could not be built (exit 125): " +
                               _fatal_line(profile, _text(err)), res)
        if not killed and end in (None, "unknown"):
            # Never guessed from the status, which the command shares.
            return _tool_error(
                "the jail ended without saying how (exit status %s, %s): whether the command "
                "ran and how it ended is not known; stderr: %s"
                % (rc, "no record" if rec is None else "the command %s" % (
                    "ran" if rec.get("ran") else "had not started"),
                   _text(err).strip()[-500:] or "empty"), res)
        return _tool_result(_render_run(res, profile, cwd_path), res)
    finally:
        for fd in (rec_r, rec_w):
            if fd >= 0:
                os.close(fd)
        if cwd_fd >= 0:
            os.close(cwd_fd)
        if tmp:
            for n in os.listdir(tmp):
                os.unlink(os.path.join(tmp, n))
            os.rmdir(tmp)


def _render_run(r, profile, cwd):
    head = "%s in %s: " % (profile, cwd)
    if r["timed_out"]:
        head += "timed out after %d ms" % r["duration_ms"]
    else:
        head += "exit %s after %d ms" % (r["exit_code"], r["duration_ms"])
    parts = [head]
    for name in ("stdout", "stderr"):
        if r[name]:
            parts.append("--- %s%s ---\n%s" % (name, " (truncated)" if r[name + "_truncated"]
                                               else "", r[name].rstrip("\n")))
    ref = r["refusals"]
    if ref["calls"] or ref["connections"]:
        items = ["%s (%s) x%d" % (c["name"], c["error"], c["count"]) for c in ref["calls"]]
        items += ["%s %s:%s (%s) x%d" % (c["kind"], c["host"], c["port"], c["reason"],
                                         c["count"]) for c in ref["connections"]]
        parts.append("refused by the jail: " + "; ".join(items))
    return "\n".join(parts)


def sandbox_status(opts, args, job):
    for k in args:
        if k not in ("cwd", "profile"):
            raise Refused("argument %s is not accepted" % k)
    profile = _profile(opts, args)
    cwd_fd, cwd_path = _open_cwd(opts, args.get("cwd"))
    try:
        if os.environ.get("AIJAIL"):
            return _status_inside(opts, cwd_fd)
        argv = [opts.profiles[profile], "--jail-explain=json"] + _server_limits(opts, False)
        proc = _start(job, argv, cwd_fd, _clean_env(opts.min_mode), False)
        if proc is None:
            return None
        out, err, _, _, killed = _collect(job, proc, None, 16 << 20,
                                          time.monotonic() + 60)
        if job.cancelled:
            return None
        try:
            doc = json.loads(out) if out.strip() else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            return _tool_error("%s could not explain (exit %s): %s"
                               % (profile, proc.returncode, _fatal_line(profile, _text(err))))
        return _tool_result(summarize(doc), doc)
    finally:
        os.close(cwd_fd)


def _status_inside(opts, cwd_fd):
    tool = opts.status_tool if os.access(opts.status_tool, os.X_OK) else "aijail-status"
    try:
        cp = subprocess.run([tool, "--json"], cwd="/proc/self/fd/%d" % cwd_fd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=60)
        doc = json.loads(cp.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        return _tool_error("this server runs inside a jail (AIJAIL is set), and aijail-status "
                           "--json could not tell what is in force: %s" % e)
    text = "this server runs inside a jail (AIJAIL=%s): aijail-status's view, measured " \
           "from inside:\n%s" % (os.environ.get("AIJAIL"), json.dumps(doc, indent=1)[:4000])
    return _tool_result(text, doc)


def summarize(d):
    """A few lines a person reads at a glance."""
    g = lambda o, *ks: _dig(o, ks)
    lines = ["%s (policy %s) in %s" % (g(d, "stub"), g(d, "policy"), g(d, "project"))]
    lines.append("mode: %s (%s%s)" % (g(d, "mode", "name"), g(d, "mode", "why"),
                                      " " + g(d, "mode", "by") if g(d, "mode", "by") else ""))
    lines.append("network: %s: %s" % (g(d, "network", "level"), g(d, "network", "meaning")))
    fb = g(d, "fallback", "runs")
    if fb:
        lines.append("jail: FALLBACK (no namespaces: %s); not in force: %s"
                     % (g(d, "namespaces", "why"),
                        "; ".join(g(d, "fallback", "not_in_force") or [])))
    else:
        lines.append("jail: full; namespaces: %s" % " ".join(g(d, "namespaces", "made") or []))
    ll = g(d, "landlock") or {}
    lines.append("Landlock: %s" % ("ABI %s, enforced%s" % (ll.get("applied_abi"),
                                                           ", scoped" if ll.get("scoped") else "")
                                   if ll.get("enforced") else "not enforced (%s, kernel ABI %s)"
                                   % (ll.get("level"), ll.get("kernel_abi"))))
    sc = g(d, "seccomp") or {}
    lines.append("seccomp: %d filter(s), %s instructions, %s, default %s"
                 % (len(sc.get("filters") or []), sc.get("instructions"), sc.get("list"),
                    sc.get("default")))
    found = g(d, "scan", "found") or []
    lines.append("secrets covered: %d%s" % (len(found), (": " + ", ".join(
        "%s %s" % (f.get("kind"), f.get("path")) for f in found[:8]) +
        (", ..." if len(found) > 8 else "")) if found else ""))
    b = g(d, "buildable") or {}
    lines.append("buildable: %s" % ("yes" if b.get("ok") else "no: " + "; ".join(
        "%s: %s" % (r.get("layer"), r.get("why")) for r in b.get("reasons") or [])))
    return "\n".join(lines)


def _dig(o, ks):
    for k in ks:
        if not isinstance(o, dict):
            return None
        o = o.get(k)
    return o


# --- the protocol ----------------------------------------------------------------------------

def _tool_result(text, structured):
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured,
            "isError": False}


def _tool_error(text, structured=None):
    r = {"content": [{"type": "text", "text": text}], "isError": True}
    if structured is not None:
        r["structuredContent"] = structured
    return r


# --- reading a message -------------------------------------------------------------------------

def read_lines(fd):
    """The lines of fd, without their newline, each read up to MAX_LINE bytes.

    A longer line comes as None, its bytes dropped as they arrive: nothing
    a client sends makes the server hold more than MAX_LINE of it.  The end
    of input ends the lines (a read error counts as one).
    """
    buf = bytearray()
    over = False
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            # A descriptor left non-blocking by whoever started the server.
            select.select([fd], [], [])
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            piece = chunk[pos:] if nl < 0 else chunk[pos:nl]
            if not over:
                if len(buf) + len(piece) > MAX_LINE:
                    over = True
                    buf.clear()
                else:
                    buf += piece
            if nl < 0:
                break
            pos = nl + 1
            yield None if over else bytes(buf)
            buf.clear()
            over = False
    if over:
        yield None
    elif buf:
        yield bytes(buf)


_NOT_SYNTAX = bytes(b for b in range(256) if b not in b'"[]{}')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_STEP = [0] * 256
_STEP[ord("[")] = 1
_STEP[ord("]")] = -1


def _too_deep(data):
    """Whether the arrays and objects of a JSON text nest past MAX_DEPTH,
    told without parsing it (json.loads recurses once a level).

    Escaped backslashes out, then escaped quotes: every quote left opens or
    closes a string.  Then only quotes and brackets kept, the strings cut
    out (brackets in them are text) and objects counted as arrays.  Each
    step is a pass in C; a text that is not JSON may count wrong, and is
    refused either way (json.loads stops at the first byte it cannot take).
    """
    s = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_SYNTAX)
    s = b"".join(s.split(b'"')[::2]).translate(_SQUARE)
    # Every innermost array is [] now: one pass takes exactly one level off
    # (and most of the brackets of a wide text).
    s = s.replace(b"[]", b"")
    if b"[" * MAX_DEPTH in s:
        return True
    return max(itertools.accumulate(map(_STEP.__getitem__, s)), default=0) > MAX_DEPTH - 1


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _int(text):
    # An integer this long is no id, timeout or version: refused before
    # int() (quadratic in its digits before Python 3.11 bounded it).
    if len(text) > _MAX_DIGITS:
        raise ValueError("an integer of %d digits" % len(text))
    return int(text)


def parse(data):
    """(message, duplicates): data decoded as UTF-8 and parsed, bounded.

    duplicates lists (object, its keys named twice) for each object that
    named a key twice, innermost first (the message itself is last).
    Raises ValueError with a reason.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("not UTF-8 (byte %d)" % e.start)
    if _too_deep(data):
        raise ValueError("nested deeper than %d" % MAX_DEPTH)
    dups = []

    def pairs(kv):
        d = dict(kv)
        if len(d) != len(kv):
            seen = set()
            dups.append((d, {k for k, _ in kv if k in seen or seen.add(k)}))
        return d
    msg = json.loads(text, object_pairs_hook=pairs, parse_constant=_no_constant,
                     parse_int=_int)
    return msg, dups


def valid_id(v):
    """A request id (and a progress token): a string or an integer, bounded."""
    if isinstance(v, str):
        return len(v) <= MAX_ID_CHARS
    return type(v) is int and -_ID_RANGE <= v < _ID_RANGE


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
