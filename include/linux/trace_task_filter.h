/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the rest of the kernel tells ftrace's cgroup filters: the cgroup
 * core reports committed migrations, so that per-CPU verdicts follow a
 * task into or out of a filtered cgroup at once.
 */
#ifndef _LINUX_TRACE_TASK_FILTER_H
#define _LINUX_TRACE_TASK_FILTER_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct cgroup_taskset;

#ifdef CONFIG_TRACE_CGROUP_FILTER
DECLARE_STATIC_KEY_FALSE(trace_task_filter_key);

void trace_task_filter_attach(struct cgroup_taskset *tset);

/*
 * trace_task_filter_moves - does tracing want to hear of migrations: not
 * while no tracing instance filters by cgroup, when a migration costs the
 * cgroup core a static branch and nothing more.
 */
static inline bool trace_task_filter_moves(void)
{
	return static_branch_unlikely(&trace_task_filter_key);
}
#else
static inline void trace_task_filter_attach(struct cgroup_taskset *tset) { }

static inline bool trace_task_filter_moves(void)
{
	return false;
}
#endif

#endif /* _LINUX_TRACE_TASK_FILTER_H */
