// SPDX-License-Identifier: GPL-2.0
/*
 * User-space markers: atrace-style records ("B|pid|name", "E|pid", ...)
 * written to an instance's user_events file, or passed to prctl(), become
 * user_markers events in the instance's own ring buffer, under its clock,
 * its pid and cgroup filters and a per thread group rate limit. See
 * Documentation/trace/user-markers.rst.
 *
 * This file makes and removes an instance's markers and their files:
 * user_events (trace_user_markers_deliver.c), its rate limits, its
 * counters, its enable state and its prctl option.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/trace.h>
#include <linux/version.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "trace_user_markers.h"

#define UM_RATE_MAX		10000000
#define UM_BURST_MAX		1000000
#define UM_RATE_DEFAULT		100000
#define UM_BURST_DEFAULT	10000
/* All writers together: ten writers at the default rate */
#define UM_TOTAL_RATE_DEFAULT	1000000
#define UM_TOTAL_BURST_DEFAULT	100000

static int um_release(struct inode *inode, struct file *filp)
{
	trace_array_put(inode->i_private);
	return 0;
}

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

/*
 * user_events_enabled: the page of trace_user_markers_instances.c. An open
 * file holds the page, not the instance, so that a mapping keeps no
 * instance from being removed: the instance zeroes its word as it goes,
 * and the page is freed with the last file or mapping that holds it.
 */
static int um_enabled_open(struct inode *inode, struct file *filp)
{
	struct trace_array *tr = inode->i_private;
	struct page *page;
	int ret;

	/* A mapping of the page must not write it */
	if (filp->f_mode & FMODE_WRITE)
		return -EACCES;
	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;
	page = tr->user_markers->enabled_page;
	get_page(page);
	filp->private_data = page;
	trace_array_put(tr);
	return 0;
}

static int um_enabled_release(struct inode *inode, struct file *filp)
{
	put_page(filp->private_data);
	return 0;
}

static ssize_t um_enabled_read(struct file *filp, char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	u32 word = READ_ONCE(*(u32 *)page_address(filp->private_data));
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

/*
 * The page is given at each fault, not inserted once, so that a mapping
 * finds it again after MADV_DONTNEED, mremap() or fork().
 */
static vm_fault_t um_enabled_fault(struct vm_fault *vmf)
{
	struct page *page = vmf->vma->vm_file->private_data;

	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct um_enabled_vm_ops = {
	.fault		= um_enabled_fault,
};

/*
 * The page, read-only for good: one page at offset 0. A writable private
 * mapping is refused (EPERM) and a mapping can never become writable, as
 * a private copy would silently stop following the word.
 */
static int um_enabled_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTEXPAND, VM_MAYWRITE);
#else
	vma->vm_flags = (vma->vm_flags | VM_DONTEXPAND) & ~VM_MAYWRITE;
#endif
	vma->vm_ops = &um_enabled_vm_ops;
	return 0;
}

static const struct file_operations um_enabled_fops = {
	.open		= um_enabled_open,
	.read		= um_enabled_read,
	.mmap		= um_enabled_mmap,
	.release	= um_enabled_release,
	.llseek		= generic_file_llseek,
};

/* A marker state that was never published */
static void um_free(struct trace_user_markers *um)
{
	if (um->enabled_page)
		__free_page(um->enabled_page);
	free_percpu(um->stats);
	kfree(um);
}

/**
 * trace_user_markers_create - the user_events files of an instance
 * @tr: a new instance (or the top level), its events already created
 * @parent: its tracefs directory
 *
 * An instance made with a list of event systems that leaves out
 * user_markers (trace_array_get_by_name() with @systems) has none of the
 * events, and gets no user_events files.
 *
 * Return: 0, also for such an instance, or -ENOMEM.
 */
int trace_user_markers_create(struct trace_array *tr, struct dentry *parent)
{
	struct trace_user_markers *um;
	bool global;
	int i;

	um = kzalloc_obj(*um, GFP_KERNEL);
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
	if (i < UM_NR_EVENTS) {
		um_free(um);
		return 0;
	}

	trace_create_file("user_events", 0220, parent, tr,
			  &trace_um_events_fops);
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

	trace_um_instance_add(um);
	return 0;

fail:
	um_free(um);
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
	trace_um_instance_del(um);

	trace_um_state_free(um);
	tr->user_markers = NULL;
	/* Open files and mappings of user_events_enabled may hold it still */
	put_page(um->enabled_page);
	free_percpu(um->stats);
	kfree(um);
}
