#!/usr/bin/env python3
"""tui.py: drives an agent's full-screen interface on a terminal of its own
(a pty this script owns, the command's controlling terminal), step by step,
each step waiting for what the agent draws, not for a time.

    tui.py OUT PASTE -- COMMAND...

1. draw: at 30x100, until it turned bracketed paste on (ESC [?2004h) and
   drew its input box (a rule of '─'); a folder-trust question on the way
   is answered with Enter (its default: trust).
2. resize: TIOCSWINSZ to 40x140 (the kernel signals the foreground group,
   the jail relays the size inward), until it draws a rule longer than 100
   columns allow.
3. paste: PASTE inside ESC [200~ ... ESC [201~, until PASTE is drawn.
4. turn: Enter sends the pasted prompt, until the stand-in's final
   answer (STANDIN-FINAL-ANSWER) is drawn; its shell command on the way
   wrote to the terminal itself (/dev/tty), for the filter to judge.
5. quit: ^C, and another as soon as it asks for one, until it exits.
Every byte the terminal got goes to OUT.  Prints one line per step,
"STEP ok" or "STEP FAIL why"; a step waits at most WAIT seconds
(environment AIJAIL_TUI_WAIT, 90 by default) for a program that never
draws, a bound on the test's run time, not a measurement.
"""
import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import time

out_path, paste = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
wait = float(os.environ.get("AIJAIL_TUI_WAIT", "90"))
seen = bytearray()


def winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


master, slave = os.openpty()
winsize(slave, 30, 100)
pid = os.fork()
if pid == 0:
    os.close(master)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    if slave > 2:
        os.close(slave)
    os.execvp(cmd[0], cmd)
os.close(slave)
out = open(out_path, "wb")
status = [None]


def pump(timeout):
    r, _, _ = select.select([master], [], [], timeout)
    if r:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if data:
            seen.extend(data)
            out.write(data)
            out.flush()
            return True
    if status[0] is None:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            status[0] = st
    return False


def until(test, since=0):
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if test(bytes(seen[since:])):
            return True
        if status[0] is not None and not pump(0.2):
            return test(bytes(seen[since:]))
        pump(0.5)
    return False


def report(step, ok, why):
    print("%s %s" % (step, "ok" if ok else "FAIL " + why), flush=True)
    if not ok:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.exit(1)


RULE = "─".encode()
trusted = [False]


def drawn(b):
    return b"\x1b[?2004h" in b and RULE * 40 in b


def first(b):
    # The folder-trust question comes before the input box.
    if not trusted[0] and re.search(rb"(?i)do you trust|trust (the files|this folder)", b):
        trusted[0] = True
        os.write(master, b"\r")
    return drawn(b) and (not trusted[0] or b.rfind(b"\x1b[?2004h") > 0)


report("draw", until(first), "no input box and no bracketed paste at 30x100")
mark = len(seen)
winsize(master, 40, 140)
report("resize", until(lambda b: RULE * 110 in b, mark),
       "no rule wider than 100 columns after the resize to 40x140")
mark = len(seen)
os.write(master, b"\x1b[200~" + paste.encode() + b"\x1b[201~")
report("paste", until(lambda b: paste.encode() in b, mark), "the pasted text was not drawn")
mark = len(seen)
os.write(master, b"\r")
report("turn", until(lambda b: b"STANDIN-FINAL-ANSWER" in b, mark),
       "the answer to the pasted prompt was not drawn")
# ^C clears the input and asks for another, which quits if it comes at
# once: sent as soon as the question is drawn.
for _ in range(4):
    if status[0] is not None:
        break
    mark = len(seen)
    os.write(master, b"\x03")
    if until(lambda b: b"again to exit" in b or status[0] is not None, mark):
        os.write(master, b"\x03")
        until(lambda b: status[0] is not None, len(seen))
report("quit", status[0] is not None, "still running after ^C")
