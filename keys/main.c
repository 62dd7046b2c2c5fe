/* main.c: aijail-keys, exec'd by a stub's parent when --jail-secret binds a
 * key (stub/egress/secret.c).  It holds the run's certificate authority and
 * the bound values, nothing else of the caller's: its environment is empty,
 * its only descriptors are 0-2 and the control socket (3).
 *
 * The parent sends the keys once, gets the authority's certificate back (for
 * the jail's trust bundle), then, for each CONNECT to a bound host, the
 * jail's end and a connected socket to the host (the parent resolves and
 * checks addresses as for any connection, so this process opens none).  A
 * child per connection terminates the jail's TLS with a certificate for the
 * host, verifies the host's against the system's store (read before the
 * filter), and relays, each request head rewritten by request.c. */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mbedtls/ctr_drbg.h"
#include "mbedtls/entropy.h"
#include "mbedtls/error.h"
#include "mbedtls/net_sockets.h"
#include "mbedtls/oid.h"
#include "mbedtls/pem.h"
#include "mbedtls/pk.h"
#include "mbedtls/ssl.h"
#include "mbedtls/x509_crt.h"

#include "keys/keys.h"

#define CTL 3

void keys_filter(void); /* filter.c */

static struct keys_bind binds[KEYS_MAX];
static unsigned n_binds;
static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context drbg;
static mbedtls_pk_context ca_key, leaf_key;
static mbedtls_x509_crt ca_crt, trust;
static char ca_pem[4096];

/* The stub's --jail-log and its summary count a connection refused here
 * (stub/egress/secret.c reads the control socket): "R" TARGET NUL WHY. */
static void tell_parent(const char *target, const char *why)
{
	char m[1 + KEYS_HOST_MAX + 512];
	size_t tl = strnlen(target, KEYS_HOST_MAX - 1), wl = strnlen(why, 511);

	m[0] = 'R';
	memcpy(m + 1, target, tl);
	m[1 + tl] = '\0';
	memcpy(m + 2 + tl, why, wl);
	(void)!send(CTL, m, 2 + tl + wl, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void say(const char *target, const char *what, const char *why)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "aijail-keys: %s %s: %s\n", what, target, why);

	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void fatal(const char *step, int ret)
{
	char e[128], line[320];
	int n;

	mbedtls_strerror(ret, e, sizeof(e));
	n = snprintf(line, sizeof(line), "aijail-keys: fatal: unable to %s: %s\n", step, e);
	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	_exit(125);
}

/* The kernel's generator, by getrandom(2): no file, so nothing to open
 * once the filter is in (mbedtls_user.h). */
static int entropy_getrandom(void *ctx, unsigned char *out, size_t n, size_t *got)
{
	ssize_t r = getrandom(out, n, 0);

	(void)ctx;
	if (r < 0)
		return MBEDTLS_ERR_ENTROPY_SOURCE_FAILED;
	*got = (size_t)r;
	return 0;
}

/* A certificate for subject, valid from yesterday for a day and a year
 * (a clock a little off in the jail still accepts it), signed by the
 * authority; san: the host's name or address, or NULL for the authority. */
static int make_cert(mbedtls_x509_crt *out, mbedtls_pk_context *key, const char *subject,
                     const char *san, bool ca)
{
	mbedtls_x509write_cert w;
	mbedtls_mpi serial;
	unsigned char der[4096], rnd[16], ext[300];
	int ret, len;

	mbedtls_x509write_crt_init(&w);
	mbedtls_mpi_init(&serial);
	mbedtls_ctr_drbg_random(&drbg, rnd, sizeof(rnd));
	rnd[0] &= 0x7f;
	if ((ret = mbedtls_mpi_read_binary(&serial, rnd, sizeof(rnd))))
		goto out;
	mbedtls_x509write_crt_set_version(&w, MBEDTLS_X509_CRT_VERSION_3);
	mbedtls_x509write_crt_set_md_alg(&w, MBEDTLS_MD_SHA256);
	mbedtls_x509write_crt_set_subject_key(&w, key);
	mbedtls_x509write_crt_set_issuer_key(&w, &ca_key);
	if ((ret = mbedtls_x509write_crt_set_serial(&w, &serial)) ||
	    (ret = mbedtls_x509write_crt_set_subject_name(&w, subject)) ||
	    (ret = mbedtls_x509write_crt_set_issuer_name(&w, "CN=aijail run authority,O=aijail")) ||
	    (ret = mbedtls_x509write_crt_set_validity(&w, "20240101000000", "20491231235959")) ||
	    (ret = mbedtls_x509write_crt_set_basic_constraints(&w, ca, ca ? 0 : -1)) ||
	    (ret = mbedtls_x509write_crt_set_subject_key_identifier(&w)) ||
	    (ret = mbedtls_x509write_crt_set_authority_key_identifier(&w)) ||
	    (ret = mbedtls_x509write_crt_set_key_usage(&w, ca ? MBEDTLS_X509_KU_KEY_CERT_SIGN
	                                                      : MBEDTLS_X509_KU_DIGITAL_SIGNATURE)))
		goto out;
	if (san) {
		/* SubjectAltName: SEQUENCE { dNSName [2] } (one name, < 256 bytes). */
		size_t l = strlen(san), h = 0;
		unsigned char a4[4];
		bool ip = inet_pton(AF_INET, san, a4) == 1;

		if (ip)
			l = 4;
		ext[h++] = 0x30;
		if (l + 3 > 127)
			ext[h++] = 0x81;
		ext[h++] = (unsigned char)(l + (l > 127 ? 3 : 2));
		ext[h++] = ip ? 0x87 : 0x82;
		if (l > 127)
			ext[h++] = 0x81;
		ext[h++] = (unsigned char)l;
		memcpy(ext + h, ip ? (const char *)a4 : san, l);
		if ((ret = mbedtls_x509write_crt_set_extension(
		         &w, MBEDTLS_OID_SUBJECT_ALT_NAME,
		         MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME), 0, ext, h + l)))
			goto out;
	}
	len = mbedtls_x509write_crt_der(&w, der, sizeof(der), mbedtls_ctr_drbg_random, &drbg);
	if (len < 0) {
		ret = len;
		goto out;
	}
	ret = mbedtls_x509_crt_parse_der(out, der + sizeof(der) - len, (size_t)len);
	if (!ret && ca) {
		size_t olen;

		ret = mbedtls_pem_write_buffer("-----BEGIN CERTIFICATE-----\n",
		                               "-----END CERTIFICATE-----\n",
		                               der + sizeof(der) - len, (size_t)len,
		                               (unsigned char *)ca_pem, sizeof(ca_pem), &olen);
	}
out:
	mbedtls_x509write_crt_free(&w);
	mbedtls_mpi_free(&serial);
	return ret;
}

/* ---- one connection, in a child of its own ------------------------------- */

static int sock_send(void *ctx, const unsigned char *b, size_t n)
{
	ssize_t w = send(*(int *)ctx, b, n, MSG_NOSIGNAL);

	if (w < 0)
		return errno == EINTR ? MBEDTLS_ERR_SSL_WANT_WRITE : MBEDTLS_ERR_NET_SEND_FAILED;
	return (int)w;
}

static int sock_recv(void *ctx, unsigned char *b, size_t n)
{
	ssize_t r = read(*(int *)ctx, b, n);

	if (r < 0)
		return errno == EINTR ? MBEDTLS_ERR_SSL_WANT_READ : MBEDTLS_ERR_NET_RECV_FAILED;
	return (int)r;
}

static bool ssl_write_all(mbedtls_ssl_context *s, const char *b, size_t n)
{
	while (n) {
		int w = mbedtls_ssl_write(s, (const unsigned char *)b, n);

		if (w == MBEDTLS_ERR_SSL_WANT_READ || w == MBEDTLS_ERR_SSL_WANT_WRITE)
			continue;
		if (w <= 0)
			return false;
		b += w, n -= (size_t)w;
	}
	return true;
}

static bool to_host(void *ctx, const char *b, size_t n)
{
	return ssl_write_all(ctx, b, n);
}

static void reply(mbedtls_ssl_context *s, const char *status, const char *why)
{
	char r[KEYS_HOST_MAX + 640];
	int n = snprintf(r, sizeof(r),
	                 "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nConnection: close\r\n"
	                 "Content-Length: %zu\r\n\r\naijail: %s\n",
	                 status, strlen(why) + 9, why);

	if (n > 0 && (size_t)n < sizeof(r))
		ssl_write_all(s, r, (size_t)n);
	mbedtls_ssl_close_notify(s);
}

static noreturn void serve(int c, int u, const char *target, bool answer)
{
	static const char *alpn[] = {"http/1.1", NULL};
	static struct keys_req q;
	mbedtls_ssl_config sc, cc;
	mbedtls_ssl_context js, hs;
	mbedtls_x509_crt leaf;
	char host[KEYS_HOST_MAX], subj[KEYS_HOST_MAX + 4], why[256];
	int ret;
	uint32_t flags;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	/* Forked from one generator: a child that did not reseed would share
	 * its siblings' random stream (their ECDHE secrets). */
	if ((ret = mbedtls_ctr_drbg_reseed(&drbg, NULL, 0)))
		fatal("reseed the random generator", ret);
	memcpy(host, target, strlen(target) + 1);
	*strrchr(host, ':') = '\0';
	if (host[0] == '[') /* an IPv6 literal: its certificate names no DNS name */
		memmove(host, host + 1, strlen(host)), host[strlen(host) - 1] = '\0';
	snprintf(subj, sizeof(subj), "CN=%s", host);
	mbedtls_x509_crt_init(&leaf);
	if ((ret = make_cert(&leaf, &leaf_key, subj, host, false)))
		fatal("make the host's certificate", ret);
	if ((ret = mbedtls_x509_crt_parse_der(&leaf, ca_crt.raw.p, ca_crt.raw.len)))
		fatal("chain the host's certificate", ret);
	if (answer && write(c, ok, sizeof(ok) - 1) != (ssize_t)(sizeof(ok) - 1))
		_exit(0);

	mbedtls_ssl_config_init(&sc);
	mbedtls_ssl_init(&js);
	if ((ret = mbedtls_ssl_config_defaults(&sc, MBEDTLS_SSL_IS_SERVER,
	                                       MBEDTLS_SSL_TRANSPORT_STREAM,
	                                       MBEDTLS_SSL_PRESET_DEFAULT)) ||
	    (ret = mbedtls_ssl_conf_own_cert(&sc, &leaf, &leaf_key)) ||
	    (ret = mbedtls_ssl_conf_alpn_protocols(&sc, alpn)))
		fatal("configure the jail's side", ret);
	mbedtls_ssl_conf_rng(&sc, mbedtls_ctr_drbg_random, &drbg);
	mbedtls_ssl_conf_min_version(&sc, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	if ((ret = mbedtls_ssl_setup(&js, &sc)))
		fatal("set up the jail's side", ret);
	mbedtls_ssl_set_bio(&js, &c, sock_send, sock_recv, NULL);
	while ((ret = mbedtls_ssl_handshake(&js)))
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && ret != MBEDTLS_ERR_SSL_WANT_WRITE) {
			mbedtls_strerror(ret, why, sizeof(why));
			say(target, "no handshake with the jail's client for", why);
			_exit(0);
		}

	mbedtls_ssl_config_init(&cc);
	mbedtls_ssl_init(&hs);
	if ((ret = mbedtls_ssl_config_defaults(&cc, MBEDTLS_SSL_IS_CLIENT,
	                                       MBEDTLS_SSL_TRANSPORT_STREAM,
	                                       MBEDTLS_SSL_PRESET_DEFAULT)) ||
	    (ret = mbedtls_ssl_conf_alpn_protocols(&cc, alpn)))
		fatal("configure the host's side", ret);
	mbedtls_ssl_conf_authmode(&cc, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(&cc, &trust, NULL);
	mbedtls_ssl_conf_rng(&cc, mbedtls_ctr_drbg_random, &drbg);
	mbedtls_ssl_conf_min_version(&cc, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	if ((ret = mbedtls_ssl_setup(&hs, &cc)) || (ret = mbedtls_ssl_set_hostname(&hs, host)))
		fatal("set up the host's side", ret);
	mbedtls_ssl_set_bio(&hs, &u, sock_send, sock_recv, NULL);
	while ((ret = mbedtls_ssl_handshake(&hs)))
		if (ret != MBEDTLS_ERR_SSL_WANT_READ && ret != MBEDTLS_ERR_SSL_WANT_WRITE) {
			char m[KEYS_HOST_MAX + 320];

			flags = mbedtls_ssl_get_verify_result(&hs);
			if (flags && flags != (uint32_t)-1) {
				mbedtls_x509_crt_verify_info(why, sizeof(why), "", flags);
				why[strcspn(why, "\n")] = '\0';
			} else {
				mbedtls_strerror(ret, why, sizeof(why));
			}
			snprintf(m, sizeof(m),
			         "the host's certificate does not verify (%s); nothing sent", why);
			say(target, "refused", m);
			tell_parent(target, m);
			snprintf(m, sizeof(m), "%s: the host's certificate does not verify (%s)",
			         target, why);
			reply(&js, "502 Bad Gateway", m);
			_exit(0);
		}

	keys_req_init(&q, binds, n_binds, target);
	for (;;) {
		struct pollfd p[2] = {{.fd = c, .events = POLLIN}, {.fd = u, .events = POLLIN}};
		static unsigned char b[16384];
		const char *bad;
		int r;

		if (!mbedtls_ssl_get_bytes_avail(&js) && !mbedtls_ssl_get_bytes_avail(&hs) &&
		    poll(p, 2, -1) < 0 && errno != EINTR)
			_exit(0);
		if (p[0].revents || mbedtls_ssl_get_bytes_avail(&js)) {
			r = mbedtls_ssl_read(&js, b, sizeof(b));
			if (r == 0 || (r < 0 && r != MBEDTLS_ERR_SSL_WANT_READ))
				break;
			if (r > 0 &&
			    (bad = keys_req_feed(&q, (char *)b, (size_t)r, to_host, &hs))) {
				say(target, "closed a connection to", bad);
				tell_parent(target, bad);
				reply(&js, "400 Bad Request", bad);
				_exit(0);
			}
		}
		if (p[1].revents || mbedtls_ssl_get_bytes_avail(&hs)) {
			r = mbedtls_ssl_read(&hs, b, sizeof(b));
			if (r == 0 || (r < 0 && r != MBEDTLS_ERR_SSL_WANT_READ))
				break;
			if (r > 0 && !ssl_write_all(&js, (char *)b, (size_t)r))
				break;
		}
	}
	mbedtls_ssl_close_notify(&js);
	_exit(0);
}

/* ---- the control socket --------------------------------------------------- */

static void setup(void)
{
	static const char *const stores[] = {"/etc/ssl/certs/ca-certificates.crt",
	                                     "/etc/pki/tls/certs/ca-bundle.crt",
	                                     "/etc/ssl/cert.pem"};
	ssize_t r = recv(CTL, binds, sizeof(binds), 0);
	int ret = -1;

	if (r <= 0 || r % (ssize_t)sizeof(binds[0]))
		fatal("read the keys", MBEDTLS_ERR_ERROR_GENERIC_ERROR);
	n_binds = (unsigned)(r / (ssize_t)sizeof(binds[0]));
	mbedtls_entropy_init(&entropy);
	mbedtls_ctr_drbg_init(&drbg);
	if ((ret = mbedtls_entropy_add_source(&entropy, entropy_getrandom, NULL, 32,
	                                      MBEDTLS_ENTROPY_SOURCE_STRONG)) ||
	    (ret = mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy,
	                                 (const unsigned char *)"aijail-keys", 11)))
		fatal("seed the random generator", ret);
	mbedtls_pk_init(&ca_key);
	mbedtls_pk_init(&leaf_key);
	mbedtls_x509_crt_init(&ca_crt);
	mbedtls_x509_crt_init(&trust);
	if ((ret = mbedtls_pk_setup(&ca_key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY))) ||
	    (ret = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(ca_key),
	                               mbedtls_ctr_drbg_random, &drbg)) ||
	    (ret = mbedtls_pk_setup(&leaf_key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY))) ||
	    (ret = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(leaf_key),
	                               mbedtls_ctr_drbg_random, &drbg)))
		fatal("make the run's keys", ret);
	if ((ret = make_cert(&ca_crt, &ca_key, "CN=aijail run authority,O=aijail", NULL, true)))
		fatal("make the run's authority", ret);
	/* The system's store, read once, before the filter takes open away;
	 * a bundle with a certificate Mbed TLS cannot read still loads the
	 * others (ret > 0). */
	for (unsigned i = 0; i < sizeof(stores) / sizeof(stores[0]); i++)
		if ((ret = mbedtls_x509_crt_parse_file(&trust, stores[i])) >= 0 && trust.version)
			break;
	if (!trust.version)
		fatal(
		    "read the system's trust store (/etc/ssl/certs/ca-certificates.crt, "
		    "/etc/pki/tls/certs/ca-bundle.crt or /etc/ssl/cert.pem; on Debian and Ubuntu, "
		    "install ca-certificates)",
		    ret);
	if (send(CTL, ca_pem, strlen(ca_pem), MSG_NOSIGNAL) < 0)
		_exit(125);
}

int main(void)
{
	struct sigaction sa = {.sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT};

	/* Not dumpable before a value is read: a process of the caller's
	 * uid (a jailed one cannot name this one, being in its own pid
	 * namespace) may not attach to it or read its memory. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		_exit(125);
	sigaction(SIGCHLD, &sa, NULL);
	setup();
	keys_filter();
	for (;;) {
		char target[KEYS_HOST_MAX], cbuf[CMSG_SPACE(2 * sizeof(int))];
		struct iovec iov = {target, sizeof(target) - 1};
		struct msghdr m = {.msg_iov = &iov,
		                   .msg_iovlen = 1,
		                   .msg_control = cbuf,
		                   .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *cm;
		ssize_t r = recvmsg(CTL, &m, MSG_CMSG_CLOEXEC);
		int fds[2];

		if (r <= 0)
			_exit(0); /* the parent is gone: the run is over */
		target[r] = '\0';
		cm = CMSG_FIRSTHDR(&m);
		if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(2 * sizeof(int)))
			continue;
		memcpy(fds, CMSG_DATA(cm), sizeof(fds));
		if (r < 2 || (target[0] != KEYS_HAND_CONNECT && target[0] != KEYS_HAND_RELAY)) {
			close(fds[0]);
			close(fds[1]);
			continue;
		}
		/* The proxy's ends are non-blocking; a child per connection
		 * waits on them in turn. */
		fcntl(fds[0], F_SETFL, 0);
		fcntl(fds[1], F_SETFL, 0);
		/* The child keeps the control socket to say what it refused,
		 * and reads nothing from it. */
		if (!fork())
			serve(fds[0], fds[1], target + 1, target[0] == KEYS_HAND_CONNECT);
		close(fds[0]);
		close(fds[1]);
	}
}
