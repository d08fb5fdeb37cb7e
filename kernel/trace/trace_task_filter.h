/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Context filters: which tasks an instance records.
 *
 * The pid files (set_event_pid, set_ftrace_pid and their notrace twins) and
 * the cgroup files (set_event_cgroup, set_ftrace_cgroup and theirs) are
 * rules. Each rule either accepts or rejects a task. The rules of every
 * instance are evaluated together when their answer can change (context
 * switch, wakeup of a task, cgroup migration, a filter write), and the
 * result is kept per CPU as bit masks, one bit per filtering instance: the
 * event gate, the marker gates and the function tracer each test one bit
 * of one per-CPU word.
 */
#ifndef _TRACE_TASK_FILTER_H
#define _TRACE_TASK_FILTER_H

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/trace_events.h>
#include <linux/types.h>
#include <linux/version.h>

struct trace_array;
struct task_struct;
struct cgroup;
struct dentry;
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 0)

/* 7.3's typed allocators (slab.h), for the older kernels */
#define kmalloc_obj(VAR, GFP)	kmalloc(sizeof(VAR), GFP)
#define kzalloc_obj(VAR, GFP)	kzalloc(sizeof(VAR), GFP)
#endif

/*
 * Rule bits: a set bit means "this rule rejects the task". Event rules
 * occupy the low nibble, function tracer rules the high one, in the same
 * order.
 */
enum {
	TF_REJ_EV_PID		= BIT(0),	/* not in set_event_pid */
	TF_REJ_EV_NOPID	= BIT(1),	/* in set_event_notrace_pid */
	TF_REJ_EV_CG		= BIT(2),	/* outside set_event_cgroup */
	TF_REJ_EV_NOCG		= BIT(3),	/* inside set_event_notrace_cgroup */
	TF_REJ_FN_PID		= BIT(4),
	TF_REJ_FN_NOPID	= BIT(5),
	TF_REJ_FN_CG		= BIT(6),
	TF_REJ_FN_NOCG		= BIT(7),
};

#define TF_REJ_EV		0x0f
#define TF_REJ_FN		0xf0
#define TF_REJ_EV_CGROUP	(TF_REJ_EV_CG | TF_REJ_EV_NOCG)
#define TF_REJ_FN_CGROUP	(TF_REJ_FN_CG | TF_REJ_FN_NOCG)
#define TF_REJ_CGROUP		(TF_REJ_EV_CGROUP | TF_REJ_FN_CGROUP)
#define TF_REJ_PID		(TF_REJ_EV_PID | TF_REJ_EV_NOPID | \
				 TF_REJ_FN_PID | TF_REJ_FN_NOPID)

/* The four cgroup lists of an instance, indexed like the files. */
enum trace_cgroup_list {
	TRACE_CG_EVENT,		/* set_event_cgroup */
	TRACE_CG_EVENT_NO,	/* set_event_notrace_cgroup */
	TRACE_CG_FUNC,		/* set_ftrace_cgroup */
	TRACE_CG_FUNC_NO,	/* set_ftrace_notrace_cgroup */
	TRACE_CG_NR_LISTS,
};

/* The event rules, indexed like their TF_REJ_EV_* bits */
enum trace_task_ev_rule {
	TF_EV_PID,
	TF_EV_NOPID,
	TF_EV_CG,
	TF_EV_NOCG,
	TF_EV_RULES,
};

/*
 * Verdict masks: bit N set means the instance in slot N rejects the task.
 * @ev: some event rule (pid or cgroup); @fn: a function tracer rule;
 * @ev_rule: each event rule alone, for sched_switch, which is dropped only
 * when one rule rejects both tasks.
 *
 * Bit TF_SHARED is set in every mask while some instance filters
 * without a slot of its own: a gate that finds it set asks that instance's
 * per-CPU state (struct trace_task_shared_cpu).
 */
struct trace_task_masks {
	unsigned long	ev;
	unsigned long	fn;
	unsigned long	ev_rule[TF_EV_RULES];
};

/* The masks a CPU keeps; the event gate's word is trace_task_event_rej. */
struct trace_task_cpu {
	struct trace_task_masks	cur;	/* for cur_task */
	struct trace_task_masks	next;	/* between the two switch probes */
	/*
	 * Whom cur was decided for: the running task, or the task being
	 * switched in once the switch probes ran. The function tracer's gate
	 * compares it with current, so that the functions the previous task
	 * runs before the switch completes are not judged by the verdict of
	 * the next one. Only compared, never dereferenced.
	 */
	struct task_struct	*cur_task;
	struct task_struct	*next_task;	/* whom next was decided for */
};

DECLARE_PER_CPU(struct trace_task_cpu, trace_task_cpu);

/*
 * The per-CPU verdict of an instance that filters without a slot (more
 * than TF_SLOTS instances filter): decided by the same probes as the
 * masks, for this instance alone, and read by the gates when they find
 * TF_SHARED set.
 * @cur: the TF_REJ_* rules that reject the running task
 * @next: the same for the task being switched in
 * @ev_rej: the event gate's answer, as trace_task_event_rej gives it
 */
struct trace_task_shared_cpu {
	u8	cur;
	u8	next;
	u8	ev_rej;
};

/* Per-instance context filter state; tr->task_filter. */
struct trace_task_filter {
	struct trace_array		*tr;
	u8				rules;		/* TF_REJ_* configured */
	u8				sched_probes;	/* its sched events want */
	/* -1: none; TF_SHARED_SLOT: on the shared list, with @shared */
	int				slot;
	/* BIT(slot) where a rule of the kind exists, else 0: the gates */
	unsigned long			ev_bit;
	unsigned long			fn_bit;
	struct trace_cgroup_set __rcu	*cgroups[TRACE_CG_NR_LISTS];
	struct list_head		shared_node;	/* RCU, event_mutex */
	bool				shared_listed;	/* on trace_task_shared */
	struct trace_task_shared_cpu __percpu *shared;
};

/*
 * Slots: the first TF_SLOTS filtering instances own a bit each; the ones
 * after them share the last bit, TF_SHARED, and keep a per-CPU
 * verdict of their own.
 */
#define TF_SLOTS		(BITS_PER_LONG - 1)
#define TF_SHARED_SLOT		TF_SLOTS

DECLARE_STATIC_KEY_FALSE(trace_task_filter_key);

/* trace_task_filter.c: the verdict, its slots and its cache */

/* Tasks whose verdicts each CPU remembers, a power of two */
#define TF_CACHE		8

/*
 * What a CPU decided for a task lately: valid while the task has the same
 * pid number and cgroup, and no list or slot changed (the generation).
 * The verdict on a pid number does not depend on which task has it.
 */
struct trace_task_cache_entry {
	u64			gen;
	u64			cg_id;	/* 0 while no instance has cgroup rules */
	pid_t			pid;
	struct trace_task_masks	m;
};

DECLARE_PER_CPU(struct trace_task_cache_entry[TF_CACHE], trace_task_cache);
extern struct trace_task_filter __rcu *trace_task_slot[TF_SLOTS];
extern unsigned long trace_task_pid_slots;
extern unsigned long trace_task_cg_slots;
extern struct list_head trace_task_shared;
extern u8 trace_task_shared_rules;
extern atomic64_t trace_task_gen;

/* The points where trace_task_shared_update() decides */
enum trace_task_shared_op {
	TF_SHARED_DECIDE,
	TF_SHARED_SWITCH_PRE,
	TF_SHARED_SWITCH_POST,
	TF_SHARED_WAKEUP_PRE,
	TF_SHARED_WAKEUP_POST,
};

void trace_task_decide_fill(struct task_struct *task,
			    struct trace_task_cache_entry *e, u64 gen, u64 id);
void trace_task_shared_update(enum trace_task_shared_op op,
			      struct task_struct *task);
void trace_task_decide_current(void *unused);

/* The cgroup a verdict is cached for: a migration re-decides the task */
static __always_inline u64 trace_task_cgroup_id(struct task_struct *task)
{
#ifdef CONFIG_TRACE_CGROUP_FILTER
	return cgroup_id(task_dfl_cgroup(task));
#else
	return 0;
#endif
}

/**
 * trace_task_decide - every instance's verdict on @task, from this CPU's
 *	cache
 * @task: the task
 *
 * Called with interrupts off (switch probes, wakeups of another task,
 * IPIs), so that nothing on this CPU can fill the same entry between the
 * stores that fill it.
 *
 * Return: the masks, valid until the next decision on this CPU.
 */
static __always_inline const struct trace_task_masks *
trace_task_decide(struct task_struct *task)
{
	u64 gen = atomic64_read_acquire(&trace_task_gen);
	u64 id = READ_ONCE(trace_task_cg_slots) ? trace_task_cgroup_id(task) : 0;
	struct trace_task_cache_entry *e;

	lockdep_assert_irqs_disabled();
	e = this_cpu_ptr(&trace_task_cache[task->pid & (TF_CACHE - 1)]);
	if (unlikely(e->pid != task->pid || e->cg_id != id || e->gen != gen))
		trace_task_decide_fill(task, e, gen, id);
	return &e->m;
}

/**
 * trace_task_decide_cur - decide @task as the task that runs on this CPU
 * @task: current, or the task being switched in
 *
 * Sets the CPU's masks, the verdicts of the instances without a slot and
 * the event gate's word for @task. Context: interrupts off.
 */
static __always_inline void trace_task_decide_cur(struct task_struct *task)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	c->cur = *trace_task_decide(task);
	c->cur_task = task;
	if (unlikely(c->cur.ev & TF_SHARED))
		trace_task_shared_update(TF_SHARED_DECIDE, task);
	this_cpu_write(trace_task_event_rej, c->cur.ev);
}

/* trace_task_filter_probes.c: the sched probes, in sets */
#define TF_PROBE_DECIDE		BIT(0)	/* one probe after a switch */
#define TF_PROBE_PREPOST	BIT(1)	/* probes around the switch events */
#define TF_PROBE_WAKEUP		BIT(2)	/* probes around the wakeup events */

void trace_task_set_probes(u8 want);
u8 trace_task_event_probes(struct trace_event_call *call);
u8 trace_task_sched_probes(struct trace_array *tr);

/* trace_task_filter_rules.c: an instance's rules */
int trace_task_filter_create(struct trace_array *tr, struct dentry *parent);
void trace_task_filter_destroy(struct trace_array *tr);
int trace_task_filter_prepare(struct trace_array *tr);
void trace_task_filter_update(struct trace_array *tr);
void trace_task_filter_update_locked(struct trace_array *tr);
void trace_task_filter_init_file(struct trace_array *tr,
				 struct trace_event_file *file);
void trace_task_filter_event_toggled(struct trace_event_file *file);
void trace_task_pids_changed(void);

#ifdef CONFIG_TRACE_CGROUP_FILTER
/* The cgroup lists, in trace_cgroup_filter.c */
u8 trace_cgroup_rej(struct trace_task_filter *f, struct task_struct *task);
int trace_cgroup_filter_create_files(struct trace_array *tr,
				     struct dentry *parent);
void trace_cgroup_filter_clear(struct trace_array *tr);
u8 trace_cgroup_rules(struct trace_task_filter *f);
bool trace_task_function_cgroups(struct trace_array *tr);
#else
/* No cgroup lists: no cgroup rule, no cgroup file */
static inline u8 trace_cgroup_rej(struct trace_task_filter *f,
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

static inline u8 trace_cgroup_rules(struct trace_task_filter *f)
{
	return 0;
}

static inline bool trace_task_function_cgroups(struct trace_array *tr)
{
	return false;
}
#endif

/* ftrace.c: re-install the function tracer's pid/cgroup callback. */
#ifdef CONFIG_FUNCTION_TRACER
void ftrace_task_filter_changed(struct trace_array *tr);
#else
static inline void ftrace_task_filter_changed(struct trace_array *tr) { }
#endif

bool trace_task_shared_rejects(struct trace_task_filter *f, u8 rules);

/*
 * trace_task_rejects - the common part of the gates below: does the
 * instance's bit @bit in this CPU's mask @mask say that it rejects the
 * task, or, for an instance without a slot, its own per-CPU verdict on
 * @rules.
 */
static __always_inline bool trace_task_rejects(struct trace_task_filter *f,
					       unsigned long mask,
					       unsigned long bit, u8 rules)
{
	unsigned long hit = mask & bit;

	if (likely(!(hit & TF_SHARED)))
		return hit;
	return trace_task_shared_rejects(f, rules);
}

/**
 * trace_task_user_marker_ignored - the gate of the writers of markers:
 *	user_markers records, trace_marker and trace_marker_raw
 * @f: the instance's context filter
 *
 * A marker is an event of the task that writes it: every event rule, pid
 * and cgroup alike, applies.
 *
 * Return: true when the record must not be recorded.
 */
static __always_inline bool
trace_task_user_marker_ignored(struct trace_task_filter *f)
{
	if (!static_branch_unlikely(&trace_task_filter_key) || !f)
		return false;
	return trace_task_rejects(f, this_cpu_read(trace_task_cpu.cur.ev),
				 READ_ONCE(f->ev_bit), TF_REJ_EV);
}

/* trace_marker and trace_marker_raw: the same gate as user markers */
static __always_inline bool trace_task_marker_ignored(struct trace_task_filter *f)
{
	return trace_task_user_marker_ignored(f);
}

/**
 * trace_task_function_rejected - the function rules' verdict on the task
 *	the CPU decided for last
 * @f: the instance's context filter (may be NULL)
 *
 * What function_graph's entry handler asks (ftrace_trace_task()).
 *
 * Return: true when a function rule rejects that task.
 */
static __always_inline bool
trace_task_function_rejected(struct trace_task_filter *f)
{
	return f && trace_task_rejects(f, this_cpu_read(trace_task_cpu.cur.fn),
				      READ_ONCE(f->fn_bit), TF_REJ_FN);
}

/**
 * trace_task_function_ignored - the gate of the function tracer callbacks
 * @f: the instance's context filter (may be NULL)
 *
 * While the instance has a function rule, a function is traced only when
 * the verdict is the current task's and accepts it: between the switch
 * probes and the end of the switch the CPU still runs the previous task,
 * whose functions are not traced (as the pid filter never traced them).
 *
 * Return: true when the current task's functions must not be traced.
 */
static __always_inline bool
trace_task_function_ignored(struct trace_task_filter *f)
{
	unsigned long bit;

	if (!f)
		return false;
	bit = READ_ONCE(f->fn_bit);
	if (!bit)
		return false;
	if (this_cpu_read(trace_task_cpu.cur_task) != current)
		return true;
	return trace_task_rejects(f, this_cpu_read(trace_task_cpu.cur.fn), bit,
				 TF_REJ_FN);
}

#endif /* _TRACE_TASK_FILTER_H */
