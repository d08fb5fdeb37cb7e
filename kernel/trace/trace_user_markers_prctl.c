// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_TRACE_USER_MARKER, kind, name, value, 0): a user marker from a
 * process that cannot open tracefs, to the instances that set
 * options/user_events_prctl.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/prctl.h>
#include <linux/trace_user_markers.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "trace_user_markers.h"

/* PR_TRACE_MARKER_* to the event, plus one (0: not a kind) */
static const u8 um_prctl_kinds[] = {
	[PR_TRACE_MARKER_BEGIN]		= UM_BEGIN + 1,
	[PR_TRACE_MARKER_END]		= UM_END + 1,
	[PR_TRACE_MARKER_COUNTER]	= UM_COUNTER + 1,
	[PR_TRACE_MARKER_INSTANT]	= UM_INSTANT + 1,
};

/**
 * trace_user_marker_prctl - emit one marker record from prctl()
 * @kind: PR_TRACE_MARKER_BEGIN, _END, _COUNTER or _INSTANT
 * @uname: user pointer to the NUL-terminated name (may be 0 for an end)
 * @value: the counter's value, a signed long of the caller (32-bit for a
 *	compat caller); must be 0 for the other kinds
 * @arg5: must be 0
 *
 * The record reaches the instances that set options/user_events_prctl.
 * The caller needs CAP_PERFMON (or CAP_SYS_ADMIN), as for perf's events:
 * a marker can push others' events out of an instance's buffer.
 *
 * Return: 0, -EINVAL, -EPERM, -EFAULT or -ENAMETOOLONG.
 */
int trace_user_marker_prctl(unsigned long kind, unsigned long uname,
			    unsigned long value, unsigned long arg5)
{
	char name[UM_NAME_MAX + 2];
	struct um_rec r = { };
	long len;
	int ret;

	/*
	 * The caller passed a long: sign-extend it from the caller's width.
	 * A compat task's argument arrives zero-extended from 32 bits, and
	 * on a 32-bit kernel unsigned long is 32 bits: -5 must stay -5.
	 */
	if (in_compat_syscall())
		r.value = (s32)value;
	else
		r.value = (long)value;

	if (arg5)
		return -EINVAL;
	if (kind >= ARRAY_SIZE(um_prctl_kinds) || !um_prctl_kinds[kind])
		return -EINVAL;
	r.event = um_prctl_kinds[kind] - 1;
	/* Unused arguments must be 0, as prctl options want them */
	if (r.event != UM_COUNTER && value)
		return -EINVAL;
	if (!perfmon_capable())
		return -EPERM;
	if (r.event == UM_END && !uname) {
		r.name = NULL;
	} else {
		len = strncpy_from_user(name, (const char __user *)uname,
					sizeof(name));
		if (len < 0)
			return len;
		if (len == sizeof(name))
			return -ENAMETOOLONG;
		ret = trace_um_check_name(name, len);
		if (ret)
			return ret;
		r.name = name;
		r.name_len = len;
	}
	if (!trace_um_tracing_off())
		trace_um_deliver_all(&r, 1, NULL, true);
	return 0;
}
