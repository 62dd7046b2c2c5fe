/* doctor_probe.c: the facts aijail-status --doctor measures without asking
 * a stub: a covered /proc, the cgroup, IA32 emulation, a Docker socket.
 * Each mirrors the stub's own test where the stub has one, so that the
 * two agree. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor.h"

#define CGROUP2_MAGIC 0x63677270

/* The paths Docker masks (a bind of /dev/null or a tmpfs) and makes
 * read-only, as stub/variant/nscause.c's nscause_proc_covered() lists
 * them: either makes the kernel refuse a new procfs in a user namespace
 * (mount_too_revealing()). */
bool doctor_proc_covered(const char *proc)
{
	static const char *const masked[] = {"kcore", "keys", "timer_list",
	                                     "acpi",  "scsi", "sched_debug"};
	static const char *const ro[] = {"sys", "bus", "irq", "fs"};
	char path[64];
	struct stat pst, st;
	struct statfs pf, sf;

	if (lstat(proc, &pst) || statfs(proc, &pf))
		return false;
	for (unsigned i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, masked[i]);
		if (!lstat(path, &st) && st.st_dev != pst.st_dev)
			return true;
	}
	if (pf.f_flags & ST_RDONLY)
		return false;
	for (unsigned i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, ro[i]);
		if (!statfs(path, &sf) && (sf.f_flags & ST_RDONLY))
			return true;
	}
	return false;
}

void doctor_cgroup(int *version, char *path, size_t path_n, char *ctl, size_t ctl_n, int *writable)
{
	static char self[4096];
	char dir[4352];
	struct statfs sf;
	const char *p;

	*version = 0;
	*writable = -1;
	path[0] = ctl[0] = '\0';
	if (!statfs("/sys/fs/cgroup", &sf))
		*version = sf.f_type == CGROUP2_MAGIC ? 2 : 1;
	if (read_small("/proc/self/cgroup", self, sizeof(self)) <= 0)
		return;
	/* v2's line is "0::/path"; on v1 the memory controller's line. */
	for (p = self; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *c = strchr(p, ':'), *c2 = c ? strchr(c + 1, ':') : NULL;
		size_t l;

		if (!c2)
			continue;
		if (*version == 2 ? strncmp(p, "0::", 3) : !strstr(c, "memory"))
			continue;
		l = strcspn(c2 + 1, "\n");
		snprintf(path, path_n, "%.*s", (int)l, c2 + 1);
		break;
	}
	if (*version == 2 && path[0]) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", path);
		*writable = !access(dir, W_OK);
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s/cgroup.controllers", path);
		read_small(dir, ctl, ctl_n);
		ctl[strcspn(ctl, "\n")] = '\0';
	} else if (*version == 1 && path[0]) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", path);
		*writable = !access(dir, W_OK);
		snprintf(ctl, ctl_n, "v1 hierarchies");
	}
}

int doctor_ia32(void)
{
#if defined(__x86_64__)
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -2;
	if (!pid) {
		long ret = 20; /* i386 getpid */

		/* Without IA32 emulation the kernel answers int 0x80 with
		 * SIGSEGV. */
		signal(SIGSEGV, SIG_DFL);
		__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
		_exit(ret == (long)getpid() ? 0 : 3);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -2;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		return 0;
	return -2;
#else
	return -1;
#endif
}

void doctor_docker(char *out, size_t n)
{
	const char *h = getenv("DOCKER_HOST"), *v = "/var/run/docker.sock";
	struct stat st;

	out[0] = '\0';
	if (h && *h) {
		if (strncmp(h, "unix://", 7))
			return;
		v = h + 7;
	}
	if (!stat(v, &st) && S_ISSOCK(st.st_mode))
		snprintf(out, n, "%s", v);
}
