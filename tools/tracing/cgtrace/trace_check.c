// SPDX-License-Identifier: GPL-2.0
/*
 * trace_check.c - read back the trace trace-cmd wrote, before cgtrace
 * says it was written: the file exists, libtracecmd reads it, it holds
 * the recorded buffer, and how many of that buffer's events, per CPU
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>

#include "cgtrace.h"
#include "recorder.h"
#include "tracefs_util.h"

struct count {
	unsigned long long	*per_cpu;
	int			nr;
};

static int count_record(struct tracecmd_input *h, struct tep_record *record,
			int cpu, void *data)
{
	struct count *c = data;

	if (record->cpu >= c->nr) {
		c->per_cpu = xrealloc(c->per_cpu,
				      (record->cpu + 1) * sizeof(*c->per_cpu));
		memset(c->per_cpu + c->nr, 0,
		       (record->cpu + 1 - c->nr) * sizeof(*c->per_cpu));
		c->nr = record->cpu + 1;
	}
	c->per_cpu[record->cpu]++;
	return 0;
}

/* buffer_of - the handle of the instance's buffer in the file, or NULL */
static struct tracecmd_input *buffer_of(struct tracecmd_input *h,
					struct tracefs_instance *inst)
{
	const char *want = tracefs_instance_get_name(inst), *name;
	int i, nr = tracecmd_buffer_instances(h);

	if (tfs_is_top(inst))
		return h;
	for (i = 0; i < nr; i++) {
		name = tracecmd_buffer_instance_name(h, i);
		if (name && !strcmp(name, want))
			return tracecmd_buffer_instance_handle(h, i);
	}
	return NULL;
}

/*
 * check_trace - r->tmp_output is a trace.dat libtracecmd reads, holding
 * the recorded instance's buffer; its events per CPU go to r->in_file
 * (indexed by CPU number, r->stats.cpu's largest + 1 of them)
 */
int check_trace(struct recorder *r)
{
	struct count c = { 0 };
	struct tracecmd_input *h, *b;
	struct stat st;
	int ret;

	if (stat(r->tmp_output, &st)) {
		err_msg("trace-cmd ended with status 0 but wrote no trace (%s: %s)",
			r->tmp_output, strerror(errno));
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	h = tracecmd_open(r->tmp_output, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		err_msg("trace-cmd wrote a trace that libtracecmd cannot read (%s, %lld bytes)",
			r->tmp_output, (long long)st.st_size);
		return -1;
	}
	b = buffer_of(h, r->inst);
	if (!b) {
		err_msg("the trace trace-cmd wrote holds no buffer of instance %s",
			tfs_instance_label(r->inst));
		tracecmd_close(h);
		return -1;
	}
	c.nr = r->stats.nr ? r->stats.cpu[r->stats.nr - 1] + 1 : 1;
	c.per_cpu = xzalloc(c.nr * sizeof(*c.per_cpu));
	ret = tracecmd_iterate_events(b, NULL, 0, count_record, &c);
	if (b != h)
		tracecmd_close(b);
	tracecmd_close(h);
	if (ret < 0) {
		err_msg("cannot read the events of the trace trace-cmd wrote (%s)",
			r->tmp_output);
		free(c.per_cpu);
		return -1;
	}
	r->in_file = c.per_cpu;
	r->nr_in_file = c.nr;
	return 0;
}
