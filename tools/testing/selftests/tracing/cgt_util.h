/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the tracing kselftests: tracefs files,
 * instances and cgroup2 folders. Every helper returns 0 or a positive count
 * on success and -errno on failure, so tests can assert the errno a kernel
 * interface is documented to return.
 */
#ifndef CGT_UTIL_H
#define CGT_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CGT_TRACEFS "/sys/kernel/tracing"

/*
 * PR_TRACE_USER_MARKER and its kinds (include/uapi/linux/prctl.h), for
 * C libraries whose <sys/prctl.h> predates them.
 */
#include <sys/prctl.h>
#ifndef PR_TRACE_USER_MARKER
#define PR_TRACE_USER_MARKER		0x55534d4b
#define PR_TRACE_MARKER_BEGIN		1
#define PR_TRACE_MARKER_END		2
#define PR_TRACE_MARKER_COUNTER		3
#define PR_TRACE_MARKER_INSTANT		4
#endif

#define CGT_CGROUP2 "/sys/fs/cgroup"

/*
 * CGT_SETUP_SKIP - SKIP() for a FIXTURE_SETUP. 6.1's kselftest_harness.h
 * runs the test body after a setup that called SKIP() (it only checks
 * that setup passed), so the body fails on the kernel the skip was about.
 * Jump back to the harness instead: the test is reported as skipped, its
 * body and teardown do not run (setup did not complete). Use it before
 * setup has made anything that teardown would undo.
 */
#define CGT_SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

struct cgt_instance {
	char path[256];
};

/* cgt_read_file - read up to @len - 1 bytes of @path, NUL-terminated */
static inline int cgt_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	close(fd);
	return total;
}

/* cgt_write_file_flags - one write(2) of @len bytes with open @flags */
static inline int cgt_write_file_flags(const char *path, const void *data,
				       size_t len, int flags)
{
	ssize_t n;
	int fd = open(path, O_WRONLY | flags);

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

/* cgt_write_file - truncate @path and write the string @s in one write */
static inline int cgt_write_file(const char *path, const char *s)
{
	return cgt_write_file_flags(path, s, strlen(s), O_TRUNC);
}

/* cgt_append_file - append the string @s to @path in one write */
static inline int cgt_append_file(const char *path, const char *s)
{
	return cgt_write_file_flags(path, s, strlen(s), O_APPEND);
}

/* cgt_instance_create - make a fresh tracefs instance named @name-PID */
static inline int cgt_instance_create(struct cgt_instance *inst,
				      const char *name)
{
	snprintf(inst->path, sizeof(inst->path), CGT_TRACEFS "/instances/%s-%d",
		 name, getpid());
	rmdir(inst->path);
	if (mkdir(inst->path, 0750))
		return -errno;
	return 0;
}

/* cgt_instance_file - the path of @file inside the instance */
static inline const char *cgt_instance_file(struct cgt_instance *inst,
					    const char *file, char *buf,
					    size_t len)
{
	snprintf(buf, len, "%s/%s", inst->path, file);
	return buf;
}

static inline int cgt_instance_write(struct cgt_instance *inst,
				     const char *file, const char *s)
{
	char p[PATH_MAX];

	return cgt_write_file(cgt_instance_file(inst, file, p, sizeof(p)), s);
}

static inline int cgt_instance_read(struct cgt_instance *inst,
				    const char *file, char *buf, size_t len)
{
	char p[PATH_MAX];

	return cgt_read_file(cgt_instance_file(inst, file, p, sizeof(p)), buf,
			     len);
}

/* cgt_instance_stat - a counter of the instance's user_events_stats, or -1 */
static inline long long cgt_instance_stat(struct cgt_instance *inst,
					  const char *name)
{
	char buf[1024], key[64], *p;

	if (cgt_instance_read(inst, "user_events_stats", buf + 1,
			      sizeof(buf) - 1) < 0)
		return -1;
	buf[0] = '\n';
	snprintf(key, sizeof(key), "\n%s ", name);
	p = strstr(buf, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* cgt_instance_destroy - remove the instance (tracing off first) */
static inline int cgt_instance_destroy(struct cgt_instance *inst)
{
	cgt_instance_write(inst, "tracing_on", "0");
	if (rmdir(inst->path))
		return -errno;
	return 0;
}

/* cgt_cgroup_create - make cgroup2 folder @name (relative to the root) */
static inline int cgt_cgroup_create(const char *name, char *path, size_t len)
{
	snprintf(path, len, CGT_CGROUP2 "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* cgt_cgroup_enter - move task @pid (0: the caller) into cgroup @path */
static inline int cgt_cgroup_enter(const char *path, pid_t pid)
{
	char p[PATH_MAX], s[32];

	snprintf(p, sizeof(p), "%s/cgroup.procs", path);
	snprintf(s, sizeof(s), "%d", pid ? pid : getpid());
	return cgt_write_file_flags(p, s, strlen(s), 0);
}

/* cgt_cgroup_remove - move the caller back to the root and remove @path */
static inline int cgt_cgroup_remove(const char *path)
{
	if (rmdir(path))
		return -errno;
	return 0;
}

#endif /* CGT_UTIL_H */
