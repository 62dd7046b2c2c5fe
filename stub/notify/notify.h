/* notify/notify.h: the interface of the room notify/: the refused calls: the listener's verdicts,
 * the count and the summary line, the log (refusals and what was reached). Included by its files
 * and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_NOTIFY_H
#define AJ_STUB_NOTIFY_H

#include "base/base.h"
#include "root/root.h"

/* summary.c: refusals of one kind, counted, with the first names. */
#define RF_SHOWN 4 /* names a summary gives; "…" for the rest */
struct refusal_list {
	unsigned n;     /* refusals */
	unsigned shown; /* distinct names kept in name[] */
	bool more;      /* and other names beside */
	const char *name[RF_SHOWN];
};
void summary_add(struct refusal_list *l, const char *name, char (*store)[AJ_HOST_MAX]);
size_t summary_line(char *buf, size_t size, const char *prog, const struct refusal_list *conns,
                    const struct refusal_list *calls);

/* verdict.c: a compiled filter's verdict on one call (notify.c). */
struct seccomp_data;
bool verdict_known(const struct aj_filter *f);
uint32_t verdict_run(const struct aj_filter *f, const struct seccomp_data *d);

/* notify.c: the refused calls through a listener (pid 1 installs it, the
 * parent answers); refusals.c: what was refused, told at the end. */
int notify_filter(const struct aj_variant *v, int *err);
extern int notify_fd;
const struct ev_source *notify_start(const struct aj_variant *v, int sock);
void notify_answer(void);

void refusals_listener(const struct aj_variant *v, int err);
void refusals_call(unsigned nr, int err);
void refusals_host(const char *kind, const char *target, const char *why);
void refusals_report(void);
bool refusals_log_begin(const char *kind, bool allowed); /* the log's line, for reached.c */
void refusals_log_end(void);

/* reached.c: a connection the proxy allowed, one line at its close
 * (target "HOST:PORT", to: the address it reached, since_ms: when it
 * began, reached_now_ms()'s clock); reached_on: --jail-log-allowed. */
struct sockaddr;
extern bool reached_on;
uint64_t reached_now_ms(void);
/* A published port's connection (egress/forward.c): the host's address
 * it came in on, the jail's port it went to. */
void reached_published(const struct sockaddr *on, unsigned port, uint64_t up, uint64_t down,
                       uint64_t since_ms);
void reached_conn(const char *target, const struct sockaddr *to, uint64_t up, uint64_t down,
                  uint64_t since_ms);

#endif
