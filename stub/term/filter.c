/* filter.c: the jail's terminal output, as the parent passes it on.
 *
 * A program may write into the caller's terminal more than characters:
 * OSC 52 sets the clipboard, DCS and OSC queries make the terminal answer
 * as if typed (a title it set, then CSI 21 t: a command line injected into
 * the shell that reads the terminal after the jail), others move the
 * window, change the palette for good or start a file transfer.  The
 * filter parses the stream as a terminal would (ECMA-48, as xterm reads
 * it) and keeps what stays on the screen.
 *
 * Nothing of a dropped sequence is written: a string's opening is held
 * until it is known to be kept, a CSI until its final byte.  The state
 * lives in struct filter, so a sequence split between reads is the same
 * sequence; an unterminated string is dropped up to FILTER_STR_MAX bytes,
 * then the parser is back on the ground (the terminal never saw it open).
 *
 * C1 controls: in UTF-8 the bytes 0x80-0x9f are continuation bytes, but a
 * terminal in an 8-bit mode reads any that is not inside a well-formed
 * character as a control (0x9b CSI, 0x9d OSC, 0x90 DCS ...), and some
 * read U+0080-U+009F (0xc2 0x80-0x9f) as one too.  So a UTF-8 decoder
 * runs first, and holds a character's bytes until it is whole: a byte is
 * a continuation only in the ranges Unicode's Table 3-7 gives its place
 * (0xe0 then 0xa0-0xbf, 0xed then 0x80-0x9f, 0xf0 then 0x90-0xbf, 0xf4
 * then 0x80-0x8f), so no overlong form, surrogate or code point past
 * U+10FFFF is a character.  A whole character is text, its bytes written
 * together or dropped together (a string's bound does not cut one).  A
 * byte that breaks a character off is read again as a byte of its own
 * (ESC, a C1 control, a lead); of the character broken off only its lead
 * byte is written, as any other byte 0xa0-0xff that is not UTF-8 is (a
 * UTF-8 terminal shows one U+FFFD for it, as for the bytes given; the
 * lead alone cannot be more than the input, where U+FFFD would be three
 * bytes for one).  A 0x80-0x9f outside a character, or U+0080-U+009F,
 * is a C1 control, taken as its 7-bit form (ESC and the byte less 0x40)
 * when it opens a sequence, or dropped.  What is kept is written in the
 * 7-bit form: no C1 control reaches the terminal, raw or encoded. */
#include <string.h>

#include "term/term.h"

enum {
	S_GROUND,
	S_ESC,     /* after ESC */
	S_ESC_INT, /* ESC and intermediates, written as they come */
	S_CSI,
	S_CSI_IGNORE, /* a CSI too long: dropped to its final byte */
	S_OSC_NUM,    /* ESC ] and the number so far */
	S_STR,        /* a string's body: a kept OSC's in osc[], or dropped */
	S_STR_ESC,    /* an ESC in a string: ST if '\' follows */
};

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a
#define ENQ 0x05

void filter_init(struct filter *f)
{
	memset(f, 0, sizeof(*f));
}

/* The OSC strings kept: the title and icon name (set only: the reports
 * that would give them back are dropped), and hyperlinks, which the user
 * follows by a click.  Colours (4, 10-19, 104, 110-119) stay set after
 * the jail and answer queries; 7, 9, 50-52, 133, 633, 777, 1337 ... reach
 * the clipboard, notifications, fonts, files or the shell's integration. */
static bool osc_kept(uint32_t num)
{
	return num <= 2 || num == 8;
}

/* The window operations (CSI Ps t) kept: the size reports, whose answers
 * are numbers, and the title stack (push, pop), which vim uses. */
static bool csi_t_kept(const uint8_t *p, unsigned n)
{
	unsigned v = 0, i = 0;

	if (!n || p[0] < '0' || p[0] > '9')
		return false; /* a private marker, or no parameter */
	for (; i < n && p[i] >= '0' && p[i] <= '9' && v < 1000; i++)
		v = v * 10 + (unsigned)(p[i] - '0');
	if (i < n && p[i] != ';')
		return false;
	return v == 14 || v == 16 || v == 18 || v == 19 || v == 22 || v == 23;
}

static void csi_final(struct filter *f, uint8_t b, uint8_t **o)
{
	bool inter = false;

	for (unsigned i = 0; i < f->csi_n; i++)
		inter |= f->csi[i] < 0x30;
	if (b == 't' && !inter && !csi_t_kept(f->csi, f->csi_n))
		return;
	*(*o)++ = ESC;
	*(*o)++ = '[';
	memcpy(*o, f->csi, f->csi_n);
	*o += f->csi_n;
	*(*o)++ = b;
}

static void str_start(struct filter *f, bool osc, bool keep)
{
	f->state = S_STR;
	f->str_osc = osc;
	f->str_keep = keep;
	f->osc_n = 0;
	f->count = 0;
}

/* A string ended by BEL (bel) or ST: a kept OSC is written whole, with
 * the terminator it came with. */
static void str_end(struct filter *f, bool bel, uint8_t **o)
{
	if (f->str_keep) {
		char num[12];
		int k = 0;
		uint32_t v = f->num;

		do
			num[k++] = (char)('0' + v % 10);
		while ((v /= 10));
		*(*o)++ = ESC;
		*(*o)++ = ']';
		while (k)
			*(*o)++ = (uint8_t)num[--k];
		*(*o)++ = ';';
		memcpy(*o, f->osc, f->osc_n);
		*o += f->osc_n;
		if (bel) {
			*(*o)++ = BEL;
		} else {
			*(*o)++ = ESC;
			*(*o)++ = '\\';
		}
	}
	f->state = S_GROUND;
}

/* Text not ASCII: a whole character (n > 1), or a byte 0xa0-0xff that is
 * not one (n == 1).  It ends any sequence but a string, which keeps it
 * whole or drops it whole. */
static void text(struct filter *f, const uint8_t *p, unsigned n, uint8_t **o)
{
	if (f->state == S_OSC_NUM)
		str_start(f, true, false); /* no number: dropped */
	else if (f->state == S_STR_ESC)
		f->state = S_GROUND; /* the string ended unfinished */
	if (f->state != S_STR) {
		f->state = S_GROUND;
		memcpy(*o, p, n);
		*o += n;
	} else if ((f->count += n) >= FILTER_STR_MAX) {
		f->state = S_GROUND;
	} else if (f->str_keep) {
		if (f->osc_n + n > FILTER_OSC_MAX) {
			f->str_keep = false;
		} else {
			memcpy(f->osc + f->osc_n, p, n);
			f->osc_n = (uint16_t)(f->osc_n + n);
		}
	}
}

/* A C0 control met inside a sequence: the terminal carries it out there
 * and then, so it is written at once; CAN and SUB end the sequence. */
static void c0_inside(struct filter *f, uint8_t b, uint8_t **o)
{
	if (b == ENQ)
		return;
	*(*o)++ = b;
	if (b == CAN || b == SUB)
		f->state = S_GROUND;
}

/* A byte below 0x80: the rest is text() or c1(). */
static void byte(struct filter *f, uint8_t b, uint8_t **o)
{
again:
	switch (f->state) {
	case S_GROUND:
		if (b == ESC)
			f->state = S_ESC;
		else if (b != ENQ) /* the answerback */
			*(*o)++ = b;
		return;
	case S_ESC:
		if (b == '[') {
			f->state = S_CSI, f->csi_n = 0;
		} else if (b == ']') {
			f->state = S_OSC_NUM, f->num = 0, f->count = 0;
		} else if (b == 'P' || b == 'X' || b == '^' || b == '_') {
			str_start(f, false, false); /* DCS, SOS, PM, APC */
		} else if (b == ESC || b == 0x7f) {
			/* a new escape; DEL is ignored */
		} else if (b < 0x20) {
			c0_inside(f, b, o);
		} else {
			*(*o)++ = ESC;
			*(*o)++ = b;
			f->state = b < 0x30 ? S_ESC_INT : S_GROUND;
		}
		return;
	case S_ESC_INT:
		if (b == ESC)
			f->state = S_ESC;
		else if (b < 0x20)
			c0_inside(f, b, o);
		else if (b < 0x7f) {
			*(*o)++ = b;
			if (b >= 0x30)
				f->state = S_GROUND;
		}
		return;
	case S_CSI:
	case S_CSI_IGNORE:
		if (b == ESC) {
			f->state = S_ESC;
		} else if (b < 0x20) {
			c0_inside(f, b, o);
		} else if (b >= 0x40 && b < 0x7f) {
			if (f->state == S_CSI)
				csi_final(f, b, o);
			f->state = S_GROUND;
		} else if (b == 0x7f) {
			/* ignored */
		} else if (f->state == S_CSI && f->csi_n < FILTER_CSI_MAX) {
			f->csi[f->csi_n++] = b;
		} else if (f->state == S_CSI) {
			f->state = S_CSI_IGNORE, f->count = 0;
		} else if (++f->count >= FILTER_STR_MAX) {
			f->state = S_GROUND;
		}
		return;
	case S_OSC_NUM:
		if (b >= '0' && b <= '9' && f->count < 6) {
			f->num = f->num * 10 + (uint32_t)(b - '0');
			f->count++;
		} else if (b == ';') {
			str_start(f, true, osc_kept(f->num));
		} else {
			str_start(f, true, false);
			goto again;
		}
		return;
	case S_STR:
		if (b == ESC) {
			f->state = S_STR_ESC;
		} else if (b == BEL && f->str_osc) {
			str_end(f, true, o);
		} else if (b == CAN || b == SUB) {
			f->state = S_GROUND;
		} else if (++f->count >= FILTER_STR_MAX) {
			f->state = S_GROUND;
		} else if (f->str_keep) {
			/* A control in a title is no title's. */
			if (b < 0x20 || b == 0x7f || f->osc_n == FILTER_OSC_MAX)
				f->str_keep = false;
			else
				f->osc[f->osc_n++] = b;
		}
		return;
	case S_STR_ESC:
		if (b == '\\') {
			str_end(f, false, o);
		} else {
			/* ESC ends the string unfinished, and opens a sequence. */
			f->state = S_ESC;
			goto again;
		}
		return;
	}
}

/* A C1 control c (0x80-0x9f), raw or decoded from UTF-8. */
static void c1(struct filter *f, uint8_t c, uint8_t **o)
{
	switch (c) {
	case 0x9c: /* ST */
		if (f->state == S_STR || f->state == S_STR_ESC)
			str_end(f, false, o);
		else if (f->state != S_ESC_INT)
			f->state = S_GROUND;
		return;
	case 0x9b: /* CSI */
		f->state = S_CSI, f->csi_n = 0;
		return;
	case 0x9d: /* OSC */
		f->state = S_OSC_NUM, f->num = 0, f->count = 0;
		return;
	case 0x90: /* DCS */
	case 0x98: /* SOS */
	case 0x9e: /* PM */
	case 0x9f: /* APC */
		str_start(f, false, false);
		return;
	default:
		/* Dropped: in a kept string it spoils the string. */
		if (f->state == S_STR)
			f->str_keep = false;
		else if (f->state != S_ESC_INT)
			f->state = S_GROUND;
		return;
	}
}

/* The length of the character lead byte b begins, 0 for none. */
static unsigned u8_len(uint8_t b)
{
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b >= 0xe0 && b <= 0xef)
		return 3;
	return b >= 0xf0 && b <= 0xf4 ? 4 : 0; /* 0xc0, 0xc1, 0xf5-0xff: none */
}

/* Whether b is a continuation at place pos (1-3) of the character lead
 * begins. */
static bool u8_cont(uint8_t lead, unsigned pos, uint8_t b)
{
	uint8_t lo = 0x80, hi = 0xbf;

	if (pos == 1) {
		switch (lead) {
		case 0xe0: /* below: overlong */
			lo = 0xa0;
			break;
		case 0xed: /* above: a surrogate */
			hi = 0x9f;
			break;
		case 0xf0: /* below: overlong */
			lo = 0x90;
			break;
		case 0xf4: /* above: past U+10FFFF */
			hi = 0x8f;
			break;
		}
	}
	return b >= lo && b <= hi;
}

/* The length of the whole character at p[0..n), 0 for none (or U+0080-
 * U+009F, a C1 control). */
static unsigned u8_whole(const uint8_t *p, size_t n)
{
	unsigned len = u8_len(p[0]);

	if (!len || len > n || (p[0] == 0xc2 && p[1] < 0xa0))
		return 0;
	for (unsigned k = 1; k < len; k++)
		if (!u8_cont(p[0], k, p[k]))
			return 0;
	return len;
}

size_t filter_feed(struct filter *f, const uint8_t *in, size_t n, uint8_t *out)
{
	uint8_t *o = out;

	for (size_t i = 0; i < n; i++) {
		uint8_t b = in[i];

		/* The ground's run of text, ASCII and whole characters, the
		 * bulk of any output; the rest goes a byte at a time. */
		if (f->state == S_GROUND && !f->u8_n) {
			size_t j = i;
			unsigned k;

			for (;;) {
				while (j < n && in[j] < 0x80 && in[j] != ESC && in[j] != ENQ)
					j++;
				if (j == n || in[j] < 0xc2 || !(k = u8_whole(in + j, n - j)))
					break;
				j += k;
			}
			memcpy(o, in + i, j - i);
			o += j - i;
			if (j == n)
				break;
			i = j;
			b = in[i];
		}
		if (f->u8_n) {
			if (u8_cont(f->u8[0], f->u8_n, b)) {
				f->u8[f->u8_n++] = b;
				if (f->u8_n < u8_len(f->u8[0]))
					continue;
				if (f->u8[0] == 0xc2 && b < 0xa0)
					c1(f, b, &o); /* U+0080-U+009F */
				else
					text(f, f->u8, f->u8_n, &o);
				f->u8_n = 0;
				continue;
			}
			text(f, f->u8, 1, &o); /* broken off: b is read anew */
			f->u8_n = 0;
		}
		if (b < 0x80)
			byte(f, b, &o);
		else if (b < 0xa0)
			c1(f, b, &o);
		else if (u8_len(b))
			f->u8[0] = b, f->u8_n = 1;
		else
			text(f, &b, 1, &o);
	}
	return (size_t)(o - out);
}
