// SPDX-License-Identifier: GPL-2.0
/*
 * race_test - the promises of the context filters and the markers while
 * CPUs race, filters and triggers combine, and state changes under them:
 *
 *  - every marker record is counted once, where it went: recorded,
 *    discarded by the event's own filter, or not taken by the ring buffer
 *    (also when a histogram trigger still sees it);
 *  - a task is judged by its new cgroup from its first event after the
 *    move returned, even when it was being switched in during the move;
 *  - removing an instance's last rule leaves no stale verdict behind;
 *  - span stacks stay in step whether or not records are recorded;
 *  - an exited group leader leaves the event-fork pid list;
 *  - reading a cgroup list does not hold the lock that every event file
 *    operation needs;
 *  - lost_pending is never more than rate_limited, also while written;
 *  - threads of a group on every CPU share its tokens, none given twice;
 *  - no record is silently lost: records of disabled events are counted,
 *    and prctl refuses arguments it does not use.
 *
 * Races that cannot be forced from user space run many iterations and
 * count the wrong outcome, which must be zero; their comments say so.
 * RACE_TEST_ONLY=WORD runs only the tests whose name holds WORD.
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#ifndef CGT_SETUP_SKIP
/* A skip in FIXTURE_SETUP must not run the body (6.1's harness would) */
#define CGT_SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)
#endif

#define TRACE_BUF	(8 << 20)

static char *trace_buf;

/* The needs every test of this file has, checked in the fixture. */
static const char *missing_feature(void)
{
	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK))
		return "kernel without set_event_cgroup (TRACE_CGROUP_FILTER)";
	if (access(CGT_TRACEFS "/user_events", F_OK))
		return "kernel without user_events (TRACE_USER_MARKERS)";
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
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

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

static const char *trace_of(struct cgt_instance *inst)
{
	if (cgt_instance_read(inst, "trace", trace_buf, TRACE_BUF) < 0)
		trace_buf[0] = '\0';
	return trace_buf;
}

static int ue_write(struct cgt_instance *inst, const char *s)
{
	char p[PATH_MAX];

	return cgt_write_file_flags(cgt_instance_file(inst, "user_events", p,
						      sizeof(p)), s, strlen(s), 0);
}

/* Sum of a field of per_cpu/cpuN/stats ("entries", "dropped events") */
static long long rb_stat(struct cgt_instance *inst, const char *field)
{
	char path[PATH_MAX], buf[2048], key[64], *p;
	long long sum = 0;
	int cpu;

	snprintf(key, sizeof(key), "%s: ", field);
	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats",
			 inst->path, cpu);
		if (cgt_read_file(path, buf, sizeof(buf)) < 0)
			return -1;
		p = strstr(buf, key);
		if (!p)
			return -1;
		sum += strtoll(p + strlen(key), NULL, 10);
	}
	return sum;
}

FIXTURE(race) {
	struct cgt_instance inst;
	char cg_a[256], cg_b[256], name_a[64], name_b[64];
	int ready;
};

FIXTURE_SETUP(race)
{
	const char *why = missing_feature(), *only = getenv("RACE_TEST_ONLY");

	if (why)
		CGT_SETUP_SKIP("%s", why);
	/* scripts/stress runs one test at a time (this harness has no -t) */
	if (only && !strstr(_metadata->name, only))
		CGT_SETUP_SKIP("RACE_TEST_ONLY=%s", only);
	if (!trace_buf)
		trace_buf = malloc(TRACE_BUF);
	ASSERT_NE(NULL, trace_buf);
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "race"));
	snprintf(self->name_a, sizeof(self->name_a), "race-a-%d", getpid());
	snprintf(self->name_b, sizeof(self->name_b), "race-b-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(self->name_a, self->cg_a,
				       sizeof(self->cg_a)));
	ASSERT_EQ(0, cgt_cgroup_create(self->name_b, self->cg_b,
				       sizeof(self->cg_b)));
	self->ready = 1;
}

FIXTURE_TEARDOWN(race)
{
	if (!self->ready)
		return;
	cgt_cgroup_enter(CGT_CGROUP2, 0);
	cgt_instance_destroy(&self->inst);
	rmdir(self->cg_a);
	rmdir(self->cg_b);
}

/*
 * An event filter and a histogram on user_markers events: recorded counts
 * what is in the ring buffer (cross-checked with its own per-CPU stats),
 * event_filtered what the filter discarded, buffer_dropped what the buffer
 * did not take, also when the histogram saw it.
 */
TEST_F_TIMEOUT(race, counts_with_event_filter_and_histogram, 240)
{
	struct cgt_instance *in = &self->inst;
	long long rec0, acc, rec, drop, evf;
	char buf[4096];
	int i, n;

	pin_to(0);
	ASSERT_EQ(0, cgt_instance_write(in, "buffer_size_kb", "8"));
	ASSERT_EQ(0, cgt_instance_write(in, "options/overwrite", "0"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/enable", "1"));

	/* 1. A filter keeps the counters above 100: 10 of 20. */
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/counter/filter",
					"value > 100"));
	for (i = 0; i < 20; i++) {
		snprintf(buf, sizeof(buf), "C|0|filtered_c|%d", i < 10 ? i : 101 + i);
		ASSERT_EQ(0, ue_write(in, buf));
	}
	EXPECT_EQ(10, cgt_instance_stat(in, "recorded"));
	EXPECT_EQ(10, cgt_instance_stat(in, "event_filtered"));
	EXPECT_EQ(20, cgt_instance_stat(in, "accepted"));
	EXPECT_EQ(10, count_of(trace_of(in), "counter: filtered_c="));
	EXPECT_EQ(10, rb_stat(in, "entries"));

	/* 2. A histogram on end with recording off: it sees, nothing records. */
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/end/trigger",
					"hist:keys=name:vals=duration_ns"));
	ASSERT_EQ(0, cgt_instance_write(in, "tracing_on", "0"));
	rec0 = cgt_instance_stat(in, "recorded");
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ue_write(in, "B|0|hist_span\nE|0"));
	EXPECT_EQ(rec0, cgt_instance_stat(in, "recorded"));
	EXPECT_EQ(10, cgt_instance_stat(in, "buffer_dropped"));
	ASSERT_LT(0, cgt_instance_read(in, "events/user_markers/end/hist", buf,
				       sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "Hits: 5")) TH_LOG("hist:\n%s", buf);
	ASSERT_EQ(0, cgt_instance_write(in, "tracing_on", "1"));

	/*
	 * 3. Fill the buffer with the filter and the histogram in place: the
	 * filter's per-CPU copy and the histogram's fallback both meet a full
	 * buffer. The ring buffer's own counts must agree with ours.
	 */
	for (i = 0, n = 0; i < 2000 && cgt_instance_stat(in, "buffer_dropped") < 200; i++) {
		snprintf(buf, sizeof(buf),
			 "B|0|fill_%d\nC|0|fill_c|%d\nC|0|fill_c|%d\nE|0", i,
			 i % 2 ? 5 : 500, 600 + i);
		ASSERT_EQ(0, ue_write(in, buf));
		n += 4;
	}
	acc = cgt_instance_stat(in, "accepted");
	rec = cgt_instance_stat(in, "recorded");
	drop = cgt_instance_stat(in, "buffer_dropped");
	evf = cgt_instance_stat(in, "event_filtered");
	EXPECT_LT(0, drop);
	EXPECT_EQ(acc, rec + drop + evf);
	EXPECT_EQ(20 + 10 + n, acc);
	/* Every record refused while tracing was on is a dropped event there */
	EXPECT_EQ(rec, rb_stat(in, "entries"));
	EXPECT_EQ(drop - 10, rb_stat(in, "dropped events"));
	EXPECT_EQ(0, rb_stat(in, "overrun"));
}

/*
 * A span begun in the traced cgroup and ended outside it, then more spans:
 * the filtered end still pops its span, so later ends carry the right
 * names. The same when the end event is disabled for a while.
 */
TEST_F_TIMEOUT(race, span_stacks_stay_in_step, 180)
{
	struct cgt_instance *in = &self->inst;
	char list[128];
	const char *t;
	pid_t pid;
	int status;

	snprintf(list, sizeof(list), "/%s", self->name_a);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_cgroup", list));
	/* Spans only: top-level writes of other tasks (stress) carry none */
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/begin/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/end/enable", "1"));
	pid = fork();
	if (!pid) {
		/* Its own thread state: a fresh process */
		if (cgt_cgroup_enter(self->cg_a, 0) ||
		    ue_write(in, "B|0|first") ||
		    cgt_cgroup_enter(self->cg_b, 0) ||
		    ue_write(in, "E|0") ||
		    cgt_cgroup_enter(self->cg_a, 0) ||
		    ue_write(in, "B|0|second\nE|0\nE|0|third"))
			_exit(1);
		/* The end event off while a span closes, then on again */
		if (ue_write(in, "B|0|fourth") ||
		    cgt_instance_write(in, "events/user_markers/end/enable", "0") ||
		    ue_write(in, "E|0") ||
		    cgt_instance_write(in, "events/user_markers/end/enable", "1") ||
		    ue_write(in, "E|0|fifth"))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	t = trace_of(in);
	EXPECT_NE(NULL, strstr(t, "begin: first depth=0"));
	EXPECT_NE(NULL, strstr(t, "end: second depth=0")) TH_LOG("%s", t);
	EXPECT_EQ(NULL, strstr(t, "end: first")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "end: third depth=0 dur=0.000ms cpu=0.000ms unmatched"))
		TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "begin: fourth depth=0"));
	EXPECT_EQ(NULL, strstr(t, "end: fourth"));
	EXPECT_NE(NULL, strstr(t, "end: fifth depth=0 dur=0.000ms cpu=0.000ms unmatched"))
		TH_LOG("%s", t);
	EXPECT_EQ(1, cgt_instance_stat(in, "filtered"));
	EXPECT_EQ(1, cgt_instance_stat(in, "disabled"));
}

/*
 * The moved task is switched in and out all the time (it yields to a
 * partner on its CPU) while another CPU moves it between a traced and an
 * untraced cgroup. Each move happens while the task is between two of its
 * markers (a handshake), and after the move returns the mover publishes
 * a new phase; the task's markers carry the phase they were written in,
 * and go to both instances.
 * Every marker of an "in" phase must be recorded by the cgroup-filtered
 * instance, none of an "out" phase. The window this checks (the task
 * switched in on its CPU while it is moved) cannot be hit on purpose: the
 * test counts misjudged markers over many moves, and the count must be 0.
 */
TEST_F_TIMEOUT(race, moved_while_switching_in, 600)
{
	struct shared {
		atomic_int phase;	/* 0: moving, odd: in, even: out */
		atomic_int ack;		/* the phase the task last wrote in */
		atomic_int stop;
		atomic_long written;
	} *sh;
	struct cgt_instance all;
	char list[128];
	const char *t, *p;
	int moves = 300, nph = 2 * moves + 2, k, wrong = 0, out_written = 0;
	int missed = 0, excess = 0;
	int *all_n, *cg_n;
	pid_t task, partner;

	if (nr_cpus() < 2)
		SKIP(return, "needs 2 CPUs: one for the mover, one for the task");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	all_n = calloc(nph, sizeof(int));
	cg_n = calloc(nph, sizeof(int));
	ASSERT_NE(NULL, all_n);
	ASSERT_NE(NULL, cg_n);

	/* "all" records every marker, the fixture's instance only cgroup a's */
	ASSERT_EQ(0, cgt_instance_create(&all, "race-all"));
	ASSERT_EQ(0, cgt_instance_write(&all, "buffer_size_kb", "2048"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "buffer_size_kb", "2048"));
	/* A marker lost to an overwrite would count as misjudged: none is */
	ASSERT_EQ(0, cgt_instance_write(&all, "options/overwrite", "0"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/overwrite", "0"));
	/*
	 * Filters before events: top-level writes of other tasks (stress)
	 * reach both instances. "all" takes both of the task's cgroups, so
	 * that it sees the task's every marker and no one else's.
	 */
	snprintf(list, sizeof(list), "/%s /%s", self->name_a, self->name_b);
	ASSERT_EQ(0, cgt_instance_write(&all, "set_event_cgroup", list));
	snprintf(list, sizeof(list), "/%s", self->name_a);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", list));
	ASSERT_EQ(0, cgt_instance_write(&all, "events/user_markers/instant/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/user_markers/instant/enable", "1"));

	partner = fork();
	if (!partner) {
		pin_to(1);
		while (!atomic_load(&sh->stop))
			sched_yield();
		_exit(0);
	}
	task = fork();
	if (!task) {
		char rec[64], path[PATH_MAX];
		int fa, fc, ph, n, last = 0, in_phase = 0;

		pin_to(1);
		/* Each instance's own file: the top level's would reach others */
		fa = open(cgt_instance_file(&all, "user_events", path, sizeof(path)),
			  O_WRONLY);
		fc = open(cgt_instance_file(&self->inst, "user_events", path,
					    sizeof(path)), O_WRONLY);
		if (fa < 0 || fc < 0)
			_exit(1);
		while (!atomic_load(&sh->stop)) {
			sched_yield();
			ph = atomic_load(&sh->phase);
			if (!ph) {
				atomic_store(&sh->ack, 0);
				continue;
			}
			/*
			 * Three markers a phase, then only switches: on a slow
			 * host an unbounded writer filled the buffers (100,000
			 * markers, lost by the unfiltered instance, once).
			 */
			if (ph != last) {
				last = ph;
				in_phase = 0;
			}
			if (in_phase == 3)
				continue;
			in_phase++;
			n = snprintf(rec, sizeof(rec), "I|0|ph-%d", ph);
			if (write(fa, rec, n) != n || write(fc, rec, n) != n)
				_exit(2);
			atomic_store(&sh->ack, ph);
			atomic_fetch_add(&sh->written, 1);
		}
		_exit(0);
	}
	pin_to(0);
	for (k = 1; k <= 2 * moves; k++) {
		long w;

		/* The task must be between markers: it acks the phase 0 */
		atomic_store(&sh->phase, 0);
		while (atomic_load(&sh->ack))
			usleep(50);
		ASSERT_EQ(0, cgt_cgroup_enter(k % 2 ? self->cg_a : self->cg_b, task));
		w = atomic_load(&sh->written);
		atomic_store(&sh->phase, k);
		/* A few markers in this phase */
		while (atomic_load(&sh->written) < w + 3)
			usleep(50);
	}
	atomic_store(&sh->stop, 1);
	waitpid(task, NULL, 0);
	waitpid(partner, NULL, 0);

	/* What the task wrote, by phase, and what the filter recorded */
	t = trace_of(&all);
	for (p = strstr(t, "instant: ph-"); p; p = strstr(p + 1, "instant: ph-")) {
		k = atoi(p + 12);
		if (k > 0 && k < nph)
			all_n[k]++;
	}
	t = trace_of(&self->inst);
	for (p = strstr(t, "instant: ph-"); p; p = strstr(p + 1, "instant: ph-")) {
		k = atoi(p + 12);
		if (k > 0 && k < nph)
			cg_n[k]++;
	}
	for (k = 1; k < nph; k++) {
		if (k % 2) {
			missed += all_n[k] > cg_n[k] ? all_n[k] - cg_n[k] : 0;
			excess += cg_n[k] > all_n[k] ? cg_n[k] - all_n[k] : 0;
		} else {
			wrong += cg_n[k];
			out_written += all_n[k];
		}
	}
	/* In cgroup a: all recorded; out of it: none; "all" saw every one */
	EXPECT_EQ(0, missed) TH_LOG("%d markers of cgroup a not recorded", missed);
	EXPECT_EQ(0, wrong) TH_LOG("%d markers out of cgroup a recorded", wrong);
	EXPECT_EQ(0, excess) TH_LOG("%d markers lost by the unfiltered instance", excess);
	/* The check checked something: three markers a phase, both kinds */
	EXPECT_EQ(3 * moves, out_written);
	EXPECT_EQ(3 * moves, (int)cgt_instance_stat(&self->inst, "recorded"));
	EXPECT_EQ(0, cgt_instance_stat(&all, "buffer_dropped"));
	EXPECT_EQ(0, cgt_instance_stat(&self->inst, "buffer_dropped"));
	cgt_instance_destroy(&all);
	free(all_n);
	free(cg_n);
	munmap(sh, sizeof(*sh));
}

/*
 * Another instance keeps the filters' static key on while this one gets
 * and loses a cgroup rule over and over, with every CPU switching tasks.
 * Right after each removal a trace_marker write from every CPU must be
 * recorded: no verdict decided for the removed rule may survive it. The
 * window (a switch probe still running when the rule goes) cannot be hit
 * on purpose; the misses are counted and must be zero.
 */
TEST_F_TIMEOUT(race, last_rule_removal_leaves_no_stale_verdict, 600)
{
	struct cgt_instance keep;
	char list[128], path[PATH_MAX], text[64];
	int cpus = nr_cpus(), iters = 60, i, cpu, missing = 0;
	pid_t load[8];
	int nload = 0;

	ASSERT_EQ(0, cgt_instance_create(&keep, "race-keep"));
	snprintf(list, sizeof(list), "/%s", self->name_b);
	ASSERT_EQ(0, cgt_instance_write(&keep, "set_event_cgroup", list));
	/* Switch load on every CPU: pairs yielding to each other */
	for (cpu = 0; cpu < 2 * cpus && nload < 8; cpu++) {
		pid_t p = fork();

		if (!p) {
			pin_to(cpu / 2);
			for (;;)
				sched_yield();
		}
		load[nload++] = p;
	}
	snprintf(list, sizeof(list), "/%s", self->name_a);
	for (i = 0; i < iters; i++) {
		ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", list));
		ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", ""));
		for (cpu = 0; cpu < cpus; cpu++) {
			pid_t p = fork();

			if (!p) {
				pin_to(cpu);
				snprintf(text, sizeof(text), "after-removal-%d-%d;", i, cpu);
				cgt_instance_file(&self->inst, "trace_marker",
						  path, sizeof(path));
				_exit(cgt_write_file_flags(path, text,
							   strlen(text), 0) ? 1 : 0);
			}
			waitpid(p, NULL, 0);
		}
	}
	for (i = 0; i < nload; i++) {
		kill(load[i], SIGKILL);
		waitpid(load[i], NULL, 0);
	}
	trace_of(&self->inst);
	for (i = 0; i < iters; i++) {
		for (cpu = 0; cpu < cpus; cpu++) {
			snprintf(text, sizeof(text), "after-removal-%d-%d;", i, cpu);
			missing += !strstr(trace_buf, text);
		}
	}
	cgt_instance_destroy(&keep);
	EXPECT_EQ(0, missing) TH_LOG("%d of %d markers dropped by a stale verdict",
				     missing, iters * cpus);
}

/*
 * Enabling sched_switch in a pid-filtered instance changes the probes that
 * decide switches (one probe becomes a pre and a post probe around the
 * event), while every CPU switches tasks. A switch between two tasks that
 * are not listed must never be recorded, also in the middle of the change.
 * (upstream's event-pid.tc caught the post probe running without its pre.)
 */
TEST_F_TIMEOUT(race, probe_changes_keep_switch_verdicts, 600)
{
	struct cgt_instance *in = &self->inst;
	int cpus = nr_cpus(), i, k, nload = 0, strangers = 0, mine = 0;
	char word[32], needle[48];
	const char *t, *p;
	pid_t load[8];

	for (i = 0; i < 2 * cpus && nload < 8; i++) {
		pid_t c = fork();

		if (!c) {
			pin_to(i / 2);
			for (;;)
				sched_yield();
		}
		load[nload++] = c;
	}
	ASSERT_EQ(0, cgt_instance_write(in, "buffer_size_kb", "2048"));
	snprintf(word, sizeof(word), "%d", getpid());
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, cgt_instance_write(in, "set_event_pid", word));
		ASSERT_EQ(0, cgt_instance_write(in, "events/sched/sched_switch/enable", "1"));
		for (k = 0; k < 5; k++)
			sched_yield();
		ASSERT_EQ(0, cgt_instance_write(in, "events/sched/sched_switch/enable", "0"));
		ASSERT_EQ(0, cgt_instance_write(in, "set_event_pid", ""));
	}
	for (i = 0; i < nload; i++) {
		kill(load[i], SIGKILL);
		waitpid(load[i], NULL, 0);
	}
	t = trace_of(in);
	snprintf(needle, sizeof(needle), "pid=%d ", getpid());
	for (p = strstr(t, "sched_switch:"); p; p = strstr(p + 1, "sched_switch:")) {
		const char *e = strchr(p, '\n') ?: p + strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s ", (int)(e - p), p);
		if (strstr(line, needle))
			mine++;
		else
			strangers++;
	}
	EXPECT_EQ(0, strangers) TH_LOG("%d switches of unlisted tasks recorded", strangers);
	EXPECT_LT(0, mine);
}

/*
 * With event-fork, a listed group leader that exits leaves the list even
 * while its number lives on as the process group of its child; the child
 * stays listed.
 */
TEST_F_TIMEOUT(race, exited_group_leader_leaves_the_pid_list, 120)
{
	struct cgt_instance *in = &self->inst;
	int pipefd[2], i, leader_listed = 1, child_listed = 0;
	char buf[4096], word[32];
	pid_t leader, child = 0;

	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, cgt_instance_write(in, "options/event-fork", "1"));
	leader = fork();
	if (!leader) {
		char go;

		/* Its own process group; wait until listed, then fork, exit */
		setpgid(0, 0);
		if (read(pipefd[0], &go, 1) != 1)
			_exit(1);
		child = fork();
		if (!child) {
			pause();
			_exit(0);
		}
		if (write(pipefd[1], &child, sizeof(child)) != sizeof(child))
			_exit(1);
		_exit(0);
	}
	snprintf(word, sizeof(word), "%d", leader);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_pid", word));
	ASSERT_EQ(1, write(pipefd[1], "g", 1));
	ASSERT_EQ(leader, waitpid(leader, NULL, 0));
	ASSERT_EQ((ssize_t)sizeof(child), read(pipefd[0], &child, sizeof(child)));
	/* The leader's entry goes at its free, an RCU grace period later */
	for (i = 0; i < 100; i++) {
		ASSERT_LE(0, cgt_instance_read(in, "set_event_pid", buf, sizeof(buf)));
		leader_listed = 0;
		child_listed = 0;
		for (char *w = strtok(buf, "\n "); w; w = strtok(NULL, "\n ")) {
			leader_listed |= atoi(w) == leader;
			child_listed |= atoi(w) == child;
		}
		if (!leader_listed)
			break;
		usleep(50000);
	}
	/* The number is still alive: the child's process group */
	EXPECT_EQ(leader, getpgid(child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	EXPECT_FALSE(leader_listed);
	EXPECT_TRUE(child_listed);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Reading a long cgroup list formats one path per entry with the cgroup
 * core's locks: the event lock must not be held across it. Reads of an
 * event filter (which take the event lock) must not wait for the list:
 * with a list being read all the time, a read that held the lock would
 * make every filter read that starts during it wait for part of it. The
 * 75th percentile is compared, not the maximum: the guest's CPUs take
 * turns on one host thread, and a read may wait for its vCPU's turn.
 */
TEST_F_TIMEOUT(race, cgroup_list_read_does_not_hold_the_event_lock, 600)
{
	struct shared {
		atomic_int stop;
		atomic_int in_read;	/* the reader is inside its read() */
		atomic_long reads;
		atomic_llong read_ns;
	} *sh;
	int n = 2048, i;
	char *list, name[128], path[PATH_MAX];
	size_t len = 0, cap = (size_t)n * 64;
	long long t0, lat[4000], p75, deadline;
	int nlat = 0;
	long long mean_read;
	pid_t reader;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	list = malloc(cap);
	ASSERT_NE(NULL, list);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/c%d", self->name_a, i);
		ASSERT_EQ(0, cgt_cgroup_create(name, path, sizeof(path)));
		len += snprintf(list + len, cap - len, "/%s ", name);
	}
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", list));

	reader = fork();
	if (!reader) {
		char *buf = malloc(1 << 20);

		pin_to(1 % nr_cpus());
		while (!atomic_load(&sh->stop)) {
			long long s = now_ns();
			int got;

			atomic_store(&sh->in_read, 1);
			got = cgt_instance_read(&self->inst, "set_event_cgroup",
						buf, 1 << 20);
			atomic_store(&sh->in_read, 0);
			if (got <= 0)
				_exit(1);
			atomic_fetch_add(&sh->read_ns, now_ns() - s);
			atomic_fetch_add(&sh->reads, 1);
		}
		_exit(0);
	}
	pin_to(0);
	/*
	 * Time filter reads (they take event_mutex) that start while a list
	 * read is in progress. Were the list formatted under event_mutex,
	 * such a read would wait for the rest of it: on average half a list
	 * read, and most of one for the slowest quarter.
	 */
	deadline = now_ns() + 120000000000LL;
	while (nlat < 200 && now_ns() < deadline) {
		char f[256];

		usleep(500);
		if (!atomic_load(&sh->in_read))
			continue;
		t0 = now_ns();
		ASSERT_LE(0, cgt_instance_read(&self->inst,
					       "events/sched/sched_switch/filter",
					       f, sizeof(f)));
		lat[nlat++] = now_ns() - t0;
	}
	atomic_store(&sh->stop, 1);
	waitpid(reader, NULL, 0);
	ASSERT_LT(0, atomic_load(&sh->reads));
	mean_read = atomic_load(&sh->read_ns) / atomic_load(&sh->reads);
	/* Enough filter reads overlapped a list read to judge */
	ASSERT_LE(50, nlat)
		TH_LOG("%d filter reads started during a list read in 120 s", nlat);
	qsort(lat, nlat, sizeof(lat[0]), cmp_ll);
	p75 = lat[nlat * 3 / 4];
	TH_LOG("%d filter reads during list reads: median %lld ns, 75th percentile %lld ns;",
	       nlat, lat[nlat / 2], p75);
	TH_LOG("a list read %lld ns", mean_read);
	EXPECT_LT(p75 * 4, mean_read)
		TH_LOG("75%% of %d overlapping filter reads took up to %lld ns, a list read %lld",
		       nlat, p75, mean_read);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", ""));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%d", self->cg_a, i);
		rmdir(path);
	}
	free(list);
	munmap(sh, sizeof(*sh));
}

/*
 * Rate-limited writers on every CPU while a reader reads the counts: no
 * reading may report more drops than were counted, and at the end the
 * identity holds exactly.
 */
TEST_F_TIMEOUT(race, lost_pending_never_exceeds_rate_limited, 300)
{
	struct cgt_instance *in = &self->inst;
	int cpus = nr_cpus(), w, bad = 0, readings = 0;
	pid_t writers[8];
	long long rl, lr, lp;
	long long t_end;

	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/enable", "1"));
	/* Few tokens: writers drop records even when the machine is slow */
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate", "10 5"));
	for (w = 0; w < cpus && w < 8; w++) {
		writers[w] = fork();
		if (!writers[w]) {
			long long stop = now_ns() + 4000000000LL;

			pin_to(w);
			/* Each a few groups in turn: forks write and exit */
			while (now_ns() < stop) {
				pid_t c = fork();

				if (!c) {
					int i;

					for (i = 0; i < 50; i++)
						ue_write(in, "I|0|flood");
					_exit(0);
				}
				waitpid(c, NULL, 0);
			}
			_exit(0);
		}
	}
	t_end = now_ns() + 4000000000LL;
	while (now_ns() < t_end) {
		char buf[1024], *p;

		if (cgt_instance_read(in, "user_events_stats", buf, sizeof(buf)) < 0)
			break;
		p = strstr(buf, "rate_limited ");
		rl = p ? strtoll(p + 13, NULL, 10) : -1;
		p = strstr(buf, "lost_reported ");
		lr = p ? strtoll(p + 14, NULL, 10) : -1;
		p = strstr(buf, "lost_pending ");
		lp = p ? strtoull(p + 13, NULL, 10) : -1;
		readings++;
		if (lp < 0 || lp > rl || lr > rl)
			bad++;
	}
	for (w = 0; w < cpus && w < 8; w++)
		waitpid(writers[w], NULL, 0);
	EXPECT_EQ(0, bad) TH_LOG("%d of %d readings had more reported than dropped",
				 bad, readings);
	EXPECT_LT(0, cgt_instance_stat(in, "rate_limited"));
	EXPECT_EQ(cgt_instance_stat(in, "rate_limited"),
		  cgt_instance_stat(in, "lost_reported") + cgt_instance_stat(in, "lost_pending"));
}

/* One thread of token_flood(): its CPU and its share of the writes. */
struct token_writer {
	struct cgt_instance *inst;
	pthread_t thread;
	int cpu, writes, failed;
	long long records;	/* enabled records written */
};

/*
 * Writes that take the group's tokens in every way: one record; a span
 * (the thread then has span state, which keeps its group); three records
 * taking three tokens of which the disabled counter gives one back.
 */
static void *token_flood(void *p)
{
	static const char *const writes[] = {
		"I|0|t", "B|0|s\nE|0", "I|0|t\nC|0|off|1\nI|0|t",
	};
	struct token_writer *w = p;
	int i;

	pin_to(w->cpu);
	for (i = 0; i < w->writes; i++) {
		if (ue_write(w->inst, writes[i % 3])) {
			w->failed++;
			continue;
		}
		w->records += 2 - (i % 3 == 0);
	}
	return NULL;
}

/*
 * Threads of one group on every CPU take tokens from its bucket at once:
 * the lock-free take within a jiffy, the locked refill, and the give-back
 * of tokens a batch did not use all change it. No update may be lost. With
 * a bucket of BURST and 1 token a second, the records accepted are at
 * least BURST (a lost give-back or refill takes tokens away) and at most
 * BURST plus the seconds elapsed and one (a lost take gives tokens twice).
 * The burst is large, so that most takes are lock-free ones. A lost update
 * needs two CPUs (or a preemption) inside a few instructions, which user
 * space cannot force: the test takes ten thousand tokens on every CPU at
 * once, and sees more than the seconds' slack of lost takes.
 */
TEST_F_TIMEOUT(race, tokens_are_taken_once_across_cpus, 300)
{
	struct cgt_instance *in = &self->inst;
	int cpus = nr_cpus(), nw = cpus * 2 > 8 ? 8 : cpus * 2, i;
	const long long burst = 10000;
	struct token_writer w[8] = {};
	long long records = 0, accepted, limited, t0, secs;
	char rate[32], list[80];

	/* Only this group's records: top-level writes of others (stress) */
	snprintf(list, sizeof(list), "/%s", self->name_a);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_cgroup", list));
	ASSERT_EQ(0, cgt_cgroup_enter(self->cg_a, 0));
	ASSERT_EQ(0, cgt_instance_write(in, "buffer_size_kb", "1024"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/instant/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/begin/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/end/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/lost/enable", "1"));
	snprintf(rate, sizeof(rate), "1 %lld", burst);
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate", rate));

	t0 = now_ns();
	for (i = 0; i < nw; i++) {
		w[i].inst = in;
		w[i].cpu = i % cpus;
		/* Together 2.5 times the burst, in records */
		w[i].writes = (int)(burst * 5 / 2 * 3 / 5 / nw);
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, token_flood, &w[i]));
	}
	for (i = 0; i < nw; i++) {
		pthread_join(w[i].thread, NULL);
		EXPECT_EQ(0, w[i].failed);
		records += w[i].records;
	}
	secs = (now_ns() - t0) / 1000000000LL + 1;

	accepted = cgt_instance_stat(in, "accepted");
	limited = cgt_instance_stat(in, "rate_limited");
	TH_LOG("%d writers on %d CPUs, %lld records in %lld s: accepted %lld rate_limited %lld",
	       nw, cpus, records, secs, accepted, limited);
	EXPECT_EQ(records, accepted + limited);
	EXPECT_LT(0, limited);
	EXPECT_LE(burst, accepted);
	EXPECT_GE(burst + secs + 1, accepted);
	EXPECT_EQ(limited, cgt_instance_stat(in, "lost_reported") +
			   cgt_instance_stat(in, "lost_pending"));
	EXPECT_EQ(0, cgt_instance_stat(in, "buffer_dropped"));
}

/* Records written while their event is disabled are counted, not lost. */
TEST_F_TIMEOUT(race, records_of_disabled_events_are_counted, 120)
{
	struct cgt_instance *in = &self->inst;

	ASSERT_EQ(0, ue_write(in, "I|0|off\nC|0|off|1\nB|0|off\nE|0"));
	EXPECT_EQ(4, cgt_instance_stat(in, "disabled"));
	EXPECT_EQ(0, cgt_instance_stat(in, "accepted"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/instant/enable", "1"));
	ASSERT_EQ(0, ue_write(in, "I|0|on\nC|0|off|2"));
	EXPECT_EQ(5, cgt_instance_stat(in, "disabled"));
	EXPECT_EQ(1, cgt_instance_stat(in, "recorded"));
}

/* prctl refuses arguments that its kind does not use. */
TEST_F_TIMEOUT(race, prctl_refuses_unused_arguments, 60)
{
	struct cgt_instance *in = &self->inst;

	ASSERT_EQ(0, cgt_instance_write(in, "options/user_events_prctl", "1"));
	ASSERT_EQ(0, cgt_instance_write(in, "events/user_markers/enable", "1"));
	EXPECT_EQ(-1, prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_INSTANT,
			    (unsigned long)"inst", 5, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_END, 0, 5, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_BEGIN,
			    (unsigned long)"b", 1, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_COUNTER,
			   (unsigned long)"cnt", 5, 0));
	EXPECT_EQ(1, cgt_instance_stat(in, "recorded"));
	EXPECT_EQ(0, cgt_instance_stat(in, "rejected"));
}

/*
 * A migration sends IPIs only while some instance filters by cgroup: with
 * pid rules alone, moving a task costs the other CPUs nothing.
 *
 * The hook's cross-CPU calls are counted exactly, by their caller: the
 * function tracer of a second instance records on_each_cpu_cond_mask()
 * called from trace_task_filter_attach() (on_each_cpu_mask() is its inline
 * wrapper). /proc/interrupts cannot tell them apart: on the debug kernel
 * a migration's other work sent about one function call IPI in four
 * moves with no rule at all (55 for 200 moves, once).
 */
static long long call_ipis(void)
{
	char buf[16384], *p, *e;
	long long sum = 0;

	if (cgt_read_file("/proc/interrupts", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "CAL:");
	if (!p)
		return -1;
	p += 4;
	e = strchr(p, '\n');
	while (p < e) {
		char *q;
		long long v = strtoll(p, &q, 10);

		if (q == p)
			break;
		sum += v;
		p = q;
	}
	return sum;
}

#define ATTACH_CALL "on_each_cpu_cond_mask <-trace_task_filter_attach"

/* attach_calls - the hook's calls that @fn's instance traced, or -1 */
static long long attach_calls(struct cgt_instance *fn)
{
	long long n = 0;
	char *p;

	if (cgt_instance_read(fn, "trace", trace_buf, TRACE_BUF) < 0)
		return -1;
	for (p = trace_buf; (p = strstr(p, ATTACH_CALL)); p++)
		n++;
	return n;
}

TEST_F_TIMEOUT(race, migrations_send_ipis_only_for_cgroup_rules, 180)
{
	struct cgt_instance *in = &self->inst, fn;
	long long before, pid_only, with_cg, ipis;
	char word[32], list[128];
	int i, moves = 200;
	pid_t sleeper;

	if (nr_cpus() < 2)
		SKIP(return, "needs 2 CPUs");
	if (call_ipis() < 0)
		SKIP(return, "no CAL line in /proc/interrupts");
	if (access(CGT_TRACEFS "/available_filter_functions", F_OK))
		SKIP(return, "no function tracer (CONFIG_FUNCTION_TRACER)");
	ASSERT_EQ(0, cgt_instance_create(&fn, "race_attach_calls"));
	ASSERT_EQ(0, cgt_instance_write(&fn, "set_ftrace_filter",
					"on_each_cpu_cond_mask"));
	ASSERT_EQ(0, cgt_instance_write(&fn, "current_tracer", "function"));

	sleeper = fork();
	if (!sleeper) {
		pin_to(1);
		pause();
		_exit(0);
	}
	pin_to(0);
	usleep(100000);
	snprintf(word, sizeof(word), "%d", sleeper);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_pid", word));
	ASSERT_EQ(0, cgt_instance_write(&fn, "trace", ""));
	for (i = 0; i < moves; i++)
		ASSERT_EQ(0, cgt_cgroup_enter(i % 2 ? self->cg_a : self->cg_b, sleeper));
	pid_only = attach_calls(&fn);

	snprintf(list, sizeof(list), "/%s", self->name_a);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_cgroup", list));
	ASSERT_EQ(0, cgt_instance_write(&fn, "trace", ""));
	before = call_ipis();
	for (i = 0; i < moves; i++)
		ASSERT_EQ(0, cgt_cgroup_enter(i % 2 ? self->cg_a : self->cg_b, sleeper));
	ipis = call_ipis() - before;
	with_cg = attach_calls(&fn);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	cgt_instance_write(&fn, "current_tracer", "nop");
	cgt_instance_destroy(&fn);

	/* Pid rules alone: the hook returns before any cross-CPU call */
	EXPECT_EQ(0, pid_only);
	/*
	 * A cgroup rule: one call a move, and it reaches the sleeper's CPU
	 * (a call queued to a CPU that has one pending shares its interrupt)
	 */
	EXPECT_EQ(moves, with_cg);
	EXPECT_LE(moves * 3 / 4, ipis)
		TH_LOG("%lld function call IPIs for %d moves", ipis, moves);
}

/* write_cg_file - write @s to file @file of cgroup folder @dir */
static int write_cg_file(const char *dir, const char *file, const char *s)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return cgt_write_file_flags(p, s, strlen(s), 0);
}

/*
 * Moves that leave a task's cgroup v2 cgroup as it was change no verdict
 * and do not call the tracing hook, even while an instance filters by
 * cgroup: enabling or disabling a controller moves the tasks below to
 * other css_sets of the same cgroups, and a move on a named cgroup v1
 * hierarchy changes only v1 cgroups. A v2 move calls it once.
 */
TEST_F_TIMEOUT(race, moves_that_keep_the_v2_cgroup_do_not_call_tracing, 300)
{
	char parent[300], child[300], v1[] = "/tmp/race-v1-XXXXXX", v1x[300];
	long long toggles, v1_moves = 0, v2_moves, s;
	struct cgt_instance *in = &self->inst, fn;
	char word[32], list[128];
	bool have_v1;
	int i, n = 20;
	pid_t sleeper;

	if (access(CGT_TRACEFS "/available_filter_functions", F_OK))
		SKIP(return, "no function tracer (CONFIG_FUNCTION_TRACER)");
	ASSERT_EQ(0, cgt_instance_create(&fn, "race_attach_moves"));
	ASSERT_EQ(0, cgt_instance_write(&fn, "set_ftrace_filter",
					"on_each_cpu_cond_mask"));
	ASSERT_EQ(0, cgt_instance_write(&fn, "current_tracer", "function"));
	snprintf(list, sizeof(list), "/%s", self->name_a);
	ASSERT_EQ(0, cgt_instance_write(in, "set_event_cgroup", list));

	snprintf(parent, sizeof(parent), "%s/p", self->cg_b);
	snprintf(child, sizeof(child), "%s/c", parent);
	ASSERT_EQ(0, mkdir(parent, 0755));
	ASSERT_EQ(0, mkdir(child, 0755));
	ASSERT_EQ(0, write_cg_file(self->cg_b, "cgroup.subtree_control", "+pids"));
	sleeper = fork();
	if (!sleeper) {
		pause();
		_exit(0);
	}
	snprintf(word, sizeof(word), "%d", sleeper);
	ASSERT_EQ(0, cgt_cgroup_enter(child, sleeper));

	ASSERT_EQ(0, cgt_instance_write(&fn, "trace", ""));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, write_cg_file(parent, "cgroup.subtree_control", "+pids"));
		ASSERT_EQ(0, write_cg_file(parent, "cgroup.subtree_control", "-pids"));
	}
	toggles = attach_calls(&fn);

	have_v1 = mkdtemp(v1) &&
		  !mount("cgroup", v1, "cgroup", 0, "none,name=cgtrace_race");
	if (have_v1) {
		snprintf(v1x, sizeof(v1x), "%s/x", v1);
		ASSERT_EQ(0, mkdir(v1x, 0755));
		ASSERT_EQ(0, cgt_instance_write(&fn, "trace", ""));
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, write_cg_file(v1x, "cgroup.procs", word));
			ASSERT_EQ(0, write_cg_file(v1, "cgroup.procs", word));
		}
		v1_moves = attach_calls(&fn);
	} else {
		TH_LOG("no cgroup v1 hierarchy (%s): v1 moves not tried",
		       strerror(errno));
	}

	ASSERT_EQ(0, cgt_instance_write(&fn, "trace", ""));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, cgt_cgroup_enter(i % 2 ? child : self->cg_a, sleeper));
	v2_moves = attach_calls(&fn);

	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	cgt_instance_write(&fn, "current_tracer", "nop");
	cgt_instance_destroy(&fn);
	if (have_v1) {
		rmdir(v1x);
		umount(v1);
	}
	rmdir(v1);
	rmdir(child);
	rmdir(parent);
	s = write_cg_file(self->cg_b, "cgroup.subtree_control", "-pids");
	EXPECT_EQ(0, s);

	EXPECT_EQ(0, toggles) TH_LOG("%lld hook calls for %d controller toggles",
				     toggles, 2 * n);
	EXPECT_EQ(0, v1_moves) TH_LOG("%lld hook calls for %d v1 moves",
				      v1_moves, 2 * n);
	EXPECT_EQ(n, v2_moves);
}

TEST_HARNESS_MAIN
