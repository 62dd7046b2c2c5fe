"""What a jail wrote, read back within bounds: the pipes of a stub run
(_pump, _run_capped) and the caps they take.  Part of aijail: the package
defines its exceptions first, then imports these.
"""

import locale
import os
import selectors
import subprocess
import time

from . import OutputLimitExceeded, _CHUNK


def _check_cap(cap):
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
        raise ValueError("output_cap must be a non-negative number of bytes, not %r" % (cap,))
    return cap


def _decode(data):
    """As subprocess decodes with universal_newlines=True."""
    enc = locale.getpreferredencoding(False)
    return data.decode(enc).replace("\r\n", "\n").replace("\r", "\n")


def _kill(proc):
    # The stub's pid 1 dies with it (PR_SET_PDEATHSIG), and with pid 1
    # everything in the jail.
    try:
        proc.kill()
    except OSError:
        pass
    proc.wait()


def _pump(proc, data, cap, deadline, *, truncate=False, names=None, cmd=None, tick=None):
    """Feed data (bytes or None) to proc's stdin; read its stdout and stderr.

    Each stream is kept to at most cap bytes.  Past it: with truncate, the
    rest is read and dropped (the stream's over flag is set); without, at
    most cap+1 bytes were read and OutputLimitExceeded is raised at once,
    naming the stream from names (stdout's, stderr's).  deadline is a
    time.monotonic() value or None; past it the pump returns with timed_out
    set and the caller stops the process.  tick bounds each wait (seconds).
    Returns (stdout, stderr, stdout_over, stderr_over, timed_out).  The
    caller closes the pipes.
    """
    ofd, efd = proc.stdout.fileno(), proc.stderr.fileno()
    bufs = {ofd: bytearray(), efd: bytearray()}
    over = {ofd: False, efd: False}
    names = dict(zip((ofd, efd), names or ("stdout", "stderr")))
    pending = memoryview(bytes(data)) if data is not None else None
    timed_out = False
    sel = selectors.DefaultSelector()
    try:
        for fd in bufs:
            sel.register(fd, selectors.EVENT_READ)
        if pending is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            if len(pending):
                sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        while sel.get_map():
            left = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
            if tick is not None:
                left = tick if left is None else min(left, tick)
            for key, _ in sel.select(left):
                fd = key.fd
                if fd in bufs:
                    buf = bufs[fd]
                    want = _CHUNK if truncate else min(_CHUNK, cap + 1 - len(buf))
                    chunk = os.read(fd, want)
                    if not chunk:
                        sel.unregister(fd)
                        continue
                    room = cap - len(buf)
                    if len(chunk) > room:
                        if not truncate:
                            raise OutputLimitExceeded(names[fd], cap, cmd)
                        over[fd] = True
                        chunk = chunk[:max(room, 0)]
                    buf += chunk
                else:
                    try:
                        n = os.write(fd, pending[:_CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        n = len(pending)
                    pending = pending[n:]
                    if not len(pending):
                        sel.unregister(fd)
                        proc.stdin.close()
    finally:
        sel.close()
    return bytes(bufs[ofd]), bytes(bufs[efd]), over[ofd], over[efd], timed_out


def _run_capped(argv, cmd, cwd, env, input, timeout, text, cap, pass_fds=()):
    """argv run with stdout and stderr piped, each read to at most cap+1 bytes.

    Returns (returncode, stdout, stderr); raises OutputLimitExceeded over
    the cap, subprocess.TimeoutExpired past timeout (seconds, or None).
    """
    if input is not None and text and isinstance(input, str):
        input = input.encode(locale.getpreferredencoding(False))
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        pass_fds=pass_fds,
    )
    deadline = time.monotonic() + timeout if timeout else None
    try:
        out, err, _, _, timed_out = _pump(
            proc, input, cap, deadline, cmd=cmd,
            names=("the jailed command's stdout", "the jailed command's stderr"))
        try:
            if timed_out:
                raise subprocess.TimeoutExpired(argv, timeout)
            proc.wait(None if deadline is None else max(0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(proc)
            if text:
                out, err = _decode(out), _decode(err)
            raise subprocess.TimeoutExpired(argv, timeout, out, err) from None
    except subprocess.TimeoutExpired:
        raise
    except BaseException:
        _kill(proc)
        raise
    finally:
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    if text:
        out, err = _decode(out), _decode(err)
    return proc.returncode, out, err
