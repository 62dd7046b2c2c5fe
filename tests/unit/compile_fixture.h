/* compile_fixture.h: what every compiler unit test needs: diagnostics
 * captured in memory, the arena freed after each test, and a policy
 * compiled from a string (includes are found in policies/). */
#ifndef AJ_COMPILE_FIXTURE_H
#define AJ_COMPILE_FIXTURE_H

#include "diag.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AJ_TEST_UNUSED __attribute__((unused))

static char *diag_text;
static size_t diag_len;
static FILE *diag_stream;

static AJ_TEST_UNUSED int setup(void **state)
{
	(void)state;
	diag_reset();
	diag_stream = open_memstream(&diag_text, &diag_len);
	diag_set_stream(diag_stream);
	return 0;
}

static AJ_TEST_UNUSED int teardown(void **state)
{
	(void)state;
	diag_set_stream(NULL);
	fclose(diag_stream);
	free(diag_text);
	diag_text = NULL;
	ast_arena_free();
	diag_reset();
	return 0;
}

/* Everything reported since setup. */
static AJ_TEST_UNUSED const char *diags(void)
{
	fflush(diag_stream);
	return diag_text ? diag_text : "";
}

/* Compiles the last policy of text; NULL when it was refused. */
static AJ_TEST_UNUSED struct compiled *compile_str(const char *text)
{
	static const char *dirs[] = {"policies"};
	static struct program prog;
	static struct compiled c;
	load_init(&prog, dirs, 1);
	if (!load_program(&prog, "t.aj", diag_src_new("t.aj", text, strlen(text))) ||
	    !load_resolve(&prog) || !prog.last_in_main)
		return NULL;
	if (!compile_policy(&prog, prog.last_in_main, &c))
		return NULL;
	return &c;
}

#endif
