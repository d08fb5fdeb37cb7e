// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_clock_test - the CPU clocks a process reads are consistent, with
 * or without markers timing spans: a single-threaded process's clock
 * never reads below its only thread's clock read just before it, nor
 * does getrusage(). A kernel
 * that leaves the running thread's pending time out of the process clock
 * (which only the thread clock adds) fails this at almost every read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define PAIRS	20000

static long long ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A single-threaded busy loop reads its thread clock, then its process clock */
TEST(process_clock_never_below_thread_clock)
{
	long long thread, process, worst = 0;
	int i, below = 0;

	for (i = 0; i < PAIRS; i++) {
		thread = ns_of(CLOCK_THREAD_CPUTIME_ID);
		process = ns_of(CLOCK_PROCESS_CPUTIME_ID);
		if (process < thread) {
			below++;
			if (thread - process > worst)
				worst = thread - process;
		}
	}
	EXPECT_EQ(0, below)
		TH_LOG("process clock below the thread clock in %d of %d pairs, by up to %lld ns",
		       below, PAIRS, worst);
}

/*
 * getrusage() of a single-threaded process counts all the time its only
 * thread ran: never less than the thread clock read just before it
 * (ru_utime and ru_stime are each cut to microseconds: up to two of
 * rounding are allowed).
 */
TEST(rusage_never_behind_the_thread_clock)
{
	long long thread, rusage, worst = 0;
	struct rusage ru;
	int i, behind = 0;

	for (i = 0; i < PAIRS / 4; i++) {
		thread = ns_of(CLOCK_THREAD_CPUTIME_ID);
		getrusage(RUSAGE_SELF, &ru);
		rusage = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
		if (rusage + 2000 < thread) {
			behind++;
			if (thread - rusage > worst)
				worst = thread - rusage;
		}
	}
	EXPECT_EQ(0, behind)
		TH_LOG("rusage behind the thread clock in %d of %d reads, by up to %lld ns",
		       behind, PAIRS / 4, worst);
}

TEST_HARNESS_MAIN
