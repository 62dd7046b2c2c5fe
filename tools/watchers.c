/* watchers.c: aijail-status --watchers, the caller's project watchers
 * (stub/watch/watch.c): which project each serves, its pid, the inotify
 * watches it holds, its age, the scan tables it serves (the stubs and
 * modes that used each), against the share of max_user_watches they may
 * hold together (include/aj_watchstate.h).  Exit status 0. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "aj_owndir.h"
#include "aj_watchstate.h"
#include "status.h"

/* Where the stubs put their watchers' sockets: the same order the stub
 * takes (include/aj_owndir.h, stub/watch/watchtab.c). */
static int watch_dir(char *where, size_t size)
{
	bool absent;
	unsigned k;
	int fd = owndir_watch(false, where, size, &absent, &k);

	if (fd == OWN_NONE)
		snprintf(where, size,
		         "(none: no $XDG_RUNTIME_DIR, $XDG_CACHE_HOME or $HOME of "
		         "the caller's alone)");
	return fd >= 0 ? fd : -1;
}

/* The same share the watchers keep to (include/aj_watchstate.h). */
static unsigned long watch_limit(unsigned long *max)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");

	*max = 0;
	if (f) {
		if (fscanf(f, "%lu", max) != 1)
			*max = 0;
		fclose(f);
	}
	return watch_share_of(*max);
}

int watchers_list(bool json)
{
	char where[4096];
	int d = watch_dir(where, sizeof(where)), n = 0;
	unsigned long max, limit = watch_limit(&max), total = 0;
	time_t now = time(NULL);
	char buf[8192];

	if (json) {
		fputs("{\"directory\": ", stdout);
		status_json_str(d >= 0 ? where : NULL);
		printf(", \"max_user_watches\": %lu, \"limit\": %lu, \"watchers\": [", max, limit);
	} else {
		printf("watchers in %s%s\n", where,
		       d >= 0 ? "" : " (not there, or not the caller's alone)");
	}
	if (d >= 0) {
		int ld = openat(d, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		long got;

		while (ld >= 0 && (got = syscall(SYS_getdents64, ld, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < got;) {
				struct {
					uint64_t ino;
					int64_t off;
					unsigned short reclen;
					unsigned char type;
					char name[];
				} *e = (void *)(buf + off);
				char sb[WATCH_STATE_SIZE], *p, *q;

				off += e->reclen;
				if (watch_state_read(d, e->name, sb, sizeof(sb)) < 0)
					continue;
				unsigned long w = watch_state_num(sb, WS_WATCHES),
				              pid = watch_state_num(sb, WS_PID);
				unsigned long started = watch_state_num(sb, WS_STARTED),
				              used = watch_state_num(sb, WS_USED);
				const char *proj =
				    (p = strstr(sb, WS_PROJECT)) ? p + strlen(WS_PROJECT) : "?";

				if ((q = strchr(proj, '\n')))
					*q = '\0';
				total += w;
				if (json) {
					printf("%s{\"project\": ", n ? ", " : "");
					status_json_str(proj);
					printf(", \"pid\": %lu, \"watches\": %lu, \"age\": %ld, "
					       "\"idle\": %ld, "
					       "\"tables\": [",
					       pid, w, (long)(now - (time_t)started),
					       (long)(now - (time_t)used));
				} else {
					printf("  %s\n    pid %lu, %lu watches, age %lds, idle "
					       "%lds, tables:",
					       proj, pid, w, (long)(now - (time_t)started),
					       (long)(now - (time_t)used));
				}
				p = sb;
				for (int t = 0; (p = strstr(p, WS_TABLE)); t++) {
					char *end = strchr(p + strlen(WS_TABLE), '\n');

					if (end)
						*end = '\0';
					if (json) {
						printf("%s", t ? ", " : "");
						status_json_str(p + strlen(WS_TABLE));
					} else {
						printf("%s %s", t ? ";" : "", p + strlen(WS_TABLE));
					}
					if (!end)
						break;
					*end = '\n';
					p = end;
				}
				fputs(json ? "]}" : "\n", stdout);
				n++;
			}
		}
		if (ld >= 0)
			close(ld);
		close(d);
	}
	if (json)
		printf("], \"watches\": %lu}\n", total);
	else
		printf("%d watcher%s, %lu inotify watches of %lu allowed (max_user_watches %lu)\n",
		       n, n == 1 ? "" : "s", total, limit, max);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
