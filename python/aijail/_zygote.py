# _zygote.py: the program a Pool worker runs inside its jail.
#
# Not imported by the host: aijail.pool reads _zygote_state.py and this file
# and hands their text, as one program, to the jailed interpreter (python3 -c
# TEXT CONFIG), so the jail needs nothing of the package on its side; the
# snapshot and clean-up of the jail's state (BASE, STATE, libc, _restore,
# _ipc_clean, _attributes) are that file's.  Standard library only, Python 3.6 or newer.
#
# The zygote stays clean: it never holds a call's data in its memory (freed
# memory is not zeroed, so what it had parsed would reach every later fork).
# The call child is forked before its call and reads the request off the
# channel itself.  Once it says it is done (or has ended),
# the zygote sends what it wrote by sendfile(2) from the descriptors it
# kept; then it kills every process of the call, empties what the call
# could write and sends a second frame, "clean" or "retire", which the
# host waits for before the next call.
#
# Frames, both ways (aijail/pool.py's docstring): a 4-byte big-endian
# length, that many bytes of UTF-8 JSON, then the raw bytes it counts.

import atexit
import ctypes
import errno
import gc
import json
import os
import resource
import select
import signal
import stat
import struct
import sys
import time
import traceback
import types

CFG = json.loads(sys.argv[1])
SCRATCH = CFG["scratch"]
FILENAME, INPUT_NAME, OUTPUT_NAME = "handler.py", "input", "output"
CAP = CFG["output_cap"]
IN_CAP = CFG["request_cap"]
TIMEOUT = CFG["timeout"]
MEMORY = CFG["memory"]
PROCESSES = CFG["processes"]
FILE_SIZE = CFG["file_size"]

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
# The call child's own exits: the channel closed before a request came
# (the pool is closing), or a request it could not take.
EXIT_EOF, EXIT_BAD = 100, 125

def _read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# A handler of the common shape (its input file read and parsed, a result
# written, a line printed), run once by the zygote at start, with nothing
# of any call, in a namespace thrown away after it: what CPython builds on
# first use (the compiler's AST types: a first compile() takes 1.4 to 2 ms
# here, the next 0.05) is then built before the fork, once, and not in
# every call's child.  (The child running it again before its request, to
# take its copy-on-write faults off the call's clock, was measured too:
# the call's median was the same and its p99 worse, since the worker's
# turn between calls grew by as much.)
WARM = (
    "import sys, json\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    v = json.loads(f.read())\n"
    "r = {'n': v, 's': str(v), 'k': sorted(v)}\n"
    "with open(sys.argv[2], 'w') as f:\n"
    "    f.write(json.dumps(r))\n"
    "print(len(r))\n"
)


def _warm():
    """The call's paths taken once with nothing of the call (see WARM)."""
    argv = sys.argv
    try:
        json.loads(b'{"source": 0, "input": 0}'.decode())
        struct.unpack(">I", b"\0\0\0\0")
        for name, blob in ((FILENAME, WARM.encode("utf-8")), (INPUT_NAME, b'{"a": [1, 2]}')):
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            try:
                _write_all(fd, blob)
            finally:
                os.close(fd)
        main = types.ModuleType("__main__")
        main.__builtins__ = __builtins__
        sys.argv = [FILENAME, INPUT_NAME, OUTPUT_NAME]
        exec(compile(WARM, FILENAME, "exec"), main.__dict__)
        sys.stdout.flush()  # fd 1 is /dev/null until the call's own is set
    except BaseException:
        pass
    finally:
        sys.argv = argv
        for name in (FILENAME, INPUT_NAME, OUTPUT_NAME):
            try:
                os.unlink(name)
            except OSError:
                pass


def _call(rfd, wfd, ack_w, meta_fd, out_fd, err_fd, dfd):
    """The call child, forked before its call: reads the request, runs it, exits."""
    try:
        os.fchdir(dfd)
        os.close(dfd)
    except OSError:
        os._exit(EXIT_BAD)
    try:
        head = _read_exact(rfd, 4)
    except EOFError:
        os._exit(EXIT_EOF)
    try:
        (n,) = struct.unpack(">I", head)
        if n > 65536:
            os._exit(EXIT_BAD)
        req = json.loads(_read_exact(rfd, n).decode())
        slen, ilen = int(req["source"]), int(req["input"])
        if not (0 <= slen <= IN_CAP and 0 <= ilen <= IN_CAP):
            os._exit(EXIT_BAD)
        source = _read_exact(rfd, slen).decode("utf-8")
        data = _read_exact(rfd, ilen)
        os.write(ack_w, b"1")
        # The channel, and the zygote's /proc files it reads itself by.
        for fd in (rfd, wfd, *_PROC.values()):
            os.close(fd)
        # os.open, not open(): no io objects, fewer pages of the zygote's
        # heap touched (each one a copy in this child)
        for name, blob in ((FILENAME, source.encode("utf-8")), (INPUT_NAME, data)):
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            try:
                _write_all(fd, blob)
            finally:
                os.close(fd)
        del data, blob
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.close(out_fd)
        os.close(err_fd)
        for res, v in ((resource.RLIMIT_AS, MEMORY), (resource.RLIMIT_NPROC, PROCESSES),
                       (resource.RLIMIT_FSIZE, FILE_SIZE)):
            if v:
                resource.setrlimit(res, (v, v))
        # Set up: from here on an exit 125 is the handler's own (sys.exit(125)),
        # not EXIT_BAD, which _report would call a call not set up.
        os.pwrite(meta_fd, b"r", 2)
    except BaseException:
        os._exit(EXIT_BAD)
    main = types.ModuleType("__main__")
    main.__file__ = os.path.join(SCRATCH, FILENAME)
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv = [FILENAME, INPUT_NAME, OUTPUT_NAME]
    sys.path[0] = SCRATCH
    kind = b"-"
    rc = 1
    try:
        exec(compile(source, FILENAME, "exec"), main.__dict__)
        rc = 0
    except SystemExit as e:
        c = e.code
        if c is None:
            rc = 0
        elif isinstance(c, int):
            rc = c & 0xFF
        else:
            try:
                print(c, file=sys.stderr)
            except BaseException:
                pass
            rc = 1
    except BaseException as e:
        if isinstance(e, MemoryError):
            kind = b"m"
        elif isinstance(e, BlockingIOError) and e.errno == errno.EAGAIN:
            kind = b"p"
        try:
            # As the interpreter prints it: from the handler's frame on.
            traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        except BaseException:
            pass
        rc = 1
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        pass
    # As the interpreter's own exit does: the handler's names dropped and
    # collected, so a file it left open at module level is flushed and
    # closed (os._exit would lose what it buffered).
    try:
        main.__dict__.clear()
        gc.collect()
    except BaseException:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except BaseException:
            pass
    # Done: the kind and the exit status, then the second byte on the ack
    # pipe.  The zygote answers on it without waiting for this process's
    # teardown; it still kills and reaps every process of the call before
    # it cleans the jail and forks the next call's child.
    try:
        os.pwrite(meta_fd, kind + bytes([rc & 0xFF]), 0)
        os.write(ack_w, b"2")
    except OSError:
        pass
    os._exit(rc)


DONE = "done"


def _wait(pid, timeout, can_pidfd, ack_r):
    """The child's wait status, DONE once it said it finished (the ack
    pipe's second byte), or None when it overran timeout."""
    deadline = time.monotonic() + timeout if timeout else None
    pfd = None
    if can_pidfd:
        try:
            pfd = os.pidfd_open(pid)
        except OSError:
            pfd = None
    p = select.poll()
    p.register(ack_r, select.POLLIN)
    if pfd is not None:
        p.register(pfd, select.POLLIN)
    try:
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                return status
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            if pfd is None:
                # No pidfd (before Linux 5.3): the exit is polled for.
                left = 0.0005 if left is None else min(0.0005, left)
            for fd, _ in p.poll(None if left is None else max(1, int(left * 1000) + 1)):
                if fd == ack_r:
                    if os.read(ack_r, 1) == b"2":
                        return DONE
                    # End of file or anything else: the exit decides.
                    p.unregister(ack_r)
    finally:
        if pfd is not None:
            os.close(pfd)


def _kill_all():
    """Every process of the jail but pid 1 and this one, dead and reaped.

    kill(-1) from inside the jail's pid namespace reaches every process but
    its init and the caller; the zygote is their subreaper, so each one is
    reaped here and the loop ends when none is left."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        while True:
            try:
                if not os.waitpid(-1, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                return


def _send_file(wfd, fd, n):
    """n bytes of fd from offset 0 into the channel, by the kernel: the
    zygote never holds what a call wrote."""
    off = 0
    while off < n:
        k = os.sendfile(wfd, fd, off, n - off)
        if k <= 0:
            # Truncated since its size was taken (a process the call left,
            # before it was killed): zeros keep the frame whole.
            while off < n:
                k = min(n - off, 1 << 16)
                _write_all(wfd, bytes(k))
                off += k
            return
        off += k


def _report(wfd, status, timed_out, meta_fd, out_fd, err_fd, dfd):
    """The result frame: a header, then stdout, stderr and the output file."""
    meta = os.pread(meta_fd, 3, 0)
    ran = meta[2:3] == b"r"
    if status is DONE:
        rc = meta[1] if len(meta) >= 2 else EXIT_BAD
    elif os.WIFSIGNALED(status):
        rc = 128 + os.WTERMSIG(status)
    else:
        rc = os.WEXITSTATUS(status)
    kind = {b"m": "memory", b"p": "processes"}.get(meta[:1])
    if timed_out:
        kind = "timeout"
    elif rc == EXIT_BAD and kind is None and not ran:
        kind = "setup"
    sizes = {}
    over = None
    for name, fd in (("stdout", out_fd), ("stderr", err_fd)):
        n = os.fstat(fd).st_size
        if n > CAP:
            over = over or name
            n = 0
        sizes[name] = n
    ofd = None
    try:
        ofd = os.open(OUTPUT_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                      dir_fd=dfd)
        if not stat.S_ISREG(os.fstat(ofd).st_mode):
            os.close(ofd)
            ofd = None
    except OSError:
        pass
    sizes["output"] = None
    if ofd is not None:
        n = os.fstat(ofd).st_size
        if n > CAP:
            over = over or "output"
        else:
            sizes["output"] = n
    head = {"returncode": rc, "limit": kind or (over and "output:" + over)}
    head.update(sizes)
    _send_frame(wfd, head)
    _send_file(wfd, out_fd, sizes["stdout"])
    _send_file(wfd, err_fd, sizes["stderr"])
    if sizes["output"] is not None:
        _send_file(wfd, ofd, sizes["output"])
    if ofd is not None:
        os.close(ofd)


def _clean(dfd):
    """After the result: the jail as it was; None, or why it cannot be (the
    zygote then retires)."""
    try:
        os.fchmod(dfd, 0o700)
        _wipe_at(dfd)
        os.rmdir(SCRATCH)
        _ipc_clean()
        if not _restore():
            return "what the call left could not be removed"
    except OSError as e:
        return "what the call left could not be removed: %s" % e
    try:
        now = _attributes()
    except OSError as e:
        return "the zygote's attributes could not be read: %s" % e
    changed = [k for k in STATE if now.get(k) != STATE[k]]
    if changed:
        return "the call changed the zygote's " + ", ".join(changed)
    return None


def _send_frame(wfd, head):
    frame = json.dumps(head).encode()
    _write_all(wfd, struct.pack(">I", len(frame)) + frame)


def main():
    # The channel moves off 0 and 1, which become /dev/null: a call's
    # stdout is a file of its own, and nothing but frames crosses.
    # kill(-1) is safe only where every process but pid 1 is a call's: a
    # zygote run anywhere else would kill all of its user's processes.
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    if others or os.getppid() != 1:
        sys.stderr.write("aijail pool: the zygote runs only as the sole process under a "
                         "jail's pid 1 (found %d others, parent %d)\n" % (len(others), os.getppid()))
        sys.exit(3)
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    for fd in (rfd, wfd):
        os.set_inheritable(fd, False)
    # Not dumpable: no call opens /proc/<zygote>/fd/* (the channel) or
    # its memory; its subreaper, so every orphan of a call is reaped here.
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) or libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
        sys.stderr.write("aijail pool: prctl failed: errno %d\n" % ctypes.get_errno())
        sys.exit(3)
    for m in CFG.get("preload", ()):
        __import__(m)
    os.makedirs(os.path.dirname(SCRATCH), exist_ok=True)
    # The warm-up once here too: what CPython builds on first use (the
    # compiler's AST types, 1.4 to 2 ms on a first compile()) is then
    # built once, in the zygote, and every child inherits it.
    os.mkdir(SCRATCH, 0o700)
    here = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.chdir(SCRATCH)
        _warm()
    finally:
        os.fchdir(here)
        os.close(here)
    os.rmdir(SCRATCH)
    _baseline("/")
    _baseline(os.getcwd())
    # Every object so far outside the collector's reach: a child's
    # collection would otherwise touch, and so copy, every page of them.
    gc.collect()
    gc.freeze()
    # A zygote that cannot see what a call may change of it does not start.
    if _NR is None:
        sys.stderr.write("aijail pool: the zygote cannot read its scheduling attributes on %s "
                         "(no system call numbers for it; x86_64 and aarch64 only)\n"
                         % os.uname().machine)
        sys.exit(3)
    for name in _PROC_FILES:
        try:
            _PROC[name] = os.open("/proc/self/" + name, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            # Not in this kernel (autogroup without CONFIG_SCHED_AUTOGROUP):
            # nothing a call could change either.
            pass
    for name in ("limits", "oom_score_adj", "cgroup"):
        if name not in _PROC:
            sys.stderr.write("aijail pool: the zygote cannot read /proc/self/%s\n" % name)
            sys.exit(3)
    try:
        STATE.update(_attributes())
    except OSError as e:
        sys.stderr.write("aijail pool: the zygote cannot read its own attributes: %s\n" % e)
        sys.exit(3)
    # The jail's identity for the host (aijail.dask's results): its user
    # namespace, said before any call's code has run here.
    try:
        ns = os.readlink("/proc/self/ns/user")
    except OSError:
        ns = None
    _send_frame(wfd, {"ready": True, "pid": os.getpid(), "dirs": sorted(BASE), "ns": ns})
    can_pidfd = hasattr(os, "pidfd_open")
    while True:
        # The next call's child is forked now, from a zygote every process
        # of the last call is gone from, and waits on the channel itself.
        os.mkdir(SCRATCH, 0o700)
        dfd = os.open(SCRATCH, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        out_fd = os.memfd_create("stdout")
        err_fd = os.memfd_create("stderr")
        meta_fd = os.memfd_create("meta")
        ack_r, ack_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ack_r)
            _call(rfd, wfd, ack_w, meta_fd, out_fd, err_fd, dfd)
        os.close(ack_w)
        # Started (the ack) or gone before it.
        acked = os.read(ack_r, 1) == b"1"
        if not acked:
            _, status = os.waitpid(pid, 0)
            _kill_all()
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == EXIT_EOF:
                os._exit(0)
            # A request broken or half read: the channel is out of step.
            os._exit(6)
        status = _wait(pid, TIMEOUT, can_pidfd, ack_r)
        os.close(ack_r)
        timed_out = status is None
        if timed_out:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        if status is not DONE:
            _kill_all()
        # The result as soon as nothing of the call runs; the cleaning
        # after it, while the host goes on.  The host reads this second
        # frame before it gives the worker another call, so no call ever
        # starts in a jail not yet put back.
        _report(wfd, status, timed_out, meta_fd, out_fd, err_fd, dfd)
        _kill_all()
        why = _clean(dfd)
        for fd in (dfd, out_fd, err_fd, meta_fd):
            os.close(fd)
        # A zygote that is not what it was retires; the host starts another.
        _send_frame(wfd, {"retire": why} if why else {"clean": True})
        if why:
            os._exit(8)

if __name__ == "__main__":
    main()
