"""aijail-mcp's tools: running the stub for run_command, and sandbox_status
(the stub's --jail-explain=json, or aijail-status inside a jail), each
rendered as a tool result.  Part of aijail.mcp, which re-exports these
names; standard library only.
"""

import json
import math
import os
import signal
import subprocess
import tempfile
import threading
import time

from . import _pump, _read_record
from ._mcp_options import (
    Refused,
    _below_root,
    _clean_env,
    _is_str_list,
    _mode,
    _open_cwd,
    _profile,
    _server_limits)
from ._mcp_json import _tool_error, _tool_result

EXIT_TIMEOUT = 124
EXIT_SETUP = 125


# Past the jail's own timeout, how long the server waits before it kills
# the stub's process group itself.
_GRACE = 5
# The refusal log is the jail's to fill; the server reads at most this much.
_LOG_CAP = 1 << 20
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
        if opts.secrets:
            allowed.add("secrets")
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
    keys = args.get("secrets") or []
    if not _is_str_list(keys) or any(k not in opts.secrets for k in keys):
        raise Refused("secrets must be an array of the names this server binds (rule "
                      "--secret: %s)" % (" ".join(sorted(opts.secrets)) or "none"))
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
        env = _clean_env(opts.min_mode)
        for k in dict.fromkeys(keys):
            argv += ["--jail-allow-host=" + h for h in opts.secrets[k]]
            argv.append("--jail-secret=%s=%s" % (k, ",".join(opts.secrets[k])))
            env[k] = os.environ[k]  # the stub's alone: the jail gets a placeholder
        argv += maps
        argv.append("--")
        argv += command
        started = time.monotonic()
        proc = _start(job, argv, cwd_fd, env, stdin is not None, (rec_w,))
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
