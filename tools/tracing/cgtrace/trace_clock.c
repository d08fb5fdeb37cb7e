// SPDX-License-Identifier: GPL-2.0
/*
 * trace_clock.c - from a trace's clock to the wall clock: the offset from
 * the clock samples of "cgtrace record" (or FILE.clock, or trace-cmd
 * --date), how far the wall clock strayed while recording, and how far
 * apart the hosts of several files may be
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"
#include "trace_read.h"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* tr_clock_pair - one (trace ts, realtime) sample of a source */
void tr_clock_pair(struct tr_source *s, unsigned long long ts,
		     unsigned long long real)
{
	int n = s->nr_clock_pairs;

	/* grow to 1, 2, 4, 8... */
	if (!(n & (n - 1)))
		s->pair_offsets = xrealloc(s->pair_offsets, (n ? 2 * n : 1) *
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
 * tr_clock_later - a clock sample of the main pass (ts has the offset added
 * already): how far the wall clock strayed from the offset while
 * recording. A sample reads low by its write's latency, so the drift is
 * the best (largest) of each window of TR_DRIFT_WINDOW samples; one
 * preempted sample does not count as drift.
 */
void tr_clock_later(struct tr_source *s, long long dev)
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

/* tr_clock_drift_end - a recording shorter than a window: its best sample */
void tr_clock_drift_end(struct tr_source *s)
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
			tr_clock_pair(s, t, r);
	fclose(f);
	return s->nr_clock_pairs ? 0 : -1;
}

/* tr_clock_setup_wall - decide how a source's timestamps become wall-clock time */
int tr_clock_setup_wall(struct tr_source *s)
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
