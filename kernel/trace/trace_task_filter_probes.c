// SPDX-License-Identifier: GPL-2.0
/*
 * The sched probes that keep the per-CPU verdict of trace_task_filter.c
 * up to date, and the sets of them that the filtering instances need.
 *
 * One probe after the switch events decides for the task switched in.
 * While a filtering instance records sched_switch, a pre and a post probe
 * around the switch events keep a switch when either task is traced; while
 * it records a wakeup event, a pre and a post probe around the wakeup
 * events keep the wakeup of a traced task whoever wakes it.
 */
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "trace_task_filter.h"

/* The probe sets registered now (TF_PROBE_*); event_mutex */
static u8 tf_probes;

/*
 * tf_switch_rej - the event gate's word for a sched_switch from the task
 * of @prev to the task of @next: an instance drops the event only when
 * one of its rules rejects both tasks.
 */
static __always_inline unsigned long
tf_switch_rej(const struct trace_task_masks *prev,
	      const struct trace_task_masks *next)
{
	return (prev->ev_rule[TF_EV_PID] & next->ev_rule[TF_EV_PID]) |
	       (prev->ev_rule[TF_EV_NOPID] & next->ev_rule[TF_EV_NOPID]) |
	       (prev->ev_rule[TF_EV_CG] & next->ev_rule[TF_EV_CG]) |
	       (prev->ev_rule[TF_EV_NOCG] & next->ev_rule[TF_EV_NOCG]);
}

static void
tf_switch_pre(void *data, bool preempt, struct task_struct *prev,
	      struct task_struct *next, unsigned int prev_state)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	c->next = *trace_task_decide(next);
	c->next_task = next;
	if (unlikely(c->next.ev & TF_SHARED))
		trace_task_shared_update(TF_SHARED_SWITCH_PRE, next);
	this_cpu_write(trace_task_event_rej, tf_switch_rej(&c->cur, &c->next));
}

/*
 * While the probes are being registered or removed, a switch may run the
 * post probe without the pre one: then it decides by itself.
 */
static void
tf_switch_post(void *data, bool preempt, struct task_struct *prev,
	       struct task_struct *next, unsigned int prev_state)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	if (c->next_task != next) {
		c->next_task = NULL;
		trace_task_decide_cur(next);
		return;
	}
	c->cur = c->next;
	c->cur_task = next;
	c->next_task = NULL;
	if (unlikely(c->cur.ev & TF_SHARED))
		trace_task_shared_update(TF_SHARED_SWITCH_POST, NULL);
	this_cpu_write(trace_task_event_rej, c->cur.ev);
}

static void
tf_switch_decide(void *data, bool preempt, struct task_struct *prev,
		 struct task_struct *next, unsigned int prev_state)
{
	trace_task_decide_cur(next);
}

/*
 * The wakeup probes, while a filtering instance records a wakeup event:
 * a wakeup of a traced task is kept whoever wakes it.
 */
static noinline void tf_wakeup_decide(struct task_struct *task,
				      unsigned long cur)
{
	if (unlikely(cur & TF_SHARED))
		trace_task_shared_update(TF_SHARED_WAKEUP_PRE, task);
	this_cpu_write(trace_task_event_rej, cur & trace_task_decide(task)->ev);
}

static void tf_wakeup_pre(void *data, struct task_struct *task)
{
	unsigned long cur = this_cpu_read(trace_task_cpu.cur.ev);

	/*
	 * Nothing to do while current is traced everywhere; and current
	 * waking itself (the only case with interrupts on) has its verdict.
	 */
	if (cur && task != current)
		tf_wakeup_decide(task, cur);
}

static void tf_wakeup_post(void *data, struct task_struct *task)
{
	unsigned long cur = this_cpu_read(trace_task_cpu.cur.ev);

	/* As the pre probe: with interrupts on, an IPI may change cur. */
	if (cur && task != current) {
		if (unlikely(cur & TF_SHARED))
			trace_task_shared_update(TF_SHARED_WAKEUP_POST, NULL);
		this_cpu_write(trace_task_event_rej, cur);
	}
}

/**
 * trace_task_set_probes - register and unregister probe sets
 * @want: the TF_PROBE_* sets to have registered
 *
 * A post probe goes in before its pre probe and out after it, so that no
 * tracepoint call runs a pre probe without its post: no CPU is left with
 * the verdict of a half-done switch or wakeup, and no grace period is
 * needed. A call may run a post probe without its pre: the wakeup one
 * restores the current verdict, the switch one decides by itself.
 *
 * Context: event_mutex held.
 */
void trace_task_set_probes(u8 want)
{
	u8 add = want & ~tf_probes, del = tf_probes & ~want;

	lockdep_assert_held(&event_mutex);

	if (add & TF_PROBE_DECIDE)
		WARN_ON_ONCE(register_trace_prio_sched_switch(tf_switch_decide,
							      NULL, 0));
	if (add & TF_PROBE_PREPOST) {
		WARN_ON_ONCE(register_trace_prio_sched_switch(tf_switch_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_switch(tf_switch_pre,
							      NULL, INT_MAX));
	}
	if (add & TF_PROBE_WAKEUP) {
		WARN_ON_ONCE(register_trace_prio_sched_waking(tf_wakeup_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_waking(tf_wakeup_pre,
							      NULL, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(tf_wakeup_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(tf_wakeup_pre,
							      NULL, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(tf_wakeup_post,
								  NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(tf_wakeup_pre,
								  NULL, INT_MAX));
	}
	if (del & TF_PROBE_WAKEUP) {
		unregister_trace_sched_waking(tf_wakeup_pre, NULL);
		unregister_trace_sched_waking(tf_wakeup_post, NULL);
		unregister_trace_sched_wakeup(tf_wakeup_pre, NULL);
		unregister_trace_sched_wakeup(tf_wakeup_post, NULL);
		unregister_trace_sched_wakeup_new(tf_wakeup_pre, NULL);
		unregister_trace_sched_wakeup_new(tf_wakeup_post, NULL);
	}
	if (del & TF_PROBE_PREPOST) {
		unregister_trace_sched_switch(tf_switch_pre, NULL);
		unregister_trace_sched_switch(tf_switch_post, NULL);
	}
	if (del & TF_PROBE_DECIDE)
		unregister_trace_sched_switch(tf_switch_decide, NULL);
	tf_probes = want;
}

/**
 * trace_task_event_probes - the probes that keep the events of @call whole
 * @call: an event
 *
 * Return: TF_PROBE_PREPOST for sched_switch, TF_PROBE_WAKEUP for the
 * wakeup events, else 0.
 */
u8 trace_task_event_probes(struct trace_event_call *call)
{
	if (!(call->flags & TRACE_EVENT_FL_TRACEPOINT))
		return 0;
	if (call->tp == &__tracepoint_sched_switch)
		return TF_PROBE_PREPOST;
	if (call->tp == &__tracepoint_sched_waking ||
	    call->tp == &__tracepoint_sched_wakeup ||
	    call->tp == &__tracepoint_sched_wakeup_new)
		return TF_PROBE_WAKEUP;
	return 0;
}

/**
 * trace_task_sched_probes - the probes an instance's enabled events want
 * @tr: the instance
 *
 * Context: event_mutex held.
 *
 * Return: TF_PROBE_* sets.
 */
u8 trace_task_sched_probes(struct trace_array *tr)
{
	struct trace_event_file *file;
	u8 want = 0;

	list_for_each_entry(file, &tr->events, list) {
		if (file->flags & EVENT_FILE_FL_ENABLED)
			want |= trace_task_event_probes(file->event_call);
	}
	return want;
}
