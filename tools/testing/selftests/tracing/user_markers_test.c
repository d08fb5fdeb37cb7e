// SPDX-License-Identifier: GPL-2.0
/*
 * user_markers_test - the user_events file of a tracing instance: the
 * atrace grammar and its errnos, all-or-nothing writes, what the events
 * carry (real pid, nesting, wall and on-CPU time), ordering against
 * kernel events, context filters, the rate limit and its lost events,
 * exact counts under many writers, threads exiting with open spans, the
 * prctl path, top-level fan-out and instance removal.
 *
 * Expected values are computed from what each test wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/trace_user_markers.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define TRACE_BUF	(1024 * 1024)

FIXTURE(um) {
	struct cgt_instance inst;
	char *trace;
	pid_t pid;
};

FIXTURE_SETUP(um)
{
	if (access(CGT_TRACEFS "/user_events", F_OK))
		CGT_SETUP_SKIP("kernel without user_events (TRACE_USER_MARKERS)");
	self->trace = malloc(TRACE_BUF);
	ASSERT_NE(NULL, self->trace);
	ASSERT_EQ(0, cgt_instance_create(&self->inst, "um"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/user_markers/enable", "1"));
	self->pid = getpid();
}

FIXTURE_TEARDOWN(um)
{
	if (self->trace) {
		cgt_instance_destroy(&self->inst);
		free(self->trace);
	}
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* One write(2) of @s to the instance's user_events: 0 or -errno. */
static int um_write_len(struct cgt_instance *inst, const char *s, size_t len)
{
	char p[PATH_MAX];

	return cgt_write_file_flags(cgt_instance_file(inst, "user_events", p,
						      sizeof(p)), s, len, 0);
}

static int um_write(struct cgt_instance *inst, const char *s)
{
	return um_write_len(inst, s, strlen(s));
}

static const char *trace_of(struct cgt_instance *inst, char *buf)
{
	cgt_instance_read(inst, "trace", buf, TRACE_BUF);
	return buf;
}

static long long stat_of(struct cgt_instance *inst, const char *name)
{
	char buf[512], key[64], *p;

	if (cgt_instance_read(inst, "user_events_stats", buf, sizeof(buf)) < 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s ", name);
	memmove(buf + 1, buf, strlen(buf) + 1);
	buf[0] = '\n';
	p = strstr(buf, key);
	return p ? atoll(p + strlen(key)) : -1;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

/* The event line holding @needle: its offset in the text, or -1. */
static long line_at(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	return p ? p - text : -1;
}

/* Whether the line holding @needle also holds @other */
static bool line_has(const char *text, const char *needle, const char *other)
{
	const char *p = strstr(text, needle), *b, *e;
	char line[512];

	if (!p)
		return 0;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n') ?: p + strlen(p);
	snprintf(line, sizeof(line), "%.*s", (int)(e - b), b);
	return strstr(line, other);
}

/* "dur=12.345ms" in the end line of span @name, in nanoseconds */
static long long end_field_ns(const char *text, const char *name,
			      const char *field)
{
	char key[128], line[512];
	const char *p, *e, *f;
	unsigned long long ms, us;
	int n = 0;

	snprintf(key, sizeof(key), "end: %s depth=", name);
	p = strstr(text, key);
	if (!p)
		return -1;
	/* the field must be on that line, not on a later one */
	e = strchr(p, '\n') ?: p + strlen(p);
	snprintf(line, sizeof(line), "%.*s", (int)(e - p), p);
	snprintf(key, sizeof(key), " %s=", field);
	f = strstr(line, key);
	/* %n is reached only when "ms" followed the number */
	if (!f || sscanf(f + strlen(key), "%llu.%3llums%n", &ms, &us, &n) != 2 ||
	    !n)
		return -1;
	return (ms * 1000 + us) * 1000;
}

TEST_F_TIMEOUT(um, records_become_events, 180)
{
	char want[128];
	long at[6];
	int i;

	ASSERT_EQ(0, um_write(&self->inst,
			      "B|1|g1\nC|1|c1|-42\nS|1|as|7\nF|1|as|7\nI|1|i 1\nE|1\n"));
	trace_of(&self->inst, self->trace);
	snprintf(want, sizeof(want), "begin: g1 depth=0 tgid=%d", self->pid);
	at[0] = line_at(self->trace, want);
	snprintf(want, sizeof(want), "counter: c1=-42 tgid=%d", self->pid);
	at[1] = line_at(self->trace, want);
	at[2] = line_at(self->trace, "async_begin: as cookie=7 ");
	at[3] = line_at(self->trace, "async_end: as cookie=7 ");
	at[4] = line_at(self->trace, "instant: i 1 tgid=");
	at[5] = line_at(self->trace, "end: g1 depth=0 dur=");
	for (i = 0; i < 6; i++) {
		EXPECT_LE(0, at[i]) TH_LOG("record %d missing in:\n%s", i,
					   self->trace);
		if (i)
			EXPECT_LT(at[i - 1], at[i]);
	}
	EXPECT_EQ(6, stat_of(&self->inst, "accepted"));
	EXPECT_EQ(6, stat_of(&self->inst, "recorded"));
	EXPECT_EQ(0, stat_of(&self->inst, "rejected"));
	/* The format files describe the fields the tools read. */
	ASSERT_LT(0, cgt_instance_read(&self->inst,
				       "events/user_markers/end/format",
				       self->trace, TRACE_BUF));
	EXPECT_NE(NULL, strstr(self->trace, "__data_loc char[] name;"));
	EXPECT_NE(NULL, strstr(self->trace, "u64 duration_ns;"));
	EXPECT_NE(NULL, strstr(self->trace, "u64 cpu_ns;"));
}

/*
 * user_events is a stream, as trace_marker is: a write has no position,
 * so pwrite() and lseek() fail with ESPIPE and record nothing.
 */
TEST_F_TIMEOUT(um, the_file_is_a_stream, 180)
{
	char p[PATH_MAX];
	int fd;

	fd = open(cgt_instance_file(&self->inst, "user_events", p, sizeof(p)),
		  O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, pwrite(fd, "I|1|positioned\n", 15, 0));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(10, write(fd, "I|1|plain\n", 10));
	close(fd);
	trace_of(&self->inst, self->trace);
	EXPECT_EQ(0, count_of(self->trace, "instant: positioned"));
	EXPECT_EQ(1, count_of(self->trace, "instant: plain"));
	EXPECT_EQ(1, stat_of(&self->inst, "accepted"));
}

static const struct {
	const char *rec;
	int err;
} bad[] = {
	{ "X|1|n", EINVAL }, { "b|1|n", EINVAL }, { "BB|1|n", EINVAL },
	{ "B|1", EINVAL }, { "B||n", EINVAL }, { "B|a|n", EINVAL },
	{ "B|12345678901|n", EINVAL }, { "B|1|", EINVAL },
	{ "B|1|a|b", EINVAL }, { "E|1|n|x", EINVAL }, { "I|1", EINVAL },
	{ "C|1|n", EINVAL }, { "C|1|n|", EINVAL }, { "C|1|n|abc", EINVAL },
	{ "C|1|n|+5", EINVAL }, { "C|1|n|0x10", EINVAL },
	{ "C|1|n|99999999999999999999", EINVAL }, { "C|1|n|1|2", EINVAL },
	{ "S|1|n", EINVAL }, { "F|1|n|-", EINVAL },
	{ "I|1|a\tb", EINVAL }, { "I|1|a\rb", EINVAL }, { "I|1|a\x7f", EINVAL },
	{ "I|1|a\n\nI|1|b", EINVAL }, { "\n", EINVAL },
	/* at the edges of the parser's eight-byte word tests */
	{ "I|1|abcdefg}\x01", EINVAL }, { "I|1|~}~}~}~}\x7f", EINVAL },
	{ "I|1|abcdefgh\x1f", EINVAL }, { "I|1|abcdefgh|", EINVAL },
	{ "I|0123456789a|n", EINVAL }, { "I|123456|", EINVAL },
	{ "C|1|n|1234567x", EINVAL }, { "C|1|n|12345678x", EINVAL },
	{ "C|1|n|-1234567|", EINVAL }, { "C|1|n|--1", EINVAL },
	{ "C|1|n|-01", EINVAL }, { "C|1|n|00", EINVAL },
	{ "C|1|n|00000000000", EINVAL }, { "C|1|n|1}", EINVAL },
	{ "C|1|n|1~", EINVAL }, { "C|1|n|-9223372036854775809", EINVAL },
	{ "C|1|n|9223372036854775808", EINVAL },
	{
	  "I|1|01234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234}~}",
	  ENAMETOOLONG },
};

TEST_F_TIMEOUT(um, bad_records_fail_the_whole_write, 180)
{
	char buf[8192], name[200];
	int i, big, rejected = 0;

	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), "I|1|ok-before-%d\n%s\n", i,
			 bad[i].rec);
		EXPECT_EQ(-bad[i].err, um_write(&self->inst, buf))
			TH_LOG("record \"%s\"", bad[i].rec);
		rejected++;
	}
	/* A NUL byte inside a write */
	EXPECT_EQ(-EINVAL, um_write_len(&self->inst, "I|1|ok-before-nul\nI|1|a\0b", 25));
	rejected++;

	/* Names: 127 bytes pass, 128 do not */
	memset(name, 'n', 128);
	name[128] = '\0';
	snprintf(buf, sizeof(buf), "I|1|ok-before-long\nI|1|%s", name);
	EXPECT_EQ(-ENAMETOOLONG, um_write(&self->inst, buf));
	rejected++;
	name[127] = '\0';
	snprintf(buf, sizeof(buf), "I|1|%s", name);
	EXPECT_EQ(0, um_write(&self->inst, buf));

	/* 64 records pass, 65 do not; 4096 bytes pass, 4097 do not */
	buf[0] = '\0';
	for (i = 0; i < 65; i++)
		strcat(buf, i ? "I|1|r\n" : "I|1|ok-before-many\n");
	EXPECT_EQ(-E2BIG, um_write(&self->inst, buf));
	rejected++;
	EXPECT_EQ(0, um_write_len(&self->inst, buf + 19, 64 * 6));
	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "I|1|ok-before-big\nI|1|", 22);
	big = 1;
	for (i = 100; i < 4097; i += 100, big++)
		memcpy(buf + i, "\nI|1|", 5);
	EXPECT_EQ(-E2BIG, um_write_len(&self->inst, buf, 4097));
	rejected++;
	EXPECT_EQ(0, um_write_len(&self->inst, buf + 18, 4096 - 18));

	/* An unreadable buffer */
	EXPECT_EQ(-EFAULT, um_write_len(&self->inst, (const char *)8, 16));
	rejected++;

	trace_of(&self->inst, self->trace);
	EXPECT_EQ(0, count_of(self->trace, "ok-before"))
		TH_LOG("a failed write recorded something:\n%s", self->trace);
	EXPECT_EQ(rejected, stat_of(&self->inst, "rejected"));
	EXPECT_EQ(1 + 64 + big, stat_of(&self->inst, "recorded"));
}

/*
 * A write that no instance records (nothing enabled, no span open) is only
 * checked, by a second instance of the parser that stores nothing: it
 * must refuse what a recorded write refuses, with the same errno, and
 * count what it takes as disabled. 65 records fail with E2BIG also when
 * the 65th is bad; a bad record among the first 64 decides the errno.
 */
TEST_F_TIMEOUT(um, unrecorded_writes_fail_alike, 180)
{
	char buf[8192];
	int pass, i, rejected = 0, written = 0;
	long long before;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	for (pass = 0; pass < 2; pass++) {
		/* pass 1: the same writes with the events on, as the reference */
		if (pass)
			ASSERT_EQ(0, cgt_instance_write(&self->inst,
							"events/user_markers/enable", "1"));
		for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
			snprintf(buf, sizeof(buf), "I|1|ok-before-%d\n%s\n", i,
				 bad[i].rec);
			EXPECT_EQ(-bad[i].err, um_write(&self->inst, buf))
				TH_LOG("record \"%s\", events %s", bad[i].rec,
				       pass ? "on" : "off");
			rejected++;
		}
		buf[0] = '\0';
		for (i = 0; i < 64; i++)
			strcat(buf, "I|1|r\n");
		strcat(buf, "X|1|bad");
		EXPECT_EQ(-E2BIG, um_write(&self->inst, buf))
			TH_LOG("a bad 65th record, events %s", pass ? "on" : "off");
		rejected++;
		buf[0] = 'X';			/* the first of 65: bad now */
		EXPECT_EQ(-EINVAL, um_write(&self->inst, buf))
			TH_LOG("a bad first record of 65, events %s", pass ? "on" : "off");
		rejected++;
		EXPECT_EQ(-EINVAL, um_write_len(&self->inst, "I|1|a\0b", 7));
		rejected++;
		EXPECT_EQ(rejected, stat_of(&self->inst, "rejected"));
	}
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));

	/* What it takes is counted as disabled, record by record */
	before = stat_of(&self->inst, "disabled");
	buf[0] = '\0';
	for (i = 0; i < 64; i++, written++)
		strcat(buf, i % 2 ? "C|1|c|-1234567\n" : "E|1\n");
	EXPECT_EQ(0, um_write(&self->inst, buf));
	EXPECT_EQ(0, um_write(&self->inst, "B|1|not-followed"));
	written++;
	EXPECT_EQ(before + written, stat_of(&self->inst, "disabled"));
	EXPECT_EQ(0, stat_of(&self->inst, "span_states"))
		TH_LOG("a begin while nothing is enabled made span state");
}

/*
 * Values, pids and names around the eight-byte word tests of the parser
 * (a value of up to seven digits is kept as its digits until recorded):
 * each is recorded as written. The expected value is the record's own
 * text read by strtoll().
 */
TEST_F_TIMEOUT(um, fields_at_word_edges_recorded_as_written, 180)
{
	static const char *const values[] = {
		"0", "-0", "7", "-7", "10", "99", "123456", "-123456",
		"1234567", "-1234567", "9999999", "-9999999", "1000000",
		"12345678", "-12345678", "100000000", "4294967296",
		"9223372036854775807", "-9223372036854775808",
	};
	static const char *const names[] = {
		"a", "}", "~", "}~}~}~}~}~", "abcdefg}", "abcdefgh", "abcdefghi",
		"x{y}z~w", "caf\xc3\xa9", "\xff\xfe\x80}", "sp ace",
	};
	static const char *const pids[] = {
		"0", "12345", "123456", "1234567", "0000000000", "4294967295",
	};
	char buf[4096], want[256];
	int i, n = 0, len = 0;

	for (i = 0; i < (int)ARRAY_SIZE(values); i++, n++)
		len += snprintf(buf + len, sizeof(buf) - len, "C|%d|v%d|%s\n",
				i, i, values[i]);
	for (i = 0; i < (int)ARRAY_SIZE(names); i++, n++)
		len += snprintf(buf + len, sizeof(buf) - len, "I|1|%s\n",
				names[i]);
	for (i = 0; i < (int)ARRAY_SIZE(pids); i++, n++)
		len += snprintf(buf + len, sizeof(buf) - len, "S|%s|p%d|-%d\n",
				pids[i], i, i + 1);
	/* the last record ends at the write's end, without a newline */
	len += snprintf(buf + len, sizeof(buf) - len, "F|1|last|%s",
			values[2]);
	n++;
	ASSERT_EQ(0, um_write(&self->inst, buf));
	EXPECT_EQ(n, stat_of(&self->inst, "recorded"));

	trace_of(&self->inst, self->trace);
	for (i = 0; i < (int)ARRAY_SIZE(values); i++) {
		snprintf(want, sizeof(want), "counter: v%d=%lld tgid=", i,
			 strtoll(values[i], NULL, 10));
		EXPECT_LE(0, line_at(self->trace, want))
			TH_LOG("value \"%s\": no \"%s\" in:\n%s", values[i],
			       want, self->trace);
	}
	for (i = 0; i < (int)ARRAY_SIZE(names); i++) {
		snprintf(want, sizeof(want), "instant: %s tgid=", names[i]);
		EXPECT_LE(0, line_at(self->trace, want))
			TH_LOG("name \"%s\" missing", names[i]);
	}
	for (i = 0; i < (int)ARRAY_SIZE(pids); i++) {
		snprintf(want, sizeof(want), "async_begin: p%d cookie=%d ", i,
			 -(i + 1));
		EXPECT_LE(0, line_at(self->trace, want))
			TH_LOG("pid \"%s\": no \"%s\"", pids[i], want);
	}
	snprintf(want, sizeof(want), "async_end: last cookie=%lld ",
		 strtoll(values[2], NULL, 10));
	EXPECT_LE(0, line_at(self->trace, want));
}

struct writer_arg {
	struct cgt_instance *inst;
	const char *text;
	pid_t tid;
};

static void *write_and_exit(void *p)
{
	struct writer_arg *a = p;

	a->tid = gettid_();
	um_write(a->inst, a->text);
	return NULL;
}

TEST_F_TIMEOUT(um, the_writer_is_the_recorded_task, 180)
{
	struct writer_arg a = { &self->inst, "I|1|from-thread\n" };
	pthread_t t;
	char want[128];

	/* The pid field names init; the kernel records the writer. */
	ASSERT_EQ(0, um_write(&self->inst, "I|1|claims-init\n"));
	ASSERT_EQ(0, pthread_create(&t, NULL, write_and_exit, &a));
	ASSERT_EQ(0, pthread_join(t, NULL));
	trace_of(&self->inst, self->trace);
	snprintf(want, sizeof(want), "-%d ", self->pid);
	ASSERT_LE(0, line_at(self->trace, "claims-init"));
	EXPECT_TRUE(line_has(self->trace, "claims-init", want))
		TH_LOG("%s", self->trace);
	snprintf(want, sizeof(want), "instant: claims-init tgid=%d", self->pid);
	EXPECT_LE(0, line_at(self->trace, want));
	/* A thread: its own tid in the task column, the process as tgid */
	snprintf(want, sizeof(want), "-%d ", a.tid);
	EXPECT_TRUE(line_has(self->trace, "from-thread", want));
	snprintf(want, sizeof(want), "instant: from-thread tgid=%d", self->pid);
	EXPECT_LE(0, line_at(self->trace, want));
}

TEST_F_TIMEOUT(um, nesting_unmatched_and_untracked, 180)
{
	char buf[4096];
	int i;

	ASSERT_EQ(0, um_write(&self->inst, "B|1|outer\nB|1|inner\nE|1\nE|1\nE|1|stray\n"));
	trace_of(&self->inst, self->trace);
	EXPECT_LE(0, line_at(self->trace, "begin: inner depth=1"));
	EXPECT_LE(0, line_at(self->trace, "end: inner depth=1 "));
	EXPECT_LE(0, line_at(self->trace, "end: outer depth=0 "));
	EXPECT_LT(line_at(self->trace, "end: inner"), line_at(self->trace, "end: outer"));
	EXPECT_TRUE(line_has(self->trace, "end: stray depth=0", " unmatched"));

	/* 40 deep: 32 tracked, the rest recorded with their depth, untracked */
	buf[0] = '\0';
	for (i = 0; i < 40; i++)
		sprintf(buf + strlen(buf), "B|1|d%d\n", i);
	ASSERT_EQ(0, um_write(&self->inst, buf));
	buf[0] = '\0';
	for (i = 0; i < 40; i++)
		strcat(buf, "E|1\n");
	ASSERT_EQ(0, um_write(&self->inst, buf));
	trace_of(&self->inst, self->trace);
	EXPECT_LE(0, line_at(self->trace, "begin: d39 depth=39"));
	EXPECT_EQ(8, count_of(self->trace, " untracked"));
	EXPECT_LE(0, line_at(self->trace, "end: d31 depth=31 "));
	EXPECT_LE(0, line_at(self->trace, "end: d0 depth=0 "));
	EXPECT_EQ(0, count_of(self->trace, "end: d32 "));
}

/*
 * A thread's spans are followed while begin or end is enabled, or while
 * it has spans open: a B written with the events off and nothing open is
 * not pushed (its thread's state from earlier spans does not change that),
 * one written with a span open is.
 */
TEST_F_TIMEOUT(um, spans_followed_only_while_enabled_or_open, 180)
{
	struct cgt_instance *in = &self->inst;
	const char *en = "events/user_markers/enable";
	const char *b_en = "events/user_markers/begin/enable";
	const char *e_en = "events/user_markers/end/enable";

	/* The thread gets span state, then has nothing open */
	ASSERT_EQ(0, um_write(in, "B|1|first\nE|1\n"));
	/* Every event off: the write is idle, never reaching the spans */
	ASSERT_EQ(0, cgt_instance_write(in, en, "0"));
	ASSERT_EQ(0, um_write(in, "B|1|hidden\n"));
	ASSERT_EQ(0, cgt_instance_write(in, en, "1"));
	ASSERT_EQ(0, um_write(in, "E|1|late\n"));
	/* Only begin and end off: the write is delivered, B not followed */
	ASSERT_EQ(0, cgt_instance_write(in, b_en, "0"));
	ASSERT_EQ(0, cgt_instance_write(in, e_en, "0"));
	ASSERT_EQ(0, um_write(in, "B|1|unseen\n"));
	ASSERT_EQ(0, cgt_instance_write(in, b_en, "1"));
	ASSERT_EQ(0, cgt_instance_write(in, e_en, "1"));
	ASSERT_EQ(0, um_write(in, "E|1|later\n"));

	/* With a span open, a B written with the events off is followed */
	ASSERT_EQ(0, um_write(in, "B|1|open\n"));
	ASSERT_EQ(0, cgt_instance_write(in, en, "0"));
	ASSERT_EQ(0, um_write(in, "B|1|nested\n"));
	ASSERT_EQ(0, cgt_instance_write(in, en, "1"));
	ASSERT_EQ(0, um_write(in, "E|1\nE|1\n"));

	trace_of(in, self->trace);
	EXPECT_LE(0, line_at(self->trace, "end: first depth=0 "));
	EXPECT_TRUE(line_has(self->trace, "end: late depth=0", " unmatched"));
	EXPECT_EQ(0, count_of(self->trace, "end: hidden"));
	EXPECT_TRUE(line_has(self->trace, "end: later depth=0", " unmatched"));
	EXPECT_EQ(0, count_of(self->trace, "end: unseen"));
	EXPECT_LE(0, line_at(self->trace, "end: nested depth=1 "));
	EXPECT_LE(0, line_at(self->trace, "end: open depth=0 "));
	EXPECT_LT(line_at(self->trace, "end: nested"), line_at(self->trace, "end: open"));
	/* Three records of disabled events: hidden, unseen and nested */
	EXPECT_EQ(3, stat_of(in, "disabled"));
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

TEST_F_TIMEOUT(um, durations_and_cpu_time, 180)
{
	long long t0, dur, cpu, spun;
	unsigned long x = 0;

	/* A first span allocates the thread's state: not part of the test */
	ASSERT_EQ(0, um_write(&self->inst, "B|1|warm-up\nE|1\n"));
	ASSERT_EQ(0, um_write(&self->inst, "B|1|sleeper\n"));
	usleep(10000);
	ASSERT_EQ(0, um_write(&self->inst, "E|1\n"));

	ASSERT_EQ(0, um_write(&self->inst, "B|1|spinner\n"));
	t0 = now_ns();
	/* The empty asm keeps the loop: x is "used" every time round */
	while (now_ns() - t0 < 30000000)
		__asm__ __volatile__("" : "+r" (x));
	spun = now_ns() - t0;
	ASSERT_EQ(0, um_write(&self->inst, "E|1\n"));

	trace_of(&self->inst, self->trace);
	/* -1 is "no such end or field": it would pass the comparisons below */
	dur = end_field_ns(self->trace, "sleeper", "dur");
	cpu = end_field_ns(self->trace, "sleeper", "cpu");
	ASSERT_LE(0, dur) TH_LOG("no sleeper end with dur=: %s", self->trace);
	ASSERT_LE(0, cpu) TH_LOG("no sleeper end with cpu=: %s", self->trace);
	EXPECT_LE(10000000, dur) TH_LOG("%s", self->trace);
	EXPECT_LT(cpu * 2, dur) TH_LOG("sleeping span ran %lld of %lld ns", cpu, dur);

	dur = end_field_ns(self->trace, "spinner", "dur");
	cpu = end_field_ns(self->trace, "spinner", "cpu");
	ASSERT_LE(0, dur) TH_LOG("no spinner end with dur=: %s", self->trace);
	ASSERT_LE(0, cpu) TH_LOG("no spinner end with cpu=: %s", self->trace);
	EXPECT_LE(spun, dur + 1000);
	EXPECT_LE(cpu, dur + 1000);
	EXPECT_GT(cpu * 2, dur) TH_LOG("busy span ran %lld of %lld ns", cpu, dur);
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * cpu_ns is the thread's runtime read at B and at E. Two checks:
 * - the thread CPU clock read around the two writes brackets it, to the
 *   nanosecond (the trace prints microseconds, truncated): the markers
 *   and clock_gettime() agree on the runtime;
 * - a span that only spins, 1 ms by the monotonic clock, ran at least
 *   half of that: a runtime that missed the time since the scheduler
 *   last accounted the thread (a tick, 4 ms at HZ=250) would read 0 for
 *   most such spans, and clock_gettime() would miss it too, which the
 *   bracket cannot see.
 */
TEST_F_TIMEOUT(um, cpu_ns_brackets_thread_cputime, 180)
{
	enum { SPANS = 8, SPIN_NS = 1000000 };
	long long c0[SPANS], c1[SPANS], c2[SPANS], c3[SPANS], spun[SPANS];
	long long t0, cpu;
	unsigned long x = 0;
	char name[32];
	cpu_set_t one;
	int i;

	/* One CPU: the runtime and the trace clock are then one clock */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, um_write(&self->inst, "B|1|warm-up\nE|1\n"));
	for (i = 0; i < SPANS; i++) {
		snprintf(name, sizeof(name), "B|1|span%d\n", i);
		c0[i] = thread_cpu_ns();
		ASSERT_EQ(0, um_write(&self->inst, name));
		c1[i] = thread_cpu_ns();
		t0 = now_ns();
		while (now_ns() - t0 < SPIN_NS)
			__asm__ __volatile__("" : "+r" (x));
		spun[i] = now_ns() - t0;
		c2[i] = thread_cpu_ns();
		ASSERT_EQ(0, um_write(&self->inst, "E|1\n"));
		c3[i] = thread_cpu_ns();
	}
	trace_of(&self->inst, self->trace);
	for (i = 0; i < SPANS; i++) {
		snprintf(name, sizeof(name), "span%d", i);
		cpu = end_field_ns(self->trace, name, "cpu");
		ASSERT_LE(0, cpu) TH_LOG("no %s end with cpu=: %s", name, self->trace);
		EXPECT_LE((c2[i] - c1[i]) / 1000 * 1000, cpu)
			TH_LOG("%s: cpu_ns %lld below the %lld ns between the writes",
			       name, cpu, c2[i] - c1[i]);
		EXPECT_GE((c3[i] - c0[i]) / 1000 * 1000, cpu)
			TH_LOG("%s: cpu_ns %lld above the %lld ns around the writes",
			       name, cpu, c3[i] - c0[i]);
		EXPECT_LE(spun[i] / 2, cpu)
			TH_LOG("%s: cpu_ns %lld for %lld ns of spinning",
			       name, cpu, spun[i]);
	}
}

TEST_F_TIMEOUT(um, ordered_against_kernel_events, 180)
{
	long a, m, b;

	if (cgt_instance_write(&self->inst,
			       "events/syscalls/sys_enter_getppid/enable", "1"))
		SKIP(return, "no syscalls/sys_enter_getppid event");
	syscall(SYS_getppid);
	ASSERT_EQ(0, um_write(&self->inst, "I|1|between\n"));
	syscall(SYS_getppid);
	cgt_instance_write(&self->inst, "events/syscalls/sys_enter_getppid/enable", "0");
	trace_of(&self->inst, self->trace);
	a = line_at(self->trace, "sys_getppid(");
	m = line_at(self->trace, "instant: between");
	ASSERT_LE(0, a) TH_LOG("%s", self->trace);
	ASSERT_LE(0, m);
	b = line_at(self->trace + m, "sys_getppid(");
	EXPECT_LT(a, m);
	EXPECT_LE(0, b) TH_LOG("no getppid after the marker:\n%s", self->trace);
}

/*
 * A record is written straight to the ring buffer only while nothing
 * reads its event first: the stack option and a trigger still see it.
 */
TEST_F_TIMEOUT(um, stack_option_and_triggers_see_records, 180)
{
	const char *t;
	char on[8];
	long m, s, n;

	if (cgt_instance_write(&self->inst, "options/stacktrace", "1"))
		SKIP(return, "no options/stacktrace (CONFIG_STACKTRACE)");
	ASSERT_EQ(0, um_write(&self->inst, "I|1|with-stack\n"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/stacktrace", "0"));
	ASSERT_EQ(0, um_write(&self->inst, "I|1|without-stack\n"));
	t = trace_of(&self->inst, self->trace);
	m = line_at(t, "instant: with-stack");
	ASSERT_LE(0, m) TH_LOG("%s", t);
	s = line_at(t + m, "<stack trace>");
	n = line_at(t + m, "instant: without-stack");
	ASSERT_LE(0, n) TH_LOG("%s", t);
	EXPECT_LE(0, s) TH_LOG("no stack after the record:\n%s", t);
	EXPECT_LT(s, n) TH_LOG("the stack is not the first record's:\n%s", t);
	EXPECT_EQ(1, count_of(t, "<stack trace>")) TH_LOG("%s", t);

	/*
	 * A trigger with a condition runs at the commit (one without runs
	 * before the reserve): the named record turns recording off.
	 */
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/user_markers/instant/trigger",
					"traceoff if name == \"stops-recording\""));
	ASSERT_EQ(0, um_write(&self->inst, "I|1|keeps-recording\n"));
	ASSERT_LT(0, cgt_instance_read(&self->inst, "tracing_on", on,
				       sizeof(on)));
	EXPECT_EQ('1', on[0]);
	ASSERT_EQ(0, um_write(&self->inst, "I|1|stops-recording\n"));
	ASSERT_LT(0, cgt_instance_read(&self->inst, "tracing_on", on,
				       sizeof(on)));
	EXPECT_EQ('0', on[0]) TH_LOG("the traceoff trigger did not run");
	EXPECT_EQ(4, stat_of(&self->inst, "recorded"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst,
					"events/user_markers/instant/trigger",
					"!traceoff if name == \"stops-recording\""));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "tracing_on", "1"));
}

TEST_F_TIMEOUT(um, pid_and_cgroup_filters_apply, 180)
{
	char cg[256], spec[300];

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_pid", "1"));
	ASSERT_EQ(0, um_write(&self->inst, "I|1|pid-filtered\nI|1|pid-filtered\n"));
	EXPECT_EQ(2, stat_of(&self->inst, "filtered"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_pid", ""));

	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK) == 0) {
		snprintf(spec, sizeof(spec), "um-cg-%d", self->pid);
		ASSERT_EQ(0, cgt_cgroup_create(spec, cg, sizeof(cg)));
		snprintf(spec, sizeof(spec), "/um-cg-%d", self->pid);
		ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", spec));
		ASSERT_EQ(0, um_write(&self->inst, "I|1|cg-outside\n"));
		ASSERT_EQ(0, cgt_cgroup_enter(cg, 0));
		ASSERT_EQ(0, um_write(&self->inst, "I|1|cg-inside\n"));
		ASSERT_EQ(0, cgt_cgroup_enter(CGT_CGROUP2, 0));
		ASSERT_EQ(0, um_write(&self->inst, "I|1|cg-outside\n"));
		cgt_instance_write(&self->inst, "set_event_cgroup", "");
		cgt_cgroup_remove(cg);
		EXPECT_EQ(4, stat_of(&self->inst, "filtered"));
	}
	trace_of(&self->inst, self->trace);
	EXPECT_EQ(0, count_of(self->trace, "filtered"));
	EXPECT_EQ(0, count_of(self->trace, "cg-outside"));
	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK) == 0)
		EXPECT_EQ(1, count_of(self->trace, "cg-inside"));
}

TEST_F_TIMEOUT(um, rate_limit_and_lost_events, 180)
{
	char buf[256], want[64];
	int i, burst = 3, n = 10;
	long lost_at, rec_at;

	/* Bad settings change nothing */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1 3"));
	EXPECT_EQ(-EINVAL, cgt_instance_write(&self->inst, "user_events_rate", "abc"));
	EXPECT_EQ(-EINVAL, cgt_instance_write(&self->inst, "user_events_rate", "5 0"));
	EXPECT_EQ(-EINVAL, cgt_instance_write(&self->inst, "user_events_rate", "10000001 5"));
	EXPECT_EQ(-EINVAL, cgt_instance_write(&self->inst, "user_events_rate", "5 5 5"));
	ASSERT_LT(0, cgt_instance_read(&self->inst, "user_events_rate", buf, sizeof(buf)));
	EXPECT_STREQ("1 3\n", buf);

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		strcat(buf, "I|1|flood\n");
	ASSERT_EQ(0, um_write(&self->inst, buf));
	EXPECT_EQ(burst, stat_of(&self->inst, "recorded"));
	EXPECT_EQ(n - burst, stat_of(&self->inst, "rate_limited"));
	EXPECT_EQ(n - burst, stat_of(&self->inst, "lost_pending"));
	usleep(1200000);
	ASSERT_EQ(0, um_write(&self->inst, "I|1|after-pause\n"));
	EXPECT_EQ(n - burst, stat_of(&self->inst, "lost_reported"));
	EXPECT_EQ(0, stat_of(&self->inst, "lost_pending"));

	trace_of(&self->inst, self->trace);
	EXPECT_EQ(burst, count_of(self->trace, "instant: flood"));
	snprintf(want, sizeof(want), "lost: count=%d tgid=%d", n - burst, self->pid);
	lost_at = line_at(self->trace, want);
	rec_at = line_at(self->trace, "instant: after-pause");
	EXPECT_LE(0, lost_at) TH_LOG("%s", self->trace);
	EXPECT_LT(lost_at, rec_at);

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "0"));
	ASSERT_LT(0, cgt_instance_read(&self->inst, "user_events_rate", buf, sizeof(buf)));
	EXPECT_STREQ("0 0\n", buf);
}

/* Ten instants in one write: how many the rate limit let through. */
static long long flood_accepted(struct __test_metadata *_metadata,
				struct cgt_instance *inst)
{
	long long before = stat_of(inst, "accepted");
	char buf[128] = "";
	int i;

	for (i = 0; i < 10; i++)
		strcat(buf, "I|1|change\n");
	EXPECT_EQ(0, um_write(inst, buf));
	return stat_of(inst, "accepted") - before;
}

/*
 * A new limit applies to the group's next write: a lowered burst caps its
 * bucket there, a raised one does not refill it (user-markers.rst). At 1
 * record a second, a refill adds at most one token in the test's time.
 */
TEST_F_TIMEOUT(um, rate_change_applies_to_the_next_write, 180)
{
	long long lowered, raised;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1 1000"));
	EXPECT_EQ(10, flood_accepted(_metadata, &self->inst));
	/* 990 tokens left, 3 at most from now on */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1 3"));
	lowered = flood_accepted(_metadata, &self->inst);
	EXPECT_LE(3, lowered);
	EXPECT_GE(4, lowered);
	/* Empty now: the larger burst is not given at once */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1 1000"));
	raised = flood_accepted(_metadata, &self->inst);
	EXPECT_GE(1, raised);
	EXPECT_EQ(30 - 10 - lowered - raised, stat_of(&self->inst, "rate_limited"));
}

#define WRITERS		8
#define WRITES		150
#define PER_WRITE	5

static void *flood(void *p)
{
	struct cgt_instance *inst = p;
	int i;

	for (i = 0; i < WRITES; i++)
		if (um_write(inst, i & 1 ? "I|1|f\nI|1|f\nB|1|s\nE|1\nC|1|k|1\n"
					 : "I|1|f\nC|1|k|2\nI|1|f\nI|1|f\nI|1|f\n"))
			return (void *)1;
	return NULL;
}

struct counts {
	long long accepted, recorded, dropped, limited, reported, pending;
	long long events, lost_sum, lost_events;
	/* The ring buffer's own per_cpu/cpuN/stats, summed over the CPUs */
	long long rb_entries, rb_dropped, rb_overrun;
};

/* Add the per-CPU ring-buffer counts of @inst to @c. */
static void ring_buffer_counts(struct cgt_instance *inst, struct counts *c)
{
	char file[64], buf[1024], *p;
	int cpu;

	c->rb_entries = 0;
	c->rb_dropped = 0;
	c->rb_overrun = 0;
	for (cpu = 0; ; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (cgt_instance_read(inst, file, buf, sizeof(buf)) < 0)
			break;
		p = strstr(buf, "entries: ");
		c->rb_entries += p ? atoll(p + 9) : -1000000;
		p = strstr(buf, "dropped events: ");
		c->rb_dropped += p ? atoll(p + 16) : -1000000;
		p = strstr(buf, "overrun: ");
		c->rb_overrun += p ? atoll(p + 9) : -1000000;
	}
}

/* WRITERS threads flood the instance; then the counts and the trace. */
static int flood_and_count(struct cgt_instance *inst, char *trace,
			   struct counts *c)
{
	pthread_t t[WRITERS];
	const char *p;
	void *ret;
	int i, err = 0;

	for (i = 0; i < WRITERS; i++)
		if (pthread_create(&t[i], NULL, flood, inst))
			return -1;
	for (i = 0; i < WRITERS; i++) {
		pthread_join(t[i], &ret);
		err |= !!ret;
	}
	cgt_instance_write(inst, "tracing_on", "0");

	c->accepted = stat_of(inst, "accepted");
	c->recorded = stat_of(inst, "recorded");
	c->dropped = stat_of(inst, "buffer_dropped");
	c->limited = stat_of(inst, "rate_limited");
	c->reported = stat_of(inst, "lost_reported");
	c->pending = stat_of(inst, "lost_pending");
	ring_buffer_counts(inst, c);
	trace_of(inst, trace);
	c->events = count_of(trace, "instant: f ") +
		    count_of(trace, "counter: k=") +
		    count_of(trace, "begin: s ") + count_of(trace, "end: s ");
	c->lost_sum = 0;
	c->lost_events = 0;
	for (p = trace; (p = strstr(p, "lost: count=")); p++) {
		c->lost_sum += atoll(p + 12);
		c->lost_events++;
	}
	return err ? -1 : 0;
}

/*
 * A flood into a small buffer without overwrite: every record counted as
 * recorded or buffer_dropped, as the ring buffer itself counts them. With
 * @filter, an event filter that takes every record, the events are built
 * in the per-CPU scratch event and copied into the ring buffer at commit:
 * a copy the full buffer refuses is a drop too.
 */
static void overflow_and_check(struct __test_metadata *_metadata,
			       struct cgt_instance *inst, char *trace,
			       const char *filter)
{
	struct counts c;

	/* Small buffer, no overwrite, no rate limit */
	ASSERT_EQ(0, cgt_instance_write(inst, "buffer_size_kb", "8"));
	ASSERT_EQ(0, cgt_instance_write(inst, "options/overwrite", "0"));
	ASSERT_EQ(0, cgt_instance_write(inst, "user_events_rate", "0"));
	if (filter)
		ASSERT_EQ(0, cgt_instance_write(inst, "events/user_markers/filter",
						filter));
	ASSERT_EQ(0, flood_and_count(inst, trace, &c));
	TH_LOG("accepted %lld recorded %lld buffer_dropped %lld",
	       c.accepted, c.recorded, c.dropped);
	EXPECT_EQ(WRITERS * WRITES * PER_WRITE, c.accepted);
	EXPECT_EQ(c.accepted, c.recorded + c.dropped);
	EXPECT_LT(0, c.dropped);
	EXPECT_EQ(0, c.limited);
	EXPECT_EQ(0, stat_of(inst, "event_filtered"));
	/* What the buffer holds is what the counts say. */
	EXPECT_EQ(c.recorded, c.events);
	/*
	 * And the ring buffer agrees, CPU by CPU summed: it holds what was
	 * recorded and refused what was dropped (only markers are enabled).
	 */
	TH_LOG("per_cpu stats: entries %lld dropped events %lld overrun %lld",
	       c.rb_entries, c.rb_dropped, c.rb_overrun);
	EXPECT_EQ(c.recorded, c.rb_entries);
	EXPECT_EQ(c.dropped, c.rb_dropped);
	EXPECT_EQ(0, c.rb_overrun);
}

TEST_F_TIMEOUT(um, exact_counts_when_the_buffer_overflows, 300)
{
	overflow_and_check(_metadata, &self->inst, self->trace, NULL);
}

TEST_F_TIMEOUT(um, exact_counts_when_a_filtered_copy_overflows, 300)
{
	overflow_and_check(_metadata, &self->inst, self->trace,
			   "common_pid != 0");
}

TEST_F_TIMEOUT(um, exact_counts_when_rate_limited, 300)
{
	struct counts c;

	/* Room for everything, a tight limit */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "buffer_size_kb", "1024"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/overwrite", "0"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1000 200"));
	ASSERT_EQ(0, flood_and_count(&self->inst, self->trace, &c));
	TH_LOG("accepted %lld recorded %lld rate_limited %lld lost_reported %lld lost_pending %lld",
	       c.accepted, c.recorded, c.limited, c.reported, c.pending);
	EXPECT_EQ(WRITERS * WRITES * PER_WRITE, c.accepted + c.limited);
	EXPECT_EQ(c.accepted, c.recorded + c.dropped);
	EXPECT_EQ(c.limited, c.reported + c.pending);
	EXPECT_LT(0, c.limited);
	EXPECT_LT(0, c.reported);
	EXPECT_EQ(c.recorded, c.events);
	/* The lost events in the trace add up to the count reported. */
	EXPECT_EQ(c.reported, c.lost_sum);
	/* The ring buffer holds the records and the lost events, no more. */
	EXPECT_EQ(c.recorded + c.lost_events, c.rb_entries);
	EXPECT_EQ(c.dropped, c.rb_dropped);
}

TEST_F_TIMEOUT(um, thread_exit_ends_open_spans, 180)
{
	struct writer_arg a = { &self->inst, "B|1|t-outer\nB|1|t-inner\n" };
	pthread_t t;
	char want[64];
	long in, out;
	int i;

	ASSERT_EQ(0, pthread_create(&t, NULL, write_and_exit, &a));
	ASSERT_EQ(0, pthread_join(t, NULL));
	/*
	 * pthread_join() returns once the thread's tid is cleared, in
	 * exit_mm(), before the exit tracepoint: wait for the kernel side.
	 */
	for (i = 0; i < 100 && stat_of(&self->inst, "span_states"); i++)
		usleep(100000);
	/* The thread's span state went with it; the group's stays. */
	EXPECT_EQ(0, stat_of(&self->inst, "span_states"));
	EXPECT_EQ(1, stat_of(&self->inst, "rate_states"));
	ASSERT_EQ(0, um_write(&self->inst, "B|1|main-open\n"));
	EXPECT_EQ(1, stat_of(&self->inst, "span_states"));
	trace_of(&self->inst, self->trace);
	in = line_at(self->trace, "end: t-inner depth=1");
	out = line_at(self->trace, "end: t-outer depth=0");
	ASSERT_LE(0, in) TH_LOG("%s", self->trace);
	ASSERT_LE(0, out);
	EXPECT_LT(in, out);
	snprintf(want, sizeof(want), "-%d ", a.tid);
	EXPECT_TRUE(line_has(self->trace, "end: t-inner", " exited"));
	EXPECT_TRUE(line_has(self->trace, "end: t-outer", " exited"));
	EXPECT_TRUE(line_has(self->trace, "end: t-inner", want));
}

/* prctl() is variadic: every argument must be a full unsigned long. */
static int um_prctl(unsigned long kind, const void *name, unsigned long value,
		    unsigned long arg5)
{
	return prctl(PR_TRACE_USER_MARKER, kind, (unsigned long)name, value,
		     arg5);
}

TEST_F_TIMEOUT(um, prctl_path, 180)
{
	char name[200];

	/* Off by default: accepted, not recorded */
	EXPECT_EQ(0, um_prctl(PR_TRACE_MARKER_INSTANT, "p-not-opted-in", 0, 0));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/user_events_prctl", "1"));
	EXPECT_EQ(0, um_prctl(PR_TRACE_MARKER_BEGIN, "p-span", 0, 0));
	EXPECT_EQ(0, um_prctl(PR_TRACE_MARKER_COUNTER, "p-count", 77, 0));
	EXPECT_EQ(0, um_prctl(PR_TRACE_MARKER_END, NULL, 0, 0));
	EXPECT_EQ(-1, um_prctl(9, "x", 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, um_prctl(PR_TRACE_MARKER_INSTANT, "x", 0, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, um_prctl(PR_TRACE_MARKER_INSTANT, (const void *)8, 0, 0));
	EXPECT_EQ(EFAULT, errno);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(-1, um_prctl(PR_TRACE_MARKER_INSTANT, name, 0, 0));
	EXPECT_EQ(ENAMETOOLONG, errno);
	EXPECT_EQ(-1, um_prctl(PR_TRACE_MARKER_INSTANT, "a\tb", 0, 0));
	EXPECT_EQ(EINVAL, errno);

	trace_of(&self->inst, self->trace);
	EXPECT_EQ(0, count_of(self->trace, "p-not-opted-in"));
	EXPECT_LE(0, line_at(self->trace, "begin: p-span depth=0"));
	EXPECT_LE(0, line_at(self->trace, "counter: p-count=77"));
	EXPECT_LE(0, line_at(self->trace, "end: p-span depth=0"));
}

TEST_F_TIMEOUT(um, top_level_write_reaches_enabled_instances, 180)
{
	struct cgt_instance off;
	char *other;

	ASSERT_EQ(0, cgt_instance_create(&off, "um-off"));
	other = malloc(TRACE_BUF);
	ASSERT_NE(NULL, other);
	ASSERT_EQ(0, cgt_write_file_flags(CGT_TRACEFS "/user_events",
					  "I|1|via-top\n", 12, 0));
	ASSERT_EQ(0, um_write(&self->inst, "I|1|via-own\n"));
	trace_of(&self->inst, self->trace);
	trace_of(&off, other);
	EXPECT_EQ(1, count_of(self->trace, "via-top"));
	EXPECT_EQ(1, count_of(self->trace, "via-own"));
	EXPECT_EQ(0, count_of(other, "via-"));
	/* An instance's own file reaches that instance only. */
	ASSERT_EQ(0, cgt_instance_write(&off, "events/user_markers/enable", "1"));
	ASSERT_EQ(0, um_write(&self->inst, "I|1|own-again\n"));
	trace_of(&off, other);
	EXPECT_EQ(0, count_of(other, "own-again"));
	EXPECT_EQ(0, cgt_instance_destroy(&off));
	free(other);
}

struct top_writer {
	atomic_int stop;
	long writes;
};

static void *write_top(void *p)
{
	struct top_writer *w = p;
	int fd = open(CGT_TRACEFS "/user_events", O_WRONLY);

	if (fd < 0)
		return (void *)1;
	while (!atomic_load(&w->stop)) {
		if (write(fd, "B|1|churn\nI|1|churn\nE|1\n", 24) != 24)
			return (void *)2;
		w->writes++;
	}
	close(fd);
	return NULL;
}

TEST_F_TIMEOUT(um, instance_removal_with_writers, 300)
{
	struct top_writer w = {};
	struct cgt_instance tmp;
	char p[PATH_MAX];
	pthread_t t;
	void *ret;
	int fd, i;

	/* An open user_events holds its instance. */
	fd = open(cgt_instance_file(&self->inst, "user_events", p, sizeof(p)), O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, rmdir(self->inst.path));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(6, write(fd, "I|1|x\n", 6));
	close(fd);

	/* Top-level writes fan out while instances come and go. */
	ASSERT_EQ(0, pthread_create(&t, NULL, write_top, &w));
	/* Each round creates ~1500 event files: few rounds on a debug VM */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, cgt_instance_create(&tmp, "um-churn"));
		ASSERT_EQ(0, cgt_instance_write(&tmp, "events/user_markers/enable", "1"));
		usleep(50000);
		ASSERT_EQ(0, cgt_instance_destroy(&tmp));
	}
	atomic_store(&w.stop, 1);
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(NULL, ret);
	EXPECT_LT(0, w.writes);
	trace_of(&self->inst, self->trace);
	EXPECT_LT(0, count_of(self->trace, "churn"));
}

/* Kernel memory no reclaim gives back, in KiB (/proc/meminfo) */
static long long unreclaimable_kib(void)
{
	char buf[4096], *p;

	if (cgt_read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "SUnreclaim:");
	return p ? atoll(p + 11) : -1;
}

/*
 * kasan_quarantined - does the kernel keep freed objects in KASAN's
 * quarantine? Then SUnreclaim counts what the writes' own allocations
 * freed, and cannot show what the instance holds.
 */
static bool kasan_quarantined(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strstr(line, " kasan_quarantine_put"))
			found = true;
	}
	fclose(f);
	return found;
}

#define REJECTED_THREADS	10000

struct rejected_arg {
	struct cgt_instance	*inst;
	pthread_barrier_t	*ready, *written, *done;
	atomic_int		errors;
};

static void *begin_and_wait(void *p)
{
	struct rejected_arg *a = p;

	pthread_barrier_wait(a->ready);
	if (um_write(a->inst, "B|1|rejected-span\n"))
		atomic_fetch_add(&a->errors, 1);
	pthread_barrier_wait(a->written);
	pthread_barrier_wait(a->done);
	return NULL;
}

/*
 * A task the instance does not record cannot make it hold memory: 10,000
 * threads outside the instance's cgroups each begin a span and stay
 * alive; the instance keeps no span state for any of them, and the
 * kernel's unreclaimable memory does not grow by their spans (a span
 * state is about 1.8 KiB: 10,000 of them would be about 18 MiB).
 */
TEST_F_TIMEOUT(um, rejected_threads_hold_no_span_state, 600)
{
	static pthread_t t[REJECTED_THREADS];
	pthread_barrier_t ready, written, done;
	struct rejected_arg a = { &self->inst, &ready, &written, &done };
	char cg[256], name[64], list[96], pid_max[32] = "", threads_max[32] = "";
	long long before, after;
	pthread_attr_t attr;
	int i, n = 0;

	/*
	 * Room for the threads: small kernels start with 4096 pids, and
	 * threads-max is sized from memory by the kernel stack's size, which
	 * KASAN doubles (6,763 threads in the debug guest)
	 */
	if (cgt_read_file("/proc/sys/kernel/pid_max", pid_max, sizeof(pid_max)) > 0 &&
	    atoi(pid_max) < 2 * REJECTED_THREADS)
		ASSERT_EQ(0, cgt_write_file("/proc/sys/kernel/pid_max", "32768"));
	if (cgt_read_file("/proc/sys/kernel/threads-max", threads_max,
			  sizeof(threads_max)) > 0 &&
	    atoi(threads_max) < 2 * REJECTED_THREADS)
		ASSERT_EQ(0, cgt_write_file("/proc/sys/kernel/threads-max", "32768"));

	snprintf(name, sizeof(name), "um-rejected-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, cg, sizeof(cg)));
	snprintf(list, sizeof(list), "/%s", name);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "set_event_cgroup", list));
	ASSERT_EQ(0, pthread_barrier_init(&ready, NULL, REJECTED_THREADS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&written, NULL, REJECTED_THREADS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&done, NULL, REJECTED_THREADS + 1));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 64 * 1024));

	for (n = 0; n < REJECTED_THREADS; n++) {
		if (pthread_create(&t[n], &attr, begin_and_wait, &a))
			break;
	}
	ASSERT_EQ(REJECTED_THREADS, n) {
		/* Let the ones made go: the barriers wait for all */
		for (i = 0; i < n; i++)
			pthread_cancel(t[i]);
	}
	/* All there, none has written yet */
	before = unreclaimable_kib();
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&written);
	after = unreclaimable_kib();
	EXPECT_EQ(0, atomic_load(&a.errors));
	EXPECT_EQ(0, stat_of(&self->inst, "span_states"));
	EXPECT_EQ(REJECTED_THREADS, stat_of(&self->inst, "filtered"));
	pthread_barrier_wait(&done);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	/*
	 * The threads' own memory (tasks, stacks) was there before the
	 * writes: what the writes added stays under 2 MiB of the 18 MiB
	 * that span states would take.
	 */
	TH_LOG("SUnreclaim %lld KiB before the writes, %lld after", before,
	       after);
	ASSERT_LE(0, before);
	if (kasan_quarantined())
		TH_LOG("not compared: KASAN's quarantine holds what the writes freed%s",
		       " (span_states is checked)");
	else
		EXPECT_GT(2048, after - before);
	cgt_instance_write(&self->inst, "set_event_cgroup", "");
	rmdir(cg);
	pthread_attr_destroy(&attr);
	if (atoi(pid_max) < 2 * REJECTED_THREADS)
		cgt_write_file("/proc/sys/kernel/pid_max", pid_max);
	if (atoi(threads_max) < 2 * REJECTED_THREADS)
		cgt_write_file("/proc/sys/kernel/threads-max", threads_max);
}

#define FORKED_WRITERS	64
#define FORKED_RECORDS	300

/*
 * Forking does not multiply what an instance takes: 64 processes, each
 * under the per-process limit, share the instance's total, so that what
 * is recorded stays within the total's burst and rate over the time the
 * writers ran, and every record is counted as recorded or rate_limited.
 */
TEST_F_TIMEOUT(um, forked_writers_share_the_instance_budget, 300)
{
	long long rate = 100, burst = 200, recorded, limited, budget;
	struct timespec t0, t1;
	char limit[32];
	pid_t pid[FORKED_WRITERS];
	double secs;
	int i, j, status, failed = 0;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "1000 100"));
	snprintf(limit, sizeof(limit), "%lld %lld", rate, burst);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate_total", limit));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < FORKED_WRITERS; i++) {
		pid[i] = fork();
		if (!pid[i]) {
			for (j = 0; j < FORKED_RECORDS; j++)
				if (um_write(&self->inst, "I|1|forked\n"))
					_exit(1);
			_exit(0);
		}
	}
	for (i = 0; i < FORKED_WRITERS; i++) {
		waitpid(pid[i], &status, 0);
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	EXPECT_EQ(0, failed);
	recorded = stat_of(&self->inst, "recorded");
	limited = stat_of(&self->inst, "rate_limited");
	/* A refill is by whole jiffies: one more jiffy's worth of slack */
	budget = burst + (long long)(rate * (secs + 0.1)) + 1;
	TH_LOG("%lld recorded, %lld rate_limited in %.2f s; total budget %lld",
	       recorded, limited, secs, budget);
	EXPECT_EQ(FORKED_WRITERS * FORKED_RECORDS, recorded + limited);
	EXPECT_GE(budget, recorded);
	/* Each process alone would have been let through its own burst */
	EXPECT_LT(recorded, FORKED_WRITERS * 100);
	EXPECT_EQ(limited, stat_of(&self->inst, "lost_reported") +
			   stat_of(&self->inst, "lost_pending"));
}

/*
 * prctl(PR_TRACE_USER_MARKER) needs CAP_PERFMON: a process without it
 * gets EPERM and records nothing, even where an instance opted in.
 */
TEST_F_TIMEOUT(um, prctl_needs_perfmon, 120)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/user_events_prctl", "1"));
	pid = fork();
	if (!pid) {
		/* nobody, no capabilities left */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		if (um_prctl(PR_TRACE_MARKER_INSTANT, "unprivileged", 0, 0) != -1)
			_exit(3);
		_exit(errno == EPERM ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, stat_of(&self->inst, "recorded"));
	/* The privileged caller is served */
	EXPECT_EQ(0, um_prctl(PR_TRACE_MARKER_INSTANT, "privileged", 0, 0));
	EXPECT_EQ(1, stat_of(&self->inst, "recorded"));
}

/*
 * The enable state a process maps: user_events_enabled's first word
 * (USER_MARKERS_* of linux/trace_user_markers.h: bit N for the event of
 * the N-th record kind, B E C S F I).
 */
/* enabled - the word as the kernel last stored it (the page is shared) */
static unsigned int enabled(const unsigned int *word)
{
	return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* map_enabled - map @dir's user_events_enabled (dir: an instance or the top) */
static const unsigned int *map_enabled(const char *dir)
{
	char p[PATH_MAX];
	void *page;
	int fd;

	snprintf(p, sizeof(p), "%s/user_events_enabled", dir);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return NULL;
	page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return page == MAP_FAILED ? NULL : page;
}

static int enable_event(struct cgt_instance *inst, const char *ev, int on)
{
	char file[128];

	snprintf(file, sizeof(file), "events/user_markers/%s/enable", ev);
	return cgt_instance_write(inst, file, on ? "1" : "0");
}

/*
 * The word follows the events: set before an enable returns, clear after
 * a disable returns; the top level's word holds what every instance that
 * its writes reach has on, an instance's only its own; an instance with
 * its markers option off counts for neither; read(2) names the events.
 */
TEST_F_TIMEOUT(um, enabled_page_follows_the_events, 180)
{
	const unsigned int *own, *top;
	char buf[128];

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	own = map_enabled(self->inst.path);
	top = map_enabled(CGT_TRACEFS);
	ASSERT_NE(NULL, own);
	ASSERT_NE(NULL, top);
	EXPECT_EQ(0, enabled(own));
	ASSERT_EQ(0, enable_event(&self->inst, "instant", 1));
	EXPECT_EQ(USER_MARKERS_INSTANT, enabled(own));
	EXPECT_EQ(USER_MARKERS_INSTANT, enabled(top) & USER_MARKERS_INSTANT);
	ASSERT_EQ(0, enable_event(&self->inst, "begin", 1));
	EXPECT_EQ(USER_MARKERS_INSTANT | USER_MARKERS_BEGIN, enabled(own));
	ASSERT_LT(0, cgt_instance_read(&self->inst, "user_events_enabled", buf, sizeof(buf)));
	EXPECT_STREQ("begin instant\n", buf);
	/* Markers off: a write would not be taken, so nothing is on */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/markers", "0"));
	EXPECT_EQ(0, enabled(own));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/markers", "1"));
	EXPECT_EQ(USER_MARKERS_INSTANT | USER_MARKERS_BEGIN, enabled(own));
	ASSERT_EQ(0, enable_event(&self->inst, "instant", 0));
	EXPECT_EQ(USER_MARKERS_BEGIN, enabled(own));
	ASSERT_EQ(0, enable_event(&self->inst, "begin", 0));
	EXPECT_EQ(0, enabled(own));
	EXPECT_EQ(0, enabled(top) & (USER_MARKERS_INSTANT | USER_MARKERS_BEGIN))
		TH_LOG("top level still shows %#x", enabled(top));
	munmap((void *)own, 4096);
	munmap((void *)top, 4096);
}

/* The page cannot be written, nor mapped but whole at offset 0 */
TEST_F_TIMEOUT(um, enabled_page_is_read_only, 120)
{
	char p[PATH_MAX];
	void *page;
	int fd;

	cgt_instance_file(&self->inst, "user_events_enabled", p, sizeof(p));
	EXPECT_EQ(-1, open(p, O_RDWR));
	EXPECT_EQ(EACCES, errno);
	fd = open(p, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(-1, mprotect(page, 4096, PROT_READ | PROT_WRITE));
	munmap(page, 4096);
	/* A private copy would stop following the word: no writable one */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(EPERM, errno);
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(-1, mprotect(page, 4096, PROT_READ | PROT_WRITE));
	close(fd);
	munmap(page, 4096);
}

/*
 * The enabler's state, as a generation: 4k off and settled, 4k + 1 being
 * enabled, 4k + 2 on and settled (the enable returned), 4k + 3 being
 * disabled. A writer judges the word only when the generation did not
 * move around its read.
 */
struct race_writer {
	struct cgt_instance		*inst;
	const unsigned int		*word;
	atomic_int			gen, stop;
	long				after_enable, missed_on, late_off;
	long				written;
};

/*
 * A writer on CPU 1 tests the word before each marker, as user_marker.h
 * does: once the enable has returned, it must see the bit (and its next
 * marker is recorded); once the disable has returned, it must not.
 */
static void *race_enable_writer(void *p)
{
	struct race_writer *w = p;
	char path[PATH_MAX];
	int fd, g1, g2;

	pin_to(1);
	fd = open(cgt_instance_file(w->inst, "user_events", path, sizeof(path)), O_WRONLY);
	if (fd < 0)
		return (void *)1;
	while (!atomic_load(&w->stop)) {
		unsigned int word;

		g1 = atomic_load(&w->gen);
		word = enabled(w->word);
		g2 = atomic_load(&w->gen);
		if (g1 == g2 && g1 % 4 == 2 && !(word & USER_MARKERS_INSTANT))
			w->missed_on++;
		if (g1 == g2 && g1 % 4 == 0 && (word & USER_MARKERS_INSTANT))
			w->late_off++;
		if (word & USER_MARKERS_INSTANT) {
			if (write(fd, "I|0|raced\n", 10) == 10) {
				w->written++;
				/* on from before the write to after it */
				w->after_enable += g1 == g2 && g1 % 4 == 2 &&
						   atomic_load(&w->gen) == g1;
			}
		}
	}
	close(fd);
	return NULL;
}

TEST_F_TIMEOUT(um, enable_seen_by_a_writer_on_another_cpu, 180)
{
	struct race_writer w = { .inst = &self->inst };
	pthread_t t;
	void *ret;
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	/* every marker the writer makes reaches the buffer or a count */
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "0"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate_total", "0"));
	w.word = map_enabled(self->inst.path);
	ASSERT_NE(NULL, w.word);
	pin_to(0);
	ASSERT_EQ(0, pthread_create(&t, NULL, race_enable_writer, &w));
	for (i = 0; i < 5; i++) {
		usleep(20000);
		atomic_fetch_add(&w.gen, 1);
		ASSERT_EQ(0, enable_event(&self->inst, "instant", 1));
		atomic_fetch_add(&w.gen, 1);
		usleep(20000);
		atomic_fetch_add(&w.gen, 1);
		ASSERT_EQ(0, enable_event(&self->inst, "instant", 0));
		atomic_fetch_add(&w.gen, 1);
	}
	usleep(20000);
	atomic_store(&w.stop, 1);
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(NULL, ret);
	EXPECT_EQ(0, w.missed_on)
		TH_LOG("%ld markers saw the event off after its enable returned",
		       w.missed_on);
	EXPECT_EQ(0, w.late_off)
		TH_LOG("%ld markers saw the event on after its disable returned",
		       w.late_off);
	EXPECT_LT(0, w.after_enable);
	/* What the kernel saw: every marker written is recorded or counted */
	EXPECT_EQ(w.written, stat_of(&self->inst, "recorded") +
			     stat_of(&self->inst, "buffer_dropped") +
			     stat_of(&self->inst, "disabled"));
	EXPECT_LE(w.after_enable, stat_of(&self->inst, "recorded") +
				  stat_of(&self->inst, "buffer_dropped"));
	munmap((void *)w.word, 4096);
}

/*
 * A forked child shares the page and sees every change; a program that
 * a process executes maps it anew; an instance whose page a process maps
 * can be removed (the mapping holds the page, not the instance), and the
 * mapping then reads 0.
 */
TEST_F_TIMEOUT(um, fork_exec_and_removal_with_the_page_mapped, 180)
{
	const unsigned int *word;
	struct cgt_instance tmp;
	int to_child[2], status;
	char p[PATH_MAX], c;
	pid_t pid;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	word = map_enabled(self->inst.path);
	ASSERT_NE(NULL, word);
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	if (!pid) {
		/* off at the fork, on once the parent says so */
		if (enabled(word) || read(to_child[0], &c, 1) != 1)
			_exit(1);
		_exit(*word == USER_MARKERS_COUNTER ? 0 : 2);
	}
	ASSERT_EQ(0, enable_event(&self->inst, "counter", 1));
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child saw the wrong state (status %d)", status);
	/* A program executed reads the state through its own mapping */
	snprintf(p, sizeof(p), "test \"$(cat %s/user_events_enabled)\" = counter",
		 self->inst.path);
	EXPECT_EQ(0, system(p));
	munmap((void *)word, 4096);

	ASSERT_EQ(0, cgt_instance_create(&tmp, "um-mapped"));
	ASSERT_EQ(0, cgt_instance_write(&tmp, "events/user_markers/enable", "1"));
	word = map_enabled(tmp.path);
	ASSERT_NE(NULL, word);
	EXPECT_NE(0, enabled(word));
	EXPECT_EQ(0, rmdir(tmp.path)) TH_LOG("a mapping pins the instance: %s",
					     strerror(errno));
	EXPECT_EQ(0, enabled(word));
	munmap((void *)word, 4096);
	if (!access(tmp.path, F_OK))
		EXPECT_EQ(0, cgt_instance_destroy(&tmp));
}

/*
 * A mapping finds the page again wherever the kernel dropped it from the
 * process: after MADV_DONTNEED (no SIGBUS, the live word) and after
 * mremap() moved it.
 */
TEST_F_TIMEOUT(um, enabled_page_after_madvise_and_mremap, 120)
{
	const unsigned int *word;
	void *moved, *hole;
	bool has_madvise;

	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	word = map_enabled(self->inst.path);
	ASSERT_NE(NULL, word);
	ASSERT_EQ(0, enable_event(&self->inst, "begin", 1));
	EXPECT_EQ(USER_MARKERS_BEGIN, enabled(word));
	/* The test kernels' tinyconfig has no CONFIG_ADVISE_SYSCALLS */
	has_madvise = !madvise(NULL, 0, MADV_NORMAL);
	if (!has_madvise)
		TH_LOG("no madvise() in this kernel: MADV_DONTNEED not tried");
	ASSERT_EQ(0, has_madvise ? madvise((void *)word, 4096, MADV_DONTNEED) : 0);
	EXPECT_EQ(USER_MARKERS_BEGIN, enabled(word));
	ASSERT_EQ(0, enable_event(&self->inst, "end", 1));
	EXPECT_EQ(USER_MARKERS_BEGIN | USER_MARKERS_END, enabled(word));
	/* A free address to move the mapping to */
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	moved = mremap((void *)word, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_EQ(hole, moved);
	word = moved;
	EXPECT_EQ(USER_MARKERS_BEGIN | USER_MARKERS_END, enabled(word));
	ASSERT_EQ(0, enable_event(&self->inst, "begin", 0));
	EXPECT_EQ(USER_MARKERS_END, enabled(word));
	/* It cannot grow past its one page */
	EXPECT_EQ(MAP_FAILED, mremap((void *)word, 4096, 8192, 0));
	munmap((void *)word, 4096);
}

/* The lost events of a trace: how many, and the records they count */
static long long lost_in(const char *trace, long long *events)
{
	long long sum = 0;
	const char *p;

	*events = 0;
	for (p = trace; (p = strstr(p, "lost: count=")); p++) {
		sum += atoll(p + 12);
		(*events)++;
	}
	return sum;
}

#define EXITING_THREADS	200
#define EXIT_SPANS	32

static void *begin_spans_and_exit(void *p)
{
	char buf[EXIT_SPANS * 8 + 1] = "";
	int i;

	for (i = 0; i < EXIT_SPANS; i++)
		strcat(buf, "B|0|x\n");
	return (void *)(long)um_write(p, buf);
}

/*
 * The spans the kernel ends at a thread's exit are records of its thread
 * group under the same limits: with the group's and the instance's limits
 * at 1 a second, threads that each leave 32 spans open (their begins
 * mostly dropped, and pushed all the same) make the instance record no
 * more than the limits allow, and every drop, at exit too, is counted and
 * reported by a lost event once the process is gone.
 */
TEST_F_TIMEOUT(um, exit_ends_stay_within_the_rate_limits, 600)
{
	struct cgt_instance *in = &self->inst;
	long long recorded, limited, reported, lost_events, budget;
	struct timespec t0, t1;
	int i, status;
	double secs;
	pid_t pid;

	ASSERT_EQ(0, cgt_instance_write(in, "buffer_size_kb", "2048"));
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate", "1 1"));
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate_total", "1 1"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pthread_t t[EXITING_THREADS];
		void *ret;
		int bad = 0;

		for (i = 0; i < EXITING_THREADS; i++)
			if (pthread_create(&t[i], NULL, begin_spans_and_exit, in))
				_exit(2);
		for (i = 0; i < EXITING_THREADS; i++) {
			pthread_join(t[i], &ret);
			bad |= !!ret;
		}
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* The group's state goes at its last exit, after its drops' report */
	for (i = 0; i < 100 && stat_of(in, "rate_states"); i++)
		usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	EXPECT_EQ(0, stat_of(in, "span_states"));
	EXPECT_EQ(0, stat_of(in, "rate_states"));

	recorded = stat_of(in, "recorded");
	limited = stat_of(in, "rate_limited");
	reported = stat_of(in, "lost_reported");
	/* Burst 1 at 1 a second, by whole jiffies: a second's slack */
	budget = 1 + (long long)(secs + 1);
	TH_LOG("%lld recorded, %lld rate_limited, %lld lost_reported in %.1f s; budget %lld",
	       recorded, limited, reported, secs, budget);
	EXPECT_GE(budget, recorded);
	/* Every begin and every span ended at exit: recorded or dropped */
	EXPECT_EQ(2 * EXITING_THREADS * EXIT_SPANS,
		  stat_of(in, "accepted") + limited);
	EXPECT_EQ(0, stat_of(in, "lost_pending"));
	EXPECT_EQ(limited, reported);

	trace_of(in, self->trace);
	EXPECT_GE(budget, count_of(self->trace, " exited"));
	EXPECT_EQ(reported, lost_in(self->trace, &lost_events));
	EXPECT_LT(0, lost_events);
}

#define FLOOD_WRITES	400

struct cpu_flood {
	struct cgt_instance	*inst;
	pthread_barrier_t	*start;
	int			cpu;
	pid_t			tid;
	int			err;
};

static void *flood_on_cpu(void *p)
{
	static const char rec[] = "I|0|every-cpu\n";
	struct cpu_flood *f = p;
	char path[PATH_MAX];
	int i, fd;

	pin_to(f->cpu);
	f->tid = gettid_();
	fd = open(cgt_instance_file(f->inst, "user_events", path, sizeof(path)),
		  O_WRONLY);
	f->err = fd < 0;
	pthread_barrier_wait(f->start);	/* tids known */
	pthread_barrier_wait(f->start);	/* lock counter on */
	for (i = 0; i < FLOOD_WRITES && fd >= 0; i++)
		f->err |= write(fd, rec, sizeof(rec) - 1) != sizeof(rec) - 1;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * The function tracer in instance @lk records the calls of
 * _raw_spin_lock_irqsave() by the tasks in @pids: 0 if it is set up, -1
 * if it cannot be.
 */
static int lock_counter_on(struct cgt_instance *lk, const char *pids)
{
	if (cgt_instance_create(lk, "um_lock_count"))
		return -1;
	if (cgt_instance_write(lk, "set_ftrace_filter", "_raw_spin_lock_irqsave") ||
	    cgt_instance_write(lk, "set_ftrace_pid", pids) ||
	    cgt_instance_write(lk, "buffer_size_kb", "4096") ||
	    cgt_instance_write(lk, "current_tracer", "function"))
		return -1;
	return 0;
}

/*
 * The calls of @fn made by the markers' own functions ("fn <-um_..." or
 * "<-trace_um_..."), in task context (no hardirq or softirq flag): the
 * open, write and close paths around them take locks of their own.
 */
static long long markers_calls(const char *trace, const char *fn)
{
	const char *line, *end, *flags, *caller;
	long long n = 0;

	for (line = trace; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (*line == '#' || !memmem(line, end - line, fn, strlen(fn)))
			continue;
		caller = memmem(line, end - line, "<-", 2);
		if (!caller || (strncmp(caller + 2, "um_", 3) &&
				strncmp(caller + 2, "trace_um_", 9)))
			continue;
		/* "task-pid [cpu] flags ts: fn <-caller": flags[2] is h, s or . */
		flags = memmem(line, end - line, "] ", 2);
		if (flags && flags + 4 < end && flags[4] == '.')
			n++;
	}
	return n;
}

/*
 * A flood from every CPU that the instance's total refuses: counted
 * exactly, within the total's budget, and lock-free: the markers take no
 * lock with interrupts off for a refused record (user-markers.rst: a
 * writer never waits), counted by the function tracer on the writers.
 */
TEST_F_TIMEOUT(um, total_refusals_from_every_cpu_take_no_lock, 600)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, err = 0;
	struct cgt_instance *in = &self->inst, lk = {};
	long long written, recorded, limited, locks = 0;
	struct cpu_flood f[8];
	pthread_barrier_t start;
	char pids[128] = "";
	pthread_t t[8];
	bool counting;

	if (ncpu > 8)
		ncpu = 8;
	if (ncpu < 2)
		SKIP(return, "one CPU: no flood from every CPU (vm-run --smp 4)");
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate", "0"));
	ASSERT_EQ(0, cgt_instance_write(in, "user_events_rate_total", "1 1"));
	pthread_barrier_init(&start, NULL, ncpu + 1);
	for (i = 0; i < ncpu; i++) {
		f[i] = (struct cpu_flood){ .inst = in, .start = &start, .cpu = i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, flood_on_cpu, &f[i]));
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < ncpu; i++)
		sprintf(pids + strlen(pids), "%d ", f[i].tid);
	counting = !lock_counter_on(&lk, pids);
	pthread_barrier_wait(&start);
	for (i = 0; i < ncpu; i++) {
		pthread_join(t[i], NULL);
		err |= f[i].err;
	}
	EXPECT_EQ(0, err);
	if (counting) {
		cgt_instance_write(&lk, "tracing_on", "0");
		trace_of(&lk, self->trace);
		locks = markers_calls(self->trace, "_raw_spin_lock_irqsave");
		cgt_instance_write(&lk, "current_tracer", "nop");
		cgt_instance_destroy(&lk);
	}

	written = (long long)ncpu * FLOOD_WRITES;
	recorded = stat_of(in, "recorded");
	limited = stat_of(in, "rate_limited");
	TH_LOG("%d CPUs wrote %lld: %lld recorded, %lld rate_limited",
	       ncpu, written, recorded, limited);
	EXPECT_EQ(written, stat_of(in, "accepted") + limited);
	EXPECT_LT(written / 2, limited);
	EXPECT_EQ(limited, stat_of(in, "lost_reported") + stat_of(in, "lost_pending"));
	if (!counting)
		SKIP(return, "no function tracer in an instance: lock calls not counted");
	TH_LOG("%lld calls of _raw_spin_lock_irqsave() by the markers for %lld refused records",
	       locks, limited);
	EXPECT_GT(limited / 10, locks);
}

/*
 * exec() ends the spans of the program that opened them: the new program
 * starts with none (depth 0), as user_marker.h in it does; the old span
 * ends with the "exited" flag at the exec, before the new one begins.
 */
TEST_F_TIMEOUT(um, exec_ends_the_old_programs_spans, 180)
{
	struct cgt_instance *in = &self->inst;
	char cmd[PATH_MAX * 2 + 128], file[PATH_MAX], want[64];
	long pre, post;
	int status;
	pid_t pid;

	cgt_instance_file(in, "user_events", file, sizeof(file));
	snprintf(cmd, sizeof(cmd),
		 "printf 'B|0|post-exec\\n' > %s && printf 'E|0\\n' > %s",
		 file, file);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (um_write(in, "B|0|pre-exec\n"))
			_exit(3);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	trace_of(in, self->trace);
	pre = line_at(self->trace, "end: pre-exec depth=0");
	post = line_at(self->trace, "begin: post-exec");
	ASSERT_LE(0, pre) TH_LOG("%s", self->trace);
	ASSERT_LE(0, post);
	EXPECT_TRUE(line_has(self->trace, "end: pre-exec", " exited"));
	EXPECT_LT(pre, post);
	EXPECT_LE(0, line_at(self->trace, "begin: post-exec depth=0 "));
	EXPECT_LE(0, line_at(self->trace, "end: post-exec depth=0 "));
	EXPECT_FALSE(line_has(self->trace, "end: post-exec", " exited"));
	snprintf(want, sizeof(want), "-%d ", pid);
	EXPECT_TRUE(line_has(self->trace, "end: pre-exec", want));
	/* Its state went at the exec; the shell's went at its exit */
	EXPECT_EQ(0, stat_of(in, "span_states"));
}

/*
 * The end of an untracked span has an empty name (user-markers.rst): the
 * name of the span was not kept, and an E's own name is not it.
 */
TEST_F_TIMEOUT(um, untracked_end_has_an_empty_name, 180)
{
	char buf[4096] = "";
	int i;

	for (i = 0; i <= 32; i++)
		sprintf(buf + strlen(buf), "B|1|u%d\n", i);
	ASSERT_EQ(0, um_write(&self->inst, buf));
	ASSERT_EQ(0, um_write(&self->inst, "E|1|claimed\n"));
	trace_of(&self->inst, self->trace);
	EXPECT_EQ(0, count_of(self->trace, "end: claimed"));
	EXPECT_TRUE(line_has(self->trace, "end:  depth=32 ", " untracked"))
		TH_LOG("%s", self->trace);
	buf[0] = '\0';
	for (i = 0; i < 32; i++)
		strcat(buf, "E|1\n");
	ASSERT_EQ(0, um_write(&self->inst, buf));
}

TEST_HARNESS_MAIN
