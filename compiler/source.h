/* source.h: policy files read from disk without trusting what they are. */
#ifndef AJ_SOURCE_H
#define AJ_SOURCE_H

#include "diag.h"

#include <stdbool.h>
#include <sys/types.h>

/* A policy is never that big; anything larger is not one. */
#define SRC_MAX_BYTES (1 << 20)
/* Nor has it lines that long: a diagnostic quotes the whole line. */
#define SRC_MAX_LINE 4096

/* Which file it is, whatever name reached it: for include-once. */
struct src_id {
	dev_t dev;
	ino_t ino;
};

enum src_result {
	SRC_READ,    /* *out is a policy text that diagnostics may quote */
	SRC_MISSING, /* no such file: an include looks in the next folder */
	SRC_REFUSED, /* see the fault */
};

/* Why a file was refused.  line is 0 when the fault is the file itself
 * (its type, size, a link, an error from the kernel); otherwise the file
 * was read but is not policy text, and line:col says where, so that the
 * error can be placed without quoting a byte of it. */
struct src_fault {
	const char *why;
	const char *path; /* the name it is about, as diagnostics give it */
	int line, col;
};

/* Is text not policy text?  Then f->why, line and col say where first. */
bool source_text_fault(const char *text, size_t len, struct src_fault *f);

/* Reads rel beneath the folder base ("" is the current one), one component
 * at a time and never through a symbolic link, so that nothing outside base
 * can be reached by a name or a link inside it; rel holds no "..". */
enum src_result source_read_beneath(const char *base, const char *rel, const struct src **out,
                                    struct src_id *id, struct src_fault *fault);

/* Reads the file the user named on the command line (links followed). */
enum src_result source_read_path(const char *path, const struct src **out, struct src_id *id,
                                 struct src_fault *fault);

#endif
