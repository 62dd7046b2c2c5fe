/* seccomp_cost.c: what the compiled filters cost, per shipped policy and
 * variant: their length, the time to load them (a fresh child each time,
 * as the stub does) and the added cost per syscall on a getppid loop.
 * Part of `make bench`; never a timed assertion. */
#include "diag.h"
#include "model.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 200
#define LOOP 1000000

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* In a child: optionally install the filters, then time what was asked.
 * The child reports one double through the pipe. */
static double child(const struct variant *v, bool install, bool loop)
{
	int p[2];
	if (pipe(p))
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		double t0 = now_us();
		for (size_t i = 0; install && i < v->filters.n; i++) {
			struct sock_fprog prog = {(unsigned short)v->filters.v[i].insns.n,
						  (struct sock_filter *)v->filters.v[i].insns.v};
			if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
				_exit(2);
		}
		double t = now_us() - t0;
		if (loop) {
			t0 = now_us();
			for (int i = 0; i < LOOP; i++)
				syscall(SYS_getppid);
			t = (now_us() - t0) * 1000.0 / LOOP; /* ns per call */
		}
		if (write(p[1], &t, sizeof(t)) != sizeof(t))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	double t = -1;
	if (read(p[0], &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return t;
}

static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof(*x), cmp);
	return x[n / 2];
}

int main(int argc, char **argv)
{
	static const char *dirs[] = {"policies"};
	printf("| policy | variant | filters (instructions) | load min / median µs | getppid ns: none / filtered (best of 5) |\n");
	printf("|---|---|---|---|---|\n");
	for (int a = 1; a < argc; a++) {
		struct program prog;
		struct compiled c;
		load_init(&prog, dirs, 1);
		if (!load_program(&prog, argv[a], NULL) || !load_resolve(&prog) ||
		    !compile_policy(&prog, prog.last_in_main, &c))
			return 1;
		for (size_t i = 0; i < c.variants.n; i++) {
			const struct variant *v = &c.variants.v[i];
			if (v->command[0])
				continue; /* command groups share the mode's filters */
			double load[RUNS];
			for (int r = 0; r < RUNS; r++)
				load[r] = child(v, true, false);
			double bare = 1e9, filt = 1e9;
			for (int r = 0; r < 5; r++) {
				double b = child(v, false, true), f = child(v, true, true);
				bare = b < bare ? b : bare;
				filt = f < filt ? f : filt;
			}
			char lens[128] = "";
			for (size_t k = 0; k < v->filters.n; k++)
				snprintf(lens + strlen(lens), sizeof(lens) - strlen(lens), "%s%s %zu",
					 k ? " + " : "", v->filters.v[k].role, v->filters.v[k].insns.n);
			qsort(load, RUNS, sizeof(double), cmp);
			printf("| %s | %s | %s | %.0f / %.0f | %.0f / %.0f |\n", c.policy->name, v->mode,
			       lens, load[0], median(load, RUNS), bare, filt);
		}
		ast_arena_free();
		diag_reset();
	}
	return 0;
}
