// SPDX-License-Identifier: GPL-2.0
/*
 * The state behind user markers: each thread's open spans and each thread
 * group's rate limit, per instance, and what happens to them at exit.
 *
 * Lookups are RCU hash walks; inserts and removals take the instance's
 * raw lock, which the exit and exec probes take with preemption disabled,
 * so it may not sleep, on PREEMPT_RT either. Rate limits take no lock:
 * their buckets and each group's count of drops not yet reported are
 * atomics.
 *
 * The spans a thread still has open when it exits or executes another
 * program are ended by the kernel (the "exited" flag) under the same rate
 * limits as the records a thread writes: what the instance records stays
 * within its limits' budget, and what they drop is reported by a lost
 * event.
 */
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/version.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "trace_user_markers.h"

/* Thread and group states alive: the exit probe's fast way out. */
static atomic_t trace_um_nr_states = ATOMIC_INIT(0);

static bool um_probes_register(void);

/**
 * trace_um_thread_find - a thread's span state in an instance
 * @um: the instance's markers
 * @task: the thread
 *
 * Return: the state, or NULL. Only the thread itself or instance removal
 * frees it, so it stays valid for the thread's write or exit.
 */
struct um_thread *trace_um_thread_find(struct trace_user_markers *um,
				       struct task_struct *task)
{
	struct hlist_head *head = &um->threads[hash_ptr(task, UM_HASH_BITS)];
	struct um_thread *th, *found = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(th, head, node) {
		if (th->task == task) {
			found = th;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * trace_um_thread_get - current's span state in an instance, made if new
 * @um: the instance's markers
 *
 * Return: the state, or NULL without memory.
 */
struct um_thread *trace_um_thread_get(struct trace_user_markers *um)
{
	struct um_thread *th = trace_um_thread_find(um, current);
	unsigned long flags;

	if (th)
		return th;
	/* Before the first state exists, and before its write returns */
	if (!um_probes_register())
		return NULL;
	th = kzalloc_obj(*th, GFP_KERNEL_ACCOUNT);
	if (!th)
		return NULL;
	th->task = current;
	atomic_inc(&trace_um_nr_states);
	atomic_inc(&um->nr_threads);
	raw_spin_lock_irqsave(&um->lock, flags);
	hlist_add_head_rcu(&th->node,
			   &um->threads[hash_ptr(current, UM_HASH_BITS)]);
	raw_spin_unlock_irqrestore(&um->lock, flags);
	return th;
}

static struct um_group *um_group_find(struct trace_user_markers *um,
				      struct signal_struct *sig)
{
	struct hlist_head *head = &um->groups[hash_ptr(sig, UM_HASH_BITS)];
	struct um_group *g, *found = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(g, head, node) {
		if (g->sig == sig) {
			found = g;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * trace_um_bucket_init - a full bucket
 * @b: the bucket
 * @limit: rate << 32 | burst
 */
void trace_um_bucket_init(struct um_bucket *b, u64 limit)
{
	atomic64_set(&b->tokens, (limit & U32_MAX) * NSEC_PER_SEC);
	atomic64_set(&b->last, get_jiffies_64());
}

/**
 * trace_um_group_get - current's thread group rate limit in an instance
 * @um: the instance's markers
 * @th: current's span state in @um, or NULL if it has none
 * @lim: the instance's limits
 *
 * A new group starts with a full bucket. The group is kept in @th, so
 * that a thread with spans finds it there without a hash walk: a group
 * outlives the span states of its threads (it is freed at the exit of the
 * last of them, after its own state, or with the instance, as they are).
 *
 * Return: the state, or NULL without memory.
 */
struct um_group *trace_um_group_get(struct trace_user_markers *um,
				    struct um_thread *th,
				    const struct um_limits *lim)
{
	struct signal_struct *sig = current->signal;
	struct um_group *g, *other;
	unsigned long flags;

	g = um_group_find(um, sig);
	if (g)
		goto found;
	if (!um_probes_register())
		return NULL;
	g = kzalloc_obj(*g, GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	g->sig = sig;
	trace_um_bucket_init(&g->bucket, lim->group);

	/* Two threads of the group may race to create it: one wins. */
	raw_spin_lock_irqsave(&um->lock, flags);
	other = um_group_find(um, sig);
	if (!other) {
		hlist_add_head_rcu(&g->node,
				   &um->groups[hash_ptr(sig, UM_HASH_BITS)]);
		atomic_inc(&trace_um_nr_states);
		atomic_inc(&um->nr_groups);
	}
	raw_spin_unlock_irqrestore(&um->lock, flags);
	if (other) {
		kfree(g);
		g = other;
	}
found:
	if (th)
		th->group = g;
	return g;
}

/**
 * trace_um_bucket_take_slow - um_bucket_take() when its fast path cannot
 * @b: the bucket
 * @limit: rate << 32 | burst
 * @want: tokens wanted
 *
 * Refills the bucket by the jiffies elapsed, caps it at the burst, and
 * takes what it can of @want, all by compare-and-exchange
 * (um_bucket_refill_take()): a writer never waits, and one refused
 * writes nothing that the others share.
 *
 * Return: the tokens given, at most @want.
 */
u32 trace_um_bucket_take_slow(struct um_bucket *b, u64 limit, u32 want)
{
	return um_bucket_refill_take(b, limit, want);
}

/*
 * um_pending_take - take a group's drops not yet reported, to report
 * them: none when the group is gone (its exit reported them). A fully
 * ordered exchange: the drops' counts in rate_limited, made before they
 * were added to @g->pending (with release), are visible to whoever then
 * counts their report.
 */
static u64 um_pending_take(struct um_group *g)
{
	s64 old = atomic64_read(&g->pending);

	do {
		if (!old || (old & UM_PENDING_DEAD))
			return 0;
	} while (!atomic64_try_cmpxchg(&g->pending, &old, 0));
	return old;
}

/*
 * um_report_lost - report drops with a lost event; drops that no lost
 * event took go back to the group's pending ones for the next report
 * (@g NULL, or the group gone: they stay counted in lost_pending).
 */
static void um_report_lost(struct trace_user_markers *um, struct um_group *g,
			   u64 lost)
{
	if (trace_um_emit_lost(um, lost) || !g)
		return;
	atomic64_add(lost, &g->pending);
}

/*
 * um_count_drop - a record the rate limits refused: counted as
 * rate_limited, then as pending with release, so that user_events_stats,
 * which reads the reports before the drops, never sees a report before
 * its drop. A drop of a group that is gone is reported at once: nobody
 * would report it later.
 */
static void um_count_drop(struct trace_user_markers *um, struct um_group *g,
			  u32 n)
{
	this_cpu_add(um->stats->rate_limited, n);
	if (!g ||
	    atomic64_fetch_add_release(n, &g->pending) & UM_PENDING_DEAD)
		um_report_lost(um, NULL, n);
}

/**
 * trace_um_take_end - a take that dropped a record or has drops to report
 * @um: the instance's markers
 * @g: the writer's group
 * @granted: the tokens the take got
 *
 * With no token, the record that asked is dropped: it is counted as
 * rate_limited and as pending (um_count_drop()). With tokens, the group's
 * drops not yet reported are reported by a lost event, before the record
 * that asked. No lock: a flood of refused records from every CPU makes
 * no writer wait.
 *
 * Return: @granted.
 */
u32 trace_um_take_end(struct trace_user_markers *um, struct um_group *g,
		      u32 granted)
{
	u64 lost;

	if (!granted) {
		um_count_drop(um, g, 1);
		return 0;
	}
	lost = um_pending_take(g);
	if (lost)
		um_report_lost(um, g, lost);
	return granted;
}

/**
 * trace_um_untake - give back the tokens a batch took and did not use
 * @um: the instance's markers
 * @g: the writer's group
 * @lim: the limits the batch took them under
 * @unused: tokens to give back
 */
void trace_um_untake(struct trace_user_markers *um, struct um_group *g,
		     const struct um_limits *lim, u32 unused)
{
	if (lim->group)
		trace_um_bucket_untake(&g->bucket, lim->group, unused);
	if (lim->total)
		trace_um_bucket_untake(&um->total, lim->total, unused);
}

/**
 * trace_um_push - B: open a span on the current thread
 * @th: its state
 * @tr: the instance, whose clock times the span
 * @r: the record
 *
 * A span that does not fit (depth, name room) is counted, not tracked.
 *
 * Return: the depth of the new span.
 */
u32 trace_um_push(struct um_thread *th, struct trace_array *tr,
		  const struct um_rec *r)
{
	struct um_span *sp;

	if (th->deep || th->depth == UM_DEPTH_MAX ||
	    th->arena_used + r->name_len > UM_ARENA) {
		if (th->deep < UM_DEEP_MAX)
			th->deep++;
		return th->depth + th->deep - 1;
	}
	sp = &th->span[th->depth];
	sp->name_off = th->arena_used;
	sp->name_len = r->name_len;
	memcpy(th->arena + th->arena_used, r->name, r->name_len);
	th->arena_used += r->name_len;
	/* The runtime is read inside the wall interval */
	sp->ts = ring_buffer_time_stamp(tr->array_buffer.buffer);
	sp->cpu = task_sched_runtime(current);
	return th->depth++;
}

/**
 * trace_um_pop - E: close the current thread's innermost span
 * @th: its state, or NULL if it has none
 * @tr: the instance
 * @r: the record (its name is kept for an unmatched end)
 * @o: the end event to fill
 */
void trace_um_pop(struct um_thread *th, struct trace_array *tr,
		  const struct um_rec *r, struct um_out *o)
{
	struct um_span *sp;
	u64 now;

	if (th && th->deep) {
		th->deep--;
		o->depth = th->depth + th->deep;
		o->flags = UM_END_UNTRACKED;
		/* The name was not tracked: an E's own name is not it */
		o->name = "";
		o->name_len = 0;
		return;
	}
	if (!th || !th->depth) {
		o->flags = UM_END_UNMATCHED;
		o->name = r->name;
		o->name_len = r->name_len;
		return;
	}
	sp = &th->span[--th->depth];
	o->cpu_ns = task_sched_runtime(current) - sp->cpu;
	now = ring_buffer_time_stamp(tr->array_buffer.buffer);
	o->depth = th->depth;
	o->flags = 0;
	o->name = th->arena + sp->name_off;
	o->name_len = sp->name_len;
	o->val = now > sp->ts ? now - sp->ts : 0;
	/*
	 * Runtime (sched_clock) and the trace clock (per-CPU "local" by
	 * default) may disagree by a little when the thread changed CPUs:
	 * blocked time (duration_ns - cpu_ns) is never negative.
	 */
	if (trace_clock_in_ns(tr) && o->cpu_ns > o->val)
		o->cpu_ns = o->val;
	/*
	 * The name stays readable until the next push overwrites it, which
	 * is after this record is written.
	 */
	th->arena_used = sp->name_off;
}

/*
 * um_end_take - tokens for @want spans ended by the kernel, at once, from
 * @g or, for a thread whose group has no state (or no longer has it),
 * from the total alone with at most a new group's burst. Each of the
 * @want that gets none is counted and reported as a write's refused
 * record is (without a group: at once).
 */
static u32 um_end_take(struct trace_user_markers *um, struct um_group *g,
		       const struct um_limits *lim, u32 want)
{
	u32 n = want, counted = 0;

	if (g) {
		n = trace_um_take(um, g, lim, want);
		/* With no token it counted the first drop itself */
		counted = !n;
	} else {
		if (lim->group)
			n = min_t(u32, n, lim->group & U32_MAX);
		if (n && lim->total)
			n = um_bucket_take(&um->total, lim->total, n);
	}
	if (want - n > counted)
		um_count_drop(um, g, want - n - counted);
	return n;
}

/*
 * um_thread_end - the thread that @th belongs to exits or executes a new
 * program: end its open spans (the "exited" flag) and free its state.
 * Bounded: one event for all untracked spans, one per tracked span. The
 * ends take rate tokens as the records a thread writes do, and count as
 * rate_limited, reported by a lost event, when they get none.
 *
 * Context: the exit or exec tracepoint of @task, preemption disabled: the
 * group found stays valid to the end (its state is freed after an RCU
 * grace period).
 */
static void um_thread_end(struct trace_user_markers *um, struct um_thread *th,
			  struct task_struct *task)
{
	struct trace_event_file *file = um->file[UM_END];
	struct um_limits lim = {
		.group = READ_ONCE(um->limits.group),
		.total = READ_ONCE(um->limits.total),
	};
	struct um_out o = { .name = "" };
	struct um_group *g = NULL;
	unsigned long flags;
	u32 left, tokens;
	bool on;

	on = (READ_ONCE(file->flags) & EVENT_FILE_FL_ENABLED) &&
	     !trace_marker_ignored(um->tr) &&
	     !trace_trigger_soft_disabled(file);
	left = on ? th->depth + !!th->deep : 0;
	tokens = left;
	if (left && (lim.group || lim.total)) {
		/* Not th->group: a sibling's exit may have freed it */
		g = um_group_find(um, task->signal);
		/* The innermost get the tokens, as a write's first records */
		tokens = um_end_take(um, g, &lim, left);
	}

	for (; left; left--) {
		if (th->deep) {
			o.depth = th->depth;
			o.flags = UM_END_EXITED | UM_END_UNTRACKED;
			th->deep = 0;
		} else {
			struct um_rec r = { .event = UM_END };

			trace_um_pop(th, um->tr, &r, &o);
			o.flags = UM_END_EXITED;
		}
		/* Without a token: counted as rate_limited by um_end_take() */
		if (tokens) {
			tokens--;
			trace_um_emit(um, UM_END, &o);
		}
	}

	raw_spin_lock_irqsave(&um->lock, flags);
	hlist_del_rcu(&th->node);
	raw_spin_unlock_irqrestore(&um->lock, flags);
	kfree_rcu(th, rcu);
	atomic_dec(&um->nr_threads);
	atomic_dec(&trace_um_nr_states);
}

static void um_thread_exit(struct trace_user_markers *um,
			   struct task_struct *task)
{
	struct um_thread *th = trace_um_thread_find(um, task);

	if (th)
		um_thread_end(um, th, task);
}

static void um_group_exit(struct trace_user_markers *um,
			  struct signal_struct *sig)
{
	struct um_group *g = um_group_find(um, sig);
	unsigned long flags;
	bool mine = false;
	s64 lost;

	if (!g)
		return;
	/* Threads exiting together may all see the group dead: one frees. */
	raw_spin_lock_irqsave(&um->lock, flags);
	if (!hlist_unhashed(&g->node)) {
		hlist_del_init_rcu(&g->node);
		mine = true;
	}
	raw_spin_unlock_irqrestore(&um->lock, flags);
	if (!mine)
		return;

	/*
	 * Report what is pending, and mark the group gone: a drop counted
	 * after this (an exiting sibling's ends) is reported by its own
	 * thread. If the report fails, the drops stay counted in
	 * rate_limited and are never reported: lost_pending keeps them.
	 */
	lost = atomic64_xchg(&g->pending, UM_PENDING_DEAD);
	if (lost)
		trace_um_emit_lost(um, lost);
	kfree_rcu(g, rcu);
	atomic_dec(&um->nr_groups);
	atomic_dec(&trace_um_nr_states);
}

/* A thread exits: end its spans and free its state in every instance. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
static void um_exit_probe(void *data, struct task_struct *task, bool group_dead)
{
#else
static void um_exit_probe(void *data, struct task_struct *task)
{
	/* do_exit() counted the thread out of live before the tracepoint */
	bool group_dead = !atomic_read(&task->signal->live);
#endif
	struct trace_user_markers *um;
	int idx;

	if (!atomic_read(&trace_um_nr_states))
		return;
	idx = srcu_read_lock(&trace_um_srcu);
	list_for_each_entry_srcu(um, &trace_um_instances, list,
				 srcu_read_lock_held(&trace_um_srcu)) {
		um_thread_exit(um, task);
		if (group_dead)
			um_group_exit(um, task->signal);
	}
	srcu_read_unlock(&trace_um_srcu, idx);
}

/*
 * A thread executes a new program: its spans belong to the old one, which
 * is gone (user_marker.h starts again from nothing in the new one). End
 * them as exit does, and free the thread's state in every instance; its
 * group's rate limit state stays, the thread group does.
 */
static void um_exec_probe(void *data, struct task_struct *task, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	struct trace_user_markers *um;
	struct um_thread *th;
	int idx;

	if (!atomic_read(&trace_um_nr_states))
		return;
	idx = srcu_read_lock(&trace_um_srcu);
	list_for_each_entry_srcu(um, &trace_um_instances, list,
				 srcu_read_lock_held(&trace_um_srcu)) {
		th = trace_um_thread_find(um, task);
		if (th)
			um_thread_end(um, th, task);
	}
	srcu_read_unlock(&trace_um_srcu, idx);
}

/*
 * The exit and exec probes are registered when the first thread or group
 * state is made, so that exit and exec cost nothing (the tracepoints'
 * static keys stay off) on a kernel where no thread ever wrote a marker
 * that needs state; they then stay. A thread registers them before its
 * own first state exists: it cannot exit or execute with state and the
 * probes missing. Without memory for a probe no state is made, and the
 * next maker tries again.
 */
static DEFINE_MUTEX(um_probes_lock);
static bool um_probes_on;

static bool um_probes_register(void)
{
	static bool exit_on, exec_on;

	/* Pairs with the release below: probes seen on are registered */
	if (likely(smp_load_acquire(&um_probes_on)))
		return true;
	mutex_lock(&um_probes_lock);
	if (!exit_on)
		exit_on = !register_trace_sched_process_exit(um_exit_probe, NULL);
	if (!exec_on)
		exec_on = !register_trace_sched_process_exec(um_exec_probe, NULL);
	if (exit_on && exec_on) {
		/* After the registrations: who sees the flag skips the mutex */
		smp_store_release(&um_probes_on, true);
	}
	mutex_unlock(&um_probes_lock);
	return exit_on && exec_on;
}

/**
 * trace_um_state_free - free every state of a removed instance
 * @um: its markers, which no writer or exiting thread can reach any more
 */
void trace_um_state_free(struct trace_user_markers *um)
{
	struct hlist_node *tmp;
	struct um_thread *th;
	struct um_group *g;
	int i;

	for (i = 0; i < ARRAY_SIZE(um->threads); i++) {
		hlist_for_each_entry_safe(th, tmp, &um->threads[i], node) {
			hlist_del(&th->node);
			kfree_rcu(th, rcu);
			atomic_dec(&trace_um_nr_states);
		}
		hlist_for_each_entry_safe(g, tmp, &um->groups[i], node) {
			hlist_del(&g->node);
			kfree_rcu(g, rcu);
			atomic_dec(&trace_um_nr_states);
		}
	}
}
