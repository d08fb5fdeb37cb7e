// SPDX-License-Identifier: GPL-2.0
/*
 * The list of every instance's user markers, and the enable state that
 * each instance's user_events_enabled page shows.
 *
 * Top-level and prctl writers and the exit probe walk the list under
 * SRCU (a writer allocates span state, and may sleep, while it walks);
 * it changes, and the enable words are rewritten, under
 * trace_um_instances_lock.
 */
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/srcu.h>
#include <uapi/linux/trace_user_markers.h>

#include "trace.h"
#include "trace_user_markers.h"

LIST_HEAD(trace_um_instances);
DEFINE_SRCU(trace_um_srcu);
static DEFINE_MUTEX(trace_um_instances_lock);

/* user_events_enabled's bits are the events' own (uapi) */
static_assert(BIT(UM_BEGIN) == USER_MARKERS_BEGIN &&
	      BIT(UM_END) == USER_MARKERS_END &&
	      BIT(UM_COUNTER) == USER_MARKERS_COUNTER &&
	      BIT(UM_ASYNC_BEGIN) == USER_MARKERS_ASYNC_BEGIN &&
	      BIT(UM_ASYNC_END) == USER_MARKERS_ASYNC_END &&
	      BIT(UM_INSTANT) == USER_MARKERS_INSTANT);

/*
 * Each instance's user_events_enabled shows, in the first word of a page
 * that processes map read-only, which of its user_markers events a write
 * to its user_events file would reach (USER_MARKERS_*): those registered
 * while its markers option is on. The top level's shows those of every
 * instance, which its writes reach. A marker nobody records then costs
 * its writer a load and no system call (tools/tracing/cgtrace/user_marker.h).
 *
 * The words are rewritten whenever they can change: an event registers
 * (before its file is enabled) or unregisters (after it is disabled), a
 * markers option changes, an instance comes or goes.
 */
static void um_enabled_update(void)
{
	struct trace_user_markers *um, *top = NULL;
	u32 all = 0, own;

	lockdep_assert_held(&trace_um_instances_lock);
	list_for_each_entry(um, &trace_um_instances, list) {
		own = 0;
		if (trace_um_markers_on(um->tr))
			own = READ_ONCE(um->registered) & UM_RECORD_EVENTS;
		all |= own;
		if (um->tr->flags & TRACE_ARRAY_FL_GLOBAL)
			top = um;
		else
			WRITE_ONCE(*trace_um_enabled_word(um), own);
	}
	if (top)
		WRITE_ONCE(*trace_um_enabled_word(top), all);
}

/**
 * trace_um_instance_add - make an instance's markers reachable
 * @um: its markers, ready for writes
 */
void trace_um_instance_add(struct trace_user_markers *um)
{
	mutex_lock(&trace_um_instances_lock);
	list_add_tail_rcu(&um->list, &trace_um_instances);
	um_enabled_update();
	mutex_unlock(&trace_um_instances_lock);
}

/**
 * trace_um_instance_del - make an instance's markers unreachable
 * @um: its markers
 *
 * Returns once no top-level or prctl writer and no exiting thread can be
 * delivering to @um any more.
 */
void trace_um_instance_del(struct trace_user_markers *um)
{
	mutex_lock(&trace_um_instances_lock);
	list_del_rcu(&um->list);
	um_enabled_update();
	/* Mappings outlive the instance: nothing of it is enabled any more */
	WRITE_ONCE(*trace_um_enabled_word(um), 0);
	mutex_unlock(&trace_um_instances_lock);
	synchronize_srcu(&trace_um_srcu);
}

/**
 * trace_user_markers_flag_changed - an instance's options changed
 * @tr: the instance
 *
 * The markers option decides whether its user_events file takes records.
 */
void trace_user_markers_flag_changed(struct trace_array *tr)
{
	if (!tr->user_markers)
		return;
	mutex_lock(&trace_um_instances_lock);
	um_enabled_update();
	mutex_unlock(&trace_um_instances_lock);
}

/**
 * trace_um_file_registered - an event of user_markers (un)registers
 * @file: its file in an instance (or the top level)
 * @on: registered, else unregistered
 *
 * Called by the events' reg(), before the file is enabled and after it is
 * disabled, under event_mutex. Before the instance's markers exist (events
 * enabled on the command line), trace_user_markers_create() reads the
 * files' flags instead.
 */
void trace_um_file_registered(struct trace_event_file *file, bool on)
{
	struct trace_user_markers *um = file->tr->user_markers;
	unsigned long bit = BIT((unsigned long)file->event_call->data);

	lockdep_assert_held(&event_mutex);
	if (!um)
		return;
	WRITE_ONCE(um->registered, on ? um->registered | bit :
					um->registered & ~bit);
	mutex_lock(&trace_um_instances_lock);
	um_enabled_update();
	mutex_unlock(&trace_um_instances_lock);
}
