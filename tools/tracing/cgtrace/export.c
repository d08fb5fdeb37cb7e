// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - "cgtrace export --chrome": trace.dat to Chrome trace JSON
 *
 * Writes {"traceEvents": [...]}, which chrome://tracing and the Perfetto UI
 * load. Marker spans become complete ("X") events on their thread (pid is
 * the tgid, tid the thread), async spans "b"/"e" with the cookie as id,
 * counters "C", instants "i", and sched_switch a per-CPU track of "X"
 * slices, one per stretch a task ran. Timestamps are microseconds.
 *
 * Events are buffered and sorted by start time, then depth, before they
 * are written: a viewer then sees an outer span before an inner one that
 * starts at the same time, so nesting survives equal timestamps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgtrace.h"
#include "trace_read.h"

/* the per-CPU sched_switch track: a pid above PID_MAX_LIMIT (4194304) */
#define CPU_TRACK_PID	(1 << 23)

/* a growable string */
struct sbuf {
	char	*s;
	size_t	len, alloc;
};

static void sb_grow(struct sbuf *b, size_t need)
{
	if (b->len + need + 1 <= b->alloc)
		return;
	while (b->len + need + 1 > b->alloc)
		b->alloc = b->alloc ? b->alloc * 2 : 256;
	b->s = realloc(b->s, b->alloc);
	if (!b->s) {
		err_msg("out of memory");
		exit(1);
	}
}

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_grow(b, n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* utf8_len - length of a valid UTF-8 sequence at s, or 0 */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0xc2)
		return 0;
	if (s[0] < 0xe0)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] < 0xf0)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] < 0xf5)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * sb_json_str - s as a quoted JSON string. Valid UTF-8 is kept; a byte that
 * is not is written as the Latin-1 character of that value, so the output
 * is always valid JSON and nothing is dropped.
 */
static void sb_json_str(struct sbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	sb_printf(b, "\"");
	while (*s) {
		switch (*s) {
		case '"':
			sb_printf(b, "\\\"");
			break;
		case '\\':
			sb_printf(b, "\\\\");
			break;
		case '\n':
			sb_printf(b, "\\n");
			break;
		case '\t':
			sb_printf(b, "\\t");
			break;
		case '\r':
			sb_printf(b, "\\r");
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				sb_printf(b, "\\u%04x", *s);
			} else if (*s < 0x80) {
				sb_printf(b, "%c", *s);
			} else if ((n = utf8_len(s))) {
				sb_printf(b, "%.*s", n, (const char *)s);
				s += n;
				continue;
			} else {
				sb_printf(b, "\\u%04x", *s);
			}
		}
		s++;
	}
	sb_printf(b, "\"");
}

/* sb_ts - a ns timestamp as exact decimal microseconds */
static void sb_ts(struct sbuf *b, const char *key, unsigned long long ns)
{
	sb_printf(b, "\"%s\":%llu.%03llu", key, ns / 1000, ns % 1000);
}

/* one buffered output event */
struct out_ev {
	unsigned long long	ts;
	long long		order;	/* depth: outer spans first at equal ts */
	size_t			seq;
	char			*json;
};

struct exporter {
	struct out_ev		*ev;
	size_t			n, alloc;
	struct sbuf		cur;
	/* per CPU: who runs since when (sched_switch track) */
	int			nr_cpus;
	unsigned long long	*cpu_since;
	int			*cpu_pid;
	bool			*cpu_known;
	bool			have_switch;
};

/* ev_begin/ev_commit - build one JSON object in cur, then queue it */
static struct sbuf *ev_begin(struct exporter *x)
{
	x->cur.len = 0;
	sb_grow(&x->cur, 0);
	x->cur.s[0] = '\0';
	return &x->cur;
}

static void ev_commit(struct exporter *x, unsigned long long ts, long long order)
{
	struct out_ev *e;

	if (x->n == x->alloc) {
		x->alloc = x->alloc ? x->alloc * 2 : 1024;
		x->ev = realloc(x->ev, x->alloc * sizeof(*x->ev));
		if (!x->ev) {
			err_msg("out of memory");
			exit(1);
		}
	}
	e = &x->ev[x->n];
	e->ts = ts;
	e->order = order;
	e->seq = x->n++;
	e->json = strdup(x->cur.s);
	if (!e->json) {
		err_msg("out of memory");
		exit(1);
	}
}

/* ev_head - the fields every event has */
static struct sbuf *ev_head(struct exporter *x, const char *ph,
			    const char *name, int pid, int tid,
			    unsigned long long ts)
{
	struct sbuf *b = ev_begin(x);

	sb_printf(b, "{\"ph\":\"%s\",\"name\":", ph);
	sb_json_str(b, name);
	sb_printf(b, ",\"pid\":%d,\"tid\":%d,", pid, tid);
	sb_ts(b, "ts", ts);
	return b;
}

/* add_span - a complete event for a span */
static void add_span(struct exporter *x, const char *name, int tgid, int pid,
		     unsigned long long start, unsigned long long end,
		     long long depth, const char *extra)
{
	struct sbuf *b = ev_head(x, "X", name, tgid, pid, start);

	sb_printf(b, ",\"cat\":\"user_markers\",");
	sb_ts(b, "dur", end - start);
	sb_printf(b, ",\"args\":{\"depth\":%lld%s}}", depth, extra);
	ev_commit(x, start, depth);
}

/* cpu_slot - grow the per-CPU arrays to hold cpu */
static void cpu_slot(struct exporter *x, int cpu)
{
	int n = x->nr_cpus, i;

	if (cpu < n)
		return;
	x->nr_cpus = cpu + 1;
	x->cpu_since = realloc(x->cpu_since, x->nr_cpus * sizeof(*x->cpu_since));
	x->cpu_pid = realloc(x->cpu_pid, x->nr_cpus * sizeof(*x->cpu_pid));
	x->cpu_known = realloc(x->cpu_known, x->nr_cpus * sizeof(*x->cpu_known));
	if (!x->cpu_since || !x->cpu_pid || !x->cpu_known) {
		err_msg("out of memory");
		exit(1);
	}
	for (i = n; i < x->nr_cpus; i++)
		x->cpu_known[i] = false;
}

/* add_run - the slice a task ran on a CPU, on that CPU's track */
static void add_run(struct exporter *x, struct trace_file *tf, int cpu,
		    int pid, const char *comm, unsigned long long start,
		    unsigned long long end)
{
	struct sbuf *b;

	if (pid == 0 || end <= start)
		return;		/* idle is the gap between slices */
	b = ev_head(x, "X", comm, CPU_TRACK_PID, CPU_TRACK_PID + cpu, start);
	sb_printf(b, ",\"cat\":\"sched\",");
	sb_ts(b, "dur", end - start);
	sb_printf(b, ",\"args\":{\"pid\":%d,\"tgid\":%d}}", pid,
		  tr_tgid(tf, pid));
	ev_commit(x, start, 0);
}

/* export_event - turn one trace event into Chrome events */
static int export_event(struct trace_file *tf, const struct tr_event *ev,
			void *data)
{
	struct exporter *x = data;
	int tgid = ev->tgid ? ev->tgid : tr_tgid(tf, ev->pid);
	struct sbuf *b;
	char name[TR_NAME_MAX + 32];

	switch (ev->kind) {
	case TR_SWITCH:
		x->have_switch = true;
		cpu_slot(x, ev->cpu);
		if (x->cpu_known[ev->cpu])
			add_run(x, tf, ev->cpu, ev->prev_pid, ev->prev_comm,
				x->cpu_since[ev->cpu], ev->ts);
		x->cpu_known[ev->cpu] = true;
		x->cpu_since[ev->cpu] = ev->ts;
		x->cpu_pid[ev->cpu] = ev->next_pid;
		break;
	case TR_END:
		if (ev->flags & TR_END_UNMATCHED) {
			snprintf(name, sizeof(name), "unmatched end%s%s",
				 ev->name[0] ? ": " : "", ev->name);
			b = ev_head(x, "i", name, tgid, ev->pid, ev->ts);
			sb_printf(b, ",\"cat\":\"user_markers\",\"s\":\"t\"}");
			ev_commit(x, ev->ts, ev->depth);
			break;
		}
		snprintf(name, sizeof(name),
			 ",\"cpu_ns\":%llu,\"duration_ns\":%llu%s%s",
			 ev->cpu_ns, ev->duration_ns,
			 ev->flags & TR_END_EXITED ? ",\"exited\":true" : "",
			 ev->begin_seen ? "" : ",\"begin_recorded\":false");
		add_span(x, ev->name, tgid, ev->pid, ev->start_ts, ev->ts,
			 ev->depth, name);
		break;
	case TR_COUNTER:
		b = ev_head(x, "C", ev->name, tgid, ev->pid, ev->ts);
		sb_printf(b, ",\"cat\":\"user_markers\",\"args\":{\"value\":%lld}}",
			  ev->value);
		ev_commit(x, ev->ts, 0);
		break;
	case TR_ASYNC_BEGIN:
	case TR_ASYNC_END:
		b = ev_head(x, ev->kind == TR_ASYNC_BEGIN ? "b" : "e", ev->name,
			    tgid, ev->pid, ev->ts);
		sb_printf(b, ",\"cat\":\"user_markers\",\"id\":\"%lld\"}",
			  ev->value);
		ev_commit(x, ev->ts, 0);
		break;
	case TR_INSTANT:
		b = ev_head(x, "i", ev->name, tgid, ev->pid, ev->ts);
		sb_printf(b, ",\"cat\":\"user_markers\",\"s\":\"t\"}");
		ev_commit(x, ev->ts, 0);
		break;
	case TR_LOST:
		b = ev_head(x, "i", "lost records", tgid, ev->pid, ev->ts);
		sb_printf(b, ",\"cat\":\"user_markers\",\"s\":\"p\",\"args\":{\"count\":%lld}}",
			  ev->value);
		ev_commit(x, ev->ts, 0);
		break;
	default:
		break;
	}
	return 0;
}

/* finish - spans still open and CPUs still busy end with the trace */
static void finish(struct exporter *x, struct trace_file *tf)
{
	struct tr_thread *t;
	int i, d;

	for (i = 0; i < TR_HASH_SIZE; i++) {
		for (t = tf->threads[i]; t; t = t->next) {
			for (d = 0; d < t->nr_open; d++)
				add_span(x, t->open_name[d], tr_tgid(tf, t->pid),
					 t->pid, t->open_ts[d], tf->last_ts,
					 t->open_depth[d], ",\"unfinished\":true");
		}
	}
	for (i = 0; i < x->nr_cpus; i++)
		if (x->cpu_known[i])
			add_run(x, tf, i, x->cpu_pid[i], tr_comm(tf, x->cpu_pid[i]),
				x->cpu_since[i], tf->last_ts);
}

/* add_meta - one metadata event (process_name, thread_name, sort index) */
static void add_meta(struct exporter *x, const char *what, int pid, int tid,
		     const char *name)
{
	struct sbuf *b = ev_begin(x);

	sb_printf(b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":0,\"args\":{\"name\":",
		  what, pid, tid);
	sb_json_str(b, name);
	sb_printf(b, "}}");
	ev_commit(x, 0, LLONG_MIN);
}

/* metadata - name the processes and threads that wrote markers */
static void metadata(struct exporter *x, struct trace_file *tf)
{
	struct tr_thread *t;
	char buf[64];
	int i;

	for (i = 0; i < TR_HASH_SIZE; i++) {
		for (t = tf->threads[i]; t; t = t->next) {
			if (!t->tgid)
				continue;	/* never wrote a marker */
			if (t->tgid == t->pid || !tr_thread_find(tf, t->tgid) ||
			    !tr_thread_find(tf, t->tgid)->tgid)
				add_meta(x, "process_name", t->tgid, t->tgid,
					 tr_comm(tf, t->tgid));
			add_meta(x, "thread_name", t->tgid, t->pid,
				 tr_comm(tf, t->pid));
		}
	}
	if (!x->have_switch)
		return;
	add_meta(x, "process_name", CPU_TRACK_PID, CPU_TRACK_PID,
		 "CPUs (sched_switch)");
	for (i = 0; i < x->nr_cpus; i++) {
		snprintf(buf, sizeof(buf), "CPU %d", i);
		add_meta(x, "thread_name", CPU_TRACK_PID, CPU_TRACK_PID + i, buf);
	}
}

static int cmp_out(const void *a, const void *b)
{
	const struct out_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* write_json - sort the buffered events and write the file */
static int write_json(struct exporter *x, struct trace_file *tf,
		      const char *out)
{
	struct sbuf b = { 0 };
	FILE *f;
	size_t i;
	int err;

	qsort(x->ev, x->n, sizeof(*x->ev), cmp_out);
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		err_msg("%s: %s", out, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"traceEvents\":[\n");
	for (i = 0; i < x->n; i++)
		fprintf(f, "%s%s\n", x->ev[i].json, i + 1 < x->n ? "," : "");
	sb_printf(&b, "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"source\":");
	sb_json_str(&b, tf->path);
	sb_printf(&b, ",\"clock\":\"%s\",\"version\":\"cgtrace " CGTRACE_VERSION "\"}}\n",
		  tf->wall ? "wall (gettimeofday)" : "trace clock");
	fputs(b.s, f);
	free(b.s);
	err = ferror(f);
	if (f != stdout)
		err |= fclose(f);
	else
		err |= fflush(f);
	if (err) {
		err_msg("%s: write error", out);
		return -1;
	}
	return 0;
}

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: cgtrace export --chrome OUT.json [-i FILE] [-B BUFFER] [--wall]\n"
		"\n"
		"  Convert the user_markers and sched_switch events of a trace.dat to the\n"
		"  Chrome trace event format ({\"traceEvents\": [...]}), which the Perfetto\n"
		"  UI (ui.perfetto.dev) and chrome://tracing open. Spans are complete\n"
		"  events (\"X\") on their thread (pid = tgid, tid = thread), nested by\n"
		"  time, with cpu_ns and duration_ns as arguments; async spans are \"b\"/\"e\"\n"
		"  with the cookie as id; counters \"C\"; instants, unmatched ends and\n"
		"  lost records \"i\"; spans still open at the end run to the trace's end.\n"
		"  sched_switch, when recorded, becomes a \"CPUs\" process with one track\n"
		"  per CPU showing which task ran when. Timestamps are microseconds.\n"
		"\n"
		"  -c, --chrome OUT   the JSON file to write (\"-\": standard output)\n"
		"  -i, --input FILE   the trace (default: trace.dat)\n"
		"  -B, --buffer NAME  convert only this buffer of the trace: an instance\n"
		"                     (\"cgtrace record\" records into one, cgtrace-PID\n"
		"                     unless -B) or \"top\", the top-level buffer. By\n"
		"                     default the events of all buffers, merged by time\n"
		"  -w, --wall         timestamps as the wall clock (gettimeofday()), from\n"
		"                     \"trace-cmd record --date\" or FILE.clock (lines\n"
		"                     \"TRACE_NS REALTIME_NS\"); viewers read numbers as\n"
		"                     doubles, so wall times keep about 0.25 us precision\n"
		"  -h, --help         this text\n"
		"\n"
		"  Exit status: 0 success, 1 error (unreadable file, not a trace.dat, no\n"
		"  user_markers events, cannot write OUT), 2 usage.\n");
}

static void exporter_free(struct exporter *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->ev[i].json);
	free(x->ev);
	free(x->cur.s);
	free(x->cpu_since);
	free(x->cpu_pid);
	free(x->cpu_known);
}

/* cmd_export - the export subcommand */
int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "chrome", required_argument, NULL, 'c' },
		TR_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tr_input in = { .path = "trace.dat" };
	struct exporter x = { 0 };
	const char *out = NULL;
	struct trace_file tf;
	int c, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h" TR_INPUT_SHORTOPTS, opts,
				NULL)) != -1) {
		if (tr_input_option(&in, c, optarg))
			continue;
		switch (c) {
		case 'c':
			out = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			export_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !out) {
		if (optind < argc)
			err_msg("export: unexpected argument '%s'", argv[optind]);
		else
			err_msg("export: say which format: --chrome OUT.json");
		export_usage(stderr);
		return 2;
	}

	if (tr_read_markers(&tf, &in, export_event, &x) < 0) {
		exporter_free(&x);
		return 1;
	}
	finish(&x, &tf);
	metadata(&x, &tf);
	if (write_json(&x, &tf, out) < 0) {
		if (strcmp(out, "-"))
			unlink(out);
		goto out;
	}
	ret = 0;
out:
	exporter_free(&x);
	tr_close(&tf);
	return ret;
}
