// SPDX-License-Identifier: GPL-2.0
/*
 * vm_environment_test - what scripts/vm-run promises the tests: tracefs at
 * /sys/kernel/tracing, cgroup2 at /sys/fs/cgroup with cpu, memory and pids
 * delegated to children, a writable /tmp, and a ring buffer that records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

TEST(tracefs_and_cgroup2_are_mounted)
{
	struct statfs sfs;

	ASSERT_EQ(0, statfs("/sys/kernel/tracing", &sfs));
	EXPECT_EQ(TRACEFS_MAGIC, sfs.f_type);
	ASSERT_EQ(0, statfs("/sys/fs/cgroup", &sfs));
	EXPECT_EQ(CGROUP2_SUPER_MAGIC, sfs.f_type);
}

TEST(controllers_enabled_for_children)
{
	char buf[256];

	ASSERT_LT(0, cgt_read_file("/sys/fs/cgroup/cgroup.subtree_control",
				   buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "cpu"));
	EXPECT_NE(NULL, strstr(buf, "memory"));
	EXPECT_NE(NULL, strstr(buf, "pids"));
}

TEST(tmp_is_writable)
{
	char path[] = "/tmp/vmenv.XXXXXX";
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	EXPECT_EQ(3, write(fd, "abc", 3));
	close(fd);
	unlink(path);
}

/* A marker written into a fresh instance comes back out of its buffer. */
TEST(marker_reaches_instance_buffer)
{
	struct cgt_instance inst;
	char text[64], buf[8192];

	ASSERT_EQ(0, cgt_instance_create(&inst, "vmenv"));
	snprintf(text, sizeof(text), "vm-environment-%d", getpid());
	ASSERT_EQ(0, cgt_instance_write(&inst, "tracing_on", "1"));
	ASSERT_EQ(0, cgt_instance_write(&inst, "trace_marker", text));
	ASSERT_LT(0, cgt_instance_read(&inst, "trace", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, text));
	cgt_instance_destroy(&inst);
}

TEST_HARNESS_MAIN
