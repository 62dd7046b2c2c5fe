/* maxrss: peak resident set size of a launcher, two ways.  Static and small
 * (bench/run.sh builds it with musl-gcc -static), so that nothing of a big
 * parent leaks into the figures: exec records the old image's high-water
 * mark in the same counter, which is why a vfork from Python would spoil it.
 *
 *   maxrss CMD ARGS…
 *	Runs CMD (stdin, stdout, stderr on /dev/null) and prints
 *	"KIB STATUS": ru_maxrss from wait4(), the largest RSS of CMD or of any
 *	descendant it waited for (what GNU time -v reports).  The kernel keeps
 *	that counter per CPU and only folds it in batches, so a tiny static
 *	process can read as 0; a dynamic /bin/true reads about 1 MiB.
 *
 *   maxrss --tree CMD ARGS… --hold
 *	Runs CMD with a pipe on stdin and one on stdout and waits until a byte
 *	arrives on the latter: the target (the "--hold" mode of this same
 *	program, run inside the sandbox) has started, so the launcher is
 *	fully set up.  It then walks CMD's process tree (/proc/PID/task/PID/
 *	children) and prints "DEPTH NAME VMHWM_KIB" per process from
 *	/proc/PID/status, which counts exactly, closes the pipe so the target
 *	exits, and prints "exit STATUS".
 *
 *   maxrss --hold
 *	The target for --tree: write one byte, read stdin until EOF, exit 0.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void walk(pid_t pid, int depth)
{
	char path[64], line[256], name[64] = "?";
	long hwm = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "Name:", 5))
			sscanf(line + 5, "%63s", name);
		else if (!strncmp(line, "VmHWM:", 6))
			hwm = strtol(line + 6, NULL, 10);
	}
	fclose(f);
	printf("%d %s %ld\n", depth, name, hwm);
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	int c;
	while (fscanf(f, "%d", &c) == 1)
		walk(c, depth + 1);
	fclose(f);
}

static int tree(char **argv)
{
	int in[2], out[2];
	if (pipe(in) || pipe(out)) {
		perror("maxrss: pipe");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 2);
		for (int i = 3; i < 64; i++)
			close(i);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	char b;
	if (read(out[0], &b, 1) == 1)
		walk(pid, 0);
	close(in[1]);
	close(out[0]);
	int st;
	if (waitpid(pid, &st, 0) < 0) {
		perror("maxrss: waitpid");
		return 2;
	}
	printf("exit %d\n", status_of(st));
	return 0;
}

static int hold(void)
{
	char buf[64];
	if (write(1, "r", 1) != 1)
		return 1;
	while (read(0, buf, sizeof buf) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--hold"))
		return hold();
	if (argc >= 3 && !strcmp(argv[1], "--tree"))
		return tree(argv + 2);
	if (argc < 2) {
		fputs("usage: maxrss CMD ARGS... | maxrss --tree CMD ARGS... | maxrss --hold\n", stderr);
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("maxrss: wait4");
		return 2;
	}
	printf("%ld %d\n", ru.ru_maxrss, status_of(st));
	return 0;
}
