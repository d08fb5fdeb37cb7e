/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgtrace.h - subcommands and helpers shared by the cgtrace tool
 */
#ifndef CGTRACE_H
#define CGTRACE_H

#include <stdbool.h>

#define CGTRACE_VERSION	"0.1"

/* subcommands: int cmd_NAME(int argc, char **argv), argv[0] is NAME */
int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_exec_helper(int argc, char **argv);

/* err_msg - print a message prefixed with "cgtrace: " on stderr */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* debug_msg - the same, only with CGTRACE_DEBUG set in the environment */
void debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable list of strings (options given several times). */
struct str_list {
	char	**v;
	int	n;
};

void str_list_add(struct str_list *l, const char *s);

/* What one tracing session records; filled by record and run. */
struct rec_session {
	const char	*instance;	/* NULL: a fresh "cgtrace-PID" */
	const char	*output;	/* trace.dat path */
	const char	*tracer;	/* -p, or NULL */
	struct str_list	cgroups;	/* set_event_cgroup (+ ftrace) */
	struct str_list	notrace;	/* set_event_notrace_cgroup (+ ftrace) */
	struct str_list	pids;		/* set_event_pid (+ ftrace) */
	struct str_list	events;		/* -e */
	struct str_list	passthrough;	/* extra trace-cmd record arguments */
	char		**cmd;		/* command trace-cmd runs, or NULL */
	bool		quiet;
};

int record_session(struct rec_session *s);
int split_passthrough(int *argc, char **argv, struct str_list *pass);

#endif
