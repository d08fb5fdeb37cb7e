// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_user_markers.c - libtraceevent plugin for the user_markers events
 * (Documentation/trace/user-markers.rst) in trace-cmd report and
 * KernelShark. It prints what the events' own print_fmt cannot:
 *
 *  - durations in the unit that reads (850ns, 12.345us, 12.345ms, 1.234s),
 *    and the time a span spent off the CPU (blocked = dur - cpu);
 *  - every end flag by name (unmatched, exited, untracked), and bits it
 *    does not know as flags=0x...;
 *  - the writer's cgroup, from the notes "cgtrace record" leaves in the
 *    trace (trace_marker lines "cgtrace-meta cgroup PID PATH"), as the
 *    report reaches them: a task's markers before its note show none.
 *
 *	begin: gc depth=0 tgid=312 cgroup=/system.slice/gc.service
 *	end: gc depth=0 dur=12.345ms cpu=3.210ms blocked=9.135ms tgid=312 cgroup=...
 *	end: (none) depth=0 unmatched tgid=312
 *	counter: heap_kb=5120 tgid=312
 *	lost: count=17 tgid=312
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define UM_FLAG_UNMATCHED	1
#define UM_FLAG_EXITED		2
#define UM_FLAG_UNTRACKED	4
#define UM_FLAGS_NO_TIME	(UM_FLAG_UNMATCHED | UM_FLAG_UNTRACKED)

#define UM_NOTE			"cgtrace-meta cgroup "
#define UM_HASH			1024

/* A task and its cgroup, as the notes give them. */
struct um_cgroup {
	struct um_cgroup	*next;
	int			pid;
	char			*path;
};

/* What the plugin knows of one trace (one tep handle). */
struct um_state {
	struct um_state		*next;
	struct tep_handle	*tep;
	struct um_cgroup	*cgroups[UM_HASH];
};

static struct um_state *states;

/* um_num - an integer field, 0 when the event has no such field */
static long long um_num(struct tep_event *event, struct tep_record *record,
			const char *field)
{
	unsigned long long val = 0;

	if (tep_get_field_val(NULL, event, field, record, &val, 0))
		return 0;
	return (long long)val;
}

/* um_name - print the name field, fixed array or __data_loc string */
static void um_name(struct trace_seq *s, struct tep_event *event,
		    struct tep_record *record, const char *dflt)
{
	const char *name;
	int len = 0;

	name = tep_get_field_raw(NULL, event, "name", record, &len, 0);
	if (name && len > 0 && name[0])
		trace_seq_printf(s, "%.*s", (int)strnlen(name, len), name);
	else
		trace_seq_puts(s, dflt);
}

/* um_dur - nanoseconds in the largest unit under them, three decimals */
static void um_dur(struct trace_seq *s, const char *key,
		   unsigned long long ns)
{
	if (ns < 1000ULL)
		trace_seq_printf(s, " %s=%lluns", key, ns);
	else if (ns < 1000000ULL)
		trace_seq_printf(s, " %s=%llu.%03lluus", key, ns / 1000,
				 ns % 1000);
	else if (ns < 1000000000ULL)
		trace_seq_printf(s, " %s=%llu.%03llums", key, ns / 1000000,
				 ns / 1000 % 1000);
	else
		trace_seq_printf(s, " %s=%llu.%03llus", key, ns / 1000000000,
				 ns / 1000000 % 1000);
}

static struct um_cgroup *um_find(struct um_state *st, int pid)
{
	struct um_cgroup *c;

	for (c = st->cgroups[(unsigned int)pid % UM_HASH]; c; c = c->next)
		if (c->pid == pid)
			return c;
	return NULL;
}

/* um_tail - tgid, and the writer's (or its process's) cgroup if noted */
static void um_tail(struct trace_seq *s, struct tep_event *event,
		    struct tep_record *record, struct um_state *st)
{
	int tgid = um_num(event, record, "tgid");
	struct um_cgroup *c;

	trace_seq_printf(s, " tgid=%d", tgid);
	c = um_find(st, tep_data_pid(event->tep, record));
	if (!c)
		c = um_find(st, tgid);
	if (c)
		trace_seq_printf(s, " cgroup=%s", c->path);
}

static int um_begin(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, " depth=%lld", um_num(event, record, "depth"));
	um_tail(s, event, record, context);
	return 0;
}

static int um_end(struct trace_seq *s, struct tep_record *record,
		  struct tep_event *event, void *context)
{
	static const char * const names[] = { "unmatched", "exited", "untracked" };
	unsigned long long flags = um_num(event, record, "flags");
	unsigned long long dur, cpu;
	unsigned int i;

	um_name(s, event, record, "(none)");
	trace_seq_printf(s, " depth=%lld", um_num(event, record, "depth"));
	/* unmatched and untracked ends carry no times */
	if (!(flags & UM_FLAGS_NO_TIME)) {
		dur = um_num(event, record, "duration_ns");
		cpu = um_num(event, record, "cpu_ns");
		um_dur(s, "dur", dur);
		um_dur(s, "cpu", cpu);
		um_dur(s, "blocked", dur > cpu ? dur - cpu : 0);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1ULL << i))
			trace_seq_printf(s, " %s", names[i]);
	if (flags >> i)
		trace_seq_printf(s, " flags=0x%llx", flags);
	um_tail(s, event, record, context);
	return 0;
}

static int um_counter(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, "=%lld", um_num(event, record, "value"));
	um_tail(s, event, record, context);
	return 0;
}

static int um_async(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, " cookie=%lld", um_num(event, record, "cookie"));
	um_tail(s, event, record, context);
	return 0;
}

static int um_instant(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	um_tail(s, event, record, context);
	return 0;
}

static int um_lost(struct trace_seq *s, struct tep_record *record,
		   struct tep_event *event, void *context)
{
	trace_seq_printf(s, "count=%lld", um_num(event, record, "count"));
	um_tail(s, event, record, context);
	return 0;
}

/*
 * um_note - an ftrace print event: if it is a cgroup note of "cgtrace
 * record", keep it. Returns 1: libtraceevent then prints the event in
 * its own format, as without the plugin.
 */
static int um_note(struct trace_seq *s, struct tep_record *record,
		   struct tep_event *event, void *context)
{
	struct tep_format_field *f = tep_find_field(event, "buf");
	struct um_state *st = context;
	struct um_cgroup *c;
	char text[4096], *end;
	size_t n;
	long pid;

	if (!f || (int)f->offset >= record->size)
		return 1;
	/* "char buf[]": the text runs to the end of the record */
	n = strnlen((char *)record->data + f->offset, record->size - f->offset);
	if (n >= sizeof(text) || n <= strlen(UM_NOTE) ||
	    strncmp((char *)record->data + f->offset, UM_NOTE, strlen(UM_NOTE)))
		return 1;
	memcpy(text, (char *)record->data + f->offset, n);
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	pid = strtol(text + strlen(UM_NOTE), &end, 10);
	if (pid <= 0 || *end != ' ' || !end[1])
		return 1;
	c = um_find(st, pid);
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return 1;
		c->pid = pid;
		c->next = st->cgroups[pid % UM_HASH];
		st->cgroups[pid % UM_HASH] = c;
	}
	free(c->path);
	c->path = strdup(end + 1);
	return 1;
}

static const struct {
	const char		*system;
	const char		*event;
	tep_event_handler_func	fn;
} um_handlers[] = {
	{ "user_markers", "begin",	 um_begin },
	{ "user_markers", "end",	 um_end },
	{ "user_markers", "counter",	 um_counter },
	{ "user_markers", "async_begin", um_async },
	{ "user_markers", "async_end",	 um_async },
	{ "user_markers", "instant",	 um_instant },
	{ "user_markers", "lost",	 um_lost },
	{ "ftrace",	  "print",	 um_note },
	{ NULL },
};

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct um_state *st = calloc(1, sizeof(*st));
	int i;

	if (!st)
		return -1;
	st->tep = tep;
	st->next = states;
	states = st;
	for (i = 0; um_handlers[i].event; i++)
		tep_register_event_handler(tep, -1, um_handlers[i].system,
					   um_handlers[i].event,
					   um_handlers[i].fn, st);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct um_state **pp, *st;
	struct um_cgroup *c, *n;
	int i;

	for (pp = &states; (st = *pp); pp = &st->next)
		if (st->tep == tep)
			break;
	if (!st)
		return;
	*pp = st->next;
	for (i = 0; um_handlers[i].event; i++)
		tep_unregister_event_handler(tep, -1, um_handlers[i].system,
					     um_handlers[i].event,
					     um_handlers[i].fn, st);
	for (i = 0; i < UM_HASH; i++)
		for (c = st->cgroups[i]; c; c = n) {
			n = c->next;
			free(c->path);
			free(c);
		}
	free(st);
}
