/* floor.c: the kernel's floor under jail-worker's start-up (issue 13).
 *
 *   floor [-n] [-r] [-l FILTER] PROGRAM [ARG...]
 *
 * The least a launcher with jail-worker's namespaces can do: one clone
 * into new user, pid, mount, IPC, UTS and network namespaces (-n: without
 * the network one, as `network blocked`), the parent writes the child's
 * uid and gid maps (setgroups denied, the caller mapped to itself), and
 * the child, pid 1 of its namespace, execs PROGRAM once they are written.
 * No mounts, no root, no Landlock, no seccomp: what is left of a jail's
 * start-up once everything of ours is taken away.  The parent waits and
 * returns the child's status.  Static, musl, no allocation.
 *
 * -r (issue 38), the root floor: pid 1 also builds the smallest root any
 * mount-namespace sandbox needs before it execs: a tmpfs root (pivoted to
 * first, as the stub does), /usr bound read-only and recursively with one
 * open_tree(OPEN_TREE_CLONE | AT_RECURSIVE), one mount_setattr and one
 * move_mount, the usr/ symlinks (bin, sbin, lib, lib64), /proc, a minimal
 * /dev (a tmpfs, null zero full random urandom tty bound over empty files
 * from the old root, as the stub's dev.c does, no pts, no shm), the
 * working directory (the project) bound read-write the same way, the old
 * root detached, the working directory entered.  No masks, no scan, no
 * /etc, no Landlock, no seccomp.
 *
 * -l FILTER (with -r), the layers floor: the root floor plus the layers
 * every jail of this design has and the root floor leaves out, each done
 * the least way: a Landlock ruleset handling every filesystem right of
 * the kernel's ABI, with one rule per mount of the root (read and execute
 * on /usr, read-write on the project and /dev, read on /proc), enforced;
 * no_new_privs, the bounding set emptied, every capability cleared; the
 * seccomp filter in FILTER (raw struct sock_filter, as bench/run.sh
 * writes jail-worker's own from its generated table) loaded; then pid 1
 * stays as a supervisor: the target is its child in a session of its
 * own, and pid 1 waits for it and exits with its status.  What is left
 * between this and jail-worker is the stub's own work: the policy, the
 * scan and masks, the covering process, the limits, the refusal record,
 * the parent's loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The new mount API's numbers and flags, the same on every architecture;
 * musl's headers may predate them. */
#define NR_open_tree      428
#define NR_move_mount     429
#define NR_mount_setattr  442
#define TREE_CLONE        1      /* OPEN_TREE_CLONE */
#define TREE_RECURSIVE    0x8000 /* AT_RECURSIVE */
#define TREE_EMPTY_PATH   0x1000 /* AT_EMPTY_PATH */
#define MOVE_F_EMPTY_PATH 4      /* MOVE_MOUNT_F_EMPTY_PATH */
#define ATTR_RDONLY       1
#define ATTR_NOSUID       2
#define ATTR_NODEV        4

struct attr {
	uint64_t set, clr, propagation, userns_fd;
};

/* Landlock's calls and structures (ABI 1 on), as the uapi header has
 * them: musl's include path may not carry linux/landlock.h. */
#define NR_ll_create   444
#define NR_ll_add_rule 445
#define NR_ll_restrict 446
#define LL_VERSION     1
#define LL_RULE_PATH   1
#define LL_EXECUTE     (1ULL << 0)
#define LL_READ_FILE   (1ULL << 2)
#define LL_READ_DIR    (1ULL << 3)

struct ll_attr {
	uint64_t fs;
};

struct ll_path {
	uint64_t allowed;
	int32_t parent_fd;
} __attribute__((packed));

struct bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

struct bpf_prog {
	unsigned short len;
	struct bpf_insn *filter;
};

static struct bpf_insn filter[4096];
static unsigned filter_len;

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

static void fail(const char *what)
{
	perror(what);
	_exit(125);
}

/* A detached recursive clone of path, its whole tree given attrs. */
static int tree(const char *path, uint64_t attrs)
{
	struct attr a = {.set = attrs};
	int fd =
	    (int)syscall(NR_open_tree, AT_FDCWD, path, TREE_CLONE | TREE_RECURSIVE | O_CLOEXEC);

	if (fd < 0)
		fail(path);
	if (attrs &&
	    syscall(NR_mount_setattr, fd, "", TREE_EMPTY_PATH | TREE_RECURSIVE, &a, sizeof(a)))
		fail("mount_setattr");
	return fd;
}

static void attach(int fd, const char *to)
{
	if (syscall(NR_move_mount, fd, "", AT_FDCWD, to, MOVE_F_EMPTY_PATH))
		fail(to);
	close(fd);
}

/* mkdir -p, in the new root: the project's path. */
static void mkdirs(const char *path)
{
	char p[4096];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		fail("the working directory's path");
	memcpy(p, path, n + 1);
	for (char *s = p + 1;; s++)
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST)
				fail(p);
			if (!(*s = c))
				break;
		}
}

static void root_build(void)
{
	static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
	static const char *const links[][2] = {
	    {"bin", "usr/bin"}, {"sbin", "usr/sbin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}};
	char cwd[4096], src[64], dst[64];
	int usr, proj;

	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	usr = tree("/usr", ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV);
	proj = tree(cwd, ATTR_NOSUID | ATTR_NODEV);
	if (mount("floor", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") ||
	    mkdir("/tmp/oldroot", 0700) || syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") ||
	    chdir("/"))
		fail("the new root");
	if (mkdir("/usr", 0755))
		fail("/usr");
	attach(usr, "/usr");
	for (unsigned i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][1], links[i][0]))
			fail(links[i][0]);
	if (mkdir("/proc", 0555) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		fail("/proc");
	if (mkdir("/dev", 0755) ||
	    mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755"))
		fail("/dev");
	for (unsigned i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(src, sizeof(src), "/oldroot/dev/%s", nodes[i]);
		snprintf(dst, sizeof(dst), "/dev/%s", nodes[i]);
		if (mknod(dst, S_IFREG, 0) || mount(src, dst, NULL, MS_BIND, NULL))
			fail(dst);
	}
	mkdirs(cwd);
	attach(proj, cwd);
	if (umount2("/oldroot", MNT_DETACH) || rmdir("/oldroot") || chdir(cwd))
		fail("detach the old root");
}

/* Every filesystem right of this kernel's ABI: the lowest bit up to the
 * highest the ABI defines (ABI 1: 13 rights, each one more on 2, 3, 5). */
static uint64_t ll_all(int abi)
{
	int n = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13;

	return (1ULL << n) - 1;
}

static void ll_rule(int ruleset, const char *path, uint64_t allowed)
{
	struct ll_path r = {.allowed = allowed};

	r.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (r.parent_fd < 0 || syscall(NR_ll_add_rule, ruleset, LL_RULE_PATH, &r, 0))
		fail(path);
	close(r.parent_fd);
}

static void layers(const char *cwd)
{
	static const int keep_none[2][3];
	int abi = (int)syscall(NR_ll_create, NULL, 0, LL_VERSION), ruleset;
	uint64_t all, rx = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR;
	struct bpf_prog prog = {(unsigned short)filter_len, filter};

	if (abi < 1)
		fail("landlock");
	all = ll_all(abi);
	ruleset = (int)syscall(NR_ll_create, &(struct ll_attr){all}, sizeof(struct ll_attr), 0);
	if (ruleset < 0)
		fail("landlock_create_ruleset");
	ll_rule(ruleset, "/usr", rx);
	ll_rule(ruleset, "/proc", LL_READ_FILE | LL_READ_DIR);
	ll_rule(ruleset, "/dev", all);
	ll_rule(ruleset, cwd, all);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(NR_ll_restrict, ruleset, 0))
		fail("landlock_restrict_self");
	close(ruleset);
	for (int cap = 0; !prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); cap++)
		;
	if (syscall(SYS_capset, &(uint32_t[2]){0x20080522, 0}, keep_none))
		fail("capset");
	if (syscall(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0, &prog))
		fail("seccomp");
}

/* pid 1 as a supervisor: the target its child, in a session of its own. */
static void supervise(char **argv)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		fail("vfork");
	if (!pid) {
		setsid();
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		_exit(125);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

static void filter_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, filter, sizeof(filter));

	if (n <= 0 || n % (ssize_t)sizeof(filter[0]))
		fail(path);
	filter_len = (unsigned)(n / (ssize_t)sizeof(filter[0]));
	close(fd);
}

int main(int argc, char **argv)
{
	int flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
	            CLONE_NEWNET,
	    first = 1, status, root = 0, layered = 0;
	char path[64], map[64];
	pid_t pid;

	for (; first < argc && argv[first][0] == '-'; first++)
		if (!strcmp(argv[first], "-n"))
			flags &= ~CLONE_NEWNET;
		else if (!strcmp(argv[first], "-r"))
			root = 1;
		else if (!strcmp(argv[first], "-l") && first + 1 < argc) {
			filter_read(argv[++first]);
			root = layered = 1;
		} else
			break;
	if (first >= argc || argv[first][0] == '-') {
		fputs("usage: floor [-n] [-r] [-l FILTER] PROGRAM [ARG...]\n", stderr);
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
		if (root)
			root_build();
		if (layered) {
			char cwd[4096];

			if (!getcwd(cwd, sizeof(cwd)))
				fail("getcwd");
			layers(cwd);
			supervise(argv + first);
		}
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
