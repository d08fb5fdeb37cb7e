// SPDX-License-Identifier: GPL-2.0
/*
 * rate_test - the user markers' token bucket (um_bucket_take() and
 * um_bucket_refill_take() of kernel/trace/trace_user_markers.h, compiled
 * as they are against selftests/parser/include/kernel_shim.h) on the
 * host, at 32 and 64 bits (scripts/rate-check builds both), with a clock
 * the test moves:
 *  - a bucket refills by the jiffies elapsed, up to its burst, and a
 *    bucket idle for 2^31 jiffies or more (24.8 days at HZ=1000, when a
 *    32-bit jiffies comparison turns negative) or across a wrap of the
 *    low 32 bits refills at once;
 *  - a take that the bucket refuses writes nothing and takes no lock
 *    (writers refused by an instance's total share its cache line
 *    read-only and never wait);
 *  - a lowered burst caps a fuller bucket; unused tokens come back.
 *
 * usage: rate_test [--probe]; exits 1 on a failure, naming it (--probe:
 * exits 0 at once, to learn whether the host runs the binary at all).
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel_shim.h"
#include "trace_user_markers.h"

#define HZ	1000

/* The clock and the atomics the header's code calls, counted */
u64 jiffies_64;
unsigned long jiffies;
static unsigned long stores, cmpxchg_fails;

u64 get_jiffies_64(void)
{
	return jiffies_64;
}

u64 jiffies64_to_nsecs(u64 j)
{
	return j * (NSEC_PER_SEC / HZ);
}

s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

void atomic64_set(atomic64_t *v, s64 i)
{
	stores++;
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
	if (__atomic_compare_exchange_n(&v->counter, old, new, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		stores++;
		return true;
	}
	cmpxchg_fails++;
	return false;
}

/* What trace_user_markers_state.c builds around the header's code */
u32 trace_um_bucket_take_slow(struct um_bucket *b, u64 limit, u32 want)
{
	return um_bucket_refill_take(b, limit, want);
}

static void set_clock(u64 j)
{
	jiffies_64 = j;
	jiffies = (unsigned long)j;
}

static void init(struct um_bucket *b, u64 limit)
{
	atomic64_set(&b->tokens, (limit & U32_MAX) * NSEC_PER_SEC);
	atomic64_set(&b->last, get_jiffies_64());
}

static int failed;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL: %d-bit: ", (int)BITS_PER_LONG);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		failed = 1;						\
	}								\
} while (0)

#define LIMIT(rate, burst)	((u64)(rate) << 32 | (burst))

/* Empty @b within the current jiffy */
static void drain(struct um_bucket *b, u64 limit)
{
	while (um_bucket_take(b, limit, 1000000))
		;
}

/* Idle for @idle jiffies from @start, then the whole burst is back */
static void idle_refills(u64 start, u64 idle, const char *what)
{
	u64 limit = LIMIT(1000, 5);
	struct um_bucket b;
	u32 got;

	set_clock(start);
	init(&b, limit);
	drain(&b, limit);
	CHECK(um_bucket_take(&b, limit, 1) == 0, "%s: a drained bucket gave a token", what);
	set_clock(start + idle);
	got = um_bucket_take(&b, limit, 10);
	CHECK(got == 5, "%s: idle %llu jiffies from %#llx, took %u tokens, want the burst of 5",
	      what, (unsigned long long)idle, (unsigned long long)start, got);
}

int main(int argc, char **argv)
{
	u64 limit = LIMIT(1000, 10), big = LIMIT(10, 100);
	/* The kernel's first jiffy: 5 minutes before the 32-bit wrap */
	u64 initial = (u64)(u32)(-300 * HZ);
	unsigned long s, f;
	struct um_bucket b;
	u32 got;

	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return 0;

	/* A full bucket gives its burst, then nothing in the same jiffy */
	set_clock(initial);
	init(&b, limit);
	CHECK(um_bucket_take(&b, limit, 4) == 4, "a full bucket refused 4 of 10");
	CHECK(um_bucket_take(&b, limit, 10) == 6, "a bucket of 6 gave other than 6");
	CHECK(um_bucket_take(&b, limit, 1) == 0, "an empty bucket gave a token");

	/* A refusal in the same jiffy writes nothing, and fails no exchange */
	s = stores;
	f = cmpxchg_fails;
	CHECK(um_bucket_take(&b, limit, 1) == 0, "an empty bucket gave a token");
	CHECK(um_bucket_take(&b, limit, 3) == 0, "an empty bucket gave tokens");
	CHECK(stores == s, "a refused take wrote %lu times", stores - s);
	CHECK(cmpxchg_fails == f, "a refused take tried %lu exchanges", cmpxchg_fails - f);

	/* One jiffy at 1000 a second: one token; a partial grant */
	set_clock(initial + 1);
	got = um_bucket_take(&b, limit, 3);
	CHECK(got == 1, "one jiffy at 1000/s gave %u tokens, want 1", got);
	/* The jiffy was credited once: nothing more in it */
	CHECK(um_bucket_take(&b, limit, 1) == 0, "a jiffy credited twice");
	set_clock(initial + 4);
	got = um_bucket_take(&b, limit, 5);
	CHECK(got == 3, "three jiffies gave %u tokens, want 3", got);
	/* Never more than the burst */
	set_clock(initial + 1000000);
	got = um_bucket_take(&b, limit, 100);
	CHECK(got == 10, "a long idle gave %u tokens, want the burst of 10", got);

	/* Unused tokens come back, capped at the burst */
	drain(&b, limit);
	trace_um_bucket_untake(&b, limit, 4);
	CHECK(um_bucket_take(&b, limit, 10) == 4, "4 tokens given back, not 4 taken");
	trace_um_bucket_untake(&b, limit, 50);
	CHECK(um_bucket_take(&b, limit, 100) == 10, "tokens given back above the burst");

	/* A lowered burst caps a fuller bucket at the next take */
	set_clock(initial + 2000000);
	init(&b, big);
	got = um_bucket_take(&b, LIMIT(10, 3), 50);
	CHECK(got == 3, "a burst lowered to 3 gave %u tokens", got);

	/*
	 * Idle long enough that a 32-bit jiffies difference turns negative,
	 * and across the wrap of the low 32 bits: the whole burst is back.
	 */
	idle_refills(initial, 1ULL << 31, "2^31 jiffies");
	idle_refills(initial, (1ULL << 31) + 12345, "2^31 + 12345 jiffies");
	idle_refills(initial, (1ULL << 32) - 1, "2^32 - 1 jiffies");
	idle_refills(initial, (1ULL << 32) + 7, "2^32 + 7 jiffies");
	idle_refills(0xfffffff0ULL, 0x20, "across the 32-bit wrap");
	idle_refills(initial, 3ULL << 31, "3 * 2^31 jiffies");

	if (failed)
		return 1;
	printf("ok: %d-bit: the token bucket refills by jiffies_64 (idle 2^31 and 2^32 jiffies, across the 32-bit wrap), a refusal writes nothing\n",
	       (int)BITS_PER_LONG);
	return 0;
}
