// SPDX-License-Identifier: GPL-2.0
/*
 * fork_test - options/event-fork with pid and cgroup filters, when pid
 * numbers are reused.
 *
 * A task's entry leaves the pid lists at sched_process_free, a grace
 * period after its number was released: a task forked in between can get
 * the number. clone3() with set_tid hands out a chosen number, so the two
 * ways a stale entry could act are provoked on purpose: an unlisted
 * parent's child getting a listed number, and a listed parent's child
 * getting the number of a child that just exited. A storm with a small
 * pid_max then checks that every descendant of a traced task is traced
 * and nothing else is, counted exactly.
 *
 * user_markers events are the probe: the pid and cgroup rules apply to
 * them, and user_events_stats counts what was recorded and filtered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sched.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define TRACE_BUF	(4 << 20)

FIXTURE(fk) {
	struct cgt_instance inst;
	struct cgt_instance obs;	/* an unfiltered observer, if a test makes one */
	char *trace;
	char pid_max[32];
	char cg_in[256], cg_out[256];
};

FIXTURE_SETUP(fk)
{
	char name[64];

	if (access(CGT_TRACEFS "/user_events", F_OK))
		CGT_SETUP_SKIP("kernel without user_events (TRACE_USER_MARKERS)");
	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK))
		CGT_SETUP_SKIP("kernel without set_event_cgroup (TRACE_CGROUP_FILTER)");
	ASSERT_LT(0, cgt_read_file("/proc/sys/kernel/pid_max", self->pid_max,
				   sizeof(self->pid_max)));
	self->trace = malloc(TRACE_BUF);
	ASSERT_NE(NULL, self->trace);
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "fk"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "buffer_size_kb", "2048"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/event-fork", "1"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/user_markers/instant/enable", "1"));
	/* No rate limit: the storm's counts must add up exactly. */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "0"));
	snprintf(name, sizeof(name), "fk-in-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg_in, sizeof(self->cg_in)));
	snprintf(name, sizeof(name), "fk-out-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg_out, sizeof(self->cg_out)));
}

FIXTURE_TEARDOWN(fk)
{
	if (!self->inst.path[0])
		return;
	cgt_write_file("/proc/sys/kernel/pid_max", self->pid_max);
	cgt_cgroup_enter(CGT_CGROUP2, 0);
	cgt_instance_destroy(&self->inst);
	if (self->obs.path[0])
		cgt_instance_destroy(&self->obs);
	rmdir(self->cg_in);
	rmdir(self->cg_out);
	free(self->trace);
}

/* An instant marker "I|pid|@name": 0 or -errno */
static int instant(struct cgt_instance *inst, const char *name)
{
	char p[PATH_MAX], rec[160];
	int len = snprintf(rec, sizeof(rec), "I|%d|%s", getpid(), name);

	return cgt_write_file_flags(cgt_instance_file(inst, "user_events", p,
						      sizeof(p)),
				    rec, len, 0);
}

/* Is @pid in the instance's set_event_pid (one pid per line)? */
static bool pid_listed(struct cgt_instance *inst, pid_t pid)
{
	char buf[1 << 14], *line, *save = NULL;

	if (cgt_instance_read(inst, "set_event_pid", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (atoi(line) == pid)
			return true;
	return false;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

/* A pid number nobody holds, above the ones in use: clone3 can take it. */
static pid_t free_number(void)
{
	pid_t n = fork();

	if (n == 0)
		_exit(0);
	waitpid(n, NULL, 0);
	for (n += 50; !kill(n, 0) || errno != ESRCH; n++)
		;
	return n;
}

/*
 * set_tid_unavailable - fork_as() cannot choose pids here: not privileged
 * in the pid namespace, or a kernel without clone3() (the error of an
 * unknown system call number, asked of the kernel itself).
 */
static bool set_tid_unavailable(pid_t err)
{
	return err == -EPERM || (syscall(-1) == -1 && err == -errno);
}

/* fork() that gives the child pid number @nr; -errno if it is taken. */
static pid_t fork_as(pid_t nr)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	pid_t tid = nr;
	long ret;

	args.set_tid = (uintptr_t)&tid;
	args.set_tid_size = 1;
	ret = syscall(SYS_clone3, &args, sizeof(args));
	return ret < 0 ? -errno : ret;
}

/*
 * A number left in set_event_pid (as a dead task's entry is until its
 * free) is not inherited by an unlisted parent's child that gets it.
 */
TEST_F_TIMEOUT(fk, stale_number_not_inherited, 120)
{
	int go[2], ready[2];
	pid_t nr = free_number(), pid;
	char s[32], c;

	snprintf(s, sizeof(s), "%d", nr);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_pid", s));
	ASSERT_TRUE(pid_listed(&self->inst, nr));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "1"));

	pid = fork_as(nr);
	if (set_tid_unavailable(pid))
		SKIP(return, "clone3 set_tid not available (%d)", pid);
	if (pid == 0) {
		instant(&self->inst, "stale-child");
		write(ready[1], "r", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	ASSERT_EQ(nr, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	/* The child is alive and holds the number: the entry is gone. */
	EXPECT_FALSE(pid_listed(&self->inst, nr));
	write(go[1], "g", 1);
	waitpid(pid, NULL, 0);
	cgt_instance_read(&self->inst, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(NULL, strstr(self->trace, "stale-child"));
}

/* How many lines of @trace hold @needle: events of the observer. */
static int events_in(struct cgt_instance *obs, const char *needle)
{
	static char buf[1 << 18];

	if (cgt_instance_read(obs, "trace", buf, sizeof(buf)) < 0)
		return -1;
	return count_of(buf, needle);
}

/*
 * Of the observer's forks and frees of the number, in time order: the
 * rounds whose second child (the fork after each pair's first) was born
 * before every earlier holder of the number was freed, so that a stale
 * entry was still due to be removed while it held the number.
 */
static int raced_rounds(const char *trace)
{
	int forks = 0, frees = 0, raced = 0;
	const char *l;

	for (l = trace; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *e = strchr(l, '\n') ?: l + strlen(l);
		const char *f = strstr(l, "sched_process_f");

		if (!f || f > e)
			continue;
		if (!strncmp(f, "sched_process_free:", 19)) {
			frees++;
		} else if (!strncmp(f, "sched_process_fork:", 19)) {
			forks++;
			/* fork 2i+2 is round i's second child */
			if (forks % 2 == 0 && frees < forks - 1)
				raced++;
		}
	}
	return raced;
}

/*
 * A listed parent forks a child that exits at once, then another child
 * with the same number: the first child's late removal must not unlist
 * the second. Repeated, since the removal's timing is the kernel's. An
 * unfiltered observer instance records the forks and frees of the
 * number: the second child checks its listing only after the first one's
 * sched_process_free (the removal) happened, and the rounds in which the
 * second child was born before that free are counted: at least one must
 * have exercised the race.
 */
TEST_F_TIMEOUT(fk, reused_number_stays_listed, 300)
{
	const int rounds = 40;
	pid_t nr = free_number(), a, b;
	struct cgt_instance *obs = &self->obs;
	int go[2], ready[2], i, got = 0, raced;
	char s[64], c, name[32];

	snprintf(s, sizeof(s), "%d", getpid());
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_pid", s));
	ASSERT_EQ(0, cgt_instance_create(obs, "fk-observer"));
	ASSERT_EQ(0, cgt_instance_write(obs, "trace_clock", "global"));
	snprintf(s, sizeof(s), "pid == %d", nr);
	ASSERT_EQ(0, cgt_instance_write(obs, "events/sched/sched_process_free/filter", s));
	snprintf(s, sizeof(s), "child_pid == %d", nr);
	ASSERT_EQ(0, cgt_instance_write(obs, "events/sched/sched_process_fork/filter", s));
	ASSERT_EQ(0, cgt_instance_write(obs, "events/sched/sched_process_free/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(obs, "events/sched/sched_process_fork/enable", "1"));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "1"));

	for (i = 0; i < rounds; i++) {
		a = fork_as(nr);
		if (set_tid_unavailable(a))
			SKIP(return, "clone3 set_tid not available (%d)", a);
		if (a == 0)
			_exit(0);
		ASSERT_EQ(nr, a);
		ASSERT_EQ(a, waitpid(a, NULL, 0));
		/* Reaped: the number is free, its entry not removed yet. */
		b = fork_as(nr);
		if (b == 0) {
			int k;

			/*
			 * Holders of the number so far: a and b of the earlier
			 * rounds, and this round's a. Wait for all their frees.
			 */
			for (k = 0; k < 10000; k++) {
				if (events_in(obs, "sched_process_free:") >= 2 * i + 1)
					break;
				usleep(1000);
			}
			snprintf(name, sizeof(name), "reuse-%d", i);
			instant(&self->inst, name);
			write(ready[1], k < 10000 ? "r" : "t", 1);
			read(go[0], &c, 1);
			_exit(0);
		}
		ASSERT_EQ(nr, b);
		ASSERT_EQ(1, read(ready[0], &c, 1));
		ASSERT_EQ('r', c)
			TH_LOG("round %d: the first child's sched_process_free never came", i);
		got += pid_listed(&self->inst, nr);
		write(go[1], "g", 1);
		waitpid(b, NULL, 0);
	}
	EXPECT_EQ(rounds, got);
	cgt_instance_read(&self->inst, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(rounds, count_of(self->trace, "reuse-"));
	cgt_instance_write(obs, "tracing_on", "0");
	cgt_instance_read(obs, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(2 * rounds, count_of(self->trace, "sched_process_fork:"));
	raced = raced_rounds(self->trace);
	TH_LOG("%d of %d rounds: the second child was born before the first was freed",
	       raced, rounds);
	EXPECT_LT(0, raced);
}

/* Shared between the storm's processes: markers each kind wrote. */
struct storm_counts {
	atomic_int written[3];
	atomic_int failed;
};

static const char *const storm_kind[3] = { "storm-t", "storm-u", "storm-x" };

/*
 * One root of a storm: @n children, each of which writes a marker, forks
 * a grandchild that writes one too, and exits.
 */
static void storm_root(struct cgt_instance *inst, struct storm_counts *sc,
		       int kind, int n, int start_fd)
{
	char c;
	int i;

	read(start_fd, &c, 1);
	for (i = 0; i < n; i++) {
		pid_t child = fork();

		if (child == 0) {
			pid_t g = fork();

			if (instant(inst, storm_kind[kind]) == 0)
				atomic_fetch_add(&sc->written[kind], 1);
			else
				atomic_fetch_add(&sc->failed, 1);
			if (g == 0)
				_exit(0);
			if (g > 0)
				waitpid(g, NULL, 0);
			_exit(0);
		}
		if (child < 0) {
			atomic_fetch_add(&sc->failed, 1);
			continue;
		}
		waitpid(child, NULL, 0);
	}
	_exit(0);
}

/*
 * Three roots fork and exit concurrently with pid_max at 1024, so numbers
 * go round several times: T is listed and in the listed cgroup (all its
 * descendants traced), U is unlisted in the listed cgroup, X is listed
 * but in a cgroup that is not (neither traced).
 */
TEST_F_TIMEOUT(fk, storm_traces_descendants_only, 600)
{
	const int per_root = 250;
	struct storm_counts *sc;
	pid_t root[3];
	int start[2], k, total;
	char s[512];

	sc = mmap(NULL, sizeof(*sc), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sc);
	ASSERT_EQ(0, pipe(start));
	snprintf(s, sizeof(s), "%s", self->cg_in + strlen(CGT_CGROUP2));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", s));
	ASSERT_EQ(0, cgt_write_file("/proc/sys/kernel/pid_max", "1024"));

	for (k = 0; k < 3; k++) {
		root[k] = fork();
		ASSERT_LE(0, root[k]);
		if (root[k] == 0) {
			cgt_cgroup_enter(k == 2 ? self->cg_out : self->cg_in, 0);
			storm_root(&self->inst, sc, k, per_root, start[0]);
		}
	}
	/* Roots T and X are listed; their children follow by event-fork. */
	snprintf(s, sizeof(s), "%d %d", root[0], root[2]);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_pid", s));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "1"));
	ASSERT_EQ(3, write(start[1], "sss", 3));
	for (k = 0; k < 3; k++)
		ASSERT_EQ(root[k], waitpid(root[k], NULL, 0));
	cgt_instance_write(&self->inst, "tracing_on", "0");

	total = sc->written[0] + sc->written[1] + sc->written[2];
	TH_LOG("written: traced %d, unlisted %d, other cgroup %d, failed %d",
	       sc->written[0], sc->written[1], sc->written[2], sc->failed);
	EXPECT_EQ(0, sc->failed);
	EXPECT_EQ(2 * per_root, sc->written[0]);
	cgt_instance_read(&self->inst, "trace", self->trace, TRACE_BUF);
	EXPECT_EQ(sc->written[0], count_of(self->trace, "storm-t"));
	EXPECT_EQ(0, count_of(self->trace, "storm-u"));
	EXPECT_EQ(0, count_of(self->trace, "storm-x"));
	/* Every write was accepted and counted as recorded or filtered. */
	EXPECT_EQ(sc->written[0], cgt_instance_stat(&self->inst, "recorded"));
	EXPECT_EQ(0, cgt_instance_stat(&self->inst, "buffer_dropped"));
	EXPECT_EQ(total - sc->written[0], cgt_instance_stat(&self->inst, "filtered"));
	/* Everything listed has exited: the entries go at sched_process_free. */
	for (k = 0; k < 100; k++) {
		cgt_instance_read(&self->inst, "set_event_pid", s, sizeof(s));
		if (!s[0])
			break;
		usleep(20000);
	}
	EXPECT_STREQ("", s);
	munmap(sc, sizeof(*sc));
}

TEST_HARNESS_MAIN
