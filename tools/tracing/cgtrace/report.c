// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - "cgtrace report": span statistics from user_markers events
 *
 * Spans come from the end events, which carry the duration and on-CPU time
 * the kernel measured; their begin events give the start. Async spans are
 * paired by process, name and cookie here, or across hosts by name and
 * cookie. Everything is grouped by span name, by writer thread, by the
 * writer's cgroup (noted in the trace by "cgtrace record") or by host.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"
#include "trace_read.h"

enum by_mode { BY_NAME, BY_THREAD, BY_CGROUP, BY_HOST };

enum row_type { ROW_SPAN, ROW_ASYNC, ROW_COUNTER, ROW_INSTANT, ROW_NR };

/* one line of the report: a (group, name) pair of one type */
struct row {
	struct row		*next;		/* hash chain */
	enum row_type		type;
	char			*group;
	char			*name;
	unsigned long long	*dur;		/* durations of spans */
	unsigned long long	*cpu;		/* cpu_ns of spans */
	size_t			n, alloc;
	unsigned long long	total, cpu_total;
	unsigned long long	exited, unmatched;	/* end flags seen */
	unsigned long long	untracked;	/* ends with no times */
	long long		cmin, cmax, last;	/* counters */
};

/* an async begin waiting for its end */
struct async_open {
	struct async_open	*next;
	int			src;
	int			tgid;
	long long		cookie;
	char			*name;
	char			*group;
	unsigned long long	ts;
};

#define RHASH_SIZE	4096

struct report {
	enum by_mode		by;
	struct row		*rows[RHASH_SIZE];
	size_t			nr_rows;
	struct async_open	*async[RHASH_SIZE];
	unsigned long long	ends, unmatched, exited, untracked, instants;
	unsigned long long	async_unpaired_ends, async_dup_begins;
	/* lost records per tgid: small array, few groups are rate limited */
	struct { int src, tgid; unsigned long long count; } *lost;
	size_t			nr_lost;
	/* ends flagged unmatched/exited, listed with their times */
	struct tr_event		flagged[20];
	char			flagged_name[20][TR_NAME_MAX];
	char			flagged_comm[20][TR_COMM_MAX];
	size_t			nr_flagged;
	/*
	 * async spans begun on host i and ended on host j: the least
	 * end - begin, which bounds clock(j) - clock(i) from above
	 */
	long long		gap[TR_MAX_INPUTS][TR_MAX_INPUTS];
	unsigned long long	nr_gap[TR_MAX_INPUTS][TR_MAX_INPUTS];
	unsigned long long	cross_host;
};

static unsigned int str_hash(const char *a, const char *b, unsigned int x)
{
	uint32_t h = 2166136261u ^ x;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h % RHASH_SIZE;
}

/* row_get - the row of (type, group, name), created on first use */
static struct row *row_get(struct report *r, enum row_type type,
			   const char *group, const char *name)
{
	unsigned int h = str_hash(group, name, type);
	struct row *row;

	for (row = r->rows[h]; row; row = row->next)
		if (row->type == type && !strcmp(row->group, group) &&
		    !strcmp(row->name, name))
			return row;
	row = xzalloc(sizeof(*row));
	row->type = type;
	row->group = xstrdup(group);
	row->name = xstrdup(name);
	row->next = r->rows[h];
	r->rows[h] = row;
	r->nr_rows++;
	return row;
}

static void row_add_span(struct row *row, unsigned long long dur,
			 unsigned long long cpu)
{
	if (row->n == row->alloc) {
		row->alloc = row->alloc ? row->alloc * 2 : 16;
		row->dur = xrealloc(row->dur, row->alloc * sizeof(*row->dur));
		row->cpu = xrealloc(row->cpu, row->alloc * sizeof(*row->cpu));
	}
	row->dur[row->n] = dur;
	row->cpu[row->n] = cpu;
	row->n++;
	row->total += dur;
	row->cpu_total += cpu;
}

/* group_of - the group label of an event's writer */
static const char *group_of(struct report *r, struct trace_file *tf,
			    const struct tr_event *ev, char *buf, size_t size)
{
	const char *host = tf->nr_src > 1 ? tf->src[ev->src].host : "";
	const char *sep = tf->nr_src > 1 ? ":" : "";
	const char *cg;

	switch (r->by) {
	case BY_THREAD:
		snprintf(buf, size, "%s%s%s-%d", host, sep,
			 tr_comm(tf, ev->src, ev->pid), ev->pid);
		return buf;
	case BY_CGROUP:
		cg = tr_cgroup_of(tf, ev->src, ev->pid);
		snprintf(buf, size, "%s%s%s", host, sep,
			 cg ? cg : "(unknown cgroup)");
		return buf;
	case BY_HOST:
		return tf->src[ev->src].host;
	default:
		return "";
	}
}

static void add_lost(struct report *r, int src, int tgid,
		     unsigned long long count)
{
	size_t i;

	for (i = 0; i < r->nr_lost; i++) {
		if (r->lost[i].tgid == tgid && r->lost[i].src == src) {
			r->lost[i].count += count;
			return;
		}
	}
	r->lost = xrealloc(r->lost, (r->nr_lost + 1) * sizeof(*r->lost));
	r->lost[r->nr_lost].src = src;
	r->lost[r->nr_lost].tgid = tgid;
	r->lost[r->nr_lost].count = count;
	r->nr_lost++;
}

/*
 * async_begin/async_end - pair S and F records by (host, tgid, name,
 * cookie); an end with no begin of its own process pairs with a begin of
 * the same name and cookie on another host: a request handed over the
 * network, whose two ends bound how far apart the two clocks may be.
 */
static void async_begin(struct report *r, const struct tr_event *ev,
			const char *group)
{
	unsigned int h = str_hash(ev->name, "", (unsigned int)ev->value);
	struct async_open *a;

	for (a = r->async[h]; a; a = a->next) {
		if (a->src == ev->src && a->tgid == ev->tgid &&
		    a->cookie == ev->value && !strcmp(a->name, ev->name)) {
			/* a second begin restarts the span */
			r->async_dup_begins++;
			a->ts = ev->ts;
			return;
		}
	}
	a = xrealloc(NULL, sizeof(*a));
	a->src = ev->src;
	a->tgid = ev->tgid;
	a->cookie = ev->value;
	a->name = xstrdup(ev->name);
	a->group = xstrdup(group);
	a->ts = ev->ts;
	a->next = r->async[h];
	r->async[h] = a;
}

static struct async_open **async_find(struct report *r,
				      const struct tr_event *ev, bool other_host)
{
	unsigned int h = str_hash(ev->name, "", (unsigned int)ev->value);
	struct async_open **pp, *a;

	for (pp = &r->async[h]; (a = *pp); pp = &a->next) {
		if (a->cookie != ev->value || strcmp(a->name, ev->name))
			continue;
		if (other_host ? a->src != ev->src :
		    a->src == ev->src && a->tgid == ev->tgid)
			return pp;
	}
	return NULL;
}

static void async_end(struct report *r, const struct tr_event *ev)
{
	struct async_open **pp, *a;
	long long gap;

	pp = async_find(r, ev, false);
	if (!pp)
		pp = async_find(r, ev, true);
	if (!pp) {
		r->async_unpaired_ends++;
		return;
	}
	a = *pp;
	*pp = a->next;
	gap = (long long)(ev->ts - a->ts);
	if (a->src != ev->src) {
		r->cross_host++;
		if (!r->nr_gap[a->src][ev->src] || gap < r->gap[a->src][ev->src])
			r->gap[a->src][ev->src] = gap;
		r->nr_gap[a->src][ev->src]++;
	}
	/* grouped where it began; no on-CPU time for async spans */
	row_add_span(row_get(r, ROW_ASYNC, a->group, a->name),
		     gap > 0 ? gap : 0, 0);
	free(a->name);
	free(a->group);
	free(a);
}

/* report_event - account one event */
static int report_event(struct trace_file *tf, const struct tr_event *ev,
			void *data)
{
	struct report *r = data;
	char gbuf[4352];
	const char *group;
	struct row *row;

	if (ev->kind == TR_SWITCH)
		return 0;
	group = group_of(r, tf, ev, gbuf, sizeof(gbuf));

	switch (ev->kind) {
	case TR_END:
		r->ends++;
		if (ev->flags & (TR_END_UNMATCHED | TR_END_EXITED) &&
		    r->nr_flagged < 20) {
			size_t i = r->nr_flagged++;

			r->flagged[i] = *ev;
			r->flagged[i].name = r->flagged[i].name_buf;
			snprintf(r->flagged_name[i], TR_NAME_MAX, "%s", ev->name);
			snprintf(r->flagged_comm[i], TR_COMM_MAX, "%s",
				 tr_comm(tf, ev->src, ev->pid));
		}
		if (ev->flags & TR_END_UNMATCHED) {
			/* counted per name only when the end named a span */
			r->unmatched++;
			if (ev->name[0])
				row_get(r, ROW_SPAN, group, ev->name)->unmatched++;
			break;
		}
		row = row_get(r, ROW_SPAN, group, ev->name[0] ? ev->name :
			      "(untracked)");
		/* deeper than the kernel tracks: no duration to count */
		if (ev->flags & TR_END_UNTRACKED) {
			r->untracked++;
			row->untracked++;
			break;
		}
		if (ev->flags & TR_END_EXITED) {
			r->exited++;
			row->exited++;
		}
		row_add_span(row, ev->duration_ns,
			     ev->cpu_ns < ev->duration_ns ? ev->cpu_ns :
			     ev->duration_ns);
		break;
	case TR_COUNTER:
		row = row_get(r, ROW_COUNTER, group, ev->name);
		if (!row->n || ev->value < row->cmin)
			row->cmin = ev->value;
		if (!row->n || ev->value > row->cmax)
			row->cmax = ev->value;
		row->last = ev->value;
		row->n++;
		break;
	case TR_INSTANT:
		r->instants++;
		row_get(r, ROW_INSTANT, group, ev->name)->n++;
		break;
	case TR_ASYNC_BEGIN:
		async_begin(r, ev, group);
		break;
	case TR_ASYNC_END:
		async_end(r, ev);
		break;
	case TR_LOST:
		add_lost(r, ev->src, ev->tgid, ev->value);
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* percentile - nearest-rank percentile of sorted values */
static unsigned long long percentile(const unsigned long long *v, size_t n,
				     unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	if (!n)
		return 0;
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

/* rows sort by type, group, then total time (largest first), then name */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = *(const struct row **)a;
	const struct row *y = *(const struct row **)b;
	int c;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	c = strcmp(x->group, y->group);
	if (c)
		return c;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *by_label(enum by_mode by)
{
	return by == BY_THREAD ? "THREAD" : by == BY_CGROUP ? "CGROUP" :
	       by == BY_HOST ? "HOST" : NULL;
}

/* print_spans - one table of span (or async span) statistics */
static void print_spans(struct report *r, struct row **rows, size_t n,
			enum row_type type)
{
	const char *gl = by_label(r->by);
	char b[9][32];
	bool header = false;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		struct row *row = rows[i];
		unsigned long long *s;

		if (row->type != type)
			continue;
		if (!header) {
			printf("\n%s\n", type == ROW_SPAN ? "Spans (from end events; blocked = duration - on-CPU):" :
			       "Async spans (paired by process, name and cookie):");
			if (gl)
				printf("%-24s ", gl);
			printf("%-24s %7s %11s %11s %11s %11s %11s %11s",
			       "NAME", "COUNT", "TOTAL", "MIN", "MEAN", "P50",
			       "P99", "MAX");
			if (type == ROW_SPAN)
				printf(" %11s %11s %6s %6s %6s", "ON-CPU", "BLOCKED",
				       "EXITED", "UNMAT", "UNTRK");
			printf("\n");
			header = true;
		}
		s = xrealloc(NULL, (row->n + 1) * sizeof(*s));
		memcpy(s, row->dur, row->n * sizeof(*s));
		qsort(s, row->n, sizeof(*s), cmp_ull);
		tr_format_dur(row->total, b[0], sizeof(b[0]));
		tr_format_dur(row->n ? s[0] : 0, b[1], sizeof(b[1]));
		tr_format_dur(row->n ? row->total / row->n : 0, b[2], sizeof(b[2]));
		tr_format_dur(percentile(s, row->n, 50), b[3], sizeof(b[3]));
		tr_format_dur(percentile(s, row->n, 99), b[4], sizeof(b[4]));
		tr_format_dur(row->n ? s[row->n - 1] : 0, b[5], sizeof(b[5]));
		tr_format_dur(row->cpu_total, b[6], sizeof(b[6]));
		tr_format_dur(row->total - row->cpu_total, b[7], sizeof(b[7]));
		free(s);
		if (!row->n)	/* only ends without times of this name */
			for (k = 0; k < 8; k++)
				strcpy(b[k], "-");
		if (gl)
			printf("%-24s ", row->group);
		printf("%-24s %7zu %11s %11s %11s %11s %11s %11s",
		       row->name, row->n, b[0], b[1], b[2], b[3], b[4], b[5]);
		if (type == ROW_SPAN)
			printf(" %11s %11s %6llu %6llu %6llu", b[6], b[7],
			       row->exited, row->unmatched, row->untracked);
		printf("\n");
	}
}

/*
 * print_clock_evidence - what the async spans that crossed hosts say of
 * the clocks: a span begun on A and ended on B ended after it began, so
 * clock(B) - clock(A) <= its measured end - begin; spans both ways bound
 * the difference from both sides. A negative bound means B's clock is
 * behind A's by at least that much: those spans appear to end before
 * they begin.
 */
static void print_clock_evidence(struct report *r, struct trace_file *tf)
{
	char up[32], down[32];
	long long ab, ba;
	int i, j;

	for (i = 0; i < tf->nr_src; i++) {
		for (j = i + 1; j < tf->nr_src; j++) {
			if (!r->nr_gap[i][j] && !r->nr_gap[j][i])
				continue;
			ab = r->gap[i][j];
			ba = r->gap[j][i];
			printf("clock: %llu async spans %s -> %s, %llu %s -> %s: clock(%s) - clock(%s) is",
			       r->nr_gap[i][j], tf->src[i].host, tf->src[j].host,
			       r->nr_gap[j][i], tf->src[j].host, tf->src[i].host,
			       tf->src[j].host, tf->src[i].host);
			tr_format_dur(ab < 0 ? -ab : ab, up, sizeof(up));
			tr_format_dur(ba < 0 ? -ba : ba, down, sizeof(down));
			if (r->nr_gap[j][i])
				printf(" >= %s%s", ba > 0 ? "-" : "", down);
			if (r->nr_gap[i][j] && r->nr_gap[j][i])
				printf(" and");
			if (r->nr_gap[i][j])
				printf(" <= %s%s", ab < 0 ? "-" : "", up);
			printf("\n");
			if (r->nr_gap[i][j] && ab < 0)
				printf("clock: %s's clock is behind %s's by at least %s: spans from %s to %s\n"
				       "       appear to end before they begin\n",
				       tf->src[j].host, tf->src[i].host, up,
				       tf->src[i].host, tf->src[j].host);
			if (r->nr_gap[j][i] && ba < 0)
				printf("clock: %s's clock is behind %s's by at least %s: spans from %s to %s\n"
				       "       appear to end before they begin\n",
				       tf->src[i].host, tf->src[j].host, down,
				       tf->src[j].host, tf->src[i].host);
		}
	}
}

static void print_report(struct report *r, struct trace_file *tf)
{
	const char *gl = by_label(r->by);
	char t0[64], t1[64], d[32];
	struct row **rows, *row;
	bool header;
	size_t i, n = 0;
	unsigned long long open = 0;
	struct tr_thread *t;

	tr_format_time(tf, tf->first_ts, t0, sizeof(t0));
	tr_format_time(tf, tf->last_ts, t1, sizeof(t1));
	tr_format_dur(tf->last_ts - tf->first_ts, d, sizeof(d));
	printf("trace: ");
	for (i = 0; i < (size_t)tf->nr_src; i++)
		printf("%s%s", i ? ", " : "", tf->src[i].path);
	printf(" (buffers: ");
	tr_print_buffers(tf, stdout);
	printf(")\n");
	printf("time:  %s .. %s (%s)%s\n", t0, t1, d,
	       tf->wall ? ", wall clock" : "");
	tr_print_clocks(tf, stdout);
	print_clock_evidence(r, tf);
	printf("marker events: %llu", tf->nr_marker_seen);
	if (tf->missed)
		printf(", ring buffer lost %llu events (not only markers)",
		       tf->missed);
	if (tf->missed_unknown)
		printf(", ring buffer lost events %llu times (counts not recorded)",
		       tf->missed_unknown);
	printf("\n");

	rows = xrealloc(NULL, (r->nr_rows + 1) * sizeof(*rows));
	for (i = 0; i < RHASH_SIZE; i++)
		for (row = r->rows[i]; row; row = row->next)
			rows[n++] = row;
	qsort(rows, n, sizeof(*rows), cmp_row);

	print_spans(r, rows, n, ROW_SPAN);
	print_spans(r, rows, n, ROW_ASYNC);

	header = false;
	for (i = 0; i < n; i++) {
		row = rows[i];
		if (row->type != ROW_COUNTER)
			continue;
		if (!header) {
			printf("\nCounters:\n");
			if (gl)
				printf("%-24s ", gl);
			printf("%-24s %7s %20s %20s %20s\n", "NAME", "COUNT",
			       "MIN", "MAX", "LAST");
			header = true;
		}
		if (gl)
			printf("%-24s ", row->group);
		printf("%-24s %7zu %20lld %20lld %20lld\n", row->name, row->n,
		       row->cmin, row->cmax, row->last);
	}

	header = false;
	for (i = 0; i < n; i++) {
		row = rows[i];
		if (row->type != ROW_INSTANT)
			continue;
		if (!header) {
			printf("\nInstants:\n");
			if (gl)
				printf("%-24s ", gl);
			printf("%-24s %7s\n", "NAME", "COUNT");
			header = true;
		}
		if (gl)
			printf("%-24s ", row->group);
		printf("%-24s %7zu\n", row->name, row->n);
	}
	free(rows);

	for (i = 0; i < TR_HASH_SIZE; i++)
		for (t = tf->threads[i]; t; t = t->next)
			open += t->nr_open;

	printf("\nSummary: %llu ends (%llu unmatched, %llu exited, %llu untracked), %llu spans still open\n"
	       "         at the end, %llu instants, %llu async ends without a begin, %llu repeated async begins\n",
	       r->ends, r->unmatched, r->exited, r->untracked, open, r->instants,
	       r->async_unpaired_ends, r->async_dup_begins);
	for (i = 0; i < r->nr_flagged; i++) {
		const struct tr_event *ev = &r->flagged[i];

		tr_format_time(tf, ev->ts, t0, sizeof(t0));
		printf("  %s %s-%d: %s end of \"%s\" at depth %lld\n", t0,
		       r->flagged_comm[i], ev->pid,
		       ev->flags & TR_END_UNMATCHED ? "unmatched" : "exited",
		       r->flagged_name[i], ev->depth);
	}
	if (r->nr_flagged < r->unmatched + r->exited)
		printf("  ... (first %zu listed)\n", r->nr_flagged);
	if (!r->nr_lost) {
		printf("Lost records (rate limit): none\n");
	} else {
		printf("Lost records (rate limit), per process:\n");
		for (i = 0; i < r->nr_lost; i++)
			printf("  %s%s%-20s tgid %-8d %llu\n",
			       tf->nr_src > 1 ? tf->src[r->lost[i].src].host : "",
			       tf->nr_src > 1 ? ":" : "",
			       tr_comm(tf, r->lost[i].src, r->lost[i].tgid),
			       r->lost[i].tgid, r->lost[i].count);
	}
	for (i = 0; r->by == BY_CGROUP && i < (size_t)tf->nr_src; i++)
		printf("(cgroups of %s from %s)\n", tf->src[i].path,
		       tf->src[i].cgroups_source);
}

static void report_free(struct report *r)
{
	struct async_open *a, *an;
	struct row *row, *rn;
	size_t i;

	for (i = 0; i < RHASH_SIZE; i++) {
		for (row = r->rows[i]; row; row = rn) {
			rn = row->next;
			free(row->group);
			free(row->name);
			free(row->dur);
			free(row->cpu);
			free(row);
		}
		for (a = r->async[i]; a; a = an) {
			an = a->next;
			free(a->name);
			free(a->group);
			free(a);
		}
	}
	free(r->lost);
}

static const struct option report_options[] = {
	TR_INPUT_LONGOPTS,
	{ "sort", required_argument, NULL, 's' },
	{ "by", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option *report_long_options(void)
{
	return report_options;
}

void report_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace report [-i FILE]... [-B BUFFER] [-s name|thread|cgroup|host] [--wall]\n"
"\n"
"Statistics of the user-space marker spans in a trace.dat recorded with\n"
"\"-e user_markers\" (Documentation/trace/user-markers.rst): per group the\n"
"count, total, min, mean, p50, p99 and max duration, the on-CPU time\n"
"(cpu_ns) and the blocked time (duration - on-CPU); async spans paired\n"
"by process, name and cookie (or across hosts by name and cookie);\n"
"counters (count, min, max, last); instants; unmatched and exited ends;\n"
"ends of spans nested deeper than the kernel tracks (untracked: no times);\n"
"records the rate limit dropped (lost events) per process.\n"
"\n"
"options:\n"
"  -i, --input FILE     a trace (default: trace.dat). Given several times\n"
"                       (one file per host), the files are merged in\n"
"                       wall-clock time, as with --wall, and the report says\n"
"                       how far apart the hosts' clocks may have been\n"
"  -B, --buffer NAME    read only this buffer: an instance (\"cgtrace record\"\n"
"                       records into one, cgtrace-PID unless -B) or \"top\",\n"
"                       the top-level buffer. Default: every buffer, merged\n"
"  -s, --sort, --by KEY group by span name (default), writer thread, the\n"
"                       writer's cgroup or host. trace.dat holds no cgroup\n"
"                       per event: \"cgtrace record\" notes each traced\n"
"                       task's cgroup in the trace; older recordings give\n"
"                       them in FILE.cgroups, lines \"PID CGROUP_PATH\"\n"
"      --wall           times as the wall clock (gettimeofday()): from the\n"
"                       clock samples \"cgtrace record\" stores in the trace,\n"
"                       \"trace-cmd record --date\", or FILE.clock with lines\n"
"                       \"TRACE_NS REALTIME_NS\"\n"
"  -h, --help           this text\n"
"\n"
"exit status: 0 success, 1 error (unreadable file, not a trace.dat, no\n"
"user_markers events, no wall-clock or cgroup reference), 129 usage.\n");
}

/* cmd_report - the report subcommand */
int cmd_report(int argc, char **argv)
{
	static const char * const keys[] = {
		[BY_NAME] = "name", [BY_THREAD] = "thread",
		[BY_CGROUP] = "cgroup", [BY_HOST] = "host",
	};
	struct tr_input in = { 0 };
	struct trace_file tf;
	struct report *r;
	int c, k;

	r = xzalloc(sizeof(*r));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:h" TR_INPUT_SHORTOPTS,
				report_options, NULL)) != -1) {
		k = tr_input_option(&in, c, optarg);
		if (k < 0)
			goto usage;
		if (k)
			continue;
		switch (c) {
		case 's':
			for (k = 0; k < 4 && strcmp(optarg, keys[k]); k++)
				;
			if (k == 4) {
				err_msg("report: --sort takes name, thread, cgroup or host");
				goto usage;
			}
			r->by = k;
			break;
		case 'h':
			report_usage(stdout);
			free(r);
			return 0;
		default:
			opt_error("report", argv, "s:h" TR_INPUT_SHORTOPTS,
				  report_options);
			goto usage;
		}
	}
	if (optind < argc) {
		err_msg("report: unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	in.need_cgroups = r->by == BY_CGROUP;
	if (tr_read_markers(&tf, &in, report_event, r) < 0) {
		report_free(r);
		free(r);
		return EXIT_FAIL;
	}
	print_report(r, &tf);
	report_free(r);
	free(r);
	tr_close(&tf);
	return 0;
usage:
	fprintf(stderr, "(cgtrace report --help lists the options)\n");
	free(r);
	return EXIT_USAGE;
}
