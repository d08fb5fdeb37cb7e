// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - "cgtrace export --chrome": trace.dat to Chrome trace JSON
 *
 * Writes {"traceEvents": [...]}, which chrome://tracing and the Perfetto UI
 * load, one event at a time as the trace is read (json-c builds and
 * escapes each event), so memory stays bounded however long the trace:
 * what is kept is the open spans of each thread and one slot per CPU.
 *
 * Marker spans become "B"/"E" pairs on their thread (pid is the tgid, tid
 * the thread), written when their begin and end events are read: they
 * nest per thread in the order the kernel recorded them, equal timestamps
 * included. An end whose begin was not recorded becomes a complete ("X")
 * event. Async spans are "b"/"e" with the cookie as id, counters "C",
 * instants "i", and sched_switch a per-CPU track of "X" slices, one per
 * stretch a task ran. Timestamps are microseconds with three decimals.
 * With several input files (hosts), each host is one process, named by
 * the host, holding the threads of all its processes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <iconv.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgtrace.h"
#include "output.h"
#include "trace_read.h"

/* the per-CPU sched_switch tracks: pids above PID_MAX_LIMIT (4194304) */
#define CPU_TRACK_PID	(1 << 23)
#define CPU_TRACK_BITS	12		/* CPUs per host's track process */

struct cpu_state {
	unsigned long long	since;
	int			pid;
	bool			known;
};

struct exporter {
	FILE			*f;
	unsigned long long	written;	/* events */
	bool			multi;		/* several hosts */
	iconv_t			utf8;		/* UTF-8 checker */
	char			*sbuf;		/* sanitized string */
	size_t			sbuf_size;
	struct cpu_state	*cpus[TR_MAX_INPUTS];
	int			nr_cpus[TR_MAX_INPUTS];
	bool			have_switch[TR_MAX_INPUTS];
};

/*
 * utf8 - @s as valid UTF-8 (valid during the next call): iconv from UTF-8
 * stops at each byte that is not part of a valid sequence, which is then
 * written as the Latin-1 character of that value. Nothing is dropped.
 */
static const char *utf8(struct exporter *x, const char *s)
{
	size_t inleft = strlen(s), outleft, need = 2 * inleft + 1;
	char *in = (char *)s, *out;

	if (need > x->sbuf_size) {
		x->sbuf_size = need;
		x->sbuf = xrealloc(x->sbuf, need);
	}
	out = x->sbuf;
	outleft = x->sbuf_size - 1;
	iconv(x->utf8, NULL, NULL, NULL, NULL);
	while (inleft) {
		if (iconv(x->utf8, &in, &inleft, &out, &outleft) != (size_t)-1)
			break;
		if (errno != EILSEQ && errno != EINVAL)
			break;
		*out++ = 0xc0 | ((unsigned char)*in >> 6);
		*out++ = 0x80 | (*in & 0x3f);
		outleft -= 2;
		in++;
		inleft--;
	}
	*out = '\0';
	return x->sbuf;
}

static struct json_object *jstr(struct exporter *x, const char *s)
{
	return json_object_new_string(utf8(x, s));
}

/* jtime - ns as exact decimal microseconds (json-c keeps the digits) */
static struct json_object *jtime(unsigned long long ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu.%03llu", ns / 1000, ns % 1000);
	return json_object_new_double_s(ns / 1e3, s);
}

/* emit - write one event and free it */
static void emit(struct exporter *x, struct json_object *ev)
{
	fputs(x->written++ ? ",\n" : "\n", x->f);
	fputs(json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE),
	      x->f);
	json_object_put(ev);
}

/* proc_of - the Chrome pid of a writer: its tgid, or its host's process */
static int proc_of(struct exporter *x, int src, int tgid)
{
	return x->multi ? src + 1 : tgid;
}

/* event - a new event with the fields every one has */
static struct json_object *event(struct exporter *x, const char *ph,
				 const char *name, const char *cat, int pid,
				 int tid, unsigned long long ts)
{
	struct json_object *ev = json_object_new_object();

	json_object_object_add(ev, "ph", json_object_new_string(ph));
	if (name)
		json_object_object_add(ev, "name", jstr(x, name));
	if (cat)
		json_object_object_add(ev, "cat", json_object_new_string(cat));
	json_object_object_add(ev, "pid", json_object_new_int(pid));
	json_object_object_add(ev, "tid", json_object_new_int(tid));
	json_object_object_add(ev, "ts", jtime(ts));
	return ev;
}

/* marker_event - an event on the writer's thread track */
static struct json_object *marker_event(struct exporter *x,
					const struct tr_event *ev,
					const char *ph, const char *name,
					unsigned long long ts)
{
	return event(x, ph, name, "user_markers", proc_of(x, ev->src, ev->tgid),
		     ev->pid, ts);
}

static struct json_object *args_of(struct json_object *ev)
{
	struct json_object *args = json_object_new_object();

	json_object_object_add(ev, "args", args);
	return args;
}

static void add_int(struct json_object *o, const char *key, long long v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_bool(struct json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

/* close_unended - E events for spans whose end was never recorded */
static void close_unended(struct exporter *x, const struct tr_event *ev)
{
	struct json_object *e;
	int i;

	for (i = 0; i < ev->unended; i++) {
		e = marker_event(x, ev, "E", NULL, ev->ts);
		add_bool(args_of(e), "end_recorded", false);
		emit(x, e);
	}
}

/* cpu_slot - the state of a CPU of a host, grown on first use */
static struct cpu_state *cpu_slot(struct exporter *x, int src, int cpu)
{
	int n = x->nr_cpus[src];

	if (cpu >= n) {
		x->nr_cpus[src] = cpu + 1;
		x->cpus[src] = xrealloc(x->cpus[src],
				      x->nr_cpus[src] * sizeof(*x->cpus[src]));
		memset(x->cpus[src] + n, 0,
		       (x->nr_cpus[src] - n) * sizeof(*x->cpus[src]));
	}
	return &x->cpus[src][cpu];
}

static int cpu_track_pid(int src)
{
	return CPU_TRACK_PID + (src << CPU_TRACK_BITS);
}

/*
 * is_bystander - a task the trace does not show as traced. A switch is
 * recorded when either task is traced, so the CPU tracks would name the
 * other one: with the cgroup notes of "cgtrace record", a task neither
 * noted in a traced cgroup nor writing markers is not named.
 */
static bool is_bystander(struct trace_file *tf, int src, int pid)
{
	struct tr_thread *t = tr_thread_find(tf, src, pid);

	if (!tf->src[src].have_cgroups || (t && t->tgid))
		return false;
	return !tr_cgroup_of(tf, src, pid);
}

/* add_run - the slice a task ran on a CPU, on that CPU's track */
static void add_run(struct exporter *x, struct trace_file *tf, int src,
		    int cpu, int pid, const char *comm,
		    unsigned long long start, unsigned long long end)
{
	struct json_object *e, *args;
	bool other = is_bystander(tf, src, pid);

	if (pid == 0 || end <= start || cpu >= 1 << CPU_TRACK_BITS)
		return;		/* idle is the gap between slices */
	e = event(x, "X", other ? "(other task)" : comm, "sched",
		  cpu_track_pid(src), cpu_track_pid(src) + cpu, start);
	json_object_object_add(e, "dur", jtime(end - start));
	args = args_of(e);
	if (!other) {
		add_int(args, "pid", pid);
		add_int(args, "tgid", tr_tgid(tf, src, pid));
	}
	emit(x, e);
}

/* export_event - turn one trace event into Chrome events, now */
static int export_event(struct trace_file *tf, const struct tr_event *ev,
			void *data)
{
	struct exporter *x = data;
	char name[TR_NAME_MAX + 64];
	struct json_object *e, *args;
	struct cpu_state *c;

	switch (ev->kind) {
	case TR_SWITCH:
		x->have_switch[ev->src] = true;
		c = cpu_slot(x, ev->src, ev->cpu);
		if (c->known)
			add_run(x, tf, ev->src, ev->cpu, ev->prev_pid,
				ev->prev_comm, c->since, ev->ts);
		c->known = true;
		c->since = ev->ts;
		c->pid = ev->next_pid;
		break;
	case TR_BEGIN:
		close_unended(x, ev);
		if (!ev->tracked)
			break;	/* deeper than we track: no end will close it */
		e = marker_event(x, ev, "B", ev->name, ev->ts);
		add_int(args_of(e), "depth", ev->depth);
		emit(x, e);
		break;
	case TR_END:
		if (ev->flags & TR_END_UNMATCHED) {
			snprintf(name, sizeof(name), "unmatched end%s%s",
				 ev->name[0] ? ": " : "", ev->name);
			e = marker_event(x, ev, "i", name, ev->ts);
			json_object_object_add(e, "s", json_object_new_string("t"));
			emit(x, e);
			break;
		}
		close_unended(x, ev);
		if (ev->begin_seen) {
			e = marker_event(x, ev, "E", ev->name, ev->ts);
		} else {
			e = marker_event(x, ev, "X", ev->name, ev->start_ts);
			json_object_object_add(e, "dur",
					       jtime(ev->ts - ev->start_ts));
		}
		args = args_of(e);
		if (!ev->begin_seen) {
			add_int(args, "depth", ev->depth);
			add_bool(args, "begin_recorded", false);
		}
		/* deeper than the kernel tracks: it measured nothing */
		if (ev->flags & TR_END_UNTRACKED) {
			add_bool(args, "untracked", true);
		} else {
			add_int(args, "cpu_ns", ev->cpu_ns);
			add_int(args, "duration_ns", ev->duration_ns);
		}
		if (ev->flags & TR_END_EXITED)
			add_bool(args, "exited", true);
		emit(x, e);
		break;
	case TR_COUNTER:
		/* counters are per process: a host's process holds many */
		if (x->multi)
			snprintf(name, sizeof(name), "%s (pid %d)", ev->name,
				 ev->tgid);
		e = marker_event(x, ev, "C", x->multi ? name : ev->name, ev->ts);
		add_int(args_of(e), "value", ev->value);
		emit(x, e);
		break;
	case TR_ASYNC_BEGIN:
	case TR_ASYNC_END:
		e = marker_event(x, ev, ev->kind == TR_ASYNC_BEGIN ? "b" : "e",
				 ev->name, ev->ts);
		snprintf(name, sizeof(name), "%lld", ev->value);
		if (x->multi) {
			/* global: a request may begin on one host, end on another */
			args = json_object_new_object();
			json_object_object_add(args, "global",
					       json_object_new_string(name));
			json_object_object_add(e, "id2", args);
		} else {
			json_object_object_add(e, "id", json_object_new_string(name));
		}
		emit(x, e);
		break;
	case TR_INSTANT:
		e = marker_event(x, ev, "i", ev->name, ev->ts);
		json_object_object_add(e, "s", json_object_new_string("t"));
		emit(x, e);
		break;
	case TR_LOST:
		e = marker_event(x, ev, "i", "lost records", ev->ts);
		json_object_object_add(e, "s", json_object_new_string("p"));
		add_int(args_of(e), "count", ev->value);
		emit(x, e);
		break;
	default:
		break;
	}
	return ferror(x->f) ? -1 : 0;
}

/* finish - spans still open and CPUs still busy end with the trace */
static void finish(struct exporter *x, struct trace_file *tf)
{
	struct json_object *e;
	struct tr_thread *t;
	int i, d, s;

	for (i = 0; i < TR_HASH_SIZE; i++) {
		for (t = tf->threads[i]; t; t = t->next) {
			for (d = t->nr_open - 1; d >= 0; d--) {
				e = event(x, "E", t->open_name[d], "user_markers",
					  proc_of(x, t->src,
						  tr_tgid(tf, t->src, t->pid)),
					  t->pid, tf->last_ts);
				add_bool(args_of(e), "unfinished", true);
				emit(x, e);
			}
		}
	}
	for (s = 0; s < tf->nr_src; s++)
		for (i = 0; i < x->nr_cpus[s]; i++)
			if (x->cpus[s][i].known)
				add_run(x, tf, s, i, x->cpus[s][i].pid,
					tr_comm(tf, s, x->cpus[s][i].pid),
					x->cpus[s][i].since, tf->last_ts);
}

/* add_meta - one metadata event (process_name, thread_name, sort index) */
static void add_meta(struct exporter *x, const char *what, int pid, int tid,
		     const char *name, int sort)
{
	struct json_object *e = event(x, "M", what, NULL, pid, tid, 0);

	if (name)
		json_object_object_add(args_of(e), "name", jstr(x, name));
	else
		add_int(args_of(e), "sort_index", sort);
	emit(x, e);
}

/* metadata - name the hosts, processes and threads that wrote markers */
static void metadata(struct exporter *x, struct trace_file *tf)
{
	char buf[TR_COMM_MAX + 128];
	struct tr_thread *t, *p;
	int i, s;

	for (s = 0; x->multi && s < tf->nr_src; s++) {
		add_meta(x, "process_name", s + 1, s + 1, tf->src[s].host, 0);
		add_meta(x, "process_sort_index", s + 1, s + 1, NULL, 2 * s);
	}
	for (i = 0; i < TR_HASH_SIZE; i++) {
		for (t = tf->threads[i]; t; t = t->next) {
			if (!t->tgid)
				continue;	/* never wrote a marker */
			p = tr_thread_find(tf, t->src, t->tgid);
			if (!x->multi && (t->tgid == t->pid || !p || !p->tgid))
				add_meta(x, "process_name", t->tgid, t->tgid,
					 tr_comm(tf, t->src, t->tgid), 0);
			if (x->multi && t->tgid != t->pid)
				snprintf(buf, sizeof(buf), "%s (pid %d)",
					 tr_comm(tf, t->src, t->pid), t->tgid);
			else
				snprintf(buf, sizeof(buf), "%s",
					 tr_comm(tf, t->src, t->pid));
			add_meta(x, "thread_name", proc_of(x, t->src, t->tgid),
				 t->pid, buf, 0);
		}
	}
	for (s = 0; s < tf->nr_src; s++) {
		if (!x->have_switch[s])
			continue;
		if (x->multi)
			snprintf(buf, sizeof(buf), "%s: CPUs (sched_switch)",
				 tf->src[s].host);
		add_meta(x, "process_name", cpu_track_pid(s), cpu_track_pid(s),
			 x->multi ? buf : "CPUs (sched_switch)", 0);
		if (x->multi)
			add_meta(x, "process_sort_index", cpu_track_pid(s),
				 cpu_track_pid(s), NULL, 2 * s + 1);
		for (i = 0; i < x->nr_cpus[s]; i++) {
			snprintf(buf, sizeof(buf), "CPU %d", i);
			add_meta(x, "thread_name", cpu_track_pid(s),
				 cpu_track_pid(s) + i, buf, 0);
		}
	}
}

/* write_tail - close the event array and say where the data came from */
static void write_tail(struct exporter *x, struct trace_file *tf)
{
	struct json_object *o = json_object_new_object(), *src;
	int i;

	src = json_object_new_array();
	for (i = 0; i < tf->nr_src; i++)
		json_object_array_add(src, jstr(x, tf->src[i].path));
	json_object_object_add(o, "source", src);
	json_object_object_add(o, "clock", json_object_new_string(
		tf->wall ? "wall (gettimeofday)" : "trace clock"));
	json_object_object_add(o, "version",
			       json_object_new_string("cgtrace " CGTRACE_VERSION));
	fprintf(x->f, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":%s}\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static const struct option export_options[] = {
	{ "chrome", required_argument, NULL, 'c' },
	TR_INPUT_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option *export_long_options(void)
{
	return export_options;
}

void export_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace export --chrome OUT.json [-i FILE]... [-B BUFFER] [--wall]\n"
"\n"
"Convert the user_markers and sched_switch events of a trace.dat to the\n"
"Chrome trace event format ({\"traceEvents\": [...]}), which the Perfetto\n"
"UI (ui.perfetto.dev) and chrome://tracing open. Spans are \"B\"/\"E\" pairs\n"
"on their thread (pid = tgid, tid = thread), the end carrying cpu_ns and\n"
"duration_ns; an end whose begin was not recorded is a complete event\n"
"(\"X\"); async spans are \"b\"/\"e\" with the cookie as id; counters \"C\";\n"
"instants, unmatched ends and lost records \"i\"; spans still open at the\n"
"end run to the trace's end. sched_switch, when recorded, becomes a \"CPUs\"\n"
"process with one track per CPU showing which task ran when; with the notes\n"
"of \"cgtrace record\", a task outside the traced cgroups that a switch names\n"
"as the other side is shown as \"(other task)\". Timestamps\n"
"are microseconds. Events are written as they are read: memory does not\n"
"grow with the length of the trace.\n"
"\n"
"options:\n"
"  -c, --chrome OUT   the JSON file to write (\"-\": standard output); it is\n"
"                     written to OUT.tmp-PID and renamed when complete\n"
"  -i, --input FILE   a trace (default: trace.dat). Given several times\n"
"                     (one file per host), the files are merged in wall-clock\n"
"                     time, each host one process named by the host, its\n"
"                     counters named \"NAME (pid N)\", async ids global\n"
"  -B, --buffer NAME  convert only this buffer: an instance (\"cgtrace\n"
"                     record\" records into one, cgtrace-PID unless -B) or\n"
"                     \"top\", the top-level buffer. Default: every buffer\n"
"      --wall         timestamps as the wall clock (gettimeofday()), from\n"
"                     the clock samples of \"cgtrace record\", \"trace-cmd\n"
"                     record --date\" or FILE.clock (\"TRACE_NS REALTIME_NS\");\n"
"                     viewers read numbers as doubles, so wall times keep\n"
"                     about 0.25 us precision\n"
"  -h, --help         this text\n"
"\n"
"exit status: 0 success, 1 error (unreadable file, not a trace.dat, no\n"
"user_markers events, cannot write OUT), 129 usage.\n");
}

static void exporter_free(struct exporter *x)
{
	int i;

	for (i = 0; i < TR_MAX_INPUTS; i++)
		free(x->cpus[i]);
	free(x->sbuf);
	if (x->utf8 != (iconv_t)-1)
		iconv_close(x->utf8);
}

/* cmd_export - the export subcommand */
int cmd_export(int argc, char **argv)
{
	struct exporter x = { .utf8 = (iconv_t)-1 };
	struct out_target target = { 0 };
	struct tr_input in = { 0 };
	char *tmp = NULL;
	const char *out = NULL;
	struct trace_file tf;
	int c, k, fd, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:h" TR_INPUT_SHORTOPTS,
				export_options, NULL)) != -1) {
		k = tr_input_option(&in, c, optarg);
		if (k < 0)
			goto usage;
		if (k)
			continue;
		switch (c) {
		case 'c':
			out = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			opt_error("export", argv, "c:h" TR_INPUT_SHORTOPTS,
				  export_options);
			goto usage;
		}
	}
	if (optind < argc || !out) {
		if (optind < argc)
			err_msg("export: unexpected argument '%s'", argv[optind]);
		else
			err_msg("export: say which format: --chrome OUT.json");
		goto usage;
	}

	x.utf8 = iconv_open("UTF-8", "UTF-8");
	if (x.utf8 == (iconv_t)-1) {
		err_msg("iconv cannot check UTF-8: %s", strerror(errno));
		return EXIT_FAIL;
	}
	/* what --chrome names, before any input is read */
	if (out_check(&target, out, "--chrome", false))
		goto out;
	tmp = xasprintf("%s/.cgtrace-export-%d-XXXXXX", target.spool_dir,
			getpid());
	fd = mkostemp(tmp, O_CLOEXEC);
	x.f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!x.f) {
		err_msg("cannot make %s to write the JSON in: %s", tmp,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	x.multi = in.nr_paths > 1;
	in.want_cgroups = true;		/* to leave bystanders unnamed */
	fputs("{\"traceEvents\":[", x.f);
	if (tr_read_markers(&tf, &in, export_event, &x) < 0)
		goto out;
	finish(&x, &tf);
	metadata(&x, &tf);
	write_tail(&x, &tf);
	tr_close(&tf);
	/* the JSON whole in the spool, then into what --chrome names */
	k = fflush(x.f) || ferror(x.f);
	if (fclose(x.f) || k) {
		x.f = NULL;
		err_msg("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	x.f = NULL;
	if (out_commit(&target, tmp))
		goto out;
	ret = 0;
out:
	if (x.f)
		fclose(x.f);
	if (tmp && !target.renamed)
		unlink(tmp);
	free(tmp);
	out_free(&target);
	exporter_free(&x);
	return ret;
usage:
	fprintf(stderr, "(cgtrace export --help lists the options)\n");
	return EXIT_USAGE;
}
