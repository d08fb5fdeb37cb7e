// SPDX-License-Identifier: GPL-2.0
/*
 * trace_notes.c - what "cgtrace record" noted in the trace besides the
 * events ("cgtrace-meta" lines, see trace_read.h): host, clock samples,
 * clock state, the cgroup of each task; and the files an older recording
 * keeps beside it (FILE.cgroups)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "cgtrace.h"
#include "trace_read.h"

#define CG_HASH_SIZE	1024

struct tr_pid_cgroup {
	struct tr_pid_cgroup	*next;
	int			pid;
	char			*path;
};

/* tr_sidecar_path - FILE + suffix, for the files written beside it */
char *tr_sidecar_path(const char *path, const char *suffix)
{
	return xasprintf("%s%s", path, suffix);
}

/* add_cgroup - note that pid was in cgroup path (a later note wins) */
static void add_cgroup(struct tr_source *s, int pid, const char *path)
{
	struct tr_pid_cgroup *pc;
	unsigned int h = (unsigned int)pid % CG_HASH_SIZE;

	if (!s->cgroups) {
		s->cgroups = xrealloc(NULL, CG_HASH_SIZE * sizeof(*s->cgroups));
		memset(s->cgroups, 0, CG_HASH_SIZE * sizeof(*s->cgroups));
	}
	pc = xrealloc(NULL, sizeof(*pc));
	pc->pid = pid;
	pc->path = xstrdup(path);
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

/* tr_read_cgroups_sidecar - FILE.cgroups, lines "PID CGROUP_PATH" */
void tr_read_cgroups_sidecar(struct tr_source *s)
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
 * tr_note_line - one "cgtrace-meta" note of a source. In the first pass
 * (@pairs) clock samples give the offset; in the main pass they measure
 * how far the wall clock strays from the offset in use (ts then has it
 * added already), and the other notes are skipped. Returns 1 at "ready".
 */
int tr_note_line(struct tr_source *s, struct tep_record *record,
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
			tr_clock_pair(s, record->ts, real);
		else if (!pairs && s->wall_offset_set && s->nr_clock_pairs)
			tr_clock_later(s, (long long)(real - record->ts));
	} else if (!pairs) {
		return 0;	/* the rest was read by the first pass */
	} else if (sscanf(rest, "host %255s", host) == 1) {
		free(s->host);
		s->host = xstrdup(host);
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
	bool			all;		/* every note (cgroups): no early stop */
	unsigned long long	first_ts;
};

#define PREPASS_MAX_NS	(10 * 1000000000ULL)	/* notes come in the first ms */

/* prepass_note - a trace_marker line; stop at "ready" unless @all */
static int prepass_note(struct tracecmd_input *h, struct tep_event *e,
			struct tep_record *record, int cpu, void *data)
{
	struct prepass *p = data;

	return tr_note_line(p->s, record, true) && !p->all ? -1 : 0;
}

static int prepass_record(struct tracecmd_input *h, struct tep_record *record,
			  int cpu, void *data)
{
	struct prepass *p = data;

	if (!p->first_ts)
		p->first_ts = record->ts;
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
 * tr_read_notes - a first pass over the file, with its own handle, for the
 * notes of the start (or all of them with @all, for the cgroups): the
 * clock offset must be known before the events are merged.
 */
void tr_read_notes(struct tr_source *s, bool all)
{
	struct prepass p = { .s = s, .all = all };
	struct tracecmd_input *top, **hs;
	int i, n, nr;

	if (!s->print)
		return;
	top = tracecmd_open(s->path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top)
		return;
	nr = tracecmd_buffer_instances(top);
	hs = xrealloc(NULL, (nr + 1) * sizeof(*hs));
	hs[0] = top;
	for (i = 0, n = 1; i < nr; i++) {
		hs[n] = tracecmd_buffer_instance_handle(top, i);
		if (hs[n])
			n++;
	}
	for (i = 0; i < n; i++)
		tracecmd_follow_event(hs[i], "ftrace", "print", prepass_note, &p);
	tracecmd_iterate_events_multi(hs, n, prepass_record, &p);
	for (i = n - 1; i >= 0; i--)
		tracecmd_close(hs[i]);
	free(hs);
}

/* tr_cgroups_free - a source's pid -> cgroup map */
void tr_cgroups_free(struct tr_source *s)
{
	struct tr_pid_cgroup *pc, *pn;
	int d;

	for (d = 0; s->cgroups && d < CG_HASH_SIZE; d++) {
		for (pc = s->cgroups[d]; pc; pc = pn) {
			pn = pc->next;
			free(pc->path);
			free(pc);
		}
	}
	free(s->cgroups);
	s->cgroups = NULL;
}
