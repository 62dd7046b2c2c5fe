/* netns.h: a test's own network namespace (in a user namespace of its
 * own, no root needed), with lo up and nothing else: the proxy and the
 * resolver under test can reach the test's own servers on 127.0.0.1 and
 * nothing outside, whatever address they are handed. */
#ifndef AJ_TEST_NETNS_H
#define AJ_TEST_NETNS_H

#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* false (and why in *why) where user namespaces are not to be had. */
static inline bool netns_enter(const char **why)
{
	struct ifreq ifr = {0};
	int s;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		*why = "no user and network namespace of the test's own (unshare)";
		return false;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr)) {
		*why = "no loopback in the test's network namespace";
		return false;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr)) {
		*why = "cannot bring lo up in the test's network namespace";
		return false;
	}
	close(s);
	return true;
}

#endif
