// SPDX-License-Identifier: GPL-2.0
/*
 * pid_filter_test - the pid files on the per-CPU verdict behave as they
 * always did: in every instance however many filter, for the function
 * tracer (only the listed task's functions, never the previous task's
 * at a context switch), for sched_switch (dropped only when one rule
 * rejects both tasks) and for events written by other paths than a
 * tracepoint (event injection).
 *
 * Expected values are computed from what each test ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define TRACE_BUF	(4 * 1024 * 1024)
/* More instances than the per-CPU masks have bits on 64-bit kernels */
#define MANY		70

FIXTURE(pf) {
	struct cgt_instance inst;
	char *trace;
};

FIXTURE_SETUP(pf)
{
	if (access(CGT_TRACEFS "/set_event_pid", F_OK))
		CGT_SETUP_SKIP("kernel without set_event_pid");
	self->trace = malloc(TRACE_BUF);
	ASSERT_NE(NULL, self->trace);
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "pf"));
}

FIXTURE_TEARDOWN(pf)
{
	if (!self->trace)
		return;
	cgt_instance_write(&self->inst, "current_tracer", "nop");
	cgt_instance_destroy(&self->inst);
	free(self->trace);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int nr_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* A child that waits for SIGCONT, then calls getppid() @calls times */
static pid_t getppid_child(int calls)
{
	pid_t pid = fork();
	int i;

	if (pid)
		return pid;
	raise(SIGSTOP);
	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	_exit(0);
}

/* A child that spins on CPU @cpu, calling getppid(), until killed */
static pid_t busy_child(int cpu)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	pin_to(cpu);
	for (;;)
		syscall(SYS_getppid);
}

static void wait_stopped(pid_t pid)
{
	int status;

	waitpid(pid, &status, WUNTRACED);
}

static void run_and_reap(pid_t pid)
{
	kill(pid, SIGCONT);
	waitpid(pid, NULL, 0);
}

static void kill_and_reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * line_pid - the pid of a trace line ("  comm-PID  [CPU] ..."): the
 * digits before the spaces that precede the CPU field; -1 if none
 */
static int line_pid(const char *line, const char *end)
{
	const char *p = line, *d;

	while ((p = memchr(p, '[', end - p))) {
		d = p - 1;
		while (d > line && *d == ' ')
			d--;
		if (d > line && d[0] >= '0' && d[0] <= '9') {
			while (d > line && d[-1] >= '0' && d[-1] <= '9')
				d--;
			if (d > line && d[-1] == '-')
				return atoi(d);
		}
		p++;
	}
	return -1;
}

/*
 * count_lines - trace lines holding @needle: all of them (@all), those of
 * task @pid (@of_pid) and those of other tasks (@others)
 */
static void count_lines(const char *text, const char *needle, int pid,
			int *all, int *of_pid, int *others)
{
	const char *line = text, *end;

	*all = *of_pid = *others = 0;
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#' ||
		    !memmem(line, end - line, needle, strlen(needle)))
			continue;
		(*all)++;
		if (line_pid(line, end) == pid)
			(*of_pid)++;
		else
			(*others)++;
	}
}

static const char *read_trace(struct cgt_instance *inst, char *buf)
{
	if (cgt_instance_read(inst, "trace", buf, TRACE_BUF) < 0)
		buf[0] = '\0';
	return buf;
}

static int write_pid(struct cgt_instance *inst, const char *file, pid_t pid)
{
	char s[32];

	snprintf(s, sizeof(s), "%d", pid);
	return cgt_instance_write(inst, file, s);
}

static bool has_function(const char *name)
{
	static char *funcs;
	char key[128];

	if (!funcs) {
		funcs = malloc(16 << 20);
		if (!funcs || cgt_read_file(CGT_TRACEFS "/available_filter_functions",
					    funcs, 16 << 20) < 0)
			return false;
	}
	snprintf(key, sizeof(key), "\n%s\n", name);
	return strstr(funcs, key);
}

/* getppid()'s traceable function: the syscall wrapper or its body */
static const char *getppid_function(void)
{
	if (has_function("__x64_sys_getppid"))
		return "__x64_sys_getppid";
	if (has_function("__do_sys_getppid"))
		return "__do_sys_getppid";
	return NULL;
}

/*
 * Every instance can filter by pid, as on a kernel without the verdict:
 * past the bits of the per-CPU masks, an instance records exactly the
 * listed task's events and functions all the same.
 */
TEST_F_TIMEOUT(pf, pid_files_work_in_every_instance, 600)
{
	struct cgt_instance many[MANY], *last = &many[MANY - 1];
	int i, n = 0, ret = 0, all, of_a, others, calls = 50;
	const char *fn = getppid_function();
	char name[32], key[64];
	pid_t a, b;

	if (access(CGT_TRACEFS "/events/syscalls/sys_enter_getppid", F_OK))
		SKIP(return, "no syscall events (FTRACE_SYSCALLS)");
	a = getppid_child(calls);
	b = getppid_child(calls);
	wait_stopped(a);
	wait_stopped(b);
	for (i = 0; i < MANY && !ret; i++) {
		snprintf(name, sizeof(name), "pf-many%d", i);
		ret = cgt_instance_create(&many[i], name);
		if (ret)
			break;
		n++;
		/* The last one filters a, the others an unrelated pid */
		ret = write_pid(&many[i], "set_event_pid", i == MANY - 1 ? a : 1);
	}
	EXPECT_EQ(0, ret) TH_LOG("instance %d: %s", i, strerror(-ret));
	if (!ret) {
		const char *getppid_enable = "events/syscalls/sys_enter_getppid/enable";

		ASSERT_EQ(0, cgt_instance_write(last, getppid_enable, "1"));
		if (fn) {
			ASSERT_EQ(0, write_pid(last, "set_ftrace_pid", a));
			ASSERT_EQ(0, cgt_instance_write(last, "set_ftrace_filter",
							fn));
			ASSERT_EQ(0, cgt_instance_write(last, "current_tracer",
							"function"));
		}
		run_and_reap(a);
		run_and_reap(b);
		cgt_instance_write(last, "tracing_on", "0");
		read_trace(last, self->trace);
		count_lines(self->trace, "sys_getppid(", a, &all, &of_a, &others);
		EXPECT_EQ(calls, of_a) TH_LOG("%d syscall events of the listed task", of_a);
		EXPECT_EQ(0, others) TH_LOG("%d syscall events of other tasks", others);
		if (fn) {
			snprintf(key, sizeof(key), "%s <-", fn);
			count_lines(self->trace, key, a, &all, &of_a, &others);
			EXPECT_EQ(calls, of_a);
			EXPECT_EQ(0, others);
		}
		cgt_instance_write(last, "current_tracer", "nop");
	} else {
		kill_and_reap(a);
		kill_and_reap(b);
	}
	for (i = 0; i < n; i++)
		cgt_instance_destroy(&many[i]);
}

/*
 * function_only_of - a listed (@listed_file) or a notrace (@notrace_file)
 * task spins beside another one on CPU 0 with the function tracer on
 * getppid() and on the context switch's own mm switch: every function
 * record must be of a traced task. The previous task runs the mm switch
 * after the switch probes decided for the next one.
 */
static void function_only_of(struct __test_metadata *_metadata,
			     struct cgt_instance *inst, char *trace,
			     bool notrace)
{
	const char *fn = getppid_function();
	int all, of_a, others;
	char filter[512];
	pid_t a, b;

	if (!has_function("switch_mm_irqs_off") || !fn)
		SKIP(return, "switch_mm_irqs_off or getppid() not traceable");
	/* One function a write: the file takes the first word of each */
	ASSERT_EQ(0, cgt_instance_write(inst, "set_ftrace_filter",
					"switch_mm_irqs_off"));
	ASSERT_EQ(0, cgt_append_file(cgt_instance_file(inst, "set_ftrace_filter",
						       filter, sizeof(filter)), fn));
	a = busy_child(0);
	b = busy_child(0);
	/* notrace lists the other task: a is the only one traced either way */
	ASSERT_EQ(0, write_pid(inst, notrace ? "set_ftrace_notrace_pid" :
			       "set_ftrace_pid", notrace ? b : a));
	if (notrace)
		ASSERT_EQ(0, write_pid(inst, "set_ftrace_pid", a));
	ASSERT_EQ(0, cgt_instance_write(inst, "current_tracer", "function"));
	usleep(1500000);
	ASSERT_EQ(0, cgt_instance_write(inst, "tracing_on", "0"));
	kill_and_reap(a);
	kill_and_reap(b);
	read_trace(inst, trace);
	/*
	 * The traced task's own mm switches run before its verdict is
	 * current's: none is recorded, and none of the others either.
	 */
	count_lines(trace, "switch_mm_irqs_off <-", a, &all, &of_a, &others);
	EXPECT_EQ(0, others)
		TH_LOG("%d mm switches of %d recorded for untraced tasks", others, all);
	snprintf(filter, sizeof(filter), "%s <-", fn);
	count_lines(trace, filter, a, &all, &of_a, &others);
	EXPECT_LT(0, of_a);
	EXPECT_EQ(0, others);
}

TEST_F_TIMEOUT(pf, function_pid_filter_admits_only_the_listed_task, 180)
{
	function_only_of(_metadata, &self->inst, self->trace, false);
}

TEST_F_TIMEOUT(pf, function_notrace_pid_keeps_the_task_out, 180)
{
	function_only_of(_metadata, &self->inst, self->trace, true);
}

/*
 * set_event_pid and set_event_notrace_pid both list b: b is rejected by
 * the notrace rule only, every other task by the pid rule only. A switch
 * between b and another task is kept (no one rule rejects both), a switch
 * between two other tasks is not.
 */
TEST_F_TIMEOUT(pf, switch_dropped_only_when_one_rule_rejects_both, 180)
{
	int all, of_b, others, i;
	char *line, *end, key[64];
	pid_t b;

	if (nr_cpus() < 1)
		SKIP(return, "no CPU");
	b = fork();
	if (!b) {
		pin_to(0);
		raise(SIGSTOP);
		for (i = 0; i < 20; i++)
			usleep(2000);
		_exit(0);
	}
	wait_stopped(b);
	ASSERT_EQ(0, write_pid(&self->inst, "set_event_pid", b));
	ASSERT_EQ(0, write_pid(&self->inst, "set_event_notrace_pid", b));
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/sched/sched_switch/enable", "1"));
	run_and_reap(b);
	usleep(100000);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "0"));
	read_trace(&self->inst, self->trace);

	snprintf(key, sizeof(key), "prev_pid=%d ", b);
	count_lines(self->trace, key, b, &all, &of_b, &others);
	EXPECT_LT(0, all) TH_LOG("no switch out of the notrace-listed task kept");
	/* No switch between two tasks that the pid rule alone rejects */
	snprintf(key, sizeof(key), "pid=%d ", b);
	for (line = self->trace; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#' || !memmem(line, end - line, "sched_switch:", 13))
			continue;
		EXPECT_NE(NULL, memmem(line, end - line, key, strlen(key)))
			TH_LOG("%.*s", (int)(end - line), line);
	}
}

/*
 * Event injection reserves and commits an event without a tracepoint:
 * the pid filter still applies to it, as it did.
 */
TEST_F_TIMEOUT(pf, injected_events_follow_the_pid_filter, 120)
{
	const char *inject = "events/sched/sched_kthread_stop_ret/inject";
	char p[512];

	if (access(cgt_instance_file(&self->inst, inject, p, sizeof(p)), F_OK))
		SKIP(return, "no event injection (TRACE_EVENT_INJECT)");
	/* Another task listed: an injection by this one is not recorded */
	ASSERT_EQ(0, write_pid(&self->inst, "set_event_pid", getppid()));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, inject, "ret=4711"));
	read_trace(&self->inst, self->trace);
	EXPECT_EQ(NULL, strstr(self->trace, "ret=4711"));
	/* This one listed: recorded */
	ASSERT_EQ(0, write_pid(&self->inst, "set_event_pid", getpid()));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, inject, "ret=4712"));
	read_trace(&self->inst, self->trace);
	EXPECT_NE(NULL, strstr(self->trace, "ret=4712"));
}

TEST_HARNESS_MAIN
