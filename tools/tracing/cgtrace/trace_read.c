// SPDX-License-Identifier: GPL-2.0
/*
 * trace_read.c - open trace.dat files (one per host) and their buffers,
 * and decode their user_markers and sched_switch events, merged in time
 * order
 *
 * The events are those of Documentation/trace/user-markers.rst.
 * libtracecmd calls a follower per event (tracecmd_follow_event()), and
 * counts what the ring buffer lost (tracecmd_follow_missed_events()).
 * Fields are looked up by name in each file's event formats, so the
 * reader depends neither on their exact types (a name may be a __data_loc
 * string or a char array) nor on two hosts numbering their events alike.
 */
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

#include "cgtrace.h"
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

static void add_buf(struct trace_file *tf, struct tracecmd_input *h,
		    const char *name, struct tr_source *s)
{
	tf->bufs = xrealloc(tf->bufs, (tf->nr_bufs + 1) * sizeof(*tf->bufs));
	tf->handles = xrealloc(tf->handles,
			       (tf->nr_bufs + 1) * sizeof(*tf->handles));
	tf->bufs[tf->nr_bufs].h = h;
	tf->bufs[tf->nr_bufs].name = name;
	tf->bufs[tf->nr_bufs].src = s;
	tf->handles[tf->nr_bufs] = h;
	tf->nr_bufs++;
}

/* print_buffer_names - all buffers of a file, comma separated */
static void print_buffer_names(struct tr_source *s, FILE *f)
{
	int i, nr = tracecmd_buffer_instances(s->handle);
	const char *name;

	fprintf(f, "%s", TR_TOP_BUFFER);
	for (i = 0; i < nr; i++) {
		name = tracecmd_buffer_instance_name(s->handle, i);
		fprintf(f, ", %s", name);
	}
}

/*
 * open_buffers - the top-level buffer and every instance of a file, or
 * only the one named buffer (TR_TOP_BUFFER: the top level). Without a name,
 * buffers without any event are left out, unless all of them are empty.
 */
static int open_buffers(struct trace_file *tf, struct tr_source *s,
			const char *buffer)
{
	int i, nr = tracecmd_buffer_instances(s->handle), before = tf->nr_bufs;
	struct tracecmd_input *h;
	const char *name;
	bool top_empty;

	top_empty = !tracecmd_get_first_ts(s->handle);
	if (buffer ? !strcmp(buffer, TR_TOP_BUFFER) : !top_empty)
		add_buf(tf, s->handle, TR_TOP_BUFFER, s);
	for (i = 0; i < nr; i++) {
		name = tracecmd_buffer_instance_name(s->handle, i);
		if (!name || (buffer && strcmp(name, buffer)) ||
		    (buffer && tf->nr_bufs > before))
			continue;
		h = tracecmd_buffer_instance_handle(s->handle, i);
		if (!h) {
			fprintf(stderr, "cgtrace: %s: cannot read buffer %s\n",
				s->path, name);
			return -1;
		}
		if (!buffer && !tracecmd_get_first_ts(h)) {
			tracecmd_close(h);
			continue;
		}
		add_buf(tf, h, name, s);
	}
	if (buffer && tf->nr_bufs == before) {
		fprintf(stderr, "cgtrace: %s: no buffer \"%s\" in this trace; it has: ",
			s->path, buffer);
		print_buffer_names(s, stderr);
		fprintf(stderr, "\n");
		return -1;
	}
	if (tf->nr_bufs == before)	/* nothing recorded at all */
		add_buf(tf, s->handle, TR_TOP_BUFFER, s);
	return 0;
}

/* tr_print_buffers - the names of the buffers read, comma separated */
void tr_print_buffers(struct trace_file *tf, FILE *f)
{
	int i;

	for (i = 0; i < tf->nr_bufs; i++)
		fprintf(f, "%s%s%s%s", i ? ", " : "",
			tf->nr_src > 1 ? tf->bufs[i].src->host : "",
			tf->nr_src > 1 ? ":" : "", tf->bufs[i].name);
}

/* tr_input_option - take option @opt if it is one of TR_INPUT_SHORTOPTS */
int tr_input_option(struct tr_input *in, int opt, const char *arg)
{
	switch (opt) {
	case 'i':
		if (in->nr_paths == TR_MAX_INPUTS) {
			fprintf(stderr, "cgtrace: at most %d -i files\n",
				TR_MAX_INPUTS);
			return -1;
		}
		in->paths[in->nr_paths++] = arg;
		return 1;
	case 'B':
		in->buffer = arg;
		return 1;
	case TR_OPT_WALL:
		in->wall = true;
		return 1;
	default:
		return 0;
	}
}

/* host_from_path - a host name for a file without one: its base name */
static char *host_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	char *host = xstrdup(base ? base + 1 : path);
	size_t n = strlen(host);

	if (n > 4 && !strcmp(host + n - 4, ".dat"))
		host[n - 4] = '\0';
	return host;
}

/* open_source - open one file and find the events the tools decode */
static int open_source(struct trace_file *tf, struct tr_source *s,
		       const char *path, const struct tr_input *in)
{
	const char *buffer = in->buffer;
	struct stat st;
	int i;

	s->path = path;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "cgtrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || !is_trace_dat(path)) {
		fprintf(stderr, "cgtrace: %s: not a trace-cmd trace.dat file\n",
			path);
		return -1;
	}
	s->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!s->handle) {
		fprintf(stderr, "cgtrace: %s: cannot read this trace.dat (corrupt or unsupported version)\n",
			path);
		return -1;
	}
	/* instance handles share the top level's event formats */
	s->tep = tracecmd_get_tep(s->handle);
	for (i = 0; i < TR_NR_KINDS; i++) {
		s->ev[i] = tep_find_event_by_name(s->tep,
						  tr_event_names[i].system,
						  tr_event_names[i].name);
		if (s->ev[i] && i != TR_SWITCH)
			s->nr_marker_events++;
	}
	s->print = tep_find_event_by_name(s->tep, "ftrace", "print");
	if (open_buffers(tf, s, buffer) < 0)
		return -1;
	if (in->wall || in->nr_paths > 1 || in->need_cgroups || in->want_cgroups)
		tr_read_notes(s, in->need_cgroups || in->want_cgroups);
	if (s->nr_clock_pairs)
		s->wall_source = "cgtrace clock samples";
	if (!s->have_cgroups)
		tr_read_cgroups_sidecar(s);
	if (!s->host)
		s->host = host_from_path(path);
	return 0;
}

/* unique_hosts - two files of one host name get their file names added */
static void unique_hosts(struct trace_file *tf)
{
	bool dup[TR_MAX_INPUTS] = { false };
	char *h;
	int i, j;

	for (i = 0; i < tf->nr_src; i++)
		for (j = 0; j < tf->nr_src; j++)
			if (j != i && !strcmp(tf->src[i].host, tf->src[j].host))
				dup[i] = true;
	for (i = 0; i < tf->nr_src; i++) {
		if (!dup[i] ||
		    asprintf(&h, "%s[%s]", tf->src[i].host, tf->src[i].path) < 0)
			continue;
		free(tf->src[i].host);
		tf->src[i].host = h;
	}
}

/*
 * tr_open - open the input files. Several files are merged in wall-clock
 * time: each file's offset (trace clock to wall clock) is added by
 * libtracecmd, so that its merge sees one time line.
 */
int tr_open(struct trace_file *tf, const struct tr_input *in)
{
	static const char *dflt = "trace.dat";
	const char * const *paths = in->nr_paths ? in->paths : &dflt;
	int n = in->nr_paths ? in->nr_paths : 1, i;
	unsigned long long ts;
	struct tr_source *s;

	memset(tf, 0, sizeof(*tf));
	tf->wall = in->wall || n > 1;
	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	for (i = 0; i < n; i++) {
		s = &tf->src[i];
		s->index = i;
		tf->nr_src++;
		if (open_source(tf, s, paths[i], in) < 0)
			goto fail;
	}
	unique_hosts(tf);
	for (i = 0; i < tf->nr_bufs; i++) {
		s = tf->bufs[i].src;
		ts = tracecmd_get_first_ts(tf->bufs[i].h);
		if (ts >= TR_WALL_MIN_NS)
			s->ts_is_wall = true;
	}
	for (i = 0; tf->wall && i < tf->nr_src; i++)
		if (tr_clock_setup_wall(&tf->src[i]) < 0)
			goto fail;
	for (i = 0; tf->wall && i < tf->nr_bufs; i++)
		tracecmd_add_ts_offset(tf->bufs[i].h, tf->bufs[i].src->wall_offset);
	for (i = 0; i < tf->nr_bufs; i++)
		tracecmd_set_private(tf->bufs[i].h, &tf->bufs[i]);
	for (i = 0; in->need_cgroups && i < tf->nr_src; i++) {
		if (tf->src[i].have_cgroups)
			continue;
		fprintf(stderr,
			"cgtrace: %s: no cgroup of any task: trace.dat records no cgroup per event;\n"
			"         \"cgtrace record\" notes them in the trace (record -G, or run), older\n"
			"         recordings in %s.cgroups (lines \"PID CGROUP_PATH\")\n",
			tf->src[i].path, tf->src[i].path);
		goto fail;
	}
	return 0;
fail:
	tr_close(tf);
	return -1;
}

/*
 * tr_read_markers - open @in, pass every event to @cb, and fail with a
 * message when the trace has no user_markers event to read. On success
 * the caller closes @tf; on failure it is closed.
 */
int tr_read_markers(struct trace_file *tf, const struct tr_input *in,
		    tr_callback cb, void *data)
{
	int i;

	if (tr_open(tf, in) < 0)
		return -1;
	for (i = 0; i < tf->nr_src; i++) {
		if (tf->src[i].nr_marker_events)
			continue;
		fprintf(stderr, "cgtrace: %s: no user_markers events in this trace: record with \"-e user_markers\"\n"
			"         on a kernel with CONFIG_TRACE_USER_MARKERS\n",
			tf->src[i].path);
		goto fail;
	}
	if (tr_iterate(tf, cb, data) < 0)
		goto fail;
	if (!tf->nr_marker_seen) {
		fprintf(stderr, "cgtrace: %s: no user_markers events in this trace (the events were enabled,\n"
			"         but nothing wrote a marker while it recorded)\n",
			tf->src[0].path);
		goto fail;
	}
	return 0;
fail:
	tr_close(tf);
	return -1;
}

/* tr_close - release the trace files and the thread table */
void tr_close(struct trace_file *tf)
{
	struct tr_source *s;
	int i;

	tr_threads_free(tf);
	/* instances first: each holds a reference on the top-level handle */
	for (i = 0; i < tf->nr_bufs; i++)
		if (tf->bufs[i].h != tf->bufs[i].src->handle)
			tracecmd_close(tf->bufs[i].h);
	free(tf->bufs);
	free(tf->handles);
	tf->bufs = NULL;
	tf->handles = NULL;
	tf->nr_bufs = 0;
	for (i = 0; i < tf->nr_src; i++) {
		s = &tf->src[i];
		if (s->handle)
			tracecmd_close(s->handle);
		tr_cgroups_free(s);
		free(s->pair_offsets);
		free(s->host);
		memset(s, 0, sizeof(*s));
	}
	tf->nr_src = 0;
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

/* decode - one record of a kind the reader follows into a tr_event */
static void decode(struct tr_source *s, struct tep_event *e,
		   struct tep_record *record, enum tr_kind k,
		   struct tr_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->src = s->index;
	ev->ts = record->ts;
	ev->cpu = record->cpu;
	ev->pid = tep_data_pid(s->tep, record);
	ev->name = ev->name_buf;

	if (k == TR_SWITCH) {
		ev->prev_pid = get_num(e, record, "prev_pid");
		ev->next_pid = get_num(e, record, "next_pid");
		ev->prev_state = get_num(e, record, "prev_state");
		ev->prev_comm = get_str(e, record, "prev_comm", ev->prev_comm_buf,
					TR_COMM_MAX);
		ev->next_comm = get_str(e, record, "next_comm", ev->next_comm_buf,
					TR_COMM_MAX);
		return;
	}
	ev->tgid = get_num(e, record, "tgid");
	if (k != TR_LOST)
		get_str(e, record, "name", ev->name_buf, TR_NAME_MAX);
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
}

/* dispatch - keep the threads' state, and pass the event on */
static int dispatch(struct trace_file *tf, struct tr_buf *buf,
		    struct tr_event *ev)
{
	int src = ev->src, ret;
	struct tr_thread *t;

	tf->nr_events++;
	if (tf->nr_events == 1 || ev->ts < tf->first_ts)
		tf->first_ts = ev->ts;
	if (ev->ts > tf->last_ts)
		tf->last_ts = ev->ts;

	if (ev->kind == TR_SWITCH) {
		tr_set_comm(tr_thread_get(tf, src, ev->prev_pid), ev->prev_comm);
		tr_set_comm(tr_thread_get(tf, src, ev->next_pid), ev->next_comm);
		/* callback first: it sees the run interval that ends here */
		ret = tf->cb(tf, ev, tf->cb_data);
		t = tr_thread_get(tf, src, ev->prev_pid);
		t->running = false;
		t = tr_thread_get(tf, src, ev->next_pid);
		t->running = true;
		t->run_since = ev->ts;
		t->run_cpu = ev->cpu;
		return ret;
	}
	tf->nr_marker_seen++;
	t = tr_thread_get(tf, src, ev->pid);
	if (ev->tgid)
		t->tgid = ev->tgid;
	else
		ev->tgid = tr_tgid(tf, src, ev->pid);
	if (!t->comm_set)
		tr_set_comm(t, tep_data_comm_from_pid(buf->src->tep, ev->pid));
	if (ev->kind == TR_BEGIN)
		tr_track_begin(t, ev);
	else if (ev->kind == TR_END)
		tr_track_end(t, ev);
	return tf->cb(tf, ev, tf->cb_data);
}

/* follow_event - libtracecmd's follower of one kind of event */
static int follow_event(struct tracecmd_input *handle, struct tep_event *e,
			struct tep_record *record, int cpu, void *data)
{
	struct tr_follower *f = data;
	struct tr_buf *buf = tracecmd_get_private(handle);
	struct tr_event ev;
	int ret;

	decode(buf->src, e, record, f->kind, &ev);
	ret = dispatch(f->tf, buf, &ev);
	if (!ret)
		return 0;
	f->tf->cb_ret = ret;
	return -1;	/* libtracecmd stops */
}

/* follow_note - a trace_marker line: cgtrace's notes */
static int follow_note(struct tracecmd_input *handle, struct tep_event *e,
		       struct tep_record *record, int cpu, void *data)
{
	struct tr_buf *buf = tracecmd_get_private(handle);

	tr_note_line(buf->src, record, false);
	return 0;
}

/* follow_missed - the ring buffer lost events before this record */
static int follow_missed(struct tracecmd_input *handle, struct tep_event *e,
			 struct tep_record *record, int cpu, void *data)
{
	struct trace_file *tf = data;

	if (record->missed_events > 0)
		tf->missed += record->missed_events;
	else
		tf->missed_unknown++;
	return 0;
}

static int each_record(struct tracecmd_input *handle,
		       struct tep_record *record, int cpu, void *data)
{
	return 0;	/* the followers did the work */
}

/* follow - register the followers on every buffer read */
static void follow(struct trace_file *tf)
{
	struct tr_source *s;
	int i, k;

	for (k = 0; k < TR_NR_KINDS; k++) {
		tf->follow[k].tf = tf;
		tf->follow[k].kind = k;
	}
	for (i = 0; i < tf->nr_bufs; i++) {
		s = tf->bufs[i].src;
		for (k = 0; k < TR_NR_KINDS; k++)
			if (s->ev[k])
				tracecmd_follow_event(tf->bufs[i].h,
						      tr_event_names[k].system,
						      tr_event_names[k].name,
						      follow_event, &tf->follow[k]);
		if (s->print)
			tracecmd_follow_event(tf->bufs[i].h, "ftrace", "print",
					      follow_note, tf);
		tracecmd_follow_missed_events(tf->bufs[i].h, follow_missed, tf);
	}
}

/*
 * tr_iterate - call cb for every decoded event in time order, over all the
 * buffers tr_open chose (libtracecmd merges them by timestamp: the buffers
 * of one file share one trace clock, several files were put on the wall
 * clock). A non-zero return of cb stops and is returned.
 */
int tr_iterate(struct trace_file *tf, tr_callback cb, void *data)
{
	int ret, i;

	tf->first_ts = 0;
	tf->last_ts = 0;
	tf->cb = cb;
	tf->cb_data = data;
	tf->cb_ret = 0;
	follow(tf);
	ret = tracecmd_iterate_events_multi(tf->handles, tf->nr_bufs,
					    each_record, tf);
	for (i = 0; i < tf->nr_src; i++)
		tr_clock_drift_end(&tf->src[i]);
	if (tf->cb_ret)
		return tf->cb_ret;
	if (ret < 0) {
		fprintf(stderr, "cgtrace: %s: error reading events\n",
			tf->src[0].path);
		return -1;
	}
	return 0;
}
