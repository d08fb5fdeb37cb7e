// SPDX-License-Identifier: GPL-2.0
/*
 * reset.c - "cgtrace reset": clear every context filter of an instance and
 * put its fork options and marker settings back to their defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgtrace.h"
#include "tracefs_util.h"

void reset_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace reset [-B INSTANCE | INSTANCE]\n"
"\n"
"Clear the context filters of a tracing instance (the top level when\n"
"INSTANCE is omitted or \"top\"): empty the four pid and four cgroup\n"
"files, turn options/event-fork, options/function-fork and\n"
"options/user_events_prctl off, write the documented default\n"
"\"" TFS_USER_EVENTS_RATE_DEFAULT "\" to user_events_rate. user_events_stats\n"
"is left alone: the kernel never resets it (compare two readings).\n"
"Files the kernel does not have are skipped. It needs write access to\n"
"tracefs (root).\n"
"\n"
"options:\n"
"  -B, --instance NAME  the instance\n"
"  -h, --help           this text\n"
"\n"
"exit status: 0; 1 when the instance does not exist or a file could not\n"
"be written; 129 for a usage error.\n");
}

/* reset_option - turn a trace option off; one the kernel lacks is no error */
static int reset_option(struct tracefs_instance *inst, enum tracefs_option_id id)
{
	if (!tracefs_option_is_supported(inst, id) ||
	    !tracefs_option_is_enabled(inst, id) ||
	    !tracefs_option_disable(inst, id))
		return 0;
	err_msg("cannot turn options/%s off: %s", tracefs_option_name(id),
		strerror(errno));
	return -1;
}

/* reset_file - write a value; a missing file is not an error */
static int reset_file(struct tracefs_instance *inst, const char *file,
		      const char *value)
{
	int err;

	if (!tfs_has(inst, file))
		return 0;
	err = tfs_write(inst, file, value, true);
	if (err)
		err_msg("cannot reset %s: %s", file, strerror(-err));
	return err ? -1 : 0;
}

int cmd_reset(int argc, char **argv)
{
	struct tracefs_instance *inst;
	const char *name;
	int i, ret = 0;

	i = instance_arg(argc, argv, &name);
	if (i > 0) {
		reset_usage(stdout);
		return 0;
	}
	if (i < 0) {
		fprintf(stderr, "(cgtrace reset --help lists the options)\n");
		return EXIT_USAGE;
	}
	if (tfs_init(true) || tfs_instance_get(name, false, &inst, NULL))
		return EXIT_FAIL;
	for (i = 0; i < 4; i++) {
		ret |= reset_file(inst, tfs_pid_files[i], "");
		ret |= reset_file(inst, tfs_cgroup_files[i], "");
	}
	ret |= reset_option(inst, TRACEFS_OPTION_EVENT_FORK);
	ret |= reset_option(inst, TRACEFS_OPTION_FUNCTION_FORK);
	/* the kernel's own option: libtracefs's list does not know it */
	ret |= reset_file(inst, "options/user_events_prctl", "0");
	ret |= reset_file(inst, "user_events_rate", TFS_USER_EVENTS_RATE_DEFAULT);
	if (!ret)
		printf("instance %s: filters cleared\n", tfs_instance_label(inst));
	tfs_instance_put(inst, false);
	return ret ? EXIT_FAIL : 0;
}
