/* hosts.h: the hosts of 'network allow' (hosts.c), shared by the stub and
 * the compiler. */
#ifndef AJ_HOSTS_H
#define AJ_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr;

/* in ("NAME[:PORT]", "*.NAME[:PORT]" when pattern, "A.B.C.D[:PORT]",
 * "[V6][:PORT]") in its normal spelling (aj_table.h: AJ_HOSTS_MAX), 443
 * when no port is written.  NULL, or what is wrong and at which byte of
 * in (*at). */
const char *hosts_normal(const char *in, bool pattern, char *out, size_t size, size_t *at);
/* Does the normal target match the normal pattern (name and port)? */
bool hosts_match(const char *pattern, const char *target);
/* Is the normal target a literal address rather than a name? */
bool hosts_literal(const char *target);
/* Why a name may not lead to this address (loopback, private, …), or NULL. */
const char *hosts_addr_refused(const struct sockaddr *sa);
/* The normal "HOST:PORT" of an http or https URL (url, n bytes). */
bool hosts_url_host(const char *url, size_t n, char *out, size_t size);

/* The parent's resolver: a question for name (type 1: A, 28: AAAA) in
 * out, its length (0: no valid name); the addresses of that type in a
 * response m to the question q (qn bytes), each in 16 bytes (an IPv4 one
 * in the first 4): how many, 0 for no such name, -1 for a response that
 * is not the answer to q. */
size_t hosts_dns_query(const char *name, uint16_t type, uint16_t id, uint8_t *out, size_t size);
int hosts_dns_answers(const uint8_t *m, size_t n, const uint8_t *q, size_t qn, uint8_t (*addr)[16],
                      int max);
/* The least TTL (seconds) of the answer records of m, a response that
 * hosts_dns_answers() took (its question qn bytes): how long its answer
 * may be kept; 0 when it has none or is cut short. */
uint32_t hosts_dns_ttl(const uint8_t *m, size_t n, size_t qn);

#endif
