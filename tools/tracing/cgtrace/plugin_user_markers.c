// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_user_markers.c - libtraceevent plugin that prints the
 * user_markers events (Documentation/trace/user-markers.rst) readably in
 * trace-cmd report and KernelShark:
 *
 *	begin: gc depth=0 tgid=312
 *	end: gc depth=0 dur=12.345ms cpu=3.210ms tgid=312
 *	end: gc depth=0 dur=1.000ms cpu=0.200ms exited tgid=312
 *	end: (none) depth=0 unmatched tgid=312
 *	counter: heap_kb=5120 tgid=312
 *	lost: count=17 tgid=312
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define UM_FLAG_UNMATCHED	1
#define UM_FLAG_EXITED		2
#define UM_FLAG_UNTRACKED	4
#define UM_FLAGS_NO_TIME	(UM_FLAG_UNMATCHED | UM_FLAG_UNTRACKED)
#define UM_FLAGS_KNOWN		(UM_FLAGS_NO_TIME | UM_FLAG_EXITED)

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

/* um_ms - nanoseconds as milliseconds with three decimals */
static void um_ms(struct trace_seq *s, const char *key, long long ns)
{
	trace_seq_printf(s, " %s=%lld.%03lldms", key, ns / 1000000,
			 (ns / 1000) % 1000);
}

static void um_tgid(struct trace_seq *s, struct tep_event *event,
		    struct tep_record *record)
{
	trace_seq_printf(s, " tgid=%lld", um_num(event, record, "tgid"));
}

static int um_begin(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, " depth=%lld", um_num(event, record, "depth"));
	um_tgid(s, event, record);
	return 0;
}

static int um_end(struct trace_seq *s, struct tep_record *record,
		  struct tep_event *event, void *context)
{
	long long flags = um_num(event, record, "flags");

	um_name(s, event, record, "(none)");
	trace_seq_printf(s, " depth=%lld", um_num(event, record, "depth"));
	/* unmatched and untracked ends carry no times */
	if (!(flags & UM_FLAGS_NO_TIME)) {
		um_ms(s, "dur", um_num(event, record, "duration_ns"));
		um_ms(s, "cpu", um_num(event, record, "cpu_ns"));
	}
	if (flags & UM_FLAG_UNMATCHED)
		trace_seq_puts(s, " unmatched");
	if (flags & UM_FLAG_EXITED)
		trace_seq_puts(s, " exited");
	if (flags & UM_FLAG_UNTRACKED)
		trace_seq_puts(s, " untracked");
	if (flags & ~(long long)UM_FLAGS_KNOWN)
		trace_seq_printf(s, " flags=0x%llx", flags);
	um_tgid(s, event, record);
	return 0;
}

static int um_counter(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, "=%lld", um_num(event, record, "value"));
	um_tgid(s, event, record);
	return 0;
}

static int um_async(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	trace_seq_printf(s, " cookie=%lld", um_num(event, record, "cookie"));
	um_tgid(s, event, record);
	return 0;
}

static int um_instant(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	um_name(s, event, record, "?");
	um_tgid(s, event, record);
	return 0;
}

static int um_lost(struct trace_seq *s, struct tep_record *record,
		   struct tep_event *event, void *context)
{
	trace_seq_printf(s, "count=%lld", um_num(event, record, "count"));
	um_tgid(s, event, record);
	return 0;
}

static const struct {
	const char		*event;
	tep_event_handler_func	fn;
} um_handlers[] = {
	{ "begin",	 um_begin },
	{ "end",	 um_end },
	{ "counter",	 um_counter },
	{ "async_begin", um_async },
	{ "async_end",	 um_async },
	{ "instant",	 um_instant },
	{ "lost",	 um_lost },
	{ NULL },
};

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	int i;

	for (i = 0; um_handlers[i].event; i++)
		tep_register_event_handler(tep, -1, "user_markers",
					   um_handlers[i].event,
					   um_handlers[i].fn, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	int i;

	for (i = 0; um_handlers[i].event; i++)
		tep_unregister_event_handler(tep, -1, "user_markers",
					     um_handlers[i].event,
					     um_handlers[i].fn, NULL);
}
