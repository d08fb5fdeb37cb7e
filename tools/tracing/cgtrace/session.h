/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - one recording of "cgtrace record" or "cgtrace run": what
 * the command line asked for, and the parts that carry it out
 */
#ifndef CGTRACE_SESSION_H
#define CGTRACE_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgtrace.h"
#include "output.h"

/* What one recording is asked to do; filled by record_cli.c and run.c. */
struct rec_session {
	const char	*instance;	/* the first -B; NULL: a new cgtrace-PID */
	const char	*output;	/* -o, the trace.dat to write */
	struct out_target out;		/* what -o names (out_check()) */
	bool		out_checked;	/* and it was checked */
	const char	*net;		/* -N HOST:PORT: send to trace-cmd listen */
	const char	*tracer;	/* the last -p, or NULL */
	bool		events_given;	/* -e, -a, -H or --profile: no defaults */
	bool		children;	/* -c: event-fork (and function-fork) */
	const char	*user;		/* --user: COMMAND runs as this user */
	struct str_list	cgroups;	/* -G: set_event_cgroup (+ ftrace) */
	struct str_list	notrace;	/* -X: set_event_notrace_cgroup (+ ftrace) */
	struct str_list	pids;		/* -P: set_event_pid (+ ftrace) */
	struct str_list	tc_args;	/* trace-cmd record options, in order */
	char		**cmd;		/* COMMAND, or NULL */
	const char	*enter_cgroup;	/* run: the cgroup COMMAND starts in */
	int		progress;	/* seconds between status lines, 0: none,
					   -1: 5 on a terminal, else 30 */
	bool		quiet;
	/* the outcome */
	int		cmd_status;	/* COMMAND's exit status, -1 if unknown */
};

/*
 * record_session - carry out a recording; 0 when the trace was written
 * (or sent) and read back, -1 (with a message) when it was not
 */
int record_session(struct rec_session *s);

/* session_status - the exit status of record or run after a session */
int session_status(const struct rec_session *s, int ret);

/*
 * rec_parse - the options of record (@run false) or run into @s; returns
 * the index of COMMAND in argv (argc if none), -1 for a usage error (after
 * a message), -2 for --help; run's --name and --parent in @name, @parent
 */
int rec_check_output(struct rec_session *s);

int rec_parse(struct rec_session *s, int argc, char **argv, bool run,
	      const char **name, const char **parent);

/* rec_usage_common - the options record and run share, and trace-cmd's */
void rec_usage_common(FILE *f, bool run);

/*
 * The messages "cgtrace __exec" sends back on its status pipe: that
 * trace-cmd started it (value: its pid), that COMMAND entered its cgroup
 * (value: its pid), or could not be executed (value: errno), then
 * COMMAND's exit status. It waits for
 * the end of its control pipe before it exits, so that cgtrace stops
 * tracing and reads the buffer's counts while trace-cmd still records.
 */
struct exec_msg {
	int	kind;
	int	value;
};

#define EXEC_STARTED	1
#define EXEC_ENTERED	2	/* COMMAND's pid, in its cgroup (run) */
#define EXEC_FAILED	3
#define EXEC_STATUS	4

#endif
