/* sysnames.c: syscall names and numbers, constants and errno values.
 *
 * Names and numbers come from libseccomp; constants from the C library's
 * and the kernel's headers, never typed by hand. */
#include "sysnames.h"
#include "diag.h"
#include "vec.h"

#include <errno.h>
#include <linux/audit.h>
/* glibc's before the kernel's: they step aside for it, not the reverse. */
#include <netinet/in.h>
// clang-format off
#include <linux/ip_vs.h>
#include <linux/netfilter_arp/arp_tables.h>
#include <linux/netfilter_bridge/ebtables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
// clang-format on
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define C(x)                                                                                       \
	{                                                                                          \
#x, (uint64_t)(x)                                                                  \
	}
static const struct constant {
	const char *name;
	uint64_t value;
} constants[] = {
    C(TIOCSTI),
    C(TIOCLINUX),
    C(TIOCSETD),
    C(TIOCCONS),
    C(TIOCSCTTY),
    C(CLONE_NEWUSER),
    C(CLONE_NEWNS),
    C(CLONE_NEWPID),
    C(CLONE_NEWNET),
    C(CLONE_NEWIPC),
    C(CLONE_NEWUTS),
    C(CLONE_NEWCGROUP),
    C(CLONE_NEWTIME),
    C(CLONE_THREAD),
    C(CLONE_VM),
    C(AF_UNIX),
    C(AF_INET),
    C(AF_INET6),
    C(AF_NETLINK),
    C(AF_PACKET),
    C(AF_VSOCK),
    C(AF_BLUETOOTH),
    C(AF_KEY),
    C(AF_ALG),
    C(SOCK_STREAM),
    C(SOCK_DGRAM),
    C(SOCK_RAW),
    C(SOCK_SEQPACKET),
    C(SOL_IP),
    C(SOL_IPV6),
    C(NETLINK_ROUTE),
    C(NETLINK_KOBJECT_UEVENT),
    C(NETLINK_NETFILTER),
    C(NETLINK_XFRM),
    C(NETLINK_GENERIC),
    C(IPT_SO_SET_REPLACE),
    C(IPT_SO_SET_ADD_COUNTERS),
    C(IPT_SO_GET_INFO),
    C(IPT_SO_GET_ENTRIES),
    C(IPT_SO_GET_REVISION_MATCH),
    C(IPT_SO_GET_REVISION_TARGET),
    C(IP6T_SO_SET_REPLACE),
    C(IP6T_SO_SET_ADD_COUNTERS),
    C(IP6T_SO_GET_INFO),
    C(IP6T_SO_GET_ENTRIES),
    C(IP6T_SO_GET_REVISION_MATCH),
    C(IP6T_SO_GET_REVISION_TARGET),
    C(ARPT_SO_SET_REPLACE),
    C(ARPT_SO_SET_ADD_COUNTERS),
    C(ARPT_SO_GET_INFO),
    C(ARPT_SO_GET_ENTRIES),
    C(ARPT_SO_GET_REVISION_TARGET),
    C(EBT_SO_SET_ENTRIES),
    C(EBT_SO_SET_COUNTERS),
    C(EBT_SO_GET_INFO),
    C(EBT_SO_GET_ENTRIES),
    C(EBT_SO_GET_INIT_INFO),
    C(EBT_SO_GET_INIT_ENTRIES),
    C(IP_VS_BASE_CTL),
    C(SIOCSIFBR),
    C(SIOCSIFVLAN),
    C(SIOCBRADDBR),
    C(SIOCBRDELBR),
    C(SIOCBRADDIF),
    C(SIOCBRDELIF),
    C(SIOCDEVPRIVATE),
    C(PR_SET_DUMPABLE),
    C(PR_SET_SECCOMP),
    C(PR_SET_NO_NEW_PRIVS),
    C(PR_CAP_AMBIENT),
    C(PR_SET_PTRACER),
    C(PER_LINUX),
    C(ADDR_NO_RANDOMIZE),
    C(PROT_EXEC),
    C(PROT_WRITE),
    C(PROT_READ),
};

bool sysnames_constant_lookup(const char *name, uint64_t *out)
{
	for (size_t i = 0; i < N(constants); i++) {
		if (strcmp(constants[i].name, name) == 0) {
			*out = constants[i].value;
			return true;
		}
	}
	return false;
}

const char *sysnames_constant_suggest(const char *name)
{
	const char *names[N(constants)];
	for (size_t i = 0; i < N(constants); i++)
		names[i] = constants[i].name;
	return diag_suggest(name, names, N(constants));
}

static const struct constant errnos[] = {
    C(EPERM),        C(ENOENT),     C(EACCES), C(ENOSYS),      C(EINVAL),
    C(EAFNOSUPPORT), C(EOPNOTSUPP), C(EROFS),  C(ENETUNREACH), C(EBADF),
    C(ENOTTY),       C(EIO),        C(ENODEV), C(ENXIO),       C(EAGAIN),
};

void sysnames_constants_print(FILE *f)
{
	for (size_t i = 0; i < N(constants); i++)
		fprintf(f, "%s %llu\n", constants[i].name, (unsigned long long)constants[i].value);
	for (size_t i = 0; i < N(errnos); i++)
		fprintf(f, "%s %llu\n", errnos[i].name, (unsigned long long)errnos[i].value);
}

int sysnames_errno_lookup(const char *name)
{
	for (size_t i = 0; i < N(errnos); i++)
		if (strcmp(errnos[i].name, name) == 0)
			return (int)errnos[i].value;
	return -1;
}

const char *sysnames_errno_name(int e)
{
	for (size_t i = 0; i < N(errnos); i++)
		if ((int)errnos[i].value == e)
			return errnos[i].name;
	return ast_printf("%d", e);
}

/* The architecture the filters are for (--arch): numbers in the model,
 * the header and the refusal reports are that architecture's.  Policies are
 * written against x86_64's table: a name that exists there but not on the
 * target is a call the target cannot make, so its rules fall away. */
static uint32_t target;

static const struct {
	const char *name;
	uint32_t scmp;
	uint32_t audit;
} arches[] = {
    {"x86_64", SCMP_ARCH_X86_64, AUDIT_ARCH_X86_64},
    {"aarch64", SCMP_ARCH_AARCH64, AUDIT_ARCH_AARCH64},
};

bool sysnames_target_arch_set(const char *name)
{
	for (size_t i = 0; i < N(arches); i++)
		if (strcmp(arches[i].name, name) == 0) {
			target = arches[i].scmp;
			return true;
		}
	return false;
}

uint32_t sysnames_target_arch(void)
{
	/* By default the machine's own, where it is one of them. */
	if (!target)
		target = seccomp_arch_native() == SCMP_ARCH_AARCH64 ? SCMP_ARCH_AARCH64
		                                                    : SCMP_ARCH_X86_64;
	return target;
}

uint32_t sysnames_target_audit_arch(void)
{
	for (size_t i = 0; i < N(arches); i++)
		if (arches[i].scmp == sysnames_target_arch())
			return arches[i].audit;
	return 0;
}

const char *sysnames_target_arch_name(void)
{
	for (size_t i = 0; i < N(arches); i++)
		if (arches[i].scmp == sysnames_target_arch())
			return arches[i].name;
	return "?";
}

static const char *names_cache[600];
static size_t n_names;

static void load_names(void)
{
	if (n_names)
		return;
	for (int nr = 0; nr < 600 && n_names < N(names_cache); nr++) {
		char *name = seccomp_syscall_resolve_num_arch(sysnames_target_arch(), nr);
		/* Outlives the arena: the table is the same for every run. */
		if (name)
			names_cache[n_names++] = name;
	}
}

int sysnames_syscall_lookup(const char *name, const struct loc *loc)
{
	int nr = seccomp_syscall_resolve_name_arch(sysnames_target_arch(), name);
	if (nr >= 0)
		return nr;
	if (sysnames_target_arch() != SCMP_ARCH_X86_64 &&
	    seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name) >= 0)
		return NR_ABSENT;
	if (nr == __NR_SCMP_ERROR) {
		load_names();
		const char *hint = diag_suggest(name, names_cache, n_names);
		if (hint)
			diag_error_at(loc, "unknown syscall '%s'; did you mean '%s'?", name, hint);
		else
			diag_error_at(loc, "unknown syscall '%s'", name);
	} else {
		diag_error_at(loc, "syscall '%s' does not exist on %s", name,
		              sysnames_target_arch_name());
	}
	return -1;
}

const char *sysnames_nr_name(int nr)
{
	char *n = seccomp_syscall_resolve_num_arch(sysnames_target_arch(), nr);
	if (!n)
		return ast_printf("syscall[%d]", nr);
	const char *r = ast_strdup(n);
	free(n);
	return r;
}
