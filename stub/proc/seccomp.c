/* seccomp.c: install the policy's BPF program, compiled ahead of time. */
#include <errno.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "proc/proc.h"

_Static_assert(sizeof(struct aj_bpf_insn) == sizeof(struct sock_filter), "aj_bpf_insn layout");
_Static_assert(offsetof(struct aj_bpf_insn, jt) == offsetof(struct sock_filter, jt), "jt");
_Static_assert(offsetof(struct aj_bpf_insn, jf) == offsetof(struct sock_filter, jf), "jf");
_Static_assert(offsetof(struct aj_bpf_insn, k) == offsetof(struct sock_filter, k), "k");

void seccomp_install(const struct aj_variant *v)
{
	/* The compiler always emits at least one filter (the architecture check
	 * alone is a reason); none means a broken table, never "no seccomp". */
	int listener = -1, err = 0;

	if (!v->n_filters)
		die("install the seccomp filter", EINVAL, "the compiled policy has no filter");
	/* The first filter with a listener where it can have one
	 * (notify.c), else as compiled: refused either way. */
	listener = notify_filter(v, &err);
	for (unsigned i = listener >= 0; i < v->n_filters; i++) {
		struct sock_fprog prog = {
		    .len = v->filters[i].n,
		    .filter = (struct sock_filter *)(uintptr_t)v->filters[i].insns,
		};
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			die("install the seccomp filter", errno,
			    errno == EINVAL ? "the kernel rejected the compiled filter" : NULL);
	}
	if (v->n_refused)
		ns_notify_send(listener, err);
}
