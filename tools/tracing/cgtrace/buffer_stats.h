/* SPDX-License-Identifier: GPL-2.0 */
/*
 * buffer_stats.h - the ring buffer's per-CPU counts of an instance
 * (per_cpu/cpuN/stats), and what they say was lost
 */
#ifndef CGTRACE_BUFFER_STATS_H
#define CGTRACE_BUFFER_STATS_H

#include <stdbool.h>
#include <time.h>

struct tracefs_instance;

/* The counts of one CPU's buffer, as the kernel keeps them. */
struct cpu_counts {
	unsigned long long	entries;	/* in the buffer, not read yet */
	unsigned long long	read;		/* read out ("read events") */
	unsigned long long	overrun;	/* overwritten before read */
	unsigned long long	commit_overrun;	/* lost to a nested write */
	unsigned long long	dropped;	/* refused: buffer full */
};

struct buffer_stats {
	struct tracefs_instance	*inst;
	int			nr;		/* CPUs */
	int			*cpu;		/* their numbers */
	int			*fd;		/* their stats files, kept open */
	struct cpu_counts	*seen;		/* the last sample, for progress */
	struct cpu_counts	*final;		/* read with tracing off */
	bool			have_final;
};

int bs_pin(struct buffer_stats *bs, struct tracefs_instance *inst);
void bs_unpin(struct buffer_stats *bs);
void bs_restart(struct buffer_stats *bs);
void bs_sample(struct buffer_stats *bs);
int bs_final(struct buffer_stats *bs);
void bs_status_line(struct buffer_stats *bs, time_t start);
unsigned long long bs_held(const struct cpu_counts *c);
unsigned long long bs_lost(const struct cpu_counts *c);

#endif
