/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/trace/trace_user_markers_parse.c and trace_user_markers.h
 * need of the kernel, for a user-space build of the parser and of the
 * rate limits' token bucket (selftests/rate): types, a few helpers with
 * the kernel's meaning, and the data types the header's structures name.
 * The functions declared here are defined by the test that uses them
 * (the parser's uses none). Both 32 and 64 bits.
 */
#ifndef KERNEL_SHIM_H
#define KERNEL_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef uint64_t __le64;

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __maybe_unused		__attribute__((__unused__))
#define __percpu
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define min_t(type, a, b)	({ type __a = (a), __b = (b); __a < __b ? __a : __b; })
#define U32_MAX			UINT32_MAX
#define S64_MAX			INT64_MAX
#define NSEC_PER_SEC		1000000000L

/* Little-endian hosts only, as the loads assume */
#define le64_to_cpu(x)		((u64)(x))

static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}

#define MAX_ERRNO		4095
#define IS_ERR_VALUE(x)		((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE(ptr); }

/* Named by the header's structures and inline functions, not used here */
typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
typedef struct { int lock; } raw_spinlock_t;
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };
struct rcu_head { void *next, *func; };
struct page;
extern unsigned long jiffies;
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_after64(a, b)	((s64)((b) - (a)) < 0)
u64 get_jiffies_64(void);
u64 jiffies64_to_nsecs(u64 j);
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

s64 atomic64_read(const atomic64_t *v);
void atomic64_set(atomic64_t *v, s64 i);
bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new);
void *page_address(const struct page *page);
enum trace_commit_result { TRACE_COMMIT_RECORDED };

#endif
