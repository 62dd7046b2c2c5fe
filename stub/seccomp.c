/* seccomp.c: install the policy's BPF program, compiled ahead of time. */
#include <errno.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "sys.h"

_Static_assert(sizeof(struct aj_bpf_insn) == sizeof(struct sock_filter), "aj_bpf_insn layout");
_Static_assert(offsetof(struct aj_bpf_insn, jt) == offsetof(struct sock_filter, jt), "jt");
_Static_assert(offsetof(struct aj_bpf_insn, jf) == offsetof(struct sock_filter, jf), "jf");
_Static_assert(offsetof(struct aj_bpf_insn, k) == offsetof(struct sock_filter, k), "k");

void seccomp_install(const struct aj_variant *v)
{
	struct sock_fprog prog = {
		.len = v->n_seccomp,
		.filter = (struct sock_filter *)(uintptr_t)v->seccomp,
	};

	if (!v->n_seccomp)
		return;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("install the seccomp filter", errno,
		    errno == EINVAL ? "the kernel rejected the compiled filter" : NULL);
}
