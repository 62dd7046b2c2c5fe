/* guards.c: 'scan guard' paths, after the walk.  A guarded path present
 * was masked by its pattern; one covered by a cover above it needs
 * nothing; one absent has its first missing part noted (scan_add_guard)
 * for the fence, which keeps what appears there unreadable. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "scan/scan.h"

static bool covered(const char *p)
{
	for (unsigned i = 0; i < hits_cur->n; i++)
		if (hits_cur->hits[i].kind && !strcmp(hits_cur->arena + hits_cur->hits[i].off, p))
			return true;
	return false;
}

void guards_scan(int pfd, const struct aj_variant *v)
{
	const struct aj_scan *sc = v->scan;
	static char part[AJ_PATH_MAX];

	if (!scan_needed(v))
		return;
	for (unsigned g = 0; g < sc->n_guards; g++) {
		const char *p = sc->guards[g];
		size_t len = 0;
		struct stat st;

		for (;;) {
			size_t n = strcspn(p + len, "/");

			if (len + n + 1 > sizeof(part))
				diep("scan", p, ENAMETOOLONG, NULL);
			memcpy(part, p, len + n);
			part[len + n] = '\0';
			if (covered(part))
				break;
			if (fstatat(pfd, part, &st, AT_SYMLINK_NOFOLLOW)) {
				if (errno != ENOENT)
					diep("inspect", part, errno,
					     errno == EACCES
					         ? "a directory of the project cannot be "
					           "searched, so it cannot be checked for "
					           "secrets; chmod u+x it"
					         : NULL);
				scan_add_guard(part, len + n);
				break;
			}
			len += n;
			if (!p[len] || !S_ISDIR(st.st_mode))
				break; /* present (masked by its pattern), or under a non-directory
				        */
			len++;
		}
	}
}
