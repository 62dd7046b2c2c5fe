/* sha256.h: SHA-256 (FIPS 180-4), for the policy identity. */
#ifndef AJ_SHA256_H
#define AJ_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

void sha256(const void *data, size_t n, uint8_t out[SHA256_LEN]);

#endif
