// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - one recording of "cgtrace record" or "cgtrace run", in the
 * order that leaves nothing unfiltered and nothing unsaid:
 *
 *   1. resolve the cgroups, make the work directory beside the output;
 *   2. make (or take) the instance and write its filters
 *      (instance_files.c), start the notes writer (notes_writer.c), keep
 *      the instance's stats files open (buffer_stats.c);
 *   3. start trace-cmd record on the instance (trace_cmd.c); it runs
 *      "cgtrace __exec" (exec_helper.c), which says it started and runs
 *      COMMAND; meanwhile the notes and a status line;
 *   4. when COMMAND ends (or SIGINT, SIGTERM, or every -P process is
 *      gone): tracing off, the buffer's final counts read, then __exec
 *      may exit, and trace-cmd writes the trace;
 *   5. read the trace back (trace_check.c), write it into what -o names
 *      (output.c), say what was written and what was lost, from the file
 *      and the counts;
 *   6. restore what was changed, remove what was made.
 *
 * Nothing is said that was not read back: "wrote" only for a file that
 * libtracecmd read, and losses from the kernel's counts and the file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "cgtrace.h"
#include "recorder.h"
#include "tracefs_util.h"

#define TICK_MS		200	/* cgroup sampling, clock notes, status */

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_by_user;	/* kill(), not the terminal */

/*
 * on_stop - SIGINT or SIGTERM. A Ctrl-C on the terminal reaches COMMAND
 * too (its process group); one sent with kill() reaches only cgtrace.
 */
static void on_stop(int sig, siginfo_t *si, void *uc)
{
	stop_signal = sig;
	if (sig == SIGTERM || si->si_code == SI_USER || si->si_code == SI_QUEUE)
		stop_by_user = 1;
}

/* self_exe - this binary, for trace-cmd to run as __exec */
static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n < 0) {
		err_msg("cannot find my own binary (/proc/self/exe): %s",
			strerror(errno));
		return NULL;
	}
	buf[n] = '\0';
	return xstrdup(buf);
}

/* resolve_all - every -G/-X argument to a cgroup, and the words to write */
static int resolve_all(struct str_list *in, struct cg_ref **refs,
		       struct str_list *words, bool quiet)
{
	char *word;
	int i;

	*refs = xzalloc((in->n + 1) * sizeof(**refs));
	for (i = 0; i < in->n; i++) {
		if (cg_resolve(in->v[i], &(*refs)[i]))
			return -1;
		word = cg_kernel_word(&(*refs)[i]);
		str_list_add(words, word);
		free(word);
		if (!quiet && strcmp(in->v[i], (*refs)[i].path))
			fprintf(stderr, "cgtrace: %s is cgroup %s\n", in->v[i],
				(*refs)[i].path);
	}
	return 0;
}

/*
 * make_workdir - the directory trace-cmd runs and writes in: where the
 * output is spooled (output.c: beside a file, so that a new one is
 * renamed into place, not copied; $TMPDIR for a FIFO, a device or
 * standard output), or in $TMPDIR for -N
 */
static int make_workdir(struct recorder *r)
{
	const char *tmp = getenv("TMPDIR");
	bool in_tmp = r->s->net || r->s->out.kind == OUT_SPECIAL ||
		      r->s->out.kind == OUT_STDOUT;
	char *dir, *abs;

	if (r->s->net)
		dir = xstrdup(tmp && *tmp ? tmp : "/tmp");
	else
		dir = xstrdup(r->s->out.spool_dir);
	abs = realpath(dir, NULL);
	if (!abs) {
		err_msg("%s: %s: %s", dir, strerror(errno), in_tmp ?
			"set TMPDIR to a directory you can write" :
			"the directory of -o must exist");
		free(dir);
		return -1;
	}
	free(dir);
	r->workdir = xasprintf("%s/%scgtrace-%d-XXXXXX", abs,
			       in_tmp ? "" : ".", getpid());
	free(abs);
	if (!mkdtemp(r->workdir)) {
		if (in_tmp)
			err_msg("cannot make a directory in %s for trace-cmd (%s): set TMPDIR to one you can write",
				r->workdir, strerror(errno));
		else
			err_msg("cannot write beside %s (%s): give -o a file in a directory you can write",
				r->s->output, strerror(errno));
		free(r->workdir);
		r->workdir = NULL;
		return -1;
	}
	r->tmp_output = xasprintf("%s/trace.dat", r->workdir);
	return 0;
}

/*
 * remove_workdir - with what trace-cmd may have left in it; but a trace
 * that could not be put in place stays, the only copy of the recording
 */
static void remove_workdir(struct recorder *r)
{
	struct dirent *d;
	DIR *dp;

	if (!r->workdir)
		return;
	dp = opendir(r->workdir);
	while (dp && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
		    !(r->keep_trace && !strcmp(d->d_name, "trace.dat")))
			unlinkat(dirfd(dp), d->d_name, 0);
	if (dp)
		closedir(dp);
	if (!r->keep_trace && rmdir(r->workdir))
		err_msg("warning: cannot remove %s: %s", r->workdir,
			strerror(errno));
	free(r->workdir);
	free(r->tmp_output);
	r->workdir = r->tmp_output = NULL;
}

/* open_pipes - __exec's status pipe and control pipe */
static int open_pipes(struct recorder *r, int child_ends[2])
{
	int st[2], ctl[2];

	if (pipe2(st, 0) || pipe2(ctl, 0)) {
		err_msg("pipe: %s", strerror(errno));
		return -1;
	}
	/* ours are not inherited; __exec's are */
	fcntl(st[0], F_SETFD, FD_CLOEXEC);
	fcntl(st[0], F_SETFL, O_NONBLOCK);
	fcntl(ctl[1], F_SETFD, FD_CLOEXEC);
	r->status_fd = st[0];
	r->control_fd = ctl[1];
	child_ends[0] = st[1];
	child_ends[1] = ctl[0];
	return 0;
}

/*
 * stop_recording - tracing off, the final counts read, then __exec may
 * exit (and trace-cmd with it)
 */
static void stop_recording(struct recorder *r)
{
	if (r->stopped)
		return;
	r->stopped = true;
	if (tracefs_trace_off(r->inst))
		err_msg("warning: cannot turn tracing off in instance %s: %s",
			tfs_instance_label(r->inst), strerror(errno));
	else
		bs_final(&r->stats);
	if (r->control_fd >= 0)
		close(r->control_fd);
	r->control_fd = -1;
}

/* read_messages - what __exec said so far */
static void read_messages(struct recorder *r)
{
	struct exec_msg m;

	while (read(r->status_fd, &m, sizeof(m)) == sizeof(m)) {
		switch (m.kind) {
		case EXEC_STARTED:
			if (r->started)
				break;
			r->started = true;
			r->helper = m.value;
			bs_restart(&r->stats);
			notes_started(r);
			break;
		case EXEC_ENTERED:
			notes_task(r, m.value, r->s->enter_cgroup);
			break;
		case EXEC_FAILED:
			r->exec_errno = m.value;
			break;
		case EXEC_STATUS:
			r->s->cmd_status = m.value;
			r->cmd_ended = true;
			break;
		}
	}
}

/* pids_gone - without COMMAND, as trace-cmd -P: every -P process exited */
static bool pids_gone(struct recorder *r)
{
	int i;

	if (r->s->cmd || !r->s->pids.n)
		return false;
	for (i = 0; i < r->s->pids.n; i++)
		if (!kill(atoi(r->s->pids.v[i]), 0) || errno != ESRCH)
			return false;
	return true;
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
 * wait_trace_cmd - until trace-cmd exits: messages, the stop, notes and
 * status lines. Returns trace-cmd's exit status (128 + N for signal N).
 */
static int wait_trace_cmd(struct recorder *r)
{
	struct sigaction sa = { .sa_sigaction = on_stop,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	int every = progress_every(r->s), status;
	time_t start = time(NULL), last = start;
	pid_t w;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		w = waitpid(r->tc_pid, &status, WNOHANG);
		if (w == r->tc_pid)
			break;
		if (w < 0 && errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			status = 1 << 8;
			break;
		}
		read_messages(r);
		if (r->cmd_ended || pids_gone(r))
			stop_recording(r);
		if (stop_signal) {
			if (!r->started)	/* trace-cmd records nothing yet */
				kill(r->tc_pid, SIGTERM);
			else if (!r->s->cmd)
				stop_recording(r);
			else if (stop_by_user && !r->cmd_ended)
				kill(r->helper, SIGTERM);	/* to COMMAND */
			stop_signal = 0;
			stop_by_user = 0;
		}
		follow_wait(r, TICK_MS);
		if (!r->started)
			continue;
		r->ticks++;
		bs_sample(&r->stats);
		notes_tick(r);
		if (every && time(NULL) - last >= every) {
			last = time(NULL);
			bs_status_line(&r->stats, start);
		}
	}
	read_messages(r);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	err_msg("trace-cmd was killed by signal %d", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/* print_markers - the instance's marker counts (user_events_stats) */
static void print_markers(struct recorder *r)
{
	char *text, *line, *save;

	if (!tfs_has(r->inst, "user_events_stats"))
		return;
	text = tfs_read(r->inst, "user_events_stats");
	if (!text)
		return;
	fprintf(stderr, "cgtrace: markers:");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, " %s", line);
	fprintf(stderr, "\n");
	free(text);
}

/*
 * unread_of - what a CPU's buffer held and the file lacks: trace-cmd left
 * it unread (trace-cmd 3.1 can leave the last, partly filled page), or
 * another reader took it
 */
static unsigned long long unread_of(struct recorder *r, int i)
{
	const struct cpu_counts *c = &r->stats.final[i];
	int cpu = r->stats.cpu[i];
	unsigned long long n = cpu < r->nr_in_file ? r->in_file[cpu] : 0;

	if (r->s->net || bs_held(c) <= n)
		return 0;
	return bs_held(c) - n;
}

/*
 * print_summary - what was written and what was lost: per CPU, what the
 * buffer lost before any reader (its counts) and what it held with
 * tracing off but the file lacks
 */
static void print_summary(struct recorder *r, long long size)
{
	struct buffer_stats *bs = &r->stats;
	unsigned long long held = 0, in_file = 0, lost = 0, unread;
	const struct cpu_counts *c;
	int i;

	for (i = 0; i < r->nr_in_file; i++)
		in_file += r->in_file[i];
	for (i = 0; bs->have_final && i < bs->nr; i++) {
		held += bs_held(&bs->final[i]);
		lost += bs_lost(&bs->final[i]) + unread_of(r, i);
	}
	if (r->s->net)
		fprintf(stderr, "cgtrace: sent to %s: the buffer held %llu events; ",
			r->s->net, held);
	else
		fprintf(stderr, "cgtrace: wrote %s: %llu events, %lld bytes; ",
			r->s->out.label, in_file, size);
	if (!bs->have_final)
		fprintf(stderr, "what was lost is not known: trace-cmd stopped before cgtrace read the buffer's counts\n");
	else if (lost)
		fprintf(stderr, "%llu events lost:\n", lost);
	else if (r->s->net)
		fprintf(stderr, "none lost in the buffer (the trace is on the collector: not read back here)\n");
	else
		fprintf(stderr, "no event lost\n");
	for (i = 0; lost && i < bs->nr; i++) {
		c = &bs->final[i];
		unread = unread_of(r, i);
		if (!bs_lost(c) && !unread)
			continue;
		fprintf(stderr, "cgtrace:   cpu%d: %llu overwritten, %llu refused by a full buffer, %llu lost to nested writes",
			bs->cpu[i], c->overrun, c->dropped, c->commit_overrun);
		if (!r->s->net)
			fprintf(stderr, ", %llu missing from the file", unread);
		fprintf(stderr, "\n");
	}
	print_markers(r);
}

/* drop_instance - remove what we made, keep (restored) what we found */
static void drop_instance(struct recorder *r)
{
	const char *name = tracefs_instance_get_name(r->inst);

	/* trace-cmd removes one it ran on when nothing holds it open */
	tfs_instance_put(r->inst, r->created && name &&
			 tfs_instance_exists(name));
	r->inst = NULL;
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
	str_list_free(&r->cg_words);
	str_list_free(&r->nt_words);
	free(r->in_file);
	free(r->cwd);
}

/* prepare - everything before trace-cmd starts; -1 after a message */
static int prepare(struct recorder *r, char *instance_name)
{
	struct rec_session *s = r->s;

	/* a kernel without the filters, or bad cgroups: before anything is made */
	if ((s->cgroups.n || s->notrace.n) && tfs_require(NULL, "set_event_cgroup"))
		return -1;
	if (resolve_all(&s->cgroups, &r->cgroups, &r->cg_words, s->quiet) ||
	    resolve_all(&s->notrace, &r->notrace, &r->nt_words, s->quiet))
		return -1;
	r->cwd = getcwd(NULL, 0);
	if (!r->cwd) {
		err_msg("cannot tell the current directory: %s", strerror(errno));
		return -1;
	}
	if (s->net && strcmp(s->output, "trace.dat"))
		err_msg("warning: -N sends the trace to %s; -o %s is not used",
			s->net, s->output);
	if (make_workdir(r))
		return -1;
	writer_cgroup(r);
	if (!s->instance) {
		snprintf(instance_name, 64, "cgtrace-%d", getpid());
		s->instance = instance_name;
	}
	if (tfs_instance_get(s->instance, true, &r->inst, &r->created))
		return -1;
	if (set_filters(r))
		return -1;
	if (!r->created && !s->quiet)
		note_kept_filters(r);
	follow_start(r);
	return 0;
}

/* finish - trace-cmd ended: was the trace written, and is it whole */
static int finish(struct recorder *r, int tc_status)
{
	struct rec_session *s = r->s;
	long long size = -1;
	struct stat st;

	if (!r->started) {
		err_msg("%s record ended with status %d before it recorded anything (its own message, if\n"
			"         any, is above): no trace was %s", trace_cmd_path(), tc_status,
			s->net ? "sent" : "written");
		return -1;
	}
	if (tc_status) {
		err_msg("%s record failed with status %d (its own message, if any, is above): %s",
			trace_cmd_path(), tc_status, s->net ? "the trace was not sent whole" :
			"no trace was written");
		return -1;
	}
	if (!s->net) {
		if (check_trace(r))
			return -1;
		if (!stat(r->tmp_output, &st))
			size = st.st_size;
		if (out_commit(&s->out, r->tmp_output)) {
			r->keep_trace = true;
			err_msg("the trace is kept in %s", r->tmp_output);
			return -1;
		}
	}
	if (!s->quiet)
		print_summary(r, size);
	return 0;
}

int record_session(struct rec_session *s)
{
	struct recorder r = { .s = s, .status_fd = -1, .control_fd = -1,
			      .follow_fd = -1 };
	char name[64], *self, **argv = NULL;
	int child_ends[2] = { -1, -1 }, ret = -1, i, tc_status;
	struct utsname u;

	s->cmd_status = -1;
	/* a pipe to a helper that ended is an error to handle, not death */
	signal(SIGPIPE, SIG_IGN);
	if (!uname(&u))
		snprintf(r.host, sizeof(r.host), "%s", u.nodename);
	self = self_exe();
	/* permission first (its fix is root), then what -o names */
	if (!self || tfs_init(true) || rec_check_output(s))
		goto out;
	/* as trace-cmd record does, but said: the whole system is recorded */
	if (!s->cgroups.n && !s->pids.n && !s->quiet)
		err_msg("note: no -G or -P: recording every task%s (-G CGROUP or -P PID records only those)",
			s->notrace.n ? " but those of the -X cgroups" : "");
	if (prepare(&r, name))
		goto out;
	writer_start(&r);
	if (bs_pin(&r.stats, r.inst) || open_pipes(&r, child_ends))
		goto out;
	argv = trace_cmd_argv(&r, self, child_ends[0], child_ends[1]);
	r.tc_pid = trace_cmd_start(&r, argv);
	for (i = 0; i < 2; i++)
		close(child_ends[i]);
	if (r.tc_pid < 0)
		goto out;
	tc_status = wait_trace_cmd(&r);
	ret = finish(&r, tc_status);
	if (ret < 0 && s->cmd && s->cmd_status >= 0)
		err_msg("(the command ran and exited with status %d)",
			s->cmd_status);
out:
	if (r.control_fd >= 0)
		close(r.control_fd);
	if (r.status_fd >= 0)
		close(r.status_fd);
	writer_stop(&r);
	follow_stop(&r);
	if (r.stats.nr)
		bs_unpin(&r.stats);
	if (r.inst) {
		if (restore_changes(&r))
			ret = -1;
		drop_instance(&r);
	}
	remove_workdir(&r);
	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
	free(self);
	recorder_free(&r);
	return ret;
}

/* session_status - the exit status of record or run after a session */
int session_status(const struct rec_session *s, int ret)
{
	if (ret < 0)
		return EXIT_TRACE;
	if (s->cmd)
		return s->cmd_status >= 0 ? s->cmd_status : EXIT_TRACE;
	return 0;
}
