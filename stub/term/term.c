/* term.c: the jail's terminal.
 *
 * When one of the caller's stdin, stdout and stderr is a terminal, the jail
 * gets a pseudo-terminal of its own instead: the caller opens it on the
 * host's /dev/ptmx (term_setup, before any namespace; the slave through
 * TIOCGPTPEER, so that no path under /dev/pts is looked up), pid 1 puts
 * the slave where the terminal was (term_child, its first step, so that
 * the caller's terminal never reaches the jail), the target takes it as
 * its controlling terminal (term_ctty: ^C, ^Z and SIGWINCH come from its
 * line discipline), and the parent relays in its one loop: the caller's
 * keys to the master untouched, the master's output through the filter
 * (filter.c) to the caller's terminal.  Pipes and files stay as they are:
 * with no terminal among 0, 1, 2 nothing here runs.
 *
 * Raw mode: while the caller's stdin is relayed, its terminal is raw, as
 * the slave now does what the caller's line discipline did; term_end puts
 * the caller's mode back on every way out of the parent (the jail's end,
 * a timeout, die()), after the last output.  A stdin the caller's
 * terminal gives to another foreground group (a jail run with '&') is not
 * read, nor its mode touched.
 *
 * Writes to the caller's terminal block: O_NONBLOCK would be set on a
 * description the caller's shell shares, and stay so if the parent were
 * killed.  --jail-terminal=passthrough gives the jail the caller's
 * descriptors as they are, without a pseudo-terminal. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "term/term.h"

#define TERM_BUF 65536

enum term_mode term_mode = TERM_FILTER;
static const char *mode_opt;
static bool active;   /* a pseudo-terminal is the jail's */
static unsigned ttys; /* the caller's fds (bit 0, 1, 2) that are a terminal */
static int master = -1, slave = -1;
static int out = -1; /* the caller's terminal, written to */
static int in = -1;  /* the caller's stdin, a terminal relayed in raw mode */
static bool raw, ended, out_dead, m_done, in_done;
static struct termios saved;
static struct filter flt;
static uint8_t mbuf[TERM_BUF];                    /* the master's output, as read */
static uint8_t obuf[2 * TERM_BUF + FILTER_SLACK]; /* and filtered */
static uint8_t ibuf[4096];
static size_t i_at, i_n;

void term_option(const char *value, const char *opt)
{
	if (!strcmp(value, "filter"))
		term_mode = TERM_FILTER;
	else if (!strcmp(value, "passthrough"))
		term_mode = TERM_PASSTHROUGH;
	else
		die_usage("filter or passthrough is needed after", opt);
	mode_opt = opt;
}

static bool is_tty(int fd)
{
	struct termios t;

	return !ioctl(fd, TCGETS, &t);
}

static void write_all(const uint8_t *p, size_t n)
{
	while (n && !out_dead) {
		ssize_t w = write(out, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			out_dead = true; /* the terminal hung up: the output goes nowhere */
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* The master's output so far, filtered; false when there is no more.  A
 * pty gives a few KiB a read: as many as are there are read before one
 * write, so that a fast writer costs fewer turns of the loop.  Not in
 * place: the filter may write twice what it reads (term.h). */
static bool pump(void)
{
	size_t got = 0;
	bool more = true;

	while (got < TERM_BUF) {
		ssize_t r = read(master, mbuf + got, TERM_BUF - got);

		if (r > 0) {
			got += (size_t)r;
		} else if (r < 0 && errno == EINTR) {
			continue;
		} else {
			if (r == 0 || errno != EAGAIN)
				m_done = true, more = false; /* EIO: no slave is open any more */
			break;
		}
	}
	if (got)
		write_all(obuf, filter_feed(&flt, mbuf, got, obuf));
	return more;
}

/* Every way out of the parent: the output the jail left, then the
 * caller's mode.  Bounded: a process still writing (the fallback has no
 * pid namespace to end them all) does not hold the exit. */
void term_end(void)
{
	if (ended || !active)
		return;
	ended = true;
	if (master >= 0 && !m_done) {
		(void)fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
		for (unsigned k = 0; k < 64 && pump(); k++)
			;
	}
	if (raw)
		(void)ioctl(in, TCSETSW, &saved);
	raw = false;
}

static void make_raw_on(int fd)
{
	struct termios t;

	if (ioctl(fd, TCGETS, &saved))
		return;
	t = saved;
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (ioctl(fd, TCSETSW, &t))
		die("put the terminal in raw mode", errno,
		    "--jail-terminal=passthrough gives the jail your terminal as it is");
	raw = true;
}

static void make_raw(void)
{
	if (tcgetpgrp(0) != getpgrp())
		return; /* in the background: its keys are another group's */
	in = fcntl(0, F_DUPFD_CLOEXEC, 3);
	if (in < 0)
		die("relay the terminal", errno, NULL);
	make_raw_on(in);
}

/* The caller, before any namespace: the pseudo-terminal, when one of 0, 1,
 * 2 is a terminal and the filter is on.  --jail-explain only looks. */
void term_setup(bool explain)
{
	struct termios t;
	struct winsize ws;
	int unlock = 0, src = -1;

	for (int fd = 0; fd < 3; fd++)
		if (is_tty(fd))
			ttys |= 1U << fd;
	if (!ttys || term_mode == TERM_PASSTHROUGH || explain)
		return;
	/* The output goes where the jail's would have: stdout, stderr, or
	 * the terminal stdin is, when it was opened for writing too. */
	for (int fd = 1; fd <= 3 && src < 0; fd++)
		if (ttys & (1U << (fd % 3)) &&
		    (fd < 3 || (fcntl(0, F_GETFL) & O_ACCMODE) != O_RDONLY))
			src = fd % 3;
	die_term = term_end;
	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || ioctl(master, TIOCSPTLCK, &unlock) ||
	    (slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0)
		die("open a pseudo-terminal for the jail", errno,
		    "--jail-terminal=passthrough gives the jail your terminal as it is");
	if (fcntl(slave, F_SETFD, FD_CLOEXEC) ||
	    (src >= 0 && (out = fcntl(src, F_DUPFD_CLOEXEC, 3)) < 0))
		die("open a pseudo-terminal for the jail", errno, NULL);
	/* The caller's settings and size, as the jail would have seen them. */
	for (int fd = 0; fd < 3; fd++)
		if (ttys & (1U << fd) && !ioctl(fd, TCGETS, &t)) {
			(void)ioctl(slave, TCSETS, &t);
			if (!ioctl(fd, TIOCGWINSZ, &ws))
				(void)ioctl(master, TIOCSWINSZ, &ws);
			break;
		}
	filter_init(&flt);
	active = true;
	if (ttys & 1U)
		make_raw();
}

/* pid 1 (or the fallback's child), first: the slave where the caller's
 * terminal was, and nothing of the caller's terminal left. */
void term_child(void)
{
	if (!active)
		return;
	for (int fd = 0; fd < 3; fd++)
		if (ttys & (1U << fd) && dup2(slave, fd) < 0)
			die("give the jail its terminal", errno, NULL);
	close(slave);
	close(master);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	slave = master = out = in = -1;
	raw = false; /* the parent's to undo */
	die_term = NULL;
}

/* The target, after setsid(): the slave as its controlling terminal, so
 * that its line discipline signals the target's group.  Without it the
 * terminal still works, but ^C is a byte. */
void term_ctty(void)
{
	if (!active)
		return;
	for (int fd = 0; fd < 3; fd++)
		if (ttys & (1U << fd) && !ioctl(fd, TIOCSCTTY, 0))
			return;
}

/* SIGWINCH in the parent: the caller's size onto the master; the kernel
 * tells the jail's foreground group. */
bool term_winch(void)
{
	struct winsize ws;

	if (!active || ended)
		return false;
	for (int fd = 0; fd < 3; fd++)
		if (ttys & (1U << fd) && !ioctl(fd, TIOCGWINSZ, &ws))
			return !ioctl(master, TIOCSWINSZ, &ws);
	return false;
}

static unsigned term_fill(struct pollfd *p, unsigned max)
{
	if (max < 2)
		return 0;
	p[0] = (struct pollfd){.fd = m_done ? -1 : master, .events = POLLIN};
	if (i_n)
		p[0].events |= POLLOUT;
	p[1] = (struct pollfd){.fd = in < 0 || in_done || i_n ? -1 : in, .events = POLLIN};
	return 2;
}

/* The caller's terminal back in the caller's mode, the stub stopped as the
 * caller's shell stopped it before there was a pseudo-terminal: the jail
 * runs on meanwhile, and term_cont() takes the terminal again. */
static void suspend(void)
{
	if (raw && !ioctl(in, TCSETSW, &saved))
		raw = false;
	kill(getpid(), SIGTSTP);
	term_cont();
}

/* SIGCONT: the terminal raw again, if it is ours to read (fg, not bg). */
void term_cont(void)
{
	if (!active || ended || in < 0 || raw || tcgetpgrp(in) != getpgrp())
		return;
	make_raw_on(in);
	term_winch();
}

/* Where the jail's own line discipline would stop its foreground group
 * (ISIG and the VSUSP character, ^Z), the stub stops instead; a target
 * stopped inside would hold the caller's shell until it is killed. */
static size_t suspend_at(size_t r)
{
	struct termios t;

	if (ioctl(master, TCGETS, &t) || !(t.c_lflag & ISIG) || t.c_cc[VSUSP] == _POSIX_VDISABLE)
		return r;
	for (size_t k = 0; k < r; k++)
		if (ibuf[k] == t.c_cc[VSUSP])
			return k;
	return r;
}

static void term_serve(const struct pollfd *p, unsigned n)
{
	if (n < 2)
		return;
	if (p[1].revents) {
		ssize_t r = read(in, ibuf, sizeof(ibuf));

		if (r > 0) {
			size_t k = suspend_at((size_t)r);

			i_at = 0, i_n = k;
			if (k < (size_t)r) {
				/* What came after ^Z is typed ahead of a stop:
				 * dropped, as a line discipline flushes it. */
				if (k && write(master, ibuf, k) < 0)
					i_n = 0;
				i_n = 0;
				suspend();
			}
		} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
			in_done = true;
		}
	}
	if (i_n && !m_done) {
		ssize_t w = write(master, ibuf + i_at, i_n);

		if (w > 0)
			i_at += (size_t)w, i_n -= (size_t)w;
		else if (w < 0 && errno != EAGAIN && errno != EINTR)
			i_n = 0;
	}
	if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
		(void)pump();
}

static const struct ev_source term_source = {term_fill, term_serve};

/* The parent, after the fork: its copy of the slave closed, so that the
 * master reads EIO once the jail has none open. */
const struct ev_source *term_start(void)
{
	if (!active)
		return NULL;
	close(slave);
	slave = -1;
	if (fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK))
		die("relay the terminal", errno, NULL);
	return &term_source;
}

bool term_pty(void)
{
	return ttys && term_mode == TERM_FILTER;
}

/* Inside --jail-explain: the terminal handling in force. */
void term_explain(void)
{
	static const char *const names[3] = {"stdin", "stdout", "stderr"};
	bool pty = term_pty();

	rp_field("terminal");
	rp_open("terminal", '{');
	rp_str("handling", !ttys                           ? "none"
	                   : term_mode == TERM_PASSTHROUGH ? "passthrough"
	                                                   : "filter");
	rp_t(!ttys ? " (no terminal among stdin, stdout, stderr: nothing is relayed)"
	     : term_mode == TERM_PASSTHROUGH
	         ? " (the jail writes to your terminal as it is, every sequence included)"
	         : " (a pseudo-terminal of the jail's own, relayed by the stub's parent: OSC "
	           "strings but the title and hyperlinks, DCS, SOS, PM, APC, window "
	           "operations and title reports (CSI 20/21 t), ENQ and C1 controls dropped)");
	rp_bool("pty", pty);
	rp_open("terminals", '[');
	for (int fd = 0; fd < 3; fd++)
		if (ttys & (1U << fd))
			rp_jstr(NULL, names[fd]);
	rp_close();
	if (mode_opt) {
		rp_t(" (");
		rp_str("option", mode_opt);
		rp_t(")");
	} else {
		rp_jstr("option", NULL);
	}
	rp_close();
	rp_t("\n");
}
