/* compiler/test_layers.c: the compiler's modules form layers.
 *
 * A module is a compiler/NAME.c with its NAME.h.  It depends on every
 * module whose header it includes (from either file); no module may reach
 * itself that way (a module never calls into one that calls back into
 * it), only main.c includes the library header model.h, and no file is
 * longer than the project's limit for one room. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODULES 64
#define MAX_LINES   700

static char names[MAX_MODULES][64];
static int n_modules;
static unsigned char dep[MAX_MODULES][MAX_MODULES];

static int module(const char *name, size_t len)
{
	for (int i = 0; i < n_modules; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return i;
	return -1;
}

/* Reads compiler/: the modules and what each file includes. */
static void read_compiler(void)
{
	DIR *d = opendir("compiler");
	assert_non_null(d);
	struct dirent *e;
	n_modules = 0;
	memset(dep, 0, sizeof(dep));
	static char files[2 * MAX_MODULES][64];
	int n_files = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 3 || len >= 60 || e->d_name[len - 2] != '.' ||
		    (e->d_name[len - 1] != 'c' && e->d_name[len - 1] != 'h'))
			continue;
		assert_true(n_files < 2 * MAX_MODULES);
		strcpy(files[n_files++], e->d_name);
		if (module(e->d_name, len - 2) < 0) {
			assert_true(n_modules < MAX_MODULES);
			memcpy(names[n_modules], e->d_name, len - 2);
			names[n_modules++][len - 2] = 0;
		}
	}
	closedir(d);
	for (int f = 0; f < n_files; f++) {
		char path[128], line[512];
		snprintf(path, sizeof(path), "compiler/%.63s", files[f]);
		FILE *in = fopen(path, "r");
		assert_non_null(in);
		int from = module(files[f], strlen(files[f]) - 2), lines = 0;
		while (fgets(line, sizeof(line), in)) {
			lines++;
			const char *q;
			if (strncmp(line, "#include \"", 10) != 0 ||
			    !(q = strstr(line + 10, ".h\"")))
				continue;
			int to = module(line + 10, (size_t)(q - line - 10));
			if (to < 0 || to == from)
				continue; /* the grammar's, the contract */
			if (!strcmp(names[to], "model") && strcmp(files[f], "main.c") != 0)
				fail_msg("compiler/%s includes model.h, the library header",
				         files[f]);
			dep[from][to] = 1;
		}
		fclose(in);
		if (lines > MAX_LINES)
			fail_msg("compiler/%s has %d lines (at most %d)", files[f], lines,
			         MAX_LINES);
	}
}

/* Depth-first: state 1 on the path, 2 done. */
static int state[MAX_MODULES], path[MAX_MODULES], depth;

static void visit(int m)
{
	state[m] = 1;
	path[depth++] = m;
	for (int t = 0; t < n_modules; t++) {
		if (!dep[m][t])
			continue;
		if (state[t] == 1) {
			char cycle[1024] = "";
			int i = depth - 1;
			while (path[i] != t)
				i--;
			for (; i < depth; i++)
				snprintf(cycle + strlen(cycle), sizeof(cycle) - strlen(cycle),
				         "%s -> ", names[path[i]]);
			fail_msg("import cycle: %s%s", cycle, names[t]);
		}
		if (!state[t])
			visit(t);
	}
	depth--;
	state[m] = 2;
}

static void modules_form_layers(void **unused)
{
	(void)unused;
	read_compiler();
	assert_true(n_modules > 10);
	memset(state, 0, sizeof(state));
	depth = 0;
	for (int m = 0; m < n_modules; m++)
		if (!state[m])
			visit(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(modules_form_layers),
	};
	return cmocka_run_group_tests_name("compiler layers", tests, NULL, NULL);
}
