// SPDX-License-Identifier: GPL-2.0
/*
 * trace_cmd.c - find trace-cmd, say what it is to record, and start it
 *
 * trace-cmd runs in a directory of cgtrace's own (recorder.workdir),
 * beside the output file (or in $TMPDIR with -N, or for a -o that is not
 * a file): trace-cmd 3.1 writes a per-CPU file into its working directory
 * even with --temp, so in a directory the user cannot write (a read-only
 * checkout, "/") it fails.
 * It writes the trace there too; cgtrace puts it where -o says once it has
 * read it back. COMMAND itself runs in the user's directory ("cgtrace
 * __exec" changes back to it).
 *
 * SIGINT and SIGQUIT are blocked in trace-cmd (the mask survives exec,
 * and trace-cmd does not unblock them): a Ctrl-C on the terminal reaches
 * COMMAND and cgtrace, and cgtrace, not trace-cmd, decides when the
 * recording stops, so that it reads the buffer's final counts first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "cgtrace.h"
#include "recorder.h"
#include "tracefs_util.h"

static const char * const default_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit", NULL,
};

/*
 * trace_cmd_path - the trace-cmd to run: $CGTRACE_TRACE_CMD (a path), or
 * "trace-cmd" looked up in PATH ("make tracecmd-install" puts the
 * project's, which filters cgroups itself, in /usr/local/bin)
 */
const char *trace_cmd_path(void)
{
	const char *p = getenv("CGTRACE_TRACE_CMD");

	return p && *p ? p : "trace-cmd";
}

/* trace_cmd_file - the file trace_cmd_path() runs (PATH searched), or NULL */
static char *trace_cmd_file(void)
{
	const char *tc = trace_cmd_path();
	char *path, *dirs, *dir, *save, *file = NULL;

	if (strchr(tc, '/'))
		return xstrdup(tc);
	path = getenv("PATH");
	dirs = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !file;
	     dir = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *dir ? dir : ".", tc);

		if (!access(f, X_OK))
			file = f;
		else
			free(f);
	}
	free(dirs);
	return file;
}

/*
 * trace_cmd_filters_cgroups - whether this trace-cmd sets an instance's
 * cgroup filters itself ("trace-cmd record --cgroup CG", the project's
 * trace-cmd series). Then the session hands it the -G and -X cgroups
 * instead of writing the files (set_filters()), and trace-cmd puts them
 * back when it ends. Asked of its file, which names the option, not by
 * running it: a trace-cmd that hangs must hang only where cgtrace runs it
 * under its control (and its Ctrl-C). Asked once.
 */
bool trace_cmd_filters_cgroups(void)
{
	static const char opt[] = "--notrace-cgroup";
	static int known = -1;
	char buf[65536 + sizeof(opt)];
	size_t keep = 0, n;
	char *file;
	FILE *f;

	if (known >= 0)
		return known;
	known = 0;
	file = trace_cmd_file();
	f = file ? fopen(file, "r") : NULL;
	free(file);
	if (!f)
		return false;
	/* the last bytes of a chunk stay for a match across two */
	while ((n = fread(buf + keep, 1, sizeof(buf) - keep, f)) > 0) {
		n += keep;
		if (memmem(buf, n, opt, sizeof(opt) - 1)) {
			known = 1;
			break;
		}
		keep = sizeof(opt) - 2;
		memmove(buf, buf + n - keep, keep);
	}
	fclose(f);
	return known;
}

/*
 * trace_cmd_argv - "trace-cmd record" for the session: where to write,
 * the instance, the default events, the user's trace-cmd options in
 * their order, then "cgtrace __exec" as the command it runs:
 *   __exec STATUS_FD CONTROL_FD CGROUP_DIR|- CWD USER|- -- [COMMAND...]
 */
char **trace_cmd_argv(struct recorder *r, const char *self, int status_fd,
		      int control_fd)
{
	struct rec_session *s = r->s;
	struct str_list a = { 0 };
	char num[16];
	int i;

	str_list_add(&a, trace_cmd_path());
	str_list_add(&a, "record");
	if (!getenv("CGTRACE_DEBUG"))
		str_list_add(&a, "-q");
	if (s->net) {
		str_list_add(&a, "-N");
		str_list_add(&a, s->net);
	} else {
		str_list_add(&a, "-o");
		str_list_add(&a, r->tmp_output);
		str_list_add(&a, "--temp");
		str_list_add(&a, r->workdir);
	}
	/*
	 * A trace-cmd that filters cgroups is newer than the libtracecmd
	 * cgtrace reads the trace with: ask for the file version both know.
	 */
	if (r->tc_cgroups) {
		str_list_add(&a, "--file-version");
		str_list_add(&a, "6");
	}
	/* the options after it apply to the instance, as in trace-cmd */
	if (!tfs_is_top(r->inst)) {
		str_list_add(&a, "-B");
		str_list_add(&a, tracefs_instance_get_name(r->inst));
	}
	if (r->tc_cgroups) {
		for (i = 0; i < r->cg_words.n; i++) {
			str_list_add(&a, "--cgroup");
			str_list_add(&a, r->cg_words.v[i]);
		}
		for (i = 0; i < r->nt_words.n; i++) {
			str_list_add(&a, "--notrace-cgroup");
			str_list_add(&a, r->nt_words.v[i]);
		}
	}
	if (!s->events_given && !s->tracer) {
		for (i = 0; default_events[i]; i++) {
			str_list_add(&a, "-e");
			str_list_add(&a, default_events[i]);
		}
		if (tfs_has_user_markers(r->inst)) {
			str_list_add(&a, "-e");
			str_list_add(&a, "user_markers");
		}
	}
	for (i = 0; i < s->tc_args.n; i++)
		str_list_add(&a, s->tc_args.v[i]);
	str_list_add(&a, "--");
	str_list_add(&a, self);
	str_list_add(&a, "__exec");
	snprintf(num, sizeof(num), "%d", status_fd);
	str_list_add(&a, num);
	snprintf(num, sizeof(num), "%d", control_fd);
	str_list_add(&a, num);
	str_list_add(&a, s->enter_cgroup ? s->enter_cgroup : "-");
	str_list_add(&a, r->cwd);
	str_list_add(&a, s->user ? s->user : "-");
	str_list_add(&a, "--");
	for (i = 0; s->cmd && s->cmd[i]; i++)
		str_list_add(&a, s->cmd[i]);
	return a.v;
}

/*
 * trace_cmd_start - fork and exec trace-cmd in the work directory, with
 * SIGINT and SIGQUIT blocked. One that cannot be executed is told apart
 * from one that fails through a close-on-exec pipe.
 */
pid_t trace_cmd_start(struct recorder *r, char **argv)
{
	int errpipe[2], err = 0, i;
	sigset_t block;
	pid_t pid;

	if (getenv("CGTRACE_DEBUG")) {
		fprintf(stderr, "cgtrace: debug: in %s: running", r->workdir);
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
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
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGQUIT);
		sigprocmask(SIG_BLOCK, &block, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* -o -: standard output is the trace's, not trace-cmd's or COMMAND's */
		if (!r->s->net && r->s->out.kind == OUT_STDOUT &&
		    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			err = errno;
		else if (chdir(r->workdir))
			err = errno;
		else
			execvp(argv[0], argv);
		if (!err)
			err = errno;
		if (write(errpipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errpipe[1]);
	if (read(errpipe[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(errpipe[0]);
	if (!err)
		return pid;
	waitpid(pid, NULL, 0);
	if (err == ENOENT && !getenv("CGTRACE_TRACE_CMD"))
		err_msg("trace-cmd is not installed or not in PATH: install it (apt install trace-cmd), or name it with CGTRACE_TRACE_CMD=PATH");
	else
		err_msg("cannot run %s in %s: %s", argv[0], r->workdir,
			strerror(err));
	return -1;
}
