// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events grammar: newline-separated atrace records
 *
 *   B|pid|name  E|pid  E|pid|name  C|pid|name|value
 *   S|pid|name|cookie  F|pid|name|cookie  I|pid|name
 *
 * A write is parsed whole before any record is delivered, in one pass
 * over its bytes: a write that fails records nothing.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) /* moved from asm/ */
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include "trace.h"
#include "trace_user_markers.h"

/* Byte classes for the scan of a name: where it stops, what it refuses */
#define UM_CC_STOP	1	/* '|' or newline: the field ends */
#define UM_CC_BAD	2	/* other control bytes, NUL and DEL */

static const u8 um_cclass[256] = {
	[0x00 ... 0x1f] = UM_CC_BAD,
	['\n'] = UM_CC_STOP,
	['|'] = UM_CC_STOP,
	[0x7f] = UM_CC_BAD,
};

/* The record type letter: its event, plus one (0: not a type) */
static const u8 um_types[128] = {
	['B'] = UM_BEGIN + 1,
	['E'] = UM_END + 1,
	['C'] = UM_COUNTER + 1,
	['S'] = UM_ASYNC_BEGIN + 1,
	['F'] = UM_ASYNC_END + 1,
	['I'] = UM_INSTANT + 1,
};

/**
 * trace_um_check_name - is @s a valid marker name
 * @s: the name
 * @len: its length
 *
 * Return: 0, -EINVAL (empty, a control byte or '|') or -ENAMETOOLONG.
 */
int trace_um_check_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return -EINVAL;
	if (len > UM_NAME_MAX)
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++) {
		if (um_cclass[(u8)s[i]])
			return -EINVAL;
	}
	return 0;
}

/*
 * um_stop_bytes - the bytes of @w (the first one lowest) that end a name
 * or are refused in one: control bytes (newline and NUL among them), '|'
 * and DEL, each marked by its high bit. Bytes after the first marked one
 * may be marked wrongly (a borrow runs on); only the first one is used.
 */
static inline u64 um_stop_bytes(u64 w)
{
	const u64 ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	u64 bar = w ^ (ones * '|'), del = w ^ (ones * 0x7f);

	return ((w - ones * 0x20) & ~w & high) |
	       ((bar - ones) & ~bar & high) | ((del - ones) & ~del & high);
}

/*
 * um_scan_name - the first byte from @p on that ends a name or is refused
 * in one, eight bytes at a time: the write buffer has UM_SCAN_SLACK bytes
 * after its sentinel, which is a stop byte.
 */
static const char *um_scan_name(const char *p)
{
	u64 m;

	while (!(m = um_stop_bytes(get_unaligned_le64(p))))
		p += 8;
	return p + (__ffs64(m) >> 3);
}

/*
 * um_parse_value - a signed 64-bit decimal ending at '\n' (the sentinel
 * after the last record included): no '+', no leading zero, no overflow.
 * Up to 19 digits fit in a u64 unchecked, and S64_MAX has 19: more are
 * refused before they could wrap.
 */
static int um_parse_value(const char **pp, s64 *val)
{
	const char *p = *pp, *start;
	bool neg = *p == '-';
	unsigned int d;
	u64 v = 0;

	p += neg;
	if (*p == '0' && p[1] != '\n')
		return -EINVAL;
	start = p;
	do {
		d = (u8)*p - '0';
		if (d > 9)
			return -EINVAL;
		v = v * 10 + d;
		p++;
	} while (*p != '\n' && p - start < 19);
	if (*p != '\n' || v > (neg ? (u64)S64_MAX + 1 : (u64)S64_MAX))
		return -EINVAL;
	*val = neg ? (s64)(0 - v) : (s64)v;
	*pp = p;
	return 0;
}

/*
 * um_parse_rec - one record at *@pp, which ends at a newline (the last one
 * at the sentinel); *@pp moves to that newline.
 */
static int um_parse_rec(const char **pp, struct um_rec *r)
{
	const char *p = *pp, *start;
	u8 type = (u8)*p;
	int ev;

	ev = type < ARRAY_SIZE(um_types) ? um_types[type] - 1 : -1;
	if (ev < 0 || p[1] != '|')
		return -EINVAL;
	r->event = ev;
	r->name = NULL;
	r->name_len = 0;
	r->value = 0;

	/* The pid: accepted, never trusted. */
	p += 2;
	start = p;
	while ((u8)(*p - '0') <= 9)
		p++;
	if (p == start || p - start > 10)
		return -EINVAL;
	if (*p == '\n') {
		/* "E|pid" is the only record without a name */
		*pp = p;
		return ev == UM_END ? 0 : -EINVAL;
	}
	if (*p != '|')
		return -EINVAL;

	start = ++p;
	p = um_scan_name(p);
	if (um_cclass[(u8)*p] & UM_CC_BAD)
		return -EINVAL;
	if (p == start)
		return -EINVAL;
	if (p - start > UM_NAME_MAX)
		return -ENAMETOOLONG;
	r->name = start;
	r->name_len = p - start;

	switch (ev) {
	case UM_COUNTER:
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END:
		if (*p != '|')
			return -EINVAL;
		p++;
		if (um_parse_value(&p, &r->value))
			return -EINVAL;
		break;
	default:
		/* B, E and I end with the name */
		if (*p != '\n')
			return -EINVAL;
	}
	*pp = p;
	return 0;
}

/**
 * trace_um_parse - split a write into records
 * @buf: the write, with UM_SCAN_SLACK bytes of room after it
 * @len: its length
 * @recs: room for UM_RECS_MAX records
 *
 * A newline is stored after the last record as a sentinel, so that the
 * scan needs no bounds checks; a NUL byte anywhere is a control byte.
 *
 * Return: the number of records, -E2BIG past UM_RECS_MAX, or the first
 * record's error.
 */
int trace_um_parse(char *buf, size_t len, struct um_rec *recs)
{
	const char *p = buf, *end = buf + len;
	int n = 0, ret;

	/* A final newline is optional: the sentinel stands in for it. */
	if (buf[len - 1] == '\n')
		end--;
	buf[len] = '\n';
	while (p <= end) {
		if (n == UM_RECS_MAX)
			return -E2BIG;
		ret = um_parse_rec(&p, &recs[n]);
		if (ret)
			return ret;
		n++;
		p++;		/* past the newline */
	}
	return n;
}
