/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorder.h - the state of one recording while it runs, shared by the
 * files that carry out its parts: session.c (the order of things),
 * instance_files.c (filters set and restored), notes_writer.c (the notes
 * in the trace), trace_cmd.c (running trace-cmd), trace_check.c (reading
 * the written trace back) and buffer_stats.c (the counts)
 */
#ifndef CGTRACE_RECORDER_H
#define CGTRACE_RECORDER_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <tracefs.h>

#include "buffer_stats.h"
#include "cgroup.h"
#include "session.h"

#define MAX_CHANGES	16

/*
 * A file cgtrace wrote on an instance it did not make, and its old text;
 * or an option it turned on (option is not TRACEFS_OPTION_INVALID)
 */
struct change {
	const char		*file;
	char			*old;
	enum tracefs_option_id	option;
};

struct recorder {
	struct rec_session	*s;
	struct tracefs_instance	*inst;		/* the recorded instance */
	bool			created;	/* made by us: removed at the end */
	char			host[65];	/* uname -n when the session began */

	/* where trace-cmd runs and writes (a directory of our own) */
	char			*workdir;
	char			*tmp_output;	/* workdir/trace.dat */
	bool			keep_trace;	/* it could not be put in place */
	char			*cwd;		/* the user's: COMMAND runs there */

	/* -G and -X resolved, and the words written to the kernel */
	struct cg_ref		*cgroups;
	struct cg_ref		*notrace;
	struct str_list		cg_words;
	struct str_list		nt_words;
	/* trace-cmd sets (and restores) the cgroup lists: record --cgroup */
	bool			tc_cgroups;

	/* those that are followed when re-created (cgroup_follow.c) */
	int			follow_fd;	/* inotify, or -1 */
	struct cg_follow	*follow;
	int			nr_follow;

	/* instance files changed, to restore */
	struct change		changes[MAX_CHANGES];
	int			nr_changes;

	/* the notes writer (notes_writer.c) */
	pid_t			writer;
	FILE			*to_writer;
	char			*writer_cg;	/* its cgroup, with a cgroup filter */
	unsigned char		*seen;		/* bitmap of pids noted */

	/* trace-cmd, and the "cgtrace __exec" it runs */
	pid_t			tc_pid;
	bool			started;	/* __exec runs: trace-cmd records */
	pid_t			helper;		/* that __exec */
	int			status_fd;	/* its messages (read end) */
	int			control_fd;	/* closed: __exec may exit */
	int			exec_errno;	/* COMMAND could not be executed */
	bool			cmd_ended;	/* COMMAND exited */
	bool			stopped;	/* tracing off, final counts read */
	unsigned long		ticks;

	struct buffer_stats	stats;
	unsigned long long	*in_file;	/* the trace's events, by CPU number */
	int			nr_in_file;
};

/* instance_files.c */
bool is_function_tracer(const char *tracer);
int set_filters(struct recorder *r);
void note_kept_filters(struct recorder *r);
int restore_changes(struct recorder *r);

/* cgroup_follow.c */
void follow_start(struct recorder *r);
void follow_check(struct recorder *r);
void follow_wait(struct recorder *r, int ms);
void follow_stop(struct recorder *r);

/* notes_writer.c */
void writer_cgroup(struct recorder *r);
void writer_start(struct recorder *r);
void writer_stop(struct recorder *r);
void notes_started(struct recorder *r);
void notes_tick(struct recorder *r);
void notes_task(struct recorder *r, int pid, const char *dir);

/* trace_cmd.c */
const char *trace_cmd_path(void);
bool trace_cmd_filters_cgroups(void);
char **trace_cmd_argv(struct recorder *r, const char *self, int status_fd,
		      int control_fd);
pid_t trace_cmd_start(struct recorder *r, char **argv);

/* trace_check.c */
int check_trace(struct recorder *r);

#endif
