/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Context filters: which tasks an instance records.
 *
 * The pid files (set_event_pid, set_ftrace_pid and their notrace twins) and
 * the cgroup files (set_event_cgroup, set_ftrace_cgroup and theirs) are
 * rules. Each rule either accepts or rejects a task. The rules are
 * evaluated when their answer can change (context switch, wakeup of a
 * traced task, cgroup migration, a filter write) and the result is kept
 * per CPU, so the event gate reads one per-CPU bool, behind a static key
 * that is on only while some instance has a rule.
 */
#ifndef _TRACE_CTX_FILTER_H
#define _TRACE_CTX_FILTER_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/types.h>

struct trace_array;
struct task_struct;
struct cgroup;
struct dentry;

/*
 * Rule bits: a set bit in a verdict means "this rule rejects the task".
 * Event rules occupy the low nibble, function tracer rules the high one,
 * in the same order.
 */
enum {
	CTX_REJ_EV_PID		= BIT(0),	/* not in set_event_pid */
	CTX_REJ_EV_NOPID	= BIT(1),	/* in set_event_notrace_pid */
	CTX_REJ_EV_CG		= BIT(2),	/* outside set_event_cgroup */
	CTX_REJ_EV_NOCG		= BIT(3),	/* inside set_event_notrace_cgroup */
	CTX_REJ_FN_PID		= BIT(4),
	CTX_REJ_FN_NOPID	= BIT(5),
	CTX_REJ_FN_CG		= BIT(6),
	CTX_REJ_FN_NOCG		= BIT(7),
};

#define CTX_REJ_EV		0x0f
#define CTX_REJ_FN		0xf0
#define CTX_REJ_CGROUP		(CTX_REJ_EV_CG | CTX_REJ_EV_NOCG | \
				 CTX_REJ_FN_CG | CTX_REJ_FN_NOCG)

/* The four cgroup lists of an instance, indexed like the files. */
enum trace_cgroup_list {
	TRACE_CG_EVENT,		/* set_event_cgroup */
	TRACE_CG_EVENT_NO,	/* set_event_notrace_cgroup */
	TRACE_CG_FUNC,		/* set_ftrace_cgroup */
	TRACE_CG_FUNC_NO,	/* set_ftrace_notrace_cgroup */
	TRACE_CG_NR_LISTS,
};

/* What one CPU knows about the task it runs, for one instance. */
struct trace_ctx_cpu {
	u8			rej;		/* CTX_REJ_* of current */
	u8			next_rej;	/* of next, between switch probes */
	u8			cg_rej;		/* cgroup bits of cg_id ... */
	u64			cg_id;		/* ... the cgroup last decided */
	u64			cg_gen;		/* ... under this generation */
};

/* Per-instance context filter state; tr->ctx_filter. */
struct trace_ctx_filter {
	struct trace_array		*tr;
	struct trace_ctx_cpu __percpu	*cpu;
	/* on trace_ctx_filters while the instance has any rule */
	struct list_head		list;
	u8				rules;		/* CTX_REJ_* configured */
	bool				switch_probes;
	bool				wakeup_probes;
	struct trace_cgroup_set __rcu	*cgroups[TRACE_CG_NR_LISTS];
};

DECLARE_STATIC_KEY_FALSE(trace_ctx_filter_key);

int trace_ctx_filter_create(struct trace_array *tr, struct dentry *parent);
void trace_ctx_filter_destroy(struct trace_array *tr);
void trace_ctx_filter_update(struct trace_array *tr);
void trace_ctx_filter_update_locked(struct trace_array *tr);
bool trace_pid_reused(struct task_struct *task);

/* Cgroup lists: trace_cgroup_filter.c (CONFIG_TRACE_CGROUP_FILTER). */
#ifdef CONFIG_TRACE_CGROUP_FILTER
u8 trace_cgroup_rej(struct trace_ctx_filter *f, struct task_struct *task);
int trace_cgroup_filter_create_files(struct trace_array *tr,
				     struct dentry *parent);
void trace_cgroup_filter_clear(struct trace_array *tr);
u8 trace_cgroup_rules(struct trace_ctx_filter *f);
bool trace_ctx_function_cgroups(struct trace_array *tr);
#else
static inline u8 trace_cgroup_rej(struct trace_ctx_filter *f,
				  struct task_struct *task)
{
	return 0;
}

static inline int trace_cgroup_filter_create_files(struct trace_array *tr,
						   struct dentry *parent)
{
	return 0;
}

static inline void trace_cgroup_filter_clear(struct trace_array *tr) { }

static inline u8 trace_cgroup_rules(struct trace_ctx_filter *f)
{
	return 0;
}

static inline bool trace_ctx_function_cgroups(struct trace_array *tr)
{
	return false;
}
#endif

/* ftrace.c: re-install the function tracer's pid/cgroup callback. */
#ifdef CONFIG_FUNCTION_TRACER
void ftrace_ctx_filter_changed(struct trace_array *tr);
#else
static inline void ftrace_ctx_filter_changed(struct trace_array *tr) { }
#endif

/**
 * trace_ctx_marker_ignored - the gate for trace_marker and user markers
 * @f: the instance's context filter
 *
 * Markers are written by the current task and follow the cgroup rules of
 * set_event_cgroup and set_event_notrace_cgroup; the pid rules never
 * applied to markers and still do not.
 *
 * Return: true when the marker must not be recorded.
 */
static __always_inline bool trace_ctx_marker_ignored(struct trace_ctx_filter *f)
{
	if (!static_branch_unlikely(&trace_ctx_filter_key) || !f)
		return false;
	return this_cpu_read(f->cpu->rej) & (CTX_REJ_EV_CG | CTX_REJ_EV_NOCG);
}

#endif /* _TRACE_CTX_FILTER_H */
