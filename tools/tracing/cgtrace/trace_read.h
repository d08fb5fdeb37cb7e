/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_read.h - read user_markers and sched_switch events from trace.dat
 * files
 *
 * Shared by "cgtrace report" and "cgtrace export": opens one file, or
 * several (one per host), with libtracecmd, reads every buffer in them
 * (the top level and the instances "trace-cmd record -B" wrote) merged in
 * time order, or only one, decodes the user_markers events (see
 * Documentation/trace/user-markers.rst) and sched_switch into one flat
 * struct, keeps pid -> comm/tgid per host, and rebuilds each thread's
 * spans. What "cgtrace record" notes in the trace besides the events (host
 * name, clock samples, the cgroup of each traced pid) is read from its
 * "cgtrace-meta" lines.
 */
#ifndef CGTRACE_TRACE_READ_H
#define CGTRACE_TRACE_READ_H

#include <stdbool.h>
#include <stdio.h>

#define TR_NAME_MAX	128	/* kernel names are 1..127 bytes */
#define TR_COMM_MAX	32
#define TR_MAX_DEPTH	64	/* kernel nests 32; keep slack */
#define TR_MAX_INPUTS	32	/* -i FILE given this many times at most */

/* user_markers end flags */
#define TR_END_UNMATCHED	1	/* no open span: no times */
#define TR_END_EXITED		2	/* ended by the kernel at the exit */
#define TR_END_UNTRACKED	4	/* deeper than the kernel tracks: no times */

/*
 * The notes "cgtrace record" writes into the recorded buffer: trace_marker
 * writes (ftrace print events) of lines "cgtrace-meta KEY VALUE...":
 *   host NAME                          the recording host (uname -n)
 *   writer PID                         the process that writes these lines
 *   clock REALTIME_NS                  CLOCK_REALTIME read just before the
 *                                      write: a (trace clock, wall) pair
 *   adjtimex SYNC MAXERROR_US ESTERROR_US  the host clock's state (NTP)
 *   ready                              the notes of the start are written
 *   cgroup PID PATH                    a traced task and its cgroup
 * The first ones are written as soon as trace-cmd records, several clock
 * samples at once; then a clock sample every second and the cgroup of
 * each task when it is first seen.
 */
#define TR_META_BUFFER		"cgtrace-meta"
#define TR_META_TAG		"cgtrace-meta "

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
	char			name_buf[TR_NAME_MAX];
	char			prev_comm_buf[TR_COMM_MAX];
	char			next_comm_buf[TR_COMM_MAX];
	int			src;	/* index of the input file (host) */
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

	/* filled by the span tracker (an untracked end gets its begin's name) */
	unsigned long long	start_ts;	/* end: begin's time (or end - duration) */
	bool			begin_seen;	/* end: start_ts came from a begin */
	bool			tracked;	/* begin: pushed on the thread's stack */
	int			unended;	/* begin/end: deeper spans it closed
						   whose own end was not recorded */
};

struct tr_thread {
	struct tr_thread	*next;		/* hash chain */
	int			src;
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
struct tep_record;
struct tr_pid_cgroup;

/* the name --buffer takes for the top-level buffer (as "record -B top") */
#define TR_TOP_BUFFER	"top"

/* One input file: one host's recording. */
struct tr_source {
	int			index;
	const char		*path;
	char			*host;		/* from the notes, or the file name */
	struct tracecmd_input	*handle;	/* the file, top-level buffer */
	struct tep_handle	*tep;
	struct tep_event	*ev[TR_NR_KINDS];
	int			nr_marker_events;	/* user_markers formats found */
	bool			has_meta;	/* "cgtrace-meta" lines seen */
	struct tep_event	*print;		/* ftrace print: the notes */
	/* wall clock */
	bool			ts_is_wall;	/* trace-cmd --date applied already */
	long long		wall_offset;	/* ns added to every ts */
	bool			wall_offset_set;
	const char		*wall_source;	/* how the offset was found */
	int			nr_clock_pairs;
	long long		*pair_offsets;	/* realtime - trace ts, sorted */
	unsigned long long	offset_spread;	/* how far the wall clock strayed */
	bool			notes_ready;	/* the notes of the start are read */
#define TR_DRIFT_WINDOW	5
	long long		drift_win[TR_DRIFT_WINDOW];
	int			nr_drift;	/* clock samples of the main pass */
	/* the host clock's state at record time (adjtimex) */
	bool			sync_known;
	bool			synced;
	int			nr_adjtimex;
	int			writer;		/* pid of the notes' writer */
	long long		maxerror_us, esterror_us;
	/* pid -> cgroup, from the notes or FILE.cgroups */
	struct tr_pid_cgroup	**cgroups;
	bool			have_cgroups;
	const char		*cgroups_source;
};

/* One buffer read, of one source. */
struct tr_buf {
	struct tracecmd_input	*h;
	const char		*name;
	struct tr_source	*src;
};

struct trace_file;

/* libtracecmd calls one per kind of event (tracecmd_follow_event()) */
struct tr_follower {
	struct trace_file	*tf;
	enum tr_kind		kind;
};

typedef int (*tr_callback)(struct trace_file *tf, const struct tr_event *ev,
			   void *data);

struct trace_file {
	struct tr_source	src[TR_MAX_INPUTS];
	int			nr_src;
	/* the buffers read: top levels and/or instances, merged by time */
	struct tr_buf		*bufs;
	struct tracecmd_input	**handles;	/* bufs[i].h, for libtracecmd */
	int			nr_bufs;
	bool			wall;		/* report wall-clock times */
	unsigned long long	first_ts;
	unsigned long long	last_ts;
	unsigned long long	nr_events;	/* events decoded */
	unsigned long long	nr_marker_seen;	/* user_markers events decoded */
	unsigned long long	missed;		/* ring buffer events lost */
	unsigned long long	missed_unknown;	/* losses of unknown count */
	int			nr_threads;
	struct tr_thread	*threads[TR_HASH_SIZE];
	/* while iterating */
	struct tr_follower	follow[TR_NR_KINDS];
	tr_callback		cb;
	void			*cb_data;
	int			cb_ret;
};

/* What to read, from the options report and export share: -i, -B, --wall */
struct tr_input {
	const char	*paths[TR_MAX_INPUTS];	/* -i FILE..., default trace.dat */
	int		nr_paths;
	const char	*buffer;	/* -B NAME, NULL: every buffer */
	bool		wall;		/* --wall */
	bool		need_cgroups;	/* fail without a pid -> cgroup map */
	bool		want_cgroups;	/* read the map if the trace has one */
};

#define TR_OPT_WALL		1000
#define TR_INPUT_SHORTOPTS	"i:B:"
#define TR_INPUT_LONGOPTS					\
	{ "input", required_argument, NULL, 'i' },		\
	{ "buffer", required_argument, NULL, 'B' },		\
	{ "wall", no_argument, NULL, TR_OPT_WALL }

int tr_input_option(struct tr_input *in, int opt, const char *arg);
int tr_open(struct trace_file *tf, const struct tr_input *in);
int tr_read_markers(struct trace_file *tf, const struct tr_input *in,
		    tr_callback cb, void *data);
int tr_iterate(struct trace_file *tf, tr_callback cb, void *data);
void tr_close(struct trace_file *tf);
void tr_print_buffers(struct trace_file *tf, FILE *f);
void tr_print_clocks(struct trace_file *tf, FILE *f);

struct tr_thread *tr_thread_get(struct trace_file *tf, int src, int pid);
struct tr_thread *tr_thread_find(struct trace_file *tf, int src, int pid);
const char *tr_comm(struct trace_file *tf, int src, int pid);
int tr_tgid(struct trace_file *tf, int src, int pid);
const char *tr_cgroup_of(struct trace_file *tf, int src, int pid);
int tr_need_cgroups(struct trace_file *tf);

const char *tr_kind_name(enum tr_kind kind);
void tr_format_time(struct trace_file *tf, unsigned long long ts,
		    char *buf, size_t size);
void tr_format_dur(unsigned long long ns, char *buf, size_t size);

/* the optional sidecar files next to FILE (older recordings) */
char *tr_sidecar_path(const char *path, const char *suffix);

/* Between the reader's own files (trace_*.c) */
void tr_set_comm(struct tr_thread *t, const char *comm);
void tr_track_begin(struct tr_thread *t, struct tr_event *ev);
void tr_track_end(struct tr_thread *t, struct tr_event *ev);
void tr_threads_free(struct trace_file *tf);
int tr_note_line(struct tr_source *s, struct tep_record *record, bool pairs);
void tr_read_notes(struct tr_source *s, bool all);
void tr_read_cgroups_sidecar(struct tr_source *s);
void tr_cgroups_free(struct tr_source *s);
void tr_clock_pair(struct tr_source *s, unsigned long long ts,
		   unsigned long long real);
void tr_clock_later(struct tr_source *s, long long dev);
void tr_clock_drift_end(struct tr_source *s);
int tr_clock_setup_wall(struct tr_source *s);

#endif /* CGTRACE_TRACE_READ_H */
