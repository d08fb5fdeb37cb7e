// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - "cgtrace run": run a command in a new cgroup and trace it, and
 * everything it starts, from its first instruction.
 *
 * The order that leaves no untraced window:
 *   1. make the cgroup, and the instance with set_event_cgroup = cgroup;
 *   2. trace-cmd enables the events, starts recording, then runs
 *      "cgtrace __exec CGROUP FD -- CMD" (this binary again);
 *   3. __exec forks; the child writes itself into CGROUP/cgroup.procs and
 *      only then execs CMD, so CMD's exec and all after it are recorded;
 *   4. __exec waits for CMD and hands its status back through FD (trace-cmd
 *      does not pass it on); trace-cmd stops when __exec exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "tracefs_util.h"

static void run_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace run [--cgroup NAME] [--parent CGROUP] [-e EVENT]... [-o FILE]\n"
"                   [-B INSTANCE] [-q] [--trace-cmd ARGS...] -- CMD [ARGS...]\n"
"\n"
"Run CMD in a new cgroup and record it and all its descendants, and\n"
"nothing else, into a trace.dat. The cgroup is made under the caller's\n"
"own cgroup (or PARENT), the instance's set_event_cgroup is set to it\n"
"before CMD starts, and CMD enters it before its first instruction.\n"
"When CMD exits, recording stops and the cgroup is removed. FILE.cgroups\n"
"lists the tasks seen in the cgroup (see cgtrace record --help).\n"
"\n"
"options:\n"
"      --cgroup NAME         name of the new cgroup (default cgtrace-run-PID);\n"
"                            it must not exist yet\n"
"      --parent CGROUP       make it under CGROUP (a /proc/PID/cgroup path\n"
"                            or a cgroup2 directory) instead of our own\n"
"  -e, --event EVENT         an event to record, repeatable (default: the\n"
"                            sched switch, wakeup and process events, plus\n"
"                            user_markers when the kernel has them)\n"
"  -o, --output FILE         the trace.dat to write (default: trace.dat)\n"
"  -B, --instance NAME       the tracing instance (default: a new cgtrace-PID;\n"
"                            \"top\": the top-level buffer)\n"
"  -q, --quiet               no status line and no summary\n"
"      --trace-cmd ARGS...   pass every argument up to \"--\" to trace-cmd\n"
"  -h, --help                this text\n"
"\n"
"exit status: CMD's (128+N when signal N killed it); 1 when cgtrace\n"
"itself failed.\n"
"example: cgtrace run -o build.dat -- make -j2\n");
}

/* cgroup_dir - a cgroup2 directory for a cgroup path or directory */
static char *cgroup_dir(const char *cg)
{
	const char *root = cg_root();
	char *dir;

	if (!strncmp(cg, root, strlen(root)) &&
	    (cg[strlen(root)] == '/' || !cg[strlen(root)]))
		return strdup(cg);
	if (asprintf(&dir, "%s%s%s", root, *cg == '/' ? "" : "/", cg) < 0)
		return NULL;
	return dir;
}

/* make_cgroup - create PARENT/NAME; returns its directory or NULL */
static char *make_cgroup(const char *parent, const char *name)
{
	char *pdir, *dir = NULL;
	struct stat st;

	pdir = parent ? cgroup_dir(parent) : cg_self_dir();
	if (!pdir)
		return NULL;
	if (stat(pdir, &st) || !S_ISDIR(st.st_mode)) {
		err_msg("cgroup %s does not exist (%s)", parent ? parent : pdir,
			pdir);
		goto out;
	}
	if (asprintf(&dir, "%s/%s", pdir, name) < 0) {
		dir = NULL;
		goto out;
	}
	if (mkdir(dir, 0755)) {
		if (errno == EEXIST)
			err_msg("cgroup %s already exists: choose another --cgroup",
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
		{ "cgroup",	required_argument, NULL, 'c' },
		{ "parent",	required_argument, NULL, 'r' },
		{ "event",	required_argument, NULL, 'e' },
		{ "output",	required_argument, NULL, 'o' },
		{ "instance",	required_argument, NULL, 'B' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL },
	};
	struct rec_session s = { .output = "trace.dat" };
	const char *parent = NULL;
	char name[64], fdstr[16], self[PATH_MAX], *dir;
	struct str_list cmd = { 0 };
	int c, i, ret, pfd[2], status = -1;
	ssize_t n;

	snprintf(name, sizeof(name), "cgtrace-run-%d", getpid());
	split_passthrough(&argc, argv, &s.passthrough);
	while ((c = getopt_long(argc, argv, "+e:o:B:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!*optarg || strchr(optarg, '/')) {
				err_msg("--cgroup takes a name, not a path (see --parent)");
				return 1;
			}
			snprintf(name, sizeof(name), "%s", optarg);
			break;
		case 'r':
			parent = optarg;
			break;
		case 'e':
			str_list_add(&s.events, optarg);
			break;
		case 'o':
			s.output = optarg;
			break;
		case 'B':
			s.instance = optarg;
			break;
		case 'q':
			s.quiet = true;
			break;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			run_usage(stderr);
			return 1;
		}
	}
	if (optind >= argc) {
		err_msg("run: no command given");
		run_usage(stderr);
		return 1;
	}
	if (tfs_init() || need_trace_cmd() ||
	    tfs_require(NULL, "set_event_cgroup"))
		return 1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		err_msg("cannot find my own binary: %s", strerror(errno));
		return 1;
	}
	self[n] = '\0';
	dir = make_cgroup(parent, name);
	if (!dir)
		return 1;
	if (pipe2(pfd, 0)) {
		err_msg("pipe: %s", strerror(errno));
		remove_cgroup(dir);
		return 1;
	}
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	snprintf(fdstr, sizeof(fdstr), "%d", pfd[1]);
	str_list_add(&cmd, self);
	str_list_add(&cmd, "__exec");
	str_list_add(&cmd, dir);
	str_list_add(&cmd, fdstr);
	str_list_add(&cmd, "--");
	for (i = optind; i < argc; i++)
		str_list_add(&cmd, argv[i]);
	s.cmd = cmd.v;
	str_list_add(&s.cgroups, dir);

	ret = record_session(&s);
	close(pfd[1]);
	if (read(pfd[0], &status, sizeof(status)) != sizeof(status))
		status = -1;
	close(pfd[0]);
	remove_cgroup(dir);
	free(dir);
	if (ret < 0)
		return 1;
	if (status < 0) {
		err_msg("the command did not run (trace-cmd status %d)", ret);
		return 1;
	}
	/* a failed recording must not look like success */
	return status ? status : ret ? 1 : 0;
}

/*
 * cmd_exec_helper - "cgtrace __exec CGROUP_DIR FD -- CMD...", started by
 * trace-cmd: run CMD inside CGROUP_DIR and write its status to FD.
 */
int cmd_exec_helper(int argc, char **argv)
{
	char procs[PATH_MAX];
	int fd, status, code;
	pid_t pid;

	if (argc < 5 || strcmp(argv[3], "--")) {
		err_msg("__exec is internal to cgtrace run");
		return 127;
	}
	fd = atoi(argv[2]);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", argv[1]);
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		return 127;
	}
	if (!pid) {
		int cfd = open(procs, O_WRONLY | O_CLOEXEC);

		/* "0" moves the writer: CMD starts inside the cgroup */
		if (cfd < 0 || write(cfd, "0", 1) != 1) {
			err_msg("cannot enter cgroup %s: %s", argv[1],
				strerror(errno));
			_exit(127);
		}
		close(cfd);
		execvp(argv[4], argv + 4);
		err_msg("cannot run %s: %s", argv[4], strerror(errno));
		_exit(127);
	}
	/* like system(): a Ctrl-C is for the command, we report its end */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return 127;
		}
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (write(fd, &code, sizeof(code)) != sizeof(code))
		err_msg("cannot pass the status on: %s", strerror(errno));
	return code;
}
