// SPDX-License-Identifier: GPL-2.0
/*
 * User-space markers: atrace-style records ("B|pid|name", "E|pid", ...)
 * written to an instance's user_events file, or passed to prctl(), become
 * user_markers events in the instance's own ring buffer, under its clock,
 * its pid and cgroup filters and a per thread group rate limit.
 *
 * This file keeps the instances, their files, and delivers a parsed write
 * to them. Every record that reaches an instance is counted exactly once:
 * filtered, disabled, rate_limited, or accepted (then recorded,
 * event_filtered or buffer_dropped). See Documentation/trace/user-markers.rst.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/prctl.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/trace.h>
#include <linux/trace_user_markers.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>
#include <uapi/linux/trace_user_markers.h>

#include "trace.h"
#include "trace_user_markers.h"

#define UM_RATE_MAX		10000000
#define UM_BURST_MAX		1000000
#define UM_RATE_DEFAULT		100000
#define UM_BURST_DEFAULT	10000
/* All writers together: ten writers at the default rate */
#define UM_TOTAL_RATE_DEFAULT	1000000
#define UM_TOTAL_BURST_DEFAULT	100000

/*
 * Every instance's markers, walked by top-level and prctl writes and by
 * the exit probe. SRCU, because a writer allocates span state (and may
 * sleep) while it walks.
 */
static LIST_HEAD(um_instances);
static DEFINE_MUTEX(um_instances_lock);
DEFINE_STATIC_SRCU(um_srcu);

/* user_events_enabled's bits are the events' own (uapi) */
static_assert(BIT(UM_BEGIN) == USER_MARKERS_BEGIN &&
	      BIT(UM_END) == USER_MARKERS_END &&
	      BIT(UM_COUNTER) == USER_MARKERS_COUNTER &&
	      BIT(UM_ASYNC_BEGIN) == USER_MARKERS_ASYNC_BEGIN &&
	      BIT(UM_ASYNC_END) == USER_MARKERS_ASYNC_END &&
	      BIT(UM_INSTANT) == USER_MARKERS_INSTANT);

/* ------------------------------------------------------------------ */
/* Delivering a batch of records to one instance                       */

struct um_ctx {
	struct um_thread	*th;
	struct um_group		*g;
	bool			th_looked;
	bool			target;	/* count records of disabled events */
	u32			tokens;	/* taken for this batch, unused */
	u32			left;	/* records of the batch not yet seen */
	u32			disabled;
};

static __always_inline bool um_on(struct trace_event_file *file)
{
	return READ_ONCE(file->flags) & EVENT_FILE_FL_ENABLED;
}

/* The events a record can become */
#define UM_RECORD_EVENTS	GENMASK(UM_INSTANT, UM_BEGIN)

/*
 * Is any event a record can become enabled in the instance? Every write
 * asks: one load of the events registered, which holds those enabled
 * (an event registers before its file is enabled, unregisters after it
 * is disabled). Each record then tests its own file.
 */
static __always_inline bool um_any_on(struct trace_user_markers *um)
{
	return READ_ONCE(um->registered) & UM_RECORD_EVENTS;
}

/*
 * um_span - push or pop a span, whether or not its record is recorded:
 * a begin recorded and its end filtered (or the other way round) must not
 * leave the thread's stack out of step. Spans are followed while either
 * half of them is enabled, and for as long as the thread has spans open.
 */
static void um_span(struct trace_user_markers *um, struct um_ctx *c,
		    const struct um_rec *r, struct um_out *o)
{
	bool followed = um_on(um->file[UM_BEGIN]) || um_on(um->file[UM_END]);

	if (!c->th_looked) {
		if (followed || atomic_read(&um->nr_threads))
			c->th = trace_um_thread_find(um, current);
		c->th_looked = true;
	}
	if (r->event == UM_BEGIN) {
		/* Not followed, nothing open: no clock or runtime to read. */
		if (!followed && (!c->th || (!c->th->depth && !c->th->deep)))
			return;
		/*
		 * State is made only for a writer the instance records: the
		 * ones it rejects cannot make it hold memory. A span begun
		 * while rejected is not tracked; its end comes unmatched.
		 */
		if (!c->th && !trace_task_user_marker_ignored(um->tr->task_filter))
			c->th = trace_um_thread_get(um);
		if (!c->th)
			return;
		/* With no memory the span is not tracked. */
		o->depth = trace_um_push(c->th, um->tr, r);
	} else if (c->th || followed) {
		trace_um_pop(c->th, um->tr, r, o);
	}
}

/* Once a record: inlined into the record loop, also under -Os */
static __always_inline void um_record(struct trace_user_markers *um,
				      struct um_ctx *c,
				      const struct um_rec *r,
				      const struct um_limits *lim)
{
	struct trace_event_file *file = um->file[r->event];
	struct um_out o = {
		.name = r->name,
		.name_len = r->name_len,
	};

	if (r->event == UM_BEGIN || r->event == UM_END)
		um_span(um, c, r, &o);

	if (!um_on(file)) {
		c->disabled += c->target;
		return;
	}
	/* The instance's pid and cgroup filters: one per-CPU verdict. */
	if (trace_task_user_marker_ignored(um->tr->task_filter)) {
		this_cpu_inc(um->stats->filtered);
		return;
	}
	/* Unconditional triggers run here; soft disabled counts as off */
	if (trace_trigger_soft_disabled(file)) {
		c->disabled += c->target;
		return;
	}

	if (lim->group || lim->total) {
		/* A thread with spans keeps its group (no hash walk) */
		if (!c->g && c->th)
			c->g = c->th->group;
		if (!c->g)
			c->g = trace_um_group_get(um, c->th, lim);
		/* This record and the rest of the batch, in one take */
		if (c->g && !c->tokens) {
			c->tokens = trace_um_take(um, c->g, lim, c->left + 1);
			if (!c->tokens)
				return;		/* counted as rate_limited */
		}
		if (c->g)
			c->tokens--;
	}
	/*
	 * An end carries its duration (um_span()); the others their value,
	 * turned from the parser's digits only for a record that is emitted.
	 */
	if (r->event != UM_END)
		o.val = trace_um_rec_value(r);
	trace_um_emit(um, r->event, &o);
}

/*
 * um_idle - would the instance neither record nor follow a record? With
 * nothing enabled and no span of the writer open, every record would be
 * counted as disabled one by one, and none would push a span (nor pop
 * one). The writer's span state, when it was looked up for that, goes to
 * @th (NULL if it has none) and @looked is set: its first begin or end
 * uses it without a second lookup.
 */
static __always_inline bool um_idle(struct trace_user_markers *um,
				    struct um_thread **th, bool *looked)
{
	if (um_any_on(um))
		return false;
	if (atomic_read(&um->nr_threads))
		*th = trace_um_thread_find(um, current);
	*looked = true;
	return !*th || (!(*th)->depth && !(*th)->deep);
}

/*
 * um_deliver_records - a write's records to an instance that is not idle
 * @th, @looked: what um_idle() found
 * @target: as um_deliver()'s
 */
static void um_deliver_records(struct trace_user_markers *um,
			       struct um_thread *th, bool looked,
			       const struct um_rec *recs, int n, bool target)
{
	struct um_ctx c = { .th = th, .th_looked = looked, .target = target };
	struct um_limits lim = {
		.group = READ_ONCE(um->limits.group),
		.total = READ_ONCE(um->limits.total),
	};
	int i;

	for (i = 0; i < n; i++) {
		c.left = n - i - 1;
		um_record(um, &c, &recs[i], &lim);
	}
	/* Records that were filtered out did not use their tokens. */
	if (c.tokens)
		trace_um_untake(um, c.g, &lim, c.tokens);
	if (c.disabled)
		this_cpu_add(um->stats->disabled, c.disabled);
}

/*
 * um_deliver - a write's records to one instance
 * @target: the instance was written to (its own file, or a prctl it opted
 *	in for): records of disabled events count as disabled. Other
 *	instances that a top-level write reaches take only what they enabled.
 */
static void um_deliver(struct trace_user_markers *um,
		       const struct um_rec *recs, int n, bool target)
{
	struct um_thread *th = NULL;
	bool looked = false;

	if (um_idle(um, &th, &looked)) {
		if (target)
			this_cpu_add(um->stats->disabled, n);
		return;
	}
	um_deliver_records(um, th, looked, recs, n, target);
}

/*
 * um_all_idle - is every instance that a top-level write reaches idle?
 * The walk stops at the first that is not (the top level comes first),
 * and um_deliver_all() then walks again.
 */
static bool um_all_idle(void)
{
	struct trace_user_markers *um;
	bool idle = true;
	int idx;

	idx = srcu_read_lock(&um_srcu);
	list_for_each_entry_srcu(um, &um_instances, list,
				 srcu_read_lock_held(&um_srcu)) {
		struct um_thread *th = NULL;
		bool looked;

		if (!(um->tr->trace_flags & TRACE_ITER_MARKERS))
			continue;
		if (!um_idle(um, &th, &looked)) {
			idle = false;
			break;
		}
	}
	srcu_read_unlock(&um_srcu, idx);
	return idle;
}

/* A write to the top level, or a prctl: every instance that takes it. */
static void um_deliver_all(const struct um_rec *recs, int n,
			   struct trace_user_markers *written, bool prctl)
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
		um_deliver(um, recs, n, prctl || um == written);
	}
	srcu_read_unlock(&um_srcu, idx);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

/*
 * A write's text (with room for the parser's sentinel) and its records.
 * Each open file of user_events has one, so that a write neither
 * allocates nor fills a large stack frame; a write that finds it busy
 * (threads sharing the file) allocates its own.
 */
struct um_batch {
	unsigned long	busy;		/* bit 0: a write uses it */
	char		buf[UM_WRITE_MAX + UM_SCAN_SLACK];
	struct um_rec	recs[UM_RECS_MAX];
};

struct um_open {
	struct trace_array	*tr;
	struct um_batch		batch;
};

static int um_events_open(struct inode *inode, struct file *filp)
{
	struct trace_array *tr = inode->i_private;
	struct um_open *uo;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;
	uo = kzalloc(sizeof(*uo), GFP_KERNEL_ACCOUNT);
	if (!uo) {
		trace_array_put(tr);
		return -ENOMEM;
	}
	uo->tr = tr;
	filp->private_data = uo;
	/*
	 * A stream, as trace_marker is: no position to keep or lock, and
	 * no pwrite() or lseek() (-ESPIPE), so threads sharing the file do
	 * not serialize on its position lock.
	 */
	return stream_open(inode, filp);
}

static int um_events_release(struct inode *inode, struct file *filp)
{
	struct um_open *uo = filp->private_data;

	trace_array_put(uo->tr);
	kfree(uo);
	return 0;
}

/*
 * um_write_records - check or parse a write copied to @b, and deliver it
 *
 * Return: the number of records, or the write's error.
 */
static int um_write_records(struct trace_array *tr, struct um_batch *b,
			    size_t cnt)
{
	struct trace_user_markers *um = tr->user_markers;
	struct um_thread *th = NULL;
	bool looked = false;
	int n;

	if (tr->flags & TRACE_ARRAY_FL_GLOBAL) {
		if (um_all_idle())
			goto check;
		n = trace_um_parse(b->buf, cnt, b->recs);
		if (n > 0)
			um_deliver_all(b->recs, n, um, false);
		return n;
	}
	if (um_idle(um, &th, &looked))
		goto check;
	n = trace_um_parse(b->buf, cnt, b->recs);
	if (n > 0)
		um_deliver_records(um, th, looked, b->recs, n, true);
	return n;

check:
	/*
	 * No instance records or follows any of it: the records are checked
	 * as a recorded write's would be (the same errors), not stored, and
	 * counted as disabled at once.
	 */
	n = trace_um_check(b->buf, cnt);
	if (n > 0)
		this_cpu_add(um->stats->disabled, n);
	return n;
}

static ssize_t um_events_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct um_open *uo = filp->private_data;
	struct trace_array *tr = uo->tr;
	struct um_batch *b = &uo->batch;
	int n;

	if (tracing_is_disabled())
		return -EINVAL;
	if (!(tr->trace_flags & TRACE_ITER_MARKERS))
		return -EINVAL;
	if (!cnt)
		return 0;

	if (cnt > UM_WRITE_MAX) {
		n = -E2BIG;
		goto rejected;
	}
	if (test_and_set_bit_lock(0, &b->busy)) {
		b = kmalloc(sizeof(*b), GFP_KERNEL);
		if (!b)
			return -ENOMEM;
	}
	if (copy_from_user(b->buf, ubuf, cnt)) {
		n = -EFAULT;
	} else {
		/* The parser's loads past its sentinel read defined bytes */
		memset(b->buf + cnt + 1, 0, UM_SCAN_SLACK - 1);
		n = um_write_records(tr, b, cnt);
	}
	if (b == &uo->batch)
		clear_bit_unlock(0, &b->busy);
	else
		kfree(b);
	if (n < 0)
		goto rejected;
	return cnt;

rejected:
	this_cpu_inc(tr->user_markers->stats->rejected);
	return n;
}

static int um_release(struct inode *inode, struct file *filp)
{
	trace_array_put(inode->i_private);
	return 0;
}

static const struct file_operations um_events_fops = {
	.open		= um_events_open,
	.write		= um_events_write,
	.release	= um_events_release,
};

/* user_events_rate: each thread group's limit; _total: all writers' */
static u64 *um_group_limit(struct file *filp)
{
	struct trace_array *tr = filp->private_data;

	return &tr->user_markers->limits.group;
}

static u64 *um_total_limit(struct file *filp)
{
	struct trace_array *tr = filp->private_data;

	return &tr->user_markers->limits.total;
}

static ssize_t um_rate_read(u64 *limitp, char __user *ubuf, size_t cnt,
			    loff_t *ppos)
{
	u64 limit = READ_ONCE(*limitp);
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%llu %llu\n", limit >> 32,
			limit & U32_MAX);
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/*
 * "RATE [BURST]": 0 is unlimited; a lone RATE keeps the burst (@dflt_burst
 * when there was no limit).
 */
static ssize_t um_rate_write(u64 *limitp, u64 dflt_burst,
			     const char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	u64 rate, burst, limit = READ_ONCE(*limitp);
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
	burst = limit ? limit & U32_MAX : dflt_burst;
	if (p) {
		p = skip_spaces(p);
		if (kstrtou64(p, 10, &burst))
			return -EINVAL;
	}
	if (rate > UM_RATE_MAX || burst > UM_BURST_MAX)
		return -EINVAL;
	if (rate && !burst)
		return -EINVAL;
	WRITE_ONCE(*limitp, rate ? rate << 32 | burst : 0);
	*ppos += cnt;
	return cnt;
}

static ssize_t um_group_rate_read(struct file *filp, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	return um_rate_read(um_group_limit(filp), ubuf, cnt, ppos);
}

static ssize_t um_group_rate_write(struct file *filp, const char __user *ubuf,
				   size_t cnt, loff_t *ppos)
{
	return um_rate_write(um_group_limit(filp), UM_BURST_DEFAULT, ubuf, cnt,
			     ppos);
}

static ssize_t um_total_rate_read(struct file *filp, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	return um_rate_read(um_total_limit(filp), ubuf, cnt, ppos);
}

static ssize_t um_total_rate_write(struct file *filp, const char __user *ubuf,
				   size_t cnt, loff_t *ppos)
{
	return um_rate_write(um_total_limit(filp), UM_TOTAL_BURST_DEFAULT, ubuf,
			     cnt, ppos);
}

static const struct file_operations um_group_rate_fops = {
	.open		= tracing_open_generic_tr,
	.read		= um_group_rate_read,
	.write		= um_group_rate_write,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

static const struct file_operations um_total_rate_fops = {
	.open		= tracing_open_generic_tr,
	.read		= um_total_rate_read,
	.write		= um_total_rate_write,
	.release	= um_release,
	.llseek		= generic_file_llseek,
};

static ssize_t um_stats_read(struct file *filp, char __user *ubuf, size_t cnt,
			     loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	struct trace_user_markers *um = tr->user_markers;
	struct um_stats t = {};
	char buf[448];
	int cpu, len;

	for_each_possible_cpu(cpu)
		t.lost_reported += READ_ONCE(per_cpu_ptr(um->stats, cpu)->lost_reported);
	/*
	 * Reports first: a drop is counted in rate_limited before its report
	 * can be taken (trace_um_take()), so summing rate_limited after
	 * lost_reported never gives more reported than dropped.
	 */
	smp_rmb();
	for_each_possible_cpu(cpu) {
		struct um_stats *s = per_cpu_ptr(um->stats, cpu);

		t.recorded += READ_ONCE(s->recorded);
		t.buffer_dropped += READ_ONCE(s->buffer_dropped);
		t.event_filtered += READ_ONCE(s->event_filtered);
		t.rate_limited += READ_ONCE(s->rate_limited);
		t.filtered += READ_ONCE(s->filtered);
		t.disabled += READ_ONCE(s->disabled);
		t.rejected += READ_ONCE(s->rejected);
	}
	len = scnprintf(buf, sizeof(buf),
			"accepted %llu\nrecorded %llu\nbuffer_dropped %llu\n"
			"event_filtered %llu\nrate_limited %llu\n"
			"lost_reported %llu\nlost_pending %llu\nfiltered %llu\n"
			"disabled %llu\nrejected %llu\n"
			"span_states %d\nrate_states %d\n",
			t.recorded + t.buffer_dropped + t.event_filtered,
			t.recorded, t.buffer_dropped, t.event_filtered,
			t.rate_limited, t.lost_reported,
			t.rate_limited - t.lost_reported, t.filtered,
			t.disabled, t.rejected, atomic_read(&um->nr_threads),
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
/* The enable state a process maps                                     */

/*
 * Each instance's user_events_enabled shows, in the first word of a page
 * that processes map read-only, which of its user_markers events a write
 * to its user_events file would reach (USER_MARKERS_*): those registered
 * while its markers option is on. The top level's shows those of every
 * instance, which its writes reach. A marker nobody records then costs
 * its writer a load and no system call (tools/tracing/cgtrace/user_marker.h).
 *
 * The words are rewritten under um_instances_lock whenever they can
 * change: an event registers (before its file is enabled) or unregisters
 * (after it is disabled), a markers option changes, an instance goes.
 */
static u32 *um_enabled_word(struct trace_user_markers *um)
{
	return page_address(um->enabled_page);
}

/* um_enabled_update - rewrite every instance's enable state */
static void um_enabled_update(void)
{
	struct trace_user_markers *um, *top = NULL;
	u32 all = 0, own;

	lockdep_assert_held(&um_instances_lock);
	list_for_each_entry(um, &um_instances, list) {
		own = 0;
		if (um->tr->trace_flags & TRACE_ITER_MARKERS)
			own = READ_ONCE(um->registered) & UM_RECORD_EVENTS;
		all |= own;
		if (um->tr->flags & TRACE_ARRAY_FL_GLOBAL)
			top = um;
		else
			WRITE_ONCE(*um_enabled_word(um), own);
	}
	if (top)
		WRITE_ONCE(*um_enabled_word(top), all);
}

/**
 * trace_user_markers_flag_changed - an instance's options changed
 * @tr: the instance
 *
 * The markers option decides whether its user_events file takes records.
 */
void trace_user_markers_flag_changed(struct trace_array *tr)
{
	if (!tr->user_markers)
		return;
	mutex_lock(&um_instances_lock);
	um_enabled_update();
	mutex_unlock(&um_instances_lock);
}

/* A mapping of the page must not write it: the file opens read-only. */
static int um_enabled_open(struct inode *inode, struct file *filp)
{
	if (filp->f_mode & FMODE_WRITE)
		return -EACCES;
	return tracing_open_generic_tr(inode, filp);
}

static ssize_t um_enabled_read(struct file *filp, char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct trace_array *tr = filp->private_data;
	u32 word = READ_ONCE(*um_enabled_word(tr->user_markers));
	char buf[96];
	int ev, len = 0;

	for (ev = 0; ev < UM_NR_EVENTS; ev++) {
		if (word & BIT(ev))
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%s",
					 len ? " " : "", trace_um_event_names[ev]);
	}
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/* The page, read-only: one page at offset 0 */
static int um_enabled_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct trace_array *tr = filp->private_data;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	return vm_insert_page(vma, vma->vm_start,
			      tr->user_markers->enabled_page);
}

static const struct file_operations um_enabled_fops = {
	.open		= um_enabled_open,
	.read		= um_enabled_read,
	.mmap		= um_enabled_mmap,
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
 * @value: the counter's value; must be 0 for the other kinds
 * @arg5: must be 0
 *
 * The record reaches the instances that set options/user_events_prctl.
 * The caller needs CAP_PERFMON (or CAP_SYS_ADMIN), as for perf's events:
 * a marker can push others' events out of an instance's buffer.
 *
 * Return: 0, -EINVAL, -EPERM, -EFAULT or -ENAMETOOLONG.
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
	/* Unused arguments must be 0, as prctl options want them */
	if (r.event != UM_COUNTER && value)
		return -EINVAL;
	if (!perfmon_capable())
		return -EPERM;
	if (r.event == UM_END && !uname) {
		r.name = NULL;
	} else {
		len = strncpy_from_user(name, (const char __user *)uname,
					sizeof(name));
		if (len < 0)
			return len;
		if (len == sizeof(name))
			return -ENAMETOOLONG;
		ret = trace_um_check_name(name, len);
		if (ret)
			return ret;
		r.name = name;
		r.name_len = len;
	}
	if (!tracing_is_disabled())
		um_deliver_all(&r, 1, NULL, true);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Thread exit                                                         */

static void um_exit_probe(void *data, struct task_struct *task)
{
	struct trace_user_markers *um;
	bool group_dead;
	int idx;

	if (!atomic_read(&trace_um_nr_states))
		return;
	group_dead = !atomic_read(&task->signal->live);
	idx = srcu_read_lock(&um_srcu);
	list_for_each_entry_srcu(um, &um_instances, list,
				 srcu_read_lock_held(&um_srcu))
		trace_um_state_exit(um, task, group_dead);
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
 * trace_um_file_registered - an event of user_markers (un)registers
 * @file: its file in an instance (or the top level)
 * @on: registered, else unregistered
 *
 * Called by the events' reg(), before the file is enabled and after it is
 * disabled, under event_mutex. Before the instance's markers exist (events
 * enabled on the command line), trace_user_markers_create() reads the
 * files' flags instead.
 */
void trace_um_file_registered(struct trace_event_file *file, bool on)
{
	struct trace_user_markers *um = file->tr->user_markers;
	unsigned long bit = BIT((unsigned long)file->event_call->data);

	lockdep_assert_held(&event_mutex);
	if (!um)
		return;
	WRITE_ONCE(um->registered, on ? um->registered | bit :
					um->registered & ~bit);
	mutex_lock(&um_instances_lock);
	um_enabled_update();
	mutex_unlock(&um_instances_lock);
}

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
	bool global;
	int i;

	um = kzalloc(sizeof(*um), GFP_KERNEL);
	if (!um)
		return -ENOMEM;
	um->stats = alloc_percpu(struct um_stats);
	um->enabled_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!um->stats || !um->enabled_page)
		goto fail;
	um->tr = tr;
	um->limits.group = (u64)UM_RATE_DEFAULT << 32 | UM_BURST_DEFAULT;
	um->limits.total = (u64)UM_TOTAL_RATE_DEFAULT << 32 |
			   UM_TOTAL_BURST_DEFAULT;
	trace_um_bucket_init(&um->total, um->limits.total);
	raw_spin_lock_init(&um->lock);
	/*
	 * The instance's event files, and the registered events, are read
	 * under event_mutex. An instance is made with it held; the top level
	 * is not, and its events may be on already (trace_event= on the
	 * command line).
	 */
	global = tr->flags & TRACE_ARRAY_FL_GLOBAL;
	if (global)
		mutex_lock(&event_mutex);
	lockdep_assert_held(&event_mutex);
	for (i = 0; i < UM_NR_EVENTS; i++) {
		um->file[i] = __find_event_file(tr, UM_SYSTEM,
						trace_um_event_names[i]);
		if (!um->file[i])
			break;
		if (um->file[i]->flags & EVENT_FILE_FL_ENABLED)
			um->registered |= BIT(i);
	}
	if (i == UM_NR_EVENTS)
		tr->user_markers = um;
	if (global)
		mutex_unlock(&event_mutex);
	if (i < UM_NR_EVENTS)
		goto fail;

	trace_create_file("user_events", 0220, parent, tr, &um_events_fops);
	trace_create_file("user_events_rate", TRACE_MODE_WRITE, parent, tr,
			  &um_group_rate_fops);
	trace_create_file("user_events_rate_total", TRACE_MODE_WRITE, parent,
			  tr, &um_total_rate_fops);
	trace_create_file("user_events_stats", TRACE_MODE_READ, parent, tr,
			  &um_stats_fops);
	trace_create_file("user_events_enabled", TRACE_MODE_READ, parent, tr,
			  &um_enabled_fops);
	if (tr->options)
		trace_create_file("user_events_prctl", TRACE_MODE_WRITE,
				  tr->options, tr, &um_prctl_fops);

	mutex_lock(&um_instances_lock);
	list_add_tail_rcu(&um->list, &um_instances);
	um_enabled_update();
	mutex_unlock(&um_instances_lock);
	return 0;

fail:
	if (um->enabled_page)
		__free_page(um->enabled_page);
	free_percpu(um->stats);
	kfree(um);
	return -ENOMEM;
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

	if (!um)
		return;
	mutex_lock(&um_instances_lock);
	list_del_rcu(&um->list);
	um_enabled_update();
	mutex_unlock(&um_instances_lock);
	synchronize_srcu(&um_srcu);

	trace_um_state_free(um);
	tr->user_markers = NULL;
	/* A mapping holds the file, so no process maps the page any more */
	__free_page(um->enabled_page);
	free_percpu(um->stats);
	kfree(um);
}
