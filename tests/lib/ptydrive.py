#!/usr/bin/env python3
"""ptydrive.py: runs a command on a terminal of its own, as a person's shell
would (a new session, the pty's slave its controlling terminal and its
stdin, stdout and stderr), and records what reaches the terminal.

Usage: ptydrive.py OUT [--size ROWSxCOLS] [--resize ROWSxCOLS@SECONDS]
                   [--send TEXT@SECONDS] [--stdin-null] -- COMMAND...
Writes every byte the terminal got to OUT, then prints one line:
  rc=N termios=same|changed stopped=no|yes-termios-same|yes-termios-changed
termios compares the terminal's mode after the command with before it
(what a shell would find when it reads its next line). TEXT takes
Python escapes (\\x03 for ^C). The command runs as a job-control shell runs
it (a process group of its own, in the foreground); stopped=yes-…: it
stopped (^Z), with the terminal's mode then, and was resumed as fg does.
"""
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time


def shell(cmd, tty, stopped_path):
    """A job-control shell's part: the command in a process group of its
    own, in the terminal's foreground; when it stops (^Z), the shell takes
    the terminal back, notes it, and resumes it as fg would."""
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    mode = termios.tcgetattr(tty)
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)
        os.tcsetpgrp(tty, os.getpgrp())  # SIGTTOU still ignored here
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execvp(cmd[0], cmd)
    # As a shell does, both sides set the job's group: whichever runs
    # first wins, and the parent's call fails with EACCES once the child
    # has exec'd (a race a faster interpreter loses more often).
    try:
        os.setpgid(job, job)
    except (PermissionError, ProcessLookupError):
        pass
    try:
        os.tcsetpgrp(tty, job)
    except OSError:
        pass
    while True:
        _, st = os.waitpid(job, os.WUNTRACED)
        if os.WIFSTOPPED(st):
            os.tcsetpgrp(tty, os.getpgrp())
            with open(stopped_path, "a") as f:
                f.write("same" if termios.tcgetattr(tty) == mode else "changed")
            time.sleep(0.5)
            os.tcsetpgrp(tty, job)
            os.killpg(job, signal.SIGCONT)
            continue
        rc = os.waitstatus_to_exitcode(st)
        os._exit(128 - rc if rc < 0 else rc)


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    opts, cmd = argv[:sep], argv[sep + 1:]
    out_path = opts.pop(0)
    if os.path.exists(out_path + ".stopped"):
        os.unlink(out_path + ".stopped")
    size, events, stdin_null = (24, 80), [], False
    while opts:
        o = opts.pop(0)
        if o == "--size":
            r, c = opts.pop(0).split("x")
            size = (int(r), int(c))
        elif o == "--resize":
            rc, at = opts.pop(0).split("@")
            r, c = rc.split("x")
            events.append((float(at), "resize", (int(r), int(c))))
        elif o == "--send":
            text, at = opts.pop(0).rsplit("@", 1)
            events.append((float(at), "send", text.encode().decode("unicode_escape").encode("latin-1")))
        elif o == "--stdin-null":
            stdin_null = True
        else:
            sys.exit("ptydrive: unknown option " + o)
    events.sort(key=lambda e: e[0])
    master, slave = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    before = termios.tcgetattr(slave)
    # {RDEV} in the command: the terminal's device number, for a check
    # from inside that none of the jail's descriptors is this terminal.
    cmd = [a.replace("{RDEV}", str(os.fstat(slave).st_rdev)) for a in cmd]
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.dup2(os.open("/dev/null", os.O_RDONLY) if stdin_null else slave, 0)
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        shell(cmd, slave, out_path + ".stopped")
    got = bytearray()
    start = time.monotonic()
    status = None
    deadline = start + float(os.environ.get("PTYDRIVE_TIMEOUT", "60"))
    while True:
        now = time.monotonic()
        while events and now - start >= events[0][0]:
            _, kind, arg = events.pop(0)
            if kind == "resize":
                fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", arg[0], arg[1], 0, 0))
                # The terminal emulator's part: the foreground group hears it.
                try:
                    os.killpg(os.tcgetpgrp(master), signal.SIGWINCH)
                except OSError:
                    pass
            else:
                os.write(master, arg)
        if status is None:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p == pid:
                status = st
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                b = os.read(master, 65536)
            except OSError:
                b = b""
            got += b
            if not b and status is not None:
                break
        elif status is not None:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            print("rc=timeout termios=?")
            sys.exit(1)
    after = termios.tcgetattr(slave)
    with open(out_path, "wb") as f:
        f.write(got)
    rc = os.waitstatus_to_exitcode(status)
    stopped = "no"
    if os.path.exists(out_path + ".stopped"):
        with open(out_path + ".stopped") as f:
            stopped = "yes-termios-" + f.read()
    print("rc=%d termios=%s stopped=%s" % (rc, "same" if after == before else "changed", stopped))


main()
