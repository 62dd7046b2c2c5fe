/* helper.c: what the smoke suite's root needs beside busybox, static for
 * aarch64: a command run as the unprivileged user (busybox has no setpriv),
 * and a listener on the VM's loopback to tell "no network" from "nothing
 * listening".
 *
 *   helper as UID GID DIR CMD [ARG]...  in DIR, with no supplementary groups
 *   helper listen PORT                  127.0.0.1:PORT, accepts and closes, in
 *                                       the background once it listens */
#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int as(char **argv)
{
	uid_t uid = (uid_t)strtoul(argv[0], NULL, 10);
	gid_t gid = (gid_t)strtoul(argv[1], NULL, 10);

	if (setgroups(0, NULL) || setgid(gid) || setuid(uid) || chdir(argv[2])) {
		perror("helper as");
		return 126;
	}
	/* A run that kept root would pass the cases for the wrong reason. */
	if (getuid() == 0 || geteuid() == 0 || setuid(0) == 0) {
		fputs("helper as: still root\n", stderr);
		return 126;
	}
	execv(argv[3], argv + 3);
	perror("helper as: exec");
	return 127;
}

static int listen_on(const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) {
		perror("helper listen");
		return 1;
	}
	if (fork() != 0)
		return 0;
	for (;;) {
		int c = accept(fd, NULL, NULL);
		if (c >= 0)
			close(c);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "as"))
		return as(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "listen"))
		return listen_on(argv[2]);
	fputs("usage: helper as UID GID DIR CMD [ARG]... | helper listen PORT\n", stderr);
	return 2;
}
