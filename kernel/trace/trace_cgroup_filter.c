// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup filters for tracing instances: set_event_cgroup,
 * set_event_notrace_cgroup, set_ftrace_cgroup, set_ftrace_notrace_cgroup.
 *
 * A list is an immutable set of cgroup v2 cgroup ids, published with RCU
 * and replaced whole by every write, so a write that fails changes
 * nothing. It holds no reference: a listed cgroup that is removed is freed
 * as usual, and its id, never given to another cgroup, matches no task.
 * Matching is hierarchical: a task matches when its
 * cgroup or one of its ancestors is listed. The sets are hashed by cgroup
 * id and the task's ancestors are looked up in them, so the cost of a
 * decision grows with the depth of the task's cgroup, not with the length
 * of the list. The lists are asked where the pid lists are, in each
 * instance's own sched probes (trace_events.c, ftrace.c), and by the
 * migration hook below.
 */
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kernfs.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string_helpers.h>
#include <linux/trace_task_filter.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "trace_task_filter.h"

/* Largest write accepted, and most cgroups in one list. */
#define TRACE_CGROUP_WRITE_MAX	(256 * 1024)
#define TRACE_CGROUP_LIST_MAX	8192

struct trace_cgroup_set {
	refcount_t		ref;		/* the list's, and readers' */
	unsigned int		nr;
	unsigned int		hash_bits;
	u64			*hash;		/* 1 << hash_bits slots, 0: free */
	u64			ids[];		/* nr, in write order */
};

static bool cgset_is_notrace(int list)
{
	return list == TRACE_CG_EVENT_NO || list == TRACE_CG_FUNC_NO;
}

/* cgset_has_id - is cgroup @id itself in @set */
static bool cgset_has_id(const struct trace_cgroup_set *set, u64 id)
{
	unsigned int mask = (1U << set->hash_bits) - 1;
	unsigned int i = hash_64(id, set->hash_bits);

	/* The table is at most half full, so an empty slot ends the probe. */
	while (set->hash[i]) {
		if (set->hash[i] == id)
			return true;
		i = (i + 1) & mask;
	}
	return false;
}

/* cgset_matches - is @cgrp or one of its ancestors in @set */
static bool cgset_matches(const struct trace_cgroup_set *set,
			  struct cgroup *cgrp)
{
	int level;

	for (level = cgrp->level; level >= 0; level--) {
		if (cgset_has_id(set, cgroup_id(cgrp->ancestors[level])))
			return true;
	}
	return false;
}

/* cg_rejects - does list @list of @tr reject a task of @cgrp */
static bool cg_rejects(struct trace_array *tr, int list, struct cgroup *cgrp)
{
	struct trace_cgroup_set *set;

	set = rcu_dereference_check(tr->cgroups[list], rcu_read_lock_any_held());
	return set && cgset_matches(set, cgrp) == cgset_is_notrace(list);
}

/**
 * __trace_cgroup_ignore_task - do the cgroup lists of @tr reject @task
 * @tr: the instance
 * @list: TRACE_CG_EVENT or TRACE_CG_FUNC, with its notrace twin
 * @task: the task
 *
 * Context: an RCU read section of any kind (sched probes, IPIs).
 *
 * Return: true when the list or its twin rejects the task.
 */
bool __trace_cgroup_ignore_task(struct trace_array *tr, int list,
				struct task_struct *task)
{
	struct cgroup *cgrp;

	cgrp = task_dfl_cgroup(task);
	return cg_rejects(tr, list, cgrp) || cg_rejects(tr, list + 1, cgrp);
}

/**
 * __trace_cgroup_ignore_switch - do the event cgroup lists reject a switch
 * @tr: the instance
 * @prev: the task switched out
 * @next: the task switched in
 *
 * A switch is dropped only when one list rejects both tasks, as the pid
 * lists decide it. Context: the sched_switch probe.
 *
 * Return: true when set_event_cgroup or its twin rejects both tasks.
 */
bool __trace_cgroup_ignore_switch(struct trace_array *tr,
				  struct task_struct *prev,
				  struct task_struct *next)
{
	struct cgroup *p, *n;

	p = task_dfl_cgroup(prev);
	n = task_dfl_cgroup(next);
	return (cg_rejects(tr, TRACE_CG_EVENT, p) &&
		cg_rejects(tr, TRACE_CG_EVENT, n)) ||
	       (cg_rejects(tr, TRACE_CG_EVENT_NO, p) &&
		cg_rejects(tr, TRACE_CG_EVENT_NO, n));
}

/*
 * The instances with a cgroup list, for migrations: added and removed
 * under event_mutex, walked under RCU by the IPIs of
 * trace_task_filter_attach().
 */
static LIST_HEAD(trace_cgroup_instances);
DEFINE_STATIC_KEY_FALSE(trace_task_filter_key);

static bool cg_listed(struct trace_array *tr)
{
	return trace_cgroup_active(tr, TRACE_CG_EVENT) ||
	       trace_cgroup_active(tr, TRACE_CG_FUNC);
}

/*
 * cg_track - put @tr on trace_cgroup_instances (@on), or take it off.
 * An instance goes on before its first list is set and its running tasks
 * are decided, so that a migration either finds it there or has moved its
 * tasks before those decisions read their cgroups (the smp_mb() of
 * trace_task_filter_attach(), selftests/lkmm/attach-*.litmus); it comes
 * off after its last list is cleared.
 */
static void cg_track(struct trace_array *tr, bool on)
{
	lockdep_assert_held(&event_mutex);
	if (on) {
		list_add_rcu(&tr->cgroup_node, &trace_cgroup_instances);
		static_branch_inc(&trace_task_filter_key);
	} else {
		list_del_rcu(&tr->cgroup_node);
		static_branch_dec(&trace_task_filter_key);
	}
}

/* Decide this CPU's running task again in every instance with a list. */
static void cg_decide_current(void *unused)
{
	struct trace_array *tr;

	list_for_each_entry_rcu(tr, &trace_cgroup_instances, cgroup_node,
				rcu_read_lock_any_held()) {
		if (trace_cgroup_active(tr, TRACE_CG_EVENT))
			trace_event_task_filter_decide(tr);
		if (trace_cgroup_active(tr, TRACE_CG_FUNC))
			ftrace_task_filter_decide(tr);
	}
}

/**
 * trace_task_filter_attach - tasks moved between cgroups
 * @tset: the tasks of a committed migration
 *
 * Called by the cgroup core after the move. Every CPU that holds a moved
 * task decides its running task again in an IPI: a task being switched
 * in there may have read its old cgroup in the switch probe.
 */
void trace_task_filter_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *task;
	cpumask_var_t cpus;

	/*
	 * The moves' stores to task->cgroups before the read of the list: a
	 * write that adds a first list after this decides the moved tasks in
	 * its own IPIs, and sees their new cgroup then.
	 */
	smp_mb();
	if (list_empty(&trace_cgroup_instances))
		return;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		on_each_cpu(cg_decide_current, NULL, 1);
		return;
	}
	cgroup_taskset_for_each(task, css, tset)
		cpumask_set_cpu(task_cpu(task), cpus);
	cpumask_set_cpu(raw_smp_processor_id(), cpus);
	on_each_cpu_mask(cpus, cg_decide_current, NULL, true);
	free_cpumask_var(cpus);
}

/* cgset_put - drop a reference; the last one frees the set */
static void cgset_put(struct trace_cgroup_set *set)
{
	if (!set || !refcount_dec_and_test(&set->ref))
		return;
	kvfree(set->hash);
	kvfree(set);
}

/* cgset_build - a new set of the @nr ids in @ids (duplicates dropped) */
static struct trace_cgroup_set *cgset_build(const u64 *ids, unsigned int nr)
{
	struct trace_cgroup_set *set;
	unsigned int bits, mask, i;

	set = kvzalloc(struct_size(set, ids, nr), GFP_KERNEL);
	if (!set)
		return NULL;
	bits = max(ilog2(roundup_pow_of_two(nr * 2)), 1);
	mask = (1U << bits) - 1;
	refcount_set(&set->ref, 1);
	set->hash_bits = bits;
	set->hash = kvcalloc(1U << bits, sizeof(u64), GFP_KERNEL);
	if (!set->hash) {
		kvfree(set);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		unsigned int slot = hash_64(ids[i], bits);

		while (set->hash[slot] && set->hash[slot] != ids[i])
			slot = (slot + 1) & mask;
		if (set->hash[slot])
			continue;
		set->hash[slot] = ids[i];
		set->ids[set->nr++] = ids[i];
	}
	return set;
}

/*
 * cgroup_token_id - the cgroup id a word names: "id:N", or a cgroup path
 * as /proc/PID/cgroup shows it (from the writer's cgroup namespace). An
 * id that names no cgroup the writer's namespace sees is taken only when
 * @kept lists it already, so that a listing writes back unchanged.
 *
 * Return: 0 and the id in @id, or -errno.
 */
static int cgroup_token_id(const char *tok, const struct trace_cgroup_set *kept,
			   u64 *id)
{
	struct cgroup *cgrp;

	if (!strncmp(tok, "id:", 3)) {
		if (kstrtou64(tok + 3, 10, id) || !*id)
			return -EINVAL;
		cgrp = cgroup_get_from_id(*id);
		if (IS_ERR(cgrp))
			return kept && cgset_has_id(kept, *id) ? 0 : PTR_ERR(cgrp);
	} else if (tok[0] == '/') {
		cgrp = cgroup_get_from_path(tok);
		/* ENOTDIR: a file of a cgroup directory */
		if (IS_ERR(cgrp))
			return PTR_ERR(cgrp) == -ENOTDIR ? -EINVAL : PTR_ERR(cgrp);
	} else {
		return -EINVAL;
	}
	*id = cgroup_id(cgrp);
	cgroup_put(cgrp);
	return 0;
}

/* Words are separated by ASCII white space only, whatever the locale. */
static bool cg_is_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * cgroup_parse - the cgroup ids of every word of @buf, into @out. A word
 * that starts with '#' starts a comment, to the end of its line; octal
 * escapes (\040 for a space) stand for bytes a word may not hold, as
 * reading the file prints them. @kept: the list as it is (may be NULL).
 *
 * Return: the number of ids, or -errno.
 */
static int cgroup_parse(char *buf, const struct trace_cgroup_set *kept,
			u64 *out, unsigned int max)
{
	unsigned int nr = 0;
	char *p = buf;
	int err;

	while (*p) {
		char *tok;

		while (cg_is_blank(*p))
			p++;
		if (!*p)
			break;
		if (*p == '#') {
			p = strchrnul(p, '\n');
			continue;
		}
		tok = p;
		while (*p && !cg_is_blank(*p)) {
			/* Control bytes are never part of a word we print. */
			if ((u8)*p < ' ' || *p == 0x7f)
				return -EINVAL;
			p++;
		}
		if (*p)
			*p++ = '\0';
		if (strchr(tok, '\\'))
			string_unescape_inplace(tok, UNESCAPE_OCTAL);
		if (strlen(tok) >= PATH_MAX)
			return -EINVAL;
		if (nr >= max)
			return -E2BIG;
		err = cgroup_token_id(tok, kept, &out[nr]);
		if (err)
			return err;
		nr++;
	}
	return nr;
}

/*
 * Per open file: which list, whether O_TRUNC still has to replace it, and
 * whether a write was tried (then closing does not clear the list).
 */
struct trace_cgroup_open {
	struct trace_array	*tr;
	int			list;
	bool			replace;
	bool			tried;
};

static struct trace_cgroup_set *cg_list(struct trace_array *tr, int list)
{
	return rcu_dereference_protected(tr->cgroups[list],
					 lockdep_is_held(&event_mutex));
}

/*
 * cg_publish - make @set list @list of @tr and drop the old one.
 * The caller holds event_mutex; it is released here.
 */
static void cg_publish(struct trace_array *tr, int list,
		       struct trace_cgroup_set *set)
{
	struct trace_cgroup_set *old = cg_list(tr, list);
	bool was_listed = cg_listed(tr);

	lockdep_assert_held(&event_mutex);
	if (set && !was_listed)
		cg_track(tr, true);
	if (list == TRACE_CG_FUNC || list == TRACE_CG_FUNC_NO) {
		ftrace_cgroup_publish(tr, list, set);
	} else {
		bool was_active = trace_event_task_filter_active(tr);

		rcu_assign_pointer(tr->cgroups[list], set);
		trace_event_task_filter_update(tr, was_active);
	}
	if (was_listed && !cg_listed(tr))
		cg_track(tr, false);
	mutex_unlock(&event_mutex);

	if (old) {
		/* Probes and gates may still read the old set. */
		tracepoint_synchronize_unregister();
		cgset_put(old);
	}
}

/* cg_get_list - a reference to list @list of @tr as it is now, or NULL */
static struct trace_cgroup_set *cg_get_list(struct trace_array *tr, int list)
{
	struct trace_cgroup_set *set;

	mutex_lock(&event_mutex);
	set = cg_list(tr, list);
	if (set)
		refcount_inc(&set->ref);
	mutex_unlock(&event_mutex);
	return set;
}

/*
 * cg_read_words - copy a write of @cnt bytes from @ubuf and resolve its
 * words into @ids, which has room for TRACE_CGROUP_LIST_MAX
 *
 * Return: the number of ids, or a negative errno.
 */
static int cg_read_words(const char __user *ubuf, size_t cnt,
			 const struct trace_cgroup_set *kept, u64 *ids)
{
	char *buf;
	int nr;

	if (cnt > TRACE_CGROUP_WRITE_MAX)
		return -E2BIG;
	buf = kvmalloc(cnt + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, cnt)) {
		nr = -EFAULT;
	} else {
		buf[cnt] = '\0';
		if (strlen(buf) != cnt)		/* NUL bytes */
			nr = -EINVAL;
		else
			nr = cgroup_parse(buf, kept, ids, TRACE_CGROUP_LIST_MAX);
	}
	kvfree(buf);
	return nr;
}

/*
 * cg_update - replace list @list of @tr with the @nr ids in @ids, or add
 * them to it (@ids has room for TRACE_CGROUP_LIST_MAX)
 *
 * Return: 0, or -E2BIG or -ENOMEM with the list as it was.
 */
static int cg_update(struct trace_array *tr, int list, bool replace,
		     u64 *ids, int nr)
{
	struct trace_cgroup_set *old, *set = NULL;
	int ret = 0;

	mutex_lock(&event_mutex);
	old = replace ? NULL : cg_list(tr, list);
	if (old) {
		/* The list's ids first, in their order, then the new ones */
		if (old->nr + nr > TRACE_CGROUP_LIST_MAX) {
			ret = -E2BIG;
			goto unlock;
		}
		memmove(ids + old->nr, ids, nr * sizeof(*ids));
		memcpy(ids, old->ids, old->nr * sizeof(*ids));
		nr += old->nr;
	}
	if (!nr && !replace)
		goto unlock;		/* adding nothing changes nothing */
	if (nr) {
		set = cgset_build(ids, nr);
		if (!set) {
			ret = -ENOMEM;
			goto unlock;
		}
	}
	cg_publish(tr, list, set);	/* releases event_mutex */
	return 0;
unlock:
	mutex_unlock(&event_mutex);
	return ret;
}

static ssize_t trace_cgroup_write(struct file *filp, const char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	struct seq_file *m = filp->private_data;
	struct trace_cgroup_open *o = m->private;
	struct trace_cgroup_set *kept;
	bool replace;
	u64 *ids;
	int ret;

	if (!cnt)
		return 0;

	/*
	 * The first write that succeeds after an O_TRUNC open replaces the
	 * list, later ones append; a write that fails changes nothing, and
	 * leaves the replace to the next write.
	 */
	replace = o->replace;
	o->tried = true;
	ids = kvmalloc_array(TRACE_CGROUP_LIST_MAX, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	kept = cg_get_list(o->tr, o->list);
	ret = cg_read_words(ubuf, cnt, kept, ids);
	cgset_put(kept);
	if (ret >= 0)
		ret = cg_update(o->tr, o->list, replace, ids, ret);
	kvfree(ids);
	if (ret)
		return ret;
	o->replace = false;
	*ppos += cnt;
	return cnt;
}

/*
 * cg_show_path - @path as a word that a write reads back: every byte
 * outside printable ASCII, and the backslash, as an octal escape
 */
static void cg_show_path(struct seq_file *m, const char *path)
{
	for (; *path; path++) {
		u8 c = *path;

		if (c <= ' ' || c >= 0x7f || c == '\\')
			seq_printf(m, "\\%03o", c);
		else
			seq_putc(m, c);
	}
}

/* cg_show_id - one listed id, as a word that writes back unchanged */
static void cg_show_id(struct seq_file *m, u64 id, char *path)
{
	struct cgroup *cgrp = cgroup_get_from_id(id);
	struct kernfs_node *kn;
	int len;

	if (!IS_ERR(cgrp)) {
		/* Seen from the reader's cgroup namespace: its path there */
		len = cgroup_path_ns(cgrp, path, PATH_MAX,
				     current->nsproxy->cgroup_ns);
		cgroup_put(cgrp);
		if (len > 0 && len < PATH_MAX) {
			cg_show_path(m, path);
			seq_putc(m, '\n');
			return;
		}
	}
	/*
	 * Removed: it matches no task any more, and nothing can name it; a
	 * comment, which a write of the listing leaves out. Otherwise the
	 * cgroup is outside the reader's namespace, or its path too long.
	 */
	kn = kernfs_find_and_get_node_by_id(cgrp_dfl_root.kf_root, id);
	if (!kn) {
		seq_printf(m, "# id:%llu (removed)\n", id);
		return;
	}
	kernfs_put(kn);
	seq_printf(m, "id:%llu\n", id);
}

static int trace_cgroup_show(struct seq_file *m, void *v)
{
	struct trace_cgroup_open *o = m->private;
	struct trace_cgroup_set *set;
	unsigned int i;
	char *path;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	/*
	 * Hold the set, not event_mutex, while its paths are formatted: each
	 * takes the cgroup core's locks, and a list has up to 8192 entries.
	 */
	set = cg_get_list(o->tr, o->list);
	for (i = 0; set && i < set->nr; i++)
		cg_show_id(m, set->ids[i], path);
	cgset_put(set);
	kfree(path);
	return 0;
}

static int trace_cgroup_open(struct inode *inode, struct file *filp, int list)
{
	struct trace_array *tr = inode->i_private;
	struct trace_cgroup_open *o;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;
	o = kzalloc_obj(*o, GFP_KERNEL);
	if (!o) {
		trace_array_put(tr);
		return -ENOMEM;
	}
	o->tr = tr;
	o->list = list;
	o->replace = (filp->f_mode & FMODE_WRITE) && (filp->f_flags & O_TRUNC);
	ret = single_open(filp, trace_cgroup_show, o);
	if (ret) {
		kfree(o);
		trace_array_put(tr);
	}
	return ret;
}

static int trace_cgroup_release(struct inode *inode, struct file *filp)
{
	struct seq_file *m = filp->private_data;
	struct trace_cgroup_open *o = m->private;
	struct trace_array *tr = o->tr;

	/* Opened with O_TRUNC and no write tried: the list is cleared. */
	if (o->replace && !o->tried) {
		mutex_lock(&event_mutex);
		if (cg_list(tr, o->list))
			cg_publish(tr, o->list, NULL);
		else
			mutex_unlock(&event_mutex);
	}
	kfree(o);
	trace_array_put(tr);
	return single_release(inode, filp);
}

#define TRACE_CGROUP_FOPS(name, list)					\
static int trace_cgroup_open_##name(struct inode *inode,		\
				    struct file *filp)			\
{									\
	return trace_cgroup_open(inode, filp, list);			\
}									\
static const struct file_operations trace_cgroup_##name##_fops = {	\
	.open		= trace_cgroup_open_##name,			\
	.read		= seq_read,					\
	.write		= trace_cgroup_write,				\
	.llseek		= tracing_lseek,				\
	.release	= trace_cgroup_release,				\
}

TRACE_CGROUP_FOPS(event, TRACE_CG_EVENT);
TRACE_CGROUP_FOPS(event_no, TRACE_CG_EVENT_NO);
#ifdef CONFIG_FUNCTION_TRACER
TRACE_CGROUP_FOPS(func, TRACE_CG_FUNC);
TRACE_CGROUP_FOPS(func_no, TRACE_CG_FUNC_NO);
#endif

/**
 * trace_cgroup_filter_create_files - the cgroup files of an instance
 * @tr: the instance (or the top level)
 * @parent: its tracefs directory
 *
 * Return: 0; a file that cannot be created is warned about by tracefs.
 */
int trace_cgroup_filter_create_files(struct trace_array *tr,
				     struct dentry *parent)
{
	trace_create_file("set_event_cgroup", TRACE_MODE_WRITE, parent, tr,
			  &trace_cgroup_event_fops);
	trace_create_file("set_event_notrace_cgroup", TRACE_MODE_WRITE, parent,
			  tr, &trace_cgroup_event_no_fops);
#ifdef CONFIG_FUNCTION_TRACER
	trace_create_file("set_ftrace_cgroup", TRACE_MODE_WRITE, parent, tr,
			  &trace_cgroup_func_fops);
	trace_create_file("set_ftrace_notrace_cgroup", TRACE_MODE_WRITE,
			  parent, tr, &trace_cgroup_func_no_fops);
#endif
	return 0;
}

/**
 * trace_cgroup_filter_clear - drop every cgroup list of a removed instance
 * @tr: the instance
 *
 * Context: event_mutex held. The probes go with the last list, as for a
 * write that clears it, and the sets are freed once no probe or gate can
 * read them.
 */
void trace_cgroup_filter_clear(struct trace_array *tr)
{
	struct trace_cgroup_set *old[TRACE_CG_NR_LISTS];
	bool was_listed = cg_listed(tr);
	bool was_active = trace_event_task_filter_active(tr);
	int i;

	lockdep_assert_held(&event_mutex);
	if (!was_listed)
		return;
	for (i = 0; i < TRACE_CG_NR_LISTS; i++)
		old[i] = cg_list(tr, i);
	RCU_INIT_POINTER(tr->cgroups[TRACE_CG_EVENT], NULL);
	RCU_INIT_POINTER(tr->cgroups[TRACE_CG_EVENT_NO], NULL);
	trace_event_task_filter_update(tr, was_active);
	if (old[TRACE_CG_FUNC])
		ftrace_cgroup_publish(tr, TRACE_CG_FUNC, NULL);
	if (old[TRACE_CG_FUNC_NO])
		ftrace_cgroup_publish(tr, TRACE_CG_FUNC_NO, NULL);
	cg_track(tr, false);
	tracepoint_synchronize_unregister();
	for (i = 0; i < TRACE_CG_NR_LISTS; i++)
		cgset_put(old[i]);
}
