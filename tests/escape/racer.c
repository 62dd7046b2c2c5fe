/* racer.c: swaps two names as fast as it can, from inside a jail, for the
 * race cases of tests/escape/run.sh.
 *
 *   racer [-m] [-p USEC] A B SECONDS [STOPFILE]
 *
 * exchanges A and B with renameat2(RENAME_EXCHANGE) (either may be a
 * symlink), or with -m moves A to B and back with rename(2) (B must not
 * exist), until SECONDS have passed or STOPFILE exists, then prints
 * "swaps: N" (N successful exchanges) and, when none succeeded, the first
 * error.  Exit status 0 when at least one exchange succeeded, 1 otherwise,
 * 2 on a usage error.  -p pauses USEC microseconds each time the names
 * are back as they were: where an unpaced racer puts a swap inside every
 * launch's checks (each one refused, so nothing to judge), the paced one
 * leaves launches that run beside launches that are raced.  Static musl,
 * like the probe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long swaps = 0, tries = 0;
	int first_err = 0, move = 0;
	long pause_us = 0;
	double end;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-m")) {
			move = 1;
		} else if (!strcmp(argv[1], "-p") && argc > 2) {
			pause_us = atol(argv[2]);
			argv++;
			argc--;
		} else {
			break;
		}
		argv++;
		argc--;
	}

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: racer [-m] [-p USEC] A B SECONDS [STOPFILE]\n");
		return 2;
	}
	end = now() + atof(argv[3]);
	for (;;) {
		if (move) {
			if (rename(argv[1], argv[2]) == 0 && rename(argv[2], argv[1]) == 0)
				swaps += 2;
			else if (!first_err)
				first_err = errno;
		} else if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2],
		                   RENAME_EXCHANGE) == 0) {
			swaps++;
		} else if (!first_err) {
			first_err = errno;
		}
		if (pause_us > 0 && !(swaps & 1)) {
			struct timespec ts = {pause_us / 1000000, (pause_us % 1000000) * 1000};

			nanosleep(&ts, NULL);
			tries |= 1023; /* the clock and the stop file, each pause */
		}
		if ((++tries & 1023) == 0) {
			if (now() > end)
				break;
			if (argc == 5 && access(argv[4], F_OK) == 0)
				break;
		}
	}
	/* An even number of swaps leaves the names as they were. */
	if (!move && (swaps & 1)) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) ==
		    0)
			swaps++;
	}
	printf("swaps: %llu\n", swaps);
	if (!swaps)
		printf("error: %s\n", strerror(first_err));
	return swaps ? 0 : 1;
}
