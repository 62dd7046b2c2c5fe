/* bpf.h: a variant's syscall rules as seccomp programs (libseccomp). */
#ifndef AJ_BPF_H
#define AJ_BPF_H

#include "variant.h"

bool bpf_build(struct variant *v);

#endif
