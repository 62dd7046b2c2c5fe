/* bpf_run.h: a classic-BPF interpreter for seccomp programs, so the tests
 * execute the filter the compiler emitted instead of comparing its text. */
#ifndef AJ_BPF_RUN_H
#define AJ_BPF_RUN_H

#include "aj_table.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define AJ_AUDIT_ARCH_X86_64 0xc000003eu
#define AJ_AUDIT_ARCH_I386   0x40000003u
#define AJ_RET_KILL_PROCESS  0x80000000u
#define AJ_RET_KILL_THREAD   0x00000000u
#define AJ_RET_ERRNO(e)      (0x00050000u | ((e)&0xffff))
#define AJ_RET_ALLOW         0x7fff0000u
#define AJ_RET_INVALID       0xdeadbeefu

struct aj_seccomp_data {
	int nr;
	uint32_t arch;
	uint64_t ip;
	uint64_t args[6];
};

/* Returns the filter's verdict, or AJ_RET_INVALID if the program does
 * something the kernel's checker would refuse (a jump out of range, a
 * misaligned load). */
static inline uint32_t bpf_run(const struct aj_bpf_insn *p, size_t n,
			       const struct aj_seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[16] = {0};
	unsigned char data[sizeof(*d)];
	memcpy(data, d, sizeof(*d));
	for (size_t pc = 0; pc < n; pc++) {
		const struct aj_bpf_insn *i = &p[pc];
		uint16_t cls = i->code & 0x07;
		switch (cls) {
		case 0x00: /* BPF_LD */
			if ((i->code & 0xe0) == 0x20 && (i->code & 0x18) == 0x00) {
				if (i->k + 4 > sizeof(data) || i->k % 4)
					return AJ_RET_INVALID;
				memcpy(&a, data + i->k, 4);
			} else if ((i->code & 0xe0) == 0x60) {
				a = mem[i->k & 15];
			} else if ((i->code & 0xe0) == 0x00) {
				a = i->k;
			} else {
				return AJ_RET_INVALID;
			}
			break;
		case 0x01: /* BPF_LDX */
			if ((i->code & 0xe0) == 0x60)
				x = mem[i->k & 15];
			else if ((i->code & 0xe0) == 0x00)
				x = i->k;
			else
				return AJ_RET_INVALID;
			break;
		case 0x02: /* BPF_ST */
			mem[i->k & 15] = a;
			break;
		case 0x03: /* BPF_STX */
			mem[i->k & 15] = x;
			break;
		case 0x04: { /* BPF_ALU */
			uint32_t v = (i->code & 0x08) ? x : i->k;
			switch (i->code & 0xf0) {
			case 0x00: a += v; break;
			case 0x10: a -= v; break;
			case 0x50: a &= v; break;
			case 0x40: a |= v; break;
			case 0x60: a <<= v; break;
			case 0x70: a >>= v; break;
			default: return AJ_RET_INVALID;
			}
			break;
		}
		case 0x05: { /* BPF_JMP */
			uint32_t v = (i->code & 0x08) ? x : i->k;
			int take;
			switch (i->code & 0xf0) {
			case 0x00: /* JA */
				pc += i->k;
				if (pc >= n)
					return AJ_RET_INVALID;
				continue;
			case 0x10: take = a == v; break;
			case 0x20: take = a > v; break;
			case 0x30: take = a >= v; break;
			case 0x40: take = (a & v) != 0; break;
			default: return AJ_RET_INVALID;
			}
			pc += take ? i->jt : i->jf;
			if (pc >= n)
				return AJ_RET_INVALID;
			break;
		}
		case 0x06: /* BPF_RET */
			return (i->code & 0x18) == 0x10 ? a : i->k;
		case 0x07: /* BPF_MISC */
			if ((i->code & 0xf8) == 0x00)
				x = a;
			else
				a = x;
			break;
		}
	}
	return AJ_RET_INVALID;
}

/* The kernel's precedence between stacked filters: the lower action (as a
 * signed value) wins, KILL_PROCESS first, ALLOW last. */
static inline uint32_t bpf_merge(uint32_t a, uint32_t b)
{
	if (a == AJ_RET_INVALID || b == AJ_RET_INVALID)
		return AJ_RET_INVALID;
	return (int32_t)(a & 0xffff0000u) <= (int32_t)(b & 0xffff0000u) ? a : b;
}

#endif
