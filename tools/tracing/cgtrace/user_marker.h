/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * user_marker.h - mark spans, counters and instants into ftrace
 *
 * A single-header library. Each call writes one record (Documentation/
 * trace/user-markers.rst) to /sys/kernel/tracing/user_events, which
 * reaches every tracing instance that records the user_markers events:
 *
 *	um_begin("gc");			begin a span on this thread
 *	um_counter("heap_kb", 5120);	a counter value
 *	um_instant("oom");		a point in time
 *	um_end();			end this thread's innermost span
 *
 * Include it wherever markers are written, and in exactly one C or C++
 * file of the program define USER_MARKER_IMPLEMENTATION first:
 *
 *	#define USER_MARKER_IMPLEMENTATION
 *	#include "user_marker.h"
 *
 * That file holds the one state the whole program shares (the open
 * user_events file, the mapped enable state, each thread's open spans),
 * so that a span begun in one file and ended in another is one span, and
 * the files are opened and mapped once. A program that includes the
 * header without that definition anywhere does not link (undefined
 * um__* symbols); one that defines it twice does not link either. In a
 * program made of shared libraries, define it in one of them (or in the
 * executable) and let the others use its symbols. Its options go in the
 * same file, before the #include:
 *
 *	UM_TRACEFS "/path"	another tracefs mount (default
 *				/sys/kernel/tracing)
 *	UM_PRCTL		the prctl fallback, below (off by default)
 *
 * A marker that no instance would record costs no system call: on first
 * use the process maps /sys/kernel/tracing/user_events_enabled read-only,
 * whose first word the kernel keeps up to date with the user_markers
 * events that a write would reach (USER_MARKERS_* of
 * <linux/trace_user_markers.h>), and each call first tests its bit there:
 * a disabled marker is a load and a branch. Spans stay in step with the
 * kernel's account of them: a span begun while begin and end were off is
 * not written at its end either (the kernel would not have followed it),
 * and one that was written is ended whatever the state is then. After a
 * fork the child starts with no open span, as the kernel sees it; after
 * an exec the new program starts afresh (the descriptor is close-on-exec).
 *
 * The files are opened once, on first use, close-on-exec, and shared by
 * all threads. Without the state page (an older kernel, no permission, a
 * sandbox that may not map it) every call writes, as if all were on.
 * Without the user_events file (a kernel without the markers, no tracefs,
 * no permission) a call records nothing, makes no system call after the
 * first attempt to open it, and returns that attempt's error (-ENOENT,
 * -EACCES); spans still pair, so a program runs the same on any kernel.
 *
 * With UM_PRCTL, a process without the file passes each marker to
 * prctl(PR_TRACE_USER_MARKER) instead: one system call a marker whatever
 * the state, recorded only into instances that opted in with
 * options/user_events_prctl, and only with CAP_PERFMON; on a kernel that
 * refuses it, every later call is a cheap no-op. It is off unless asked
 * for, because a sandbox whose seccomp policy kills a process at an
 * unknown prctl option would kill a program that never meant to use it.
 * The prctl has no async kinds (it takes BEGIN, END, COUNTER and INSTANT):
 * through it, um_async_begin() and um_async_end() record nothing and
 * return -EOPNOTSUPP, so that a caller can tell.
 *
 * It compiles as C99 and later (-std=c99, c11, c17, gnu*) and as C++
 * (with C linkage, so C and C++ files of one program share the state): a
 * strict ISO mode hides O_CLOEXEC from <fcntl.h>, and the descriptor is
 * then marked close-on-exec with fcntl(). It needs GCC or Clang
 * (__thread, __atomic builtins). The other files reach the per-thread
 * state with the initial-exec TLS model: a disabled marker there costs
 * an instruction or two more than in the defining file, and no more in
 * a shared library than in the executable.
 *
 * Every function returns 0 or a negative errno; errors can be ignored.
 */
#ifndef USER_MARKER_H
#define USER_MARKER_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
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

/* The bits of user_events_enabled's first word (linux/trace_user_markers.h) */
#define UM_ON_BEGIN		(1U << 0)
#define UM_ON_END		(1U << 1)
#define UM_ON_COUNTER		(1U << 2)
#define UM_ON_ASYNC_BEGIN	(1U << 3)
#define UM_ON_ASYNC_END		(1U << 4)
#define UM_ON_INSTANT		(1U << 5)

#define UM_NAME_MAX		127

/*
 * The spans of this thread that are open: those written (the kernel
 * follows them) in the high half, and in the low half those below them
 * that were begun while nothing recorded spans, and not written. Once a
 * written span is open, every span begun in it is written: the kernel
 * follows a thread's spans while it has one open, whatever the state.
 * One word, so that a disabled begin and end test and count in one
 * instruction each.
 */
#define UM__WRITTEN		0x10000U

/*
 * The per-thread state: in the defining file (of an executable) the
 * compiler reaches it at a fixed offset from the thread pointer; in the
 * others, initial-exec: one load more, and no call to __tls_get_addr()
 * even in a shared library
 */
#ifdef USER_MARKER_IMPLEMENTATION
#define UM__TLS __thread
#else
#define UM__TLS __thread __attribute__((tls_model("initial-exec")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The program's one state, defined where USER_MARKER_IMPLEMENTATION is:
 *
 * um__state_word: the enable state's word. Until the page is mapped,
 * &um__unmapped, a word with every bit set, so that the first marker of
 * each kind takes the slow path, which maps it; when it cannot be
 * mapped, &um__all_on, so that every marker is written.
 *
 * um__span_word: the word a thread's begin tests: the process's, or
 * &um__all_on while a written span of the thread is open (every begin is
 * written then), so that a disabled begin is one test.
 */
extern const unsigned int um__unmapped, um__all_on;
extern const volatile unsigned int *um__state_word;
extern UM__TLS unsigned int um__spans;
extern UM__TLS const volatile unsigned int *um__span_word;

/* the slow paths, out of line: only the tests are inlined */
int um__begin(const char *name);
int um__end(void);
unsigned int um__on_slow(void);
int um__write(int kind, const char *fmt, const char *name, long long value);

#ifdef __cplusplus
}
#endif

/* um__on - the enable state: which markers a write would reach now */
static inline unsigned int um__on(void)
{
	return *__atomic_load_n(&um__state_word, __ATOMIC_RELAXED);
}

/* um_begin - begin a span named NAME on the calling thread */
static inline int um_begin(const char *name)
{
	if (__builtin_expect(!(*um__span_word & (UM_ON_BEGIN | UM_ON_END)), 1)) {
		um__spans++;
		return 0;
	}
	return um__begin(name);
}

/* um_end - end the calling thread's innermost span */
static inline int um_end(void)
{
	unsigned int spans = um__spans;

	/* none written open, one begun unwritten open */
	if (__builtin_expect(spans - 1 < UM__WRITTEN - 1, 1)) {
		um__spans = spans - 1;
		return 0;
	}
	return um__end();
}

/* um__kind - a marker of kind @on is written: its bit, and mapped */
static inline int um__kind(unsigned int on)
{
	return __builtin_expect(!!(um__on() & on), 0) && (um__on_slow() & on);
}

/* um_counter - record the value of the counter NAME (process scoped) */
static inline int um_counter(const char *name, long long value)
{
	if (!um__kind(UM_ON_COUNTER))
		return 0;
	return um__write(PR_TRACE_MARKER_COUNTER, "C|0|%s|%lld\n", name, value);
}

/* um_instant - record an instant event NAME */
static inline int um_instant(const char *name)
{
	if (!um__kind(UM_ON_INSTANT))
		return 0;
	return um__write(PR_TRACE_MARKER_INSTANT, "I|0|%s\n", name, 0);
}

/*
 * um_async_begin - begin an async span, matched by NAME and COOKIE; only
 * through the user_events file: -EOPNOTSUPP on the prctl fallback
 */
static inline int um_async_begin(const char *name, long long cookie)
{
	if (!um__kind(UM_ON_ASYNC_BEGIN))
		return 0;
	return um__write(0, "S|0|%s|%lld\n", name, cookie);
}

/* um_async_end - end the async span NAME, COOKIE (-EOPNOTSUPP as above) */
static inline int um_async_end(const char *name, long long cookie)
{
	if (!um__kind(UM_ON_ASYNC_END))
		return 0;
	return um__write(0, "F|0|%s|%lld\n", name, cookie);
}

#endif /* USER_MARKER_H */

/*
 * The implementation: in the one file that defines
 * USER_MARKER_IMPLEMENTATION (outside the include guard, so that it may
 * include the header again after another header included it first).
 */
#if defined(USER_MARKER_IMPLEMENTATION) && !defined(USER_MARKER_IMPLEMENTED)
#define USER_MARKER_IMPLEMENTED

#ifdef __cplusplus
extern "C" {
#endif

const unsigned int um__unmapped = ~0U, um__all_on = ~0U;
const volatile unsigned int *um__state_word = &um__unmapped;
UM__TLS unsigned int um__spans;
UM__TLS const volatile unsigned int *um__span_word = &um__unmapped;

/* the open user_events file, -errno when it cannot be, or not opened yet */
#define UM__UNOPENED		(-4096 - 1)
static int um__fd = UM__UNOPENED;

/* um__open - open @file of tracefs close-on-exec, or -errno */
static int um__open(const char *file, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", UM_TRACEFS, file);
#ifdef O_CLOEXEC
	fd = open(path, flags | O_CLOEXEC);
#else
	fd = open(path, flags);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
	return fd < 0 ? -errno : fd;
}

/* um__file - the shared descriptor (or -errno), opened by the first caller */
static int um__file(void)
{
	int fd = __atomic_load_n(&um__fd, __ATOMIC_ACQUIRE);
	int unset = UM__UNOPENED;

	if (fd != UM__UNOPENED)
		return fd;
	fd = um__open("user_events", O_WRONLY);
	/* two threads may race here: the first one's result wins */
	if (!__atomic_compare_exchange_n(&um__fd, &unset, fd, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (fd >= 0)
			close(fd);
		fd = unset;
	}
	return fd;
}

/* um__spans_sync - the thread's begin word, for its spans and the state */
static void um__spans_sync(void)
{
	um__span_word = um__spans >= UM__WRITTEN ? &um__all_on :
			__atomic_load_n(&um__state_word, __ATOMIC_ACQUIRE);
}

/* um__forked - a fork's child starts with none: the kernel saw none */
static void um__forked(void)
{
	um__spans = 0;
	um__spans_sync();
}

/* um__map - map user_events_enabled's page, once for the process */
static void um__map(void)
{
	const volatile unsigned int *word = &um__all_on, *unset = &um__unmapped;
	int fd = um__open("user_events_enabled", O_RDONLY);
	void *page = MAP_FAILED;

	if (fd >= 0) {
		page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
	}
	if (page != MAP_FAILED)
		word = (const volatile unsigned int *)page;
	if (__atomic_compare_exchange_n(&um__state_word, &unset, word, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		pthread_atfork(NULL, NULL, um__forked);
	else if (page != MAP_FAILED)
		munmap(page, 4096);	/* another thread mapped it first */
}

/* um__on_slow - um__on() where a marker found its bit set: mapped yet? */
unsigned int um__on_slow(void)
{
	if (__atomic_load_n(&um__state_word, __ATOMIC_ACQUIRE) == &um__unmapped)
		um__map();
	return *__atomic_load_n(&um__state_word, __ATOMIC_ACQUIRE);
}

#if defined(UM_PRCTL) && !defined(UM_NO_PRCTL)
/* 1 once the kernel has shown that it will not take PR_TRACE_USER_MARKER */
static int um__no_prctl;

/* um__valid - a name the kernel accepts: printable, no '|' */
static int um__valid(const char *name)
{
	if (!name || !*name)
		return 0;
	for (; *name; name++)
		if (*name == '|' || (unsigned char)*name < 0x20 || *name == 0x7f)
			return 0;
	return 1;
}

/* um__prctl - the fallback path; a no-op when the kernel refuses it */
static int um__prctl(int kind, const char *name, long long value)
{
	if (__atomic_load_n(&um__no_prctl, __ATOMIC_RELAXED))
		return 0;
	if (prctl(PR_TRACE_USER_MARKER, kind, (unsigned long)name,
		  (unsigned long)value, 0UL) == 0)
		return 0;
	/* EPERM: without CAP_PERFMON it never will */
	if (errno == EPERM) {
		__atomic_store_n(&um__no_prctl, 1, __ATOMIC_RELAXED);
		return -EPERM;
	}
	if (errno != EINVAL)
		return -errno;
	/* EINVAL for a valid record: the kernel has no such prctl */
	if (kind == PR_TRACE_MARKER_END || um__valid(name))
		__atomic_store_n(&um__no_prctl, 1, __ATOMIC_RELAXED);
	return 0;
}
#endif

/*
 * um__write - format one record and write it in one write(2); without the
 * file, the error of opening it, or with UM_PRCTL the record passed to
 * the prctl, whose kinds are 1-4 (0: none, -EOPNOTSUPP)
 */
int um__write(int kind, const char *fmt, const char *name, long long value)
{
	char buf[UM_NAME_MAX + 64];
	int fd = um__file(), len;

	if (name && strlen(name) > UM_NAME_MAX)
		return -ENAMETOOLONG;
	if (fd < 0) {
#if defined(UM_PRCTL) && !defined(UM_NO_PRCTL)
		return kind ? um__prctl(kind, name, value) : -EOPNOTSUPP;
#else
		(void)kind;
		(void)value;
		return fd;
#endif
	}
	len = snprintf(buf, sizeof(buf), fmt, name ? name : "", value);
	if (write(fd, buf, len) != len)
		return -errno;
	return 0;
}

/* um__begin - um_begin() past its fast path: written, or not after all */
int um__begin(const char *name)
{
	int ret;

	um__on_slow();		/* mapped */
	um__spans_sync();
	if (!(*um__span_word & (UM_ON_BEGIN | UM_ON_END))) {
		um__spans++;
		return 0;
	}
	/* one the kernel did not take is not open there either */
	ret = um__write(PR_TRACE_MARKER_BEGIN, "B|0|%s\n", name, 0);
	um__spans += ret ? 1 : UM__WRITTEN;
	um__spans_sync();
	return ret;
}

/* um__end - um_end() when the innermost span was written, or none is open */
int um__end(void)
{
	if (um__spans >= UM__WRITTEN) {
		um__spans -= UM__WRITTEN;
		um__spans_sync();
	} else if (!(um__on_slow() & UM_ON_END)) {
		/* an end with nothing open: recorded as unmatched, or not */
		return 0;
	}
	return um__write(PR_TRACE_MARKER_END, "E|0%s\n", NULL, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* USER_MARKER_IMPLEMENTATION */
