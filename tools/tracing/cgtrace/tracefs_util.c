// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs_util.c - find tracefs and cgroup2, read and write instance files,
 * and turn the kernel's errors into messages a user can act on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * tfs_init - find the tracing directory and check that we may use it
 *
 * CGTRACE_TRACEFS in the environment points cgtrace at another directory
 * (the tests use it to fake a kernel without some feature).
 */
int tfs_init(void)
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
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK)) {
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			err_msg("no permission to write %s: run cgtrace as root", path);
		else
			err_msg("%s: %s (is this a tracefs directory?)", path,
				strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * tfs_instance_get - look up, or create, an instance
 *
 * NULL, "" and "top" name the top level, which libtracefs calls NULL.
 */
int tfs_instance_get(const char *name, bool create,
		     struct tracefs_instance **inst, bool *created)
{
	*inst = NULL;
	if (created)
		*created = false;
	if (!name || !*name || !strcmp(name, "top"))
		return 0;
	if (tracefs_instance_exists(name)) {
		*inst = tracefs_instance_alloc(NULL, name);
	} else if (create) {
		*inst = tracefs_instance_create(name);
		if (*inst && created)
			*created = true;
	} else {
		err_msg("no tracing instance named %s", name);
		return -1;
	}
	if (!*inst) {
		err_msg("cannot %s instance %s: %s", create ? "create" : "open",
			name, strerror(errno));
		return -1;
	}
	return 0;
}

/* tfs_instance_put - free an instance handle, removing it if asked */
void tfs_instance_put(struct tracefs_instance *inst, bool destroy)
{
	if (!inst)
		return;
	if (destroy && tracefs_instance_destroy(inst))
		err_msg("cannot remove instance %s: %s",
			tracefs_instance_get_name(inst), strerror(errno));
	tracefs_instance_free(inst);
}

/* tfs_instance_label - a printable name of an instance */
const char *tfs_instance_label(struct tracefs_instance *inst)
{
	return inst ? tracefs_instance_get_name(inst) : "top";
}

/*
 * tfs_path - the path of an instance file (free it)
 *
 * Built here rather than by libtracefs, whose helpers for the top level
 * do not always follow tracefs_set_tracing_dir().
 */
static char *tfs_path(struct tracefs_instance *inst, const char *file)
{
	char *dir = inst ? tracefs_instance_get_dir(inst) : NULL, *path;
	int ret;

	ret = asprintf(&path, "%s/%s", dir ? dir : tracefs_tracing_dir(), file);
	if (dir)
		tracefs_put_tracing_file(dir);
	return ret < 0 ? NULL : path;
}

/* tfs_has - does the instance have this file (or directory) */
bool tfs_has(struct tracefs_instance *inst, const char *file)
{
	char *path = tfs_path(inst, file);
	bool ret = path && !access(path, F_OK);

	free(path);
	return ret;
}

/* tfs_require - fail with the missing kernel option when a file is absent */
int tfs_require(struct tracefs_instance *inst, const char *file)
{
	if (tfs_has(inst, file))
		return 0;
	err_msg("this kernel has no %s: it was built without %s",
		file, file_config(file));
	return -1;
}

/*
 * tfs_write - write a string to an instance file
 *
 * trunc opens with O_TRUNC (replace a list), else O_APPEND (add to it).
 * Returns 0 or -errno, so that callers can explain the kernel's refusal.
 */
int tfs_write(struct tracefs_instance *inst, const char *file,
	      const char *str, bool trunc)
{
	char *path = tfs_path(inst, file);
	ssize_t len = strlen(str), ret;
	int fd, err = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC | (trunc ? O_TRUNC : O_APPEND));
	free(path);
	if (fd < 0)
		return -errno;
	if (len) {
		ret = write(fd, str, len);
		if (ret < 0)
			err = -errno;
		else if (ret != len)
			err = -EIO;
	}
	close(fd);
	return err;
}

/* tfs_clear - empty a list file: open it with O_TRUNC and write nothing */
int tfs_clear(struct tracefs_instance *inst, const char *file)
{
	return tfs_write(inst, file, "", true);
}

/* tfs_read - the content of an instance file (free it), NULL if absent */
char *tfs_read(struct tracefs_instance *inst, const char *file)
{
	char *path = tfs_path(inst, file), *buf = NULL;
	size_t size = 0, len = 0;
	ssize_t n;
	int fd;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return NULL;
	do {
		if (len + 4096 + 1 > size) {
			char *nbuf = realloc(buf, size = len + 8192);

			if (!nbuf) {
				n = -1;
				break;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n > 0)
			len += n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

/* write_error - explain why a filter write failed */
static void write_error(const char *file, const char *what, int err)
{
	switch (-err) {
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

/* cg_root - where cgroup2 is mounted (the first cgroup2 mount) */
const char *cg_root(void)
{
	static char root[4096];
	char line[8192], *sep, mnt[4096], fstype[64];
	FILE *f;

	if (root[0])
		return root;
	strcpy(root, "/sys/fs/cgroup");
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return root;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE ... */
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			snprintf(root, sizeof(root), "%s", mnt);
			break;
		}
	}
	fclose(f);
	return root;
}

/* cg_self_dir - the directory of the caller's own cgroup (free it) */
char *cg_self_dir(void)
{
	char line[4096], *dir = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (asprintf(&dir, "%s%s", cg_root(),
			     strcmp(line + 3, "/") ? line + 3 : "") < 0)
			dir = NULL;
		break;
	}
	fclose(f);
	if (!dir)
		err_msg("not in a cgroup v2 hierarchy (no 0:: line in /proc/self/cgroup)");
	return dir;
}

/* need_trace_cmd - fail with a hint when trace-cmd is not in PATH */
int need_trace_cmd(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, file[4096];
	int found = 0;

	copy = strdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/trace-cmd", *dir ? dir : ".");
		found = !access(file, X_OK);
	}
	free(copy);
	if (!found)
		err_msg("trace-cmd is not installed or not in PATH (apt install trace-cmd)");
	return found ? 0 : -1;
}
