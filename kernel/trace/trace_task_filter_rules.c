// SPDX-License-Identifier: GPL-2.0
/*
 * An instance's context filter rules: the slot it owns in the per-CPU
 * verdict (or its place among the instances that share the last bit),
 * publishing its rules when a pid or cgroup list changes, the probes they
 * need, and re-deciding the verdict when a cgroup migration or a CPU
 * coming online can change it.
 *
 * Everything here runs under event_mutex, except the cgroup hook and the
 * CPU hotplug callback, which only re-decide.
 */
#include <linux/cgroup.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#ifdef CONFIG_TRACE_CGROUP_FILTER
#include <linux/trace_task_filter.h>
#endif

#include "trace.h"
#include "trace_task_filter.h"

/* Slots owned or reserved, and those whose rules include an event rule */
static unsigned long tf_slots_used;	/* event_mutex */
static unsigned long tf_ev_slots;	/* event_mutex */

/* tf_rules - the rules @tr has configured */
static u8 tf_rules(struct trace_array *tr)
{
	u8 rules = trace_cgroup_rules(tr->task_filter);

	if (rcu_access_pointer(tr->filtered_pids))
		rules |= TF_REJ_EV_PID;
	if (rcu_access_pointer(tr->filtered_no_pids))
		rules |= TF_REJ_EV_NOPID;
#ifdef CONFIG_FUNCTION_TRACER
	if (rcu_access_pointer(tr->function_pids))
		rules |= TF_REJ_FN_PID;
	if (rcu_access_pointer(tr->function_no_pids))
		rules |= TF_REJ_FN_NOPID;
#endif
	return rules;
}

/* tf_set_files - mark @tr's event files for the gate (or unmark them) */
static void tf_set_files(struct trace_array *tr)
{
	struct trace_event_file *file;

	list_for_each_entry(file, &tr->events, list)
		trace_task_filter_init_file(tr, file);
}

/**
 * trace_task_filter_init_file - set up the gate of one event file
 * @tr: the instance
 * @file: one of its event files, new or existing
 *
 * Context: event_mutex held, or early boot (no filter yet).
 */
void trace_task_filter_init_file(struct trace_array *tr,
				 struct trace_event_file *file)
{
	struct trace_task_filter *f = tr->task_filter;
	unsigned long bit = f ? f->ev_bit : 0;

	/* Early boot adds the top level's events before it has a filter */
	if (f)
		lockdep_assert_held(&event_mutex);
	/* The bit before the flag: a flagged file always has its bit. */
	WRITE_ONCE(file->task_filter_bit, bit);
	if (bit)
		set_bit(EVENT_FILE_FL_TASK_FILTER_BIT, &file->flags);
	else
		clear_bit(EVENT_FILE_FL_TASK_FILTER_BIT, &file->flags);
}

/**
 * trace_task_filter_prepare - make sure @tr can have rules
 * @tr: an instance about to publish a pid or cgroup list
 *
 * Reserves a slot for an instance that has none, or, when every slot is
 * taken, the per-CPU verdict of an instance that shares the last bit.
 * Call it before the list is published, under event_mutex, so that a
 * write that cannot be filtered fails and changes nothing.
 *
 * Return: 0, or -ENOMEM.
 */
int trace_task_filter_prepare(struct trace_array *tr)
{
	struct trace_task_filter *f = tr->task_filter;
	int slot;

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(!f))
		return -ENODEV;
	if (f->slot >= 0)
		return 0;
	slot = find_first_zero_bit(&tf_slots_used, TF_SLOTS);
	if (slot < TF_SLOTS) {
		__set_bit(slot, &tf_slots_used);
		f->slot = slot;
		return 0;
	}
	/* Kept until the instance goes: lockless gates may still read it. */
	if (!f->shared) {
		struct trace_task_shared_cpu __percpu *s;

		s = alloc_percpu(struct trace_task_shared_cpu);
		if (!s)
			return -ENOMEM;
		/* Zeroed before the gates can read it through f->shared */
		smp_store_release(&f->shared, s);
	} else {
		/* Not on the shared list: no probe writes it. */
		int cpu;

		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(f->shared, cpu), 0,
			       sizeof(struct trace_task_shared_cpu));
	}
	f->slot = TF_SHARED_SLOT;
	return 0;
}

/* tf_shared_set - put @f on the shared list or take it off */
static void tf_shared_set(struct trace_task_filter *f, u8 rules)
{
	struct trace_task_filter *g;
	u8 all = 0;

	/* A removed node is re-added only after the caller's grace period */
	if (rules && !f->shared_listed)
		list_add_tail_rcu(&f->shared_node, &trace_task_shared);
	else if (!rules && f->shared_listed)
		list_del_rcu(&f->shared_node);
	f->shared_listed = rules;
	list_for_each_entry(g, &trace_task_shared, shared_node)
		all |= g->rules;
	WRITE_ONCE(trace_task_shared_rules, all);
}

/* tf_publish_slot - publish @f's rules in the slot masks */
static void tf_publish_slot(struct trace_task_filter *f, u8 rules)
{
	unsigned long bit = BIT(f->slot);

	if (rules)
		rcu_assign_pointer(trace_task_slot[f->slot], f);
	else
		RCU_INIT_POINTER(trace_task_slot[f->slot], NULL);
	WRITE_ONCE(trace_task_pid_slots, rules & TF_REJ_PID ?
		   trace_task_pid_slots | bit : trace_task_pid_slots & ~bit);
	WRITE_ONCE(trace_task_cg_slots, rules & TF_REJ_CGROUP ?
		   trace_task_cg_slots | bit : trace_task_cg_slots & ~bit);
	tf_ev_slots = rules & TF_REJ_EV ? tf_ev_slots | bit :
					    tf_ev_slots & ~bit;
}

/* tf_update_probes - the probes every filtering instance needs */
static void tf_update_probes(void)
{
	unsigned long slots = tf_ev_slots;
	struct trace_task_filter *f;
	unsigned int slot;
	u8 want = 0;

	lockdep_assert_held(&event_mutex);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_protected(trace_task_slot[slot],
					      lockdep_is_held(&event_mutex));
		if (f)
			want |= f->sched_probes;
	}
	list_for_each_entry(f, &trace_task_shared, shared_node)
		want |= f->sched_probes;
	if (trace_task_pid_slots || trace_task_cg_slots || trace_task_shared_rules)
		want |= want & TF_PROBE_PREPOST ? 0 : TF_PROBE_DECIDE;
	else
		want = 0;
	trace_task_set_probes(want);
}

/**
 * trace_task_filter_event_toggled - an event of an instance was enabled or
 *	disabled
 * @file: the event file
 *
 * The switch and wakeup events of a filtering instance need probes around
 * them, to keep a switch or a wakeup that involves a traced task.
 */
void trace_task_filter_event_toggled(struct trace_event_file *file)
{
	struct trace_task_filter *f = file->tr->task_filter;

	lockdep_assert_held(&event_mutex);
	if (!f || f->slot < 0 || !trace_task_event_probes(file->event_call))
		return;
	f->sched_probes = f->rules & TF_REJ_EV ? trace_task_sched_probes(file->tr) : 0;
	tf_update_probes();
}

/**
 * trace_task_filter_update_locked - apply a change of @tr's filter lists
 * @tr: the instance whose pid or cgroup lists were just published
 *
 * Publishes the instance's rules in its slot (or on the shared list),
 * marks its event files for the gate, registers the sched probes while
 * some instance needs them and re-decides the running task on every CPU.
 * An instance left without rules gives its slot back, once no probe, gate
 * or IPI can still use it.
 */
void trace_task_filter_update_locked(struct trace_array *tr)
{
	struct trace_task_filter *f = tr->task_filter;
	bool want_switch, shared;
	unsigned long bit;
	u8 rules;

	lockdep_assert_held(&event_mutex);
	if (!f)
		return;

	rules = tf_rules(tr);
	/* A caller that skipped prepare, and found no memory: cannot filter */
	if (rules && f->slot < 0 && WARN_ON_ONCE(trace_task_filter_prepare(tr)))
		rules = 0;
	if (f->slot < 0)
		return;
	shared = f->slot == TF_SHARED_SLOT;
	bit = shared ? TF_SHARED : BIT(f->slot);

	WRITE_ONCE(f->rules, rules);
	WRITE_ONCE(f->ev_bit, rules & TF_REJ_EV ? bit : 0);
	WRITE_ONCE(f->fn_bit, rules & TF_REJ_FN ? bit : 0);
	tf_set_files(tr);

	if (shared)
		tf_shared_set(f, rules);
	else
		tf_publish_slot(f, rules);
	/* Cached verdicts from before this change are stale now. */
	atomic64_inc_return_release(&trace_task_gen);

	want_switch = trace_task_pid_slots || trace_task_cg_slots || trace_task_shared_rules;
	f->sched_probes = rules & TF_REJ_EV ? trace_task_sched_probes(tr) : 0;
	tf_update_probes();
	if (want_switch)
		static_branch_enable(&trace_task_filter_key);

	/*
	 * A slot given back may be taken by another instance: no probe, gate
	 * or IPI may still be using masks decided with it.
	 */
	if (!rules)
		tracepoint_synchronize_unregister();
	/* Switches decide for the tasks to come; decide current now. */
	on_each_cpu(trace_task_decide_current, NULL, 1);
	if (!rules) {
		if (!shared)
			__clear_bit(f->slot, &tf_slots_used);
		f->slot = -1;
	}
	if (!want_switch)
		static_branch_disable(&trace_task_filter_key);
}

/**
 * trace_task_filter_update - trace_task_filter_update_locked() for callers
 *	that do not hold event_mutex
 * @tr: the instance whose lists changed
 */
void trace_task_filter_update(struct trace_array *tr)
{
	mutex_lock(&event_mutex);
	trace_task_filter_update_locked(tr);
	mutex_unlock(&event_mutex);
}

#ifdef CONFIG_TRACE_CGROUP_FILTER
/**
 * trace_task_filter_attach - tasks moved between cgroups
 * @tset: the tasks of a committed migration
 *
 * Called by the cgroup core after the move, before the write to
 * cgroup.procs (or the task's own move) returns. Every CPU that holds a
 * moved task, running or queued, re-decides its running task in an IPI.
 *
 * Why every CPU that holds one, not only those that run one now: a task
 * being switched in at this moment may have read its old cgroup in the
 * switch probe while this CPU reads that it is not running yet. The IPI
 * runs on its CPU after that switch (interrupts are off across it), and
 * sees the new cgroup. A task that moves to another CPU after its CPU was
 * read here is switched in there after this CPU's full barrier, the
 * migration's locks ordering that CPU's read of its cgroup after the move.
 */
void trace_task_filter_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *task;
	cpumask_var_t cpus;

	if (!static_branch_unlikely(&trace_task_filter_key))
		return;
	/*
	 * The moves' stores to task->cgroups before the reads of the cgroup
	 * rules and of task_cpu(): a filter write that publishes a first
	 * cgroup rule after this test decides the moved tasks itself, in its
	 * IPIs, and sees their new cgroup then.
	 */
	smp_mb();
	if (!READ_ONCE(trace_task_cg_slots) &&
	    !(READ_ONCE(trace_task_shared_rules) & TF_REJ_CGROUP))
		return;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		/* Rare: re-decide everywhere rather than miss a CPU. */
		on_each_cpu(trace_task_decide_current, NULL, 1);
		return;
	}
	cgroup_taskset_for_each(task, css, tset)
		cpumask_set_cpu(task_cpu(task), cpus);
	/* The mover moving itself: it runs here, decide before returning. */
	cpumask_set_cpu(raw_smp_processor_id(), cpus);
	on_each_cpu_mask(cpus, trace_task_decide_current, NULL, true);
	free_cpumask_var(cpus);
}
#endif /* CONFIG_TRACE_CGROUP_FILTER */
/*
 * A CPU that comes online may hold masks decided before it went offline,
 * with slots that have been given back and taken by other instances since
 * (filter writes re-decide online CPUs only): decide its running task as
 * soon as it is up. Every switch on it decides from then on.
 */
static int tf_cpu_online(unsigned int cpu)
{
	local_irq_disable();
	trace_task_decide_current(NULL);
	local_irq_enable();
	return 0;
}

static int __init trace_task_filter_init(void)
{
	int ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					    "trace/task_filter:online",
					    tf_cpu_online, NULL);

	return ret < 0 ? ret : 0;
}
core_initcall(trace_task_filter_init);

/**
 * trace_task_filter_create - allocate @tr's context filter and its files
 * @tr: a new instance (or the top level)
 * @parent: the instance's tracefs directory
 *
 * Return: 0 or -ENOMEM.
 */
int trace_task_filter_create(struct trace_array *tr, struct dentry *parent)
{
	struct trace_task_filter *f;

	f = kzalloc_obj(*f, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->tr = tr;
	f->slot = -1;
	tr->task_filter = f;
	return trace_cgroup_filter_create_files(tr, parent);
}

/**
 * trace_task_filter_destroy - release everything of a removed instance
 * @tr: the instance, whose pid lists are already cleared
 */
void trace_task_filter_destroy(struct trace_array *tr)
{
	struct trace_task_filter *f = tr->task_filter;

	lockdep_assert_held(&event_mutex);
	if (!f)
		return;
	/* Clears the cgroup lists, gives the slot back, waits for readers */
	trace_cgroup_filter_clear(tr);
	trace_task_filter_update_locked(tr);
	WARN_ON_ONCE(f->slot >= 0);
	tr->task_filter = NULL;
	free_percpu(f->shared);
	kfree(f);
}
