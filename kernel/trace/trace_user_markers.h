/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space markers: atrace-style records written to an instance's
 * user_events file (or passed to prctl) become user_markers events in the
 * instance's ring buffer. See Documentation/trace/user-markers.rst.
 *
 *   trace_user_markers_parse.c      the record grammar
 *   trace_user_markers_instances.c  the list of instances, enable state
 *   trace_user_markers_events.c     the events: formats, output, emitting
 *   trace_user_markers_state.c      span stacks, rate limits, thread exit
 *   trace_user_markers_deliver.c    user_events: a write's records to
 *                                   the instances it reaches
 *   trace_user_markers_prctl.c      the prctl() path
 *   trace_user_markers.c            an instance's markers and files
 *
 * Each calls only the files listed above it.
 *
 * Include it after "trace.h".
 */
#ifndef _TRACE_USER_MARKERS_H
#define _TRACE_USER_MARKERS_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/version.h>

struct trace_array;
struct trace_event_file;
struct dentry;
struct task_struct;
struct signal_struct;
struct srcu_struct;

#ifdef CONFIG_TRACE_USER_MARKERS
int trace_user_markers_create(struct trace_array *tr, struct dentry *parent);
void trace_user_markers_destroy(struct trace_array *tr);
void trace_user_markers_flag_changed(struct trace_array *tr);
#else
static inline int trace_user_markers_create(struct trace_array *tr,
					    struct dentry *parent)
{
	return 0;
}

static inline void trace_user_markers_destroy(struct trace_array *tr) { }
static inline void trace_user_markers_flag_changed(struct trace_array *tr) { }
#endif

/*
 * The instance's "markers" option, which lets its trace_marker and
 * user_events take writes; and tracing turned off for good (a failed
 * self-test). For files that include trace.h.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#define trace_um_markers_on(tr)	((tr)->trace_flags & TRACE_ITER(MARKERS))
#define trace_um_tracing_off()	unlikely(tracing_disabled)
#else
#define trace_um_markers_on(tr)	((tr)->trace_flags & TRACE_ITER_MARKERS)
#define trace_um_tracing_off()	tracing_is_disabled()
#endif

#define UM_SYSTEM		"user_markers"
#define UM_WRITE_MAX		4096	/* bytes per write */
#define UM_RECS_MAX		64	/* records per write */
#define UM_NAME_MAX		127	/* bytes per name */
#define UM_DEPTH_MAX		32	/* spans tracked per thread */
#define UM_ARENA		1024	/* bytes of open span names */
#define UM_DEEP_MAX		65535	/* untracked spans counted */
#define UM_HASH_BITS		6
/* Room after a write's sentinel: names are scanned eight bytes at once */
#define UM_SCAN_SLACK		8

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
	s64		value;		/* 0 for records that have none */
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
	struct um_group		*group;		/* its rate limit, once found */
	struct um_span		span[UM_DEPTH_MAX];
	char			arena[UM_ARENA];
};

/*
 * A token bucket: RATE records per second, BURST at most, one token being
 * NSEC_PER_SEC, refilled by the jiffies elapsed. Lock-free: tokens are
 * taken and given back by compare-and-exchange, and the CPU that moves
 * @last on (also by compare-and-exchange) credits the jiffies in between,
 * once. A take that finds too few tokens writes nothing, so writers that
 * an empty bucket refuses share its cache line read-only and never wait.
 * @last is 64-bit (get_jiffies_64()): an idle bucket refills after any
 * time, on 32-bit kernels too.
 */
struct um_bucket {
	atomic64_t		tokens;
	atomic64_t		last;		/* jiffies_64 of the last refill */
};

/* um_group.pending: the group is gone, a drop counted now is not kept */
#define UM_PENDING_DEAD		BIT_ULL(62)

/*
 * Rate limit state of one thread group in one instance: its bucket, and
 * the records dropped by it or by the instance's total, not yet reported
 * (UM_PENDING_DEAD once the group is gone).
 */
struct um_group {
	struct hlist_node	node;
	struct rcu_head		rcu;
	struct signal_struct	*sig;
	struct um_bucket	bucket;
	atomic64_t		pending;
};

/* The limits a write applies: rate << 32 | burst, 0 for none */
struct um_limits {
	u64	group;		/* each thread group: user_events_rate */
	u64	total;		/* all writers together: user_events_rate_total */
};

/* Per-CPU counts; user_events_stats adds them up. */
struct um_stats {
	u64	recorded;
	u64	buffer_dropped;
	u64	event_filtered;
	u64	rate_limited;
	u64	lost_reported;
	u64	filtered;
	u64	disabled;
	u64	rejected;
};

/* Per instance; tr->user_markers. */
struct trace_user_markers {
	struct trace_array		*tr;
	struct list_head		list;	/* on um_instances */
	struct trace_event_file		*file[UM_NR_EVENTS];
	struct um_limits		limits;
	struct um_bucket		total;	/* all writers' records */
	/*
	 * BIT(event) from its file's TRACE_REG_REGISTER to its UNREGISTER,
	 * under event_mutex: a superset of the files enabled, one load.
	 */
	unsigned long			registered;
	bool				prctl;
	raw_spinlock_t			lock;	/* table inserts and removals */
	struct hlist_head		threads[1 << UM_HASH_BITS];
	struct hlist_head		groups[1 << UM_HASH_BITS];
	atomic_t			nr_threads;	/* in threads[] */
	atomic_t			nr_groups;	/* in groups[] */
	struct um_stats __percpu	*stats;
	/* user_events_enabled: USER_MARKERS_* in its first word */
	struct page			*enabled_page;
};

/* trace_user_markers_parse.c */
int trace_um_parse(char *buf, size_t len, struct um_rec *recs);
int trace_um_check(char *buf, size_t len);
int trace_um_check_name(const char *s, size_t len);

/* trace_user_markers_instances.c */
extern struct list_head trace_um_instances;
extern struct srcu_struct trace_um_srcu;
void trace_um_instance_add(struct trace_user_markers *um);
void trace_um_instance_del(struct trace_user_markers *um);
void trace_um_file_registered(struct trace_event_file *file, bool on);

/* The events a record can become */
#define UM_RECORD_EVENTS	GENMASK(UM_INSTANT, UM_BEGIN)

/* user_events_enabled: USER_MARKERS_* in the first word of its page */
static inline u32 *trace_um_enabled_word(struct trace_user_markers *um)
{
	return page_address(um->enabled_page);
}

/* trace_user_markers_events.c */
extern const char *const trace_um_event_names[UM_NR_EVENTS];
enum trace_commit_result trace_um_emit(struct trace_user_markers *um,
				       enum um_event ev,
				       const struct um_out *o);
bool trace_um_emit_lost(struct trace_user_markers *um, u64 lost);

/* trace_user_markers_state.c */
struct um_thread *trace_um_thread_find(struct trace_user_markers *um,
				       struct task_struct *task);
struct um_thread *trace_um_thread_get(struct trace_user_markers *um);
struct um_group *trace_um_group_get(struct trace_user_markers *um,
				    struct um_thread *th,
				    const struct um_limits *lim);
void trace_um_bucket_init(struct um_bucket *b, u64 limit);
u32 trace_um_bucket_take_slow(struct um_bucket *b, u64 limit, u32 want);
u32 trace_um_take_end(struct trace_user_markers *um, struct um_group *g,
		      u32 granted);
void trace_um_untake(struct trace_user_markers *um, struct um_group *g,
		     const struct um_limits *lim, u32 unused);
u32 trace_um_push(struct um_thread *th, struct trace_array *tr,
		  const struct um_rec *r);
void trace_um_pop(struct um_thread *th, struct trace_array *tr,
		  const struct um_rec *r, struct um_out *o);
void trace_um_state_free(struct trace_user_markers *um);

/*
 * um_take_tokens - add @add to the bucket, capped at @cap, then take up to
 * @want whole tokens, by compare-and-exchange: takers and the refill lose
 * no update of each other's. Nothing to add and nothing to take (a
 * refusal) writes nothing.
 */
static inline u32 um_take_tokens(struct um_bucket *b, u64 cap, u64 add,
				 u32 want)
{
	s64 old = atomic64_read(&b->tokens), new;
	u32 granted;

	do {
		new = min_t(u64, cap, old + add);
		granted = min_t(u64, want, div_u64(new, NSEC_PER_SEC));
		new -= (u64)granted * NSEC_PER_SEC;
		if (new == old)
			break;
	} while (!atomic64_try_cmpxchg(&b->tokens, &old, new));
	return granted;
}

/*
 * um_bucket_refill_take - refill @b by the jiffies since its last refill,
 * capped at the burst, and take what it can of @want. The CPU whose
 * compare-and-exchange moves @last from the value it read to now credits
 * that interval; one that loses the race credits nothing, the winner has.
 */
static inline u32 um_bucket_refill_take(struct um_bucket *b, u64 limit,
					u32 want)
{
	u64 rate = limit >> 32, cap = (limit & U32_MAX) * NSEC_PER_SEC;
	s64 last = atomic64_read(&b->last);
	u64 now = get_jiffies_64(), add = 0, elapsed;

	if (time_after64(now, (u64)last) &&
	    atomic64_try_cmpxchg(&b->last, &last, (s64)now)) {
		elapsed = jiffies64_to_nsecs(now - (u64)last);
		/* rate <= 10^7: the product cannot overflow below 900 s */
		add = elapsed > 900ULL * NSEC_PER_SEC ? cap : elapsed * rate;
	}
	return um_take_tokens(b, cap, add, want);
}

/**
 * trace_um_bucket_untake - give back tokens that were not used
 * @b: the bucket
 * @limit: rate << 32 | burst
 * @unused: tokens to give back
 */
static inline void trace_um_bucket_untake(struct um_bucket *b, u64 limit,
					  u32 unused)
{
	um_take_tokens(b, (limit & U32_MAX) * NSEC_PER_SEC,
		       (u64)unused * NSEC_PER_SEC, 0);
}

/*
 * um_bucket_take - take up to @want tokens from @b (rate << 32 | burst
 * @limit). Within the jiffy of the last refill, with all @want tokens
 * there, that is one compare-and-exchange, inline; refills, partial
 * grants, refusals and a burst lowered below the tokens held call
 * trace_um_bucket_take_slow(), which takes no lock either.
 */
static __always_inline u32 um_bucket_take(struct um_bucket *b, u64 limit,
					  u32 want)
{
	s64 old = atomic64_read(&b->tokens), need = (s64)want * NSEC_PER_SEC;
	s64 cap = (s64)(limit & U32_MAX) * NSEC_PER_SEC;

	if (likely(!time_after64(get_jiffies_64(),
				 (u64)atomic64_read(&b->last)) &&
		   old >= need && old <= cap) &&
	    atomic64_try_cmpxchg(&b->tokens, &old, old - need))
		return want;
	return trace_um_bucket_take_slow(b, limit, want);
}

/**
 * trace_um_take - take rate tokens for a batch of records
 * @um: the instance's markers
 * @g: the writer's group
 * @lim: the limits of the write
 * @want: records in the batch still to deliver
 *
 * A batch takes its tokens at once, from its group's bucket and then from
 * the instance's total, so that neither forking nor threads add to what
 * the instance takes in all. A record that gets no token is dropped,
 * counted as rate_limited and reported by a lost event before the
 * group's next record that gets one (trace_um_take_end()).
 *
 * Return: the tokens given, at most @want.
 */
static __always_inline u32 trace_um_take(struct trace_user_markers *um,
					 struct um_group *g,
					 const struct um_limits *lim, u32 want)
{
	u32 n = want, t;

	if (lim->group)
		n = um_bucket_take(&g->bucket, lim->group, n);
	if (n && lim->total) {
		t = um_bucket_take(&um->total, lim->total, n);
		if (t < n && lim->group)
			trace_um_bucket_untake(&g->bucket, lim->group, n - t);
		n = t;
	}
	if (unlikely(!n || atomic64_read(&g->pending)))
		return trace_um_take_end(um, g, n);
	return n;
}

/* trace_user_markers_deliver.c */
void trace_um_deliver_all(const struct um_rec *recs, int n,
			  struct trace_user_markers *written, bool prctl);
extern const struct file_operations trace_um_events_fops;

#endif /* _TRACE_USER_MARKERS_H */
