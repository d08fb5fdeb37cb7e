// SPDX-License-Identifier: GPL-2.0
/*
 * trace_read.c - decode user_markers and sched_switch events of a trace.dat
 *
 * The events are those of Documentation/trace/user-markers.rst. Fields are
 * looked up by name in each event's format, so the reader does not depend on
 * their exact types (a name may be a __data_loc string or a char array).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "trace_read.h"

/* a timestamp this large is already wall-clock ns (after 2001-09-09) */
#define TR_WALL_MIN_NS	1000000000000000000ULL

static const struct {
	const char *system;
	const char *name;
} tr_event_names[TR_NR_KINDS] = {
	[TR_BEGIN]		= { "user_markers", "begin" },
	[TR_END]		= { "user_markers", "end" },
	[TR_COUNTER]		= { "user_markers", "counter" },
	[TR_ASYNC_BEGIN]	= { "user_markers", "async_begin" },
	[TR_ASYNC_END]		= { "user_markers", "async_end" },
	[TR_INSTANT]		= { "user_markers", "instant" },
	[TR_LOST]		= { "user_markers", "lost" },
	[TR_SWITCH]		= { "sched", "sched_switch" },
};

/* tr_kind_name - the event name of a kind */
const char *tr_kind_name(enum tr_kind kind)
{
	if (kind >= TR_NR_KINDS)
		return "?";
	return tr_event_names[kind].name;
}

/* tr_sidecar_path - FILE + suffix, for the files record writes beside it */
char *tr_sidecar_path(const char *path, const char *suffix)
{
	char *p;

	if (asprintf(&p, "%s%s", path, suffix) < 0)
		return NULL;
	return p;
}

static unsigned int tr_hash(int pid)
{
	return ((unsigned int)pid * 2654435761u) >> (32 - TR_HASH_BITS);
}

/* tr_thread_find - the thread state of pid, or NULL */
struct tr_thread *tr_thread_find(struct trace_file *tf, int pid)
{
	struct tr_thread *t;

	for (t = tf->threads[tr_hash(pid)]; t; t = t->next)
		if (t->pid == pid)
			return t;
	return NULL;
}

/* tr_thread_get - the thread state of pid, created on first use */
struct tr_thread *tr_thread_get(struct trace_file *tf, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, pid);
	unsigned int h;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "cgtrace: out of memory\n");
		exit(1);
	}
	t->pid = pid;
	h = tr_hash(pid);
	t->next = tf->threads[h];
	tf->threads[h] = t;
	tf->nr_threads++;
	return t;
}

/* tr_comm - best known command name of pid */
const char *tr_comm(struct trace_file *tf, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, pid);
	const char *comm;

	if (t && t->comm_set)
		return t->comm;
	if (pid == 0)
		return "<idle>";
	comm = tep_data_comm_from_pid(tf->tep, pid);
	return comm ? comm : "<...>";
}

/* tr_tgid - thread group of pid as seen in marker events (pid if unknown) */
int tr_tgid(struct trace_file *tf, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, pid);

	return t && t->tgid ? t->tgid : pid;
}

static void tr_set_comm(struct tr_thread *t, const char *comm)
{
	if (!comm || !*comm)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->comm_set = true;
}

/* is_trace_dat - check the magic trace-cmd writes at the start of a file */
static bool is_trace_dat(const char *path)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	char buf[sizeof(magic)];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)sizeof(buf) && !memcmp(buf, magic, sizeof(buf));
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * read_clock_sidecar - offset from FILE.clock: lines "TRACE_NS REALTIME_NS"
 * sampled at record time. With several pairs the median offset is used, so
 * one pair taken across a preemption does not skew the result.
 */
static int read_clock_sidecar(const char *path, long long *offset,
			      unsigned long long *first_trace)
{
	char *file = tr_sidecar_path(path, ".clock");
	unsigned long long t, r;
	long long *offs = NULL;
	size_t nr = 0, alloc = 0;
	char line[256];
	FILE *f;

	if (!file)
		return -1;
	f = fopen(file, "r");
	free(file);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%llu %llu", &t, &r) != 2)
			continue;
		if (nr == alloc) {
			long long *n;

			alloc = alloc ? alloc * 2 : 16;
			n = realloc(offs, alloc * sizeof(*offs));
			if (!n)
				break;
			offs = n;
		}
		if (!nr)
			*first_trace = t;
		offs[nr++] = (long long)(r - t);
	}
	fclose(f);
	if (!nr) {
		free(offs);
		return -1;
	}
	qsort(offs, nr, sizeof(*offs), cmp_ll);
	*offset = offs[nr / 2];
	free(offs);
	return 0;
}

/* setup_wall - decide how trace timestamps become gettimeofday() time */
static int setup_wall(struct trace_file *tf)
{
	unsigned long long sidecar_ts = 0;
	long long off;
	int have_sidecar;

	have_sidecar = !read_clock_sidecar(tf->path, &off, &sidecar_ts);

	/* trace-cmd record --date: libtracecmd already added its offset */
	if (tf->ts_is_wall && (!have_sidecar || sidecar_ts >= TR_WALL_MIN_NS)) {
		tf->wall_offset = 0;
		tf->wall_source = "trace-cmd record --date";
		if (!have_sidecar)
			return 0;
	}
	if (have_sidecar && !tf->ts_is_wall) {
		tf->wall_offset = off;
		tf->wall_source = "clock sidecar";
		return 0;
	}
	if (tf->ts_is_wall)
		return 0;
	fprintf(stderr,
		"cgtrace: %s: no wall-clock reference: record with \"trace-cmd record --date\",\n"
		"         or provide %s.clock with lines \"TRACE_NS REALTIME_NS\"\n",
		tf->path, tf->path);
	return -1;
}

/* add_buf - append a buffer handle to the ones tr_iterate reads */
static void add_buf(struct trace_file *tf, struct tracecmd_input *h,
		    const char *name)
{
	tf->bufs[tf->nr_bufs] = h;
	tf->buf_names[tf->nr_bufs] = name;
	tf->nr_bufs++;
}

/* print_buffer_names - all buffers of the file, comma separated */
static void print_buffer_names(struct trace_file *tf, FILE *f)
{
	int i, nr = tracecmd_buffer_instances(tf->handle);

	fprintf(f, "%s", TR_TOP_BUFFER);
	for (i = 0; i < nr; i++)
		fprintf(f, ", %s", tracecmd_buffer_instance_name(tf->handle, i));
}

/*
 * open_buffers - the top-level buffer and every instance of the file, or
 * only the one named buffer (TR_TOP_BUFFER: the top level). Without a name,
 * buffers without any event are left out, unless all of them are empty.
 */
static int open_buffers(struct trace_file *tf, const char *buffer)
{
	int i, nr = tracecmd_buffer_instances(tf->handle);
	struct tracecmd_input *h;
	const char *name;
	bool top_empty;

	tf->bufs = calloc(nr + 1, sizeof(*tf->bufs));
	tf->buf_names = calloc(nr + 1, sizeof(*tf->buf_names));
	if (!tf->bufs || !tf->buf_names) {
		fprintf(stderr, "cgtrace: out of memory\n");
		return -1;
	}
	/* the top-level handle stays tf->handle; tr_close closes it last */
	top_empty = !tracecmd_get_first_ts(tf->handle);
	if (buffer ? !strcmp(buffer, TR_TOP_BUFFER) : !top_empty)
		add_buf(tf, tf->handle, TR_TOP_BUFFER);
	for (i = 0; i < nr && !(buffer && tf->nr_bufs); i++) {
		name = tracecmd_buffer_instance_name(tf->handle, i);
		if (!name || (buffer && strcmp(name, buffer)))
			continue;
		h = tracecmd_buffer_instance_handle(tf->handle, i);
		if (!h) {
			fprintf(stderr, "cgtrace: %s: cannot read buffer %s\n",
				tf->path, name);
			return -1;
		}
		if (!buffer && !tracecmd_get_first_ts(h)) {
			tracecmd_close(h);
			continue;
		}
		add_buf(tf, h, name);
	}
	if (buffer && !tf->nr_bufs) {
		fprintf(stderr, "cgtrace: %s: no buffer \"%s\" in this trace; it has: ",
			tf->path, buffer);
		print_buffer_names(tf, stderr);
		fprintf(stderr, "\n");
		return -1;
	}
	if (!tf->nr_bufs)	/* nothing recorded at all */
		add_buf(tf, tf->handle, TR_TOP_BUFFER);
	return 0;
}

/* tr_print_buffers - the names of the buffers read, comma separated */
void tr_print_buffers(struct trace_file *tf, FILE *f)
{
	int i;

	for (i = 0; i < tf->nr_bufs; i++)
		fprintf(f, "%s%s", i ? ", " : "", tf->buf_names[i]);
}

/* tr_input_option - take option @opt if it is one of TR_INPUT_SHORTOPTS */
bool tr_input_option(struct tr_input *in, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		in->path = arg;
		return true;
	case 'B':
		in->buffer = arg;
		return true;
	case 'w':
		in->wall = true;
		return true;
	default:
		return false;
	}
}

/*
 * tr_read_markers - open @in, pass every event to @cb, and fail with a
 * message when the trace has no user_markers event to read. On success
 * the caller closes @tf; on failure it is closed.
 */
int tr_read_markers(struct trace_file *tf, const struct tr_input *in,
		    tr_callback cb, void *data)
{
	if (tr_open(tf, in->path, in->wall, in->buffer) < 0)
		return -1;
	if (!tf->nr_marker_events) {
		fprintf(stderr, "cgtrace: %s: no user_markers events in this trace: record with \"-e user_markers\"\n"
			"         on a kernel with CONFIG_TRACE_USER_MARKERS\n", in->path);
		goto fail;
	}
	if (tr_iterate(tf, cb, data) < 0)
		goto fail;
	if (!tf->nr_marker_seen) {
		fprintf(stderr, "cgtrace: %s: no user_markers events in this trace (the events were enabled,\n"
			"         but nothing wrote a marker while it recorded)\n", in->path);
		goto fail;
	}
	return 0;
fail:
	tr_close(tf);
	return -1;
}

/* tr_open - open a trace.dat and find the events the tools decode */
int tr_open(struct trace_file *tf, const char *path, bool wall,
	    const char *buffer)
{
	unsigned long long ts;
	struct stat st;
	int i;

	memset(tf, 0, sizeof(*tf));
	tf->path = path;
	tf->wall = wall;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "cgtrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !is_trace_dat(path)) {
		fprintf(stderr, "cgtrace: %s: not a trace-cmd trace.dat file\n",
			path);
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	tf->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!tf->handle) {
		fprintf(stderr, "cgtrace: %s: cannot read this trace.dat (corrupt or unsupported version)\n",
			path);
		return -1;
	}
	if (open_buffers(tf, buffer) < 0) {
		tr_close(tf);
		return -1;
	}
	/* instance handles share the top level's event formats */
	tf->tep = tracecmd_get_tep(tf->handle);
	for (i = 0; i < TR_NR_KINDS; i++) {
		tf->ev[i] = tep_find_event_by_name(tf->tep,
						   tr_event_names[i].system,
						   tr_event_names[i].name);
		if (tf->ev[i] && i != TR_SWITCH)
			tf->nr_marker_events++;
	}
	tf->first_ts = 0;
	for (i = 0; i < tf->nr_bufs; i++) {
		ts = tracecmd_get_first_ts(tf->bufs[i]);
		if (ts && (!tf->first_ts || ts < tf->first_ts))
			tf->first_ts = ts;
	}
	tf->ts_is_wall = tf->first_ts >= TR_WALL_MIN_NS;
	if (wall && setup_wall(tf) < 0) {
		tr_close(tf);
		return -1;
	}
	if (!wall)
		tf->wall_offset = 0;
	return 0;
}

/* tr_close - release the trace file and the thread table */
void tr_close(struct trace_file *tf)
{
	struct tr_thread *t, *n;
	int i, d;

	for (i = 0; i < TR_HASH_SIZE; i++) {
		for (t = tf->threads[i]; t; t = n) {
			n = t->next;
			for (d = 0; d < t->nr_open; d++)
				free(t->open_name[d]);
			free(t);
		}
		tf->threads[i] = NULL;
	}
	/* instances first: each holds a reference on the top-level handle */
	for (i = 0; i < tf->nr_bufs; i++)
		if (tf->bufs[i] != tf->handle)
			tracecmd_close(tf->bufs[i]);
	free(tf->bufs);
	free(tf->buf_names);
	tf->bufs = NULL;
	tf->buf_names = NULL;
	tf->nr_bufs = 0;
	if (tf->handle)
		tracecmd_close(tf->handle);
	tf->handle = NULL;
}

/* get_num - a numeric field, sign-extended when the format says signed */
static long long get_num(struct tep_event *event, struct tep_record *record,
			 const char *name)
{
	struct tep_format_field *field = tep_find_field(event, name);
	unsigned long long val;
	int bits;

	if (!field || tep_read_number_field(field, record->data, &val))
		return 0;
	bits = field->size * 8;
	if ((field->flags & TEP_FIELD_IS_SIGNED) && bits < 64 &&
	    (val & (1ULL << (bits - 1))))
		val |= ~0ULL << bits;
	return (long long)val;
}

/* get_str - a string field (__data_loc or char array) into buf */
static const char *get_str(struct tep_event *event, struct tep_record *record,
			   const char *name, char *buf, size_t size)
{
	const char *raw;
	size_t n;
	int len = 0;

	raw = tep_get_field_raw(NULL, event, name, record, &len, 0);
	if (!raw || len <= 0) {
		buf[0] = '\0';
		return buf;
	}
	n = strnlen(raw, len);
	if (n >= size)
		n = size - 1;
	memcpy(buf, raw, n);
	buf[n] = '\0';
	return buf;
}

/* track_begin - push an open span on the writer thread's stack */
static void track_begin(struct tr_thread *t, const struct tr_event *ev)
{
	/* a begin at depth d closes whatever we still believed open at >= d */
	while (t->nr_open && t->open_depth[t->nr_open - 1] >= ev->depth)
		free(t->open_name[--t->nr_open]);
	if (t->nr_open == TR_MAX_DEPTH)
		return;
	t->open_ts[t->nr_open] = ev->ts;
	t->open_depth[t->nr_open] = ev->depth;
	t->open_name[t->nr_open] = strdup(ev->name);
	t->nr_open++;
}

/* track_end - find the begin of an end, fill start_ts, pop the stack */
static void track_end(struct tr_thread *t, struct tr_event *ev)
{
	int i;

	ev->start_ts = ev->ts - (ev->duration_ns < ev->ts ? ev->duration_ns : ev->ts);
	ev->begin_seen = false;
	if (ev->flags & TR_END_UNMATCHED) {
		ev->start_ts = ev->ts;
		return;
	}
	for (i = t->nr_open - 1; i >= 0; i--) {
		if (t->open_depth[i] == ev->depth)
			break;
		if (t->open_depth[i] < ev->depth)
			return;	/* its begin was not recorded */
	}
	if (i < 0)
		return;
	ev->start_ts = t->open_ts[i];
	ev->begin_seen = true;
	while (t->nr_open > i)
		free(t->open_name[--t->nr_open]);
}

struct iter_ctx {
	struct trace_file	*tf;
	tr_callback		cb;
	void			*data;
	int			ret;
};

/* decode - one record into a tr_event; returns false for other events */
static bool decode(struct trace_file *tf, struct tep_record *record,
		   struct tr_event *ev, char *name, char *pcomm, char *ncomm)
{
	struct tep_event *e = NULL;
	int type, k;

	type = tep_data_type(tf->tep, record);
	for (k = 0; k < TR_NR_KINDS; k++) {
		if (tf->ev[k] && tf->ev[k]->id == type) {
			e = tf->ev[k];
			break;
		}
	}
	if (!e)
		return false;

	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->ts = record->ts + tf->wall_offset;
	ev->cpu = record->cpu;
	ev->pid = tep_data_pid(tf->tep, record);
	ev->name = "";

	if (k == TR_SWITCH) {
		ev->prev_pid = get_num(e, record, "prev_pid");
		ev->next_pid = get_num(e, record, "next_pid");
		ev->prev_state = get_num(e, record, "prev_state");
		ev->prev_comm = get_str(e, record, "prev_comm", pcomm, TR_COMM_MAX);
		ev->next_comm = get_str(e, record, "next_comm", ncomm, TR_COMM_MAX);
		return true;
	}

	ev->tgid = get_num(e, record, "tgid");
	if (k != TR_LOST)
		ev->name = get_str(e, record, "name", name, TR_NAME_MAX);
	switch (k) {
	case TR_BEGIN:
		ev->depth = get_num(e, record, "depth");
		break;
	case TR_END:
		ev->depth = get_num(e, record, "depth");
		ev->flags = get_num(e, record, "flags");
		ev->duration_ns = get_num(e, record, "duration_ns");
		ev->cpu_ns = get_num(e, record, "cpu_ns");
		break;
	case TR_COUNTER:
		ev->value = get_num(e, record, "value");
		break;
	case TR_ASYNC_BEGIN:
	case TR_ASYNC_END:
		ev->value = get_num(e, record, "cookie");
		break;
	case TR_LOST:
		ev->value = get_num(e, record, "count");
		break;
	default:
		break;
	}
	return true;
}

/* iter_record - libtracecmd callback: decode, track, pass on */
static int iter_record(struct tracecmd_input *handle, struct tep_record *record,
		       int cpu, void *data)
{
	char name[TR_NAME_MAX], pcomm[TR_COMM_MAX], ncomm[TR_COMM_MAX];
	struct iter_ctx *ctx = data;
	struct trace_file *tf = ctx->tf;
	struct tr_thread *t;
	struct tr_event ev;
	int ret;

	if (record->missed_events > 0)
		tf->missed += record->missed_events;
	if (!decode(tf, record, &ev, name, pcomm, ncomm))
		return 0;

	tf->nr_events++;
	if (tf->nr_events == 1 || ev.ts < tf->first_ts)
		tf->first_ts = ev.ts;
	if (ev.ts > tf->last_ts)
		tf->last_ts = ev.ts;

	if (ev.kind == TR_SWITCH) {
		tr_set_comm(tr_thread_get(tf, ev.prev_pid), ev.prev_comm);
		tr_set_comm(tr_thread_get(tf, ev.next_pid), ev.next_comm);
		/* callback first: it sees the run interval that ends here */
		ret = ctx->cb(tf, &ev, ctx->data);
		t = tr_thread_get(tf, ev.prev_pid);
		t->running = false;
		t = tr_thread_get(tf, ev.next_pid);
		t->running = true;
		t->run_since = ev.ts;
		t->run_cpu = ev.cpu;
	} else {
		tf->nr_marker_seen++;
		t = tr_thread_get(tf, ev.pid);
		if (ev.tgid)
			t->tgid = ev.tgid;
		else
			ev.tgid = tr_tgid(tf, ev.pid);
		if (!t->comm_set)
			tr_set_comm(t, tep_data_comm_from_pid(tf->tep, ev.pid));
		if (ev.kind == TR_BEGIN)
			track_begin(t, &ev);
		else if (ev.kind == TR_END)
			track_end(t, &ev);
		ret = ctx->cb(tf, &ev, ctx->data);
	}
	if (ret) {
		ctx->ret = ret;
		return -1;	/* libtracecmd stops on a negative value */
	}
	return 0;
}

/*
 * tr_iterate - call cb for every decoded event in time order, over all the
 * buffers tr_open chose (libtracecmd merges them by timestamp; the buffers
 * share one trace clock). A non-zero return of cb stops and is returned.
 */
int tr_iterate(struct trace_file *tf, tr_callback cb, void *data)
{
	struct iter_ctx ctx = { .tf = tf, .cb = cb, .data = data };
	int ret;

	tf->first_ts = 0;
	tf->last_ts = 0;
	ret = tracecmd_iterate_events_multi(tf->bufs, tf->nr_bufs, iter_record,
					    &ctx);
	if (ctx.ret)
		return ctx.ret;
	if (ret < 0) {
		fprintf(stderr, "cgtrace: %s: error reading events\n", tf->path);
		return -1;
	}
	return 0;
}

/* tr_format_time - a timestamp as seconds, or as a local date with --wall */
void tr_format_time(struct trace_file *tf, unsigned long long ts,
		    char *buf, size_t size)
{
	time_t sec = ts / 1000000000ULL;
	struct tm tm;
	char date[64];

	if (!tf->wall || !localtime_r(&sec, &tm)) {
		snprintf(buf, size, "%llu.%09llu", ts / 1000000000ULL,
			 ts % 1000000000ULL);
		return;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, size, "%s.%09llu", date, ts % 1000000000ULL);
}

/* tr_format_dur - a duration with a readable unit */
void tr_format_dur(unsigned long long ns, char *buf, size_t size)
{
	if (ns >= 10000000000ULL)
		snprintf(buf, size, "%.3fs", ns / 1e9);
	else if (ns >= 1000000ULL)
		snprintf(buf, size, "%.3fms", ns / 1e6);
	else if (ns >= 1000ULL)
		snprintf(buf, size, "%.3fus", ns / 1e3);
	else
		snprintf(buf, size, "%lluns", ns);
}
