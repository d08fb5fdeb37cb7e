// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup filters for tracing instances: set_event_cgroup,
 * set_event_notrace_cgroup, set_ftrace_cgroup, set_ftrace_notrace_cgroup.
 *
 * A list is an immutable set of referenced cgroup v2 cgroups, published
 * with RCU and replaced whole by every write, so a write that fails
 * changes nothing. Matching is hierarchical: a task matches when its
 * cgroup or one of its ancestors is listed. The sets are hashed by cgroup
 * id and the task's ancestors are looked up in them, so the cost of a
 * decision grows with the depth of the task's cgroup, not with the length
 * of the list; each CPU also remembers the verdict of the cgroup it last
 * decided, which a context switch between tasks of one cgroup reuses.
 */
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/kernfs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/refcount.h>
#include <linux/nsproxy.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string_helpers.h>
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
	u64			*ids;		/* 1 << hash_bits slots, 0: free */
	struct cgroup		*cgrps[];	/* nr, referenced, write order */
};

static const u8 trace_cgroup_rej_bit[TRACE_CG_NR_LISTS] = {
	[TRACE_CG_EVENT]	= TF_REJ_EV_CG,
	[TRACE_CG_EVENT_NO]	= TF_REJ_EV_NOCG,
	[TRACE_CG_FUNC]		= TF_REJ_FN_CG,
	[TRACE_CG_FUNC_NO]	= TF_REJ_FN_NOCG,
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
	while (set->ids[i]) {
		if (set->ids[i] == id)
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

/**
 * trace_cgroup_rej - the cgroup rules of @f that reject @task
 * @f: the instance's context filter
 * @task: a task being switched in, woken, or running on this CPU
 *
 * Context: an RCU-sched read section (sched probes, IPIs).
 *
 * Return: TF_REJ_*_CG and TF_REJ_*_NOCG bits.
 */
u8 trace_cgroup_rej(struct trace_task_filter *f, struct task_struct *task)
{
	struct cgroup *cgrp = task_dfl_cgroup(task);
	u8 rej = 0;
	int i;

	for (i = 0; i < TRACE_CG_NR_LISTS; i++) {
		struct trace_cgroup_set *set = rcu_dereference_sched(f->cgroups[i]);

		if (set && cgset_matches(set, cgrp) == cgset_is_notrace(i))
			rej |= trace_cgroup_rej_bit[i];
	}
	return rej;
}

/**
 * trace_cgroup_rules - the cgroup rules an instance has configured
 * @f: the instance's context filter (may be NULL)
 *
 * Return: TF_REJ_*_CG and TF_REJ_*_NOCG bits of the non-empty lists.
 */
u8 trace_cgroup_rules(struct trace_task_filter *f)
{
	u8 rules = 0;
	int i;

	if (!f)
		return 0;
	for (i = 0; i < TRACE_CG_NR_LISTS; i++) {
		if (rcu_access_pointer(f->cgroups[i]))
			rules |= trace_cgroup_rej_bit[i];
	}
	return rules;
}

/**
 * trace_task_function_cgroups - does @tr filter the function tracer by cgroup
 * @tr: the instance
 *
 * Return: true when set_ftrace_cgroup or set_ftrace_notrace_cgroup is set.
 */
bool trace_task_function_cgroups(struct trace_array *tr)
{
	return READ_ONCE(tr->task_filter) &&
	       (trace_cgroup_rules(tr->task_filter) &
		(TF_REJ_FN_CG | TF_REJ_FN_NOCG));
}

/* cgset_put - drop a reference; the last one frees the set */
static void cgset_put(struct trace_cgroup_set *set)
{
	unsigned int i;

	if (!set || !refcount_dec_and_test(&set->ref))
		return;
	for (i = 0; i < set->nr; i++)
		cgroup_put(set->cgrps[i]);
	kvfree(set->ids);
	kvfree(set);
}

/*
 * cgset_build - a new set of @nr cgroups, taking over their references
 * (duplicates are dropped and their references put).
 */
static struct trace_cgroup_set *cgset_build(struct cgroup **cgrps,
					    unsigned int nr)
{
	struct trace_cgroup_set *set;
	unsigned int bits, i;

	set = kvzalloc(struct_size(set, cgrps, nr), GFP_KERNEL);
	if (!set)
		return NULL;
	bits = max(ilog2(roundup_pow_of_two(nr * 2)), 1);
	refcount_set(&set->ref, 1);
	set->hash_bits = bits;
	set->ids = kvcalloc(1U << bits, sizeof(u64), GFP_KERNEL);
	if (!set->ids) {
		kvfree(set);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		u64 id = cgroup_id(cgrps[i]);
		unsigned int mask = (1U << bits) - 1;
		unsigned int slot = hash_64(id, bits);

		while (set->ids[slot] && set->ids[slot] != id)
			slot = (slot + 1) & mask;
		if (set->ids[slot]) {
			cgroup_put(cgrps[i]);
			continue;
		}
		set->ids[slot] = id;
		set->cgrps[set->nr++] = cgrps[i];
	}
	return set;
}

/* cgroup_from_fs_path - a cgroup2 directory named by a file system path */
static struct cgroup *cgroup_from_fs_path(const char *name)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;
	struct path path;
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, &path);
	if (ret)
		return ERR_PTR(ret == -ENOTDIR ? -EINVAL : ret);
	/* Fails for anything that is not a live cgroup directory. */
	css = css_tryget_online_from_dir(path.dentry, NULL);
	path_put(&path);
	if (IS_ERR(css))
		return ERR_PTR(-EINVAL);
	cgrp = css->cgroup;
	if (cgrp->root != &cgrp_dfl_root) {
		css_put(css);
		return ERR_PTR(-EINVAL);	/* a cgroup v1 directory */
	}
	cgroup_get(cgrp);
	css_put(css);
	return cgrp;
}

/*
 * cgroup_from_token - resolve one word of a write: "id:N", a cgroup path
 * as /proc/PID/cgroup shows it, or a path under the cgroup2 mount.
 */
static struct cgroup *cgroup_from_token(const char *tok)
{
	struct cgroup *cgrp;
	u64 id;

	if (!strncmp(tok, "id:", 3)) {
		if (kstrtou64(tok + 3, 10, &id) || !id)
			return ERR_PTR(-EINVAL);
		return cgroup_get_from_id(id);
	}
	if (tok[0] != '/')
		return ERR_PTR(-EINVAL);
	cgrp = cgroup_get_from_path(tok);
	if (!IS_ERR(cgrp))
		return cgrp;
	return cgroup_from_fs_path(tok);
}

/*
 * cgroup_parse - resolve every word of @buf into @out (referenced). A word
 * that starts with '#' starts a comment, to the end of its line; octal
 * escapes (\040 for a space) stand for the bytes a path may hold that a
 * word may not, as reading the file prints them.
 * Return: the number of cgroups, or -errno with no reference held.
 */
static int cgroup_parse(char *buf, struct cgroup **out, unsigned int max)
{
	unsigned int nr = 0;
	char *p = buf;
	int err = 0;

	while (*p) {
		char *tok;
		struct cgroup *cgrp;

		while (*p && isspace(*p))
			p++;
		if (!*p)
			break;
		if (*p == '#') {
			p = strchrnul(p, '\n');
			continue;
		}
		tok = p;
		while (*p && !isspace(*p)) {
			/* Control bytes are never part of a path we print. */
			if (iscntrl(*p)) {
				err = -EINVAL;
				goto fail;
			}
			p++;
		}
		if (*p)
			*p++ = '\0';
		if (strchr(tok, '\\'))
			string_unescape_inplace(tok, UNESCAPE_OCTAL);
		if (strlen(tok) >= PATH_MAX) {
			err = -EINVAL;
			goto fail;
		}
		if (nr >= max) {
			err = -E2BIG;
			goto fail;
		}
		cgrp = cgroup_from_token(tok);
		if (IS_ERR(cgrp)) {
			err = PTR_ERR(cgrp);
			/* ENOTDIR: a path to a file in a cgroup folder */
			if (err == -ENOTDIR)
				err = -EINVAL;
			goto fail;
		}
		out[nr++] = cgrp;
	}
	return nr;
fail:
	while (nr)
		cgroup_put(out[--nr]);
	return err;
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
	return rcu_dereference_protected(tr->task_filter->cgroups[list],
					 lockdep_is_held(&event_mutex));
}

/*
 * cg_publish - make @set list @list of @tr and drop the old one.
 * The caller holds event_mutex; it is released here, also on failure.
 *
 * Return: 0, or -ENOMEM when the instance's verdict state cannot be made
 * for a first rule (@set is then dropped and nothing changes).
 */
static int cg_publish(struct trace_array *tr, int list,
		      struct trace_cgroup_set *set)
{
	struct trace_cgroup_set *old = cg_list(tr, list);
	int ret = 0;

	lockdep_assert_held(&event_mutex);
	if (set)
		ret = trace_task_filter_prepare(tr);
	if (ret) {
		mutex_unlock(&event_mutex);
		cgset_put(set);
		return ret;
	}
	rcu_assign_pointer(tr->task_filter->cgroups[list], set);
	trace_task_filter_update_locked(tr);
	mutex_unlock(&event_mutex);

	if (list == TRACE_CG_FUNC || list == TRACE_CG_FUNC_NO)
		ftrace_task_filter_changed(tr);
	if (old) {
		/* Probes and gates may still read the old set. */
		tracepoint_synchronize_unregister();
		cgset_put(old);
	}
	return 0;
}

/*
 * cg_read_words - copy a write of @cnt bytes from @ubuf and resolve its
 * words into @cgrps, which has room for TRACE_CGROUP_LIST_MAX
 *
 * Return: the number of cgroups, each with a reference, or a negative
 * errno with none held.
 */
static int cg_read_words(const char __user *ubuf, size_t cnt,
			 struct cgroup **cgrps)
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
			nr = cgroup_parse(buf, cgrps, TRACE_CGROUP_LIST_MAX);
	}
	kvfree(buf);
	return nr;
}

/*
 * cg_prepend_old - put the cgroups of @old, each with a reference of its
 * own, before the @nr in @cgrps
 *
 * Return: how many @cgrps then holds, or -E2BIG (and @cgrps is as it was).
 */
static int cg_prepend_old(struct trace_cgroup_set *old, struct cgroup **cgrps,
			  int nr)
{
	unsigned int i;

	if (!old)
		return nr;
	if (old->nr + nr > TRACE_CGROUP_LIST_MAX)
		return -E2BIG;
	memmove(cgrps + old->nr, cgrps, nr * sizeof(*cgrps));
	for (i = 0; i < old->nr; i++) {
		cgrps[i] = old->cgrps[i];
		cgroup_get(cgrps[i]);
	}
	return old->nr + nr;
}

/*
 * cg_update - replace list @list of @tr with the @nr cgroups in @cgrps, or
 * add them to it, taking over their references (@cgrps has room for
 * TRACE_CGROUP_LIST_MAX)
 *
 * Return: 0, or -E2BIG or -ENOMEM with the list as it was.
 */
static int cg_update(struct trace_array *tr, int list, bool replace,
		     struct cgroup **cgrps, int nr)
{
	struct trace_cgroup_set *set = NULL;
	int total;

	mutex_lock(&event_mutex);
	total = cg_prepend_old(replace ? NULL : cg_list(tr, list), cgrps, nr);
	if (total < 0)
		goto fail;
	if (!total && !replace) {
		/* Adding nothing changes nothing */
		mutex_unlock(&event_mutex);
		return 0;
	}
	if (total) {
		set = cgset_build(cgrps, total);
		if (!set) {
			nr = total;
			total = -ENOMEM;
			goto fail;
		}
	}
	return cg_publish(tr, list, set);	/* releases event_mutex */
fail:
	mutex_unlock(&event_mutex);
	while (nr)
		cgroup_put(cgrps[--nr]);
	return total;
}

static ssize_t trace_cgroup_write(struct file *filp, const char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	struct seq_file *m = filp->private_data;
	struct trace_cgroup_open *o = m->private;
	struct cgroup **cgrps;
	bool replace;
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
	cgrps = kvmalloc_array(TRACE_CGROUP_LIST_MAX, sizeof(*cgrps), GFP_KERNEL);
	if (!cgrps)
		return -ENOMEM;
	ret = cg_read_words(ubuf, cnt, cgrps);
	if (ret >= 0)
		ret = cg_update(o->tr, o->list, replace, cgrps, ret);
	kvfree(cgrps);
	if (ret)
		return ret;
	o->replace = false;
	*ppos += cnt;
	return cnt;
}

/*
 * cg_show_path - @path as a word that a write reads back: white space,
 * control bytes and backslashes as octal escapes
 */
static void cg_show_path(struct seq_file *m, const char *path)
{
	for (; *path; path++) {
		u8 c = *path;

		if (c <= ' ' || c == '\\' || c == 0x7f)
			seq_printf(m, "\\%03o", c);
		else
			seq_putc(m, c);
	}
}

static int trace_cgroup_show(struct seq_file *m, void *v)
{
	struct trace_cgroup_open *o = m->private;
	struct trace_cgroup_set *set;
	char *path;
	unsigned int i;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	/*
	 * Hold the set, not event_mutex, while its paths are formatted: each
	 * takes the cgroup core's locks, and a list has up to 8192 entries.
	 */
	mutex_lock(&event_mutex);
	set = cg_list(o->tr, o->list);
	if (set)
		refcount_inc(&set->ref);
	mutex_unlock(&event_mutex);

	for (i = 0; set && i < set->nr; i++) {
		struct cgroup *cgrp = set->cgrps[i];
		int len = cgroup_path_ns(cgrp, path, PATH_MAX,
					 current->nsproxy->cgroup_ns);
		bool removed = !(cgrp->self.flags & CSS_ONLINE);

		/*
		 * Removed: it stays listed and matches no task, but nothing
		 * can name it any more, so it is shown as a comment, which a
		 * write of the listing leaves out.
		 */
		if (removed)
			seq_printf(m, "# id:%llu ", cgroup_id(cgrp));
		/* Outside the reader's cgroup namespace, or too long. */
		if (len < 0 || len >= PATH_MAX)
			seq_printf(m, "id:%llu", cgroup_id(cgrp));
		else
			cg_show_path(m, path);
		seq_puts(m, removed ? " (deleted)\n" : "\n");
	}
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
			WARN_ON_ONCE(cg_publish(tr, o->list, NULL));
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
TRACE_CGROUP_FOPS(func, TRACE_CG_FUNC);
TRACE_CGROUP_FOPS(func_no, TRACE_CG_FUNC_NO);

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
 * Context: event_mutex held. The caller updates the verdicts and waits for
 * readers before anything is freed; the sets are freed here after that.
 */
void trace_cgroup_filter_clear(struct trace_array *tr)
{
	struct trace_cgroup_set *old[TRACE_CG_NR_LISTS];
	int i;

	lockdep_assert_held(&event_mutex);
	for (i = 0; i < TRACE_CG_NR_LISTS; i++) {
		old[i] = cg_list(tr, i);
		RCU_INIT_POINTER(tr->task_filter->cgroups[i], NULL);
	}
	trace_task_filter_update_locked(tr);
	if (old[TRACE_CG_FUNC] || old[TRACE_CG_FUNC_NO])
		ftrace_task_filter_changed(tr);
	tracepoint_synchronize_unregister();
	for (i = 0; i < TRACE_CG_NR_LISTS; i++)
		cgset_put(old[i]);
}
