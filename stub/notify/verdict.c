/* verdict.c: what a compiled seccomp program answers for one call, worked
 * out as the kernel does it, for notify.c: the parent answers a refused
 * call with the errno the filter itself returns for the same registers.
 * Only the instructions libseccomp emits; a program with any other is
 * never given a listener.  No system call here: unit tested against the
 * tests' own interpreter on every shipped filter. */
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "notify/notify.h"

static bool known(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_IMM:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_RET | BPF_K:
		return true;
	}
	return false;
}

bool verdict_known(const struct aj_filter *f)
{
	for (unsigned i = 0; i < f->n; i++)
		if (!known(f->insns[i].code))
			return false;
	return true;
}

/* The kernel checked the program when it was installed (jumps in range,
 * a return at the end); anything odd here still ends in a refusal, never
 * a pass. */
uint32_t verdict_run(const struct aj_filter *f, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (unsigned pc = 0; pc < f->n; pc++) {
		const struct aj_bpf_insn *i = &f->insns[pc];
		bool t = false;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k > sizeof(*d) - 4 || i->k % 4)
				return SECCOMP_RET_ERRNO | 1; /* EPERM */
			memcpy(&a, (const char *)d + i->k, 4);
			continue;
		case BPF_LD | BPF_IMM:
			a = i->k;
			continue;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			continue;
		case BPF_ALU | BPF_OR | BPF_K:
			a |= i->k;
			continue;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
			t = a == i->k;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			t = a > i->k;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			t = a >= i->k;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			t = a & i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			return SECCOMP_RET_ERRNO | 1;
		}
		pc += t ? i->jt : i->jf;
	}
	return SECCOMP_RET_ERRNO | 1;
}
