// SPDX-License-Identifier: GPL-2.0
/*
 * buffer_stats.c - the ring buffer counts of the recorded instance
 *
 * The kernel counts, per CPU, the events in the buffer not read yet
 * (entries), read out (read events), overwritten before they were read
 * (overrun), lost to a nested write (commit overrun) and refused by a full
 * buffer (dropped events). With tracing off nothing is added, so
 * entries + read is every event the buffer kept for its readers: what the
 * file must hold, and what it lacks was left unread. cgtrace reads the
 * counts at that moment (bs_final), before trace-cmd ends; trace-cmd
 * resets the buffers when it ends.
 *
 * The stats files stay open while trace-cmd runs: an open file holds a
 * reference on the instance, so trace-cmd's rmdir of an instance it did
 * not make fails, and cgtrace restores and keeps it.
 *
 * libtracefs 1.8 parses the stats (tracefs_instance_get_stat()); with an
 * older one cgtrace reads the "key: value" lines itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "cgtrace.h"
#include "buffer_stats.h"

#define MAX_CPUS	4096

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* bs_pin - open per_cpu/cpuN/stats of every CPU of the instance */
int bs_pin(struct buffer_stats *bs, struct tracefs_instance *inst)
{
	char *dir, file[64];
	struct dirent *d;
	int cpu, i;
	DIR *dp;

	memset(bs, 0, sizeof(*bs));
	bs->inst = inst;
	dir = tracefs_instance_get_file(inst, "per_cpu");
	dp = dir ? opendir(dir) : NULL;
	if (!dp) {
		err_msg("cannot read %s: %s", dir ? dir : "per_cpu", strerror(errno));
		tracefs_put_tracing_file(dir);
		return -1;
	}
	bs->cpu = xzalloc(MAX_CPUS * sizeof(*bs->cpu));
	while ((d = readdir(dp)) && bs->nr < MAX_CPUS)
		if (sscanf(d->d_name, "cpu%d", &cpu) == 1)
			bs->cpu[bs->nr++] = cpu;
	closedir(dp);
	tracefs_put_tracing_file(dir);
	qsort(bs->cpu, bs->nr, sizeof(*bs->cpu), cmp_int);
	bs->fd = xzalloc(bs->nr * sizeof(*bs->fd));
	bs->seen = xzalloc(bs->nr * sizeof(*bs->seen));
	bs->final = xzalloc(bs->nr * sizeof(*bs->final));
	for (i = 0; i < bs->nr; i++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", bs->cpu[i]);
		bs->fd[i] = tracefs_instance_file_open(inst, file, O_RDONLY);
		if (bs->fd[i] < 0) {
			err_msg("cannot open %s of the instance: %s", file,
				strerror(errno));
			bs->nr = i;
			bs_unpin(bs);
			return -1;
		}
	}
	return 0;
}

/* bs_unpin - close the stats files: the instance can be removed */
void bs_unpin(struct buffer_stats *bs)
{
	int i;

	for (i = 0; i < bs->nr; i++)
		close(bs->fd[i]);
	free(bs->cpu);
	free(bs->fd);
	free(bs->seen);
	free(bs->final);
	memset(bs, 0, sizeof(*bs));
}

#ifdef HAVE_TRACEFS_BUFFER_STAT
/* read_counts - one CPU's counts, parsed by libtracefs */
static int read_counts(struct buffer_stats *bs, int i, struct cpu_counts *c)
{
	struct tracefs_buffer_stat *st;

	st = tracefs_instance_get_stat(bs->inst, bs->cpu[i]);
	if (!st)
		return -1;
	c->entries = tracefs_buffer_stat_entries(st);
	c->read = tracefs_buffer_stat_read_events(st);
	c->overrun = tracefs_buffer_stat_overrun(st);
	c->commit_overrun = tracefs_buffer_stat_commit_overrun(st);
	c->dropped = tracefs_buffer_stat_dropped_events(st);
	tracefs_instance_put_stat(st);
	return 0;
}
#else
/* stat_value - the number after "key:" in a stats text, 0 if absent */
static unsigned long long stat_value(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
	return 0;
}

/* read_counts - one CPU's counts, from its pinned stats file */
static int read_counts(struct buffer_stats *bs, int i, struct cpu_counts *c)
{
	char buf[1024];
	ssize_t n;

	n = pread(bs->fd[i], buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	c->entries = stat_value(buf, "entries");
	c->read = stat_value(buf, "read events");
	c->overrun = stat_value(buf, "overrun");
	c->commit_overrun = stat_value(buf, "commit overrun");
	c->dropped = stat_value(buf, "dropped events");
	return 0;
}
#endif

/* bs_restart - trace-cmd has reset the buffers: count from zero */
void bs_restart(struct buffer_stats *bs)
{
	memset(bs->seen, 0, bs->nr * sizeof(*bs->seen));
}

/* bs_sample - the counts now, for the status line */
void bs_sample(struct buffer_stats *bs)
{
	struct cpu_counts c;
	int i;

	for (i = 0; i < bs->nr; i++)
		if (!read_counts(bs, i, &c))
			bs->seen[i] = c;
}

/*
 * bs_final - the counts with tracing off (the caller turned it off), while
 * trace-cmd still reads: they do not change any more but for entries
 * moving to read
 */
int bs_final(struct buffer_stats *bs)
{
	int i;

	for (i = 0; i < bs->nr; i++) {
		if (read_counts(bs, i, &bs->final[i])) {
			err_msg("cannot read per_cpu/cpu%d/stats of the instance: %s",
				bs->cpu[i], strerror(errno));
			return -1;
		}
	}
	bs->have_final = true;
	return 0;
}

/* bs_held - the events a CPU's buffer kept for its readers */
unsigned long long bs_held(const struct cpu_counts *c)
{
	return c->entries + c->read;
}

/* bs_lost - the events a CPU's buffer lost before any reader */
unsigned long long bs_lost(const struct cpu_counts *c)
{
	return c->overrun + c->commit_overrun + c->dropped;
}

/* bs_status_line - progress of a long recording */
void bs_status_line(struct buffer_stats *bs, time_t start)
{
	unsigned long long events = 0, lost = 0;
	int i;

	for (i = 0; i < bs->nr; i++) {
		events += bs_held(&bs->seen[i]);
		lost += bs_lost(&bs->seen[i]);
	}
	fprintf(stderr, "cgtrace: recording %lds: %llu events, %llu lost\n",
		(long)(time(NULL) - start), events, lost);
}
