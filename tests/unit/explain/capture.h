/* capture.h: what --jail-explain's writer (stub/base/rp.c through out.c)
 * prints, caught in a memory file instead of stdout, for the explain/
 * tests to compare whole: text and JSON alike. */
#ifndef AJ_TEST_CAPTURE_H
#define AJ_TEST_CAPTURE_H

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"

static char captured[1 << 16];

static int capture_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("explain", MFD_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* A new document, text or JSON. */
static void capture_begin(bool json)
{
	int fd = capture_fd();

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	rp_json = json;
	rp_reset();
	out_fd(fd);
}

/* What was written since capture_begin, NUL-terminated. */
static const char *capture_end(void)
{
	int fd = capture_fd();
	ssize_t n;

	out_flush();
	out_fd(1);
	n = pread(fd, captured, sizeof(captured) - 1, 0);
	assert_true(n >= 0);
	captured[n] = '\0';
	return captured;
}

/* One section of the report, as explain.c's document holds it: in JSON,
 * inside an object of its own. */
static const char *capture_section(void (*section)(const struct run *), const struct run *r,
                                   bool json)
{
	capture_begin(json);
	rp_open(NULL, '{');
	section(r);
	rp_close();
	return capture_end();
}

#endif
