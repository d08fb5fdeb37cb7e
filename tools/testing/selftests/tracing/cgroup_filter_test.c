// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_filter_test - the cgroup filter files of a tracing instance:
 * their syntax and errnos, all-or-nothing writes, big lists, concurrent
 * writers, and the timing rules (a task is filtered by its new cgroup from
 * its very next event after a migration or a CLONE_INTO_CGROUP).
 *
 * Markers are the probe here: they are written by the task itself, with
 * no context switch needed, so a stale per-CPU verdict would show.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

static const char *const files[] = {
	"set_event_cgroup", "set_event_notrace_cgroup",
	"set_ftrace_cgroup", "set_ftrace_notrace_cgroup",
};

#define NR_FILES ARRAY_SIZE(files)

FIXTURE(cgf) {
	struct cgt_instance inst;
	char cg_a[256], cg_b[256], cg_a_child[256];
	char name_a[64], name_b[64];
	char buf[1 << 16];
};

static int cg_remove_all(const char *path)
{
	/* Move any leftover task out before removing. */
	return rmdir(path) ? -errno : 0;
}

FIXTURE_SETUP(cgf)
{
	char p[512];

	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK))
		CGT_SETUP_SKIP("kernel without set_event_cgroup (TRACE_CGROUP_FILTER)");
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "cgf"));
	snprintf(self->name_a, sizeof(self->name_a), "cgf-a-%d", getpid());
	snprintf(self->name_b, sizeof(self->name_b), "cgf-b-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(self->name_a, self->cg_a, sizeof(self->cg_a)));
	ASSERT_EQ(0, cgt_cgroup_create(self->name_b, self->cg_b, sizeof(self->cg_b)));
	snprintf(p, sizeof(p), "%s/child", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(p, self->cg_a_child, sizeof(self->cg_a_child)));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "1"));
}

FIXTURE_TEARDOWN(cgf)
{
	if (!self->inst.path[0])
		return;
	cgt_cgroup_enter(CGT_CGROUP2, 0);
	cgt_instance_destroy(&self->inst);
	cg_remove_all(self->cg_a_child);
	cg_remove_all(self->cg_a);
	cg_remove_all(self->cg_b);
}

static int write_list(struct cgt_instance *inst, const char *file,
		      const char *s, int flags)
{
	char p[512];

	return cgt_write_file_flags(cgt_instance_file(inst, file, p, sizeof(p)),
				    s, strlen(s), flags);
}

static int read_list(struct cgt_instance *inst, const char *file, char *buf,
		     size_t len)
{
	return cgt_instance_read(inst, file, buf, len);
}

/* trace_has - does the instance's trace contain @needle */
static bool trace_has(struct cgt_instance *inst, const char *needle)
{
	static char trace[1 << 20];

	if (cgt_instance_read(inst, "trace", trace, sizeof(trace)) < 0)
		return false;
	return strstr(trace, needle);
}

static int marker(struct cgt_instance *inst, const char *text)
{
	return cgt_instance_write(inst, "trace_marker", text);
}

static long max_l(long a, long b)
{
	return a > b ? a : b;
}

static unsigned long long cg_id(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

TEST_F_TIMEOUT(cgf, files_exist_and_start_empty, 180)
{
	unsigned int i;

	for (i = 0; i < NR_FILES; i++) {
		char p[512];
		struct stat st;

		ASSERT_EQ(0, stat(cgt_instance_file(&self->inst, files[i], p, sizeof(p)), &st)) {
			TH_LOG("missing %s", files[i]);
		}
		/* Same mode as set_event_pid: 0640. */
		EXPECT_EQ(0640, st.st_mode & 0777);
		EXPECT_EQ(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
	}
	/* The top level has them too. */
	EXPECT_EQ(0, access(CGT_TRACEFS "/set_event_cgroup", F_OK));
	EXPECT_EQ(0, access(CGT_TRACEFS "/set_ftrace_notrace_cgroup", F_OK));
}

TEST_F_TIMEOUT(cgf, syntax_paths_and_ids, 180)
{
	char want[1024], in[1024];
	unsigned int i;

	for (i = 0; i < NR_FILES; i++) {
		/* A path as /proc/PID/cgroup prints it. */
		snprintf(in, sizeof(in), "/%s\n", self->name_a);
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_TRUNC));
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		EXPECT_STREQ(in, self->buf);

		/* An id (the directory's inode number), appended. */
		snprintf(in, sizeof(in), "id:%llu", cg_id(self->cg_b));
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_APPEND));
		/* A cgroup path, appended. */
		snprintf(want, sizeof(want), "%s",
			 self->cg_a_child + strlen(CGT_CGROUP2));
		ASSERT_EQ(0, write_list(&self->inst, files[i], want, O_APPEND));
		snprintf(want, sizeof(want), "/%s\n/%s\n/%s/child\n",
			 self->name_a, self->name_b, self->name_a);
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		EXPECT_STREQ(want, self->buf);

		/* Listing one again does not duplicate it. */
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_APPEND));
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		EXPECT_STREQ(want, self->buf);

		/* Several per write, any white space; O_TRUNC replaces. */
		snprintf(in, sizeof(in), "  /%s\t/%s\t\n", self->name_b, self->name_a);
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_TRUNC));
		snprintf(want, sizeof(want), "/%s\n/%s\n", self->name_b, self->name_a);
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		EXPECT_STREQ(want, self->buf);

		/* An empty write with O_TRUNC clears. */
		ASSERT_EQ(0, write_list(&self->inst, files[i], "\n", O_TRUNC));
		EXPECT_EQ(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
	}
}

/* Each bad write fails with its errno and leaves the list as it was. */
TEST_F_TIMEOUT(cgf, bad_input_changes_nothing, 180)
{
	static char longtok[PATH_MAX + 16];
	char before[1024], in[1024];
	unsigned int i, j;
	struct {
		const char *what;
		const char *text;
		size_t len;
		int err;
	} bad[] = {
		{ "missing path", "/no-such-cgroup-xyz", 0, ENOENT },
		{ "missing id", "id:999999999", 0, ENOENT },
		{ "zero id", "id:0", 0, EINVAL },
		{ "junk id", "id:12ab", 0, EINVAL },
		{ "relative path", "foo", 0, EINVAL },
		{ "no file system paths", CGT_CGROUP2, 0, ENOENT },
		{ "not a cgroup", "/tmp", 0, ENOENT },
		{ "a cgroup file", "/cgroup.procs", 0, EINVAL },
		{ "control byte", "/a\001b", 0, EINVAL },
		{ "NUL byte", "/x\0/y", 5, EINVAL },
		{ "traversal", "/..", 0, ENOENT },
		{ "over-long token", longtok, 0, EINVAL },
	};

	memset(longtok, 'a', sizeof(longtok) - 1);
	longtok[0] = '/';
	longtok[sizeof(longtok) - 1] = '\0';

	for (i = 0; i < NR_FILES; i++) {
		snprintf(in, sizeof(in), "/%s", self->name_a);
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_TRUNC));
		ASSERT_LT(0, read_list(&self->inst, files[i], before, sizeof(before)));
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			char p[512];
			size_t len = bad[j].len ? bad[j].len : strlen(bad[j].text);
			/* A good path first: a bad one later in the write fails it all. */
			char *mix;

			cgt_instance_file(&self->inst, files[i], p, sizeof(p));
			EXPECT_EQ(-bad[j].err,
				  cgt_write_file_flags(p, bad[j].text, len, O_APPEND)) {
				TH_LOG("%s: %s", files[i], bad[j].what);
			}
			ASSERT_LT(0, asprintf(&mix, "/%s ", self->name_b));
			mix = realloc(mix, strlen(mix) + len + 1);
			memcpy(mix + strlen(mix), bad[j].text, len);
			EXPECT_EQ(-bad[j].err,
				  cgt_write_file_flags(p, mix, strlen(self->name_b) + 2 + len,
						       O_APPEND)) {
				TH_LOG("%s: good then %s", files[i], bad[j].what);
			}
			free(mix);
			/* Even with O_TRUNC, a failed write keeps the old list. */
			EXPECT_EQ(-bad[j].err, cgt_write_file_flags(p, bad[j].text, len, O_TRUNC));
			ASSERT_LT(0, read_list(&self->inst, files[i], self->buf,
					       sizeof(self->buf)));
			EXPECT_STREQ(before, self->buf) {
				TH_LOG("%s changed by %s", files[i], bad[j].what);
			}
		}
		ASSERT_EQ(0, write_list(&self->inst, files[i], "\n", O_TRUNC));
	}
}

/* More than 4 KiB in one write is one all-or-nothing unit; too much is E2BIG. */
TEST_F_TIMEOUT(cgf, big_writes_and_1024_cgroups, 180)
{
	const int n = 1024;
	size_t cap = 256 * 1024 + 64, len = 0;
	char *big = malloc(cap), *lines;
	char path[256], name[64];
	int i, count = 0;

	ASSERT_NE(NULL, big);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/many-%04d", self->name_b, i);
		ASSERT_EQ(0, cgt_cgroup_create(name, path, sizeof(path)));
		len += snprintf(big + len, cap - len, "/%s ", name);
	}
	ASSERT_LT(4096, len);
	ASSERT_EQ(0, cgt_write_file_flags(cgt_instance_file(&self->inst, "set_event_cgroup",
							    path, sizeof(path)),
					  big, len, O_TRUNC));
	lines = malloc(1 << 20);
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", lines, 1 << 20)) {
		TH_LOG("wrote %zu bytes, read nothing back", len);
	}
	for (i = 0; lines[i]; i++)
		count += lines[i] == '\n';
	EXPECT_EQ(n, count);

	/* A listed leaf filters like any other. */
	snprintf(name, sizeof(name), "%s/%s/many-0777", CGT_CGROUP2, self->name_b);
	pid_t pid = fork();

	if (!pid) {
		cgt_cgroup_enter(name, 0);
		marker(&self->inst, "in-many-0777");
		cgt_cgroup_enter(self->cg_a, 0);
		marker(&self->inst, "in-a-not-listed");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(trace_has(&self->inst, "in-many-0777"));
	EXPECT_FALSE(trace_has(&self->inst, "in-a-not-listed"));

	/* Over the write limit: E2BIG, list unchanged. */
	memset(big, ' ', cap - 1);
	big[cap - 1] = '\0';
	EXPECT_EQ(-E2BIG, cgt_write_file_flags(path, big, cap - 1, O_TRUNC));
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", lines, 1 << 20));
	for (i = 0, count = 0; lines[i]; i++)
		count += lines[i] == '\n';
	EXPECT_EQ(n, count);

	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", "\n", O_TRUNC));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/many-%04d", CGT_CGROUP2, self->name_b, i);
		rmdir(path);
	}
	free(lines);
	free(big);
}

struct writer_arg {
	struct cgt_instance *inst;
	const char *text;
	atomic_int *stop;
	int writes, errors;
};

/* Replace the list with @text until told to stop, at least 200 times. */
static void *writer(void *p)
{
	struct writer_arg *a = p;

	while (a->writes < 200 || !atomic_load(a->stop)) {
		if (write_list(a->inst, "set_event_cgroup", a->text, O_TRUNC))
			a->errors++;
		a->writes++;
	}
	return NULL;
}

/*
 * Concurrent writers: every read shows one writer's whole list. A write
 * with O_TRUNC replaces the list at once, so a read is never empty (the
 * list holds one of them before the writers start), and the reads go on
 * until they have seen the list change: they overlapped the writes.
 */
TEST_F_TIMEOUT(cgf, concurrent_writers, 180)
{
	char ta[300], tb[300], la[300], lb[300];
	atomic_int stop = 0;
	struct writer_arg a = { &self->inst, ta, &stop },
			  b = { &self->inst, tb, &stop };
	int reads = 0, seen_a = 0, seen_b = 0, changes = 0, bad = 0, last = 0;
	pthread_t t1, t2;
	time_t deadline;

	snprintf(ta, sizeof(ta), "/%s /%s/child", self->name_a, self->name_a);
	snprintf(tb, sizeof(tb), "/%s", self->name_b);
	snprintf(la, sizeof(la), "/%s\n/%s/child\n", self->name_a, self->name_a);
	snprintf(lb, sizeof(lb), "/%s\n", self->name_b);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", ta, O_TRUNC));
	ASSERT_EQ(0, pthread_create(&t1, NULL, writer, &a));
	ASSERT_EQ(0, pthread_create(&t2, NULL, writer, &b));
	deadline = time(NULL) + 120;
	while ((reads < 200 || changes < 4) && time(NULL) < deadline) {
		int n = read_list(&self->inst, "set_event_cgroup", self->buf, sizeof(self->buf));
		int now = 0;

		reads++;
		if (n > 0 && !strcmp(self->buf, la))
			now = 1, seen_a++;
		else if (n > 0 && !strcmp(self->buf, lb))
			now = 2, seen_b++;
		else if (bad++ < 3)
			TH_LOG("read %d returned %d: '%s'", reads, n, n > 0 ? self->buf : "");
		if (now && last && now != last)
			changes++;
		if (now)
			last = now;
	}
	atomic_store(&stop, 1);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	TH_LOG("%d reads (%d of A's list, %d of B's, %d changes) during %d + %d writes",
	       reads, seen_a, seen_b, changes, a.writes, b.writes);
	EXPECT_EQ(0, a.errors);
	EXPECT_EQ(0, b.errors);
	EXPECT_EQ(0, bad);
	/* Reads that never saw a change did not test concurrency. */
	EXPECT_LE(4, changes);
}

/* Listing a parent traces its descendants; notrace wins over trace. */
TEST_F_TIMEOUT(cgf, hierarchy_and_notrace_precedence, 180)
{
	char in[512];
	pid_t pid;

	snprintf(in, sizeof(in), "/%s", self->name_a);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	snprintf(in, sizeof(in), "/%s/child", self->name_a);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_notrace_cgroup", in, O_TRUNC));

	pid = fork();
	if (!pid) {
		cgt_cgroup_enter(self->cg_a, 0);
		marker(&self->inst, "marker-from-a");
		cgt_cgroup_enter(self->cg_a_child, 0);
		marker(&self->inst, "marker-from-a-child");
		cgt_cgroup_enter(self->cg_b, 0);
		marker(&self->inst, "marker-from-b");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(trace_has(&self->inst, "marker-from-a"));
	EXPECT_FALSE(trace_has(&self->inst, "marker-from-a-child"));
	EXPECT_FALSE(trace_has(&self->inst, "marker-from-b"));

	/* Notrace alone: everything but the listed subtree. */
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", "\n", O_TRUNC));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "trace", ""));
	pid = fork();
	if (!pid) {
		cgt_cgroup_enter(self->cg_a_child, 0);
		marker(&self->inst, "notrace-only-child");
		cgt_cgroup_enter(self->cg_b, 0);
		marker(&self->inst, "notrace-only-b");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	EXPECT_FALSE(trace_has(&self->inst, "notrace-only-child"));
	EXPECT_TRUE(trace_has(&self->inst, "notrace-only-b"));
}

/*
 * A task that never sleeps is moved out of the traced cgroup by another
 * task: its markers stop at once, without waiting for a context switch.
 */
TEST_F_TIMEOUT(cgf, running_task_moved_is_untraced_at_once, 180)
{
	struct shared {
		atomic_long seq;
		atomic_int stop;
	} *sh;
	char in[512], text[64], name_nc[64], cg_nc[256], cg_in[320], cg_out[320];
	long seq_at_move, last;
	char *trace = malloc(1 << 22), *p;
	pid_t pid;

	ASSERT_NE(NULL, trace);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	/*
	 * Two cgroups under a parent that enables no controller: with the
	 * cpu controller, moving a running task reschedules it, and a
	 * switch would re-decide its verdict without the attach hook.
	 */
	snprintf(name_nc, sizeof(name_nc), "cgf-nc-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name_nc, cg_nc, sizeof(cg_nc)));
	snprintf(in, sizeof(in), "%s/in", name_nc);
	ASSERT_EQ(0, cgt_cgroup_create(in, cg_in, sizeof(cg_in)));
	snprintf(in, sizeof(in), "%s/out", name_nc);
	ASSERT_EQ(0, cgt_cgroup_create(in, cg_out, sizeof(cg_out)));
	snprintf(in, sizeof(in), "/%s/in", name_nc);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));

	/*
	 * Keep the writer alone on its CPU, so that nothing but the move
	 * itself can change its verdict (no context switch to re-decide it).
	 */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs: one for the writer, one for the mover");
	pid = fork();
	if (!pid) {
		char p[512];
		cpu_set_t cpus;
		int fd;

		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		cgt_cgroup_enter(cg_in, 0);
		fd = open(cgt_instance_file(&self->inst, "trace_marker", p, sizeof(p)), O_WRONLY);
		while (!atomic_load(&sh->stop)) {
			long s = atomic_load(&sh->seq) + 1;
			int n = snprintf(text, sizeof(text), "busy-seq-%ld;", s);

			if (write(fd, text, n) != n)
				_exit(1);
			atomic_store(&sh->seq, s);
		}
		_exit(0);
	}
	{
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	/* Let it record some. */
	while (atomic_load(&sh->seq) < 50)
		usleep(1000);
	ASSERT_EQ(0, cgt_cgroup_enter(cg_out, pid));
	seq_at_move = atomic_load(&sh->seq);
	while (atomic_load(&sh->seq) < seq_at_move + 200)
		usleep(1000);
	atomic_store(&sh->stop, 1);
	waitpid(pid, NULL, 0);
	rmdir(cg_in);
	rmdir(cg_out);
	rmdir(cg_nc);

	ASSERT_LT(0, cgt_instance_read(&self->inst, "trace", trace, 1 << 22));
	/*
	 * The move commits while the write to cgroup.procs is still busy
	 * (it waits for RCU), so the last recorded marker may be older than
	 * seq_at_move; none may be newer than the one in flight when the
	 * write returned.
	 */
	last = 0;
	for (p = strstr(trace, "busy-seq-"); p; p = strstr(p + 1, "busy-seq-"))
		last = max_l(last, strtol(p + 9, NULL, 10));
	EXPECT_LE(50, last) {
		TH_LOG("markers before the move were not recorded (last %ld)", last);
	}
	EXPECT_GE(seq_at_move + 1, last) {
		TH_LOG("marker %ld recorded after the move returned at %ld", last, seq_at_move);
	}
	munmap(sh, sizeof(*sh));
	free(trace);
}

/* A task moving itself in or out is filtered from its very next marker. */
TEST_F_TIMEOUT(cgf, self_move_then_marker, 180)
{
	char in[512];
	pid_t pid;

	snprintf(in, sizeof(in), "/%s", self->name_a);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	pid = fork();
	if (!pid) {
		int i;

		for (i = 0; i < 20; i++) {
			char t[64];

			cgt_cgroup_enter(self->cg_b, 0);
			snprintf(t, sizeof(t), "self-out-%d;", i);
			marker(&self->inst, t);
			cgt_cgroup_enter(self->cg_a, 0);
			snprintf(t, sizeof(t), "self-in-%d;", i);
			marker(&self->inst, t);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	for (int i = 0; i < 20; i++) {
		char t[64];

		snprintf(t, sizeof(t), "self-out-%d;", i);
		EXPECT_FALSE(trace_has(&self->inst, t));
		snprintf(t, sizeof(t), "self-in-%d;", i);
		EXPECT_TRUE(trace_has(&self->inst, t));
	}
}

/* clone3(CLONE_INTO_CGROUP): the child is filtered by its cgroup from birth. */
TEST_F_TIMEOUT(cgf, clone_into_cgroup, 180)
{
	struct clone_args args = { 0 };
	char in[512];
	int cgfd, status;
	pid_t pid;

	snprintf(in, sizeof(in), "/%s", self->name_a);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	/* The parent runs in B (untraced) and starts a child right into A. */
	ASSERT_EQ(0, cgt_cgroup_enter(self->cg_b, 0));
	ASSERT_EQ(0, marker(&self->inst, "parent-in-b"));
	cgfd = open(self->cg_a, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = cgfd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(marker(&self->inst, "child-born-in-a") ? 1 : 0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(cgfd);
	/* The child exits 0 only if its marker write succeeded. */
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* And the reverse: a parent in A starts a child into B. */
	ASSERT_EQ(0, cgt_cgroup_enter(self->cg_a, 0));
	cgfd = open(self->cg_b, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	args.cgroup = cgfd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(marker(&self->inst, "child-born-in-b") ? 1 : 0);
	/* Without a child in B, "child-born-in-b" would be absent anyway. */
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(cgfd);
	ASSERT_EQ(0, marker(&self->inst, "parent-in-a"));
	cgt_cgroup_enter(CGT_CGROUP2, 0);

	EXPECT_TRUE(trace_has(&self->inst, "child-born-in-a"));
	EXPECT_FALSE(trace_has(&self->inst, "child-born-in-b"));
	EXPECT_FALSE(trace_has(&self->inst, "parent-in-b"));
	EXPECT_TRUE(trace_has(&self->inst, "parent-in-a"));
}

/* nr_dying_descendants of cgroup directory @dir, or -1 */
static long dying(const char *dir)
{
	char p[512], buf[512], *at;

	snprintf(p, sizeof(p), "%s/cgroup.stat", dir);
	if (cgt_read_file(p, buf, sizeof(buf)) < 0)
		return -1;
	at = strstr(buf, "nr_dying_descendants ");
	return at ? atol(at + 21) : -1;
}

/*
 * A listed cgroup that is removed matches nothing new, and the list does
 * not keep it: it is freed as an unlisted one is (no dying cgroup stays).
 */
TEST_F_TIMEOUT(cgf, removed_cgroup, 180)
{
	char in[512], want[512], gone[256], name[128];
	unsigned long long id;
	long dying_before;
	int waited;
	pid_t pid;

	snprintf(name, sizeof(name), "%s/gone", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(name, gone, sizeof(gone)));
	snprintf(in, sizeof(in), "/%s /%s", name, self->name_b);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	pid = fork();
	if (!pid) {
		cgt_cgroup_enter(gone, 0);
		marker(&self->inst, "in-gone-before-rmdir");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	id = cg_id(gone);
	dying_before = dying(self->cg_a);
	ASSERT_LE(0, dying_before);
	ASSERT_EQ(0, rmdir(gone));
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", self->buf, sizeof(self->buf)));
	/* Shown as a comment: nothing can name it any more */
	snprintf(want, sizeof(want), "# id:%llu (removed)\n/%s\n", id,
		 self->name_b);
	EXPECT_STREQ(want, self->buf);
	/* Freed while still listed: it does not stay a dying cgroup */
	for (waited = 0; waited < 100 && dying(self->cg_a) > dying_before; waited++)
		usleep(50000);
	EXPECT_EQ(dying_before, dying(self->cg_a))
		TH_LOG("a removed cgroup on a list stays dying");
	/* A new cgroup of the same name is a different cgroup. */
	ASSERT_EQ(0, cgt_cgroup_create(name, gone, sizeof(gone)));
	pid = fork();
	if (!pid) {
		cgt_cgroup_enter(gone, 0);
		marker(&self->inst, "in-new-same-name");
		cgt_cgroup_enter(self->cg_b, 0);
		marker(&self->inst, "in-b-still-listed");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(trace_has(&self->inst, "in-gone-before-rmdir"));
	EXPECT_FALSE(trace_has(&self->inst, "in-new-same-name"));
	EXPECT_TRUE(trace_has(&self->inst, "in-b-still-listed"));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", "\n", O_TRUNC));
	rmdir(gone);
}

/*
 * After an O_TRUNC open, the first write that succeeds replaces the list:
 * a write that fails before it leaves the replace to it, as
 * set_event_pid, which clears at open, ends with the new list alone.
 */
TEST_F_TIMEOUT(cgf, failed_write_keeps_the_replace, 180)
{
	char p[512], in[256], want[256];
	unsigned int i;
	int fd;

	for (i = 0; i < NR_FILES; i++) {
		snprintf(in, sizeof(in), "/%s", self->name_a);
		ASSERT_EQ(0, write_list(&self->inst, files[i], in, O_TRUNC));
		fd = open(cgt_instance_file(&self->inst, files[i], p, sizeof(p)),
			  O_WRONLY | O_TRUNC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(-1, write(fd, "/no-such-cgroup-xyz", 19));
		EXPECT_EQ(ENOENT, errno);
		/* Nothing changed yet */
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		snprintf(want, sizeof(want), "/%s\n", self->name_a);
		EXPECT_STREQ(want, self->buf);
		snprintf(in, sizeof(in), "/%s", self->name_b);
		EXPECT_EQ((ssize_t)strlen(in), write(fd, in, strlen(in)));
		close(fd);
		ASSERT_LT(0, read_list(&self->inst, files[i], self->buf, sizeof(self->buf)));
		snprintf(want, sizeof(want), "/%s\n", self->name_b);
		EXPECT_STREQ(want, self->buf) TH_LOG("%s", files[i]);
		ASSERT_EQ(0, write_list(&self->inst, files[i], "\n", O_TRUNC));
	}
}

/*
 * What reading a file prints, written back, gives the same list: paths
 * with white space or a backslash come escaped, a removed cgroup as a
 * comment (nothing can name it any more: the list written back leaves it
 * out). Tools save the files before they change them and restore them.
 */
TEST_F_TIMEOUT(cgf, listing_writes_back, 180)
{
	char spaced[256], slashed[256], nbsp[256], gone[256], name[128], in[1024];
	char first[4096], *comment_end;
	pid_t pid;

	snprintf(name, sizeof(name), "%s/two words\tand tab", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(name, spaced, sizeof(spaced)));
	snprintf(name, sizeof(name), "%s/back\\slash", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(name, slashed, sizeof(slashed)));
	/* UTF-8 for a no-break space: byte 0xa0 is white space to isspace() */
	snprintf(name, sizeof(name), "%s/no\302\240break", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(name, nbsp, sizeof(nbsp)));
	snprintf(name, sizeof(name), "%s/gone", self->name_a);
	ASSERT_EQ(0, cgt_cgroup_create(name, gone, sizeof(gone)));
	snprintf(in, sizeof(in), "id:%llu id:%llu id:%llu id:%llu", cg_id(gone),
		 cg_id(spaced), cg_id(slashed), cg_id(nbsp));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	ASSERT_EQ(0, rmdir(gone));

	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", first, sizeof(first)));
	EXPECT_EQ('#', first[0]) TH_LOG("%s", first);
	EXPECT_NE(NULL, strstr(first, "two\\040words\\011and\\040tab\n"))
		TH_LOG("%s", first);
	EXPECT_NE(NULL, strstr(first, "back\\134slash\n")) TH_LOG("%s", first);
	/* Every byte outside printable ASCII is escaped */
	EXPECT_NE(NULL, strstr(first, "no\\302\\240break\n")) TH_LOG("%s", first);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", first, O_TRUNC));
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", self->buf,
			       sizeof(self->buf)));
	comment_end = strchr(first, '\n');
	ASSERT_NE(NULL, comment_end);
	EXPECT_STREQ(comment_end + 1, self->buf);
	/* Written back, the escaped name is the cgroup itself */
	snprintf(in, sizeof(in), "id:%llu", cg_id(nbsp));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_notrace_cgroup", in, O_TRUNC));
	ASSERT_LT(0, read_list(&self->inst, "set_event_notrace_cgroup", in, sizeof(in)));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_notrace_cgroup", in, O_TRUNC));
	ASSERT_LT(0, read_list(&self->inst, "set_event_notrace_cgroup", name, sizeof(name)));
	EXPECT_STREQ(in, name);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_notrace_cgroup", "\n", O_TRUNC));

	/* The escaped path names the cgroup itself: its task is recorded */
	pid = fork();
	if (!pid) {
		cgt_cgroup_enter(spaced, 0);
		marker(&self->inst, "in-the-spaced-cgroup");
		cgt_cgroup_enter(self->cg_b, 0);
		marker(&self->inst, "in-b-unlisted");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(trace_has(&self->inst, "in-the-spaced-cgroup"));
	EXPECT_FALSE(trace_has(&self->inst, "in-b-unlisted"));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", "\n", O_TRUNC));
	rmdir(spaced);
	rmdir(slashed);
	rmdir(nbsp);
}

/*
 * Read from inside a cgroup namespace, a list shows the namespace's own
 * cgroups as its paths and the others as ids, and that listing written
 * back from there lists the same cgroups. An id outside the namespace
 * that the list does not hold names nothing there (ENOENT).
 */
TEST_F_TIMEOUT(cgf, listing_from_a_cgroup_namespace, 180)
{
	char in[512], want[512];
	int status;
	pid_t pid;

	snprintf(in, sizeof(in), "/%s/child /%s", self->name_a, self->name_b);
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", in, O_TRUNC));
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", want, sizeof(want)));
	pid = fork();
	if (!pid) {
		char got[512], exp[512], id_b[64];

		cgt_cgroup_enter(self->cg_a, 0);
		if (unshare(CLONE_NEWCGROUP))
			_exit(10);
		if (read_list(&self->inst, "set_event_cgroup", got, sizeof(got)) <= 0)
			_exit(11);
		snprintf(exp, sizeof(exp), "/child\nid:%llu\n", cg_id(self->cg_b));
		if (strcmp(got, exp)) {
			fprintf(stderr, "in the namespace: got \"%s\", want \"%s\"\n",
				got, exp);
			_exit(12);
		}
		if (write_list(&self->inst, "set_event_cgroup", got, O_TRUNC))
			_exit(13);
		/* Not listed and outside: it names nothing here */
		snprintf(id_b, sizeof(id_b), "id:%llu", cg_id(self->cg_b));
		if (write_list(&self->inst, "set_event_notrace_cgroup", id_b,
			       O_TRUNC) != -ENOENT)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d failed", WEXITSTATUS(status));
	ASSERT_LT(0, read_list(&self->inst, "set_event_cgroup", self->buf, sizeof(self->buf)));
	EXPECT_STREQ(want, self->buf);
	EXPECT_EQ(0, read_list(&self->inst, "set_event_notrace_cgroup", self->buf,
			       sizeof(self->buf)));
	ASSERT_EQ(0, write_list(&self->inst, "set_event_cgroup", "\n", O_TRUNC));
}

/* Removing an instance with filters set releases them (cgroups removable). */
TEST_F_TIMEOUT(cgf, instance_removal_releases, 180)
{
	struct cgt_instance tmp;
	char in[512];

	ASSERT_EQ(0, cgt_instance_create(&tmp, "cgf-tmp"));
	snprintf(in, sizeof(in), "/%s/child", self->name_a);
	ASSERT_EQ(0, write_list(&tmp, "set_event_cgroup", in, O_TRUNC));
	ASSERT_EQ(0, write_list(&tmp, "set_ftrace_notrace_cgroup", in, O_TRUNC));
	ASSERT_EQ(0, write_list(&tmp, "set_event_pid", "1", O_TRUNC));
	ASSERT_EQ(0, cgt_instance_destroy(&tmp));
	/* Nothing holds the cgroup back from being removed and re-made. */
	ASSERT_EQ(0, rmdir(self->cg_a_child));
	ASSERT_EQ(0, mkdir(self->cg_a_child, 0755));
}

TEST_HARNESS_MAIN
