// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs_util.c - find tracefs, read and write instance files through
 * libtracefs, and turn the kernel's errors into messages a user can act on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgtrace.h"
#include "tracefs_util.h"

const char * const tfs_pid_files[4] = {
	"set_event_pid", "set_event_notrace_pid",
	"set_ftrace_pid", "set_ftrace_notrace_pid",
};

const char * const tfs_cgroup_files[4] = {
	"set_event_cgroup", "set_event_notrace_cgroup",
	"set_ftrace_cgroup", "set_ftrace_notrace_cgroup",
};

/* file_config - the kernel option that provides a tracefs file */
static const char *file_config(const char *file)
{
	if (strstr(file, "ftrace") && strstr(file, "cgroup"))
		return "CONFIG_TRACE_CGROUP_FILTER and CONFIG_FUNCTION_TRACER";
	if (strstr(file, "cgroup"))
		return "CONFIG_TRACE_CGROUP_FILTER";
	if (strstr(file, "user_events") || strstr(file, "user_markers"))
		return "CONFIG_TRACE_USER_MARKERS";
	if (strstr(file, "ftrace"))
		return "CONFIG_FUNCTION_TRACER";
	return "the tracing option that provides it";
}

/* the tracing directory in use, and the handle of its top level */
static const char *tfs_dir;
static struct tracefs_instance *tfs_top;

/* inst - the handle to use: NULL is the top level of tfs_dir */
#define inst_or_top(inst)	((inst) ? (inst) : tfs_top)

/*
 * tfs_init - find the tracing directory and check that we may use it:
 * @write for changing filters and making instances, else read access.
 *
 * CGTRACE_TRACEFS in the environment points cgtrace at another directory
 * (the tests use it to fake a kernel without some feature). Every file
 * access goes through a libtracefs instance handle bound to that
 * directory, the top level included (tracefs_instance_alloc(dir, NULL)).
 */
int tfs_init(bool write)
{
	const char *dir = getenv("CGTRACE_TRACEFS");
	char path[4096];

	if (dir && *dir) {
		if (tracefs_set_tracing_dir((char *)dir)) {
			err_msg("cannot use %s as the tracing directory", dir);
			return -1;
		}
	}
	dir = tracefs_tracing_dir();
	if (!dir) {
		err_msg("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	tfs_dir = dir;
	tfs_top = tracefs_instance_alloc(dir, NULL);
	if (!tfs_top) {
		err_msg("cannot use %s: %s", dir, strerror(errno));
		return -1;
	}
	if (write)
		snprintf(path, sizeof(path), "%s/instances", dir);
	else
		snprintf(path, sizeof(path), "%s", dir);
	if (access(path, write ? W_OK : R_OK | X_OK)) {
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			err_msg(write ? "no permission to write %s: run cgtrace as root" :
				"no permission to read %s: run cgtrace as root, or as a member of\n"
				"         the group tracefs was mounted with (mount -o remount,gid=GID,mode=0750)",
				path);
		else
			err_msg("%s: %s (is this a tracefs directory?)", path,
				strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * tfs_instance_exists - is there an instance of that name in the tracing
 * directory in use (tracefs_instance_exists() looks in the default one)
 */
bool tfs_instance_exists(const char *name)
{
	char *sub = xasprintf("instances/%s", name);
	bool ret = tracefs_dir_exists(tfs_top, sub);

	free(sub);
	return ret;
}

/* instance_error - why an instance could not be made, and what to do */
static void instance_error(const char *name, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case EROFS:
		err_msg("cannot make tracing instance %s: %s: run cgtrace as root",
			name, strerror(err));
		break;
	case ENOENT:
		err_msg("cannot make tracing instance %s: %s/instances does not exist (is %s tracefs?)",
			name, tfs_dir, tfs_dir);
		break;
	case ENOMEM:
	case ENOSPC:
		err_msg("cannot make tracing instance %s: %s: the kernel has no memory for another\n"
			"         instance's buffers: remove an instance (rmdir %s/instances/NAME)",
			name, strerror(err), tfs_dir);
		break;
	default:
		err_msg("cannot make tracing instance %s in %s/instances: %s",
			name, tfs_dir, strerror(err));
	}
}

/*
 * tfs_instance_get - a handle on an instance, made if @create and missing
 * (then *@created is true: libtracefs says whether it made it)
 *
 * NULL, "" and "top" name the top level: a handle with no name.
 */
int tfs_instance_get(const char *name, bool create,
		     struct tracefs_instance **inst, bool *created)
{
	*inst = NULL;
	if (created)
		*created = false;
	if (!name || !*name || !strcmp(name, "top")) {
		*inst = tracefs_instance_alloc(tfs_dir, NULL);
		if (!*inst)
			err_msg("cannot open the top tracing level: %s", strerror(errno));
		return *inst ? 0 : -1;
	}
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		err_msg("%s: an instance name cannot hold '/' or be . or ..", name);
		return -1;
	}
	if (!create) {
		if (!tfs_instance_exists(name)) {
			err_msg("no tracing instance named %s (ls %s/instances)",
				name, tfs_dir);
			return -1;
		}
		*inst = tracefs_instance_alloc(tfs_dir, name);
		if (!*inst)
			err_msg("cannot open tracing instance %s: %s", name,
				strerror(errno));
		return *inst ? 0 : -1;
	}
	errno = 0;
	*inst = tracefs_instance_create(name);
	if (!*inst) {
		instance_error(name, errno ? errno : EIO);
		return -1;
	}
	if (created)
		*created = tracefs_instance_is_new(*inst);
	return 0;
}

/* tfs_instance_put - free an instance handle, removing it if asked */
void tfs_instance_put(struct tracefs_instance *inst, bool destroy)
{
	if (!inst)
		return;
	if (destroy && !tfs_is_top(inst) && tracefs_instance_destroy(inst))
		err_msg("cannot remove instance %s: %s",
			tracefs_instance_get_name(inst), strerror(errno));
	tracefs_instance_free(inst);
}

/* tfs_is_top - is this the handle of the top level */
bool tfs_is_top(struct tracefs_instance *inst)
{
	return !inst || !tracefs_instance_get_name(inst);
}

/* tfs_instance_label - a printable name of an instance */
const char *tfs_instance_label(struct tracefs_instance *inst)
{
	return tfs_is_top(inst) ? "top" : tracefs_instance_get_name(inst);
}

/* tfs_has - does the instance have this file (or directory) */
bool tfs_has(struct tracefs_instance *inst, const char *file)
{
	return tracefs_file_exists(inst_or_top(inst), file) ||
	       tracefs_dir_exists(inst_or_top(inst), file);
}

/*
 * tfs_require - fail when a file is absent: which kernel runs (uname -r),
 * the kernel option it lacks, and how to get a kernel that has it (the
 * project's packages: README, Install)
 */
int tfs_require(struct tracefs_instance *inst, const char *file)
{
	struct utsname u;

	if (tfs_has(inst, file))
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "(unknown)");
	err_msg("this kernel, %s (uname -r), has no %s: it was built without %s.\n"
		"         Install a kernel with the cgtrace patches and boot it: the Debian\n"
		"         package linux-image-*-cgtrace, built by \"make deb\" in cgtrace's\n"
		"         sources (README.md, Install; docs/packaging.md)",
		u.release, file, file_config(file));
	return -1;
}

/*
 * tfs_write - write a string to an instance file
 *
 * trunc opens with O_TRUNC (replace a list), else without (add to it).
 * Returns 0 or -errno, so that callers can explain the kernel's refusal.
 */
int tfs_write(struct tracefs_instance *inst, const char *file,
	      const char *str, bool trunc)
{
	int len = strlen(str), ret;

	errno = 0;
	if (trunc)
		ret = tracefs_instance_file_write(inst_or_top(inst), file, str);
	else
		ret = tracefs_instance_file_append(inst_or_top(inst), file, str);
	if (ret < 0)
		return errno ? -errno : -EIO;
	return ret == len ? 0 : -EIO;
}

/* tfs_clear - empty a list file: open it with O_TRUNC and write nothing */
int tfs_clear(struct tracefs_instance *inst, const char *file)
{
	errno = 0;
	if (tracefs_instance_file_clear(inst_or_top(inst), file))
		return errno ? -errno : -EIO;
	return 0;
}

/* tfs_read - the content of an instance file (free it), NULL on error */
char *tfs_read(struct tracefs_instance *inst, const char *file)
{
	char *text;
	int size;

	errno = 0;
	text = tracefs_instance_file_read(inst_or_top(inst), file, &size);
	/* libtracefs returns NULL for an empty file too */
	if (!text && !errno)
		text = strdup("");
	return text;
}

/* add_if_filtering - @list plus @name when that instance filters */
static char *add_if_filtering(char *list, const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(tfs_dir, name);
	bool set = false;
	char *text, *l;
	int k;

	for (k = 0; inst && k < 8 && !set; k++) {
		const char *f = k < 4 ? tfs_cgroup_files[k] : tfs_pid_files[k - 4];

		text = tfs_has(inst, f) ? tfs_read(inst, f) : NULL;
		set = text && *text && strcmp(text, "no pid\n");
		free(text);
	}
	tracefs_instance_free(inst);
	if (!set)
		return list;
	l = xasprintf("%s%s%s", list, *list ? " " : "", name ? name : "top");
	free(list);
	return l;
}

/*
 * filtering_instances - the instances that filter by pid or cgroup now,
 * "name name ..." (free it), for the message of a kernel out of slots
 */
static char *filtering_instances(void)
{
	char **names = tracefs_instances(NULL), *list = xstrdup("");
	int i;

	list = add_if_filtering(list, NULL);
	for (i = 0; names && names[i]; i++)
		list = add_if_filtering(list, names[i]);
	tracefs_list_free(names);
	return list;
}

/* write_error - explain why a filter write failed */
static void write_error(const char *file, const char *what, int err)
{
	char *busy;

	switch (-err) {
	case ENOSPC:
		busy = filtering_instances();
		err_msg("%s: at most 64 instances can filter by %s at once, and that many do:\n"
			"         clear the filters of one (cgtrace reset INSTANCE) or remove it;\n"
			"         filtering now: %s", file,
			strstr(file, "cgroup") ? "cgroup" : "pid", busy);
		free(busy);
		break;
	case ENOENT:
		err_msg("%s: cgroup %s does not exist", file, what);
		break;
	case EINVAL:
		err_msg("%s: %s is not a cgroup v2 path, directory or id:N",
			file, what);
		break;
	case EACCES:
	case EPERM:
		err_msg("%s: permission denied: run cgtrace as root", file);
		break;
	default:
		err_msg("%s: cannot add %s: %s", file, what, strerror(-err));
	}
}

/*
 * tfs_set_cgroups - replace a cgroup list file by the given cgroups
 *
 * One write per cgroup, so that an error names the cgroup the kernel
 * refused. On error the list is left empty (no filter is half set).
 */
int tfs_set_cgroups(struct tracefs_instance *inst, const char *file,
		    char **cgroups, int n)
{
	int i, err;

	if (tfs_require(inst, file))
		return -1;
	err = tfs_clear(inst, file);
	for (i = 0; !err && i < n; i++) {
		err = tfs_write(inst, file, cgroups[i], false);
		if (err) {
			write_error(file, cgroups[i], err);
			tfs_clear(inst, file);
			return -1;
		}
	}
	if (err) {
		write_error(file, "(clear)", err);
		return -1;
	}
	return 0;
}

/* tfs_set_pids - replace a pid list file by the given pids */
int tfs_set_pids(struct tracefs_instance *inst, const char *file,
		 char **pids, int n)
{
	int i, err;

	if (tfs_require(inst, file))
		return -1;
	err = tfs_clear(inst, file);
	for (i = 0; !err && i < n; i++) {
		err = tfs_write(inst, file, pids[i], false);
		if (err == -ENOSPC) {
			write_error(file, pids[i], err);
			tfs_clear(inst, file);
			return -1;
		}
		if (err) {
			err_msg("%s: cannot add pid %s: %s", file, pids[i],
				strerror(-err));
			tfs_clear(inst, file);
			return -1;
		}
	}
	return err ? -1 : 0;
}

/* tfs_has_user_markers - does the kernel have the user_markers events */
bool tfs_has_user_markers(struct tracefs_instance *inst)
{
	return tfs_has(inst, "events/user_markers");
}
