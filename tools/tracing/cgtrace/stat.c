// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - "cgtrace stat": print every context filter of an instance, its
 * fork options and its marker settings and counts (as "trace-cmd stat"
 * prints an instance's state).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"
#include "tracefs_util.h"

static const struct option instance_options[] = {
	{ "instance",	required_argument, NULL, 'B' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL },
};

const struct option *stat_long_options(void)
{
	return instance_options;
}

void stat_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace stat [-B INSTANCE | INSTANCE]\n"
"\n"
"Print the context filters of a tracing instance (the top level when\n"
"INSTANCE is omitted or \"top\"): the four pid files (set_event_pid,\n"
"set_event_notrace_pid, set_ftrace_pid, set_ftrace_notrace_pid), the four\n"
"cgroup files (set_event_cgroup, set_event_notrace_cgroup,\n"
"set_ftrace_cgroup, set_ftrace_notrace_cgroup), options/event-fork and\n"
"options/function-fork, and the user marker settings: user_events_rate,\n"
"options/user_events_prctl and the counts of user_events_stats.\n"
"A file the kernel does not have is shown as \"(not in this kernel)\".\n"
"\n"
"Reading needs read access to tracefs only, e.g. membership of the\n"
"group it was mounted with (mount -o remount,gid=GID,mode=0750).\n"
"\n"
"options:\n"
"  -B, --instance NAME  the instance (as trace-cmd stat -B)\n"
"  -h, --help           this text\n"
"\n"
"exit status: 0; 1 when the instance does not exist or cannot be read;\n"
"129 for a usage error.\n");
}

/* show_file - "name value", one list entry per line, aligned */
static void show_file(struct tracefs_instance *inst, const char *file)
{
	char *text, *line, *save;
	bool first = true;

	printf("%-26s ", file);
	if (!tfs_has(inst, file)) {
		printf("(not in this kernel)\n");
		return;
	}
	text = tfs_read(inst, file);
	if (!text) {
		printf("(unreadable: %s)\n", strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* empty pid lists read "no pid" (6.1) */
		if (line[0] == '#' || !strcmp(line, "no pid"))
			continue;
		printf("%*s%s\n", first ? 0 : 27, "", line);
		first = false;
	}
	if (first)
		printf("(empty)\n");
	free(text);
}

/*
 * instance_arg - the instance of stat and reset: -B NAME (as trace-cmd
 * names one), or a lone positional NAME; NULL for the top level.
 * Returns 0, or -1 for a usage error, 1 for --help.
 */
int instance_arg(int argc, char **argv, const char **name)
{
	int c;

	*name = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "B:h", instance_options, NULL)) != -1) {
		switch (c) {
		case 'B':
			*name = optarg;
			break;
		case 'h':
			return 1;
		default:
			opt_error(argv[0], argv, "B:h", instance_options);
			return -1;
		}
	}
	if (optind < argc && !*name)
		*name = argv[optind++];
	if (optind < argc) {
		err_msg("%s: unexpected argument '%s'", argv[0], argv[optind]);
		return -1;
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	static const char * const other[] = {
		"options/event-fork", "options/function-fork",
		"user_events_rate", "options/user_events_prctl",
		"user_events_stats", NULL,
	};
	struct tracefs_instance *inst;
	const char *name;
	int i;

	i = instance_arg(argc, argv, &name);
	if (i > 0) {
		stat_usage(stdout);
		return 0;
	}
	if (i < 0) {
		fprintf(stderr, "(cgtrace stat --help lists the options)\n");
		return EXIT_USAGE;
	}
	/* reading needs read access only (a tracefs gid= group member) */
	if (tfs_init(false) || tfs_instance_get(name, false, &inst, NULL))
		return EXIT_FAIL;
	printf("instance: %s\n", tfs_instance_label(inst));
	for (i = 0; i < 4; i++)
		show_file(inst, tfs_pid_files[i]);
	for (i = 0; i < 4; i++)
		show_file(inst, tfs_cgroup_files[i]);
	for (i = 0; other[i]; i++)
		show_file(inst, other[i]);
	tfs_instance_put(inst, false);
	return 0;
}
