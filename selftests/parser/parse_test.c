// SPDX-License-Identifier: GPL-2.0
/*
 * parse_test - the user_events parser (kernel/trace/trace_user_markers_parse.c,
 * compiled as it is against include/kernel_shim.h) on the host, under
 * MemorySanitizer or AddressSanitizer (scripts/parser-check builds both).
 *
 * Every write is copied into a buffer of exactly its length plus
 * UM_SCAN_SLACK bytes that nothing initialised, as the kernel's
 * kmalloc()ed fallback buffer is: MemorySanitizer reports any byte the
 * parser reads before it wrote it, AddressSanitizer any load past the
 * slack. On each write the test checks that
 *  - trace_um_parse() and trace_um_check() give the same count or error;
 *  - a write of generated valid records parses into exactly those records
 *    (type, name, value: the value as strtoll() reads the field);
 *  - every record of any write has its name inside the write, 1 to
 *    UM_NAME_MAX bytes of allowed bytes, and its type among the events.
 * Writes: valid records of every type with names and values of every
 * length (so that each field ends at every offset of a load), the same
 * with one byte changed, and random bytes of the grammar's alphabet.
 *
 * usage: parse_test [SEED]; exits 1 on the first failure, naming it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel_shim.h"
#include "trace_user_markers.h"

#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define UNDER "no byte read before it was written (MemorySanitizer)"
#elif __has_feature(address_sanitizer)
#define UNDER "no read past the write's slack (AddressSanitizer)"
#endif
#endif
#ifndef UNDER
#define UNDER "no sanitizer"
#endif

static unsigned long long rng;

static unsigned int rn(unsigned int n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rng >> 33) % n;
}

static unsigned long writes, records;

static void fail(const char *what, const char *w, size_t len)
{
	size_t i;

	printf("FAIL: %s, write of %zu bytes:", what, len);
	for (i = 0; i < len; i++)
		printf(" %02x", (unsigned char)w[i]);
	printf("\n");
	exit(1);
}

/* The write in a buffer of its length plus the slack, never initialised */
static char *fresh_copy(const char *w, size_t len)
{
	char *b = malloc(len + UM_SCAN_SLACK);

	if (!b) {
		perror("malloc");
		exit(2);
	}
	memcpy(b, w, len);
	return b;
}

static const char um_letters[] = "BECSFI";

/*
 * Parse and check @w; with @want (records expected, in order) compare
 * what was stored. Returns trace_um_parse()'s result.
 */
static int run_write(const char *w, size_t len, const struct um_rec *want,
		     int nwant)
{
	struct um_rec recs[UM_RECS_MAX];
	char *pb = fresh_copy(w, len), *cb = fresh_copy(w, len);
	int n, c, i;

	n = trace_um_parse(pb, len, recs);
	c = trace_um_check(cb, len);
	writes++;
	if (n != c)
		fail("trace_um_parse() and trace_um_check() disagree", w, len);
	if (want && n != nwant)
		fail("a write of valid records did not parse into them", w, len);
	for (i = 0; i < n; i++) {
		const struct um_rec *r = &recs[i];

		records++;
		if (r->event >= UM_NR_EVENTS)
			fail("a record of no event", w, len);
		if (r->name_len) {
			if (r->name < pb || r->name + r->name_len > pb + len)
				fail("a name outside the write", w, len);
			/* The byte-wise check the prctl path uses on names */
			if (trace_um_check_name(r->name, r->name_len))
				fail("a name with a refused byte", w, len);
		} else if (r->event != UM_END) {
			fail("a record other than an end without a name", w, len);
		}
		if (!want)
			continue;
		if (r->event != want[i].event || r->name_len != want[i].name_len ||
		    (r->name_len && memcmp(r->name, want[i].name, r->name_len)) ||
		    r->value != want[i].value)
			fail("a record parsed other than it was written", w, len);
	}
	free(pb);
	free(cb);
	return n;
}

/* A value field of @digits digits (1 to 19), maybe negative */
static size_t gen_value(char *o, int digits)
{
	size_t l = 0;
	int i;

	if (rn(3) == 0)
		o[l++] = '-';
	o[l++] = digits == 1 ? '0' + rn(10) : '1' + rn(9);
	for (i = 1; i < digits; i++)
		o[l++] = '0' + rn(10);
	/* 19 digits may pass S64_MAX: keep those below it */
	if (digits == 19)
		o[l - 19] = '1' + rn(8);
	return l;
}

/*
 * One valid record at @o (no newline): type @t, a pid of @pidlen digits,
 * a name of @namelen bytes, a value of @vdigits digits for C, S and F.
 * Its expected contents go to @r, the name pointing into @o.
 */
static size_t gen_record(char *o, char t, int pidlen, int namelen,
			 int vdigits, struct um_rec *r)
{
	size_t l = 0, v;
	char num[32];
	int i;

	o[l++] = t;
	o[l++] = '|';
	for (i = 0; i < pidlen; i++)
		o[l++] = (i ? '0' : '1') + rn(9);
	r->event = strchr(um_letters, t) - um_letters;
	r->value = 0;
	r->name_len = namelen;
	r->name = o + l + 1;
	if (t == 'E' && !namelen)
		return l;
	o[l++] = '|';
	for (i = 0; i < namelen; i++) {
		unsigned char c;

		do {
			c = rn(3) ? 'a' + rn(26) : 0x20 + rn(0x60);
		} while (c == '|' || c == 0x7f);
		o[l++] = c;
	}
	if (strchr("CSF", t)) {
		o[l++] = '|';
		v = gen_value(o + l, vdigits);
		memcpy(num, o + l, v);
		num[v] = '\0';
		r->value = strtoll(num, NULL, 10);
		l += v;
	}
	return l;
}

/* Valid writes: each field length, so every field ends at every offset */
static void valid_writes(void)
{
	struct um_rec want[UM_RECS_MAX];
	char w[UM_WRITE_MAX];
	int t, pid, name, val, k, nrec;
	size_t l;

	for (t = 0; t < 6; t++)
		for (pid = 1; pid <= 10; pid++)
			for (name = um_letters[t] == 'E' ? 0 : 1; name <= 20; name++)
				for (val = 1; val <= 19; val++) {
					if (!strchr("CSF", um_letters[t]) && val > 1)
						break;
					l = gen_record(w, um_letters[t], pid, name, val, want);
					if (rn(2))
						w[l++] = '\n';
					if (run_write(w, l, want, 1) != 1)
						fail("a valid record refused", w, l);
				}
	/* Names up to the limit, and batches up to UM_RECS_MAX records */
	for (name = 100; name <= UM_NAME_MAX; name++) {
		l = gen_record(w, 'I', 3, name, 1, want);
		run_write(w, l, want, 1);
	}
	for (k = 0; k < 2000; k++) {
		nrec = 1 + rn(UM_RECS_MAX);
		l = 0;
		for (t = 0; t < nrec; t++) {
			if (l + 200 > sizeof(w))
				break;
			l += gen_record(w + l, um_letters[rn(6)], 1 + rn(10),
					rn(8) ? 1 + rn(30) : 1 + rn(UM_NAME_MAX),
					1 + rn(19), &want[t]);
			w[l++] = '\n';
		}
		if (rn(2))
			l--;
		run_write(w, l, want, t);
	}
}

/* Valid writes with one byte changed, and random bytes of the alphabet */
static void garbage_writes(void)
{
	static const char alphabet[] = "BECSFI||||0123456789-\n}~az\x01\x7f";
	struct um_rec want[UM_RECS_MAX];
	char w[UM_WRITE_MAX];
	int k, t;
	size_t l, i;

	for (k = 0; k < 200000; k++) {
		l = 0;
		if (rn(2)) {
			for (t = 0; t < 1 + (int)rn(4); t++) {
				l += gen_record(w + l, um_letters[rn(6)], 1 + rn(11),
						rn(6) ? 1 + rn(20) : 120 + rn(12),
						1 + rn(19), &want[0]);
				w[l++] = '\n';
			}
			w[rn(l)] = rn(2) ? alphabet[rn(sizeof(alphabet) - 1)] : rn(256);
		} else {
			l = 1 + rn(64);
			for (i = 0; i < l; i++)
				w[i] = alphabet[rn(sizeof(alphabet) - 1)];
		}
		run_write(w, l, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;

	rng = seed;
	valid_writes();
	garbage_writes();
	printf("ok: seed %llu, %lu writes, %lu records: parse and check agree, every valid record as written, %s\n",
	       seed, writes, records, UNDER);
	return 0;
}
