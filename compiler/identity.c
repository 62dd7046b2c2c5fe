/* identity.c: a policy's identity, the SHA-256 of its tables as emitted,
 * and what wrote them. */
#include "identity.h"
#include "ast.h"
#include "sha256.h"

#include <seccomp.h>
#include <stdio.h>

/* The Makefile defines it; the fuzz harnesses, built without it, say so. */
#ifndef AIJAIL_VERSION
#define AIJAIL_VERSION "unversioned"
#endif

/* What wrote the tables: this compiler, and the libseccomp it runs with,
 * since that library builds the seccomp program and two of its versions
 * emit different programs from the same rules (2.5.4 and 2.6.0 differ by
 * one instruction on a policy).  The library loaded at run time, not the
 * one compiled against: a Debian upgrade swaps it under the binary. */
const char *identity_maker(void)
{
	/* A buffer of its own, not the arena: the fuzz target frees the arena
	 * after every input, and the maker outlives them all. */
	static char maker[96];
	if (!maker[0]) {
		const struct scmp_version *v = seccomp_version();
		if (v)
			snprintf(maker, sizeof(maker), "aijail-compile %s, libseccomp %u.%u.%u",
			         AIJAIL_VERSION, v->major, v->minor, v->micro);
		else
			snprintf(maker, sizeof(maker), "aijail-compile %s", AIJAIL_VERSION);
	}
	return maker;
}

/* The policy's identity: the SHA-256 of its tables as emitted (the same
 * tables, the same identity, whichever file or folder they came from),
 * and what wrote them. */
char *identity_of(const char *buf, size_t len)
{
	uint8_t h[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	sha256(buf, len, h);
	for (int i = 0; i < SHA256_LEN; i++)
		sprintf(hex + 2 * i, "%02x", h[i]);
	return ast_printf("sha256:%s (%s)", hex, identity_maker());
}
