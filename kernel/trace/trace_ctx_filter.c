// SPDX-License-Identifier: GPL-2.0
/*
 * One per-CPU verdict for all of an instance's context filters.
 *
 * 6.1 kept the event pid verdict in its own sched probes (eight of them,
 * doing up to ten pid lookups per switch) and the function pid verdict in
 * another, and the event gate tested it twice per recorded event. Here
 * every rule (pid and cgroup, events and functions) is decided at once for
 * the task being switched in, the verdicts go to the same per-CPU fields
 * the event gate and ftrace_pid_func() already read, and the gate tests
 * the event verdict once, only while some instance has a rule.
 *
 * When a verdict can change:
 *  - context switch: decided for next, in a pre and a post probe around
 *    the sched_switch event so that the event itself is kept when either
 *    task is traced;
 *  - wakeups: while the CPU ignores current, a wakeup of a traced task is
 *    kept (the trace shows who woke it);
 *  - cgroup migration: trace_ctx_filter_attach() re-decides on every CPU
 *    that runs a moved task, before the move returns;
 *  - a filter write: re-decided on every CPU.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/trace_ctx_filter.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "trace_ctx_filter.h"

DEFINE_STATIC_KEY_FALSE(trace_ctx_filter_key);

/* Instances with any rule; RCU readers in IPIs, writers hold event_mutex. */
static LIST_HEAD(trace_ctx_filters);

/*
 * ctx_task_rej - every rule of @f that rejects @task
 *
 * Only the lists @f->rules names are looked at. A list published after
 * the rules were read is decided by the update that follows it, on every
 * CPU; a list being removed may still be seen here, or be NULL.
 */
static u8 ctx_task_rej(struct trace_ctx_filter *f, struct task_struct *task)
{
	struct trace_array *tr = f->tr;
	u8 rules = READ_ONCE(f->rules), rej = 0;
	struct trace_pid_list *pids;

	if (rules & CTX_REJ_EV_PID) {
		pids = rcu_dereference_sched(tr->filtered_pids);
		if (pids && !trace_find_filtered_pid(pids, task->pid))
			rej |= CTX_REJ_EV_PID;
	}
	if (rules & CTX_REJ_EV_NOPID) {
		pids = rcu_dereference_sched(tr->filtered_no_pids);
		if (pids && trace_find_filtered_pid(pids, task->pid))
			rej |= CTX_REJ_EV_NOPID;
	}
#ifdef CONFIG_FUNCTION_TRACER
	if (rules & CTX_REJ_FN_PID) {
		pids = rcu_dereference_sched(tr->function_pids);
		if (pids && !trace_find_filtered_pid(pids, task->pid))
			rej |= CTX_REJ_FN_PID;
	}
	if (rules & CTX_REJ_FN_NOPID) {
		pids = rcu_dereference_sched(tr->function_no_pids);
		if (pids && trace_find_filtered_pid(pids, task->pid))
			rej |= CTX_REJ_FN_NOPID;
	}
#endif
	if (rules & CTX_REJ_CGROUP)
		rej |= trace_cgroup_rej(f, task);
	return rej;
}

/* ctx_publish - store current's verdict where the gates read it */
static void ctx_publish(struct trace_ctx_filter *f, u8 rej, pid_t pid)
{
	struct trace_array_cpu *data = this_cpu_ptr(f->tr->array_buffer.data);

	this_cpu_write(f->cpu->rej, rej);
	WRITE_ONCE(data->ignore_pid, !!(rej & CTX_REJ_EV));
	if (!(f->rules & CTX_REJ_FN))
		WRITE_ONCE(data->ftrace_ignore_pid, FTRACE_PID_TRACE);
	else if (rej & CTX_REJ_FN)
		WRITE_ONCE(data->ftrace_ignore_pid, FTRACE_PID_IGNORE);
	else
		WRITE_ONCE(data->ftrace_ignore_pid, pid);
}

static void
ctx_sched_switch_pre(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	struct trace_ctx_filter *f = data;
	struct trace_array_cpu *cpu_data;
	u8 next_rej = ctx_task_rej(f, next);

	this_cpu_write(f->cpu->next_rej, next_rej);
	/*
	 * Keep the switch when either task is traced: a rule drops it only
	 * if it rejects both. For the pid files alone this is what 6.1 did.
	 */
	cpu_data = this_cpu_ptr(f->tr->array_buffer.data);
	WRITE_ONCE(cpu_data->ignore_pid,
		   !!(this_cpu_read(f->cpu->rej) & next_rej & CTX_REJ_EV));
}

static void
ctx_sched_switch_post(void *data, bool preempt, struct task_struct *prev,
		      struct task_struct *next, unsigned int prev_state)
{
	struct trace_ctx_filter *f = data;

	ctx_publish(f, this_cpu_read(f->cpu->next_rej), next->pid);
}

static void ctx_sched_wakeup_pre(void *data, struct task_struct *task)
{
	struct trace_ctx_filter *f = data;
	struct trace_array_cpu *cpu_data;

	/* Already recording for current: the wakeup is kept anyway. */
	if (!(this_cpu_read(f->cpu->rej) & CTX_REJ_EV))
		return;
	/* Keep the wakeup of a traced task, whoever wakes it. */
	cpu_data = this_cpu_ptr(f->tr->array_buffer.data);
	WRITE_ONCE(cpu_data->ignore_pid,
		   !!(ctx_task_rej(f, task) & CTX_REJ_EV));
}

static void ctx_sched_wakeup_post(void *data, struct task_struct *task)
{
	struct trace_ctx_filter *f = data;
	struct trace_array_cpu *cpu_data;

	/* Back to current's own verdict, which the pre probe left alone. */
	cpu_data = this_cpu_ptr(f->tr->array_buffer.data);
	WRITE_ONCE(cpu_data->ignore_pid,
		   !!(this_cpu_read(f->cpu->rej) & CTX_REJ_EV));
}

static void ctx_register_switch(struct trace_ctx_filter *f, bool on)
{
	if (on) {
		/*
		 * pre before every other sched_switch probe, post after the
		 * sched_switch event has been recorded.
		 */
		WARN_ON_ONCE(register_trace_prio_sched_switch(ctx_sched_switch_pre,
							      f, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_switch(ctx_sched_switch_post,
							      f, 0));
	} else {
		unregister_trace_sched_switch(ctx_sched_switch_pre, f);
		unregister_trace_sched_switch(ctx_sched_switch_post, f);
	}
}

static void ctx_register_wakeup(struct trace_ctx_filter *f, bool on)
{
	if (on) {
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(ctx_sched_wakeup_pre,
							      f, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(ctx_sched_wakeup_post,
							      f, 0));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(ctx_sched_wakeup_pre,
								  f, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(ctx_sched_wakeup_post,
								  f, 0));
		WARN_ON_ONCE(register_trace_prio_sched_waking(ctx_sched_wakeup_pre,
							      f, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_waking(ctx_sched_wakeup_post,
							      f, 0));
	} else {
		unregister_trace_sched_wakeup(ctx_sched_wakeup_pre, f);
		unregister_trace_sched_wakeup(ctx_sched_wakeup_post, f);
		unregister_trace_sched_wakeup_new(ctx_sched_wakeup_pre, f);
		unregister_trace_sched_wakeup_new(ctx_sched_wakeup_post, f);
		unregister_trace_sched_waking(ctx_sched_wakeup_pre, f);
		unregister_trace_sched_waking(ctx_sched_wakeup_post, f);
	}
}

/* ctx_decide_current - re-decide this CPU's current task (IPI context) */
static void ctx_decide_current(void *data)
{
	struct trace_ctx_filter *f = data;

	ctx_publish(f, ctx_task_rej(f, current), current->pid);
}

/* ctx_rules - the rules @tr has configured */
static u8 ctx_rules(struct trace_array *tr)
{
	u8 rules = trace_cgroup_rules(tr->ctx_filter);

	if (rcu_access_pointer(tr->filtered_pids))
		rules |= CTX_REJ_EV_PID;
	if (rcu_access_pointer(tr->filtered_no_pids))
		rules |= CTX_REJ_EV_NOPID;
#ifdef CONFIG_FUNCTION_TRACER
	if (rcu_access_pointer(tr->function_pids))
		rules |= CTX_REJ_FN_PID;
	if (rcu_access_pointer(tr->function_no_pids))
		rules |= CTX_REJ_FN_NOPID;
#endif
	return rules;
}

/**
 * trace_ctx_filter_update_locked - apply a change of @tr's filter lists
 * @tr: the instance whose pid or cgroup lists were just published
 *
 * Registers or unregisters the sched probes the rules need, keeps the
 * static key counting instances with rules, marks the instance's event
 * files for the gate and re-decides the running task on every CPU.
 */
void trace_ctx_filter_update_locked(struct trace_array *tr)
{
	struct trace_ctx_filter *f = tr->ctx_filter;
	struct trace_event_file *file;
	u8 rules;
	int cpu;

	lockdep_assert_held(&event_mutex);
	if (!f)
		return;

	rules = ctx_rules(tr);
	WRITE_ONCE(f->rules, rules);

	if (rules && !f->switch_probes) {
		ctx_register_switch(f, true);
		f->switch_probes = true;
		list_add_rcu(&f->list, &trace_ctx_filters);
		static_branch_inc(&trace_ctx_filter_key);
	}
	if ((rules & CTX_REJ_EV) && !f->wakeup_probes) {
		ctx_register_wakeup(f, true);
		f->wakeup_probes = true;
	} else if (!(rules & CTX_REJ_EV) && f->wakeup_probes) {
		ctx_register_wakeup(f, false);
		f->wakeup_probes = false;
	}

	list_for_each_entry(file, &tr->events, list) {
		if (rules & CTX_REJ_EV)
			set_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);
		else
			clear_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);
	}

	if (rules) {
		/* Switches decide for the tasks to come; decide current now. */
		on_each_cpu(ctx_decide_current, f, 1);
		return;
	}

	if (f->switch_probes) {
		ctx_register_switch(f, false);
		f->switch_probes = false;
		list_del_rcu(&f->list);
		static_branch_dec(&trace_ctx_filter_key);
	}
	for_each_possible_cpu(cpu) {
		struct trace_array_cpu *data = per_cpu_ptr(tr->array_buffer.data, cpu);

		per_cpu_ptr(f->cpu, cpu)->rej = 0;
		data->ignore_pid = false;
		data->ftrace_ignore_pid = FTRACE_PID_TRACE;
	}
}

/**
 * trace_ctx_filter_update - trace_ctx_filter_update_locked() for callers
 *	that do not hold event_mutex (the function pid files)
 * @tr: the instance whose lists changed
 */
void trace_ctx_filter_update(struct trace_array *tr)
{
	mutex_lock(&event_mutex);
	trace_ctx_filter_update_locked(tr);
	mutex_unlock(&event_mutex);
}

/**
 * trace_pid_reused - does another task hold the pid number of @task now
 * @task: a task being freed (sched_process_free), its pid released
 *
 * A task's pid number is released when it is reaped, a grace period
 * before sched_process_free is called for it. A task forked in between may
 * already hold the number, and a pid list entry for it is the new task's.
 *
 * Return: true if the number of @task belongs to a live pid.
 */
bool trace_pid_reused(struct task_struct *task)
{
	bool reused;

	rcu_read_lock();
	reused = find_pid_ns(task->pid, &init_pid_ns);
	rcu_read_unlock();
	return reused;
}

#ifdef CONFIG_TRACE_CGROUP_FILTER
/* ctx_decide_all - re-decide current on this CPU for every instance */
static void ctx_decide_all(void *unused)
{
	struct trace_ctx_filter *f;

	list_for_each_entry_rcu(f, &trace_ctx_filters, list,
				rcu_read_lock_sched_held())
		ctx_publish(f, ctx_task_rej(f, current), current->pid);
}

/**
 * trace_ctx_filter_attach - tasks moved between cgroups
 * @tset: the tasks of a committed migration
 *
 * Called by the cgroup core after the move, before the write to
 * cgroup.procs (or the task's own move) returns. A moved task that runs
 * right now gets its verdicts re-decided on its CPU, so its very next
 * event is filtered by its new cgroup; the others are decided when they
 * are switched in.
 */
void trace_ctx_filter_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *task;
	cpumask_var_t cpus;

	if (!static_branch_unlikely(&trace_ctx_filter_key))
		return;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		/* Rare: re-decide everywhere rather than miss a CPU. */
		on_each_cpu(ctx_decide_all, NULL, 1);
		return;
	}
	cgroup_taskset_for_each(task, css, tset) {
		if (task_curr(task))
			cpumask_set_cpu(task_cpu(task), cpus);
	}
	/* The mover moving itself: it runs here, decide before returning. */
	cpumask_set_cpu(raw_smp_processor_id(), cpus);
	on_each_cpu_mask(cpus, ctx_decide_all, NULL, true);
	free_cpumask_var(cpus);
}
#endif

/**
 * trace_ctx_filter_create - allocate @tr's context filter and its files
 * @tr: a new instance (or the top level)
 * @parent: the instance's tracefs directory
 *
 * Return: 0 or -ENOMEM.
 */
int trace_ctx_filter_create(struct trace_array *tr, struct dentry *parent)
{
	struct trace_ctx_filter *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->cpu = alloc_percpu(struct trace_ctx_cpu);
	if (!f->cpu) {
		kfree(f);
		return -ENOMEM;
	}
	f->tr = tr;
	INIT_LIST_HEAD(&f->list);
	tr->ctx_filter = f;
	return trace_cgroup_filter_create_files(tr, parent);
}

/**
 * trace_ctx_filter_destroy - release everything of a removed instance
 * @tr: the instance, whose pid lists are already cleared
 */
void trace_ctx_filter_destroy(struct trace_array *tr)
{
	struct trace_ctx_filter *f = tr->ctx_filter;

	lockdep_assert_held(&event_mutex);
	if (!f)
		return;
	trace_cgroup_filter_clear(tr);
	trace_ctx_filter_update_locked(tr);
	WARN_ON_ONCE(f->switch_probes || f->wakeup_probes);
	/* No probe or IPI can still see f once this returns. */
	tracepoint_synchronize_unregister();
	tr->ctx_filter = NULL;
	free_percpu(f->cpu);
	kfree(f);
}
