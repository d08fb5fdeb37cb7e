// SPDX-License-Identifier: GPL-2.0
/*
 * The user_markers events: their formats, their output in the trace file,
 * and writing one event for a record.
 *
 * The events are ordinary trace events (format files, filters, triggers,
 * histograms) but have no tracepoint: a write reserves and commits them
 * directly, so that it can count exactly where each record went.
 */
#include <linux/trace_events.h>

#include "trace.h"
#include "trace_output.h"
#include "trace_user_markers.h"

struct um_ent_begin {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	u32			depth;
	char			data[];
};

struct um_ent_end {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	u32			depth;
	u32			flags;
	u64			duration_ns;
	u64			cpu_ns;
	char			data[];
};

/* counter (value), async_begin and async_end (cookie) */
struct um_ent_value {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	s64			value;
	char			data[];
};

struct um_ent_instant {
	struct trace_entry	ent;
	u32			name;
	s32			tgid;
	char			data[];
};

struct um_ent_lost {
	struct trace_entry	ent;
	s32			tgid;
	u32			pad;
	u64			count;
};

/* One field of an event's format */
struct um_field {
	const char	*type;
	const char	*name;
	u16		offset;
	u8		size;
	u8		is_signed;
};

#define UM_NAME(st)	{ "__data_loc char[]", "name", offsetof(st, name), 4, 0 }
#define UM_TGID(st)	{ "int", "tgid", offsetof(st, tgid), 4, 1 }

static const struct um_field um_fields_begin_tab[] = {
	UM_NAME(struct um_ent_begin),
	UM_TGID(struct um_ent_begin),
	{ "unsigned int", "depth", offsetof(struct um_ent_begin, depth), 4, 0 },
};

static const struct um_field um_fields_end_tab[] = {
	UM_NAME(struct um_ent_end),
	UM_TGID(struct um_ent_end),
	{ "unsigned int", "depth", offsetof(struct um_ent_end, depth), 4, 0 },
	{ "unsigned int", "flags", offsetof(struct um_ent_end, flags), 4, 0 },
	{ "u64", "duration_ns", offsetof(struct um_ent_end, duration_ns), 8, 0 },
	{ "u64", "cpu_ns", offsetof(struct um_ent_end, cpu_ns), 8, 0 },
};

static const struct um_field um_fields_counter_tab[] = {
	UM_NAME(struct um_ent_value),
	UM_TGID(struct um_ent_value),
	{ "s64", "value", offsetof(struct um_ent_value, value), 8, 1 },
};

/* The same layout as a counter; the value is the async span's cookie */
static const struct um_field um_fields_async_tab[] = {
	UM_NAME(struct um_ent_value),
	UM_TGID(struct um_ent_value),
	{ "s64", "cookie", offsetof(struct um_ent_value, value), 8, 1 },
};

static const struct um_field um_fields_instant_tab[] = {
	UM_NAME(struct um_ent_instant),
	UM_TGID(struct um_ent_instant),
};

static const struct um_field um_fields_lost_tab[] = {
	UM_TGID(struct um_ent_lost),
	{ "u64", "count", offsetof(struct um_ent_lost, count), 8, 0 },
};

static int um_define(struct trace_event_call *call,
		     const struct um_field *f, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = trace_define_field(call, f[i].type, f[i].name,
					 f[i].offset, f[i].size,
					 f[i].is_signed, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return 0;
}

#define UM_DEFINE_FN(_name)						\
static int um_define_##_name(struct trace_event_call *call)		\
{									\
	return um_define(call, um_fields_##_name##_tab,			\
			 ARRAY_SIZE(um_fields_##_name##_tab));		\
}

UM_DEFINE_FN(begin)
UM_DEFINE_FN(end)
UM_DEFINE_FN(counter)
UM_DEFINE_FN(async)
UM_DEFINE_FN(instant)
UM_DEFINE_FN(lost)

static const char *um_str(const void *ent, u32 loc)
{
	return (const char *)ent + (loc & 0xffff);
}

/* "12.345ms" from nanoseconds */
static void um_print_ms(struct trace_seq *s, const char *label, u64 ns)
{
	u32 rem, frac;
	u64 us = div_u64_rem(ns, NSEC_PER_USEC, &rem);
	u64 ms = div_u64_rem(us, USEC_PER_MSEC, &frac);

	trace_seq_printf(s, " %s=%llu.%03ums", label, ms, frac);
}

static enum print_line_t um_output(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct trace_event_call *call;
	struct trace_seq *s = &iter->seq;
	const void *ent = iter->ent;
	enum print_line_t ret;

	ret = trace_raw_output_prep(iter, event);
	if (ret != TRACE_TYPE_HANDLED)
		return ret;
	call = container_of(event, struct trace_event_call, event);

	switch ((long)call->data) {
	case UM_BEGIN: {
		const struct um_ent_begin *e = ent;

		trace_seq_printf(s, "%s depth=%u tgid=%d", um_str(e, e->name),
				 e->depth, e->tgid);
		break;
	}
	case UM_END: {
		const struct um_ent_end *e = ent;

		trace_seq_printf(s, "%s depth=%u", um_str(e, e->name), e->depth);
		um_print_ms(s, "dur", e->duration_ns);
		um_print_ms(s, "cpu", e->cpu_ns);
		if (e->flags & UM_END_UNMATCHED)
			trace_seq_puts(s, " unmatched");
		if (e->flags & UM_END_EXITED)
			trace_seq_puts(s, " exited");
		if (e->flags & UM_END_UNTRACKED)
			trace_seq_puts(s, " untracked");
		trace_seq_printf(s, " tgid=%d", e->tgid);
		break;
	}
	case UM_COUNTER: {
		const struct um_ent_value *e = ent;

		trace_seq_printf(s, "%s=%lld tgid=%d", um_str(e, e->name),
				 e->value, e->tgid);
		break;
	}
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END: {
		const struct um_ent_value *e = ent;

		trace_seq_printf(s, "%s cookie=%lld tgid=%d", um_str(e, e->name),
				 e->value, e->tgid);
		break;
	}
	case UM_INSTANT: {
		const struct um_ent_instant *e = ent;

		trace_seq_printf(s, "%s tgid=%d", um_str(e, e->name), e->tgid);
		break;
	}
	case UM_LOST: {
		const struct um_ent_lost *e = ent;

		trace_seq_printf(s, "count=%llu tgid=%d", e->count, e->tgid);
		break;
	}
	}
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions um_funcs = {
	.trace = um_output,
};

/*
 * No tracepoint to hook: records come from writes. The instance learns
 * which of its events a write may reach.
 */
static int um_reg(struct trace_event_call *call, enum trace_reg type,
		  void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		trace_um_file_registered(data, type == TRACE_REG_REGISTER);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

#define UM_CLASS(_name)							\
static struct trace_event_fields um_fields_##_name[] = {		\
	{ .type = TRACE_FUNCTION_TYPE,					\
	  .define_fields = um_define_##_name },				\
	{}								\
};									\
static struct trace_event_class um_class_##_name = {			\
	.system		= UM_SYSTEM,					\
	.fields_array	= um_fields_##_name,				\
	.fields		= LIST_HEAD_INIT(um_class_##_name.fields),	\
	.raw_init	= trace_event_raw_init,				\
	.reg		= um_reg,					\
}

UM_CLASS(begin);
UM_CLASS(end);
UM_CLASS(counter);
UM_CLASS(async);
UM_CLASS(instant);
UM_CLASS(lost);

/*
 * In the _ftrace_events section, like TRACE_EVENT()'s, so that every
 * instance has the events from its creation, early boot included.
 */
#define UM_EVENT(_id, _name, _class, _fmt)				\
static struct trace_event_call um_call_##_name = {			\
	.class		= &um_class_##_class,				\
	.name		= #_name,					\
	.event.funcs	= &um_funcs,					\
	.print_fmt	= _fmt,						\
	.data		= (void *)(_id),				\
};									\
static struct trace_event_call *um_event_##_name			\
__used __section("_ftrace_events") = &um_call_##_name

UM_EVENT(UM_BEGIN, begin, begin,
	 "\"%s depth=%u tgid=%d\", __get_str(name), REC->depth, REC->tgid");
/*
 * The same line as um_output() prints, for tools that read the format
 * (libtraceevent needs the parentheses: it does not chain / and %).
 */
UM_EVENT(UM_END, end, end,
	 "\"%s depth=%u dur=%llu.%03llums cpu=%llu.%03llums%s%s%s tgid=%d\", __get_str(name), REC->depth, REC->duration_ns / 1000000, (REC->duration_ns / 1000) % 1000, REC->cpu_ns / 1000000, (REC->cpu_ns / 1000) % 1000, REC->flags & 1 ? \" unmatched\" : \"\", REC->flags & 2 ? \" exited\" : \"\", REC->flags & 4 ? \" untracked\" : \"\", REC->tgid");
UM_EVENT(UM_COUNTER, counter, counter,
	 "\"%s=%lld tgid=%d\", __get_str(name), REC->value, REC->tgid");
UM_EVENT(UM_ASYNC_BEGIN, async_begin, async,
	 "\"%s cookie=%lld tgid=%d\", __get_str(name), REC->cookie, REC->tgid");
UM_EVENT(UM_ASYNC_END, async_end, async,
	 "\"%s cookie=%lld tgid=%d\", __get_str(name), REC->cookie, REC->tgid");
UM_EVENT(UM_INSTANT, instant, instant,
	 "\"%s tgid=%d\", __get_str(name), REC->tgid");
UM_EVENT(UM_LOST, lost, lost,
	 "\"count=%llu tgid=%d\", REC->count, REC->tgid");

const char *const trace_um_event_names[UM_NR_EVENTS] = {
	[UM_BEGIN]	 = "begin",
	[UM_END]	 = "end",
	[UM_COUNTER]	 = "counter",
	[UM_ASYNC_BEGIN] = "async_begin",
	[UM_ASYNC_END]	 = "async_end",
	[UM_INSTANT]	 = "instant",
	[UM_LOST]	 = "lost",
};

/* Header size of each event: the name (if any) follows it. */
static const u8 um_event_size[UM_NR_EVENTS] = {
	[UM_BEGIN]	 = offsetof(struct um_ent_begin, data),
	[UM_END]	 = offsetof(struct um_ent_end, data),
	[UM_COUNTER]	 = offsetof(struct um_ent_value, data),
	[UM_ASYNC_BEGIN] = offsetof(struct um_ent_value, data),
	[UM_ASYNC_END]	 = offsetof(struct um_ent_value, data),
	[UM_INSTANT]	 = offsetof(struct um_ent_instant, data),
	[UM_LOST]	 = sizeof(struct um_ent_lost),
};

/*
 * What makes an event take the event path: its filter, triggers or
 * soft-disable read it before it is committed.
 */
#define UM_FULL_COMMIT_FLAGS	(EVENT_FILE_FL_FILTERED |		\
				 EVENT_FILE_FL_SOFT_DISABLED |		\
				 EVENT_FILE_FL_TRIGGER_MODE |		\
				 EVENT_FILE_FL_TASK_FILTER)

/* Inlined in both paths of an emit: -Os would make it a call */
static __always_inline void um_fill(void *ent, enum um_event ev,
				    const struct um_out *o)
{
	u32 off = um_event_size[ev];
	/* name and tgid sit at the same place in every named event */
	struct um_ent_instant *named = ent;

	if (ev == UM_LOST) {
		struct um_ent_lost *e = ent;

		e->tgid = current->tgid;
		e->pad = 0;
		e->count = o->val;
		return;
	}
	named->name = (o->name_len + 1) << 16 | off;
	named->tgid = current->tgid;
	if (o->name_len)
		memcpy((char *)ent + off, o->name, o->name_len);
	((char *)ent)[off + o->name_len] = '\0';

	switch (ev) {
	case UM_BEGIN:
		((struct um_ent_begin *)ent)->depth = o->depth;
		break;
	case UM_END: {
		struct um_ent_end *e = ent;

		e->depth = o->depth;
		e->flags = o->flags;
		e->duration_ns = o->val;
		e->cpu_ns = o->cpu_ns;
		break;
	}
	case UM_COUNTER:
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END:
		((struct um_ent_value *)ent)->value = o->val;
		break;
	default:
		break;
	}
}

/*
 * The event path, whose commit runs the event's filter and triggers. Not
 * inlined: its trace_event_buffer is zeroed as every stack variable is,
 * and the direct path should not pay for that.
 */
static noinline enum trace_commit_result
um_emit_event(struct trace_event_file *file, enum um_event ev,
	      const struct um_out *o, size_t len)
{
	struct trace_event_buffer fbuffer;
	void *ent;

	ent = trace_event_buffer_reserve(&fbuffer, file, len);
	if (!ent)
		return TRACE_COMMIT_DROPPED;
	um_fill(ent, ev, o);
	return trace_event_buffer_commit_result(&fbuffer);
}

/**
 * trace_um_emit - write one event for a record and count where it went
 * @um: the instance's markers
 * @ev: the event
 * @o: its contents
 *
 * The caller checked that the event is enabled, the context filters and
 * the rate limit. An event that nothing reads before it is written
 * (trace_event_commit_is_plain(), no filter, trigger or soft-disable) is
 * written straight to the ring buffer; any other takes the event path,
 * whose commit runs the event's filter and triggers. Where
 * the record went is counted as recorded, event_filtered or
 * buffer_dropped (the ring buffer was full or off), or for a lost event
 * as lost_reported when it is recorded.
 *
 * Return: where the event went.
 */
enum trace_commit_result trace_um_emit(struct trace_user_markers *um,
				       enum um_event ev,
				       const struct um_out *o)
{
	struct trace_event_file *file = um->file[ev];
	enum trace_commit_result res;
	size_t len = um_event_size[ev];

	if (ev != UM_LOST)
		len += o->name_len + 1;

	/* Both paths take the preempt count a tracepoint would have */
	preempt_disable_notrace();
	/*
	 * Nothing would read the event before it is written: write it as
	 * trace_marker writes its text. A filter or trigger set meanwhile
	 * applies from the next record on, as if set after this one.
	 */
	if (!(READ_ONCE(file->flags) & UM_FULL_COMMIT_FLAGS) &&
	    trace_event_commit_is_plain(file->tr)) {
		struct trace_buffer *buffer = file->tr->array_buffer.buffer;
		struct ring_buffer_event *rbe;

		rbe = trace_buffer_lock_reserve(buffer,
						file->event_call->event.type,
						len, tracing_gen_ctx_dec());
		if (rbe) {
			um_fill(ring_buffer_event_data(rbe), ev, o);
			trace_buffer_unlock_commit_nostack(buffer, rbe);
			res = TRACE_COMMIT_RECORDED;
		} else {
			res = TRACE_COMMIT_DROPPED;
		}
	} else {
		res = um_emit_event(file, ev, o, len);
	}

	if (ev == UM_LOST) {
		if (res == TRACE_COMMIT_RECORDED)
			this_cpu_add(um->stats->lost_reported, o->val);
	} else if (res == TRACE_COMMIT_RECORDED) {
		this_cpu_inc(um->stats->recorded);
	} else if (res == TRACE_COMMIT_DISCARDED) {
		this_cpu_inc(um->stats->event_filtered);
	} else {
		this_cpu_inc(um->stats->buffer_dropped);
	}
	preempt_enable_notrace();
	return res;
}

/**
 * trace_um_emit_lost - report drops of the rate limit with a lost event
 * @um: the instance's markers
 * @lost: records dropped and not reported yet
 *
 * Return: true if a lost event reached the ring buffer (the drops count
 * as lost_reported), false if it did not (they are still pending).
 */
bool trace_um_emit_lost(struct trace_user_markers *um, u64 lost)
{
	struct trace_event_file *file = um->file[UM_LOST];
	struct um_out o = { .val = lost };

	if (!file || !(READ_ONCE(file->flags) & EVENT_FILE_FL_ENABLED) ||
	    trace_trigger_soft_disabled(file))
		return false;
	return trace_um_emit(um, UM_LOST, &o) == TRACE_COMMIT_RECORDED;
}
