/* bpf.c: a variant's syscall rules as seccomp programs, through
 * libseccomp.
 *
 * libseccomp 2.5.4 mixes actions on one syscall badly: with several on
 * one call it silently drops rules.  So the rules are spread over stacked
 * filters, each with one action per call, and the kernel applies the most
 * restrictive verdict. */
#include "bpf.h"
#include "diag.h"
#include "sysgroups.h"
#include "sysnames.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t scmp_action(int action)
{
	if (action == M_ACT_ALLOW)
		return SCMP_ACT_ALLOW;
	return action == M_ACT_KILL ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO((uint32_t)action);
}

static bool export_filter(scmp_filter_ctx ctx, struct m_filter *out)
{
	int fd = memfd_create("aj-bpf", MFD_CLOEXEC);
	int rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	if (rc) {
		diag_error("libseccomp: cannot export the filter: %s", strerror(-rc));
		if (fd >= 0)
			close(fd);
		return false;
	}
	off_t len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len % 8 || len / 8 > 4096 || lseek(fd, 0, SEEK_SET) != 0) {
		diag_error("libseccomp: exported filter has a bad size");
		close(fd);
		return false;
	}
	unsigned char *buf = ast_alloc((size_t)len);
	ssize_t got = read(fd, buf, (size_t)len);
	close(fd);
	if (got != len) {
		diag_error("cannot read the exported filter");
		return false;
	}
	for (off_t i = 0; i < len; i += 8) {
		struct aj_bpf_insn insn;
		memcpy(&insn.code, buf + i, 2);
		insn.jt = buf[i + 2];
		insn.jf = buf[i + 3];
		memcpy(&insn.k, buf + i + 4, 4);
		VEC_PUSH(out->insns, insn);
	}
	return true;
}

/* Another target than x86_64 (--arch=aarch64): libseccomp builds the
 * filter for x86_64 with the target's numbers taken as they are, and its
 * architecture check is turned into the target's.  Translating through
 * libseccomp's other architectures would go by name, and so lose every
 * syscall[N] its table does not know yet (open_tree_attr), where a deny
 * rule must hold.  What stays of x86_64 is the check that kills x32
 * numbers (0x40000000 and up), which on aarch64 name no call.  Exactly
 * one load of the architecture, compared once, else the filter is not
 * one this knows how to move, and the build fails. */
static bool retarget(struct m_filter *f)
{
	if (sysnames_target_arch() == seccomp_arch_native())
		return true;
	size_t n_loads = 0, n_cmps = 0;
	for (size_t i = 0; i < f->insns.n; i++) {
		struct aj_bpf_insn *in = &f->insns.v[i];
		if (in->code != (BPF_LD | BPF_W | BPF_ABS) ||
		    in->k != offsetof(struct seccomp_data, arch))
			continue;
		n_loads++;
		struct aj_bpf_insn *c = i + 1 < f->insns.n ? &f->insns.v[i + 1] : NULL;
		if (c && c->code == (BPF_JMP | BPF_JEQ | BPF_K) && c->k == AUDIT_ARCH_X86_64) {
			c->k = sysnames_target_audit_arch();
			n_cmps++;
		}
	}
	if (n_loads != 1 || n_cmps != 1) {
		diag_error("libseccomp: the filter's architecture check is not the one "
		           "aijail-compile knows how to move to %s",
		           sysnames_target_arch_name());
		return false;
	}
	return true;
}

/* One filter: a default action and the rules whose action differs from it
 * (allow rules, or deny-type rules). */
static bool build_filter(const struct variant *v, int def, int layer, const int *layers,
                         const char *role, struct m_filter *out)
{
	memset(out, 0, sizeof(*out));
	out->role = role;
	scmp_filter_ctx ctx = seccomp_init(scmp_action(def));
	if (!ctx) {
		diag_error("libseccomp: cannot create a filter");
		return false;
	}
	int rc = 0;
	/* The target's native calls only: x32 and int 0x80 on x86_64, AArch32
	 * on aarch64, kill the whole process, not just the thread (libseccomp's
	 * default). */
	rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* A binary tree: longer, but 2.5-3x faster for the kernel to load. */
	rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; i < v->rules.n && !rc; i++) {
		const struct m_rule *r = &v->rules.v[i];
		if (layers[i] != layer)
			continue;
		/* An unconditional rule already covers the conditional ones (and
		 * libseccomp would silently drop them anyway). */
		bool covered = false;
		for (size_t j = 0; j < v->rules.n; j++)
			covered |= r->n_cmp && v->rules.v[j].nr == r->nr && !v->rules.v[j].n_cmp &&
			           v->rules.v[j].action == r->action;
		if (covered)
			continue;
		struct scmp_arg_cmp cmp[6];
		for (int k = 0; k < r->n_cmp; k++)
			cmp[k] = (struct scmp_arg_cmp){
			    (unsigned)r->cmp[k].arg, (enum scmp_compare)r->cmp[k].op,
			    r->cmp[k].op == SCMP_CMP_MASKED_EQ ? r->cmp[k].mask : r->cmp[k].value,
			    r->cmp[k].value};
		rc = seccomp_rule_add_exact_array(ctx, scmp_action(r->action), r->nr,
		                                  (unsigned)r->n_cmp, cmp);
		if (rc) {
			diag_error_at(&r->loc, "libseccomp refused the rule %s: %s", r->text,
			              strerror(-rc));
			seccomp_release(ctx);
			return false;
		}
	}
	if (rc) {
		diag_error("libseccomp: cannot configure the filter: %s", strerror(-rc));
		seccomp_release(ctx);
		return false;
	}
	bool ok = export_filter(ctx, out) && retarget(out);
	seccomp_release(ctx);
	return ok;
}

/* Deny wins over allow, whatever the order: an allowlist and the denies go
 * into two stacked filters, and the kernel applies the more restrictive
 * verdict.  That also keeps libseccomp away from mixing actions on one
 * syscall, where it silently drops rules. */
_Static_assert(AJ_ERRNO_QUIET == ENOSYS, "AJ_ERRNO_QUIET is ENOSYS");

bool bpf_build(struct variant *v)
{
	/* libseccomp mixes actions on one syscall badly, so a syscall whose deny
	 * rules carry several actions (EPERM for one condition, EAFNOSUPPORT
	 * for another) spreads them over layers, one filter each.  Allow rules
	 * are layer -1. */
	int *layers = ast_alloc((v->rules.n + 1) * sizeof(int));
	int n_layers = 0;
	for (size_t i = 0; i < v->rules.n; i++) {
		const struct m_rule *r = &v->rules.v[i];
		if (r->action == M_ACT_ALLOW) {
			layers[i] = -1;
			continue;
		}
		int seen[16], n_seen = 0;
		layers[i] = -2;
		for (size_t j = 0; j < i && layers[i] == -2; j++) {
			const struct m_rule *o = &v->rules.v[j];
			if (o->nr != r->nr || layers[j] < 0)
				continue;
			if (o->action == r->action)
				layers[i] = layers[j];
			else if (n_seen < 16)
				seen[n_seen++] = layers[j];
		}
		if (layers[i] == -2) {
			int l = 0;
			for (bool taken = true; taken; l += taken) {
				taken = false;
				for (int k = 0; k < n_seen; k++)
					taken |= seen[k] == l;
			}
			layers[i] = l;
		}
		if (layers[i] + 1 > n_layers)
			n_layers = layers[i] + 1;
	}
	if (n_layers > 4) {
		diag_error("too many different deny actions on one syscall");
		return false;
	}
	/* What a run reports (aj_variant.refused): the first filter's errno
	 * rules, one entry per call, in number order.  The other layers stay
	 * plain errno filters, since a task's filters may hold one listener
	 * only; an ENOSYS rule is not a refusal (AJ_ERRNO_QUIET). */
	for (int nr = 0; n_layers > 0 && nr < NR_LIMIT; nr++)
		for (size_t i = 0; i < v->rules.n; i++)
			if (v->rules.v[i].nr == nr && layers[i] == 0 && v->rules.v[i].action > 0 &&
			    v->rules.v[i].action != AJ_ERRNO_QUIET) {
				VEC_PUSH(v->refused, nr);
				break;
			}
	struct m_filter f;
	/* The denies go first: once an allowlist is installed, seccomp() itself
	 * may no longer be allowed. */
	if (n_layers == 0 && v->sys_default == M_ACT_ALLOW)
		n_layers = 1; /* the architecture check alone */
	for (int l = 0; l < n_layers; l++) {
		if (!build_filter(v, M_ACT_ALLOW, l, layers, l ? "denylist (more)" : "denylist",
		                  &f))
			return false;
		VEC_PUSH(v->filters, f);
	}
	if (v->sys_default != M_ACT_ALLOW) {
		if (!build_filter(v, v->sys_default, -1, layers, "allowlist", &f))
			return false;
		VEC_PUSH(v->filters, f);
	}
	return true;
}
