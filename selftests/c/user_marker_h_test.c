// SPDX-License-Identifier: GPL-2.0
/*
 * user_marker_h_test - what tools/tracing/cgtrace/user_marker.h promises
 * with the kernel's enable state (user_events_enabled): a marker nobody
 * records makes no system call (counted by the raw_syscalls:sys_enter
 * tracepoint through perf, for this thread alone); spans stay in step
 * with the kernel's account of them when the state changes between a
 * begin and its end; a forked child starts with no span of its parent;
 * a process that may not map the page (seccomp) writes every marker.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "cgt_util.h"
/* the one file of the program that holds user_marker.h's state */
#define USER_MARKER_IMPLEMENTATION
#include "user_marker.h"

#define TRACE_BUF	(1 << 20)

FIXTURE(umh) {
	struct cgt_instance inst;
	char *trace;
	int perf;
};

/* A counter of this thread's system calls, or -1 */
static int syscall_counter(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	char buf[32];

	if (cgt_read_file(CGT_TRACEFS "/events/raw_syscalls/sys_enter/id", buf,
			  sizeof(buf)) <= 0)
		return -1;
	a.config = strtoull(buf, NULL, 10);
	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

/* The system calls since the last call, less the read(2) that counts */
static long long syscalls_since(int fd)
{
	static long long last;
	long long v = 0, d;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	d = v - last - 1;
	last = v;
	return d;
}

static int markers(struct cgt_instance *inst, const char *ev, int on)
{
	char file[128];

	snprintf(file, sizeof(file), "events/user_markers/%s/enable", ev);
	return cgt_instance_write(inst, file, on ? "1" : "0");
}

FIXTURE_SETUP(umh)
{
	if (access(CGT_TRACEFS "/user_events_enabled", F_OK))
		CGT_SETUP_SKIP("kernel without user_events_enabled");
	self->perf = syscall_counter();
	if (self->perf < 0)
		CGT_SETUP_SKIP("no perf counter of raw_syscalls:sys_enter (%s)", strerror(errno));
	self->trace = malloc(TRACE_BUF);
	ASSERT_NE(NULL, self->trace);
	/* Nothing else records markers while this runs */
	ASSERT_EQ(0, cgt_write_file(CGT_TRACEFS "/events/user_markers/enable", "0"));
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "umh"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
}

FIXTURE_TEARDOWN(umh)
{
	if (!self->trace)
		return;
	cgt_instance_destroy(&self->inst);
	free(self->trace);
	close(self->perf);
}

#define ROUNDS	1000

/* Every kind of marker, once: what a disabled round must not make a call for */
static void all_kinds(void)
{
	um_begin("x");
	um_counter("c", 1);
	um_instant("i");
	um_async_begin("a", 7);
	um_async_end("a", 7);
	um_end();
}

TEST_F_TIMEOUT(umh, disabled_markers_make_no_system_call, 120)
{
	int i;

	all_kinds();	/* the files opened and the page mapped once */
	syscalls_since(self->perf);
	for (i = 0; i < ROUNDS; i++)
		all_kinds();
	EXPECT_EQ(0, syscalls_since(self->perf));
	/*
	 * On: one write a marker, counted the same way (once the first
	 * written marker has opened user_events, which nothing did so far)
	 */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "1"));
	all_kinds();
	syscalls_since(self->perf);
	for (i = 0; i < ROUNDS; i++)
		all_kinds();
	EXPECT_EQ(6 * ROUNDS, syscalls_since(self->perf));
	EXPECT_EQ(6 * (ROUNDS + 1), cgt_instance_stat(&self->inst, "recorded"));
	/* Only counters on: the others cost nothing */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	ASSERT_EQ(0, markers(&self->inst, "counter", 1));
	syscalls_since(self->perf);
	for (i = 0; i < ROUNDS; i++)
		all_kinds();
	EXPECT_EQ(ROUNDS, syscalls_since(self->perf));
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

/*
 * A span begun while begin and end were off is not ended in the kernel
 * either (it did not follow it); one begun while on is ended whatever
 * the state is at its end; spans begun inside a written one are written.
 */
TEST_F_TIMEOUT(umh, spans_stay_in_step_when_the_state_changes, 120)
{
	ASSERT_EQ(0, markers(&self->inst, "instant", 1));
	um_instant("sync");		/* opened and mapped */
	syscalls_since(self->perf);
	um_begin("unwritten");		/* begin and end off */
	EXPECT_EQ(0, syscalls_since(self->perf));
	ASSERT_EQ(0, markers(&self->inst, "begin", 1));
	ASSERT_EQ(0, markers(&self->inst, "end", 1));
	syscalls_since(self->perf);
	um_begin("written");
	um_end();			/* ends "written" */
	um_end();			/* "unwritten": nothing to write */
	EXPECT_EQ(2, syscalls_since(self->perf));

	um_begin("kept");		/* written while on */
	ASSERT_EQ(0, markers(&self->inst, "begin", 0));
	ASSERT_EQ(0, markers(&self->inst, "end", 0));
	syscalls_since(self->perf);
	um_begin("inside");		/* off, but inside a written span */
	um_end();
	um_end();			/* ends "kept" */
	EXPECT_EQ(3, syscalls_since(self->perf));
	um_begin("off");		/* off, nothing written open */
	um_end();
	EXPECT_EQ(0, syscalls_since(self->perf));

	cgt_instance_read(&self->inst, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(1, count_of(self->trace, "begin: written depth=0"));
	EXPECT_EQ(1, count_of(self->trace, "end: written depth=0"));
	EXPECT_EQ(0, count_of(self->trace, "unwritten"));
	EXPECT_EQ(0, count_of(self->trace, " unmatched"));
	EXPECT_EQ(1, count_of(self->trace, "begin: kept depth=0"));
	/* the kernel followed and closed them: nothing left open */
	EXPECT_EQ(0, cgt_instance_stat(&self->inst, "rejected"));
	ASSERT_EQ(0, markers(&self->inst, "begin", 1));
	ASSERT_EQ(0, markers(&self->inst, "end", 1));
	um_begin("after");
	um_end();
	cgt_instance_read(&self->inst, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(1, count_of(self->trace, "end: after depth=0"))
		TH_LOG("the kernel's span stack is out of step:\n%s", self->trace);
}

/* A fork's child has none of its parent's spans open, as the kernel sees it */
TEST_F_TIMEOUT(umh, a_forked_child_starts_with_no_span, 120)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, markers(&self->inst, "begin", 1));
	um_begin("parent");		/* written: begin is on */
	pid = fork();
	if (!pid) {
		int fd = syscall_counter();

		if (fd < 0)
			_exit(3);
		syscalls_since(fd);
		/* end is off and the child has nothing open: no write */
		um_end();
		_exit(syscalls_since(fd) == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the child wrote an end of its parent's span");
	um_end();
}

/*
 * A process that cannot map the page (here: no address space left for
 * it, as a sandbox that refuses file mappings would) writes every marker,
 * as without the state: the kernel then counts the disabled ones.
 */
TEST_F_TIMEOUT(umh, without_the_page_every_marker_is_written, 120)
{
	int status;
	pid_t pid;

	pid = fork();
	if (!pid) {
		int fd = syscall_counter();
		struct rlimit as;
		char line[256];
		FILE *f;
		long used = 0;

		/* the address space in use now: no room for one more page */
		f = fopen("/proc/self/status", "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "VmSize: %ld kB", &used);
		if (fd < 0 || !f || !used)
			_exit(3);
		fclose(f);
		as.rlim_cur = as.rlim_max = used * 1024;
		if (setrlimit(RLIMIT_AS, &as))
			_exit(4);
		um_instant("first");	/* no page: written */
		syscalls_since(fd);
		um_instant("second");
		um_begin("s");
		um_end();
		_exit(syscalls_since(fd) == 3 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* all off everywhere: the kernel saw them and counted them disabled */
	EXPECT_EQ(0, cgt_instance_stat(&self->inst, "recorded"));
}

TEST_HARNESS_MAIN
