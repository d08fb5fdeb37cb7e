// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - "cgtrace record": set an instance's cgroup and pid filters,
 * then let trace-cmd record that instance into a trace.dat.
 *
 * Why this is race free: cgtrace creates the instance and writes its
 * filter files first; "trace-cmd record -B NAME" then reuses the instance
 * (it knows nothing of the cgroup files, so it neither changes nor restores
 * them) and only then enables the events. No event is ever enabled on the
 * instance before its filters are in place.
 *
 * trace-cmd removes the instance when it exits. cgtrace keeps the
 * per_cpu/cpuN/stats files open while trace-cmd runs: an open file holds a
 * reference on the instance, so that removal fails (trace-cmd only warns),
 * and cgtrace can still read what was lost before it removes the instance
 * itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "tracefs_util.h"

#define MAX_CPUS	1024
#define STATUS_EVERY	5	/* seconds between status lines on a tty */

static const char * const default_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit", NULL,
};

/* Per-CPU ring buffer statistics, from per_cpu/cpuN/stats. */
struct cpu_stats {
	int			cpu;
	int			fd;
	unsigned long long	entries, overrun, commit_overrun, dropped, read;
};

/*
 * Which cgroup each traced task was in: trace.dat has no cgroup per event,
 * so cgtrace samples the traced cgroups (cgroup.threads, recursively)
 * while recording and writes FILE.cgroups, lines "PID CGROUP_PATH", which
 * "cgtrace report --by cgroup" reads. A task that lives less than one
 * sampling period can be missed.
 */
#define PID_BITS	(1 << 22)	/* PID_MAX_LIMIT */

struct cg_sampler {
	unsigned char	*seen;		/* bitmap of sampled pids */
	FILE		*out;
};

static struct cpu_stats cpus[MAX_CPUS];
static int ncpus;
static volatile sig_atomic_t child_pid;	/* trace-cmd, for the handler */

static void record_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace record [-G CGROUP]... [-X CGROUP]... [-P PID]... [-e EVENT]...\n"
"                      [-p TRACER] [-B INSTANCE] [-o FILE] [-q]\n"
"                      [--trace-cmd ARGS...] [-- CMD [ARGS...]]\n"
"\n"
"Record the tasks of the given cgroups (and of their descendant cgroups)\n"
"into a trace.dat. cgtrace creates a tracing instance, writes its\n"
"set_event_cgroup (and set_ftrace_cgroup for the function tracers) before\n"
"any event is enabled, and runs \"trace-cmd record -B INSTANCE\" on it.\n"
"With CMD, trace-cmd runs it and recording stops when it exits; without,\n"
"recording runs until SIGINT (Ctrl-C) or SIGTERM.\n"
"\n"
"options:\n"
"  -G, --cgroup CGROUP       record only tasks in CGROUP: a path as\n"
"                            /proc/PID/cgroup prints it, a cgroup2 directory,\n"
"                            or id:N (the directory's inode); repeatable\n"
"  -X, --notrace-cgroup CG   never record tasks in CG (wins over -G)\n"
"  -P, --pid PID             record only this pid (set_event_pid); repeatable\n"
"  -e, --event EVENT         an event, as trace-cmd takes it (sched:sched_switch,\n"
"                            sched, user_markers); repeatable. Default: the\n"
"                            sched switch, wakeup and process events, plus\n"
"                            user_markers when the kernel has them\n"
"  -p, --tracer TRACER       a tracer (function, function_graph...)\n"
"  -B, --instance NAME       record into this instance (made if missing;\n"
"                            default: a new cgtrace-PID, removed at the end;\n"
"                            \"top\": the top-level buffer)\n"
"  -o, --output FILE         the trace.dat to write (default: trace.dat)\n"
"  -q, --quiet               no status line and no summary\n"
"      --trace-cmd ARGS...   pass every argument up to \"--\" to trace-cmd\n"
"                            record, after -B (e.g. --trace-cmd -b 8192)\n"
"  -h, --help                this text\n"
"\n"
"At the end cgtrace prints the events lost per CPU (overrun, dropped) and\n"
"the marker counts of user_events_stats when the kernel has them. With -G\n"
"it also writes FILE.cgroups, lines \"PID CGROUP\" for the tasks it saw in\n"
"the cgroups (sampled every 200 ms), for \"cgtrace report --by cgroup\".\n"
"\n"
"exit status: trace-cmd's; 1 when the filters could not be set.\n"
"example: cgtrace record -G /system.slice/nginx.service -e syscalls -o ng.dat\n");
}

/*
 * split_passthrough - take "--trace-cmd ARGS... [--]" out of argv, before
 * the first "--" (after which come a command's own arguments)
 */
int split_passthrough(int *argc, char **argv, struct str_list *pass)
{
	int i, j, k;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (strcmp(argv[i], "--trace-cmd"))
			continue;
		for (j = i + 1; j < *argc && strcmp(argv[j], "--"); j++)
			str_list_add(pass, argv[j]);
		/* drop argv[i..j-1], keep "--" and what follows */
		for (k = 0; j + k <= *argc; k++)
			argv[i + k] = argv[j + k];
		*argc -= j - i;
		return 0;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup",		required_argument, NULL, 'G' },
		{ "notrace-cgroup",	required_argument, NULL, 'X' },
		{ "pid",		required_argument, NULL, 'P' },
		{ "event",		required_argument, NULL, 'e' },
		{ "tracer",		required_argument, NULL, 'p' },
		{ "instance",		required_argument, NULL, 'B' },
		{ "output",		required_argument, NULL, 'o' },
		{ "quiet",		no_argument,	   NULL, 'q' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL },
	};
	struct rec_session s = { .output = "trace.dat" };
	int c;

	split_passthrough(&argc, argv, &s.passthrough);
	while ((c = getopt_long(argc, argv, "+G:X:P:e:p:B:o:qh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'G':
			str_list_add(&s.cgroups, optarg);
			break;
		case 'X':
			str_list_add(&s.notrace, optarg);
			break;
		case 'P':
			str_list_add(&s.pids, optarg);
			break;
		case 'e':
			str_list_add(&s.events, optarg);
			break;
		case 'p':
			s.tracer = optarg;
			break;
		case 'B':
			s.instance = optarg;
			break;
		case 'o':
			s.output = optarg;
			break;
		case 'q':
			s.quiet = true;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			record_usage(stderr);
			return 1;
		}
	}
	if (optind < argc)
		s.cmd = argv + optind;
	c = record_session(&s);
	return c < 0 ? 1 : c;
}

/* is_function_tracer - does this tracer obey set_ftrace_pid/cgroup */
static bool is_function_tracer(const char *tracer)
{
	return tracer && !strncmp(tracer, "function", 8);
}

/*
 * set_filters - write every cgroup and pid list of the session
 *
 * The function tracer files are written only for a function tracer, so
 * that a kernel without CONFIG_FUNCTION_TRACER can still filter events.
 */
static int set_filters(struct tracefs_instance *inst, struct rec_session *s)
{
	bool ftrace = is_function_tracer(s->tracer);

	if (s->cgroups.n &&
	    (tfs_set_cgroups(inst, "set_event_cgroup", s->cgroups.v, s->cgroups.n) ||
	     (ftrace && tfs_set_cgroups(inst, "set_ftrace_cgroup",
					s->cgroups.v, s->cgroups.n))))
		return -1;
	if (s->notrace.n &&
	    (tfs_set_cgroups(inst, "set_event_notrace_cgroup",
			     s->notrace.v, s->notrace.n) ||
	     (ftrace && tfs_set_cgroups(inst, "set_ftrace_notrace_cgroup",
					s->notrace.v, s->notrace.n))))
		return -1;
	if (s->pids.n &&
	    (tfs_set_pids(inst, "set_event_pid", s->pids.v, s->pids.n) ||
	     (ftrace && tfs_set_pids(inst, "set_ftrace_pid",
				     s->pids.v, s->pids.n))))
		return -1;
	/* markers written with prctl() reach only instances that opt in */
	if (tfs_has(inst, "options/user_events_prctl") &&
	    tfs_write(inst, "options/user_events_prctl", "1", true))
		err_msg("warning: cannot enable options/user_events_prctl");
	return 0;
}

/* clear_filters - undo set_filters on an instance that outlives us */
static void clear_filters(struct tracefs_instance *inst, struct rec_session *s)
{
	int i;

	for (i = 0; i < 4; i++) {
		if ((i < 2 || is_function_tracer(s->tracer)) &&
		    tfs_has(inst, tfs_cgroup_files[i]))
			tfs_clear(inst, tfs_cgroup_files[i]);
		if ((i < 2 || is_function_tracer(s->tracer)) && s->pids.n &&
		    tfs_has(inst, tfs_pid_files[i]))
			tfs_clear(inst, tfs_pid_files[i]);
	}
}

/*
 * pin_instance - open per_cpu/cpuN/stats of every CPU
 *
 * The open files keep the instance alive after trace-cmd's rmdir, and
 * give the counts for the status line and the summary.
 */
static void pin_instance(struct tracefs_instance *inst)
{
	char *dir, path[4096];
	struct dirent *d;
	DIR *dp;
	int cpu;

	ncpus = 0;
	dir = inst ? tracefs_instance_get_file(inst, "per_cpu") :
		     tracefs_get_tracing_file("per_cpu");
	dp = dir ? opendir(dir) : NULL;
	while (dp && (d = readdir(dp)) && ncpus < MAX_CPUS) {
		if (sscanf(d->d_name, "cpu%d", &cpu) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/stats", dir, d->d_name);
		cpus[ncpus].cpu = cpu;
		cpus[ncpus].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (cpus[ncpus].fd >= 0)
			ncpus++;
	}
	if (dp)
		closedir(dp);
	tracefs_put_tracing_file(dir);
}

static void unpin_instance(void)
{
	while (ncpus > 0)
		close(cpus[--ncpus].fd);
}

/* stat_value - the number after "key:" in a stats text, 0 if absent */
static unsigned long long stat_value(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
	return 0;
}

/* read_cpu_stats - refresh cpus[] from the pinned stats files */
static void read_cpu_stats(void)
{
	char buf[1024];
	ssize_t n;
	int i;

	for (i = 0; i < ncpus; i++) {
		n = pread(cpus[i].fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		cpus[i].entries = stat_value(buf, "entries");
		cpus[i].overrun = stat_value(buf, "overrun");
		cpus[i].commit_overrun = stat_value(buf, "commit overrun");
		cpus[i].dropped = stat_value(buf, "dropped events");
		cpus[i].read = stat_value(buf, "read events");
	}
}

/* status_line - progress of a long recording, on a terminal only */
static void status_line(time_t start)
{
	unsigned long long events = 0, lost = 0;
	int i;

	read_cpu_stats();
	for (i = 0; i < ncpus; i++) {
		events += cpus[i].entries + cpus[i].read;
		lost += cpus[i].overrun + cpus[i].dropped;
	}
	fprintf(stderr, "cgtrace: recording %lds: %llu events, %llu lost\n",
		(long)(time(NULL) - start), events, lost);
}

/* print_summary - what was lost, per CPU, and the marker counts */
static void print_summary(struct tracefs_instance *inst, const char *output)
{
	unsigned long long lost = 0;
	char *markers;
	int i;

	read_cpu_stats();
	for (i = 0; i < ncpus; i++)
		lost += cpus[i].overrun + cpus[i].commit_overrun + cpus[i].dropped;
	if (lost)
		fprintf(stderr, "cgtrace: wrote %s; %llu events lost:\n",
			output, lost);
	else
		fprintf(stderr, "cgtrace: wrote %s; no event lost\n", output);
	for (i = 0; lost && i < ncpus; i++)
		fprintf(stderr, "cgtrace:   cpu%d: overrun=%llu commit_overrun=%llu dropped=%llu\n",
			cpus[i].cpu, cpus[i].overrun, cpus[i].commit_overrun,
			cpus[i].dropped);
	markers = tfs_has(inst, "user_events_stats") ?
		  tfs_read(inst, "user_events_stats") : NULL;
	if (markers) {
		char *line, *save;

		fprintf(stderr, "cgtrace: markers:");
		for (line = strtok_r(markers, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, " %s", line);
		fprintf(stderr, "\n");
		free(markers);
	}
}

/*
 * forward_signal - pass a SIGINT sent with kill() on to trace-cmd
 *
 * A Ctrl-C on the terminal already reaches trace-cmd (same process
 * group); a kill() reaches only us. SIGTERM always becomes SIGINT, which
 * makes trace-cmd stop and write out its file.
 */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	if (child_pid > 0 && (sig == SIGTERM || si->si_code == SI_USER ||
			      si->si_code == SI_QUEUE))
		kill(child_pid, SIGINT);
}

/* sample_dir - note the threads of a cgroup directory and its children */
static void sample_dir(struct cg_sampler *cs, const char *dir, int depth)
{
	char path[4096];
	struct dirent *d;
	FILE *f;
	DIR *dp;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	f = fopen(path, "re");
	while (f && fscanf(f, "%d", &pid) == 1) {
		if (pid <= 0 || pid >= PID_BITS ||
		    cs->seen[pid / 8] & (1 << (pid % 8)))
			continue;
		cs->seen[pid / 8] |= 1 << (pid % 8);
		fprintf(cs->out, "%d %s\n", pid,
			dir[strlen(cg_root())] ? dir + strlen(cg_root()) : "/");
	}
	if (f)
		fclose(f);
	dp = depth < 32 ? opendir(dir) : NULL;
	while (dp && (d = readdir(dp))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		sample_dir(cs, path, depth + 1);
	}
	if (dp)
		closedir(dp);
}

/* sample_cgroups - one sampling pass over the session's cgroups */
static void sample_cgroups(struct cg_sampler *cs, struct rec_session *s)
{
	const char *root = cg_root();
	char dir[4096];
	int i;

	for (i = 0; cs->out && i < s->cgroups.n; i++) {
		const char *cg = s->cgroups.v[i];

		if (!strncmp(cg, "id:", 3))
			continue;	/* an id names no directory */
		if (!strncmp(cg, root, strlen(root)))
			snprintf(dir, sizeof(dir), "%s", cg);
		else
			snprintf(dir, sizeof(dir), "%s%s", root,
				 strcmp(cg, "/") ? cg : "");
		sample_dir(cs, dir, 0);
	}
	if (cs->out)
		fflush(cs->out);
}

/* sampler_open - start FILE.cgroups when the session filters by cgroup */
static void sampler_open(struct cg_sampler *cs, struct rec_session *s)
{
	char path[4096];

	memset(cs, 0, sizeof(*cs));
	if (!s->cgroups.n)
		return;
	snprintf(path, sizeof(path), "%s.cgroups", s->output);
	cs->seen = calloc(PID_BITS / 8, 1);
	cs->out = cs->seen ? fopen(path, "we") : NULL;
	if (!cs->out)
		err_msg("warning: cannot write %s", path);
}

static void sampler_close(struct cg_sampler *cs)
{
	if (cs->out)
		fclose(cs->out);
	free(cs->seen);
}

/* out_dir - the directory of the output file */
static const char *out_dir(const char *output)
{
	static char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", output);
	slash = strrchr(dir, '/');
	if (!slash)
		return ".";
	if (slash == dir)
		slash++;
	*slash = '\0';
	return dir;
}

/* trace_cmd_argv - "trace-cmd record" arguments for the session */
static char **trace_cmd_argv(struct tracefs_instance *inst, struct rec_session *s)
{
	struct str_list a = { 0 };
	int i;

	str_list_add(&a, "trace-cmd");
	str_list_add(&a, "record");
	if (!getenv("CGTRACE_DEBUG"))
		str_list_add(&a, "-q");
	str_list_add(&a, "-o");
	str_list_add(&a, s->output);
	/* trace-cmd's per-CPU temp files go next to the output, not in cwd */
	str_list_add(&a, "--temp");
	str_list_add(&a, out_dir(s->output));
	if (inst) {
		str_list_add(&a, "-B");
		str_list_add(&a, tracefs_instance_get_name(inst));
	}
	if (s->tracer) {
		str_list_add(&a, "-p");
		str_list_add(&a, s->tracer);
	}
	for (i = 0; i < s->events.n; i++) {
		str_list_add(&a, "-e");
		str_list_add(&a, s->events.v[i]);
	}
	for (i = 0; i < s->passthrough.n; i++)
		str_list_add(&a, s->passthrough.v[i]);
	for (i = 0; s->cmd && s->cmd[i]; i++)
		str_list_add(&a, s->cmd[i]);
	return a.v;
}

/* run_trace_cmd - run trace-cmd and wait for it, with a status line */
static int run_trace_cmd(char **args, struct rec_session *s,
			 struct cg_sampler *cs)
{
	bool quiet = s->quiet;
	struct sigaction sa = { .sa_sigaction = forward_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	bool tty = !quiet && isatty(STDERR_FILENO);
	time_t start = time(NULL), last = start;
	int status, i;
	pid_t pid;

	if (getenv("CGTRACE_DEBUG")) {
		fprintf(stderr, "cgtrace: debug: running");
		for (i = 0; args[i]; i++)
			fprintf(stderr, " %s", args[i]);
		fprintf(stderr, "\n");
	}
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		execvp(args[0], args);
		err_msg("cannot run trace-cmd: %s", strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return -1;
		}
		nanosleep(&tick, NULL);
		sample_cgroups(cs, s);
		if (tty && time(NULL) - last >= STATUS_EVERY) {
			last = time(NULL);
			status_line(start);
		}
	}
	child_pid = 0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	err_msg("trace-cmd was killed by signal %d", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/*
 * check_cgroups - fail early on a cgroup path that does not exist, before
 * an instance is made (the kernel checks again when the list is written)
 */
static int check_cgroups(struct str_list *l)
{
	const char *root = cg_root();
	char dir[4096];
	int i;

	for (i = 0; i < l->n; i++) {
		const char *cg = l->v[i];

		if (!strncmp(cg, "id:", 3) || cg[0] != '/')
			continue;
		if (!strncmp(cg, root, strlen(root)))
			snprintf(dir, sizeof(dir), "%s", cg);
		else
			snprintf(dir, sizeof(dir), "%s%s", root, cg);
		if (access(dir, F_OK) && errno == ENOENT) {
			err_msg("cgroup %s does not exist (no %s)", cg, dir);
			return -1;
		}
	}
	return 0;
}

/*
 * record_session - set up the instance, record it with trace-cmd, report
 * what was lost and clean up. Returns trace-cmd's exit status, or -1 when
 * the session could not be set up.
 */
int record_session(struct rec_session *s)
{
	struct tracefs_instance *inst;
	struct cg_sampler cs;
	char name[64], **args;
	bool created;
	int i, ret;

	if (tfs_init() || need_trace_cmd() || check_cgroups(&s->cgroups) ||
	    check_cgroups(&s->notrace))
		return -1;
	if (!s->instance) {
		snprintf(name, sizeof(name), "cgtrace-%d", getpid());
		s->instance = name;
	}
	if (tfs_instance_get(s->instance, true, &inst, &created))
		return -1;
	if (set_filters(inst, s)) {
		clear_filters(inst, s);
		tfs_instance_put(inst, created);
		return -1;
	}
	if (!s->events.n && !s->tracer) {
		for (i = 0; default_events[i]; i++)
			str_list_add(&s->events, default_events[i]);
		if (tfs_has_user_markers(inst))
			str_list_add(&s->events, "user_markers");
	}
	pin_instance(inst);
	args = trace_cmd_argv(inst, s);
	sampler_open(&cs, s);
	sample_cgroups(&cs, s);
	ret = run_trace_cmd(args, s, &cs);
	sample_cgroups(&cs, s);
	sampler_close(&cs);
	if (ret != 0)
		err_msg("trace-cmd record exited with status %d", ret);
	if (!s->quiet && ret >= 0)
		print_summary(inst, s->output);
	unpin_instance();
	if (created) {
		/* trace-cmd may have removed it already if the pin failed */
		if (inst && tracefs_instance_exists(s->instance))
			tfs_instance_put(inst, true);
		else
			tfs_instance_put(inst, false);
	} else {
		clear_filters(inst, s);
		tfs_instance_put(inst, false);
	}
	for (i = 0; args[i]; i++)
		free(args[i]);
	free(args);
	return ret;
}
