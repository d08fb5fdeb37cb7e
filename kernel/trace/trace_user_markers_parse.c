// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events grammar: newline-separated atrace records
 *
 *   B|pid|name  E|pid  E|pid|name  C|pid|name|value
 *   S|pid|name|cookie  F|pid|name|cookie  I|pid|name
 *
 * A write is parsed whole before any record is delivered, in one pass
 * over its bytes: a write that fails records nothing. A write that no
 * instance would record is only checked (trace_um_check()): the same
 * pass, the same errors, nothing stored.
 *
 * Every field is scanned eight bytes at a time: the write buffer has
 * UM_SCAN_SLACK bytes of room after the write, where the parser stores
 * its sentinel newline and zeroes the rest, so a load that starts at or
 * before the sentinel stays inside the buffer and reads only bytes that
 * were written.
 */
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "trace.h"
#include "trace_user_markers.h"

#define UM_ONES		0x0101010101010101ULL

/* Eight bytes of the write buffer from @p, at any alignment */
static __always_inline u64 um_load(const char *p)
{
	__le64 w;

	memcpy(&w, p, sizeof(w));
	return le64_to_cpu(w);
}

/*
 * um_ffs - the lowest set bit of @w, which is not 0. __ffs64() is only
 * inline: under CC_OPTIMIZE_FOR_SIZE it may become a call, where one
 * instruction does.
 */
static __always_inline unsigned int um_ffs(u64 w)
{
#if BITS_PER_LONG == 64
	return __ffs(w);
#else
	return __ffs64(w);
#endif
}

/* The record type letter: its event, plus one (0: not a type) */
static const u8 um_types[256] = {
	['B'] = UM_BEGIN + 1,
	['E'] = UM_END + 1,
	['C'] = UM_COUNTER + 1,
	['S'] = UM_ASYNC_BEGIN + 1,
	['F'] = UM_ASYNC_END + 1,
	['I'] = UM_INSTANT + 1,
};

/* A byte a name may not hold: control bytes (NUL, newline), '|' and DEL */
static bool um_name_byte_bad(u8 c)
{
	return c < 0x20 || c == '|' || c == 0x7f;
}

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
		if (um_name_byte_bad(s[i]))
			return -EINVAL;
	}
	return 0;
}

/*
 * um_name_stops - the bytes of @w (the first one lowest) that may end a
 * name or be refused in one, each marked by its high bit: every byte
 * below 0x20 and 0x7c..0x7f, that is the stop and refused bytes plus '}'
 * and '~', which the caller steps over. Adding 4 modulo 128 maps
 * 0x7c..0x7f to 0..3 and 0..0x1f to 4..0x23, so one comparison with 0x24
 * finds both ranges; bytes from 0x80 on are never marked. No step
 * carries into the next byte, so every mark is exact, and one test
 * finds '|', DEL and the control bytes.
 */
static __always_inline u64 um_name_stops(u64 w)
{
	u64 low7 = ((w & UM_ONES * 0x7f) + UM_ONES * 4) & UM_ONES * 0x7f;

	return ~((low7 + UM_ONES * (0x80 - 0x24)) | w) & UM_ONES * 0x80;
}

/*
 * um_nondigits - the bytes of @w that are not decimal digits, each marked
 * by its high bit. Digits become 0..9 and carry nothing into the next
 * byte, so the first mark is exact; later ones may not be and are not
 * used.
 */
static __always_inline u64 um_nondigits(u64 w)
{
	u64 x = w ^ UM_ONES * '0';

	return ((x + UM_ONES * (0x80 - 10)) | x) & UM_ONES * 0x80;
}

/*
 * um_parse_value_slow - the value at @p, one byte at a time: what the
 * word at a time test leaves (a longer value, and every refused one). Up
 * to 19 digits fit in a u64 unchecked, and S64_MAX has 19: more are
 * refused before they could wrap. It stores the value in @r, unless @r
 * is NULL (a write that is only checked).
 */
static noinline const char *um_parse_value_slow(const char *p,
						struct um_rec *r)
{
	bool neg = *p == '-';
	const char *start;
	unsigned int d;
	u64 v = 0;

	p += neg;
	if (*p == '0' && p[1] != '\n')
		return ERR_PTR(-EINVAL);
	start = p;
	do {
		d = (u8)*p - '0';
		if (d > 9)
			return ERR_PTR(-EINVAL);
		v = v * 10 + d;
		p++;
	} while (*p != '\n' && p - start < 19);
	if (*p != '\n' || v > (neg ? (u64)S64_MAX + 1 : (u64)S64_MAX))
		return ERR_PTR(-EINVAL);
	if (r)
		r->value = neg ? (s64)(0 - v) : (s64)v;
	return p;
}

/*
 * um_parse_value - a signed 64-bit decimal at @p ending at '\n' (the
 * sentinel after the last record included): no '+', no leading zero, no
 * overflow. A value of up to seven digits (after any '-') is checked
 * with the bytes of one load; the slow path takes the others.
 *
 * Return: its newline, or @fail with the error in @err (as
 * um_parse_rec()).
 */
static __always_inline const char *um_parse_value(const char *p,
						  struct um_rec *r,
						  bool store, const char *fail,
						  int *err)
{
	const char *digits = p;
	unsigned int n;
	u64 w;

	/* The sign is rare: a branch, not arithmetic */
	if (unlikely(*p == '-'))
		digits++;
	w = um_load(digits);
	/* The top byte marked: n <= 7, and p[n] is the word's or the next */
	n = um_ffs(um_nondigits(w) | 1ULL << 63) >> 3;

	/*
	 * No digit, a leading zero, or something else than a newline after
	 * the digits (another byte, or an eighth digit): the slow path
	 * decides.
	 */
	if (unlikely(!n || digits[n] != '\n' || ((u8)w == '0' && n > 1))) {
		p = um_parse_value_slow(p, store ? r : NULL);
		if (IS_ERR(p)) {
			*err = PTR_ERR(p);
			return fail;
		}
		return p;
	}
	if (store) {
		u64 v = 0;
		unsigned int i;

		for (i = 0; i < n; i++)
			v = v * 10 + (digits[i] - '0');
		r->value = digits != p ? -(s64)v : (s64)v;
	}
	return digits + n;
}

/*
 * um_parse_pid_slow - the length of a pid of six digits or more at @p,
 * 11 for more than ten
 */
static noinline unsigned int um_parse_pid_slow(const char *p)
{
	unsigned int n = 6;

	while (n <= 10 && (u8)(p[n] - '0') <= 9)
		n++;
	return n;
}

/*
 * um_pid_len - the length of the pid after the "T|" of the record at @p,
 * whose first word is @w: 1 to 10 digits, accepted, never trusted. The
 * two zero bytes shifted in are not digits, so the word alone gives at
 * most 6 and a longer pid takes the slow path.
 *
 * Return: the length, or 0 when there is no valid pid.
 */
static __always_inline unsigned int um_pid_len(const char *p, u64 w)
{
	unsigned int n = um_ffs(um_nondigits(w >> 16)) >> 3;

	if (unlikely(n - 1 >= 5)) {
		if (n)
			n = um_parse_pid_slow(p + 2);
		if (n - 1 >= 10)
			return 0;
	}
	return n;
}

/*
 * um_name_end - the end of the name that starts at @p: its first '|' or
 * newline. '}' and '~', marked with the refused bytes, are stepped over.
 *
 * Return: that '|' or newline, or NULL at a refused byte.
 */
static __always_inline const char *um_name_end(const char *p)
{
	u64 m;

	for (;;) {
		m = um_name_stops(um_load(p));
		if (!m) {
			p += 8;
			continue;
		}
		p += um_ffs(m) >> 3;
		if (likely(*p == '|' || *p == '\n'))
			return p;
		if (*p != '}' && *p != '~')
			return NULL;
		p++;
	}
}

/*
 * um_parse_rec - one record at @p, which ends at a newline (the last one
 * at the sentinel). The type, its '|' and a pid of up to five digits come
 * from one load. With @store false the record is only checked and @r
 * (NULL) is not used: the compiler drops every store to it.
 *
 * Return: the record's newline; on an error, @fail (past the write's
 * last record, so that the caller's loop ends without a test of its own)
 * with the error in @err.
 */
static __always_inline const char *um_parse_rec(const char *p,
						struct um_rec *r,
						bool store, const char *fail,
						int *err)
{
	u64 w = um_load(p);
	unsigned int type = um_types[(u8)w], n;
	const char *name;
	size_t len;

	if (!type || p[1] != '|')
		goto inval;

	n = um_pid_len(p, w);
	if (!n)
		goto inval;
	p += 2 + n;
	if (store)
		r->event = type - 1;
	if (*p == '\n') {
		/* "E|pid" is the only record without a name */
		if (type != UM_END + 1)
			goto inval;
		if (store) {
			r->name = NULL;
			r->name_len = 0;
			r->value = 0;
		}
		return p;
	}
	if (*p != '|')
		goto inval;

	name = ++p;
	p = um_name_end(p);
	if (!p)
		goto inval;
	/* Empty or too long, in one comparison */
	len = p - name;
	if (unlikely(len - 1 >= UM_NAME_MAX)) {
		*err = len ? -ENAMETOOLONG : -EINVAL;
		return fail;
	}
	if (store) {
		r->name = name;
		r->name_len = len;
	}

	switch (type - 1) {
	case UM_COUNTER:
	case UM_ASYNC_BEGIN:
	case UM_ASYNC_END:
		if (*p != '|')
			goto inval;
		return um_parse_value(p + 1, r, store, fail, err);
	default:
		/* B, E and I end with the name */
		if (*p != '\n')
			goto inval;
		if (store)
			r->value = 0;
		return p;
	}

inval:
	*err = -EINVAL;
	return fail;
}

/*
 * um_parse - trace_um_parse() (@store, into @recs) or trace_um_check()
 * (@recs NULL): one body, two instances, so that both take and refuse
 * exactly the same writes.
 */
static __always_inline int um_parse(char *buf, size_t len,
				    struct um_rec *recs, bool store)
{
	const char *p = buf, *end = buf + len, *fail;
	int n = 0, err = 0;

	/* A final newline is optional: the sentinel stands in for it. */
	if (buf[len - 1] == '\n')
		end--;
	buf[len] = '\n';
	memset(buf + len + 1, 0, UM_SCAN_SLACK - 1);
	/* Past the sentinel once the loop steps over it: inside the slack */
	fail = end + 1;
	while (p <= end) {
		if (store && n == UM_RECS_MAX)
			return -E2BIG;
		p = um_parse_rec(p, store ? &recs[n] : NULL, store, fail, &err);
		n++;
		p++;		/* past the newline */
	}
	/*
	 * Checking only, the records are counted, not kept: a write of more
	 * than UM_RECS_MAX fails with -E2BIG as a storing parse's would, also
	 * when a record after the last one it may hold is bad.
	 */
	if (!store && n > UM_RECS_MAX)
		return -E2BIG;
	return err ? err : n;
}

/**
 * trace_um_parse - split a write into records
 * @buf: the write, with UM_SCAN_SLACK bytes of room after it, which
 *	the parser overwrites
 * @len: its length, at least 1
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
	return um_parse(buf, len, recs, true);
}

/**
 * trace_um_check - check a write that no instance records
 * @buf: the write, with UM_SCAN_SLACK bytes of room after it, which
 *	the parser overwrites
 * @len: its length, at least 1
 *
 * The records are checked as trace_um_parse() checks them and counted;
 * none is stored.
 *
 * Return: what trace_um_parse() would return for @buf.
 */
int trace_um_check(char *buf, size_t len)
{
	return um_parse(buf, len, NULL, false);
}
