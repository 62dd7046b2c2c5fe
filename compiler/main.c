/* main.c: aijail-compile's command line. */
#include "build.h"
#include "diag.h"
#include "model.h"
#include "sysnames.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: aijail-compile [-I DIR]… [-p POLICY] [-o OUT.h] [--arch=ARCH] [--explain] "
	      "POLICY.aj\n"
	      "       aijail-compile --build [-I DIR]… [-p POLICY] [-o STUB] POLICY.aj\n"
	      "       aijail-compile --identity [-I DIR]… [-p POLICY] POLICY.aj\n"
	      "       aijail-compile --list-groups | --expand-group @GROUP\n"
	      "Compiles an aijail policy into a C header of constant tables for the stub.\n"
	      "  -I DIR      search DIR for include files (after the including file's directory;\n"
	      "              then the shipped policies, PREFIX/share/aijail/policies)\n"
	      "  -p POLICY   the policy to compile (default: the last one in POLICY.aj)\n"
	      "  -o OUT.h    write the header there (default: standard output)\n"
	      "  --arch=ARCH the machine the stub runs on: x86_64 (default) or aarch64\n"
	      "  --build     write a static stub instead (-o STUB, default jail-POLICY), linked\n"
	      "              with the runtime in PREFIX/lib/aijail by musl-gcc; an -o ending\n"
	      "              in .h still writes the header only\n"
	      "  --identity  print the policy's identity (the hash of its tables, the compiler)\n"
	      "  --explain   print the syscall policy of every command group x mode instead\n"
	      "  --list-groups  print the syscall groups\n"
	      "  --list-constants  print the constants and errno values conditions may name\n"
	      "  --expand-group @GROUP  print the syscall numbers and names of a group\n",
	      f);
}

int main(int argc, char **argv)
{
	const char *dirs[64];
	size_t n_dirs = 0;
	const char *out = NULL, *input = NULL, *name = NULL;
	bool do_explain = false, do_build = false, do_identity = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-I") || !strcmp(a, "-o") || !strcmp(a, "-p")) {
			if (i + 1 >= argc) {
				usage(stderr);
				return 2;
			}
			const char *val = argv[++i];
			if (a[1] == 'I' && n_dirs < 64)
				dirs[n_dirs++] = val;
			else if (a[1] == 'o')
				out = val;
			else
				name = val;
		} else if (!strncmp(a, "-I", 2)) {
			if (n_dirs < 64)
				dirs[n_dirs++] = a + 2;
		} else if (!strncmp(a, "--arch=", 7)) {
			if (!sysnames_target_arch_set(a + 7)) {
				fprintf(
				    stderr,
				    "aijail-compile: error: unknown architecture '%s' (x86_64 or "
				    "aarch64)\n",
				    a + 7);
				return 2;
			}
			/* Another target's filters are x86_64's with their check
			 * moved (bpf.c): that needs libseccomp to build for x86_64. */
			if (sysnames_target_arch() != seccomp_arch_native() &&
			    seccomp_arch_native() != SCMP_ARCH_X86_64) {
				fprintf(
				    stderr,
				    "aijail-compile: error: --arch=%s works on an x86_64 machine "
				    "or on %s itself\n",
				    a + 7, a + 7);
				return 2;
			}
		} else if (!strcmp(a, "--explain")) {
			do_explain = true;
		} else if (!strcmp(a, "--build")) {
			do_build = true;
		} else if (!strcmp(a, "--identity")) {
			do_identity = true;
		} else if (!strcmp(a, "--list-constants")) {
			sysnames_constants_print(stdout);
			return fflush(stdout) == 0 ? 0 : 1;
		} else if (!strcmp(a, "--list-groups")) {
			sysgroups_list(stdout);
			return 0;
		} else if (!strcmp(a, "--expand-group")) {
			/* Numbers and names, one per line: what tests probe. */
			if (i + 1 >= argc) {
				usage(stderr);
				return 2;
			}
			return sysgroups_expand_print(stdout, argv[++i]) ? 0 : 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "aijail-compile: error: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (input) {
			fprintf(stderr, "aijail-compile: error: more than one input file\n");
			return 2;
		} else {
			input = a;
		}
	}
	if (!input) {
		usage(stderr);
		return 2;
	}

	/* After the -I folders: the shipped policies, so that a policy of
	 * one's own can include "base.aj". */
	const char *shipped = build_install_dir("share/aijail/policies");
	if (shipped && n_dirs < 64)
		dirs[n_dirs++] = shipped;

	struct program prog;
	load_init(&prog, dirs, n_dirs);
	if (!load_program(&prog, input, NULL) || !load_resolve(&prog))
		return 1;
	const struct policy *pol = name ? load_find(&prog, name) : prog.last_in_main;
	if (!pol) {
		if (name)
			diag_error("no policy named '%s' in %s", name, input);
		else
			diag_error("%s defines no policy", input);
		return 1;
	}
	struct compiled c;
	if (!compile_policy(&prog, pol, &c) || !emit_fits(&c))
		return 1;
	if (do_explain) {
		explain_print(stdout, &c);
		return 0;
	}
	if (do_identity) {
		printf("%s\n", emit_identity(&c));
		return fflush(stdout) == 0 ? 0 : 1;
	}
	size_t out_len = out ? strlen(out) : 0;
	if (do_build && !(out_len > 2 && !strcmp(out + out_len - 2, ".h")))
		return build_stub(
		    &c, input,
		    out ? out
		        : (strcmp(pol->name, "jail") ? ast_printf("jail-%s", pol->name) : "jail"));
	if (!out || !strcmp(out, "-"))
		return emit_header(stdout, &c, input) ? 0 : 1;

	/* Written beside the target and renamed: a failed run never leaves a
	 * header that make would take as up to date. */
	char *tmp = ast_printf("%s.tmp.%d", out, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		diag_error("cannot write '%s': %s", tmp, strerror(errno));
		return 1;
	}
	bool ok = emit_header(f, &c, input);
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, out) != 0) {
		diag_error("cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}
