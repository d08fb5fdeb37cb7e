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
 */
#include <linux/cgroup.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <trace/events/sched.h>
#ifdef CONFIG_TRACE_CGROUP_FILTER
#include <linux/trace_task_filter.h>
#endif

#include "trace.h"
#include "trace_task_filter.h"

/* Tasks whose verdicts each CPU remembers, a power of two */
#define TF_CACHE		8

DEFINE_STATIC_KEY_FALSE(trace_task_filter_key);

/* The event gate's word: read by trace_trigger_soft_disabled(). */
DEFINE_PER_CPU(unsigned long, trace_task_event_rej);
EXPORT_PER_CPU_SYMBOL_GPL(trace_task_event_rej);

DEFINE_PER_CPU(struct trace_task_cpu, trace_task_cpu);

/*
 * What a CPU decided for a task lately: valid while the task has the same
 * pid number and cgroup, and no list or slot changed (the generation).
 * The verdict on a pid number does not depend on which task has it.
 */
struct ctx_entry {
	u64			gen;
	u64			cg_id;	/* 0 while no instance has cgroup rules */
	pid_t			pid;
	struct trace_task_masks	m;
};

/* Direct-mapped by pid; written only with interrupts off. */
static DEFINE_PER_CPU(struct ctx_entry[TF_CACHE], ctx_cache);

/*
 * Slots, and which of them have pid or cgroup rules. Written under
 * event_mutex, read by probes and IPIs in RCU-sched read sections.
 */
static struct trace_task_filter __rcu *ctx_slot[TF_SLOTS];
static unsigned long ctx_slots_used;	/* event_mutex; includes reserved */
static unsigned long ctx_pid_slots;
static unsigned long task_cg_slots;
static unsigned long task_ev_slots;	/* event_mutex */
static u8 ctx_probes;			/* TF_PROBE_*, event_mutex */

/*
 * The instances that filter without a slot (RCU list, written under
 * event_mutex), and the union of their rules: TF_SHARED goes into
 * every mask while it is not 0.
 */
static LIST_HEAD(ctx_shared);
static u8 ctx_shared_rules;

/*
 * Bumped (release) after every published change of a list or a slot, and
 * when event-fork or function-fork changes a pid list, so that a verdict
 * decided before the change is never used.
 */
static atomic64_t trace_task_gen = ATOMIC64_INIT(1);

/* The cgroup a verdict is cached for: a migration re-decides the task */
static __always_inline u64 task_cgroup_id(struct task_struct *task)
{
#ifdef CONFIG_TRACE_CGROUP_FILTER
	return cgroup_id(task_dfl_cgroup(task));
#else
	return 0;
#endif
}

/* ctx_pid_rej - the pid rules of @f that reject @task */
static u8 ctx_pid_rej(struct trace_task_filter *f, struct task_struct *task)
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

/* task_rej - every rule of @f that rejects @task */
static u8 task_rej(struct trace_task_filter *f, struct task_struct *task)
{
	return ctx_pid_rej(f, task) | trace_cgroup_rej(f, task);
}

/* ctx_add_rej - mark the rules @rej of the instance in @bit in @m */
static void ctx_add_rej(struct trace_task_masks *m, unsigned long bit, u8 rej)
{
	int r;

	for (r = 0; r < TF_EV_RULES; r++) {
		if (rej & BIT(r))
			m->ev_rule[r] |= bit;
	}
	if (rej & TF_REJ_FN)
		m->fn |= bit;
}

/* ctx_decide_uncached - every instance's verdict on @task */
static void ctx_decide_uncached(struct task_struct *task,
				struct trace_task_masks *m)
{
	struct trace_task_filter *f;
	unsigned long slots;
	unsigned int slot;
	int r;

	memset(m, 0, sizeof(*m));
	slots = READ_ONCE(task_cg_slots);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_sched(ctx_slot[slot]);
		if (f)
			ctx_add_rej(m, BIT(slot), trace_cgroup_rej(f, task));
	}
	slots = READ_ONCE(ctx_pid_slots);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_sched(ctx_slot[slot]);
		if (f)
			ctx_add_rej(m, BIT(slot), ctx_pid_rej(f, task));
	}
	/* The instances without a slot decide in their own state. */
	if (READ_ONCE(ctx_shared_rules)) {
		for (r = 0; r < TF_EV_RULES; r++)
			m->ev_rule[r] |= TF_SHARED;
		m->fn |= TF_SHARED;
	}
	m->evcg = m->ev_rule[TF_EV_CG] | m->ev_rule[TF_EV_NOCG];
	m->ev = m->evcg | m->ev_rule[TF_EV_PID] | m->ev_rule[TF_EV_NOPID];
}

/* ctx_decide_fill - decide @task into its cache entry @e */
static noinline void ctx_decide_fill(struct task_struct *task,
				     struct ctx_entry *e, u64 gen, u64 id)
{
	ctx_decide_uncached(task, &e->m);
	e->pid = task->pid;
	e->cg_id = id;
	e->gen = gen;
}

/*
 * ctx_decide - every instance's verdict on @task, from this CPU's cache
 *
 * Called with interrupts off (switch probes, wakeups of another task,
 * IPIs), so that nothing on this CPU can fill the same entry between the
 * stores that fill it. The entry stays valid until the next decision on
 * this CPU.
 */
static __always_inline const struct trace_task_masks *
ctx_decide(struct task_struct *task)
{
	u64 gen = atomic64_read_acquire(&trace_task_gen);
	u64 id = READ_ONCE(task_cg_slots) ? task_cgroup_id(task) : 0;
	struct ctx_entry *e;

	lockdep_assert_irqs_disabled();
	e = this_cpu_ptr(&ctx_cache[task->pid & (TF_CACHE - 1)]);
	if (unlikely(e->pid != task->pid || e->cg_id != id || e->gen != gen))
		ctx_decide_fill(task, e, gen, id);
	return &e->m;
}

/*
 * ctx_switch_rej - the event gate's word for a sched_switch from the task
 * of @prev to the task of @next: an instance drops the event only when
 * one of its rules rejects both tasks.
 */
static __always_inline unsigned long
ctx_switch_rej(const struct trace_task_masks *prev,
	       const struct trace_task_masks *next)
{
	return (prev->ev_rule[TF_EV_PID] & next->ev_rule[TF_EV_PID]) |
	       (prev->ev_rule[TF_EV_NOPID] & next->ev_rule[TF_EV_NOPID]) |
	       (prev->ev_rule[TF_EV_CG] & next->ev_rule[TF_EV_CG]) |
	       (prev->ev_rule[TF_EV_NOCG] & next->ev_rule[TF_EV_NOCG]);
}

/*
 * The per-CPU verdicts of the instances without a slot, kept by the same
 * probes as the masks. Interrupts are off in all of them, as in
 * ctx_decide().
 */
#define for_each_shared(f) \
	list_for_each_entry_rcu(f, &ctx_shared, shared_node)

/* ctx_shared_decide - @task runs (or is switched in) on this CPU */
static noinline void ctx_shared_decide(struct task_struct *task)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;

	for_each_shared(f) {
		s = this_cpu_ptr(f->shared);
		s->cur = task_rej(f, task);
		s->ev_rej = !!(s->cur & TF_REJ_EV);
	}
}

static noinline void ctx_shared_switch_pre(struct task_struct *next)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;

	for_each_shared(f) {
		s = this_cpu_ptr(f->shared);
		s->next = task_rej(f, next);
		s->ev_rej = !!(s->cur & s->next & TF_REJ_EV);
	}
}

static noinline void ctx_shared_switch_post(void)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;

	for_each_shared(f) {
		s = this_cpu_ptr(f->shared);
		s->cur = s->next;
		s->ev_rej = !!(s->cur & TF_REJ_EV);
	}
}

/* A wakeup of @task: kept when current or @task passes every rule */
static noinline void ctx_shared_wakeup_pre(struct task_struct *task)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;

	for_each_shared(f) {
		s = this_cpu_ptr(f->shared);
		if (s->cur & TF_REJ_EV)
			s->ev_rej = !!(task_rej(f, task) & TF_REJ_EV);
	}
}

static noinline void ctx_shared_wakeup_post(void)
{
	struct trace_task_shared_cpu *s;
	struct trace_task_filter *f;

	for_each_shared(f) {
		s = this_cpu_ptr(f->shared);
		s->ev_rej = !!(s->cur & TF_REJ_EV);
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

static void
ctx_sched_switch_pre(void *data, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	c->next = *ctx_decide(next);
	c->next_task = next;
	if (unlikely(c->next.ev & TF_SHARED))
		ctx_shared_switch_pre(next);
	this_cpu_write(trace_task_event_rej, ctx_switch_rej(&c->cur, &c->next));
}

/*
 * While the probes are being registered or removed, a switch may run the
 * post probe without the pre one: then it decides by itself.
 */
static void
ctx_sched_switch_post(void *data, bool preempt, struct task_struct *prev,
		      struct task_struct *next, unsigned int prev_state)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);
	bool decided = c->next_task == next;

	c->cur = decided ? c->next : *ctx_decide(next);
	c->cur_task = next;
	c->next_task = NULL;
	if (unlikely(c->cur.ev & TF_SHARED)) {
		if (decided)
			ctx_shared_switch_post();
		else
			ctx_shared_decide(next);
	}
	this_cpu_write(trace_task_event_rej, c->cur.ev);
}

static void
ctx_sched_switch_decide(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	c->cur = *ctx_decide(next);
	c->cur_task = next;
	if (unlikely(c->cur.ev & TF_SHARED))
		ctx_shared_decide(next);
	this_cpu_write(trace_task_event_rej, c->cur.ev);
}

/*
 * The wakeup probes, while a filtering instance records a wakeup event:
 * a wakeup of a traced task is kept whoever wakes it.
 */
static noinline void ctx_wakeup_decide(struct task_struct *task,
				       unsigned long cur)
{
	if (unlikely(cur & TF_SHARED))
		ctx_shared_wakeup_pre(task);
	this_cpu_write(trace_task_event_rej, cur & ctx_decide(task)->ev);
}

static void ctx_sched_wakeup_pre(void *data, struct task_struct *task)
{
	unsigned long cur = this_cpu_read(trace_task_cpu.cur.ev);

	/*
	 * Nothing to do while current is traced everywhere; and current
	 * waking itself (the only case with interrupts on) has its verdict.
	 */
	if (cur && task != current)
		ctx_wakeup_decide(task, cur);
}

static void ctx_sched_wakeup_post(void *data, struct task_struct *task)
{
	unsigned long cur = this_cpu_read(trace_task_cpu.cur.ev);

	/* As the pre probe: with interrupts on, an IPI may change cur. */
	if (cur && task != current) {
		if (unlikely(cur & TF_SHARED))
			ctx_shared_wakeup_post();
		this_cpu_write(trace_task_event_rej, cur);
	}
}

/* Probe sets, registered as the filtering instances need them */
#define TF_PROBE_DECIDE	BIT(0)	/* ctx_sched_switch_decide alone */
#define TF_PROBE_PREPOST	BIT(1)	/* ctx_sched_switch_pre and _post */
#define TF_PROBE_WAKEUP	BIT(2)	/* the wakeup pre and post probes */

/*
 * ctx_set_probes - register and unregister probe sets. A post probe goes
 * in before its pre probe and out after it, so that no tracepoint call
 * runs a pre probe without its post: no CPU is left with the verdict of a
 * half-done switch or wakeup, and no grace period is needed. A call may
 * run a post probe without its pre: the wakeup one restores the current
 * verdict, the switch one decides by itself.
 */
static void ctx_set_probes(u8 want)
{
	u8 add = want & ~ctx_probes, del = ctx_probes & ~want;

	if (add & TF_PROBE_DECIDE)
		WARN_ON_ONCE(register_trace_prio_sched_switch(ctx_sched_switch_decide,
							      NULL, 0));
	if (add & TF_PROBE_PREPOST) {
		WARN_ON_ONCE(register_trace_prio_sched_switch(ctx_sched_switch_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_switch(ctx_sched_switch_pre,
							      NULL, INT_MAX));
	}
	if (add & TF_PROBE_WAKEUP) {
		WARN_ON_ONCE(register_trace_prio_sched_waking(ctx_sched_wakeup_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_waking(ctx_sched_wakeup_pre,
							      NULL, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(ctx_sched_wakeup_post,
							      NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup(ctx_sched_wakeup_pre,
							      NULL, INT_MAX));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(ctx_sched_wakeup_post,
								  NULL, 0));
		WARN_ON_ONCE(register_trace_prio_sched_wakeup_new(ctx_sched_wakeup_pre,
								  NULL, INT_MAX));
	}
	if (del & TF_PROBE_WAKEUP) {
		unregister_trace_sched_waking(ctx_sched_wakeup_pre, NULL);
		unregister_trace_sched_waking(ctx_sched_wakeup_post, NULL);
		unregister_trace_sched_wakeup(ctx_sched_wakeup_pre, NULL);
		unregister_trace_sched_wakeup(ctx_sched_wakeup_post, NULL);
		unregister_trace_sched_wakeup_new(ctx_sched_wakeup_pre, NULL);
		unregister_trace_sched_wakeup_new(ctx_sched_wakeup_post, NULL);
	}
	if (del & TF_PROBE_PREPOST) {
		unregister_trace_sched_switch(ctx_sched_switch_pre, NULL);
		unregister_trace_sched_switch(ctx_sched_switch_post, NULL);
	}
	if (del & TF_PROBE_DECIDE)
		unregister_trace_sched_switch(ctx_sched_switch_decide, NULL);
	ctx_probes = want;
}

/* ctx_sched_event - which probes keep the events of @call whole */
static u8 ctx_sched_event(struct trace_event_call *call)
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

/* ctx_sched_events - the probes @tr's enabled sched events want */
static u8 ctx_sched_events(struct trace_array *tr)
{
	struct trace_event_file *file;
	u8 want = 0;

	list_for_each_entry(file, &tr->events, list) {
		if (file->flags & EVENT_FILE_FL_ENABLED)
			want |= ctx_sched_event(file->event_call);
	}
	return want;
}

/* ctx_update_probes - the probes every filtering instance needs */
static void ctx_update_probes(void)
{
	unsigned long slots = task_ev_slots;
	struct trace_task_filter *f;
	unsigned int slot;
	u8 want = 0;

	lockdep_assert_held(&event_mutex);
	for_each_set_bit(slot, &slots, TF_SLOTS) {
		f = rcu_dereference_protected(ctx_slot[slot],
					      lockdep_is_held(&event_mutex));
		if (f)
			want |= f->sched_probes;
	}
	list_for_each_entry(f, &ctx_shared, shared_node)
		want |= f->sched_probes;
	if (ctx_pid_slots || task_cg_slots || ctx_shared_rules)
		want |= want & TF_PROBE_PREPOST ? 0 : TF_PROBE_DECIDE;
	else
		want = 0;
	ctx_set_probes(want);
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
	if (!f || f->slot < 0 || !ctx_sched_event(file->event_call))
		return;
	f->sched_probes = f->rules & TF_REJ_EV ? ctx_sched_events(file->tr) : 0;
	ctx_update_probes();
}

/* ctx_decide_current - re-decide this CPU's running task (IPI context) */
static void ctx_decide_current(void *unused)
{
	struct trace_task_cpu *c = this_cpu_ptr(&trace_task_cpu);

	c->cur = *ctx_decide(current);
	c->cur_task = current;
	if (unlikely(c->cur.ev & TF_SHARED))
		ctx_shared_decide(current);
	this_cpu_write(trace_task_event_rej, c->cur.ev);
}

/* ctx_rules - the rules @tr has configured */
static u8 ctx_rules(struct trace_array *tr)
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

/* ctx_set_files - mark @tr's event files for the gate (or unmark them) */
static void ctx_set_files(struct trace_array *tr)
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
	WRITE_ONCE(file->ctx_bit, bit);
	if (bit)
		set_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);
	else
		clear_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);
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
	slot = find_first_zero_bit(&ctx_slots_used, TF_SLOTS);
	if (slot < TF_SLOTS) {
		__set_bit(slot, &ctx_slots_used);
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

/* ctx_shared_set - put @f on the shared list or take it off */
static void ctx_shared_set(struct trace_task_filter *f, u8 rules)
{
	struct trace_task_filter *g;
	u8 all = 0;

	/* A removed node is re-added only after the caller's grace period */
	if (rules && !f->shared_listed)
		list_add_tail_rcu(&f->shared_node, &ctx_shared);
	else if (!rules && f->shared_listed)
		list_del_rcu(&f->shared_node);
	f->shared_listed = rules;
	list_for_each_entry(g, &ctx_shared, shared_node)
		all |= g->rules;
	WRITE_ONCE(ctx_shared_rules, all);
}

/* ctx_publish_slot - publish @f's rules in the slot masks */
static void ctx_publish_slot(struct trace_task_filter *f, u8 rules)
{
	unsigned long bit = BIT(f->slot);

	if (rules)
		rcu_assign_pointer(ctx_slot[f->slot], f);
	else
		RCU_INIT_POINTER(ctx_slot[f->slot], NULL);
	WRITE_ONCE(ctx_pid_slots, rules & TF_REJ_PID ?
		   ctx_pid_slots | bit : ctx_pid_slots & ~bit);
	WRITE_ONCE(task_cg_slots, rules & TF_REJ_CGROUP ?
		   task_cg_slots | bit : task_cg_slots & ~bit);
	task_ev_slots = rules & TF_REJ_EV ? task_ev_slots | bit :
					    task_ev_slots & ~bit;
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

	rules = ctx_rules(tr);
	/* A caller that skipped prepare, and found no memory: cannot filter */
	if (rules && f->slot < 0 && WARN_ON_ONCE(trace_task_filter_prepare(tr)))
		rules = 0;
	if (f->slot < 0)
		return;
	shared = f->slot == TF_SHARED_SLOT;
	bit = shared ? TF_SHARED : BIT(f->slot);

	WRITE_ONCE(f->rules, rules);
	WRITE_ONCE(f->ev_bit, rules & TF_REJ_EV ? bit : 0);
	WRITE_ONCE(f->evcg_bit, rules & TF_REJ_EV_CGROUP ? bit : 0);
	WRITE_ONCE(f->fn_bit, rules & TF_REJ_FN ? bit : 0);
	ctx_set_files(tr);

	if (shared)
		ctx_shared_set(f, rules);
	else
		ctx_publish_slot(f, rules);
	/* Cached verdicts from before this change are stale now. */
	atomic64_inc_return_release(&trace_task_gen);

	want_switch = ctx_pid_slots || task_cg_slots || ctx_shared_rules;
	f->sched_probes = rules & TF_REJ_EV ? ctx_sched_events(tr) : 0;
	ctx_update_probes();
	if (want_switch)
		static_branch_enable(&trace_task_filter_key);

	/*
	 * A slot given back may be taken by another instance: no probe, gate
	 * or IPI may still be using masks decided with it.
	 */
	if (!rules)
		tracepoint_synchronize_unregister();
	/* Switches decide for the tasks to come; decide current now. */
	on_each_cpu(ctx_decide_current, NULL, 1);
	if (!rules) {
		if (!shared)
			__clear_bit(f->slot, &ctx_slots_used);
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
	if (!READ_ONCE(task_cg_slots) &&
	    !(READ_ONCE(ctx_shared_rules) & TF_REJ_CGROUP))
		return;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		/* Rare: re-decide everywhere rather than miss a CPU. */
		on_each_cpu(ctx_decide_current, NULL, 1);
		return;
	}
	cgroup_taskset_for_each(task, css, tset)
		cpumask_set_cpu(task_cpu(task), cpus);
	/* The mover moving itself: it runs here, decide before returning. */
	cpumask_set_cpu(raw_smp_processor_id(), cpus);
	on_each_cpu_mask(cpus, ctx_decide_current, NULL, true);
	free_cpumask_var(cpus);
}
#endif /* CONFIG_TRACE_CGROUP_FILTER */
/*
 * A CPU that comes online may hold masks decided before it went offline,
 * with slots that have been given back and taken by other instances since
 * (filter writes re-decide online CPUs only): decide its running task as
 * soon as it is up. Every switch on it decides from then on.
 */
static int ctx_cpu_online(unsigned int cpu)
{
	local_irq_disable();
	ctx_decide_current(NULL);
	local_irq_enable();
	return 0;
}

static int __init trace_task_filter_init(void)
{
	int ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					    "trace/task_filter:online",
					    ctx_cpu_online, NULL);

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

	f = kzalloc(sizeof(*f), GFP_KERNEL);
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
