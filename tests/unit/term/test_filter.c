/* test_filter.c: the terminal output filter (stub/term/filter.c): every
 * kind it drops, whole or split at every byte, over 64 KiB, in its C1
 * forms; what it keeps, byte for byte; the bound on an unterminated
 * string, after which the state is the ground again; every lead byte with
 * every byte after it, none of which gives a raw C1 control. */
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
		uint8_t *o = malloc(2 * k + FILTER_SLACK);

		size_t w = filter_feed(&f, p + at, k, o);
		assert_true(w <= 2 * k + FILTER_SLACK);
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
			print_error("step %zu: got %zu bytes, want %zu:", step, n_out, want_n);
			for (size_t i = 0; i < n_out && i < 32; i++)
				print_error(" %02x", out[i]);
			print_error("\n");
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

/* A C1 control after a lead byte it cannot follow is a C1 control: the
 * character broke off there, and only its lead byte is written (which a
 * UTF-8 terminal shows as one U+FFFD, as it would the bytes given). */
static void c1_after_lead(void **state)
{
	(void)state;
	/* issue 36: an OSC 52 and a title report behind 0xe0 */
	CHECK("A\xe0\x9d"
	      "52;c;SGVsbG8=\aB",
	      "A\xe0"
	      "B");
	CHECK("A\xe0\x9b"
	      "21tB",
	      "A\xe0"
	      "B");
	/* overlong, surrogate and beyond U+10FFFF forms: the 0x80-0x9f in
	 * them are C1 controls, the 0xa0-0xff bytes written as they came */
	CHECK("A\xe0\x82\x9b"
	      "21tB",
	      "A\xe0"
	      "B");
	CHECK("A\xc1\x9b"
	      "21tB",
	      "A\xc1"
	      "B");
	CHECK("A\xc0\x80"
	      "B",
	      "A\xc0"
	      "B");
	CHECK("A\xed\xa0\x80"
	      "B",
	      "A\xed\xa0"
	      "B");
	CHECK("A\xf0\x82\x82\x9d"
	      "52;c;QQ==\aB",
	      "A\xf0"
	      "B");
	CHECK("A\xf4\x90\x80\x80\x9c" /* 0x90 a DCS, to the ST */
	      "B",
	      "A\xf4"
	      "B");
	CHECK("A\xf5\x9b"
	      "21tB",
	      "A\xf5"
	      "B");
	/* a character broken off after its continuations: they go with it */
	CHECK("A\xe1\x9d"
	      "B",
	      "A\xe1"
	      "B");
	CHECK("A\xf0\x9d\x9b"
	      "21tB",
	      "A\xf0"
	      "21tB");
	CHECK("A\xf1\x80\x80\033[1mB", "A\xf1\033[1mB");
	/* a character broken off by another: the other is whole */
	CHECK("A\xe2\x80\xe2\x80\x9d"
	      "B",
	      "A\xe2\xe2\x80\x9d"
	      "B");
	/* whole characters whose continuations are 0x80-0x9f */
	KEPT("\xe1\x9b\x9b\xed\x9f\xbf\xef\xbf\xbd\xf0\x9d\x90\x80\xf4\x8f\xbf\xbf");
}

/* A kept title: a C1 control in it, raw, UTF-8 encoded or breaking off a
 * character, ends it (ST) or drops it; none is in the title written. */
static void c1_in_title(void **state)
{
	(void)state;
	CHECK("\033]2;x\x9cy", "\033]2;x\033\\y");
	CHECK("\033]2;x\xc2\x9cy", "\033]2;x\033\\y");
	CHECK("\033]2;x\xe0\x9cy", "\033]2;x\xe0\033\\y");
	CHECK("\033]2;x\xf4\x9cy", "\033]2;x\xf4\033\\y");
	CHECK("\033]2;x\x9d"
	      "52;c;QQ==\aB",
	      "B");
	CHECK("\033]2;x\xc2\x9d"
	      "52;c;QQ==\aB",
	      "B");
	CHECK("\033]2;x\xe0\x9d"
	      "52;c;QQ==\aB",
	      "B");
	CHECK("\033]0;x\xe0\x9d\a", "");
	CHECK("\033]2;x\x85y\aB", "B");
	CHECK("\033]2;x\xc2\x85y\aB", "B");
	/* a character broken off in it, by its end: the lead byte only */
	CHECK("\033]2;x\xed\x9c\a", "\033]2;x\xed\a");
	CHECK("\033]2;x\xf0\x9d\x9d\033\\", "\033]2;x\xf0\033\\");
	/* whole characters with continuations 0x80-0x9f: kept */
	KEPT("\033]2;\xe1\x9b\x9b\xf0\x9d\x90\x80\a");
}

/* A dropped string ends at its bound: a character across the bound goes
 * with the string, its continuations are not text after it. */
static void bound_in_character(void **state)
{
	size_t n = 5 + FILTER_STR_MAX - 2;
	char *s = malloc(n + 8);

	(void)state;
	memcpy(s, "\033]52;", 5);
	memset(s + 5, 'Q', n - 5);
	memcpy(s + n,
	       "\xe1\x9b\x9b"
	       "B",
	       4);
	feed(s, n + 4, 0);
	assert_int_equal(n_out, 1);
	assert_memory_equal(out, "B", 1);
	feed(s, n + 4, 1);
	assert_int_equal(n_out, 1);
	assert_memory_equal(out, "B", 1);
	free(s);
}

/* The most the filter writes: twice its input, C1 controls all (0x9b m
 * is ESC [ m, 0x9d ; 0x9c is ESC ] 0 ; ESC \\), in 64 KiB as term.c
 * reads, whole and split. */
static void twice(void **state)
{
	size_t n = 65535;
	uint8_t *s = malloc(n);
	size_t steps[] = {0, 4096, 1};

	(void)state;
	for (size_t i = 0; i < n; i += 3)
		memcpy(s + i, "\x9d;\x9c", 3);
	for (unsigned k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		feed(s, n, steps[k]);
		assert_int_equal(n_out, 2 * n);
		for (size_t i = 0; i < n_out; i += 6)
			assert_memory_equal(out + i, "\033]0;\033\\", 6);
	}
	for (size_t i = 0; i + 1 < n; i += 2)
		memcpy(s + i, "\x9bm", 2);
	feed(s, n - 1, 0);
	assert_int_equal(n_out, (n - 1) / 2 * 3);
	free(s);
}

/* The ranges of Unicode's Table 3-7 (well-formed UTF-8), written again
 * here: each lead byte's length and its second byte's range. */
static unsigned u8_len(unsigned b)
{
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b >= 0xe0 && b <= 0xef)
		return 3;
	return b >= 0xf0 && b <= 0xf4 ? 4 : 0;
}

static bool u8_ok(unsigned lead, unsigned pos, unsigned b)
{
	unsigned lo = 0x80, hi = 0xbf;

	if (pos == 1 && lead == 0xe0)
		lo = 0xa0;
	else if (pos == 1 && lead == 0xed)
		hi = 0x9f;
	else if (pos == 1 && lead == 0xf0)
		lo = 0x90;
	else if (pos == 1 && lead == 0xf4)
		hi = 0x8f;
	return b >= lo && b <= hi;
}

/* p[0..n) is a well-formed character of its lead's length, not U+0080-U+009F. */
static bool u8_char(const uint8_t *p, size_t n)
{
	unsigned len = u8_len(p[0]);

	if (!len || len > n || (p[0] == 0xc2 && p[1] < 0xa0))
		return false;
	for (unsigned k = 1; k < len; k++)
		if (!u8_ok(p[0], k, p[k]))
			return false;
	return true;
}

/* No byte 0x80-0x9f outside a well-formed character, and no U+0080-U+009F. */
static bool c1_free(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (u8_char(p + i, n - i))
			i += u8_len(p[i]);
		else if (p[i] >= 0x80 && p[i] <= 0x9f)
			return false;
		else
			i++;
	}
	return true;
}

static struct filter tf;
static uint8_t tout[64 + FILTER_SLACK], tout1[64 + FILTER_SLACK];

/* The filter's output for pre, b[0..n), post: at once into tout, a byte
 * a call into tout1; both lengths in *w, *w1. */
static void feed_both(const char *pre, const uint8_t *b, size_t n, const char *post, size_t *w,
                      size_t *w1)
{
	uint8_t in[64];
	size_t k = strlen(pre);

	memcpy(in, pre, k);
	memcpy(in + k, b, n);
	memcpy(in + k + n, post, strlen(post));
	k += n + strlen(post);
	filter_init(&tf);
	*w = filter_feed(&tf, in, k, tout);
	filter_init(&tf);
	*w1 = 0;
	for (size_t i = 0; i < k; i++)
		*w1 += filter_feed(&tf, in + i, 1, tout1 + *w1);
}

/* The contexts a character is met in: text, and a kept title. */
static const char *const ctx[][3] = {
    {"A", "B", "AB"},
    {"\033]2;", "\a", "\033]2;\a"},
};

/* b[0..n), in each context: the same output at once and a byte a call;
 * no raw C1 control in it; unchanged when it is a character. */
static void table_one(const uint8_t *b, size_t n)
{
	for (unsigned c = 0; c < sizeof(ctx) / sizeof(ctx[0]); c++) {
		size_t w, w1, pre = strlen(ctx[c][0]);

		feed_both(ctx[c][0], b, n, ctx[c][1], &w, &w1);
		if (w != w1 || memcmp(tout, tout1, w) || !c1_free(tout, w)) {
			print_error("context %u, bytes %02x %02x %02x %02x (%zu): %zu bytes out "
			            "at once, %zu a byte at a time\n",
			            c, b[0], b[1], n > 2 ? b[2] : 0, n > 3 ? b[3] : 0, n, w, w1);
			fail();
		}
		if (u8_char(b, n) && u8_len(b[0]) == n &&
		    (w != n + strlen(ctx[c][2]) || memcmp(tout + pre, b, n))) {
			print_error("context %u: the character %02x %02x %02x %02x not kept\n", c,
			            b[0], b[1], n > 2 ? b[2] : 0, n > 3 ? b[3] : 0);
			fail();
		}
	}
}

/* Every byte 0x80-0xff with every byte after it; the 3- and 4-byte leads
 * with every second and third byte (and a fourth of three), the 4-byte
 * ones with every fourth byte after continuations. */
static void utf8_table(void **state)
{
	uint8_t b[4];
	const uint8_t lasts[] = {0x80, 0x9d, 'B'};

	(void)state;
	for (unsigned l = 0x80; l <= 0xff; l++) {
		b[0] = (uint8_t)l;
		for (unsigned x = 0; x <= 0xff; x++) {
			b[1] = (uint8_t)x;
			table_one(b, 2);
		}
		if (u8_len(l) < 3)
			continue; /* no longer form: broken at the second byte */
		for (unsigned x = 0; x <= 0xff; x++)
			for (unsigned y = 0; y <= 0xff; y++) {
				b[1] = (uint8_t)x, b[2] = (uint8_t)y;
				table_one(b, 3);
				if (u8_len(l) != 3)
					for (unsigned z = 0; z < sizeof(lasts); z++) {
						b[3] = lasts[z];
						table_one(b, 4);
					}
			}
		if (u8_len(l) == 3)
			continue;
		for (unsigned x = 0x80; x <= 0xbf; x += 0x0f)
			for (unsigned y = 0x80; y <= 0xbf; y += 0x0f)
				for (unsigned z = 0; z <= 0xff; z++) {
					b[1] = (uint8_t)x, b[2] = (uint8_t)y, b[3] = (uint8_t)z;
					table_one(b, 4);
				}
	}
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

/* Streams of bytes drawn mostly from those that mean something to the
 * parser (ESC, openings, finals, terminators, C1, leads, continuations):
 * split at random, the same output as whole, and no raw C1 in it. */
static void random_streams(void **state)
{
	static const uint8_t some[] = {0x1b, '[',  ']',  'P',  '\\', ';',  '0',  '2',  '5',
	                               't',  'm',  'A',  0x07, 0x18, 0x05, 0x7f, ' ',  '(',
	                               '8',  0x80, 0x85, 0x90, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
	                               0x8f, 0xa0, 0xa5, 0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0,
	                               0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
	uint32_t r = 1;
	uint8_t in[48];

	(void)state;
	for (unsigned t = 0; t < 100000; t++) {
		size_t n = 0, w, w1 = 0;

		r ^= r << 13, r ^= r >> 17, r ^= r << 5; /* xorshift32 */
		n = 1 + r % sizeof(in);
		for (size_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 17, r ^= r << 5;
			in[i] = r % 4 ? some[(r >> 8) % sizeof(some)] : (uint8_t)(r >> 16);
		}
		filter_init(&tf);
		w = filter_feed(&tf, in, n, tout);
		filter_init(&tf);
		for (size_t i = 0, k; i < n; i += k) {
			r ^= r << 13, r ^= r >> 17, r ^= r << 5;
			k = 1 + r % 5 < n - i ? 1 + r % 5 : n - i;
			w1 += filter_feed(&tf, in + i, k, tout1 + w1);
		}
		if (w != w1 || memcmp(tout, tout1, w) || !c1_free(tout, w)) {
			print_error("stream %u:", t);
			for (size_t i = 0; i < n; i++)
				print_error(" %02x", in[i]);
			print_error("\n");
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dropped),
	    cmocka_unit_test(kept),
	    cmocka_unit_test(c1),
	    cmocka_unit_test(bounded),
	    cmocka_unit_test(long_split),
	    cmocka_unit_test(long_title),
	    cmocka_unit_test(long_csi),
	    cmocka_unit_test(interrupted),
	    cmocka_unit_test(c1_after_lead),
	    cmocka_unit_test(c1_in_title),
	    cmocka_unit_test(bound_in_character),
	    cmocka_unit_test(utf8_table),
	    cmocka_unit_test(twice),
	    cmocka_unit_test(random_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
