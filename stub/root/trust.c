/* trust.c: pid 1's half of a run with a key bound (egress/secret.c): the
 * system's bundle, covered at the paths tools read by a copy that adds the
 * run's authority, which signs what aijail-keys shows for the bound hosts.
 * Without a key nothing happens here. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "root/root.h"

#define TRUST_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* Debian's and Alpine's bundle, Fedora's, and OpenSSL's default file. */
static const char *const bundles[] = {TRUST_BUNDLE, "/etc/pki/tls/certs/ca-bundle.crt",
                                      "/etc/ssl/cert.pem"};

static struct mount_attr ro_attr = {
    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
};

/* pid 1, the plan built, before the old root goes; pem: the authority, or
 * NULL (no key).  The bundle is written in the new root's tmpfs (its name
 * removed once mounted) and covers, read-only, each bundle file the jail
 * has; a jail with none fails, saying so. */
void trust_mount(const char *pem)
{
	static const char staged[] = "/.aj-trust";
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
