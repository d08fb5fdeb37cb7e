/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space markers (Documentation/trace/user-markers.rst): the enable
 * state that a tracing instance's user_events_enabled file shows, and
 * maps read-only for a process (mmap of its first page).
 */
#ifndef _UAPI_LINUX_TRACE_USER_MARKERS_H
#define _UAPI_LINUX_TRACE_USER_MARKERS_H

#include <linux/types.h>

/*
 * The first __u32 of the page: a bit per user_markers event that a write
 * to the instance's user_events file would reach (for the top level's
 * file, the events of every instance that its writes reach).
 */
#define USER_MARKERS_BEGIN		(1U << 0)	/* B */
#define USER_MARKERS_END		(1U << 1)	/* E */
#define USER_MARKERS_COUNTER		(1U << 2)	/* C */
#define USER_MARKERS_ASYNC_BEGIN	(1U << 3)	/* S */
#define USER_MARKERS_ASYNC_END		(1U << 4)	/* F */
#define USER_MARKERS_INSTANT		(1U << 5)	/* I */

#endif /* _UAPI_LINUX_TRACE_USER_MARKERS_H */
