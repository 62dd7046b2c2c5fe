"""aijail-mcp's options and the checks of a request: the tools' schemas,
the server's command line and configuration file, and what a request may
ask for (profile, mode, cwd below a root).  Part of aijail.mcp, which
re-exports these names; standard library only.
"""

import argparse
import json
import math
import os
import re
import subprocess

from ._mcp_json import _MAX_NUMBER

__version__ = "0.1"
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
    if opts.secrets:
        props["secrets"] = {
            "type": "array", "items": {"type": "string", "enum": sorted(opts.secrets)},
            "description": "keys the command may use, by name (--jail-secret): it sees a "
                           "placeholder, and the server's own value is added only on https "
                           "requests to the key's hosts (docs/keys.md)"}
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
    ap.add_argument("--secret", action="append", default=[], metavar="NAME=HOST[:PORT][,...]",
                    help="a key requests may bind by name (repeatable): this server's "
                         "variable NAME, added only on https requests to the HOSTs "
                         "(--jail-secret); a request names keys, never values")
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
    o.secrets = {}
    for spec in o.secret:
        name, _, hosts = spec.partition("=")
        hl = hosts.split(",") if hosts else []
        if not name.isidentifier() or not name.isascii() or not hl or not all(hl):
            bad("--secret %s: NAME=HOST[:PORT][,HOST[:PORT]...] is needed" % spec)
        if name not in os.environ:
            bad("--secret %s: %s is not set in this server's environment" % (spec, name))
        o.secrets[name] = hl
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


_CONFIG_LISTS = ("root", "profile", "secret")
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
