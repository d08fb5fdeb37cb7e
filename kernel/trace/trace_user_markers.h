/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space markers (trace_user_markers.c): the user_events files of an
 * instance and the state behind them.
 */
#ifndef _TRACE_USER_MARKERS_H
#define _TRACE_USER_MARKERS_H

struct trace_array;
struct dentry;

#ifdef CONFIG_TRACE_USER_MARKERS
int trace_user_markers_create(struct trace_array *tr, struct dentry *parent);
void trace_user_markers_destroy(struct trace_array *tr);
#else
static inline int trace_user_markers_create(struct trace_array *tr,
					    struct dentry *parent)
{
	return 0;
}

static inline void trace_user_markers_destroy(struct trace_array *tr) { }
#endif

#endif /* _TRACE_USER_MARKERS_H */
