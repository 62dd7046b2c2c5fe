/* keys.h: what a stub's parent sends aijail-keys (keys/main.c) when
 * --jail-secret binds keys (stub/egress/secret.c): the one contract
 * between the two programs, built from the same tree. */
#ifndef AJ_KEYS_WIRE_H
#define AJ_KEYS_WIRE_H

#define KEYS_MAX       8    /* keys of one run */
#define KEYS_HOSTS     8    /* hosts of one key */
#define KEYS_NAME_MAX  64   /* a variable's name */
#define KEYS_VALUE_MAX 4096 /* a key's value */
#define KEYS_HOST_MAX  262  /* HOST:PORT */
/* "aijail-secret-" NAME "-" and 32 hex digits (128 random bits). */
#define KEYS_PH_RAND  32
#define KEYS_PH_MAX   (14 + KEYS_NAME_MAX + 1 + KEYS_PH_RAND + 1)
#define KEYS_HEAD_MAX 16384 /* a request's head, as the jail sent it */
#define KEYS_OUT_MAX  (KEYS_HEAD_MAX * 2 + 4 * KEYS_VALUE_MAX)

/* A connection handed over (SCM_RIGHTS: the jail's end, the host's) comes
 * with one of these bytes, then HOST:PORT: the jail's client asked
 * CONNECT and waits for its 200, or it reached the relay (egress/names.c)
 * and speaks TLS at once. */
#define KEYS_HAND_CONNECT 'C'
#define KEYS_HAND_RELAY   'T'

/* A key's NAME, the caller's variable: a policy's `secret NAME` (the
 * compiler) and --jail-secret NAME=... (the stub) take the same ones.
 * Its first n bytes. */
static inline int keys_name_ok(const char *s, unsigned long n)
{
	if (!n || n >= KEYS_NAME_MAX || (*s >= '0' && *s <= '9'))
		return 0;
	for (unsigned long i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

struct keys_bind {
	char name[KEYS_NAME_MAX];
	char value[KEYS_VALUE_MAX];
	char placeholder[KEYS_PH_MAX];
	unsigned n_hosts;
	char hosts[KEYS_HOSTS][KEYS_HOST_MAX]; /* HOST:PORT, as hosts_normal() writes it */
};

#endif
