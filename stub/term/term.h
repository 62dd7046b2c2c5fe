/* term/term.h: the interface of the room term/: the jail's terminal: a
 * pseudo-terminal of its own when the caller's is one, relayed by the
 * parent through a filter that keeps what stays on the screen.  Included by
 * its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_TERM_H
#define AJ_STUB_TERM_H

#include "base/base.h"

/* filter.c: the terminal output filter, a byte-level state machine whose
 * state survives between reads.  It drops what reaches outside the
 * screen: OSC strings but the title (0, 1, 2) and hyperlinks (8), DCS,
 * SOS, PM and APC strings, the window operations of CSI t but the size
 * reports and the title stack (the title reports 20 and 21 among those
 * dropped), ENQ; and every C1 control, raw or UTF-8 encoded, is either
 * parsed as its 7-bit form or dropped, so none reaches the terminal: a
 * byte 0x80-0x9f leaves only inside a well-formed UTF-8 character, and of
 * a character broken off only the lead byte is written. */
#define FILTER_CSI_MAX 64        /* a longer CSI is dropped */
#define FILTER_OSC_MAX 4096      /* a longer kept OSC is dropped */
#define FILTER_STR_MAX (1 << 20) /* an unterminated string, dropped, ends here */
/* What one call may write beyond twice its input's length: what was held. */
#define FILTER_SLACK (FILTER_OSC_MAX + 16)

struct filter {
	uint8_t state;
	uint8_t u8_n; /* the bytes of a character begun, in u8[] */
	uint8_t u8[4];
	bool str_osc;   /* the string dropped is an OSC (BEL ends it) */
	bool str_keep;  /* the string is a kept OSC, in osc[] */
	uint32_t num;   /* the OSC's number so far */
	uint32_t count; /* bytes of the string (or ignored CSI) so far */
	uint16_t csi_n, osc_n;
	uint8_t csi[FILTER_CSI_MAX];
	uint8_t osc[FILTER_OSC_MAX];
};

void filter_init(struct filter *f);
/* Filters in[0..n) into out, which holds 2n + FILTER_SLACK bytes and is
 * not in; returns the bytes written.  Twice: a raw C1 control is written as
 * ESC and its 7-bit form, an OSC with no number as OSC 0 (0x9d ; 0x9c, 3
 * bytes, is ESC ] 0 ; ESC \, 6). */
size_t filter_feed(struct filter *f, const uint8_t *in, size_t n, uint8_t *out);

/* term.c: the pseudo-terminal and its relay in the parent's one loop. */
enum term_mode { TERM_FILTER, TERM_PASSTHROUGH };
extern enum term_mode term_mode;
void term_option(const char *value, const char *opt);
void term_setup(bool explain);
void term_child(void);
void term_ctty(void);
bool term_winch(void);
void term_cont(void);
void term_end(void);
void term_explain(void);
bool term_pty(void);                      /* a run here would make the pseudo-terminal */
const struct ev_source *term_start(void); /* NULL: no pseudo-terminal */

#endif
