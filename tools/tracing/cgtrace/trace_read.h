/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_read.h - read user_markers and sched_switch events from a trace.dat
 *
 * Shared by "cgtrace report" and "cgtrace export": opens the file with
 * libtracecmd, reads every buffer in it (the top level and the instances
 * "trace-cmd record -B" wrote) merged in time order, or only one, decodes
 * the user_markers events (see Documentation/trace/user-markers.rst) and
 * sched_switch into one flat struct, keeps pid -> comm/tgid, and rebuilds
 * each thread's spans.
 */
#ifndef CGTRACE_TRACE_READ_H
#define CGTRACE_TRACE_READ_H

#include <stdbool.h>
#include <stdio.h>

#define TR_NAME_MAX	128	/* kernel names are 1..127 bytes */
#define TR_COMM_MAX	32
#define TR_MAX_DEPTH	64	/* kernel nests 32; keep slack */

/* user_markers end flags */
#define TR_END_UNMATCHED	1
#define TR_END_EXITED		2

enum tr_kind {
	TR_BEGIN,
	TR_END,
	TR_COUNTER,
	TR_ASYNC_BEGIN,
	TR_ASYNC_END,
	TR_INSTANT,
	TR_LOST,
	TR_SWITCH,
	TR_NR_KINDS,
};

/* One decoded event; strings are valid during the callback only */
struct tr_event {
	enum tr_kind		kind;
	unsigned long long	ts;	/* ns, trace clock or wall (--wall) */
	int			cpu;
	int			pid;	/* writer thread (common_pid) */
	int			tgid;
	const char		*name;
	long long		depth;
	unsigned long long	flags;
	unsigned long long	duration_ns;
	unsigned long long	cpu_ns;
	long long		value;	/* counter value, async cookie, lost count */

	/* sched_switch only */
	int			prev_pid;
	int			next_pid;
	long long		prev_state;
	const char		*prev_comm;
	const char		*next_comm;

	/* end only: filled by the span tracker */
	unsigned long long	start_ts;	/* begin's time (or end - duration) */
	bool			begin_seen;	/* start_ts came from a begin event */
};

struct tr_thread {
	struct tr_thread	*next;		/* hash chain */
	int			pid;
	int			tgid;		/* 0 while unknown */
	char			comm[TR_COMM_MAX];
	bool			comm_set;
	/* open spans: begin times by depth */
	int			nr_open;
	unsigned long long	open_ts[TR_MAX_DEPTH];
	long long		open_depth[TR_MAX_DEPTH];
	char			*open_name[TR_MAX_DEPTH];
	/* sched_switch: when it was switched in, and on which CPU */
	unsigned long long	run_since;
	int			run_cpu;
	bool			running;
};

#define TR_HASH_BITS	10
#define TR_HASH_SIZE	(1 << TR_HASH_BITS)

struct tracecmd_input;
struct tep_handle;
struct tep_event;

/* the name --buffer takes for the top-level buffer (as "record -B top") */
#define TR_TOP_BUFFER	"top"

struct trace_file {
	const char		*path;
	struct tracecmd_input	*handle;	/* the file, top-level buffer */
	/* the buffers read: the top level and/or instances, merged by time */
	struct tracecmd_input	**bufs;
	const char		**buf_names;
	int			nr_bufs;
	struct tep_handle	*tep;
	struct tep_event	*ev[TR_NR_KINDS];
	int			nr_marker_events;	/* user_markers formats found */
	bool			wall;		/* report wall-clock times */
	long long		wall_offset;	/* ns added to every ts */
	const char		*wall_source;	/* how the offset was found */
	bool			ts_is_wall;	/* trace-cmd --date applied already */
	unsigned long long	first_ts;
	unsigned long long	last_ts;
	unsigned long long	nr_events;	/* events decoded */
	unsigned long long	nr_marker_seen;	/* user_markers events decoded */
	unsigned long long	missed;		/* ring buffer events lost */
	int			nr_threads;
	struct tr_thread	*threads[TR_HASH_SIZE];
};

typedef int (*tr_callback)(struct trace_file *tf, const struct tr_event *ev,
			   void *data);

int tr_open(struct trace_file *tf, const char *path, bool wall,
	    const char *buffer);

/* What to read, from the options report and export share: -i, -B, -w */
struct tr_input {
	const char	*path;		/* -i FILE, default trace.dat */
	const char	*buffer;	/* -B NAME, NULL: every buffer */
	bool		wall;		/* -w */
};

#define TR_INPUT_SHORTOPTS	"i:B:w"
#define TR_INPUT_LONGOPTS					\
	{ "input", required_argument, NULL, 'i' },		\
	{ "buffer", required_argument, NULL, 'B' },		\
	{ "wall", no_argument, NULL, 'w' }

bool tr_input_option(struct tr_input *in, int opt, const char *arg);
int tr_read_markers(struct trace_file *tf, const struct tr_input *in,
		    tr_callback cb, void *data);
int tr_iterate(struct trace_file *tf, tr_callback cb, void *data);
void tr_close(struct trace_file *tf);
void tr_print_buffers(struct trace_file *tf, FILE *f);

struct tr_thread *tr_thread_get(struct trace_file *tf, int pid);
struct tr_thread *tr_thread_find(struct trace_file *tf, int pid);
const char *tr_comm(struct trace_file *tf, int pid);
int tr_tgid(struct trace_file *tf, int pid);

const char *tr_kind_name(enum tr_kind kind);
void tr_format_time(struct trace_file *tf, unsigned long long ts,
		    char *buf, size_t size);
void tr_format_dur(unsigned long long ns, char *buf, size_t size);

/* the optional sidecar files written by "cgtrace record" next to FILE */
char *tr_sidecar_path(const char *path, const char *suffix);

#endif /* CGTRACE_TRACE_READ_H */
