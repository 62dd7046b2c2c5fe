/* keys/mbedtls_user.h: what aijail-keys asks of Mbed TLS beyond its default
 * configuration: TLS 1.2 only (the protocol both sides speak; 1.0 and 1.1
 * are off, as are DTLS and the renegotiation a jail could drive), no
 * network or file module but the store's one read. */
#undef MBEDTLS_SSL_PROTO_TLS1
#undef MBEDTLS_SSL_PROTO_TLS1_1
#undef MBEDTLS_SSL_PROTO_DTLS
#undef MBEDTLS_SSL_DTLS_ANTI_REPLAY
#undef MBEDTLS_SSL_DTLS_HELLO_VERIFY
#undef MBEDTLS_SSL_DTLS_CLIENT_PORT_REUSE
#undef MBEDTLS_SSL_DTLS_BADMAC_LIMIT
#undef MBEDTLS_SSL_DTLS_CONNECTION_ID
#undef MBEDTLS_SSL_DTLS_SRTP
#undef MBEDTLS_SSL_RENEGOTIATION
#undef MBEDTLS_SSL_CBC_RECORD_SPLITTING
#undef MBEDTLS_SSL_COOKIE_C
#undef MBEDTLS_TIMING_C
#undef MBEDTLS_NET_C
#undef MBEDTLS_SSL_CACHE_C
#undef MBEDTLS_SSL_TICKET_C
#undef MBEDTLS_SSL_SRV_SUPPORT_SSLV2_CLIENT_HELLO
/* Its platform source reads /dev/urandom unless the libc is glibc; the
 * filter allows no open: getrandom(2) is added as the source (main.c). */
#define MBEDTLS_NO_PLATFORM_ENTROPY
