/* identity.h: a policy's identity and what wrote it. */
#ifndef AJ_IDENTITY_H
#define AJ_IDENTITY_H

#include <stddef.h>

const char *identity_maker(void); /* "aijail-compile VERSION, libseccomp V" */
/* "sha256:HEX (MAKER)" of the emitted tables BUF. */
char *identity_of(const char *buf, size_t len);

#endif
