// SPDX-License-Identifier: GPL-2.0
/*
 * prctl_compat_test - prctl(PR_TRACE_USER_MARKER) from a 32-bit process:
 * a counter's value is the caller's signed long, so -5 is recorded as -5,
 * not as the 32-bit pattern read as unsigned (4294967291). Built with
 * -m32 (the Makefile's rule for this file; gcc-multilib) and run on the
 * kernel's IA32 emulation (config/base.config).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define TRACE_BUF	(64 * 1024)

static int counter(const char *name, long value)
{
	return prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_COUNTER,
		     (unsigned long)name, (unsigned long)value, 0UL);
}

TEST(compat_counter_values_keep_their_sign)
{
	struct cgt_instance inst;
	static char trace[TRACE_BUF];

	if (sizeof(long) != 4)
		SKIP(return, "built for 64 bits: this test is the -m32 build");
	if (access(CGT_TRACEFS "/user_events", F_OK))
		SKIP(return, "kernel without user_events (TRACE_USER_MARKERS)");
	ASSERT_EQ(0, cgt_instance_create(&inst, "um_compat"));
	ASSERT_EQ(0, cgt_instance_write(&inst, "events/user_markers/counter/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(&inst, "options/user_events_prctl", "1"));

	EXPECT_EQ(0, counter("c32_neg", -5));
	EXPECT_EQ(0, counter("c32_min", LONG_MIN));
	EXPECT_EQ(0, counter("c32_max", LONG_MAX));
	/* Other kinds still want 0: a sign-extended -1 is not 0 either */
	EXPECT_EQ(-1, prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_INSTANT,
			    (unsigned long)"x", (unsigned long)-1L, 0UL));
	EXPECT_EQ(EINVAL, errno);

	cgt_instance_read(&inst, "trace", trace, sizeof(trace));
	EXPECT_TRUE(!!strstr(trace, "counter: c32_neg=-5 ")) TH_LOG("%s", trace);
	EXPECT_TRUE(!!strstr(trace, "counter: c32_min=-2147483648 "));
	EXPECT_TRUE(!!strstr(trace, "counter: c32_max=2147483647 "));
	EXPECT_FALSE(!!strstr(trace, "4294967291"));
	cgt_instance_destroy(&inst);
}

TEST_HARNESS_MAIN
