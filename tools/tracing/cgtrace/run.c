// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - "cgtrace run": run a command in a new cgroup and trace it, and
 * everything it starts, from its first instruction.
 *
 * The order that leaves no untraced window:
 *   1. make the cgroup, and the instance with set_event_cgroup = cgroup;
 *   2. trace-cmd enables the events, starts recording, then runs
 *      "cgtrace __exec CGROUP FD -- CMD" (this binary again, record.c);
 *   3. __exec forks; the child writes itself into CGROUP/cgroup.procs and
 *      only then execs CMD, so CMD's exec and all after it are recorded;
 *   4. __exec waits for CMD and hands its status back through FD (trace-cmd
 *      does not pass it on); trace-cmd stops when __exec exits.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "cgroup.h"
#include "tracefs_util.h"

static void run_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace run [-n NAME] [--parent CGROUP] [-e EVENT]... [-B INSTANCE]\n"
"                   [-o FILE | -N HOST:PORT] [-b KB] [-C CLOCK] [-q]\n"
"                   [--progress S] [--trace-cmd ARGS... --] -- CMD [ARGS...]\n"
"\n"
"Run CMD in a new cgroup and record it and all its descendants, and\n"
"nothing else, into a trace.dat. The cgroup is made under the caller's\n"
"own cgroup (or PARENT), the instance's set_event_cgroup is set to it\n"
"before CMD starts, and CMD enters it before its first instruction.\n"
"When CMD exits, recording stops and the cgroup is removed. The trace\n"
"notes the cgroup of every task seen in it (see cgtrace record --help).\n"
"\n"
"options:\n"
"  -n, --name NAME           name of the new cgroup (default cgtrace-run-PID);\n"
"                            it must not exist yet\n"
"      --parent CGROUP       make it under CGROUP (as record -G takes it: a\n"
"                            cgroup path or directory, id:N, a systemd unit or\n"
"                            a container id) instead of our own cgroup\n"
"  -e, --event EVENT         an event to record, repeatable (default: the\n"
"                            sched switch, wakeup and process events, plus\n"
"                            user_markers when the kernel has them)\n"
"  -B, --instance NAME       the tracing instance (default: a new cgtrace-PID;\n"
"                            \"top\": the top-level buffer)\n"
"  -o, --output FILE         the trace.dat to write (default: trace.dat)\n"
"  -N, --net HOST:PORT       send the recording to \"trace-cmd listen\"\n"
"  -b, --buffer-size KB      per-CPU ring buffer size (trace-cmd -b)\n"
"  -C, --clock CLOCK         trace clock (trace-cmd -C)\n"
"  -q, --quiet               no status line and no summary\n"
"      --progress S          a status line every S seconds (0: none; default\n"
"                            5 on a terminal, else 30)\n"
"      --trace-cmd ARGS...   pass every argument up to \"--\" to trace-cmd\n"
"  -h, --help                this text\n"
"\n"
"exit status: CMD's (128+N when signal N killed it); 1 when cgtrace\n"
"itself failed; 2 for a usage error.\n"
"example: cgtrace run -o build.dat -- make -j2\n");
}

/* make_cgroup - create PARENT/NAME; returns its directory or NULL */
static char *make_cgroup(const char *parent, const char *name)
{
	struct cg_ref ref;
	char *pdir, *dir = NULL;

	if (parent) {
		if (cg_resolve(parent, &ref))
			return NULL;
		pdir = ref.dir;
		ref.dir = NULL;
		cg_ref_free(&ref);
	} else {
		pdir = cg_self_dir();
	}
	if (!pdir)
		return NULL;
	if (asprintf(&dir, "%s/%s", pdir, name) < 0) {
		dir = NULL;
		goto out;
	}
	if (mkdir(dir, 0755)) {
		if (errno == EEXIST)
			err_msg("cgroup %s already exists: choose another --name",
				dir);
		else if (errno == EACCES || errno == EPERM || errno == EROFS)
			err_msg("no permission to create cgroup %s: run as root",
				dir);
		else
			err_msg("cannot create cgroup %s: %s", dir,
				strerror(errno));
		free(dir);
		dir = NULL;
	}
out:
	free(pdir);
	return dir;
}

/* remove_cgroup - rmdir, waiting a little for exiting tasks to leave */
static void remove_cgroup(const char *dir)
{
	struct timespec ms = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 300; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		nanosleep(&ms, NULL);
	}
	err_msg("cannot remove cgroup %s: %s%s", dir, strerror(errno),
		errno == EBUSY ? " (tasks of the command are still in it)" : "");
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "name",	required_argument, NULL, 'n' },
		{ "parent",	required_argument, NULL, 'r' },
		{ "cgroup",	required_argument, NULL, 'g' },
		REC_LONGOPTS,
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL },
	};
	struct rec_session s = { .output = "trace.dat", .progress = -1 };
	const char *parent = NULL;
	char name[64], *dir;
	int c, r, ret;

	snprintf(name, sizeof(name), "cgtrace-run-%d", getpid());
	split_passthrough(&argc, argv, &s.passthrough);
	while ((c = getopt_long(argc, argv, "+n:h" REC_SHORTOPTS, longopts,
				NULL)) != -1) {
		r = rec_option(&s, c, optarg);
		if (r < 0)
			goto usage;
		if (r)
			continue;
		switch (c) {
		case 'n':
			if (!*optarg || strchr(optarg, '/') ||
			    !strcmp(optarg, ".") || !strcmp(optarg, "..")) {
				err_msg("--name takes a cgroup name, not a path (see --parent)");
				goto usage;
			}
			snprintf(name, sizeof(name), "%s", optarg);
			break;
		case 'r':
			parent = optarg;
			break;
		case 'g':
			err_msg("run: --cgroup is now -n/--name (record's -G/--cgroup names an existing cgroup)");
			goto usage;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind >= argc) {
		err_msg("run: no command given");
		goto usage;
	}
	if (tfs_init(true) || tfs_require(NULL, "set_event_cgroup"))
		return 1;
	dir = make_cgroup(parent, name);
	if (!dir)
		return 1;
	s.cmd = argv + optind;
	s.enter_cgroup = dir;
	str_list_add(&s.cgroups, dir);

	ret = record_session(&s);
	remove_cgroup(dir);
	free(dir);
	if (ret < 0)
		return 1;
	if (s.cmd_status < 0) {
		err_msg("the command did not run (trace-cmd status %d)", ret);
		return 1;
	}
	/* a failed recording must not look like success */
	return s.cmd_status ? s.cmd_status : ret ? 1 : 0;
usage:
	run_usage(stderr);
	return EXIT_USAGE;
}
