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
void str_list_free(struct str_list *l);

/*
 * Exit status of every subcommand: 0 success, 1 error, 2 usage error
 * (bad option or argument). "run" exits with its command's status and
 * "record" with trace-cmd's once they are started.
 */
#define EXIT_USAGE	2

/* What one tracing session records; filled by record and run. */
struct rec_session {
	const char	*instance;	/* NULL: a fresh "cgtrace-PID" */
	const char	*output;	/* trace.dat path */
	const char	*net;		/* -N HOST:PORT: send to trace-cmd listen */
	const char	*tracer;	/* -p, or NULL */
	const char	*buffer_kb;	/* -b */
	const char	*clock;		/* -C */
	struct str_list	cgroups;	/* set_event_cgroup (+ ftrace), as given */
	struct str_list	notrace;	/* set_event_notrace_cgroup (+ ftrace) */
	struct str_list	pids;		/* set_event_pid (+ ftrace) */
	struct str_list	events;		/* -e */
	struct str_list	passthrough;	/* extra trace-cmd record arguments */
	char		**cmd;		/* command trace-cmd runs, or NULL */
	const char	*enter_cgroup;	/* run: the cgroup dir CMD starts in */
	int		progress;	/* seconds between status lines, 0: none,
					   -1: 5 on a terminal, else 30 */
	bool		quiet;
	int		cmd_status;	/* CMD's exit status, -1 if unknown */
};

/* the options record and run share (see rec_option) */
#define REC_SHORTOPTS	"e:o:B:N:b:C:q"
#define REC_OPT_PROGRESS	1000
#define REC_LONGOPTS						\
	{ "event",	required_argument, NULL, 'e' },		\
	{ "output",	required_argument, NULL, 'o' },		\
	{ "instance",	required_argument, NULL, 'B' },		\
	{ "net",	required_argument, NULL, 'N' },		\
	{ "buffer-size", required_argument, NULL, 'b' },	\
	{ "clock",	required_argument, NULL, 'C' },		\
	{ "quiet",	no_argument,	   NULL, 'q' },		\
	{ "progress",	required_argument, NULL, REC_OPT_PROGRESS }

int instance_arg(int argc, char **argv, const char **name);
int rec_option(struct rec_session *s, int opt, const char *arg);
int record_session(struct rec_session *s);
int split_passthrough(int *argc, char **argv, struct str_list *pass);

#endif
