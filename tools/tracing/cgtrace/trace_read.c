// SPDX-License-Identifier: GPL-2.0
/*
 * trace_read.c - decode user_markers and sched_switch events of trace.dat
 * files, one per host, merged in time order
 *
 * The events are those of Documentation/trace/user-markers.rst. Fields are
 * looked up by name in each file's event formats, so the reader depends
 * neither on their exact types (a name may be a __data_loc string or a
 * char array) nor on two hosts numbering their events alike.
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

#define CG_HASH_SIZE	1024

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

struct tr_pid_cgroup {
	struct tr_pid_cgroup	*next;
	int			pid;
	char			*path;
};

static void *tr_alloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "cgtrace: out of memory\n");
		exit(1);
	}
	return p;
}

static char *tr_strdup(const char *s)
{
	return strcpy(tr_alloc(NULL, strlen(s) + 1), s);
}

/* tr_kind_name - the event name of a kind */
const char *tr_kind_name(enum tr_kind kind)
{
	if (kind >= TR_NR_KINDS)
		return "?";
	return tr_event_names[kind].name;
}

/* tr_sidecar_path - FILE + suffix, for the files written beside it */
char *tr_sidecar_path(const char *path, const char *suffix)
{
	char *p;

	if (asprintf(&p, "%s%s", path, suffix) < 0)
		return NULL;
	return p;
}

static unsigned int tr_hash(int src, int pid)
{
	return ((unsigned int)pid * 2654435761u + (unsigned int)src * 40503u) >>
	       (32 - TR_HASH_BITS);
}

/* tr_thread_find - the thread state of pid on host src, or NULL */
struct tr_thread *tr_thread_find(struct trace_file *tf, int src, int pid)
{
	struct tr_thread *t;

	for (t = tf->threads[tr_hash(src, pid)]; t; t = t->next)
		if (t->pid == pid && t->src == src)
			return t;
	return NULL;
}

/* tr_thread_get - the thread state of pid, created on first use */
struct tr_thread *tr_thread_get(struct trace_file *tf, int src, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, src, pid);
	unsigned int h;

	if (t)
		return t;
	t = tr_alloc(NULL, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->src = src;
	t->pid = pid;
	h = tr_hash(src, pid);
	t->next = tf->threads[h];
	tf->threads[h] = t;
	tf->nr_threads++;
	return t;
}

/* tr_comm - best known command name of pid */
const char *tr_comm(struct trace_file *tf, int src, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, src, pid);
	const char *comm;

	if (t && t->comm_set)
		return t->comm;
	if (pid == 0)
		return "<idle>";
	comm = tep_data_comm_from_pid(tf->src[src].tep, pid);
	return comm ? comm : "<...>";
}

/* tr_tgid - thread group of pid as seen in marker events (pid if unknown) */
int tr_tgid(struct trace_file *tf, int src, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, src, pid);

	return t && t->tgid ? t->tgid : pid;
}

static void tr_set_comm(struct tr_thread *t, const char *comm)
{
	if (!comm || !*comm)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->comm_set = true;
}

/* add_cgroup - note that pid was in cgroup path (a later note wins) */
static void add_cgroup(struct tr_source *s, int pid, const char *path)
{
	struct tr_pid_cgroup *pc;
	unsigned int h = (unsigned int)pid % CG_HASH_SIZE;

	if (!s->cgroups) {
		s->cgroups = tr_alloc(NULL, CG_HASH_SIZE * sizeof(*s->cgroups));
		memset(s->cgroups, 0, CG_HASH_SIZE * sizeof(*s->cgroups));
	}
	pc = tr_alloc(NULL, sizeof(*pc));
	pc->pid = pid;
	pc->path = tr_strdup(path);
	pc->next = s->cgroups[h];
	s->cgroups[h] = pc;
	s->have_cgroups = true;
}

/* tr_cgroup_of - the cgroup of a thread, or of its process, or NULL */
const char *tr_cgroup_of(struct trace_file *tf, int src, int pid)
{
	struct tr_source *s = &tf->src[src];
	struct tr_pid_cgroup *pc;
	int tgid = tr_tgid(tf, src, pid), i;

	for (i = 0; s->cgroups && i < 2; i++, pid = tgid)
		for (pc = s->cgroups[(unsigned int)pid % CG_HASH_SIZE]; pc;
		     pc = pc->next)
			if (pc->pid == pid)
				return pc->path;
	return NULL;
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

/* add_pair - one (trace ts, realtime) sample of a source */
static void add_pair(struct tr_source *s, unsigned long long ts,
		     unsigned long long real)
{
	int n = s->nr_clock_pairs;

	/* grow to 1, 2, 4, 8... */
	if (!(n & (n - 1)))
		s->pair_offsets = tr_alloc(s->pair_offsets, (n ? 2 * n : 1) *
					   sizeof(*s->pair_offsets));
	s->pair_offsets[s->nr_clock_pairs++] = (long long)(real - ts);
}

/*
 * pairs_offset - the offset of the wall clock from the trace clock.
 *
 * cgtrace's samples read the wall clock, then write: the event's trace
 * time is later by the write's latency, so each sample is a lower bound
 * of the offset and the largest is the closest. Pairs of FILE.clock are
 * read back to back, so their median is used, which one pair taken across
 * a preemption does not skew; how far the others are from it is how far
 * the result may be off.
 */
static long long pairs_offset(struct tr_source *s, bool lower_bounds)
{
	int i, n = s->nr_clock_pairs;
	long long off, d;

	qsort(s->pair_offsets, n, sizeof(*s->pair_offsets), cmp_ll);
	off = s->pair_offsets[lower_bounds ? n - 1 : n / 2];
	s->offset_spread = 0;
	for (i = 0; !lower_bounds && i < n; i++) {
		d = s->pair_offsets[i] - off;
		if (d < 0)
			d = -d;
		if ((unsigned long long)d > s->offset_spread)
			s->offset_spread = d;
	}
	return off;
}

/*
 * later_sample - a clock sample of the main pass (ts has the offset added
 * already): how far the wall clock strayed from the offset while
 * recording. A sample reads low by its write's latency, so the drift is
 * the best (largest) of each window of TR_DRIFT_WINDOW samples; one
 * preempted sample does not count as drift.
 */
static void later_sample(struct tr_source *s, long long dev)
{
	int i;

	s->drift_win[s->nr_drift++ % TR_DRIFT_WINDOW] = dev;
	if (s->nr_drift < TR_DRIFT_WINDOW)
		return;
	dev = s->drift_win[0];
	for (i = 1; i < TR_DRIFT_WINDOW; i++)
		if (s->drift_win[i] > dev)
			dev = s->drift_win[i];
	if (dev < 0)
		dev = -dev;
	if ((unsigned long long)dev > s->offset_spread)
		s->offset_spread = dev;
}

/* drift_end - a recording shorter than a window: its best sample */
static void drift_end(struct tr_source *s)
{
	long long dev;
	int i;

	if (!s->nr_drift || s->nr_drift >= TR_DRIFT_WINDOW)
		return;
	dev = s->drift_win[0];
	for (i = 1; i < s->nr_drift; i++)
		if (s->drift_win[i] > dev)
			dev = s->drift_win[i];
	if (dev < 0)
		dev = -dev;
	if ((unsigned long long)dev > s->offset_spread)
		s->offset_spread = dev;
}

/* read_clock_sidecar - pairs from FILE.clock, lines "TRACE_NS REALTIME_NS" */
static int read_clock_sidecar(struct tr_source *s)
{
	char *file = tr_sidecar_path(s->path, ".clock");
	unsigned long long t, r;
	char line[256];
	FILE *f;

	f = file ? fopen(file, "r") : NULL;
	free(file);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && sscanf(line, "%llu %llu", &t, &r) == 2)
			add_pair(s, t, r);
	fclose(f);
	return s->nr_clock_pairs ? 0 : -1;
}

/* read_cgroups_sidecar - FILE.cgroups, lines "PID CGROUP_PATH" */
static void read_cgroups_sidecar(struct tr_source *s)
{
	char *file = tr_sidecar_path(s->path, ".cgroups");
	char *line = NULL, *p, *end;
	size_t cap = 0;
	ssize_t len;
	long pid;
	FILE *f;

	f = file ? fopen(file, "r") : NULL;
	free(file);
	while (f && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#')
			continue;
		pid = strtol(line, &end, 10);
		if (end == line || pid <= 0 || (*end != ' ' && *end != '\t'))
			continue;
		for (p = end; *p == ' ' || *p == '\t'; p++)
			;
		if (*p)
			add_cgroup(s, pid, p);
	}
	free(line);
	if (f) {
		fclose(f);
		if (s->have_cgroups)
			s->cgroups_source = "FILE.cgroups";
	}
}

/* print_text - the text of an ftrace print event (trace_marker write) */
static const char *print_text(struct tep_event *e, struct tep_record *record,
			      char *buf, size_t size)
{
	struct tep_format_field *field = tep_find_field(e, "buf");
	size_t len, n;

	buf[0] = '\0';
	if (!field || record->size <= 0 || (int)field->offset >= record->size)
		return buf;
	/* "char buf[]": the text runs to the end of the record */
	len = (size_t)record->size - field->offset;
	if (field->size > 0 && (size_t)field->size < len)
		len = field->size;
	n = strnlen((const char *)record->data + field->offset, len);
	if (n >= size)
		n = size - 1;
	memcpy(buf, (const char *)record->data + field->offset, n);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * meta_line - one "cgtrace-meta" note of a source. In the first pass
 * (@pairs) clock samples give the offset; in the main pass they measure
 * how far the wall clock strays from the offset in use (ts then has it
 * added already), and the other notes are skipped. Returns 1 at "ready".
 */
static int meta_line(struct tr_source *s, struct tep_record *record,
		     bool pairs)
{
	char text[4096], host[256], *rest;
	unsigned long long real;
	long long maxerr, esterr;
	int sync, pid, n = 0;

	print_text(s->print, record, text, sizeof(text));
	if (strncmp(text, TR_META_TAG, strlen(TR_META_TAG)))
		return 0;
	s->has_meta = true;
	rest = text + strlen(TR_META_TAG);
	if (sscanf(rest, "clock %llu", &real) == 1) {
		if (pairs && !s->notes_ready)
			add_pair(s, record->ts, real);
		else if (!pairs && s->wall_offset_set && s->nr_clock_pairs)
			later_sample(s, (long long)(real - record->ts));
	} else if (!pairs) {
		return 0;	/* the rest was read by the first pass */
	} else if (sscanf(rest, "host %255s", host) == 1) {
		free(s->host);
		s->host = tr_strdup(host);
	} else if (sscanf(rest, "adjtimex %d %lld %lld", &sync, &maxerr,
			  &esterr) == 3) {
		s->sync_known = true;
		/* unsynchronized once is unsynchronized */
		s->synced = (s->nr_adjtimex++ ? s->synced : true) && sync;
		if (maxerr > s->maxerror_us)
			s->maxerror_us = maxerr;
		if (esterr > s->esterror_us)
			s->esterror_us = esterr;
	} else if (sscanf(rest, "writer %d", &pid) == 1) {
		s->writer = pid;
	} else if (!strcmp(rest, "ready")) {
		s->notes_ready = true;
		return 1;
	} else if (sscanf(rest, "cgroup %d %n", &pid, &n) == 1 && n &&
		   rest[n]) {
		add_cgroup(s, pid, rest + n);
		s->cgroups_source = "the trace";
	}
	return 0;
}

struct prepass {
	struct tr_source	*s;
	struct tep_handle	*tep;
	bool			all;		/* every note (cgroups): no early stop */
	unsigned long long	first_ts;
};

#define PREPASS_MAX_NS	(10 * 1000000000ULL)	/* notes come in the first ms */

static int prepass_record(struct tracecmd_input *h, struct tep_record *record,
			  int cpu, void *data)
{
	struct prepass *p = data;

	if (!p->first_ts)
		p->first_ts = record->ts;
	if (tep_data_type(p->tep, record) == p->s->print->id &&
	    meta_line(p->s, record, true) && !p->all)
		return -1;
	/*
	 * a trace without notes, or (for the cgroups) without cgroup notes,
	 * which follow the first ones at once: do not read it all for nothing
	 */
	if (record->ts - p->first_ts > PREPASS_MAX_NS &&
	    (!p->s->has_meta || (p->all && !p->s->have_cgroups)))
		return -1;
	return 0;
}

/*
 * read_notes - a first pass over the file, with its own handle, for the
 * notes of the start (or all of them with @all, for the cgroups): the
 * clock offset must be known before the events are merged.
 */
static void read_notes(struct tr_source *s, bool all)
{
	struct prepass p = { .s = s, .all = all };
	struct tracecmd_input *top, **hs;
	int i, n, nr;

	if (!s->print)
		return;
	top = tracecmd_open(s->path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top)
		return;
	p.tep = tracecmd_get_tep(top);
	nr = tracecmd_buffer_instances(top);
	hs = tr_alloc(NULL, (nr + 1) * sizeof(*hs));
	hs[0] = top;
	for (i = 0, n = 1; i < nr; i++) {
		hs[n] = tracecmd_buffer_instance_handle(top, i);
		if (hs[n])
			n++;
	}
	tracecmd_iterate_events_multi(hs, n, prepass_record, &p);
	for (i = n - 1; i >= 0; i--)
		tracecmd_close(hs[i]);
	free(hs);
}

/* setup_wall - decide how a source's timestamps become wall-clock time */
static int setup_wall(struct tr_source *s)
{
	s->wall_offset_set = true;
	if (s->nr_clock_pairs) {
		s->wall_offset = pairs_offset(s, true);
		return 0;
	}
	if (!read_clock_sidecar(s)) {
		s->wall_offset = pairs_offset(s, false);
		s->wall_source = "FILE.clock";
		return 0;
	}
	if (s->ts_is_wall) {
		s->wall_offset = 0;
		s->wall_source = "trace-cmd record --date";
		return 0;
	}
	s->wall_offset_set = false;
	fprintf(stderr,
		"cgtrace: %s: no wall-clock reference: record with \"cgtrace record\" (it samples\n"
		"         the clock into the trace), \"trace-cmd record --date\", or provide\n"
		"         %s.clock with lines \"TRACE_NS REALTIME_NS\"\n",
		s->path, s->path);
	return -1;
}

static void add_buf(struct trace_file *tf, struct tracecmd_input *h,
		    const char *name, struct tr_source *s)
{
	tf->bufs = tr_alloc(tf->bufs, (tf->nr_bufs + 1) * sizeof(*tf->bufs));
	tf->handles = tr_alloc(tf->handles,
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
	case 'w':
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
	char *host = tr_strdup(base ? base + 1 : path);
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
		read_notes(s, in->need_cgroups || in->want_cgroups);
	if (s->nr_clock_pairs)
		s->wall_source = "cgtrace clock samples";
	if (!s->have_cgroups)
		read_cgroups_sidecar(s);
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
		if (setup_wall(&tf->src[i]) < 0)
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
	struct tr_pid_cgroup *pc, *pn;
	struct tr_thread *t, *n;
	struct tr_source *s;
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
		for (d = 0; s->cgroups && d < CG_HASH_SIZE; d++) {
			for (pc = s->cgroups[d]; pc; pc = pn) {
				pn = pc->next;
				free(pc->path);
				free(pc);
			}
		}
		free(s->cgroups);
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

/* track_begin - push an open span on the writer thread's stack */
static void track_begin(struct tr_thread *t, struct tr_event *ev)
{
	/* a begin at depth d closes whatever we still believed open at >= d */
	while (t->nr_open && t->open_depth[t->nr_open - 1] >= ev->depth) {
		free(t->open_name[--t->nr_open]);
		ev->unended++;
	}
	if (t->nr_open == TR_MAX_DEPTH)
		return;
	t->open_ts[t->nr_open] = ev->ts;
	t->open_depth[t->nr_open] = ev->depth;
	t->open_name[t->nr_open] = strdup(ev->name);
	t->nr_open++;
	ev->tracked = true;
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
	ev->unended = t->nr_open - 1 - i;
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
static bool decode(struct tr_source *s, struct tep_record *record,
		   struct tr_event *ev, char *name, char *pcomm, char *ncomm)
{
	struct tep_event *e = NULL;
	int type, k;

	type = tep_data_type(s->tep, record);
	for (k = 0; k < TR_NR_KINDS; k++) {
		if (s->ev[k] && s->ev[k]->id == type) {
			e = s->ev[k];
			break;
		}
	}
	if (!e)
		return false;

	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->src = s->index;
	ev->ts = record->ts;
	ev->cpu = record->cpu;
	ev->pid = tep_data_pid(s->tep, record);
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
	struct tr_buf *buf = tracecmd_get_private(handle);
	struct iter_ctx *ctx = data;
	struct trace_file *tf = ctx->tf;
	struct tr_thread *t;
	struct tr_event ev;
	int ret, src;

	if (record->missed_events > 0)
		tf->missed += record->missed_events;
	if (!buf)
		return 0;
	if (buf->src->print &&
	    tep_data_type(buf->src->tep, record) == buf->src->print->id) {
		meta_line(buf->src, record, false);
		return 0;
	}
	if (!decode(buf->src, record, &ev, name, pcomm, ncomm))
		return 0;
	src = ev.src;

	tf->nr_events++;
	if (tf->nr_events == 1 || ev.ts < tf->first_ts)
		tf->first_ts = ev.ts;
	if (ev.ts > tf->last_ts)
		tf->last_ts = ev.ts;

	if (ev.kind == TR_SWITCH) {
		tr_set_comm(tr_thread_get(tf, src, ev.prev_pid), ev.prev_comm);
		tr_set_comm(tr_thread_get(tf, src, ev.next_pid), ev.next_comm);
		/* callback first: it sees the run interval that ends here */
		ret = ctx->cb(tf, &ev, ctx->data);
		t = tr_thread_get(tf, src, ev.prev_pid);
		t->running = false;
		t = tr_thread_get(tf, src, ev.next_pid);
		t->running = true;
		t->run_since = ev.ts;
		t->run_cpu = ev.cpu;
	} else {
		tf->nr_marker_seen++;
		t = tr_thread_get(tf, src, ev.pid);
		if (ev.tgid)
			t->tgid = ev.tgid;
		else
			ev.tgid = tr_tgid(tf, src, ev.pid);
		if (!t->comm_set)
			tr_set_comm(t, tep_data_comm_from_pid(buf->src->tep, ev.pid));
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
 * buffers tr_open chose (libtracecmd merges them by timestamp: the buffers
 * of one file share one trace clock, several files were put on the wall
 * clock). A non-zero return of cb stops and is returned.
 */
int tr_iterate(struct trace_file *tf, tr_callback cb, void *data)
{
	struct iter_ctx ctx = { .tf = tf, .cb = cb, .data = data };
	int ret, i;

	tf->first_ts = 0;
	tf->last_ts = 0;
	ret = tracecmd_iterate_events_multi(tf->handles, tf->nr_bufs,
					    iter_record, &ctx);
	for (i = 0; i < tf->nr_src; i++)
		drift_end(&tf->src[i]);
	if (ctx.ret)
		return ctx.ret;
	if (ret < 0) {
		fprintf(stderr, "cgtrace: %s: error reading events\n",
			tf->src[0].path);
		return -1;
	}
	return 0;
}

/* source_error - how far a host's wall clock may be from true time, ns */
static bool source_error(struct tr_source *s, unsigned long long *ns)
{
	*ns = s->offset_spread;
	if (!s->sync_known || !s->synced)
		return false;
	*ns += s->maxerror_us * 1000ULL;
	return true;
}

/*
 * tr_print_clocks - where each host's wall clock came from, and how far
 * apart the hosts' clocks may be: the sum of the two largest errors the
 * hosts' own clock discipline (NTP, adjtimex maxerror) admitted while
 * recording, plus the drift of each trace clock against its wall clock.
 * A host whose clock was not synchronized bounds nothing.
 */
void tr_print_clocks(struct trace_file *tf, FILE *f)
{
	unsigned long long err, e1 = 0, e2 = 0;
	const char *unbounded = NULL;
	char d[32], m[32];
	struct tr_source *s;
	int i;

	if (!tf->wall)
		return;
	for (i = 0; i < tf->nr_src; i++) {
		s = &tf->src[i];
		fprintf(f, "clock: %s: wall = trace clock + offset from %s", s->host,
			s->wall_source);
		if (s->nr_clock_pairs > 1) {
			tr_format_dur(s->offset_spread, d, sizeof(d));
			fprintf(f, " (%d samples; it strayed by up to %s while recording)",
				s->nr_drift ? s->nr_drift : s->nr_clock_pairs, d);
		}
		if (!s->sync_known) {
			fprintf(f, "; clock state not recorded\n");
		} else if (!s->synced) {
			fprintf(f, "; clock NOT synchronized (adjtimex: STA_UNSYNC)\n");
		} else {
			tr_format_dur(s->maxerror_us * 1000ULL, m, sizeof(m));
			fprintf(f, "; clock synchronized, max error %s\n", m);
		}
		if (!source_error(s, &err)) {
			if (!unbounded)
				unbounded = s->host;
			continue;
		}
		if (err > e1) {
			e2 = e1;
			e1 = err;
		} else if (err > e2) {
			e2 = err;
		}
	}
	if (tf->nr_src < 2)
		return;
	if (unbounded) {
		fprintf(f, "clock: the hosts' clocks may be apart by any amount: %s's clock was not known to be\n"
			"       synchronized while it recorded (a VM without NTP keeps the time its emulated\n"
			"       RTC gave it at boot, to the second); events of different hosts are ordered\n"
			"       only as well as their clocks agree\n", unbounded);
		return;
	}
	tr_format_dur(e1 + e2, d, sizeof(d));
	fprintf(f, "clock: the hosts' clocks were at most %s apart (sum of the two largest errors)\n", d);
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
