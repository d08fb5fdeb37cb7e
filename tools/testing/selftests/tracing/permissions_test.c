// SPDX-License-Identifier: GPL-2.0
/*
 * permissions_test - who may do what with the project's tracefs files
 * (user-markers.rst, "Permissions"; cgroup-filter.rst, "Files"):
 *
 * - a user without privileges (uid/gid 65534, no groups, no capabilities)
 *   can read no trace and change no filter file, rate limit or option,
 *   and cannot write user_events or trace_marker;
 * - with tracefs remounted gid=GROUP,mode=0750 (the documented route), a member of
 *   GROUP writes user_events and trace_marker, reads user_events_stats,
 *   but still cannot change a filter, the rate limit or the prctl option;
 * - a marker always carries its writer's pid, whatever its pid field says.
 *
 * Checked from both sides: the child's open()/write() fail, and the files
 * read by root are unchanged. The mount options are restored at the end,
 * also when a check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define NOBODY		65534
#define MARKER_GID	4242

/* Files root alone may change: filters, rate limit, options */
static const char *const root_only[] = {
	"set_event_pid", "set_event_notrace_pid", "set_ftrace_pid",
	"set_ftrace_notrace_pid", "set_event_cgroup", "set_event_notrace_cgroup",
	"set_ftrace_cgroup", "set_ftrace_notrace_cgroup", "user_events_rate",
	"options/user_events_prctl", "options/markers", "options/event-fork",
	"tracing_on", "events/user_markers/enable",
};

#define NR_ROOT_ONLY	ARRAY_SIZE(root_only)

FIXTURE(perm) {
	struct cgt_instance inst;
	char cg[256], cg_spec[300];
	char mnt_opts[512];
	int remounted;
	char before[2][NR_ROOT_ONLY][4096];
};

/* The tracefs mount options now: gid= and mode= (defaults if absent) */
static void tracefs_opts(char *gid, char *mode)
{
	char line[1024];
	FILE *f = fopen("/proc/mounts", "r");

	memcpy(gid, "0", sizeof("0"));
	memcpy(mode, "700", sizeof("700"));
	while (f && fgets(line, sizeof(line), f)) {
		char *p;

		if (!strstr(line, " " CGT_TRACEFS " tracefs "))
			continue;
		p = strstr(line, "gid=");
		if (p)
			sscanf(p + 4, "%15[0-9]", gid);
		p = strstr(line, "mode=");
		if (p)
			sscanf(p + 5, "%15[0-7]", mode);
	}
	if (f)
		fclose(f);
}

static int remount(const char *opts)
{
	return mount(NULL, CGT_TRACEFS, NULL, MS_REMOUNT, opts) ? -errno : 0;
}

FIXTURE_SETUP(perm)
{
	char gid[16], mode[16], name[64];

	if (access(CGT_TRACEFS "/user_events", F_OK) ||
	    access(CGT_TRACEFS "/set_event_cgroup", F_OK))
		CGT_SETUP_SKIP("kernel without user_events or cgroup filters");
	if (getuid() != 0)
		CGT_SETUP_SKIP("must run as root");
	tracefs_opts(gid, mode);
	snprintf(self->mnt_opts, sizeof(self->mnt_opts), "gid=%s,mode=%s", gid, mode);
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "perm"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "1"));
	snprintf(name, sizeof(name), "perm-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg, sizeof(self->cg)));
	snprintf(self->cg_spec, sizeof(self->cg_spec), "/%s", name);
}

FIXTURE_TEARDOWN(perm)
{
	if (!self->inst.path[0])
		return;
	if (self->remounted && remount(self->mnt_opts))
		TH_LOG("could not restore the tracefs mount options %s", self->mnt_opts);
	cgt_instance_destroy(&self->inst);
	rmdir(self->cg);
}

/* Become uid/gid 65534 with @group as the only supplementary group */
static int drop_privileges(int group)
{
	gid_t g = group;
	char line[256];
	FILE *f;
	int ok = 0;

	if (setgroups(group ? 1 : 0, &g) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	/* Changing uid from 0 cleared every capability: check it */
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7) || !strncmp(line, "CapPrm:", 7))
			ok += strtoull(line + 7, NULL, 16) == 0;
	if (f)
		fclose(f);
	return ok == 2 ? 0 : -1;
}

static int bad;

#define CHILD_CHECK(cond, fmt, ...) do {				\
	if (!(cond)) {							\
		fprintf(stderr, "# child: " fmt "\n", ##__VA_ARGS__);	\
		bad++;							\
	}								\
} while (0)

/* In the child: opening @path for writing, and writing, must fail */
static void cannot_change(const char *dir, const char *file, const char *data)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_TRUNC);
	CHILD_CHECK(fd < 0 && (errno == EACCES || errno == EPERM),
		    "opened %s for writing (%s)", p, fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0) {
		CHILD_CHECK(write(fd, data, strlen(data)) < 0, "wrote %s", p);
		close(fd);
	}
	fd = open(p, O_WRONLY | O_APPEND);
	CHILD_CHECK(fd < 0, "opened %s for appending", p);
	if (fd >= 0)
		close(fd);
}

static void cannot_read(const char *dir, const char *file)
{
	char p[PATH_MAX], buf[64];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	CHILD_CHECK(fd < 0 && (errno == EACCES || errno == EPERM),
		    "opened %s for reading (%s)", p, fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0) {
		CHILD_CHECK(read(fd, buf, sizeof(buf)) < 0, "read %s", p);
		close(fd);
	}
}

static int can_write(const char *dir, const char *file, const char *data)
{
	char p[PATH_MAX];
	int ret;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	ret = cgt_write_file_flags(p, data, strlen(data), 0);
	CHILD_CHECK(!ret, "could not write %s: %s", p, strerror(-ret));
	return ret;
}

/* A value of each root-only file that differs from its default */
static const char *new_value(struct _test_data_perm *self, const char *file)
{
	if (strstr(file, "cgroup"))
		return self->cg_spec;
	if (strstr(file, "pid") || strstr(file, "prctl") || strstr(file, "fork"))
		return "1";
	if (!strcmp(file, "user_events_rate"))
		return "1 1";
	return "0";
}

/* Root reads every root-only file of the instance and the top level */
static void snapshot(struct _test_data_perm *self, char out[2][NR_ROOT_ONLY][4096])
{
	char p[PATH_MAX];
	unsigned int i, t;

	for (t = 0; t < 2; t++)
		for (i = 0; i < NR_ROOT_ONLY; i++) {
			snprintf(p, sizeof(p), "%s/%s", t ? CGT_TRACEFS : self->inst.path,
				 root_only[i]);
			if (cgt_read_file(p, out[t][i], 4096) < 0)
				snprintf(out[t][i], 4096, "<unreadable>");
		}
}

/* Every root-only file, in the instance and at the top level */
static void child_cannot_change_any(struct _test_data_perm *self)
{
	unsigned int i;

	for (i = 0; i < NR_ROOT_ONLY; i++) {
		cannot_change(self->inst.path, root_only[i], new_value(self, root_only[i]));
		cannot_change(CGT_TRACEFS, root_only[i], new_value(self, root_only[i]));
	}
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void as_nobody(struct __test_metadata *_metadata,
		      struct _test_data_perm *self)
{
	static char after[2][NR_ROOT_ONLY][4096];
	unsigned int i, t;
	pid_t pid;

	snapshot(self, self->before);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "trace_marker", "perm-root-was-here"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_privileges(0))
			_exit(100);
		child_cannot_change_any(self);
		cannot_read(self->inst.path, "trace");
		cannot_read(self->inst.path, "trace_pipe");
		cannot_read(CGT_TRACEFS, "trace");
		cannot_read(CGT_TRACEFS, "trace_pipe");
		cannot_read(self->inst.path, "user_events_stats");
		cannot_change(self->inst.path, "user_events", "I|1|perm-nobody\n");
		cannot_change(CGT_TRACEFS, "user_events", "I|1|perm-nobody\n");
		cannot_change(self->inst.path, "trace_marker", "perm-nobody");
		cannot_change(CGT_TRACEFS, "trace_marker", "perm-nobody");
		/* Nor make or remove an instance */
		CHILD_CHECK(mkdir(CGT_TRACEFS "/instances/perm-nobody", 0755) < 0,
			    "made an instance");
		CHILD_CHECK(rmdir(self->inst.path) < 0, "removed an instance");
		_exit(bad > 99 ? 99 : bad);
	}
	ASSERT_EQ(0, wait_child(pid)) TH_LOG("the unprivileged child could do the above");
	snapshot(self, after);
	for (t = 0; t < 2; t++)
		for (i = 0; i < NR_ROOT_ONLY; i++)
			EXPECT_STREQ(self->before[t][i], after[t][i])
				TH_LOG("%s: %s changed", root_only[i % NR_ROOT_ONLY],
				       t ? "top-level" : "instance");
	ASSERT_LT(0, cgt_instance_read(&self->inst, "trace", after[0][0], 4096));
	EXPECT_EQ(NULL, strstr(after[0][0], "perm-nobody"));
}

TEST_F_TIMEOUT(perm, unprivileged_user_changes_nothing, 120)
{
	as_nobody(_metadata, self);
}

/* Others may enter the tracefs root: its files still refuse them */
TEST_F_TIMEOUT(perm, unprivileged_user_with_open_root, 120)
{
	self->remounted = 1;
	ASSERT_EQ(0, remount("mode=0755"));
	as_nobody(_metadata, self);
	ASSERT_EQ(0, remount(self->mnt_opts));
	self->remounted = 0;
}

/* Root: the line of @trace holding @needle, or "" */
static void line_of(const char *trace, const char *needle, char *out, size_t len)
{
	const char *p = strstr(trace, needle), *b, *e;

	out[0] = '\0';
	if (!p)
		return;
	for (b = p; b > trace && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n') ?: p + strlen(p);
	snprintf(out, len, "%.*s", (int)(e - b), b);
}

static void as_group_member(struct __test_metadata *_metadata,
			    struct _test_data_perm *self, const char *opts)
{
	static char after[2][NR_ROOT_ONLY][4096];
	char trace[1 << 16], line[512], want[64], gid[16], mode[16];
	unsigned int i, t;
	pid_t pid;

	snapshot(self, self->before);
	self->remounted = 1;
	ASSERT_EQ(0, remount(opts)) TH_LOG("mount -o remount,%s: %s", opts, strerror(errno));
	tracefs_opts(gid, mode);
	TH_LOG("tracefs remounted with %s: gid=%s mode=%s", opts, gid, mode);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char buf[512];

		if (drop_privileges(MARKER_GID))
			_exit(100);
		/* Markers: allowed; the pid fields claim init */
		can_write(self->inst.path, "user_events",
			  "I|1|perm-group-own\nB|1|perm-span\nE|1\n");
		can_write(CGT_TRACEFS, "user_events", "I|1|perm-group-top\n");
		can_write(self->inst.path, "trace_marker", "perm-group-tm");
		/* Stats: readable by the group (0440) */
		snprintf(buf, sizeof(buf), "%s/user_events_stats", self->inst.path);
		CHILD_CHECK(cgt_read_file(buf, buf, sizeof(buf)) > 0,
			    "cannot read user_events_stats");
		/* Filters, rate limit, options: root only */
		child_cannot_change_any(self);
		_exit(bad > 99 ? 99 : bad);
	}
	EXPECT_EQ(0, wait_child(pid)) {
		TH_LOG("the group member failed the checks above");
		if (!strcmp(mode, "700"))
			TH_LOG("root mode 0700 after \"remount,%s\": the group cannot enter it",
			       opts);
	}
	snapshot(self, after);
	for (t = 0; t < 2; t++)
		for (i = 0; i < NR_ROOT_ONLY; i++)
			EXPECT_STREQ(self->before[t][i], after[t][i])
				TH_LOG("%s: %s changed by a group member",
				       root_only[i % NR_ROOT_ONLY],
				       t ? "top-level" : "instance");

	/* The records carry the writer's pid and tgid, not the claimed 1 */
	ASSERT_LT(0, cgt_instance_read(&self->inst, "trace", trace, sizeof(trace)));
	snprintf(want, sizeof(want), "-%d ", pid);
	line_of(trace, "instant: perm-group-own", line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("own write: \"%s\"", line);
	snprintf(want, sizeof(want), "tgid=%d", pid);
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("own write: \"%s\"", line);
	line_of(trace, "instant: perm-group-top", line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("top-level write: \"%s\"", line);
	line_of(trace, "end: perm-span", line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("span end: \"%s\"", line);
	snprintf(want, sizeof(want), "-%d ", pid);
	line_of(trace, "perm-group-tm", line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("trace_marker: \"%s\"", line);

	ASSERT_EQ(0, remount(self->mnt_opts));
	self->remounted = 0;
}

/*
 * The documented route (user-markers.rst): remount with gid= and a mode
 * that lets the group into the root directory (gid= alone leaves it 0700).
 */
TEST_F_TIMEOUT(perm, group_writes_markers_not_filters, 120)
{
	char opts[32];

	snprintf(opts, sizeof(opts), "gid=%d,mode=0750", MARKER_GID);
	as_group_member(_metadata, self, opts);
}

TEST_HARNESS_MAIN
