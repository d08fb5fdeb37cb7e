// SPDX-License-Identifier: GPL-2.0
/*
 * trace_spans.c - the threads of a trace and their spans: comm and tgid
 * as the events show them, and each thread's stack of open spans, which
 * pairs an end with its begin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "cgtrace.h"
#include "trace_read.h"

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
	t = xzalloc(sizeof(*t));
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

void tr_set_comm(struct tr_thread *t, const char *comm)
{
	if (!comm || !*comm)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->comm_set = true;
}

/* tr_track_begin - push an open span on the writer thread's stack */
void tr_track_begin(struct tr_thread *t, struct tr_event *ev)
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
	t->open_name[t->nr_open] = xstrdup(ev->name);
	t->nr_open++;
	ev->tracked = true;
}

/* tr_track_end - find the begin of an end, fill start_ts, pop the stack */
void tr_track_end(struct tr_thread *t, struct tr_event *ev)
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
	/* the kernel names no untracked end: its begin does */
	if (!ev->name[0])
		snprintf(ev->name_buf, sizeof(ev->name_buf), "%s",
			 t->open_name[i]);
	ev->unended = t->nr_open - 1 - i;
	while (t->nr_open > i)
		free(t->open_name[--t->nr_open]);
}

/* tr_threads_free - every thread's state */
void tr_threads_free(struct trace_file *tf)
{
	struct tr_thread *t, *n;
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
	tf->nr_threads = 0;
}
