/* base/trace.h: the launch's own timing by step (issue 38).  Compiled out
 * unless AJ_TRACE is defined (make TRACE=1 builds into build-trace/): the
 * shipped stubs carry none of it.  Each process keeps its marks in a static
 * buffer (no allocation, no syscall but the clock's) and writes them to
 * stderr once, where its start-up ends, so that the writing does not fall
 * between two marks: the parent before its loop, pid 1 before it starts
 * the target, the target just before execve.  One line per mark:
 * "ajtrace\tWHO\tSTEP\tNS_SINCE_PREVIOUS\tCLOCK_MONOTONIC_NS". */
#ifndef AJ_STUB_BASE_TRACE_H
#define AJ_STUB_BASE_TRACE_H

#ifdef AJ_TRACE
void trace_mark(const char *step);
void trace_who(const char *who); /* in a new process: its own marks from here */
void trace_flush(void);
#define TRACE_MARK(step) trace_mark(step)
#define TRACE_WHO(who)   trace_who(who)
#define TRACE_FLUSH()    trace_flush()
#else
#define TRACE_MARK(step) ((void)0)
#define TRACE_WHO(who)   ((void)0)
#define TRACE_FLUSH()    ((void)0)
#endif

#endif
