// SPDX-License-Identifier: GPL-2.0
/*
 * notes_writer.c - what trace.dat cannot say by itself, noted inside it
 *
 * The notes travel in the recorded buffer itself (trace-cmd record -N
 * sends one buffer only) as trace_marker lines "cgtrace-meta ..." (see
 * trace_read.h): the host name, wall-clock samples, the host clock's NTP
 * state and the cgroup of each traced task. The instance's trace_marker
 * obeys its cgroup filter, so they are written by a helper process alone
 * in a cgroup of its own, cgtrace-meta-PID below ours, which is added to
 * set_event_cgroup. The buffers are reset when trace-cmd starts, so the
 * notes are written once trace-cmd runs "cgtrace __exec" (notes_started).
 *
 * Which cgroup each traced task was in: trace.dat has no cgroup per event,
 * so the traced cgroups are sampled (cgroup.threads, recursively) every
 * tick while recording and each task noted the first time it is seen. A
 * task that lives less than one tick can be missed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "cgtrace.h"
#include "recorder.h"
#include "trace_read.h"

#define CLOCK_EVERY	5	/* ticks between clock samples (1 s) */
#define ADJTIMEX_EVERY	50	/* ticks between clock state notes (10 s) */
#define PID_BITS	(1 << 22)	/* PID_MAX_LIMIT */

/*
 * writer_cgroup - with a cgroup filter, the writer needs a traced cgroup
 * of its own: cgtrace-meta-PID below ours, added to the -G words
 */
void writer_cgroup(struct recorder *r)
{
	struct cg_ref ref;
	char *self, *dir, *word;

	if (!r->s->cgroups.n)
		return;
	self = cg_self_dir();
	if (!self)
		return;
	dir = xasprintf("%s/" TR_META_BUFFER "-%d", self, getpid());
	free(self);
	if (mkdir(dir, 0755) || cg_ref_from_dir(dir, &ref)) {
		err_msg("warning: cannot make cgroup %s (%s): the trace will not note its host,\n"
			"         clock or cgroups", dir, strerror(errno));
		rmdir(dir);
		free(dir);
		return;
	}
	word = cg_kernel_word(&ref);
	str_list_add(&r->cg_words, word);
	free(word);
	cg_ref_free(&ref);
	r->writer_cg = dir;
}

/*
 * writer_main - the writer: each line it reads goes to the instance's
 * trace_marker as "cgtrace-meta LINE" in one write; "clock" becomes a
 * CLOCK_REALTIME sample read just before the write.
 */
static void writer_main(struct recorder *r, int in)
{
	FILE *f = fdopen(in, "r");
	struct timespec ts;
	char line[4096];

	prctl(PR_SET_NAME, TR_META_BUFFER);
	/* a Ctrl-C is for the recording: the writer ends when its pipe does */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (tracefs_print_init(r->inst))
		err_msg("warning: cannot open the instance's trace_marker: %s: the trace will not hold cgtrace's notes",
			strerror(errno));
	while (f && fgets(line, sizeof(line), f)) {
		/* an error once trace-cmd stopped tracing: read on to the end */
		if (!strcmp(line, "clock\n")) {
			clock_gettime(CLOCK_REALTIME, &ts);
			tracefs_printf(r->inst, TR_META_TAG "clock %llu\n",
				       ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		} else {
			tracefs_printf(r->inst, TR_META_TAG "%s", line);
		}
	}
	tracefs_print_close(r->inst);
	_exit(0);
}

/* writer_start - fork the writer, into its cgroup when it has one */
void writer_start(struct recorder *r)
{
	char *procs;
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
			procs = xasprintf("%s/cgroup.procs", r->writer_cg);
			fd = open(procs, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "0", 1) != 1)
				err_msg("warning: the notes writer cannot enter %s: %s",
					r->writer_cg, strerror(errno));
		}
		writer_main(r, p[0]);
	}
	close(p[0]);
	r->writer = pid;
	r->to_writer = fdopen(p[1], "w");
	if (r->s->cgroups.n)
		r->seen = xzalloc(PID_BITS / 8);
}

/* writer_stop - end the writer and remove its cgroup */
void writer_stop(struct recorder *r)
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
	free(r->seen);
	r->seen = NULL;
}

/* note - one "cgtrace-meta" line, through the writer */
static void __attribute__((format(printf, 2, 3)))
note(struct recorder *r, const char *fmt, ...)
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

/* note_clock - a wall-clock sample, taken by the writer as it writes */
static void note_clock(struct recorder *r)
{
	note(r, "clock\n");
}

/* note_adjtimex - is the wall clock synchronized (NTP), and how well */
static void note_adjtimex(struct recorder *r)
{
	struct timex tx = { 0 };
	int state = adjtimex(&tx);

	note(r, "adjtimex %d %ld %ld\n",
	     state != TIME_ERROR && !(tx.status & STA_UNSYNC),
	     tx.maxerror, tx.esterror);
}

/* seen_before - mark a pid noted; was it already */
static bool seen_before(struct recorder *r, int pid)
{
	bool was;

	if (pid <= 0 || pid >= PID_BITS)
		return true;
	was = r->seen[pid / 8] & (1 << (pid % 8));
	r->seen[pid / 8] |= 1 << (pid % 8);
	return was;
}

/* notes_task - note a task in a cgroup directory now (run's COMMAND) */
void notes_task(struct recorder *r, int pid, const char *dir)
{
	char *cgpath;

	if (!r->seen || seen_before(r, pid))
		return;
	cgpath = cg_path_of_dir(dir);
	if (cgpath)
		note(r, "cgroup %d %s\n", pid, cgpath);
	free(cgpath);
}

/* note_dir_tasks - note a task of a traced cgroup the first time it is seen */
static void note_dir_tasks(struct recorder *r, const char *dir)
{
	char *path = xasprintf("%s/cgroup.threads", dir), *cgpath = NULL;
	FILE *f;
	int pid;

	f = fopen(path, "re");
	free(path);
	while (f && fscanf(f, "%d", &pid) == 1) {
		if (seen_before(r, pid))
			continue;
		if (!cgpath)
			cgpath = cg_path_of_dir(dir);
		if (cgpath)
			note(r, "cgroup %d %s\n", pid, cgpath);
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
	note_dir_tasks(data, dir);
	return 0;
}

/* note_cgroups - one sampling pass over the session's cgroups */
static void note_cgroups(struct recorder *r)
{
	int i;

	for (i = 0; r->seen && i < r->s->cgroups.n; i++) {
		if (is_notrace(r, r->cgroups[i].dir))
			continue;
		note_dir_tasks(r, r->cgroups[i].dir);
		cg_walk(r->cgroups[i].dir, sample_walk, r);
	}
}

/* notes_started - trace-cmd records: note what the trace cannot tell */
void notes_started(struct recorder *r)
{
	int i;

	if (r->host[0])
		note(r, "host %s\n", r->host);
	note(r, "writer %d\n", r->writer);
	note_adjtimex(r);
	/* several at once: the reader takes the best */
	for (i = 0; i < 8; i++)
		note_clock(r);
	note(r, "ready\n");
	note_cgroups(r);
}

/* notes_tick - every tick while trace-cmd records */
void notes_tick(struct recorder *r)
{
	note_cgroups(r);
	if (r->ticks % CLOCK_EVERY == 0)
		note_clock(r);
	if (r->ticks % ADJTIMEX_EVERY == 0)
		note_adjtimex(r);
}
