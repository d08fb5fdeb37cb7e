// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events file, and delivering a write's records to the
 * instances it reaches: its own, or with a top-level write or a prctl
 * every instance that takes it.
 *
 * Every record that reaches an instance is counted exactly once:
 * filtered, disabled, rate_limited, or accepted (then recorded,
 * event_filtered or buffer_dropped).
 */
#include <linux/fs.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "trace_user_markers.h"

/* What delivering one write to one instance keeps from record to record */
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
		    const struct um_rec *r, struct um_out *o,
		    const struct um_limits *lim)
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
		if (!c->th && !trace_marker_ignored(um->tr)) {
			c->th = trace_um_thread_get(um);
			/*
			 * With its group's rate limit state, which the ends
			 * the kernel writes at its exit or exec take tokens
			 * from (without memory, from the total alone).
			 */
			if (c->th && !c->th->group && (lim->group || lim->total))
				trace_um_group_get(um, c->th, lim);
		}
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
	/* A value or cookie; an end's duration comes from um_span() */
	struct um_out o = {
		.name = r->name,
		.name_len = r->name_len,
		.val = r->value,
	};

	if (r->event == UM_BEGIN || r->event == UM_END)
		um_span(um, c, r, &o, lim);

	if (!um_on(file)) {
		c->disabled += c->target;
		return;
	}
	/* The instance's pid and cgroup filters: one per-CPU verdict. */
	if (trace_marker_ignored(um->tr)) {
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
 * and trace_um_deliver_all() then walks again.
 */
static bool um_all_idle(void)
{
	struct trace_user_markers *um;
	bool idle = true;
	int idx;

	idx = srcu_read_lock(&trace_um_srcu);
	list_for_each_entry_srcu(um, &trace_um_instances, list,
				 srcu_read_lock_held(&trace_um_srcu)) {
		struct um_thread *th = NULL;
		bool looked;

		if (!trace_um_markers_on(um->tr))
			continue;
		if (!um_idle(um, &th, &looked)) {
			idle = false;
			break;
		}
	}
	srcu_read_unlock(&trace_um_srcu, idx);
	return idle;
}

/**
 * trace_um_deliver_all - records to every instance that takes them
 * @recs: the records
 * @n: how many
 * @written: the instance whose file was written, or NULL for a prctl
 * @prctl: they come from prctl(): only instances that opted in take them
 */
void trace_um_deliver_all(const struct um_rec *recs, int n,
			  struct trace_user_markers *written, bool prctl)
{
	struct trace_user_markers *um;
	int idx;

	idx = srcu_read_lock(&trace_um_srcu);
	list_for_each_entry_srcu(um, &trace_um_instances, list,
				 srcu_read_lock_held(&trace_um_srcu)) {
		if (prctl && !READ_ONCE(um->prctl))
			continue;
		if (!trace_um_markers_on(um->tr))
			continue;
		um_deliver(um, recs, n, prctl || um == written);
	}
	srcu_read_unlock(&trace_um_srcu, idx);
}

/*
 * um_deliver_write - check or parse a write, and deliver it
 * @tr: the instance whose user_events file was written
 * @buf: the write, with UM_SCAN_SLACK bytes of room after it
 * @len: the write's length
 * @recs: room for UM_RECS_MAX records
 *
 * Return: the number of records, or the write's error.
 */
static int um_deliver_write(struct trace_array *tr, char *buf, size_t len,
			    struct um_rec *recs)
{
	struct trace_user_markers *um = tr->user_markers;
	struct um_thread *th = NULL;
	bool looked = false;
	int n;

	if (tr->flags & TRACE_ARRAY_FL_GLOBAL) {
		if (um_all_idle())
			goto check;
		n = trace_um_parse(buf, len, recs);
		if (n > 0)
			trace_um_deliver_all(recs, n, um, false);
		return n;
	}
	if (um_idle(um, &th, &looked))
		goto check;
	n = trace_um_parse(buf, len, recs);
	if (n > 0)
		um_deliver_records(um, th, looked, recs, n, true);
	return n;

check:
	/*
	 * No instance records or follows any of it: the records are checked
	 * as a recorded write's would be (the same errors), not stored, and
	 * counted as disabled at once.
	 */
	n = trace_um_check(buf, len);
	if (n > 0)
		this_cpu_add(um->stats->disabled, n);
	return n;
}

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
	uo = kzalloc_obj(*uo, GFP_KERNEL_ACCOUNT);
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

static ssize_t um_events_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct um_open *uo = filp->private_data;
	struct trace_array *tr = uo->tr;
	struct um_batch *b = &uo->batch;
	int n;

	if (trace_um_tracing_off())
		return -EINVAL;
	if (!trace_um_markers_on(tr))
		return -EINVAL;
	if (!cnt)
		return 0;

	if (cnt > UM_WRITE_MAX) {
		n = -E2BIG;
		goto rejected;
	}
	if (test_and_set_bit_lock(0, &b->busy)) {
		b = kmalloc_obj(*b, GFP_KERNEL);
		if (!b)
			return -ENOMEM;
	}
	if (copy_from_user(b->buf, ubuf, cnt))
		n = -EFAULT;
	else
		n = um_deliver_write(tr, b->buf, cnt, b->recs);
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

const struct file_operations trace_um_events_fops = {
	.open		= um_events_open,
	.write		= um_events_write,
	.release	= um_events_release,
};
