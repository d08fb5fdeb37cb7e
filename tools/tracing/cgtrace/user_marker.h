/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * user_marker.h - mark spans, counters and instants into ftrace
 *
 * Header-only. Each call writes one record (Documentation/trace/
 * user-markers.rst) to /sys/kernel/tracing/user_events, which reaches every
 * tracing instance that records the user_markers events:
 *
 *	um_begin("gc");			begin a span on this thread
 *	um_counter("heap_kb", 5120);	a counter value
 *	um_instant("oom");		a point in time
 *	um_end();			end this thread's innermost span
 *
 * The file is opened once, on first use (O_WRONLY | O_CLOEXEC), and the
 * descriptor is shared by all threads. When it cannot be opened (no
 * tracefs, no permission, an older kernel) the calls fall back to
 * prctl(PR_TRACE_USER_MARKER), which works without tracefs and records only
 * into instances that opted in with options/user_events_prctl; on a kernel
 * without either, every call is a cheap no-op. Define UM_NO_PRCTL to skip
 * the fallback, UM_TRACEFS to use another tracefs mount point.
 *
 * It compiles as C99 and later (-std=c99, c11, c17, gnu*) and as C++:
 * a strict ISO mode hides O_CLOEXEC from <fcntl.h>, and the descriptor is
 * then marked close-on-exec with fcntl().
 *
 * Every function returns 0 or a negative errno; errors can be ignored.
 * The prctl has no async kinds (it takes BEGIN, END, COUNTER and INSTANT):
 * without the user_events file, um_async_begin() and um_async_end() record
 * nothing and return -EOPNOTSUPP, so that a caller can tell.
 */
#ifndef USER_MARKER_H
#define USER_MARKER_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#ifndef UM_TRACEFS
#define UM_TRACEFS		"/sys/kernel/tracing"
#endif

#ifndef PR_TRACE_USER_MARKER
#define PR_TRACE_USER_MARKER		0x55534d4b
#define PR_TRACE_MARKER_BEGIN		1
#define PR_TRACE_MARKER_END		2
#define PR_TRACE_MARKER_COUNTER		3
#define PR_TRACE_MARKER_INSTANT		4
#endif

#define UM_NAME_MAX		127

/* -2: not opened yet, -1: unavailable, else the open user_events file */
static int um__fd = -2;

/* um__file - the shared descriptor, opened by the first caller */
static inline int um__file(void)
{
	int fd = __atomic_load_n(&um__fd, __ATOMIC_ACQUIRE);
	int unset = -2;

	if (fd != -2)
		return fd;
#ifdef O_CLOEXEC
	fd = open(UM_TRACEFS "/user_events", O_WRONLY | O_CLOEXEC);
#else
	fd = open(UM_TRACEFS "/user_events", O_WRONLY);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
	if (fd < 0)
		fd = -1;
	/* two threads may race here: the first one's descriptor wins */
	if (!__atomic_compare_exchange_n(&um__fd, &unset, fd, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (fd >= 0)
			close(fd);
		fd = unset;
	}
	return fd;
}

#ifndef UM_NO_PRCTL
/* 1 once the kernel has shown it has no PR_TRACE_USER_MARKER */
static int um__no_prctl;
#endif

/* um__valid - a name the kernel accepts: printable, no '|' */
static inline int um__valid(const char *name)
{
	if (!name || !*name)
		return 0;
	for (; *name; name++)
		if (*name == '|' || (unsigned char)*name < 0x20 || *name == 0x7f)
			return 0;
	return 1;
}

/* um__prctl - the fallback path; a no-op when the kernel lacks it */
static inline int um__prctl(int kind, const char *name, long long value)
{
#ifdef UM_NO_PRCTL
	(void)kind;
	(void)name;
	(void)value;
	return 0;
#else
	if (__atomic_load_n(&um__no_prctl, __ATOMIC_RELAXED))
		return 0;
	if (prctl(PR_TRACE_USER_MARKER, kind, (unsigned long)name,
		  (unsigned long)value, 0UL) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* EINVAL for a valid record: the kernel has no such prctl */
	if (kind == PR_TRACE_MARKER_END || um__valid(name))
		__atomic_store_n(&um__no_prctl, 1, __ATOMIC_RELAXED);
	return 0;
#endif
}

/*
 * um__write - format one record and write it in one write(2); without the
 * file, pass it to the prctl, whose kinds are 1-4 (0: none, -EOPNOTSUPP)
 */
static inline int um__write(int kind, const char *fmt, const char *name,
			    long long value)
{
	char buf[UM_NAME_MAX + 64];
	int fd = um__file(), len;

	if (name && strlen(name) > UM_NAME_MAX)
		return -ENAMETOOLONG;
	if (fd < 0)
		return kind ? um__prctl(kind, name, value) : -EOPNOTSUPP;
	len = snprintf(buf, sizeof(buf), fmt, name ? name : "", value);
	if (write(fd, buf, len) != len)
		return -errno;
	return 0;
}

/* um_begin - begin a span named NAME on the calling thread */
static inline int um_begin(const char *name)
{
	return um__write(PR_TRACE_MARKER_BEGIN, "B|0|%s\n", name, 0);
}

/* um_end - end the calling thread's innermost span */
static inline int um_end(void)
{
	return um__write(PR_TRACE_MARKER_END, "E|0%s\n", NULL, 0);
}

/* um_counter - record the value of the counter NAME (process scoped) */
static inline int um_counter(const char *name, long long value)
{
	return um__write(PR_TRACE_MARKER_COUNTER, "C|0|%s|%lld\n", name, value);
}

/* um_instant - record an instant event NAME */
static inline int um_instant(const char *name)
{
	return um__write(PR_TRACE_MARKER_INSTANT, "I|0|%s\n", name, 0);
}

/*
 * um_async_begin - begin an async span, matched by NAME and COOKIE; only
 * through the user_events file: -EOPNOTSUPP on the prctl fallback
 */
static inline int um_async_begin(const char *name, long long cookie)
{
	return um__write(0, "S|0|%s|%lld\n", name, cookie);
}

/* um_async_end - end the async span NAME, COOKIE (-EOPNOTSUPP as above) */
static inline int um_async_end(const char *name, long long cookie)
{
	return um__write(0, "F|0|%s|%lld\n", name, cookie);
}

#endif /* USER_MARKER_H */
