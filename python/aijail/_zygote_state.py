# _zygote_state.py: the state a Pool worker's zygote keeps and puts back,
# the first half of the program it runs inside its jail (_zygote.py is the
# second; aijail.pool hands the jailed interpreter both texts, this one
# first, as one program: python3 -c TEXT CONFIG).  Standard library only,
# Python 3.6 or newer; it defines, and runs nothing but its constants.
#
# After each call the zygote empties what the call could write (the
# baseline of every writable directory, _baseline/_restore), removes the
# call's SysV IPC objects, and reads its own attributes to see whether a
# call changed them from outside (_attributes).

import ctypes
import errno
import os
import stat

libc = ctypes.CDLL(None, use_errno=True)
IPC_RMID = 0

# What each call may change, and the state it must find: every directory
# this jail can write (its root tmpfs and the project), with its entries,
# mode and extended attributes at start.  Anything new is removed after a
# call; a mode is put back; anything of this baseline gone or replaced
# retires the worker (the host starts a fresh jail).
BASE = {}
# The zygote's own attributes after its warm-up (_attributes()), which
# every call's child inherits and a call may change from outside it.
STATE = {}


def _xattrs(where):
    """The extended attributes of a directory (a path, not followed, or an fd)."""
    kw = {} if isinstance(where, int) else {"follow_symlinks": False}
    try:
        return {n: os.getxattr(where, n, **kw) for n in os.listxattr(where, **kw)}
    except OSError:
        return {}


def _entry(e):
    """An entry's identity as getdents gives it (no stat): inode and kind."""
    if e.is_symlink():
        return e.inode(), "l"
    return e.inode(), "d" if e.is_dir(follow_symlinks=False) else "o"


def _baseline(path):
    try:
        vfs = os.statvfs(path)
    except OSError:
        return
    if vfs.f_flag & os.ST_RDONLY or path in ("/proc", "/sys", "/dev/pts"):
        return
    st = os.lstat(path)
    if not os.access(path, os.W_OK):
        return
    with os.scandir(path) as it:
        ents = {e.name: _entry(e) for e in it}
    BASE[path] = (st.st_dev, st.st_ino, st.st_mode, ents, _xattrs(path))
    for name, (_, kind) in ents.items():
        if kind == "d":
            _baseline(os.path.join(path, name))


def _wipe_at(dfd):
    """Remove every entry of the directory open at dfd, whatever its modes."""
    for e in os.scandir(dfd):
        name = e.name
        if e.is_dir(follow_symlinks=False):
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
            except PermissionError:
                os.chmod(name, 0o700, dir_fd=dfd)
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
            try:
                os.fchmod(sub, 0o700)
                _wipe_at(sub)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=dfd)
        else:
            os.unlink(name, dir_fd=dfd)


def _restore():
    """Put the baseline back; False when it cannot be (the worker retires)."""
    ok = True
    for path, (dev, ino, mode, ents, xattrs) in BASE.items():
        try:
            dfd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            st = os.fstat(dfd)
            if (st.st_dev, st.st_ino) != (dev, ino):
                return False
            if st.st_mode != mode:
                os.fchmod(dfd, stat.S_IMODE(mode))
            seen = 0
            for e in os.scandir(dfd):
                was = ents.get(e.name)
                if was is not None and was == _entry(e):
                    seen += 1
                    continue
                if was is not None:
                    return False
                if e.is_dir(follow_symlinks=False):
                    os.chmod(e.name, 0o700, dir_fd=dfd)
                    sub = os.open(e.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
                    try:
                        _wipe_at(sub)
                    finally:
                        os.close(sub)
                    os.rmdir(e.name, dir_fd=dfd)
                else:
                    os.unlink(e.name, dir_fd=dfd)
            if seen != len(ents):
                return False
            now = _xattrs(dfd)
            if now != xattrs:
                for n in now:
                    if n not in xattrs:
                        os.removexattr(dfd, n)
                for n, v in xattrs.items():
                    if now.get(n) != v:
                        os.setxattr(dfd, n, v)
        finally:
            os.close(dfd)
    return ok


def _ipc_clean():
    """SysV objects outlive their processes: remove every one the call made."""
    for kind, ctl in (("shm", libc.shmctl), ("msg", libc.msgctl), ("sem", libc.semctl)):
        try:
            fd = os.open("/proc/sysvipc/" + kind, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            text = b""
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                text += chunk
        finally:
            os.close(fd)
        lines = text.decode("ascii", "replace").splitlines()[1:]
        for line in lines:
            ident = int(line.split()[1])
            if kind == "sem":
                ctl(ident, 0, IPC_RMID)
            else:
                ctl(ident, IPC_RMID, None)




# What a process of the same user can change of another from outside it,
# whatever its pid namespace and dumpable flag, and its children inherit:
# its scheduling (sched_setattr: policy, priority, nice, reset-on-fork,
# utilization clamps), CPU affinity, rlimits (prlimit, all of them) and I/O
# priority (ioprio_set).  A call can name its zygote (getppid()), so each
# of these is read after every call, and the worker retires when one
# changed: otherwise every later call would be forked idle-class, on one
# CPU, with a lowered limit (a standing slowdown, and a channel from one
# call to the next).  The rest is read too, though no call reaches it
# here, so that no profile or kernel that lets a call reach it goes
# unseen: what is set through /proc/<zygote>/ (owned by the overflow uid
# while the zygote is not dumpable, and outside every profile's Landlock
# writes), the session's autogroup (the zygote's and its calls'), the
# cgroup, the memory policy and allowed nodes (a cpuset), and what only
# the zygote itself sets (timer slack, no_new_privs, dumpable, child
# subreaper, name).  All of it costs some 30 us a call, after the result,
# off the call's clock (docs/pool.md, "Measured").
PR_GET_DUMPABLE, PR_GET_NAME, PR_GET_TIMERSLACK = 3, 16, 30
PR_GET_CHILD_SUBREAPER, PR_GET_NO_NEW_PRIVS = 37, 39
IOPRIO_WHO_PROCESS, MPOL_F_MEMS_ALLOWED = 1, 4
# sched_getattr, ioprio_get, get_mempolicy: no libc wrapper for the first
# two, the numbers of the machines the stub is built for.
_NR = {"x86_64": (315, 252, 239), "aarch64": (275, 31, 236)}.get(os.uname().machine)
# struct sched_attr to its utilization clamps (SCHED_ATTR_SIZE_VER1); a
# kernel without them fills less.
_SCHED_ATTR = ctypes.create_string_buffer(56)
_NODES = (ctypes.c_ulong * 16)()  # 1024 nodes, CONFIG_NODES_SHIFT's most
_MODE = ctypes.c_int()
_NAME = ctypes.create_string_buffer(16)
# /proc/self files opened once (the zygote's, by pid, from then on) and
# read by pread: limits holds every rlimit the kernel has, not only those
# the resource module names.
_PROC_FILES = ("limits", "oom_score_adj", "autogroup", "cgroup", "coredump_filter")
_PROC = {}


def _check(rc, what):
    if rc == -1:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))
    return rc


def _attributes():
    """What of the zygote a call's child inherits and a call might change:
    a dict of comparable values."""
    nr_getattr, nr_ioprio, nr_mempolicy = _NR
    _check(libc.syscall(nr_getattr, 0, _SCHED_ATTR, len(_SCHED_ATTR), 0), "sched_getattr")
    a = {
        "scheduling": _SCHED_ATTR.raw,
        "CPU affinity": os.sched_getaffinity(0),
        "I/O priority": _check(libc.syscall(nr_ioprio, IOPRIO_WHO_PROCESS, 0), "ioprio_get"),
        "timer slack": _check(libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), "PR_GET_TIMERSLACK"),
        "no_new_privs": _check(libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), "PR_GET_NO_NEW_PRIVS"),
        "dumpable flag": _check(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), "PR_GET_DUMPABLE"),
    }
    _check(libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(_MODE), 0, 0, 0),
           "PR_GET_CHILD_SUBREAPER")
    a["subreaper flag"] = _MODE.value
    _check(libc.prctl(PR_GET_NAME, _NAME, 0, 0, 0), "PR_GET_NAME")
    a["name"] = _NAME.raw
    for key, mode, flags in (("memory policy", ctypes.byref(_MODE), 0),
                             ("allowed memory nodes", None, MPOL_F_MEMS_ALLOWED)):
        if libc.syscall(nr_mempolicy, mode, _NODES, 8 * ctypes.sizeof(_NODES), None, flags):
            if ctypes.get_errno() != errno.ENOSYS:
                _check(-1, "get_mempolicy")
            # A kernel without NUMA: no policy for a call to change either.
            a[key] = None
        else:
            a[key] = (_MODE.value if mode else None, bytes(_NODES))
    for name, fd in _PROC.items():
        a["rlimits" if name == "limits" else name] = os.pread(fd, 4096, 0)
    return a


