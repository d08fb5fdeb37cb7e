/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the rest of the kernel tells ftrace's context filters: the cgroup
 * core reports committed migrations, so that per-CPU verdicts follow a
 * task into or out of a filtered cgroup at once.
 */
#ifndef _LINUX_TRACE_TASK_FILTER_H
#define _LINUX_TRACE_TASK_FILTER_H

struct cgroup_taskset;

#ifdef CONFIG_TRACE_CGROUP_FILTER
void trace_task_filter_attach(struct cgroup_taskset *tset);
#else
static inline void trace_task_filter_attach(struct cgroup_taskset *tset) { }
#endif

#endif /* _LINUX_TRACE_TASK_FILTER_H */
