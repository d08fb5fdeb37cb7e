// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - "cgtrace run": run a command in a new cgroup and trace it, and
 * everything it starts, from its first instruction.
 *
 * The order that leaves no untraced window:
 *   1. make the cgroup, and the instance with set_event_cgroup = cgroup;
 *   2. trace-cmd enables the events, starts recording, then runs
 *      "cgtrace __exec ... CGROUP ... -- CMD" (this binary, exec_helper.c);
 *   3. __exec forks; the child writes itself into CGROUP/cgroup.procs and
 *      only then execs CMD, so CMD's exec and all after it are recorded;
 *   4. __exec waits for CMD and hands its status back (trace-cmd does not
 *      pass it on); trace-cmd stops when __exec exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "cgroup.h"
#include "session.h"
#include "tracefs_util.h"

void run_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace run [OPTIONS] [--] COMMAND [ARGS...]\n"
"\n"
"Run COMMAND in a new cgroup and record it and all it starts, and nothing\n"
"else, into a trace.dat. The cgroup is made below cgtrace's own cgroup (or\n"
"--parent), the instance's set_event_cgroup is set to it before COMMAND\n"
"starts, and COMMAND enters it before its first instruction. When COMMAND\n"
"exits, the recording stops and the cgroup is removed.\n"
"\n"
"cgtrace's options:\n"
"      --name NAME          the new cgroup's name (default cgtrace-run-PID);\n"
"                           it must not exist yet\n"
"      --parent CG          make it below CG, given as record -G takes it (a\n"
"                           cgroup path or directory, id:N, pid:PID, a systemd\n"
"                           unit, a container id), not below cgtrace's own\n");
	rec_usage_common(f, true);
	fprintf(f, "\nexample: cgtrace run -o build.dat -- make -j2\n");
}

/* make_cgroup - create PARENT/NAME; returns its directory or NULL */
static char *make_cgroup(const char *parent, const char *name)
{
	struct cg_ref ref;
	char *pdir, *dir;

	if (parent) {
		if (cg_resolve(parent, &ref))
			return NULL;
		pdir = xstrdup(ref.dir);
		cg_ref_free(&ref);
	} else {
		pdir = cg_self_dir();
	}
	if (!pdir)
		return NULL;
	dir = xasprintf("%s/%s", pdir, name);
	free(pdir);
	if (!mkdir(dir, 0755))
		return dir;
	if (errno == EEXIST)
		err_msg("cgroup %s exists already: choose another --name", dir);
	else if (errno == EACCES || errno == EPERM || errno == EROFS)
		err_msg("no permission to make cgroup %s: run cgtrace as root", dir);
	else
		err_msg("cannot make cgroup %s: %s", dir, strerror(errno));
	free(dir);
	return NULL;
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
	err_msg("warning: cannot remove cgroup %s: %s%s", dir, strerror(errno),
		errno == EBUSY ? " (tasks COMMAND started are still in it)" : "");
}

int cmd_run(int argc, char **argv)
{
	struct rec_session s = { .output = "trace.dat", .progress = -1 };
	const char *name = NULL, *parent = NULL;
	char dflt[64], *dir, *path;
	int i, ret;

	i = rec_parse(&s, argc, argv, true, &name, &parent);
	if (i == -2) {
		run_usage(stdout);
		return 0;
	}
	if (i < 0) {
		fprintf(stderr, "(cgtrace run --help lists the options)\n");
		return EXIT_USAGE;
	}
	if (i >= argc) {
		err_msg("run: no command given (cgtrace run [OPTIONS] -- COMMAND)");
		return EXIT_USAGE;
	}
	if (!name) {
		snprintf(dflt, sizeof(dflt), "cgtrace-run-%d", getpid());
		name = dflt;
	}
	/* permission and the kernel first, then -o: before the cgroup is made */
	if (tfs_init(true) || tfs_require(NULL, "set_event_cgroup") ||
	    rec_check_output(&s)) {
		out_free(&s.out);
		return EXIT_TRACE;
	}
	dir = make_cgroup(parent, name);
	if (!dir) {
		out_free(&s.out);
		return EXIT_TRACE;
	}
	s.cmd = argv + i;
	s.enter_cgroup = dir;
	path = cg_path_of_dir(dir);
	str_list_add(&s.cgroups, path ? path : dir);
	free(path);

	ret = record_session(&s);
	remove_cgroup(dir);
	free(dir);
	ret = session_status(&s, ret);
	str_list_free(&s.cgroups);
	str_list_free(&s.tc_args);
	out_free(&s.out);
	return ret;
}
