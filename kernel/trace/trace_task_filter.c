// SPDX-License-Identifier: GPL-2.0
/*
 * One per-CPU verdict for the context filters of every instance.
 *
 * An instance with any pid or cgroup rule owns a slot, a bit in per-CPU
 * masks. For the task running on a CPU, bit N of a mask is set when the
 * instance in slot N rejects it. The event gate tests one bit of
 * trace_task_event_rej, trace_marker one bit of cur.evcg, the function
 * tracer one bit of cur.fn: the cost of a test does not depend on the
 * number of instances or of listed pids and cgroups.
 *
 * The masks are decided for all instances at once when they can change:
 *  - context switch: for the next task, by one probe after the switch
 *    events, or, while a filtering instance records sched_switch, by a pre
 *    and a post probe around them, so that a switch is kept when either
 *    task is traced;
 *  - wakeups: while a filtering instance records wakeup events and the CPU
 *    ignores current for some instance, a wakeup of a traced task is kept
 *    (the trace shows who woke it);
 *  - cgroup migration: trace_task_filter_attach() re-decides on every CPU
 *    that holds a moved task, before the move returns;
 *  - a filter write: re-decided on every CPU; a CPU coming online too.
 *
 * A decision covers every rule of every instance: the task's cgroup and
 * its ancestors are looked up in the hash sets of each instance with
 * cgroup lists, and its pid in each instance with pid lists. Each CPU
 * caches the result for a few tasks, keyed by pid number, cgroup and a
 * generation that every change of a list bumps, so that switches between
 * the same tasks look nothing up.
 *
 * Only TF_SLOTS instances can own a bit. The ones that start filtering
 * after that share the last bit, TF_SHARED, which is then set in
 * every mask: the same probes decide each of them into a per-CPU verdict
 * of its own, uncached, and a gate that finds the shared bit set reads
 * that verdict instead. Filtering never fails for want of a slot; it
 * gets slower, in proportion to the number of instances beyond TF_SLOTS.
 *
 * This file keeps the masks, their cache and the verdicts of the instances
 * without a slot; trace_task_filter_probes.c the sched probes that decide
 * them; trace_task_filter_rules.c an instance's slot and rules, and the
 * cgroup migration and CPU hotplug callbacks. Each calls only the files
 * before it.
 */
#include <linux/cgroup.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "trace.h"
#include "trace_task_filter.h"

DEFINE_STATIC_KEY_FALSE(trace_task_filter_key);

/* The event gate's word: read by trace_trigger_soft_disabled(). */
DEFINE_PER_CPU(unsigned long, trace_task_event_rej);
EXPORT_PER_CPU_SYMBOL_GPL(trace_task_event_rej);

DEFINE_PER_CPU(struct trace_task_cpu, trace_task_cpu);

/* Direct-mapped by pid; written only with interrupts off. */
DEFINE_PER_CPU(struct trace_task_cache_entry[TF_CACHE], trace_task_cache);

/*
 * Slots, and which of them have pid or cgroup rules. Written under
 * event_mutex (trace_task_filter_rules.c), read by probes and IPIs in
 * RCU-sched read sections.
 */
struct trace_task_filter __rcu *trace_task_slot[TF_SLOTS];
unsigned long trace_task_pid_slots;
unsigned long trace_task_cg_slots;

/*
 * The instances that filter without a slot (RCU list, written under
 * event_mutex), and the union of their rules: TF_SHARED goes into
 * every mask while it is not 0.
 */
LIST_HEAD(trace_task_shared);
u8 trace_task_shared_rules;

/*
 * Bumped (release) after every published change of a list or a slot, and
 * when event-fork or function-fork changes a pid list, so that a verdict
 * decided before the change is never used.
 */
atomic64_t trace_task_gen = ATOMIC64_INIT(1);

/* tf_pid_rej - the pid rules of @f that reject @task */
static u8 tf_pid_rej(struct trace_task_filter *f, struct task_struct *task)
{
	struct trace_array *tr = f->tr;
	u8 rules = READ_ONCE(f->rules), rej = 0;
	struct trace_pid_list *pids;

	if (rules & TF_REJ_EV_PID) {
		pids = rcu_dereference_sched(tr->filtered_pids);
		if (pids && !trace_find_filtered_pid(pids, task->pid))
			rej |= TF_REJ_EV_PID;
	}
	if (rules & TF_REJ_EV_NOPID) {
		pids = rcu_dereference_sched(tr->filtered_no_pids);
		if (pids && trace_find_filtered_pid(pids, task->pid))
			rej |= TF_REJ_EV_NOPID;
	}
#ifdef CONFIG_FUNCTION_TRACER
	if (rules & TF_REJ_FN_PID) {
		pids = rcu_dereference_sched(tr->function_pids);
		if (pids && !trace_find_filtered_pid(pids, task->pid))
			rej |= TF_REJ_FN_PID;
	}
	if (rules & TF_REJ_FN_NOPID) {
		pids = rcu_dereference_sched(tr->function_no_pids);
		if (pids && trace_find_filtered_pid(pids, task->pid))
			rej |= TF_REJ_FN_NOPID;
	}
#endif
	return rej;
}

/* tf_task_rej - every rule of @f that rejects @task */
static u8 tf_task_rej(struct trace_task_filter *f, struct task_struct *task)
{
	return tf_pid_rej(f, task) | trace_cgroup_rej(f, task);
}

/* tf_add_rej - mark the rules @rej of the instance in @bit in @m */
static void tf_add_rej(struct trace_task_masks *m, unsigned long bit, u8 rej)
{
	int r;

	for (r = 0; r < TF_EV_RULES; r++) {
		if (rej & BIT(r))
			m->ev_rule[r] |= bit;
	}
	if (rej & TF_REJ_FN)
		m->fn |= bit;
}

/* tf_decide_uncached - every instance's verdict on @task */
static void tf_decide_uncached(struct task_struct *task,
			       struct trace_task_masks *m)
{
	struct trace_task_filter *f;
	unsigned long slots;
	unsigned int slot;
	int r;

	memset(m, 0, sizeof(*m));
	slots = READ_ONCE(trace_task_cg_slots);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_sched(trace_task_slot[slot]);
		if (f)
			tf_add_rej(m, BIT(slot), trace_cgroup_rej(f, task));
	}
	slots = READ_ONCE(trace_task_pid_slots);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_sched(trace_task_slot[slot]);
		if (f)
			tf_add_rej(m, BIT(slot), tf_pid_rej(f, task));
	}
	/* The instances without a slot decide in their own state. */
	if (READ_ONCE(trace_task_shared_rules)) {
		for (r = 0; r < TF_EV_RULES; r++)
			m->ev_rule[r] |= TF_SHARED;
		m->fn |= TF_SHARED;
	}
	m->ev = m->ev_rule[TF_EV_CG] | m->ev_rule[TF_EV_NOCG] |
		m->ev_rule[TF_EV_PID] | m->ev_rule[TF_EV_NOPID];
}

/**
 * trace_task_decide_fill - decide @task into its cache entry
 * @task: the task
 * @e: this CPU's entry for its pid
 * @gen: trace_task_gen, read before the rules
 * @id: the id of its cgroup, or 0 while no instance has cgroup rules
 *
 * The slow path of trace_task_decide(). Context: interrupts off.
 */
noinline void trace_task_decide_fill(struct task_struct *task,
				     struct trace_task_cache_entry *e,
				     u64 gen, u64 id)
{
	tf_decide_uncached(task, &e->m);
	e->pid = task->pid;
	e->cg_id = id;
	e->gen = gen;
}

/**
 * trace_task_shared_update - keep the per-CPU verdicts of the instances
 *	without a slot, at the points where the masks are decided
 * @op: the point: TF_SHARED_DECIDE (@task runs, or is switched in, on
 *	this CPU), TF_SHARED_SWITCH_PRE and _POST (around the switch
 *	events, @task switched in), TF_SHARED_WAKEUP_PRE and _POST (around
 *	the wakeup events, @task woken)
 * @task: the task, or NULL for the _POST points
 *
 * Between a pre and its post point, an instance drops the event only when
 * its rules reject both tasks: a switch or a wakeup that involves a task
 * it traces is kept.
 *
 * Context: interrupts off, as for trace_task_decide().
 */
noinline void trace_task_shared_update(enum trace_task_shared_op op,
				       struct task_struct *task)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;
	u8 rej;

	list_for_each_entry_rcu(f, &trace_task_shared, shared_node) {
		s = this_cpu_ptr(f->shared);
		switch (op) {
		case TF_SHARED_DECIDE:
			s->cur = tf_task_rej(f, task);
			rej = s->cur;
			break;
		case TF_SHARED_SWITCH_PRE:
			s->next = tf_task_rej(f, task);
			rej = s->cur & s->next;
			break;
		case TF_SHARED_SWITCH_POST:
			s->cur = s->next;
			rej = s->cur;
			break;
		case TF_SHARED_WAKEUP_PRE:
			rej = s->cur & TF_REJ_EV ? tf_task_rej(f, task) : 0;
			break;
		default:	/* TF_SHARED_WAKEUP_POST */
			rej = s->cur;
			break;
		}
		s->ev_rej = !!(rej & TF_REJ_EV);
	}
}

/**
 * trace_task_shared_rejects - the verdict of an instance without a slot
 * @f: its context filter
 * @rules: the TF_REJ_* rules the gate asks about
 *
 * Return: true when one of @rules rejects the task running on this CPU.
 */
bool trace_task_shared_rejects(struct trace_task_filter *f, u8 rules)
{
	struct trace_task_shared_cpu __percpu *s = READ_ONCE(f->shared);

	return s && (this_cpu_read(s->cur) & rules);
}

/**
 * trace_task_shared_event_ignored - the event gate of an instance without
 *	a slot
 * @file: an event file of that instance, which found TF_SHARED set
 *
 * Return: true when the instance does not record the event now.
 */
bool trace_task_shared_event_ignored(struct trace_event_file *file)
{
	struct trace_task_filter *f = READ_ONCE(file->tr->task_filter);
	struct trace_task_shared_cpu __percpu *s = f ? READ_ONCE(f->shared) : NULL;

	return s && this_cpu_read(s->ev_rej);
}
EXPORT_SYMBOL_GPL(trace_task_shared_event_ignored);

/**
 * trace_task_pids_changed - event-fork or function-fork changed a pid list
 *
 * Called after the change, from the fork and exit probes: verdicts cached
 * before it are not used again.
 */
void trace_task_pids_changed(void)
{
	atomic64_inc_return_release(&trace_task_gen);
}

/**
 * trace_task_decide_current - re-decide the task running on this CPU
 * @unused: for on_each_cpu()
 *
 * Context: interrupts off (an IPI, or CPU hotplug with them disabled).
 */
void trace_task_decide_current(void *unused)
{
	trace_task_decide_cur(current);
}
