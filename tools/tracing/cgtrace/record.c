// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - "cgtrace record": set an instance's cgroup and pid filters,
 * then let trace-cmd record that instance into a trace.dat, locally or to
 * a "trace-cmd listen" collector (-N).
 *
 * Why this is race free: cgtrace creates the instance and writes its
 * filter files first; "trace-cmd record -B NAME" then reuses the instance
 * (it knows nothing of the cgroup files, so it neither changes nor restores
 * them) and only then enables the events. No event is ever enabled on the
 * instance before its filters are in place.
 *
 * What trace.dat cannot say by itself travels inside it, in the recorded
 * buffer itself (trace-cmd record -N sends one buffer only): trace_marker
 * lines "cgtrace-meta ..." (see trace_read.h) with the host name,
 * wall-clock samples, the host clock's NTP state and the cgroup of each
 * traced task. The instance's trace_marker obeys its cgroup filter, so
 * they are written by a helper process alone in a cgroup of its own,
 * cgtrace-meta-PID below ours, which is added to set_event_cgroup. The
 * buffers are reset when trace-cmd starts, so the notes are written once
 * trace-cmd runs its command: "cgtrace __exec", which tells us it started
 * and then runs CMD (or, without CMD, waits to be stopped).
 *
 * trace-cmd removes the instance when it exits. cgtrace keeps the
 * per_cpu/cpuN/stats files open while trace-cmd runs: an open file holds a
 * reference on the instance, so that removal fails (trace-cmd only warns),
 * and cgtrace can still read what was lost before it removes the instance
 * itself. An instance that existed before, or the top level, keeps it:
 * cgtrace restores every file it wrote there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "cgroup.h"
#include "trace_read.h"
#include "tracefs_util.h"

#define MAX_CPUS	1024
#define TICK_MS		200	/* cgroup sampling period */
#define CLOCK_EVERY	5	/* ticks between clock samples (1 s) */
#define ADJTIMEX_EVERY	50	/* ticks between clock state notes (10 s) */
#define MAX_CHANGES	16

static const char * const default_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit", NULL,
};

/* Per-CPU ring buffer statistics, from per_cpu/cpuN/stats. */
struct cpu_stats {
	int			cpu;
	int			fd;
	unsigned long long	entries, overrun, commit_overrun, dropped;
};

/* A file cgtrace wrote on an instance it does not own, and its old text */
struct change {
	const char	*file;
	char		*old;
};

/*
 * Messages "cgtrace __exec" sends back through its pipe: that trace-cmd
 * started it (value: its pid), then the command's exit status.
 */
struct exec_msg {
	int	kind;
	int	value;
};

#define EXEC_STARTED	1
#define EXEC_STATUS	2

/*
 * Which cgroup each traced task was in: trace.dat has no cgroup per event,
 * so cgtrace samples the traced cgroups (cgroup.threads, recursively)
 * while recording and notes "cgroup PID PATH" in the companion buffer,
 * which "cgtrace report --by cgroup" reads. A task that lives less than
 * one sampling period can be missed.
 */
#define PID_BITS	(1 << 22)	/* PID_MAX_LIMIT */

struct recorder {
	struct rec_session	*s;
	struct tracefs_instance	*inst;		/* the recorded instance */
	bool			created;
	pid_t			writer;		/* writes the cgtrace-meta notes */
	FILE			*to_writer;	/* its lines */
	char			*writer_cg;	/* its cgroup, with a cgroup filter */
	struct cg_ref		*cgroups;	/* -G resolved */
	struct cg_ref		*notrace;	/* -X resolved */
	struct change		changes[MAX_CHANGES];
	int			nr_changes;
	unsigned char		*seen;		/* bitmap of sampled pids */
	bool			started;	/* trace-cmd runs our __exec */
	pid_t			wrapper;	/* that __exec */
	int			exec_fd;	/* its pipe */
	unsigned long		ticks;
	char			host[65];	/* uname -n when the session began */
};

static struct cpu_stats cpus[MAX_CPUS];
static int ncpus;
static volatile sig_atomic_t stop_signal;	/* SIGINT/SIGTERM from kill() */

static void record_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace record [-G CGROUP]... [-X CGROUP]... [-P PID]... [-e EVENT]...\n"
"                      [-p TRACER] [-B INSTANCE] [-o FILE | -N HOST:PORT]\n"
"                      [-b KB] [-C CLOCK] [-q] [--progress S]\n"
"                      [--trace-cmd ARGS... --] [-- CMD [ARGS...]]\n"
"\n"
"Record the tasks of the given cgroups (and of their descendant cgroups)\n"
"into a trace.dat. cgtrace creates a tracing instance, writes its\n"
"set_event_cgroup (and set_ftrace_cgroup for the function tracers) before\n"
"any event is enabled, and runs \"trace-cmd record -B INSTANCE\" on it.\n"
"With CMD, trace-cmd runs it and recording stops when it exits; without,\n"
"recording runs until SIGINT (Ctrl-C) or SIGTERM.\n"
"\n"
"options (as trace-cmd record and perf record name them):\n"
"  -G, --cgroup CGROUP       record only tasks in CGROUP: a path as\n"
"                            /proc/PID/cgroup prints it, a cgroup2 directory,\n"
"                            id:N (the directory's inode), a systemd unit\n"
"                            (nginx.service, user@1000.service, x.slice) or a\n"
"                            container id (docker, podman, containerd, CRI-O;\n"
"                            12 to 64 hex digits); repeatable\n"
"  -X, --notrace-cgroup CG   never record tasks in CG (wins over -G)\n"
"  -P, --pid PID             record only this pid (set_event_pid); repeatable\n"
"  -e, --event EVENT         an event, as trace-cmd takes it (sched:sched_switch,\n"
"                            sched, user_markers); repeatable. Default: the\n"
"                            sched switch, wakeup and process events, plus\n"
"                            user_markers when the kernel has them\n"
"  -p, --plugin TRACER       a tracer (function, function_graph...)\n"
"  -B, --instance NAME       record into this instance (made if missing and\n"
"                            then removed; default: a new cgtrace-PID; \"top\":\n"
"                            the top-level buffer). An instance that exists is\n"
"                            kept, and every file cgtrace wrote there restored\n"
"  -o, --output FILE         the trace.dat to write (default: trace.dat)\n"
"  -N, --net HOST:PORT       send the recording to \"trace-cmd listen -p PORT\"\n"
"                            on HOST instead of writing a file\n"
"  -b, --buffer-size KB      per-CPU ring buffer size (trace-cmd -b)\n"
"  -C, --clock CLOCK         trace clock (trace-cmd -C; list: trace-cmd list -C)\n"
"  -q, --quiet               no status line and no summary\n"
"      --progress S          a status line every S seconds on stderr (0: none;\n"
"                            default 5 on a terminal, else 30)\n"
"      --trace-cmd ARGS...   pass every argument up to \"--\" to trace-cmd\n"
"                            record, after -B (e.g. --trace-cmd -m 1000)\n"
"  -h, --help                this text\n"
"\n"
"At the end cgtrace prints the events lost per CPU (overrun, dropped) and\n"
"the marker counts of user_events_stats when the kernel has them. The trace\n"
"also holds what \"cgtrace report\" needs beyond the events, as trace_marker\n"
"lines \"cgtrace-meta ...\": the host name, wall-clock samples (--wall,\n"
"merging hosts), and with -G the cgroup of every task seen in the cgroups\n"
"(sampled every 200 ms; report --by cgroup). A process cgtrace-meta, alone\n"
"in the cgroup cgtrace-meta-PID below cgtrace's own, writes them: with -G,\n"
"that cgroup is traced too.\n"
"\n"
"exit status: trace-cmd's; 1 when the recording could not be set up; 2 for\n"
"a usage error.\n"
"example: cgtrace record -G nginx.service -e syscalls -o ng.dat\n");
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

/*
 * rec_option - take an option record and run share: 1 taken, 0 not
 * ours, -1 a bad value (after a message)
 */
int rec_option(struct rec_session *s, int opt, const char *arg)
{
	char *end;
	long n;

	switch (opt) {
	case 'e':
		str_list_add(&s->events, arg);
		return 1;
	case 'o':
		s->output = arg;
		return 1;
	case 'B':
		s->instance = arg;
		return 1;
	case 'N':
		if (!strchr(arg, ':')) {
			err_msg("-N takes HOST:PORT (where \"trace-cmd listen -p PORT\" runs)");
			return -1;
		}
		s->net = arg;
		return 1;
	case 'b':
		n = strtol(arg, &end, 10);
		if (*end || n <= 0) {
			err_msg("-b takes a buffer size in KiB per CPU");
			return -1;
		}
		s->buffer_kb = arg;
		return 1;
	case 'C':
		s->clock = arg;
		return 1;
	case 'q':
		s->quiet = true;
		return 1;
	case REC_OPT_PROGRESS:
		n = strtol(arg, &end, 10);
		if (*end || n < 0 || n > 86400) {
			err_msg("--progress takes seconds (0: no status lines)");
			return -1;
		}
		s->progress = n;
		return 1;
	default:
		return 0;
	}
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup",		required_argument, NULL, 'G' },
		{ "notrace-cgroup",	required_argument, NULL, 'X' },
		{ "pid",		required_argument, NULL, 'P' },
		{ "plugin",		required_argument, NULL, 'p' },
		{ "tracer",		required_argument, NULL, 'p' },
		REC_LONGOPTS,
		{ "help",		no_argument,	   NULL, 'h' },
		{ NULL },
	};
	struct rec_session s = { .output = "trace.dat", .progress = -1 };
	char *end;
	int c, r;

	split_passthrough(&argc, argv, &s.passthrough);
	while ((c = getopt_long(argc, argv, "+G:X:P:p:h" REC_SHORTOPTS,
				longopts, NULL)) != -1) {
		r = rec_option(&s, c, optarg);
		if (r < 0)
			goto usage;
		if (r)
			continue;
		switch (c) {
		case 'G':
			str_list_add(&s.cgroups, optarg);
			break;
		case 'X':
			str_list_add(&s.notrace, optarg);
			break;
		case 'P':
			if (strtol(optarg, &end, 10) <= 0 || *end) {
				err_msg("-P takes a pid");
				goto usage;
			}
			str_list_add(&s.pids, optarg);
			break;
		case 'p':
			s.tracer = optarg;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind < argc)
		s.cmd = argv + optind;
	c = record_session(&s);
	return c < 0 ? 1 : c;
usage:
	record_usage(stderr);
	return EXIT_USAGE;
}

/* is_function_tracer - does this tracer obey set_ftrace_pid/cgroup */
static bool is_function_tracer(const char *tracer)
{
	return tracer && !strncmp(tracer, "function", 8);
}

/* note_change - keep what a file held before cgtrace first writes it */
static int note_change(struct recorder *r, const char *file)
{
	int i;

	for (i = 0; i < r->nr_changes; i++)
		if (!strcmp(r->changes[i].file, file))
			return 0;
	if (r->nr_changes == MAX_CHANGES)
		return -1;
	r->changes[r->nr_changes].old = tfs_read(r->inst, file);
	if (!r->changes[r->nr_changes].old) {
		err_msg("cannot read %s of instance %s: %s", file,
			tfs_instance_label(r->inst), strerror(errno));
		return -1;
	}
	r->changes[r->nr_changes].file = file;
	r->nr_changes++;
	return 0;
}

/*
 * restore_file - write back a list or option as it was. A cgroup that has
 * been removed meanwhile (" (deleted)") cannot be listed again: say so.
 */
static void restore_file(struct recorder *r, struct change *c)
{
	char *text = c->old, *line, *save, *word;
	bool list = !strncmp(c->file, "set_", 4);
	struct cg_ref ref;
	int err = 0;

	if (!list) {
		err = tfs_write(r->inst, c->file, text, true);
		goto out;
	}
	err = tfs_clear(r->inst, c->file);
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !strcmp(line, "no pid") || !*line)
			continue;
		if (strstr(line, " (deleted)")) {
			err_msg("warning: %s of %s listed %s; it cannot be restored",
				c->file, tfs_instance_label(r->inst), line);
			continue;
		}
		word = NULL;
		if (strpbrk(line, " \t") && !cg_resolve(line, &ref)) {
			word = cg_kernel_word(&ref);
			cg_ref_free(&ref);
		}
		err = tfs_write(r->inst, c->file, word ? word : line, false);
		free(word);
	}
out:
	if (err)
		err_msg("warning: cannot restore %s of instance %s: %s", c->file,
			tfs_instance_label(r->inst), strerror(-err));
}

/* restore_changes - undo every write on an instance that outlives us */
static void restore_changes(struct recorder *r)
{
	int i;

	for (i = r->nr_changes - 1; i >= 0; i--) {
		if (!r->created)
			restore_file(r, &r->changes[i]);
		free(r->changes[i].old);
	}
	r->nr_changes = 0;
}

/* set_list - note, then replace a filter list */
static int set_list(struct recorder *r, const char *file, char **words, int n,
		    bool pids)
{
	if (tfs_require(r->inst, file) || note_change(r, file))
		return -1;
	if (pids)
		return tfs_set_pids(r->inst, file, words, n);
	return tfs_set_cgroups(r->inst, file, words, n);
}

/* resolve_all - every -G/-X argument to a cgroup, and the words to write */
static int resolve_all(struct str_list *in, struct cg_ref **refs,
		       struct str_list *words, bool quiet)
{
	int i;

	*refs = calloc(in->n + 1, sizeof(**refs));
	if (!*refs)
		return -1;
	for (i = 0; i < in->n; i++) {
		if (cg_resolve(in->v[i], &(*refs)[i]))
			return -1;
		str_list_add(words, "");
		free(words->v[i]);
		words->v[i] = cg_kernel_word(&(*refs)[i]);
		if (!quiet && strcmp(in->v[i], (*refs)[i].path))
			fprintf(stderr, "cgtrace: %s is cgroup %s\n", in->v[i],
				(*refs)[i].path);
	}
	return 0;
}

/*
 * set_filters - write every cgroup and pid list of the session
 *
 * The function tracer files are written only for a function tracer, so
 * that a kernel without CONFIG_FUNCTION_TRACER can still filter events.
 */
static int set_filters(struct recorder *r, struct str_list *cg,
		       struct str_list *nt)
{
	struct rec_session *s = r->s;
	bool ftrace = is_function_tracer(s->tracer);
	char *old;

	if (cg->n &&
	    (set_list(r, "set_event_cgroup", cg->v, cg->n, false) ||
	     /* the notes' writer is for events only (its trace_marker) */
	     (ftrace && set_list(r, "set_ftrace_cgroup", cg->v,
				 cg->n - !!r->writer_cg, false))))
		return -1;
	if (nt->n &&
	    (set_list(r, "set_event_notrace_cgroup", nt->v, nt->n, false) ||
	     (ftrace && set_list(r, "set_ftrace_notrace_cgroup", nt->v, nt->n,
				 false))))
		return -1;
	if (s->pids.n &&
	    (set_list(r, "set_event_pid", s->pids.v, s->pids.n, true) ||
	     (ftrace && set_list(r, "set_ftrace_pid", s->pids.v, s->pids.n,
				 true))))
		return -1;
	/* markers written with prctl() reach only instances that opt in */
	if (tfs_has(r->inst, "options/user_events_prctl")) {
		old = tfs_read(r->inst, "options/user_events_prctl");
		if (old && atoi(old) != 1 &&
		    (note_change(r, "options/user_events_prctl") ||
		     tfs_write(r->inst, "options/user_events_prctl", "1", true)))
			err_msg("warning: cannot enable options/user_events_prctl");
		free(old);
	}
	return 0;
}

/*
 * note_kept_filters - an instance that existed may filter already: say
 * which of its lists stay as they are (they apply to this recording)
 */
static void note_kept_filters(struct recorder *r)
{
	char *text, *p;
	int i, k;

	for (k = 0; k < 8; k++) {
		const char *file = k < 4 ? tfs_pid_files[k] : tfs_cgroup_files[k - 4];

		for (i = 0; i < r->nr_changes; i++)
			if (!strcmp(r->changes[i].file, file))
				break;
		if (i < r->nr_changes || !tfs_has(r->inst, file))
			continue;
		text = tfs_read(r->inst, file);
		if (text && *text && strcmp(text, "no pid\n")) {
			for (p = text; (p = strchr(p, '\n')); )
				*p = p[1] ? ' ' : '\0';
			fprintf(stderr, "cgtrace: note: %s keeps its %s: %s\n",
				tfs_instance_label(r->inst), file, text);
		}
		free(text);
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
	dir = tracefs_instance_get_file(inst, "per_cpu");
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

#define KEEP_MAX(field, v)	\
	do { unsigned long long _v = (v); if (_v > (field)) (field) = _v; } while (0)

/*
 * read_cpu_stats - update cpus[] from the pinned stats files. The counts
 * only grow while trace-cmd records, and trace-cmd resets the buffers
 * when it stops: keep the largest seen, so that the summary says what
 * was lost (to the last sample, every TICK_MS).
 */
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
		KEEP_MAX(cpus[i].entries, stat_value(buf, "entries") +
					  stat_value(buf, "read events"));
		KEEP_MAX(cpus[i].overrun, stat_value(buf, "overrun"));
		KEEP_MAX(cpus[i].commit_overrun, stat_value(buf, "commit overrun"));
		KEEP_MAX(cpus[i].dropped, stat_value(buf, "dropped events"));
	}
}

/* reset_cpu_stats - trace-cmd has reset the buffers: count from zero */
static void reset_cpu_stats(void)
{
	int i;

	for (i = 0; i < ncpus; i++)
		cpus[i].entries = cpus[i].overrun = cpus[i].commit_overrun =
			cpus[i].dropped = 0;
}

/* status_line - progress of a long recording */
static void status_line(time_t start)
{
	unsigned long long events = 0, lost = 0;
	int i;

	for (i = 0; i < ncpus; i++) {
		events += cpus[i].entries;
		lost += cpus[i].overrun + cpus[i].dropped;
	}
	fprintf(stderr, "cgtrace: recording %lds: %llu events, %llu lost\n",
		(long)(time(NULL) - start), events, lost);
}

/* print_summary - what was lost, per CPU, and the marker counts */
static void print_summary(struct recorder *r)
{
	const char *where = r->s->net ? r->s->net : r->s->output;
	unsigned long long lost = 0;
	char *markers;
	int i;

	for (i = 0; i < ncpus; i++)
		lost += cpus[i].overrun + cpus[i].commit_overrun + cpus[i].dropped;
	if (lost)
		fprintf(stderr, "cgtrace: %s %s; %llu events lost:\n",
			r->s->net ? "sent to" : "wrote", where, lost);
	else
		fprintf(stderr, "cgtrace: %s %s; no event lost\n",
			r->s->net ? "sent to" : "wrote", where);
	for (i = 0; lost && i < ncpus; i++)
		fprintf(stderr, "cgtrace:   cpu%d: overrun=%llu commit_overrun=%llu dropped=%llu\n",
			cpus[i].cpu, cpus[i].overrun, cpus[i].commit_overrun,
			cpus[i].dropped);
	markers = tfs_has(r->inst, "user_events_stats") ?
		  tfs_read(r->inst, "user_events_stats") : NULL;
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
 * on_stop - SIGINT or SIGTERM. A Ctrl-C on the terminal reaches trace-cmd
 * and our __exec as well (same process group); one sent with kill()
 * reaches only us: the main loop passes it on.
 */
static void on_stop(int sig, siginfo_t *si, void *uc)
{
	if (sig == SIGTERM || si->si_code == SI_USER || si->si_code == SI_QUEUE)
		stop_signal = sig;
}

/* meta_write - one "cgtrace-meta" line, through the writer */
static void __attribute__((format(printf, 2, 3)))
meta_write(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->to_writer || !r->started)
		return;
	va_start(ap, fmt);
	vfprintf(r->to_writer, fmt, ap);
	va_end(ap);
	if (fflush(r->to_writer)) {
		/* the writer is gone: note no more */
		fclose(r->to_writer);
		r->to_writer = NULL;
	}
}

/* meta_clock - a wall-clock sample, taken by the writer as it writes */
static void meta_clock(struct recorder *r)
{
	meta_write(r, "clock\n");
}

/* meta_adjtimex - is the wall clock synchronized (NTP), and how well */
static void meta_adjtimex(struct recorder *r)
{
	struct timex tx = { 0 };
	int state = adjtimex(&tx);

	meta_write(r, "adjtimex %d %ld %ld\n",
		   state != TIME_ERROR && !(tx.status & STA_UNSYNC),
		   tx.maxerror, tx.esterror);
}

/* sample_one - note a task of a traced cgroup the first time it is seen */
static void sample_dir_tasks(struct recorder *r, const char *dir)
{
	char path[4096], *cgpath = NULL;
	FILE *f;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	f = fopen(path, "re");
	while (f && fscanf(f, "%d", &pid) == 1) {
		if (pid <= 0 || pid >= PID_BITS ||
		    r->seen[pid / 8] & (1 << (pid % 8)))
			continue;
		r->seen[pid / 8] |= 1 << (pid % 8);
		if (!cgpath)
			cgpath = cg_path_of_dir(dir);
		if (cgpath)
			meta_write(r, "cgroup %d %s\n", pid, cgpath);
	}
	if (f)
		fclose(f);
	free(cgpath);
}

/* is_notrace - is dir a -X cgroup: its tasks are not traced */
static bool is_notrace(struct recorder *r, const char *dir)
{
	int i;

	for (i = 0; i < r->s->notrace.n; i++)
		if (!strcmp(dir, r->notrace[i].dir))
			return true;
	return false;
}

static int sample_walk(const char *dir, const char *name, void *data)
{
	if (is_notrace(data, dir))
		return 1;
	sample_dir_tasks(data, dir);
	return 0;
}

/* sample_cgroups - one sampling pass over the session's cgroups */
static void sample_cgroups(struct recorder *r)
{
	int i;

	for (i = 0; r->seen && i < r->s->cgroups.n; i++) {
		if (is_notrace(r, r->cgroups[i].dir))
			continue;
		sample_dir_tasks(r, r->cgroups[i].dir);
		cg_walk(r->cgroups[i].dir, sample_walk, r);
	}
}

/* started - trace-cmd records: note what the trace cannot tell */
static void started(struct recorder *r, pid_t wrapper)
{
	int i;

	r->started = true;
	r->wrapper = wrapper;
	reset_cpu_stats();
	if (r->host[0])
		meta_write(r, "host %s\n", r->host);
	meta_write(r, "writer %d\n", r->writer);
	meta_adjtimex(r);
	/* several at once: the reader takes the median */
	for (i = 0; i < 8; i++)
		meta_clock(r);
	meta_write(r, "ready\n");
	sample_cgroups(r);
}

/* tick - every TICK_MS while trace-cmd runs */
static void tick(struct recorder *r)
{
	r->ticks++;
	if (!r->started)
		return;
	read_cpu_stats();
	sample_cgroups(r);
	if (r->ticks % CLOCK_EVERY == 0)
		meta_clock(r);
	if (r->ticks % ADJTIMEX_EVERY == 0)
		meta_adjtimex(r);
}

/* read_exec_msgs - what __exec said so far; false when its pipe closed */
static bool read_exec_msgs(struct recorder *r)
{
	struct exec_msg m;
	ssize_t n;

	while ((n = read(r->exec_fd, &m, sizeof(m))) == sizeof(m)) {
		if (m.kind == EXEC_STARTED && !r->started)
			started(r, m.value);
		else if (m.kind == EXEC_STATUS)
			r->s->cmd_status = m.value;
	}
	return n != 0;
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
static char **trace_cmd_argv(struct recorder *r, const char *self, int fd)
{
	struct rec_session *s = r->s;
	struct str_list a = { 0 };
	char fdstr[16];
	int i;

	str_list_add(&a, "trace-cmd");
	str_list_add(&a, "record");
	if (!getenv("CGTRACE_DEBUG"))
		str_list_add(&a, "-q");
	if (s->net) {
		str_list_add(&a, "-N");
		str_list_add(&a, s->net);
	} else {
		str_list_add(&a, "-o");
		str_list_add(&a, s->output);
		/* trace-cmd's per-CPU temp files go next to the output */
		str_list_add(&a, "--temp");
		str_list_add(&a, out_dir(s->output));
	}
	if (!tfs_is_top(r->inst)) {
		str_list_add(&a, "-B");
		str_list_add(&a, tracefs_instance_get_name(r->inst));
	}
	if (s->clock) {
		str_list_add(&a, "-C");
		str_list_add(&a, s->clock);
	}
	if (s->tracer) {
		str_list_add(&a, "-p");
		str_list_add(&a, s->tracer);
	}
	if (s->buffer_kb) {
		str_list_add(&a, "-b");
		str_list_add(&a, s->buffer_kb);
	}
	for (i = 0; i < s->events.n; i++) {
		str_list_add(&a, "-e");
		str_list_add(&a, s->events.v[i]);
	}
	for (i = 0; i < s->passthrough.n; i++)
		str_list_add(&a, s->passthrough.v[i]);
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	str_list_add(&a, "--");
	str_list_add(&a, self);
	str_list_add(&a, "__exec");
	str_list_add(&a, s->enter_cgroup ? s->enter_cgroup : "-");
	str_list_add(&a, fdstr);
	str_list_add(&a, "--");
	for (i = 0; s->cmd && s->cmd[i]; i++)
		str_list_add(&a, s->cmd[i]);
	return a.v;
}

/* progress_every - seconds between status lines, 0 for none */
static int progress_every(struct rec_session *s)
{
	if (s->quiet)
		return 0;
	if (s->progress >= 0)
		return s->progress;
	return isatty(STDERR_FILENO) ? 5 : 30;
}

/*
 * run_trace_cmd - run trace-cmd and wait for it, sampling cgroups and the
 * clock, with a status line. A trace-cmd that cannot be executed is told
 * apart from one that fails through a close-on-exec pipe.
 */
static int run_trace_cmd(struct recorder *r, char **args)
{
	struct sigaction sa = { .sa_sigaction = on_stop,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct timespec pause = { 0, TICK_MS * 1000 * 1000 };
	int every = progress_every(r->s), status, i, errpipe[2], err = 0;
	time_t start = time(NULL), last = start;
	bool exec_open = true;
	pid_t pid;

	if (getenv("CGTRACE_DEBUG")) {
		fprintf(stderr, "cgtrace: debug: running");
		for (i = 0; args[i]; i++)
			fprintf(stderr, " %s", args[i]);
		fprintf(stderr, "\n");
	}
	if (pipe2(errpipe, O_CLOEXEC)) {
		err_msg("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		close(errpipe[0]);
		signal(SIGPIPE, SIG_DFL);
		execvp(args[0], args);
		err = errno;
		if (write(errpipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errpipe[1]);
	if (read(errpipe[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(errpipe[0]);
	if (err) {
		waitpid(pid, &status, 0);
		if (err == ENOENT)
			err_msg("trace-cmd is not installed or not in PATH (apt install trace-cmd)");
		else
			err_msg("cannot run trace-cmd: %s", strerror(err));
		return -1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return -1;
		}
		if (exec_open)
			exec_open = read_exec_msgs(r);
		if (stop_signal) {
			/* __exec ends (passing it to CMD), trace-cmd follows */
			if (r->wrapper > 0)
				kill(r->wrapper, SIGTERM);
			else
				kill(pid, SIGINT);
			stop_signal = 0;
		}
		nanosleep(&pause, NULL);
		tick(r);
		if (every && time(NULL) - last >= every) {
			last = time(NULL);
			status_line(start);
		}
	}
	read_exec_msgs(r);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	err_msg("trace-cmd was killed by signal %d", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/*
 * writer_cgroup - with a cgroup filter, the writer needs a traced cgroup
 * of its own: cgtrace-meta-PID below ours, added to the -G list
 */
static void writer_cgroup(struct recorder *r, struct str_list *words)
{
	struct cg_ref ref;
	char *self = cg_self_dir(), *dir = NULL;

	if (!r->s->cgroups.n || !self)
		goto out;
	if (asprintf(&dir, "%s/" TR_META_BUFFER "-%d", self, getpid()) < 0) {
		dir = NULL;
		goto out;
	}
	if (mkdir(dir, 0755) || cg_ref_from_dir(dir, &ref)) {
		err_msg("warning: cannot make cgroup %s (%s): the trace will not note its host,\n"
			"         clock or cgroups", dir, strerror(errno));
		rmdir(dir);
		free(dir);
		dir = NULL;
		goto out;
	}
	str_list_add(words, "");
	free(words->v[words->n - 1]);
	words->v[words->n - 1] = cg_kernel_word(&ref);
	cg_ref_free(&ref);
out:
	free(self);
	r->writer_cg = dir;
}

/*
 * writer_main - the writer: each line it reads goes to the instance's
 * trace_marker as "cgtrace-meta LINE" in one write; "clock" becomes a
 * CLOCK_REALTIME sample read just before the write.
 */
static void writer_main(struct recorder *r, int in)
{
	char line[4200], out[4300], *path;
	struct timespec ts;
	FILE *f = fdopen(in, "r");
	int fd, n;

	prctl(PR_SET_NAME, TR_META_BUFFER);
	/* a Ctrl-C is for the recording: the writer ends when its pipe does */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	path = tracefs_instance_get_file(r->inst, "trace_marker");
	fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		err_msg("warning: cannot open %s: %s", path, strerror(errno));
	while (f && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "clock\n")) {
			clock_gettime(CLOCK_REALTIME, &ts);
			n = snprintf(out, sizeof(out), TR_META_TAG "clock %llu\n",
				     ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		} else {
			n = snprintf(out, sizeof(out), TR_META_TAG "%s", line);
		}
		/* EBADF once trace-cmd stopped tracing: read on to the end */
		if (fd >= 0 && write(fd, out, n) < 0 && errno != EBADF)
			err_msg("warning: %s: %s", path, strerror(errno));
	}
	_exit(0);
}

/* writer_start - fork the writer, into its cgroup when it has one */
static void writer_start(struct recorder *r)
{
	char procs[4200];
	int p[2], fd;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		err_msg("warning: pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		err_msg("warning: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (!pid) {
		close(p[1]);
		if (r->writer_cg) {
			snprintf(procs, sizeof(procs), "%s/cgroup.procs",
				 r->writer_cg);
			fd = open(procs, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "0", 1) != 1)
				err_msg("warning: the writer cannot enter %s: %s",
					r->writer_cg, strerror(errno));
		}
		writer_main(r, p[0]);
	}
	close(p[0]);
	r->writer = pid;
	r->to_writer = fdopen(p[1], "w");
}

/* writer_stop - end the writer and remove its cgroup */
static void writer_stop(struct recorder *r)
{
	struct timespec ms = { 0, 10 * 1000 * 1000 };
	int i;

	if (r->to_writer)
		fclose(r->to_writer);
	r->to_writer = NULL;
	if (r->writer > 0)
		waitpid(r->writer, NULL, 0);
	r->writer = 0;
	for (i = 0; r->writer_cg && i < 100; i++) {
		if (!rmdir(r->writer_cg) || errno != EBUSY)
			break;
		nanosleep(&ms, NULL);
	}
	free(r->writer_cg);
	r->writer_cg = NULL;
}

/* self_exe - this binary, for trace-cmd to run as __exec */
static int self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n < 0) {
		err_msg("cannot find my own binary: %s", strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

static void recorder_free(struct recorder *r)
{
	int i;

	for (i = 0; r->cgroups && i < r->s->cgroups.n; i++)
		cg_ref_free(&r->cgroups[i]);
	for (i = 0; r->notrace && i < r->s->notrace.n; i++)
		cg_ref_free(&r->notrace[i]);
	free(r->cgroups);
	free(r->notrace);
	free(r->seen);
}

/* drop_instance - remove what we made, keep (restored) what we found */
static void drop_instance(struct tracefs_instance *inst, bool created)
{
	char sub[4096];
	bool exists = false;
	struct tracefs_instance *top;

	if (created && !tfs_instance_get(NULL, false, &top, NULL)) {
		/* trace-cmd may have removed it already */
		snprintf(sub, sizeof(sub), "instances/%s",
			 tracefs_instance_get_name(inst));
		exists = tracefs_dir_exists(top, sub);
		tfs_instance_put(top, false);
	}
	tfs_instance_put(inst, exists);
}

/*
 * record_session - set up the instance, record it with trace-cmd, report
 * what was lost and clean up. Returns trace-cmd's exit status, or -1 when
 * the session could not be set up.
 */
int record_session(struct rec_session *s)
{
	struct recorder r = { .s = s, .exec_fd = -1 };
	char name[64], self[PATH_MAX], **args = NULL;
	struct str_list cgw = { 0 }, ntw = { 0 };
	int i, ret = -1, pfd[2] = { -1, -1 };
	struct utsname u;

	s->cmd_status = -1;
	/* a pipe to a helper that ended is an error to handle, not death */
	signal(SIGPIPE, SIG_IGN);
	if (!uname(&u))
		snprintf(r.host, sizeof(r.host), "%s", u.nodename);
	if (tfs_init(true) || self_exe(self, sizeof(self)))
		return -1;
	/* bad cgroups fail before anything is made */
	if (resolve_all(&s->cgroups, &r.cgroups, &cgw, s->quiet) ||
	    resolve_all(&s->notrace, &r.notrace, &ntw, s->quiet)) {
		recorder_free(&r);
		str_list_free(&cgw);
		str_list_free(&ntw);
		return -1;
	}
	writer_cgroup(&r, &cgw);
	if (s->net && strcmp(s->output, "trace.dat"))
		err_msg("warning: -N sends the recording to %s; -o %s is not used",
			s->net, s->output);
	if (!s->instance) {
		snprintf(name, sizeof(name), "cgtrace-%d", getpid());
		s->instance = name;
	}
	if (tfs_instance_get(s->instance, true, &r.inst, &r.created)) {
		writer_stop(&r);
		recorder_free(&r);
		str_list_free(&cgw);
		str_list_free(&ntw);
		return -1;
	}
	if (set_filters(&r, &cgw, &ntw))
		goto out;
	if (!r.created && !s->quiet)
		note_kept_filters(&r);
	if (!s->events.n && !s->tracer) {
		for (i = 0; default_events[i]; i++)
			str_list_add(&s->events, default_events[i]);
		if (tfs_has_user_markers(r.inst))
			str_list_add(&s->events, "user_markers");
	}
	writer_start(&r);
	if (s->cgroups.n)
		r.seen = calloc(PID_BITS / 8, 1);
	if (pipe2(pfd, 0)) {
		err_msg("pipe: %s", strerror(errno));
		goto out;
	}
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	r.exec_fd = pfd[0];
	pin_instance(r.inst);
	args = trace_cmd_argv(&r, self, pfd[1]);
	ret = run_trace_cmd(&r, args);
	close(pfd[1]);
	pfd[1] = -1;
	if (ret > 0)
		err_msg("trace-cmd record exited with status %d", ret);
	if (!s->quiet && ret >= 0)
		print_summary(&r);
	unpin_instance();
out:
	writer_stop(&r);
	restore_changes(&r);
	drop_instance(r.inst, r.created);
	for (i = 0; args && args[i]; i++)
		free(args[i]);
	free(args);
	for (i = 0; i < 2; i++)
		if (pfd[i] >= 0)
			close(pfd[i]);
	recorder_free(&r);
	str_list_free(&cgw);
	str_list_free(&ntw);
	return ret;
}

/* exec_send - a message to the recorder; it may be gone already */
static void exec_send(int fd, int kind, int value)
{
	struct exec_msg m = { kind, value };

	if (write(fd, &m, sizeof(m)) != sizeof(m) && errno != EPIPE)
		err_msg("__exec: cannot reach cgtrace: %s", strerror(errno));
}

static volatile sig_atomic_t exec_child;

static void exec_forward(int sig)
{
	if (exec_child > 0)
		kill(exec_child, sig);
}

/*
 * cmd_exec_helper - "cgtrace __exec CGROUP_DIR|- FD -- [CMD...]", run by
 * trace-cmd once it records: tell cgtrace so through FD, then run CMD
 * (inside CGROUP_DIR, before its first instruction, for "run") and send
 * its exit status; without CMD, wait for SIGINT or SIGTERM.
 */
int cmd_exec_helper(int argc, char **argv)
{
	char procs[PATH_MAX];
	int fd, status, code, sig;
	sigset_t set;
	pid_t pid;

	if (argc < 4 || strcmp(argv[3], "--")) {
		err_msg("__exec is internal to cgtrace record and run");
		return 127;
	}
	fd = atoi(argv[2]);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	exec_send(fd, EXEC_STARTED, getpid());
	if (argc == 4) {
		/* no command: record until stopped (whatever we inherited) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		sigwait(&set, &sig);
		exec_send(fd, EXEC_STATUS, 0);
		return 0;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", argv[1]);
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		return 127;
	}
	if (!pid) {
		int cfd = strcmp(argv[1], "-") ? open(procs, O_WRONLY | O_CLOEXEC) : -2;

		/* "0" moves the writer: CMD starts inside the cgroup */
		if (cfd == -1 || (cfd >= 0 && write(cfd, "0", 1) != 1)) {
			err_msg("cannot enter cgroup %s: %s", argv[1],
				strerror(errno));
			_exit(127);
		}
		if (cfd >= 0)
			close(cfd);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[4], argv + 4);
		err_msg("cannot run %s: %s", argv[4], strerror(errno));
		_exit(127);
	}
	/* like system(): a Ctrl-C is for the command, we report its end */
	exec_child = pid;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, exec_forward);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return 127;
		}
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	exec_send(fd, EXEC_STATUS, code);
	return code;
}
