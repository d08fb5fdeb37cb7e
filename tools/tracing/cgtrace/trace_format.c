// SPDX-License-Identifier: GPL-2.0
/*
 * trace_format.c - timestamps and durations as report prints them
 */
#include <stdio.h>
#include <time.h>

#include "trace_read.h"

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
