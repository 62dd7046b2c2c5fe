/* nestable.h: the filter rows a policy's 'namespaces' may allow, by the
 * kinds they make: there the kernel answers instead of the filter, but
 * for lockdown's allowlist, which has no chroot.  Shared by the x86_64
 * and aarch64 verification tables (test_seccomp.c, test_aarch64.c). */
#ifndef AJ_TEST_NESTABLE_H
#define AJ_TEST_NESTABLE_H

#include <sched.h>
#include <stdbool.h>
#include <string.h>

static const struct {
	const char *what;
	unsigned long kinds;
	bool in_lockdown;
} nestable[] = {
    {"unshare(CLONE_NEWUSER)", CLONE_NEWUSER, true},
    {"unshare(CLONE_NEWNET|high bits)", CLONE_NEWNET, true},
    {"clone(CLONE_NEWUSER|CLONE_FS)", CLONE_NEWUSER, true},
    {"chroot(\"/\")", CLONE_NEWUSER, false},
};

/* Whether the row named what is the kernel's to answer under a variant
 * whose namespaces allow ns_allow. */
static inline bool nestable_allowed(unsigned long ns_allow, const char *what, bool lockdown)
{
	for (size_t i = 0; i < sizeof(nestable) / sizeof(nestable[0]); i++)
		if (!strcmp(nestable[i].what, what))
			return (ns_allow & nestable[i].kinds) == nestable[i].kinds &&
			       (!lockdown || nestable[i].in_lockdown);
	return false;
}

#endif
