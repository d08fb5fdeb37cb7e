/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prctl(PR_TRACE_USER_MARKER, ...): user-space markers for processes
 * that cannot open tracefs. See Documentation/trace/user-markers.rst.
 */
#ifndef _LINUX_TRACE_USER_MARKERS_H
#define _LINUX_TRACE_USER_MARKERS_H

#include <linux/errno.h>

#ifdef CONFIG_TRACE_USER_MARKERS
int trace_user_marker_prctl(unsigned long kind, unsigned long uname,
			    unsigned long value, unsigned long arg5);
#else
static inline int trace_user_marker_prctl(unsigned long kind,
					  unsigned long uname,
					  unsigned long value,
					  unsigned long arg5)
{
	return -EINVAL;
}
#endif

#endif /* _LINUX_TRACE_USER_MARKERS_H */
