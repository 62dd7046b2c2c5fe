/* bpf.h: a variant's syscall rules as seccomp programs (libseccomp). */
#ifndef AJ_BPF_H
#define AJ_BPF_H

#include "variant.h"

bool seccomp_build(struct variant *v);

#endif
