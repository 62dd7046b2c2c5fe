/* constants.c: compiled, never run, by a cross build (make ARCH=aarch64):
 * the values of the constants a policy's conditions may name, and of the
 * errnos, are the build machine's headers' (compiler/sysnames.c); here each
 * is asserted against the target's headers (its musl, its kernel's), so
 * that a filter never compares an argument with another machine's number.
 * The headers are sysnames.c's: a constant added there without its header
 * here fails the cross build, never passes it. */
#include <errno.h>
/* The C library's before the kernel's, as in sysnames.c. */
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>

/* aijail-compile --list-constants, as _Static_asserts (the Makefile). */
#include "constants-check.h"
