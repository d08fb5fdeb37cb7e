// SPDX-License-Identifier: GPL-2.0
/*
 * User-space markers: atrace-style records ("B|pid|name", "E|pid", ...)
 * written to an instance's user_events file, or passed to prctl(), become
 * user_markers events in the instance's own ring buffer, under its clock,
 * its pid and cgroup filters and a per thread group rate limit.
 *
 * The events are ordinary trace events (format files, filters, triggers,
 * histograms) but have no tracepoint: a write reserves and commits them
 * directly, so that it can count exactly what the ring buffer took and
 * what it refused. See Documentation/trace/user-markers.rst.
 */
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/prctl.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/timekeeping.h>
#include <linux/trace.h>
#include <linux/trace_user_markers.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "trace_ctx_filter.h"
#include "trace_output.h"
#include "trace_user_markers.h"

#define UM_SYSTEM		"user_markers"
#define UM_WRITE_MAX		4096	/* bytes per write */
#define UM_RECS_MAX		64	/* records per write */
#define UM_NAME_MAX		127	/* bytes per name */
#define UM_DEPTH_MAX		32	/* spans tracked per thread */
#define UM_ARENA		1024	/* bytes of open span names */
#define UM_DEEP_MAX		65535	/* untracked spans counted */
#define UM_HASH_BITS		6
#define UM_RATE_MAX		10000000
#define UM_BURST_MAX		1000000
#define UM_RATE_DEFAULT		100000
#define UM_BURST_DEFAULT	10000
/* Small writes are parsed on the stack, bigger ones in a kmalloc'ed batch */
#define UM_SMALL_WRITE		255
#define UM_SMALL_RECS		8

enum um_event {
	UM_BEGIN,
	UM_END,
	UM_COUNTER,
	UM_ASYNC_BEGIN,
	UM_ASYNC_END,
	UM_INSTANT,
	UM_LOST,
	UM_NR_EVENTS,
};

/* user_markers/end flags */
#define UM_END_UNMATCHED	1	/* an E with no open span */
#define UM_END_EXITED		2	/* ended by the kernel at thread exit */
#define UM_END_UNTRACKED	4	/* beyond the tracked depth or names */

/* One parsed record; name points into the write's buffer. */
struct um_rec {
	const char	*name;
	s64		value;
	u8		event;
	u8		name_len;
};

/* What an event carries besides the common fields. */
struct um_out {
	const char	*name;
	u32		name_len;
	u32		depth;
	u32		flags;
	u64		val;	/* duration_ns, value, cookie or count */
	u64		cpu_ns;
};

struct um_span {
	u64		ts;		/* instance clock at B */
	u64		cpu;		/* thread runtime at B */
	u16		name_off;	/* in um_thread.arena */
	u8		name_len;
};

/*
 * Open spans of one thread in one instance. Only the thread itself
 * changes it (its writes, then its exit); instance removal frees it once
 * no writer can be inside.
 */
struct um_thread {
	struct hlist_node	node;
	struct rcu_head		rcu;
	struct task_struct	*task;
	u32			depth;		/* tracked spans in span[] */
	u32			deep;		/* untracked spans above them */
	u32			arena_used;
	struct um_span		span[UM_DEPTH_MAX];
	char			arena[UM_ARENA];
};

/* Rate limit state of one thread group in one instance. */
struct um_group {
	struct hlist_node	node;
	struct rcu_head		rcu;
	struct signal_struct	*sig;
	spinlock_t		lock;		/* tokens, last, pending */
	u64			tokens;		/* NSEC_PER_SEC per record */
	u64			last;		/* mono ns of the last refill */
	u64			pending;	/* dropped, not yet reported */
};

struct um_stats {
	u64	recorded;
	u64	buffer_dropped;
	u64	rate_limited;
	u64	lost_reported;
	u64	filtered;
	u64	rejected;
};

/* Per instance; tr->user_markers. */
struct trace_user_markers {
	struct trace_array		*tr;
	struct list_head		list;	/* on um_instances */
	struct trace_event_file		*file[UM_NR_EVENTS];
	u64				limit;	/* rate << 32 | burst, 0: none */
	bool				prctl;
	spinlock_t			lock;	/* table inserts and removals */
	struct hlist_head		threads[1 << UM_HASH_BITS];
	struct hlist_head		groups[1 << UM_HASH_BITS];
	atomic_t			nr_threads;	/* in threads[] */
	atomic_t			nr_groups;	/* in groups[] */
	struct um_stats __percpu	*stats;
};

/*
 * Every instance's markers, walked by top-level and prctl writes. SRCU,
 * because a writer allocates span state (and may sleep) while it walks.
 */
static LIST_HEAD(um_instances);
static DEFINE_MUTEX(um_instances_lock);
DEFINE_STATIC_SRCU(um_srcu);
/* Thread and group states alive: the exit probe's fast way out. */
static atomic_t um_nr_states = ATOMIC_INIT(0);

/* ------------------------------------------------------------------ */
/* The events                                                          */

struct um_ent_begin {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	u32			depth;
	char			data[];
};

struct um_ent_end {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	u32			depth;
	u32			flags;
	u64			duration_ns;
	u64			cpu_ns;
	char			data[];
};

/* counter (value), async_begin and async_end (cookie) */
struct um_ent_value {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	s64			value;
	char			data[];
};

struct um_ent_instant {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	char			data[];
};

struct um_ent_lost {
	struct trace_entry	ent;
	s32			tgid;
	u32			pad;
	u64			count;
};

/* One field of an event's format */
struct um_field {
	const char	*type;
	const char	*name;
	u16		offset;
	u8		size;
	u8		is_signed;
};

#define UM_NAME(st)	{ "__data_loc char[]", "name", offsetof(st, name), 4, 0 }
#define UM_TGID(st)	{ "int", "tgid", offsetof(st, tgid), 4, 1 }

static const struct um_field um_fields_begin_tab[] = {
	UM_NAME(struct um_ent_begin),
	UM_TGID(struct um_ent_begin),
	{ "unsigned int", "depth", offsetof(struct um_ent_begin, depth), 4, 0 },
};

static const struct um_field um_fields_end_tab[] = {
	UM_NAME(struct um_ent_end),
	UM_TGID(struct um_ent_end),
	{ "unsigned int", "depth", offsetof(struct um_ent_end, depth), 4, 0 },
	{ "unsigned int", "flags", offsetof(struct um_ent_end, flags), 4, 0 },
	{ "u64", "duration_ns", offsetof(struct um_ent_end, duration_ns), 8, 0 },
	{ "u64", "cpu_ns", offsetof(struct um_ent_end, cpu_ns), 8, 0 },
};

static const struct um_field um_fields_counter_tab[] = {
	UM_NAME(struct um_ent_value),
	UM_TGID(struct um_ent_value),
	{ "s64", "value", offsetof(struct um_ent_value, value), 8, 1 },
};

/* The same layout as a counter; the value is the async span's cookie */
static const struct um_field um_fields_async_tab[] = {
	UM_NAME(struct um_ent_value),
	UM_TGID(struct um_ent_value),
	{ "s64", "cookie", offsetof(struct um_ent_value, value), 8, 1 },
};

static const struct um_field um_fields_instant_tab[] = {
	UM_NAME(struct um_ent_instant),
	UM_TGID(struct um_ent_instant),
};

static const struct um_field um_fields_lost_tab[] = {
	UM_TGID(struct um_ent_lost),
	{ "u64", "count", offsetof(struct um_ent_lost, count), 8, 0 },
};

static int um_define(struct trace_event_call *call,
		     const struct um_field *f, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = trace_define_field(call, f[i].type, f[i].name,
					 f[i].offset, f[i].size,
					 f[i].is_signed, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return 0;
}

#define UM_DEFINE_FN(_name)						\
static int um_define_##_name(struct trace_event_call *call)		\
{									\
	return um_define(call, um_fields_##_name##_tab,			\
			 ARRAY_SIZE(um_fields_##_name##_tab));		\
}

UM_DEFINE_FN(begin)
UM_DEFINE_FN(end)
UM_DEFINE_FN(counter)
UM_DEFINE_FN(async)
UM_DEFINE_FN(instant)
UM_DEFINE_FN(lost)

static const char *um_str(const void *ent, u32 loc)
{
	return (const char *)ent + (loc & 0xffff);
}

/* "12.345ms" from nanoseconds */
static void um_print_ms(struct trace_seq *s, const char *label, u64 ns)
{
	u32 rem, frac;
	u64 us = div_u64_rem(ns, NSEC_PER_USEC, &rem);
	u64 ms = div_u64_rem(us, USEC_PER_MSEC, &frac);

	trace_seq_printf(s, " %s=%llu.%03ums", label, ms, frac);
}

static enum print_line_t um_output(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct trace_event_call *call;
	struct trace_seq *s = &iter->seq;
	const void *ent = iter->ent;
	enum print_line_t ret;

	ret = trace_raw_output_prep(iter, event);
	if (ret != TRACE_TYPE_HANDLED)
		return ret;
	call = container_of(event, struct trace_event_call, event);

	switch ((long)call->data) {
	case UM_BEGIN: {
		const struct um_ent_begin *e = ent;

		trace_seq_printf(s, "%s depth=%u tgid=%d", um_str(e, e->name),
				 e->depth, e->tgid);
		break;
	}
	case UM_END: {
		const struct um_ent_end *e = ent;

		trace_seq_printf(s, "%s depth=%u", um_str(e, e->name), e->depth);
		um_print_ms(s, "dur", e->duration_ns);
		um_print_ms(s, "cpu", e->cpu_ns);
		if (e->flags & UM_END_UNMATCHED)
			trace_seq_puts(s, " unmatched");
		if (e->flags & UM_END_EXITED)
			trace_seq_puts(s, " exited");
		if (e->flags & UM_END_UNTRACKED)
			trace_seq_puts(s, " untracked");
		trace_seq_printf(s, " tgid=%d", e->tgid);
		break;
	}
	case UM_COUNTER: {
		const struct um_ent_value *e = ent;

		trace_seq_printf(s, "%s=%lld tgid=%d", um_str(e, e->name),
				 e->value, e->tgid);
		break;
	}
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END: {
		const struct um_ent_value *e = ent;

		trace_seq_printf(s, "%s cookie=%lld tgid=%d", um_str(e, e->name),
				 e->value, e->tgid);
		break;
	}
	case UM_INSTANT: {
		const struct um_ent_instant *e = ent;

		trace_seq_printf(s, "%s tgid=%d", um_str(e, e->name), e->tgid);
		break;
	}
	case UM_LOST: {
		const struct um_ent_lost *e = ent;

		trace_seq_printf(s, "count=%llu tgid=%d", e->count, e->tgid);
		break;
	}
	}
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions um_funcs = {
	.trace = um_output,
};

/* Nothing to hook: records come from writes, not from a tracepoint. */
static int um_reg(struct trace_event_call *call, enum trace_reg type,
		  void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

#define UM_CLASS(_name)							\
static struct trace_event_fields um_fields_##_name[] = {		\
	{ .type = TRACE_FUNCTION_TYPE,					\
	  .define_fields = um_define_##_name },				\
	{}								\
};									\
static struct trace_event_class um_class_##_name = {			\
	.system		= UM_SYSTEM,					\
	.fields_array	= um_fields_##_name,				\
	.fields		= LIST_HEAD_INIT(um_class_##_name.fields),	\
	.raw_init	= trace_event_raw_init,				\
	.reg		= um_reg,					\
}

UM_CLASS(begin);
UM_CLASS(end);
UM_CLASS(counter);
UM_CLASS(async);
UM_CLASS(instant);
UM_CLASS(lost);

/*
 * In the _ftrace_events section, like TRACE_EVENT()'s, so that every
 * instance has the events from its creation, early boot included.
 */
#define UM_EVENT(_id, _name, _class, _fmt)				\
static struct trace_event_call um_call_##_name = {			\
	.class		= &um_class_##_class,				\
	.name		= #_name,					\
	.event.funcs	= &um_funcs,					\
	.print_fmt	= _fmt,						\
	.data		= (void *)(_id),				\
};									\
static struct trace_event_call *um_event_##_name			\
__used __section("_ftrace_events") = &um_call_##_name

UM_EVENT(UM_BEGIN, begin, begin,
	 "\"%s depth=%u tgid=%d\", __get_str(name), REC->depth, REC->tgid");
UM_EVENT(UM_END, end, end,
	 "\"%s depth=%u flags=%u duration_ns=%llu cpu_ns=%llu tgid=%d\", __get_str(name), REC->depth, REC->flags, REC->duration_ns, REC->cpu_ns, REC->tgid");
UM_EVENT(UM_COUNTER, counter, counter,
	 "\"%s=%lld tgid=%d\", __get_str(name), REC->value, REC->tgid");
UM_EVENT(UM_ASYNC_BEGIN, async_begin, async,
	 "\"%s cookie=%lld tgid=%d\", __get_str(name), REC->cookie, REC->tgid");
UM_EVENT(UM_ASYNC_END, async_end, async,
	 "\"%s cookie=%lld tgid=%d\", __get_str(name), REC->cookie, REC->tgid");
UM_EVENT(UM_INSTANT, instant, instant,
	 "\"%s tgid=%d\", __get_str(name), REC->tgid");
UM_EVENT(UM_LOST, lost, lost,
	 "\"count=%llu tgid=%d\", REC->count, REC->tgid");

static const char *const um_event_names[UM_NR_EVENTS] = {
	[UM_BEGIN]	 = "begin",
	[UM_END]	 = "end",
	[UM_COUNTER]	 = "counter",
	[UM_ASYNC_BEGIN] = "async_begin",
	[UM_ASYNC_END]	 = "async_end",
	[UM_INSTANT]	 = "instant",
	[UM_LOST]	 = "lost",
};

/* Header size of each event: the name (if any) follows it. */
static const u8 um_event_size[UM_NR_EVENTS] = {
	[UM_BEGIN]	 = offsetof(struct um_ent_begin, data),
	[UM_END]	 = offsetof(struct um_ent_end, data),
	[UM_COUNTER]	 = offsetof(struct um_ent_value, data),
	[UM_ASYNC_BEGIN] = offsetof(struct um_ent_value, data),
	[UM_ASYNC_END]	 = offsetof(struct um_ent_value, data),
	[UM_INSTANT]	 = offsetof(struct um_ent_instant, data),
	[UM_LOST]	 = sizeof(struct um_ent_lost),
};

/* ------------------------------------------------------------------ */
/* Writing one event                                                   */

static void um_fill(void *ent, enum um_event ev, const struct um_out *o)
{
	u32 off = um_event_size[ev];
	/* name and tgid sit at the same place in every named event */
	struct um_ent_instant *named = ent;

	if (ev == UM_LOST) {
		struct um_ent_lost *e = ent;

		e->tgid = current->tgid;
		e->pad = 0;
		e->count = o->val;
		return;
	}
	named->name = (o->name_len + 1) << 16 | off;
	named->tgid = current->tgid;
	if (o->name_len)
		memcpy((char *)ent + off, o->name, o->name_len);
	((char *)ent)[off + o->name_len] = '\0';

	switch (ev) {
	case UM_BEGIN:
		((struct um_ent_begin *)ent)->depth = o->depth;
		break;
	case UM_END: {
		struct um_ent_end *e = ent;

		e->depth = o->depth;
		e->flags = o->flags;
		e->duration_ns = o->val;
		e->cpu_ns = o->cpu_ns;
		break;
	}
	case UM_COUNTER:
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END:
		((struct um_ent_value *)ent)->value = o->val;
		break;
	default:
		break;
	}
}

/*
 * Reserve, fill and commit one event. The commit runs the event's filter
 * and triggers. Returns false when the ring buffer took nothing.
 */
static bool um_emit(struct trace_event_file *file, enum um_event ev,
		    const struct um_out *o)
{
	struct trace_event_buffer fbuffer;
	size_t len = um_event_size[ev];
	void *ent;

	if (ev != UM_LOST)
		len += o->name_len + 1;

	/* trace_event_buffer_reserve() expects a tracepoint's preempt count */
	preempt_disable_notrace();
	ent = trace_event_buffer_reserve(&fbuffer, file, len);
	if (ent) {
		um_fill(ent, ev, o);
		trace_event_buffer_commit(&fbuffer);
	}
	preempt_enable_notrace();
	return ent;
}

static bool um_file_on(struct trace_event_file *file)
{
	return file && (READ_ONCE(file->flags) & EVENT_FILE_FL_ENABLED);
}

/* ------------------------------------------------------------------ */
/* Per-thread spans and per-group rate limits                          */

static struct um_thread *um_thread_find(struct trace_user_markers *um,
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
	/* Only the thread itself or instance removal frees its state. */
	return found;
}

static struct um_thread *um_thread_get(struct trace_user_markers *um)
{
	struct um_thread *th = um_thread_find(um, current);

	if (th)
		return th;
	th = kzalloc(sizeof(*th), GFP_KERNEL_ACCOUNT);
	if (!th)
		return NULL;
	th->task = current;
	atomic_inc(&um_nr_states);
	atomic_inc(&um->nr_threads);
	spin_lock(&um->lock);
	hlist_add_head_rcu(&th->node,
			   &um->threads[hash_ptr(current, UM_HASH_BITS)]);
	spin_unlock(&um->lock);
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

/* The group's state, made full of tokens on its first record. */
static struct um_group *um_group_get(struct trace_user_markers *um, u64 limit)
{
	struct signal_struct *sig = current->signal;
	struct um_group *g = um_group_find(um, sig), *other;

	if (g)
		return g;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	g->sig = sig;
	spin_lock_init(&g->lock);
	g->tokens = (limit & U32_MAX) * NSEC_PER_SEC;
	g->last = ktime_get_mono_fast_ns();

	/* Two threads of the group may race to create it: one wins. */
	spin_lock(&um->lock);
	other = um_group_find(um, sig);
	if (!other) {
		hlist_add_head_rcu(&g->node,
				   &um->groups[hash_ptr(sig, UM_HASH_BITS)]);
		atomic_inc(&um_nr_states);
		atomic_inc(&um->nr_groups);
	}
	spin_unlock(&um->lock);
	if (other) {
		kfree(g);
		return other;
	}
	return g;
}

/*
 * Token bucket: RATE records per second, BURST at most, one token being
 * NSEC_PER_SEC. A write takes the tokens of its whole batch at once, so
 * that a batch costs one lock and one clock read: up to @want tokens are
 * granted, and *lost is set to the group's drops not yet reported. With
 * none left, the record that asked is counted as pending.
 */
static u32 um_take(struct um_group *g, u64 limit, u32 want, u64 *lost)
{
	u64 rate = limit >> 32, cap = (limit & U32_MAX) * NSEC_PER_SEC;
	u64 now = ktime_get_mono_fast_ns(), elapsed;
	u32 granted;

	spin_lock(&g->lock);
	elapsed = now > g->last ? now - g->last : 0;
	g->last = max(now, g->last);
	/* rate <= 10^7: the product cannot overflow below 900 s */
	if (elapsed > 900 * NSEC_PER_SEC)
		g->tokens = cap;
	else
		g->tokens = min(cap, g->tokens + elapsed * rate);
	granted = min_t(u64, want, div_u64(g->tokens, NSEC_PER_SEC));
	if (granted) {
		g->tokens -= (u64)granted * NSEC_PER_SEC;
		*lost = g->pending;
		g->pending = 0;
	} else {
		g->pending++;
	}
	spin_unlock(&g->lock);
	return granted;
}

/* Tokens a batch took but did not use go back to the bucket. */
static void um_untake(struct um_group *g, u64 limit, u32 unused)
{
	u64 cap = (limit & U32_MAX) * NSEC_PER_SEC;

	spin_lock(&g->lock);
	g->tokens = min(cap, g->tokens + (u64)unused * NSEC_PER_SEC);
	spin_unlock(&g->lock);
}

static void um_unreport(struct um_group *g, u64 lost)
{
	spin_lock(&g->lock);
	g->pending += lost;
	spin_unlock(&g->lock);
}

/* Write a lost event for @lost drops. Returns false if nothing took it. */
static bool um_emit_lost(struct trace_user_markers *um, u64 lost)
{
	struct um_out o = { .val = lost };
	struct trace_event_file *file = um->file[UM_LOST];

	if (!um_file_on(file) || trace_trigger_soft_disabled(file) ||
	    !um_emit(file, UM_LOST, &o))
		return false;
	this_cpu_add(um->stats->lost_reported, lost);
	return true;
}

/* Report @lost drops of @g; they stay pending if that fails. */
static void um_report_lost(struct trace_user_markers *um, struct um_group *g,
			   u64 lost)
{
	if (!um_emit_lost(um, lost))
		um_unreport(g, lost);
}

/* Emit an event that a writer asked for, and count where it went. */
static void um_emit_counted(struct trace_user_markers *um,
			    struct trace_event_file *file, enum um_event ev,
			    const struct um_out *o)
{
	if (um_emit(file, ev, o))
		this_cpu_inc(um->stats->recorded);
	else
		this_cpu_inc(um->stats->buffer_dropped);
}

/* B: push a span. Returns its depth. Spans that do not fit are counted. */
static u32 um_push(struct um_thread *th, struct trace_array *tr,
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

/* E: pop the innermost span into @o. */
static void um_pop(struct um_thread *th, struct trace_array *tr,
		   const struct um_rec *r, struct um_out *o)
{
	struct um_span *sp;
	u64 now;

	if (th && th->deep) {
		th->deep--;
		o->depth = th->depth + th->deep;
		o->flags = UM_END_UNTRACKED;
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

/* ------------------------------------------------------------------ */
/* Delivering a batch of records to one instance                       */

struct um_ctx {
	struct um_thread	*th;
	struct um_group		*g;
	bool			th_looked;
	u32			tokens;	/* taken for this batch, unused */
	u32			left;	/* records of the batch not yet seen */
};

static void um_record(struct trace_user_markers *um, struct um_ctx *c,
		      const struct um_rec *r, u64 limit)
{
	struct trace_array *tr = um->tr;
	struct trace_event_file *file = um->file[r->event];
	struct um_out o = {
		.name = r->name,
		.name_len = r->name_len,
		.val = r->value,
	};
	bool span = r->event == UM_BEGIN || r->event == UM_END;
	bool on = um_file_on(file);
	u64 lost = 0;

	if (!on) {
		/* Spans are followed while either half of them is traced. */
		if (!span || !um_file_on(um->file[UM_BEGIN + UM_END - r->event]))
			return;
		file = um->file[UM_BEGIN + UM_END - r->event];
	}

	/* The instance's pid and cgroup filters: one per-CPU verdict. */
	if (static_branch_unlikely(&trace_ctx_filter_key) &&
	    trace_event_ignore_this_pid(file)) {
		if (on)
			this_cpu_inc(um->stats->filtered);
		return;
	}

	if (span) {
		if (!c->th_looked) {
			c->th = um_thread_find(um, current);
			c->th_looked = true;
		}
		if (r->event == UM_BEGIN) {
			if (!c->th)
				c->th = um_thread_get(um);
			/* With no memory the span is not tracked. */
			o.depth = c->th ? um_push(c->th, tr, r) : 0;
		} else {
			um_pop(c->th, tr, r, &o);
		}
	}
	if (!on || trace_trigger_soft_disabled(file))
		return;

	if (limit) {
		if (!c->g)
			c->g = um_group_get(um, limit);
		/* This record and the rest of the batch, in one take */
		if (c->g && !c->tokens) {
			c->tokens = um_take(c->g, limit, c->left + 1, &lost);
			if (!c->tokens) {
				this_cpu_inc(um->stats->rate_limited);
				return;
			}
		}
		if (c->g)
			c->tokens--;
		if (lost)
			um_report_lost(um, c->g, lost);
	}
	um_emit_counted(um, file, r->event, &o);
}

static void um_deliver(struct trace_user_markers *um,
		       const struct um_rec *recs, int n)
{
	struct um_ctx c = {};
	u64 limit = READ_ONCE(um->limit);
	int i;

	for (i = 0; i < n; i++) {
		c.left = n - i - 1;
		um_record(um, &c, &recs[i], limit);
	}
	/* Records that were filtered out did not use their tokens. */
	if (c.tokens)
		um_untake(c.g, limit, c.tokens);
}

/* A write to the top level, or a prctl: every instance that takes it. */
static void um_deliver_all(const struct um_rec *recs, int n, bool prctl)
{
	struct trace_user_markers *um;
	int idx;

	idx = srcu_read_lock(&um_srcu);
	list_for_each_entry_srcu(um, &um_instances, list,
				 srcu_read_lock_held(&um_srcu)) {
		if (prctl && !READ_ONCE(um->prctl))
			continue;
		if (!(um->tr->trace_flags & TRACE_ITER_MARKERS))
			continue;
		um_deliver(um, recs, n);
	}
	srcu_read_unlock(&um_srcu, idx);
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

static int um_parse_s64(const char *s, size_t len, s64 *val)
{
	char num[24];

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	/* kstrtos64() takes a leading '+' and "0x"; the grammar does not */
	if (!isdigit(num[0]) && !(num[0] == '-' && isdigit(num[1])))
		return -EINVAL;
	if (num[0] == '0' && len > 1)
		return -EINVAL;
	/* out of range is a bad number too */
	return kstrtos64(num, 10, val) ? -EINVAL : 0;
}

static int um_check_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return -EINVAL;
	if (len > UM_NAME_MAX)
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if (ch < 0x20 || ch == 0x7f)
			return -EINVAL;
	}
	return 0;
}

/* Record types and their number of '|'-separated fields */
static const struct {
	char	type;
	u8	event;
	u8	fields;
} um_grammar[] = {
	{ 'B', UM_BEGIN, 3 },
	{ 'E', UM_END, 2 },
	{ 'C', UM_COUNTER, 4 },
	{ 'S', UM_ASYNC_BEGIN, 4 },
	{ 'F', UM_ASYNC_END, 4 },
	{ 'I', UM_INSTANT, 3 },
};

/* One record, without its newline: "T|pid|..." */
static int um_parse_rec(const char *s, size_t len, struct um_rec *r)
{
	const char *f[5];
	size_t flen[5];
	int nf = 0, want, ret;
	const char *p = s, *end = s + len, *bar;
	size_t i;

	while (nf < 5) {
		bar = memchr(p, '|', end - p);
		f[nf] = p;
		flen[nf] = (bar ? bar : end) - p;
		nf++;
		if (!bar)
			break;
		p = bar + 1;
	}
	if (nf == 5 || flen[0] != 1)
		return -EINVAL;

	for (i = 0; i < ARRAY_SIZE(um_grammar); i++)
		if (um_grammar[i].type == f[0][0])
			break;
	if (i == ARRAY_SIZE(um_grammar))
		return -EINVAL;
	r->event = um_grammar[i].event;
	want = um_grammar[i].fields;
	/* "E|pid|name" is also an end */
	if (nf != want && !(r->event == UM_END && nf == 3))
		return -EINVAL;

	/* The pid: accepted, never trusted. */
	if (!flen[1] || flen[1] > 10)
		return -EINVAL;
	for (i = 0; i < flen[1]; i++)
		if (!isdigit(f[1][i]))
			return -EINVAL;

	r->name = NULL;
	r->name_len = 0;
	r->value = 0;
	if (nf >= 3) {
		ret = um_check_name(f[2], flen[2]);
		if (ret)
			return ret;
		r->name = f[2];
		r->name_len = flen[2];
	}
	if (nf == 4)
		return um_parse_s64(f[3], flen[3], &r->value);
	return 0;
}

/*
 * Split @buf into records. Returns their number, -E2BIG past
 * UM_RECS_MAX, -ENOBUFS past @cap (the caller retries with room), or
 * the first record's error.
 */
static int um_parse(const char *buf, size_t len, struct um_rec *recs, int cap)
{
	const char *p = buf, *end = buf + len, *nl;
	int n = 0, ret;

	if (memchr(buf, '\0', len))
		return -EINVAL;
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (n == UM_RECS_MAX)
			return -E2BIG;
		if (n == cap)
			return -ENOBUFS;
		ret = um_parse_rec(p, nl - p, &recs[n]);
		if (ret)
			return ret;
		n++;
		p = nl + 1;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static int um_write_batch(struct trace_array *tr, const char __user *ubuf,
			  size_t cnt, char *buf, struct um_rec *recs, int cap)
{
	int n;

	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	n = um_parse(buf, cnt, recs, cap);
	if (n <= 0)
		return n;

	if (tr->flags & TRACE_ARRAY_FL_GLOBAL)
		um_deliver_all(recs, n, false);
	else
		um_deliver(tr->user_markers, recs, n);
	return 0;
}

struct um_big_batch {
	char		buf[UM_WRITE_MAX];
	struct um_rec	recs[UM_RECS_MAX];
};

static ssize_t um_events_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	struct trace_user_markers *um = tr->user_markers;
	struct um_rec recs[UM_SMALL_RECS];
	char buf[UM_SMALL_WRITE];
	struct um_big_batch *big;
	int ret;

	if (tracing_is_disabled())
		return -EINVAL;
	if (!(tr->trace_flags & TRACE_ITER_MARKERS))
		return -EINVAL;
	if (!cnt)
		return 0;

	if (cnt > UM_WRITE_MAX) {
		ret = -E2BIG;
	} else {
		ret = -ENOBUFS;
		if (cnt <= sizeof(buf))
			ret = um_write_batch(tr, ubuf, cnt, buf, recs,
					     ARRAY_SIZE(recs));
		if (ret == -ENOBUFS) {
			big = kmalloc(sizeof(*big), GFP_KERNEL);
			if (!big)
				return -ENOMEM;
			ret = um_write_batch(tr, ubuf, cnt, big->buf, big->recs,
					     UM_RECS_MAX);
			kfree(big);
		}
	}
	if (ret) {
		this_cpu_inc(um->stats->rejected);
		return ret;
	}
	*ppos += cnt;
	return cnt;
}

static int um_release(struct inode *inode, struct file *filp)
{
	trace_array_put(inode->i_private);
	return 0;
}

static const struct file_operations um_events_fops = {
	.open		= tracing_open_generic_tr,
	.write		= um_events_write,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

static ssize_t um_rate_read(struct file *filp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	u64 limit = READ_ONCE(tr->user_markers->limit);
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%llu %llu\n", limit >> 32,
			limit & U32_MAX);
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/* "RATE [BURST]": 0 is unlimited; a lone RATE keeps the burst. */
static ssize_t um_rate_write(struct file *filp, const char __user *ubuf,
			     size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	struct trace_user_markers *um = tr->user_markers;
	u64 rate, burst, limit = READ_ONCE(um->limit);
	char buf[48], *p, *word;
	int ret;

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	/* A NUL would end the text early and hide what follows it. */
	if (memchr(buf, '\0', cnt))
		return -EINVAL;
	buf[cnt] = '\0';
	p = strim(buf);

	word = strsep(&p, " \t");
	ret = kstrtou64(word, 10, &rate);
	if (ret)
		return -EINVAL;
	burst = limit ? limit & U32_MAX : UM_BURST_DEFAULT;
	if (p) {
		p = skip_spaces(p);
		if (kstrtou64(p, 10, &burst))
			return -EINVAL;
	}
	if (rate > UM_RATE_MAX || burst > UM_BURST_MAX)
		return -EINVAL;
	if (rate && !burst)
		return -EINVAL;
	WRITE_ONCE(um->limit, rate ? rate << 32 | burst : 0);
	*ppos += cnt;
	return cnt;
}

static const struct file_operations um_rate_fops = {
	.open		= tracing_open_generic_tr,
	.read		= um_rate_read,
	.write		= um_rate_write,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

static ssize_t um_stats_read(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	struct trace_user_markers *um = tr->user_markers;
	struct um_stats t = {};
	char buf[384];
	int cpu, len;

	for_each_possible_cpu(cpu) {
		struct um_stats *s = per_cpu_ptr(um->stats, cpu);

		t.recorded += READ_ONCE(s->recorded);
		t.buffer_dropped += READ_ONCE(s->buffer_dropped);
		t.rate_limited += READ_ONCE(s->rate_limited);
		t.lost_reported += READ_ONCE(s->lost_reported);
		t.filtered += READ_ONCE(s->filtered);
		t.rejected += READ_ONCE(s->rejected);
	}
	len = scnprintf(buf, sizeof(buf),
			"accepted %llu\nrecorded %llu\nbuffer_dropped %llu\n"
			"rate_limited %llu\nlost_reported %llu\nlost_pending %llu\n"
			"filtered %llu\nrejected %llu\n"
			"span_states %d\nrate_states %d\n",
			t.recorded + t.buffer_dropped, t.recorded,
			t.buffer_dropped, t.rate_limited, t.lost_reported,
			t.rate_limited - t.lost_reported, t.filtered,
			t.rejected, atomic_read(&um->nr_threads),
			atomic_read(&um->nr_groups));
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static const struct file_operations um_stats_fops = {
	.open		= tracing_open_generic_tr,
	.read		= um_stats_read,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

static ssize_t um_prctl_read(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;

	return simple_read_from_buffer(ubuf, cnt, ppos,
				       READ_ONCE(tr->user_markers->prctl) ?
				       "1\n" : "0\n", 2);
}

static ssize_t um_prctl_write(struct file *filp, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, cnt, &on);
	if (ret)
		return ret;
	WRITE_ONCE(tr->user_markers->prctl, on);
	*ppos += cnt;
	return cnt;
}

static const struct file_operations um_prctl_fops = {
	.open		= tracing_open_generic_tr,
	.read		= um_prctl_read,
	.write		= um_prctl_write,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

/* ------------------------------------------------------------------ */
/* prctl(PR_TRACE_USER_MARKER, kind, name, value, 0)                   */

/* PR_TRACE_MARKER_* to the event, plus one (0: not a kind) */
static const u8 um_prctl_kinds[] = {
	[PR_TRACE_MARKER_BEGIN]		= UM_BEGIN + 1,
	[PR_TRACE_MARKER_END]		= UM_END + 1,
	[PR_TRACE_MARKER_COUNTER]	= UM_COUNTER + 1,
	[PR_TRACE_MARKER_INSTANT]	= UM_INSTANT + 1,
};

/**
 * trace_user_marker_prctl - emit one marker record from prctl()
 * @kind: PR_TRACE_MARKER_BEGIN, _END, _COUNTER or _INSTANT
 * @uname: user pointer to the NUL-terminated name (may be 0 for an end)
 * @value: the counter's value
 * @arg5: must be 0
 *
 * The record reaches the instances that set options/user_events_prctl.
 *
 * Return: 0, -EINVAL, -EFAULT or -ENAMETOOLONG.
 */
int trace_user_marker_prctl(unsigned long kind, unsigned long uname,
			    unsigned long value, unsigned long arg5)
{
	char name[UM_NAME_MAX + 2];
	struct um_rec r = { .value = (s64)value };
	long len;
	int ret;

	if (arg5)
		return -EINVAL;
	if (kind >= ARRAY_SIZE(um_prctl_kinds) || !um_prctl_kinds[kind])
		return -EINVAL;
	r.event = um_prctl_kinds[kind] - 1;
	if (r.event == UM_END && !uname) {
		r.name = NULL;
	} else {
		len = strncpy_from_user(name, (const char __user *)uname,
					sizeof(name));
		if (len < 0)
			return len;
		if (len == sizeof(name))
			return -ENAMETOOLONG;
		ret = um_check_name(name, len);
		if (ret)
			return ret;
		r.name = name;
		r.name_len = len;
	}
	if (r.event != UM_COUNTER)
		r.value = 0;
	if (!tracing_is_disabled())
		um_deliver_all(&r, 1, true);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Thread and group exit                                               */

static void um_thread_exit(struct trace_user_markers *um,
			   struct task_struct *task)
{
	struct trace_event_file *file = um->file[UM_END];
	struct um_thread *th = um_thread_find(um, task);
	struct um_out o = { .name = "" };
	bool on;

	if (!th)
		return;
	on = um_file_on(file) && !trace_trigger_soft_disabled(file) &&
	     !(static_branch_unlikely(&trace_ctx_filter_key) &&
	       trace_event_ignore_this_pid(file));
	/* Bounded: one event for all untracked spans, one per tracked span */
	if (th->deep && on) {
		o.depth = th->depth;
		o.flags = UM_END_EXITED | UM_END_UNTRACKED;
		um_emit_counted(um, file, UM_END, &o);
	}
	th->deep = 0;
	while (th->depth && on) {
		struct um_rec r = { .event = UM_END };

		um_pop(th, um->tr, &r, &o);
		o.flags = UM_END_EXITED;
		um_emit_counted(um, file, UM_END, &o);
	}

	spin_lock(&um->lock);
	hlist_del_rcu(&th->node);
	spin_unlock(&um->lock);
	kfree_rcu(th, rcu);
	atomic_dec(&um->nr_threads);
	atomic_dec(&um_nr_states);
}

static void um_group_exit(struct trace_user_markers *um,
			  struct signal_struct *sig)
{
	struct um_group *g = um_group_find(um, sig);
	bool mine = false;
	u64 lost;

	if (!g)
		return;
	/* Threads exiting together may all see the group dead: one frees. */
	spin_lock(&um->lock);
	if (!hlist_unhashed(&g->node)) {
		hlist_del_init_rcu(&g->node);
		mine = true;
	}
	spin_unlock(&um->lock);
	if (!mine)
		return;

	spin_lock(&g->lock);
	lost = g->pending;
	g->pending = 0;
	spin_unlock(&g->lock);
	/*
	 * Report what is pending. If that fails, the drops were counted in
	 * rate_limited and are never reported: lost_pending is computed from
	 * the stats, so it keeps them.
	 */
	if (lost)
		um_emit_lost(um, lost);
	kfree_rcu(g, rcu);
	atomic_dec(&um->nr_groups);
	atomic_dec(&um_nr_states);
}

static void um_exit_probe(void *data, struct task_struct *task)
{
	struct trace_user_markers *um;
	bool group_dead;
	int idx;

	if (!atomic_read(&um_nr_states))
		return;
	group_dead = !atomic_read(&task->signal->live);
	idx = srcu_read_lock(&um_srcu);
	list_for_each_entry_srcu(um, &um_instances, list,
				 srcu_read_lock_held(&um_srcu)) {
		um_thread_exit(um, task);
		if (group_dead)
			um_group_exit(um, task->signal);
	}
	srcu_read_unlock(&um_srcu, idx);
}

static int __init um_init(void)
{
	int ret = register_trace_sched_process_exit(um_exit_probe, NULL);

	WARN_ON_ONCE(ret);
	return ret;
}
core_initcall(um_init);

/* ------------------------------------------------------------------ */
/* Instances                                                           */

/**
 * trace_user_markers_create - the user_events files of an instance
 * @tr: a new instance (or the top level), its events already created
 * @parent: its tracefs directory
 *
 * Return: 0 or -ENOMEM.
 */
int trace_user_markers_create(struct trace_array *tr, struct dentry *parent)
{
	struct trace_user_markers *um;
	int i;

	um = kzalloc(sizeof(*um), GFP_KERNEL);
	if (!um)
		return -ENOMEM;
	um->stats = alloc_percpu(struct um_stats);
	if (!um->stats) {
		kfree(um);
		return -ENOMEM;
	}
	um->tr = tr;
	um->limit = (u64)UM_RATE_DEFAULT << 32 | UM_BURST_DEFAULT;
	spin_lock_init(&um->lock);
	for (i = 0; i < UM_NR_EVENTS; i++)
		um->file[i] = __find_event_file(tr, UM_SYSTEM, um_event_names[i]);
	tr->user_markers = um;

	trace_create_file("user_events", 0220, parent, tr, &um_events_fops);
	trace_create_file("user_events_rate", TRACE_MODE_WRITE, parent, tr,
			  &um_rate_fops);
	trace_create_file("user_events_stats", TRACE_MODE_READ, parent, tr,
			  &um_stats_fops);
	if (tr->options)
		trace_create_file("user_events_prctl", TRACE_MODE_WRITE,
				  tr->options, tr, &um_prctl_fops);

	mutex_lock(&um_instances_lock);
	list_add_tail_rcu(&um->list, &um_instances);
	mutex_unlock(&um_instances_lock);
	return 0;
}

/**
 * trace_user_markers_destroy - free an instance's marker state
 * @tr: the instance, off the list of instances (so its files cannot be
 *	opened) with no file of it open, its events still there
 *
 * Waits for top-level and prctl writers and exiting threads that may be
 * delivering to it, then frees every span and rate limit state.
 */
void trace_user_markers_destroy(struct trace_array *tr)
{
	struct trace_user_markers *um = tr->user_markers;
	struct hlist_node *tmp;
	struct um_thread *th;
	struct um_group *g;
	int i;

	if (!um)
		return;
	mutex_lock(&um_instances_lock);
	list_del_rcu(&um->list);
	mutex_unlock(&um_instances_lock);
	synchronize_srcu(&um_srcu);

	for (i = 0; i < ARRAY_SIZE(um->threads); i++) {
		hlist_for_each_entry_safe(th, tmp, &um->threads[i], node) {
			hlist_del(&th->node);
			kfree_rcu(th, rcu);
			atomic_dec(&um_nr_states);
		}
		hlist_for_each_entry_safe(g, tmp, &um->groups[i], node) {
			hlist_del(&g->node);
			kfree_rcu(g, rcu);
			atomic_dec(&um_nr_states);
		}
	}
	tr->user_markers = NULL;
	free_percpu(um->stats);
	kfree(um);
}
