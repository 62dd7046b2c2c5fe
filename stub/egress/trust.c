/* trust.c: with a key bound (secret.c), the jail trusts the run's
 * authority, which signs the certificates aijail-keys shows for the bound
 * hosts: the variables tools read name the bundle that pid 1 covers the
 * system's with (root/trust.c).  A run with no key is as before. */
#include <errno.h>
#include <string.h>

#include "egress/egress.h"

#define TRUST_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* Python (ssl, requests, pip), curl, Node, git, cargo: each reads one. */
static const char *const trust_vars[] = {
    "SSL_CERT_FILE=" TRUST_BUNDLE,     "REQUESTS_CA_BUNDLE=" TRUST_BUNDLE,
    "CURL_CA_BUNDLE=" TRUST_BUNDLE,    "NODE_EXTRA_CA_CERTS=" TRUST_BUNDLE,
    "PIP_CERT=" TRUST_BUNDLE,          "GIT_SSL_CAINFO=" TRUST_BUNDLE,
    "CARGO_HTTP_CAINFO=" TRUST_BUNDLE, "AWS_CA_BUNDLE=" TRUST_BUNDLE};

/* The caller, after env_build(): the variables, replacing the caller's
 * own (a bundle of the caller's would not hold the run's authority). */
void trust_env(char **envp, size_t max)
{
	if (!secret_ca_pem())
		return;
	for (unsigned i = 0; i < sizeof(trust_vars) / sizeof(trust_vars[0]); i++) {
		size_t nl = (size_t)(strchr(trust_vars[i], '=') - trust_vars[i]) + 1, k;

		for (k = 0; envp[k] && strncmp(envp[k], trust_vars[i], nl); k++)
			;
		if (k + 1 >= max)
			die("build the environment", E2BIG, "the host passes too many variables");
		if (!envp[k])
			envp[k + 1] = NULL;
		envp[k] = (char *)trust_vars[i];
	}
}
