/* floor.c: the kernel's floor under jail-worker's start-up (issue 13).
 *
 *   floor [-n] PROGRAM [ARG...]
 *
 * The least a launcher with jail-worker's namespaces can do: one clone
 * into new user, pid, mount, IPC, UTS and network namespaces (-n: without
 * the network one, as `network blocked`), the parent writes the child's
 * uid and gid maps (setgroups denied, the caller mapped to itself), and
 * the child, pid 1 of its namespace, execs PROGRAM once they are written.
 * No mounts, no root, no Landlock, no seccomp: what is left of a jail's
 * start-up once everything of ours is taken away.  The parent waits and
 * returns the child's status.  Static, musl, no allocation. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int sync_pipe[2];

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(path);
		_exit(125);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	int flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
	            CLONE_NEWNET,
	    first = 1, status;
	char path[64], map[64];
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "-n"))
		flags &= ~CLONE_NEWNET, first = 2;
	if (first >= argc) {
		fputs("usage: floor [-n] PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	if (pipe2(sync_pipe, O_CLOEXEC))
		return 125;
	/* The raw clone: a fresh process in the new namespaces, no stack
	 * games (fork semantics). */
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		perror("clone");
		return 125;
	}
	if (!pid) {
		char c;

		close(sync_pipe[1]);
		if (read(sync_pipe[0], &c, 1) != 1)
			_exit(125);
		execv(argv[first], argv + first);
		_exit(127);
	}
	close(sync_pipe[0]);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
	write_file(path, "deny");
	snprintf(map, sizeof(map), "%u %u 1", getuid(), getuid());
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	write_file(path, map);
	snprintf(map, sizeof(map), "%u %u 1", getgid(), getgid());
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	write_file(path, map);
	if (write(sync_pipe[1], "", 1) != 1)
		return 125;
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
