/* compiler/test_source.c: what the compiler agrees to read as a policy, for
 * the files the corpus cannot hold (a FIFO, a socket, a device, a file over
 * the size bound), and that a refused file's bytes never reach a
 * diagnostic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compile_fixture.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

/* Somewhere no test leaves anything behind. */
static char tmp[64];

static int setup_dir(void **state)
{
	strcpy(tmp, "/tmp/aj-source-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	return setup(state);
}

static int teardown_dir(void **state)
{
	char *cmd = ast_printf("rm -rf '%s'", tmp);
	int rc = system(cmd);
	(void)rc;
	return teardown(state);
}

static char *at(const char *rel)
{
	return ast_printf("%s/%s", tmp, rel);
}

static void put(const char *rel, const char *text, size_t len)
{
	FILE *f = fopen(at(rel), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_str(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

/* Loads tmp/main.aj with tmp/inc as the -I folder; true when accepted. */
static bool load_main(void)
{
	static const char *dirs[1];
	static struct program prog;
	dirs[0] = at("inc");
	load_init(&prog, dirs, 1);
	return load_program(&prog, at("main.aj"), NULL) && load_resolve(&prog);
}

static void include_main(const char *name)
{
	put_str("main.aj", ast_printf("include \"%s\";\npolicy p { }\n", name));
}

static const char secret[] = "root:$6$SECRET-HASH:20000:0:99999:7:::\n";

static void fifo_is_refused_without_opening_it(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	assert_int_equal(mkfifo(at("inc/pipe.aj"), 0600), 0);
	include_main("pipe.aj");
	/* Opening a FIFO without a writer would block for ever. */
	alarm(10);
	assert_false(load_main());
	alarm(0);
	assert_non_null(strstr(diags(), "it is a FIFO, not a regular file"));
	assert_non_null(strstr(diags(), "main.aj:1:9: error: cannot include"));
}

static void socket_is_refused(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("inc/sock.aj"));
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	include_main("sock.aj");
	assert_false(load_main());
	close(s);
	assert_non_null(strstr(diags(), "it is a socket, not a regular file"));
}

static void device_is_refused(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	/* Only root may make a node; everyone may name /dev/zero on the
	 * command line. */
	if (mknod(at("inc/zero.aj"), S_IFCHR | 0600, makedev(1, 5)) == 0) {
		include_main("zero.aj");
		assert_false(load_main());
		assert_non_null(strstr(diags(), "it is a character device, not a regular file"));
	}
	static struct program prog;
	load_init(&prog, NULL, 0);
	assert_false(load_program(&prog, "/dev/zero", NULL));
	assert_non_null(strstr(diags(), "aijail-compile: error: cannot read '/dev/zero': it is a "
	                                "character device, not a regular file\n"));
}

static void main_file_must_be_regular(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("main.aj"), 0700), 0);
	assert_false(load_main());
	assert_non_null(strstr(diags(), "main.aj': it is a directory, not a regular file\n"));
}

static void size_is_bounded(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	/* Exactly the bound: valid text, accepted. */
	char *big = malloc(SRC_MAX_BYTES + 2);
	assert_non_null(big);
	for (size_t i = 0; i < SRC_MAX_BYTES + 2; i += 2)
		memcpy(big + i, "#\n", 2);
	put("inc/max.aj", big, SRC_MAX_BYTES);
	put("inc/over.aj", big, SRC_MAX_BYTES + 2);
	free(big);
	include_main("max.aj");
	assert_true(load_main());
	include_main("over.aj");
	assert_false(load_main());
	assert_non_null(strstr(diags(), "it is larger than 1 MiB, the most a policy file may be"));
}

/* The attack the rules close: a link planted in an include folder that
 * points at a file the compiler's user may read. */
static void links_are_never_followed_nor_quoted(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	assert_int_equal(mkdir(at("outside"), 0700), 0);
	put_str("outside/shadow.aj", secret);
	assert_int_equal(symlink(at("outside/shadow.aj"), at("inc/x.aj")), 0);
	assert_int_equal(symlink("../outside", at("inc/dir")), 0);
	include_main("x.aj");
	assert_false(load_main());
	include_main("dir/shadow.aj");
	assert_false(load_main());
	assert_non_null(strstr(diags(), "x.aj': it is a symbolic link, which an include never "
	                                "follows"));
	assert_non_null(strstr(diags(), "dir': it is a symbolic link"));
	assert_null(strstr(diags(), "SECRET"));
}

/* A file in an include folder that is not text is placed, never shown. */
static void binary_is_not_quoted(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	put("inc/bin.aj", "SECRET\xff\xfe", 8);
	include_main("bin.aj");
	assert_false(load_main());
	assert_non_null(strstr(diags(), "inc/bin.aj:1:7: error: not a policy file (bytes that "
	                                "are not UTF-8); its lines are not shown\n"));
	assert_null(strstr(diags(), "SECRET"));
}

static const char *fault_of(const char *text, size_t len)
{
	struct src_fault f = {0};
	if (!source_text_fault(text, len, &f))
		return "text";
	return ast_printf("%d:%d %s", f.line, f.col, f.why);
}

/* UTF-8 as RFC 3629 has it, and nothing a terminal acts on. */
static void text_is_utf8_without_controls(void **state)
{
	(void)state;
#define FAULT(lit) fault_of(lit, sizeof(lit) - 1)
	assert_string_equal(FAULT("policy p {\r\n\thostname \"caf\xc3\xa9\"; }\n"), "text");
	assert_string_equal(FAULT("# \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\n"), "text");
	assert_string_equal(FAULT("a\nb\x00"), "2:2 a NUL byte");
	assert_string_equal(FAULT("\x1b[2J"), "1:1 a control character");
	assert_string_equal(FAULT("x\x7f"), "1:2 a control character");
	assert_string_equal(FAULT("\xc2\x9b"), "1:1 a control character");      /* C1 CSI */
	assert_string_equal(FAULT("\xc0\xaf"), "1:1 bytes that are not UTF-8"); /* overlong */
	assert_string_equal(FAULT("\xe0\x80\xaf"), "1:1 bytes that are not UTF-8");
	assert_string_equal(FAULT("\xed\xa0\x80"), "1:1 bytes that are not UTF-8"); /* surrogate */
	assert_string_equal(FAULT("\xf4\x90\x80\x80"), "1:1 bytes that are not UTF-8");
	assert_string_equal(FAULT("ab\xe2\x82"), "1:3 bytes that are not UTF-8"); /* cut short */
	assert_string_equal(FAULT("\xff"), "1:1 bytes that are not UTF-8");
#undef FAULT
	char *line = ast_alloc(SRC_MAX_LINE + 2);
	memset(line, '#', SRC_MAX_LINE);
	assert_string_equal(fault_of(line, SRC_MAX_LINE), "text");
	line[SRC_MAX_LINE] = '#';
	assert_string_equal(fault_of(line, SRC_MAX_LINE + 1),
	                    "1:4097 a line longer than 4096 bytes");
}

/* Include-once is by the file, not the name it was reached by. */
static void a_file_is_read_once_whatever_its_name(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	put_str("inc/a.aj", "policy a { }\n");
	assert_int_equal(link(at("inc/a.aj"), at("inc/b.aj")), 0);
	put_str("main.aj", "include \"a.aj\";\ninclude \"./b.aj\";\npolicy p extends a { }\n");
	assert_true(load_main());
	assert_string_equal(diags(), "");
}

/* Beside the including file first, then the -I folders; an included file's
 * own includes start beside it. */
static void includes_are_searched_beside_then_on_the_path(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("inc"), 0700), 0);
	assert_int_equal(mkdir(at("inc/sub"), 0700), 0);
	put_str("inc/sub/a.aj", "include \"b.aj\";\npolicy a extends b { }\n");
	put_str("inc/sub/b.aj", "policy b { }\n");
	put_str("inc/b.aj", "policy b { }\n"); /* would be defined twice */
	put_str("main.aj", "include \"sub/a.aj\";\npolicy p extends a { }\n");
	assert_true(load_main());
	assert_string_equal(diags(), "");
}

int main(void)
{
	signal(SIGALRM, SIG_DFL);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(fifo_is_refused_without_opening_it, setup_dir,
	                                    teardown_dir),
	    cmocka_unit_test_setup_teardown(socket_is_refused, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(device_is_refused, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(main_file_must_be_regular, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(size_is_bounded, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(links_are_never_followed_nor_quoted, setup_dir,
	                                    teardown_dir),
	    cmocka_unit_test_setup_teardown(binary_is_not_quoted, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(text_is_utf8_without_controls, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_file_is_read_once_whatever_its_name, setup_dir,
	                                    teardown_dir),
	    cmocka_unit_test_setup_teardown(includes_are_searched_beside_then_on_the_path,
	                                    setup_dir, teardown_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
