/* reached.c: what the jail reached, in --jail-log.
 *
 * Each connection the proxy let through gets one JSON line as it closes,
 *   {"time":…,"kind":"allowed","host":"registry.npmjs.org","port":443,
 *    "address":"104.16.1.34","bytes_up":812,"bytes_down":5631,"duration_ms":182}
 * through the refusal log's own writer (refusals.c), so the same file,
 * the same parent and the same bound: RF_LOGGED lines a run, the rest
 * counted in one last line.  The summary on stderr stays refusals only.
 * --jail-log-allowed=no keeps the log to refusals. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>

#include "notify/notify.h"

bool reached_on = true;

uint64_t reached_now_ms(void)
{
	struct timespec t = {0};

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void reached_conn(const char *target, const struct sockaddr *to, uint64_t up, uint64_t down,
                  uint64_t since_ms)
{
	char addr[INET6_ADDRSTRLEN] = "";
	const char *c = strrchr(target, ':');
	size_t n = c ? (size_t)(c - target) : strlen(target);
	bool v6 = target[0] == '[' && n >= 2;
	unsigned long long port = 0;
	uint64_t now = reached_now_ms();

	if (!reached_on || !refusals_log_begin("allowed", true))
		return;
	for (const char *d = c ? c + 1 : ""; *d >= '0' && *d <= '9'; d++)
		port = port * 10 + (unsigned)(*d - '0');
	if (to->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)to)->sin_addr, addr, sizeof(addr));
	else if (to->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)to)->sin6_addr, addr,
		          sizeof(addr));
	rp_strn("host", target + v6, n - 2 * v6);
	rp_u("port", port);
	rp_str("address", addr);
	rp_u("bytes_up", up);
	rp_u("bytes_down", down);
	rp_u("duration_ms", now > since_ms ? now - since_ms : 0);
	refusals_log_end();
}

/* kind "published": "host"/"host_port" where the host's client came in,
 * "port" the jail's; bytes_up what went into the jail, bytes_down what
 * came out of it. */
void reached_published(const struct sockaddr *on, unsigned port, uint64_t up, uint64_t down,
                       uint64_t since_ms)
{
	const struct sockaddr_in *a = (const struct sockaddr_in *)on;
	char addr[INET_ADDRSTRLEN] = "";
	uint64_t now = reached_now_ms();

	if (!reached_on || !refusals_log_begin("published", true))
		return;
	inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
	rp_str("host", addr);
	rp_u("host_port", ntohs(a->sin_port));
	rp_u("port", port);
	rp_u("bytes_up", up);
	rp_u("bytes_down", down);
	rp_u("duration_ms", now > since_ms ? now - since_ms : 0);
	refusals_log_end();
}
