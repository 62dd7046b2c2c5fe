/* trust.c: with a key bound (secret.c), the jail trusts the run's
 * authority, which signs the certificates aijail-keys shows for the bound
 * hosts: pid 1 covers the system's bundle at the paths tools read with a
 * copy that adds it, and the variables tools read name that bundle.  A run
 * with no key is as before: none of this happens. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "egress/egress.h"

#define TRUST_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* Debian's and Alpine's bundle, Fedora's, and OpenSSL's default file. */
static const char *const bundles[] = {TRUST_BUNDLE, "/etc/pki/tls/certs/ca-bundle.crt",
                                      "/etc/ssl/cert.pem"};

/* Python (ssl, requests, pip), curl, Node, git, cargo: each reads one. */
static const char *const trust_vars[] = {
    "SSL_CERT_FILE=" TRUST_BUNDLE,     "REQUESTS_CA_BUNDLE=" TRUST_BUNDLE,
    "CURL_CA_BUNDLE=" TRUST_BUNDLE,    "NODE_EXTRA_CA_CERTS=" TRUST_BUNDLE,
    "PIP_CERT=" TRUST_BUNDLE,          "GIT_SSL_CAINFO=" TRUST_BUNDLE,
    "CARGO_HTTP_CAINFO=" TRUST_BUNDLE, "AWS_CA_BUNDLE=" TRUST_BUNDLE};

static struct mount_attr ro_attr = {
    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
};

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

/* pid 1, the plan built, before the old root goes: the bundle in the new
 * root's tmpfs (its name removed once it is mounted), read-only over
 * each bundle the jail has.  A jail without one gets it at
 * TRUST_BUNDLE's place only if /etc is a tree of ours, which no shipped
 * profile makes: it fails instead, saying so. */
void trust_mount(void)
{
	static const char staged[] = "/.aj-trust";
	const char *pem = secret_ca_pem();
	unsigned covered = 0;
	int out, in, tree;

	if (!pem)
		return;
	out = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (out < 0)
		die("write the jail's trust bundle", errno, NULL);
	in = open(TRUST_BUNDLE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in >= 0) {
		ssize_t n;

		while ((n = sendfile(out, in, NULL, 1 << 20)) > 0)
			;
		if (n < 0)
			die("copy the system's trust bundle", errno, NULL);
		close(in);
		if (write(out, "\n", 1) != 1)
			die("write the jail's trust bundle", errno, NULL);
	}
	if (write(out, pem, strlen(pem)) != (ssize_t)strlen(pem))
		die("write the jail's trust bundle", errno, NULL);
	close(out);
	tree = sys_open_tree(AT_FDCWD, staged, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0 || sys_mount_setattr(tree, "", AT_EMPTY_PATH, &ro_attr))
		die("mount the jail's trust bundle", errno, NULL);
	for (unsigned i = 0; i < sizeof(bundles) / sizeof(bundles[0]); i++) {
		/* A link (cert.pem -> certs/ca-certificates.crt) leads to a
		 * bundle covered in its own right: only files are covered,
		 * each by its descriptor. */
		int t = plan_open_inside(bundles[i], plan_n);
		struct stat st;

		if (t < 0)
			continue;
		if (!fstat(t, &st) && S_ISREG(st.st_mode)) {
			int c = sys_open_tree(tree, "",
			                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

			if (c < 0 ||
			    sys_move_mount(c, "", t, "",
			                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
				diep("mount the jail's trust bundle on", bundles[i], errno, NULL);
			close(c);
			covered++;
		}
		close(t);
	}
	close(tree);
	if (unlink(staged))
		die("remove the staged trust bundle", errno, NULL);
	if (!covered)
		die("give the jail the run's authority", ENOENT,
		    "--jail-secret needs a system trust bundle (" TRUST_BUNDLE ") in the jail");
}
