/* build.c: aijail-compile --build: the header, the runtime installed
 * beside the compiler, musl-gcc, and out comes a stub.
 *
 * The runtime (PREFIX/lib/aijail, or the tree's build/lib/aijail) is the
 * stub's code as one archive, the file compiled once per policy
 * (stub/policy.c) with the headers it includes, and stub.flags: the flags
 * the runtime was compiled with, which the policy's part and the link
 * must share (-flto: the archive holds GCC's intermediate code). */
#include "build.h"
#include "emit.h"

#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *build_install_dir(const char *sub)
{
	static char exe[4096];
	if (!exe[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0 || n >= (ssize_t)sizeof(exe) - 1)
			return NULL;
		exe[n] = 0;
	}
	/* exe is PREFIX/bin/aijail-compile. */
	char *prefix = ast_strdup(exe);
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(prefix, '/');
		if (!slash)
			return NULL;
		*slash = 0;
	}
	char *dir = *sub ? ast_printf("%s/%s", prefix, sub) : (prefix[0] ? prefix : "/");
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* The program a name runs: itself when it has a '/', else found in PATH. */
static const char *find_program(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? name : NULL;
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	for (;;) {
		const char *end = strchrnul(path, ':');
		if (end > path) {
			char *cand = ast_printf("%.*s/%s", (int)(end - path), path, name);
			struct stat st;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
				return cand;
		}
		if (!*end)
			return NULL;
		path = end + 1;
	}
}

struct args {
	char **v;
	size_t n, cap;
};

static void arg(struct args *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **nv = ast_alloc(cap * sizeof(*nv));
		if (a->n)
			memcpy(nv, a->v, a->n * sizeof(*nv));
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = ast_strdup(s);
	a->v[a->n] = NULL;
}

/* Words separated by blanks, no quoting: the Makefile writes the file. */
static void words(struct args *a, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " \t");
		if (n)
			arg(a, ast_strndup(s, n));
		s += n;
		s += strspn(s, " \t");
	}
}

/* The value of "KEY=words" in stub.flags. */
static bool flags_read(const char *file, const char *key, struct args *a)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	size_t kl = strlen(key);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, key, kl) && line[kl] == '=') {
			words(a, line + kl + 1);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool run(const struct args *a)
{
	pid_t pid = fork();
	if (pid < 0) {
		diag_error("cannot start %s: %s", a->v[0], strerror(errno));
		return false;
	}
	if (pid == 0) {
		/* musl-gcc's messages belong with ours, on stderr. */
		dup2(2, 1);
		execv(a->v[0], a->v);
		fprintf(stderr, "aijail-compile: error: cannot run %s: %s\n", a->v[0],
		        strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			diag_error("cannot wait for %s: %s", a->v[0], strerror(errno));
			return false;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	diag_error("%s failed (%s %d)", a->v[0], WIFEXITED(st) ? "exit status" : "signal",
	           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return false;
}

static bool write_header(const char *path, const struct compiled *c, const char *source)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		diag_error("cannot write '%s': %s", path, strerror(errno));
		return false;
	}
	bool ok = emit_header(f, c, source);
	if (fclose(f) != 0 || !ok) {
		diag_error("cannot write '%s': %s", path, strerror(errno));
		return false;
	}
	return true;
}

int build_stub(const struct compiled *c, const char *source, const char *out)
{
	/* AIJAIL_MUSL_GCC names another driver (or, in the tests, none). */
	const char *musl_name = getenv("AIJAIL_MUSL_GCC");
	if (!musl_name || !*musl_name)
		musl_name = "musl-gcc";
	const char *musl = find_program(musl_name);
	if (!musl) {
		diag_error("%s not found: --build links the stub with musl; install the package "
		           "musl-tools (apt-get install musl-tools)",
		           musl_name);
		return 1;
	}
	const char *rt = build_install_dir("lib/aijail");
	const char *archive = rt ? ast_printf("%s/libaijail-stub.a", rt) : NULL;
	const char *flags = rt ? ast_printf("%s/stub.flags", rt) : NULL;
	struct args cflags = {0}, ldflags = {0};
	if (!rt || access(archive, R_OK) != 0 || !flags_read(flags, "CFLAGS", &cflags) ||
	    !flags_read(flags, "LDFLAGS", &ldflags)) {
		const char *pre = build_install_dir("");
		diag_error("no stub runtime beside this compiler (%s/lib/aijail: libaijail-stub.a, "
		           "stub.flags): install aijail with 'make install', or run 'make' in its "
		           "source tree",
		           pre ? pre : "?");
		return 1;
	}

	const char *tmpdir = getenv("TMPDIR");
	char *tmp = ast_printf("%s/aijail-build.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp)) {
		diag_error("cannot make a temporary folder '%s': %s", tmp, strerror(errno));
		return 1;
	}
	char *header = ast_printf("%s/policy.h", tmp), *obj = ast_printf("%s/policy.o", tmp);
	/* Linked beside the target and renamed: a failed build never leaves
	 * a half-written stub under the name asked for. */
	char *part = ast_printf("%s.tmp.%d", out, (int)getpid());
	bool ok = write_header(header, c, source);
	if (ok) {
		struct args cc = {0};
		arg(&cc, musl);
		for (size_t i = 0; i < cflags.n; i++)
			arg(&cc, cflags.v[i]);
		arg(&cc, ast_printf("-I%s", rt));
		arg(&cc, ast_printf("-I%s/include", rt));
		arg(&cc, ast_printf("-DAJ_POLICY_HEADER=\"%s\"", header));
		arg(&cc, "-c");
		arg(&cc, "-o");
		arg(&cc, obj);
		arg(&cc, ast_printf("%s/stub/policy.c", rt));
		ok = run(&cc);
	}
	if (ok) {
		struct args ld = {0};
		arg(&ld, musl);
		for (size_t i = 0; i < ldflags.n; i++)
			arg(&ld, ldflags.v[i]);
		arg(&ld, "-o");
		arg(&ld, part);
		arg(&ld, obj);
		arg(&ld, archive);
		ok = run(&ld);
	}
	if (ok && rename(part, out) != 0) {
		diag_error("cannot write '%s': %s", out, strerror(errno));
		ok = false;
	}
	if (!ok)
		unlink(part);
	unlink(obj);
	unlink(header);
	rmdir(tmp);
	if (!ok)
		return 1;
	fprintf(stderr, "aijail-compile: %s: policy %s, %s\n", out, c->policy->name,
	        emit_identity(c));
	return 0;
}
