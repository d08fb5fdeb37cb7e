/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Task filters of an instance: the pid lists (set_event_pid,
 * set_ftrace_pid and their notrace twins) and the cgroup lists
 * (set_event_cgroup, set_ftrace_cgroup and theirs). Each instance decides
 * its own verdicts in its own sched probes, as the pid lists always did:
 * the events' verdict in ignore_pid, the function tracer's in
 * ftrace_ignore_pid, per CPU.
 */
#ifndef _TRACE_TASK_FILTER_H
#define _TRACE_TASK_FILTER_H

#include <linux/types.h>
#include <linux/version.h>

struct trace_array;
struct task_struct;
struct dentry;
struct trace_cgroup_set;
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 0)

/* 7.3's typed allocators (slab.h), for kernels that lack them */
#ifndef kzalloc_obj
#define kmalloc_obj(VAR, GFP)	kmalloc(sizeof(VAR), GFP)
#define kzalloc_obj(VAR, GFP)	kzalloc(sizeof(VAR), GFP)
#endif
#endif

/*
 * The four cgroup lists of an instance, indexed like the files (in struct
 * trace_array; trace.h has trace_cgroup_active(), which reads them).
 */
enum trace_cgroup_list {
	TRACE_CG_EVENT,		/* set_event_cgroup */
	TRACE_CG_EVENT_NO,	/* set_event_notrace_cgroup */
	TRACE_CG_FUNC,		/* set_ftrace_cgroup */
	TRACE_CG_FUNC_NO,	/* set_ftrace_notrace_cgroup */
	TRACE_CG_NR_LISTS,
};

#ifdef CONFIG_TRACE_CGROUP_FILTER
/* trace.h's trace_cgroup_ignore_task() and _switch() call these */
bool __trace_cgroup_ignore_task(struct trace_array *tr, int list,
				struct task_struct *task);
bool __trace_cgroup_ignore_switch(struct trace_array *tr,
				  struct task_struct *prev,
				  struct task_struct *next);
int trace_cgroup_filter_create_files(struct trace_array *tr,
				     struct dentry *parent);
void trace_cgroup_filter_clear(struct trace_array *tr);
#else
static inline int trace_cgroup_filter_create_files(struct trace_array *tr,
						   struct dentry *parent)
{
	return 0;
}

static inline void trace_cgroup_filter_clear(struct trace_array *tr) { }
#endif

/* trace_events.c: the events' verdict, ignore_pid */
bool trace_event_task_filter_active(struct trace_array *tr);
void trace_event_task_filter_update(struct trace_array *tr, bool was_active);
void trace_event_task_filter_decide(struct trace_array *tr);

/* ftrace.c: the function tracer's verdict, ftrace_ignore_pid */
#ifdef CONFIG_FUNCTION_TRACER
void ftrace_cgroup_publish(struct trace_array *tr, int list,
			   struct trace_cgroup_set *set);
void ftrace_task_filter_decide(struct trace_array *tr);
#else
static inline void ftrace_cgroup_publish(struct trace_array *tr, int list,
					 struct trace_cgroup_set *set) { }
static inline void ftrace_task_filter_decide(struct trace_array *tr) { }
#endif

#endif /* _TRACE_TASK_FILTER_H */
