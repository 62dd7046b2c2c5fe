/* test_filter.c: the terminal output filter (stub/term/filter.c): every
 * kind it drops, whole or split at every byte, over 64 KiB, in its C1
 * forms; what it keeps, byte for byte; the bound on an unterminated
 * string, after which the state is the ground again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "term/term.h"

static struct filter f;
static uint8_t out[1 << 21];
static size_t n_out;

/* Feeds s (n bytes) in pieces of step bytes (0: at once); the output in
 * out[0..n_out). */
static void feed(const void *s, size_t n, size_t step)
{
	const uint8_t *p = s;

	filter_init(&f);
	n_out = 0;
	if (!step)
		step = n ? n : 1;
	for (size_t at = 0; at < n; at += step) {
		size_t k = n - at < step ? n - at : step;
		uint8_t *o = malloc(k + FILTER_SLACK);

		size_t w = filter_feed(&f, p + at, k, o);
		assert_true(w <= k + FILTER_SLACK);
		assert_true(n_out + w <= sizeof(out));
		memcpy(out + n_out, o, w);
		n_out += w;
		free(o);
	}
}

/* in gives want, whole and split at every byte. */
static void check(const char *in, size_t in_n, const char *want, size_t want_n)
{
	for (size_t step = 0; step <= in_n; step++) {
		feed(in, in_n, step);
		if (n_out != want_n || memcmp(out, want, want_n)) {
			print_error("step %zu: got %zu bytes, want %zu\n", step, n_out, want_n);
			fail();
		}
	}
}

#define CHECK(in, want) check(in, sizeof(in) - 1, want, sizeof(want) - 1)
#define KEPT(in)        CHECK(in, in)

static void dropped(void **state)
{
	(void)state;
	CHECK("A\033]52;c;SGVsbG8=\aB", "AB");
	CHECK("A\033]52;c;SGVsbG8=\033\\B", "AB");
	CHECK("A\033]52;c;?\aB", "AB");
	CHECK("A\033]4;1;rgb:ff/00/00\aB", "AB"); /* the palette */
	CHECK("A\033]11;?\aB", "AB");             /* a colour query */
	CHECK("A\033]7;file:///etc\aB", "AB");    /* the cwd */
	CHECK("A\033]1337;File=x:AAAA\aB", "AB"); /* iTerm's file transfer */
	CHECK("A\033]l title\033\\B", "AB");      /* no number */
	CHECK("A\033P$qm\033\\B", "AB");          /* DECRQSS */
	CHECK("A\033P+q544e\033\\B", "AB");       /* XTGETTCAP */
	CHECK("A\033Xsos\033\\B", "AB");
	CHECK("A\033^pm\033\\B", "AB");
	CHECK("A\033_Gf=100;AAAA\033\\B", "AB"); /* an APC (kitty's images) */
	CHECK("A\033[21tB\033[20tC", "ABC");
	CHECK("A\0338;50;200tB", "A\0338;50;200tB");           /* not a CSI: ESC 8, text */
	CHECK("A\033[8;50;200tB\033[2tC\033[3;0;0tD", "ABCD"); /* window operations */
	CHECK("A\033[>0tB", "AB");                             /* title modes */
	CHECK("A\005B", "AB");                                 /* ENQ */
	CHECK("A\033[1\005mB", "A\033[1mB");                   /* ENQ inside a CSI */
}

static void kept(void **state)
{
	(void)state;
	KEPT("plain text\r\n\ttab\b\a");
	KEPT("\033[1;31mred\033[0m \033[38;2;1;2;3mrgb\033[m");
	KEPT("\033[H\033[2J\033[10;20H\033[K\033[3A\033[?25l\033[?25h");
	KEPT("\033[?1049h\033[?1049l\033[?2004h\033[?2004l\033[?1000h\033[?1006h");
	KEPT("\033[6n\033[c\033[>c\033[18t\033[14t\033[22;0t\033[23;0t");
	KEPT("\0337\0338\033=\033>\033M\033(B\033)0\033#8\033c");
	KEPT("\033]0;title\a\033]2;t\033\\\033]1;icon\a");
	KEPT("\033]8;;https://example.com/\033\\link\033]8;;\033\\");
	KEPT("\033[1 q\033[2 q"); /* DECSCUSR: an intermediate */
	KEPT("caf\xc3\xa9 \xe2\x80\x9c\xe2\x80\x9d \xe2\x94\x80 \xf0\x9f\x98\x80"); /* 0x80-0x9f
	                                                                               continuations
	                                                                             */
	KEPT("\033]2;caf\xc3\xa9 \xe2\x80\x9c\a"); /* and in a title */
	CHECK("\033[1\r;2H", "\r\033[1;2H");       /* a C0 inside a CSI: carried out first */
}

/* C1 controls, raw or encoded as U+0080-U+009F: the openings are parsed
 * as their 7-bit forms; none reaches the terminal. */
static void c1(void **state)
{
	(void)state;
	CHECK("A\x9d"
	      "52;c;SGVsbG8=\aB",
	      "AB");
	CHECK("A\xc2\x9d"
	      "52;c;SGVsbG8=\xc2\x9c"
	      "B",
	      "AB");
	CHECK("A\x90$qm\x9c"
	      "B",
	      "AB");
	CHECK("A\x9b"
	      "21tB",
	      "AB");
	CHECK("A\xc2\x9b"
	      "21tB",
	      "AB");
	CHECK("A\x9b"
	      "31mB",
	      "A\033[31mB"); /* kept, in its 7-bit form */
	CHECK("A\x85\x84\xc2\x8e"
	      "B",
	      "AB"); /* other C1: dropped */
	CHECK("A\x9f"
	      "apc\x9c"
	      "B\x9e"
	      "pm\x9c"
	      "C\x98"
	      "sos\x9c"
	      "D",
	      "ABCD");
	/* An ST inside a kept title ends it: what follows is parsed again. */
	CHECK("\033]2;x\xc2\x9c\xc2\x9d"
	      "52;c;QQ==\a",
	      "\033]2;x\033\\");
	/* A C1 in a kept title spoils it. */
	CHECK("A\033]2;x\xc2\x85y\aB", "AB");
	/* 0xc2 followed by a character's continuation: the character. */
	KEPT("\xc2\xa0\xc2\xbf");
}

/* A string that never ends is dropped up to the bound, then the parser is
 * on the ground: what follows is text again. */
static void bounded(void **state)
{
	size_t n = FILTER_STR_MAX + 100;
	char *s = malloc(n + 8);

	(void)state;
	memcpy(s, "\033]52;c;", 7);
	memset(s + 7, 'Q', n - 7);
	memcpy(s + n, "\033[1mZ", 5);
	feed(s, n + 5, 0);
	/* The payload's tail past the bound is text; the CSI after it kept. */
	assert_true(n_out < 200);
	assert_memory_equal(out + n_out - 5, "\033[1mZ", 5);
	for (size_t i = 0; i + 5 < n_out; i++)
		assert_int_equal(out[i], 'Q');
	/* A DCS alike, fed in 4 KiB reads. */
	s[1] = 'P';
	feed(s, n + 5, 4096);
	assert_true(n_out < 200);
	assert_memory_equal(out + n_out - 5, "\033[1mZ", 5);
	free(s);
}

/* An OSC 52 of more than 64 KiB (an image's worth of clipboard), split in
 * 64 KiB reads and at odd places: dropped whole. */
static void long_split(void **state)
{
	size_t n = 200000;
	char *s = malloc(n + 16);
	size_t steps[] = {65536, 65535, 4097, 1};

	(void)state;
	memcpy(s, "A\033]52;c;", 8);
	memset(s + 8, 'Q', n - 8);
	memcpy(s + n, "\aB", 2);
	for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		feed(s, n + 2, steps[i]);
		assert_int_equal(n_out, 2);
		assert_memory_equal(out, "AB", 2);
	}
	free(s);
}

/* A kept title too long to hold: dropped, not cut. */
static void long_title(void **state)
{
	size_t n = FILTER_OSC_MAX + 100;
	char *s = malloc(n + 16);

	(void)state;
	memcpy(s, "A\033]2;", 5);
	memset(s + 5, 't', n - 5);
	memcpy(s + n, "\aB", 2);
	feed(s, n + 2, 1000);
	assert_int_equal(n_out, 2);
	assert_memory_equal(out, "AB", 2);
	free(s);
}

/* A CSI too long to hold: dropped to its final byte. */
static void long_csi(void **state)
{
	char s[FILTER_CSI_MAX + 40];

	(void)state;
	s[0] = 'A', s[1] = '\033', s[2] = '[';
	memset(s + 3, '1', sizeof(s) - 5);
	s[sizeof(s) - 2] = 'm', s[sizeof(s) - 1] = 'B';
	check(s, sizeof(s), "AB", 2);
}

/* An ESC ends a string unfinished and opens the next sequence; CAN
 * cancels one. */
static void interrupted(void **state)
{
	(void)state;
	CHECK("A\033]52;c;QQ\033[1mB", "A\033[1mB");
	CHECK("A\033]2;title\033[1mB", "A\033[1mB"); /* a kept one too: dropped */
	CHECK("A\033[12\030B", "A\030B");
	CHECK("A\033P1;2\030B", "AB");
	CHECK("A\033\033[1mB", "A\033[1mB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dropped),  cmocka_unit_test(kept),        cmocka_unit_test(c1),
	    cmocka_unit_test(bounded),  cmocka_unit_test(long_split),  cmocka_unit_test(long_title),
	    cmocka_unit_test(long_csi), cmocka_unit_test(interrupted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
