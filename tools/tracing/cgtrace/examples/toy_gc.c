// SPDX-License-Identifier: GPL-2.0
/*
 * toy_gc - a toy garbage collector instrumented with user_marker.h
 *
 * It allocates, then "collects" in spans: a "gc" span holding a busy
 * "mark" span (on CPU) and a sleeping "sweep" span (blocked), and reports
 * the heap size as the "heap_kb" counter. In a trace, "gc" shows
 * dur > cpu: the sweep's sleep is time off the CPU.
 *
 * The markers stay in the code whether or not anyone records them: while
 * no tracing instance records user_markers events, each is a test of the
 * enable state that user_marker.h maps from the kernel, and no system
 * call; once an instance enables them, the next marker is written.
 *
 * usage: toy_gc [CYCLES [MARK_MS [SWEEP_MS]]]   (default 5 4 3)
 */
/* clock_gettime() and nanosleep() are POSIX: ask for them under -std=c11 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the one file of the program that holds user_marker.h's state */
#define USER_MARKER_IMPLEMENTATION
#include "user_marker.h"

#define CHUNK_KB	64
#define MAX_CHUNKS	256

static void *heap[MAX_CHUNKS];
static int nchunks;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* allocate - the mutator: grow the heap by n chunks */
static void allocate(int n)
{
	while (n-- > 0 && nchunks < MAX_CHUNKS) {
		heap[nchunks] = malloc(CHUNK_KB * 1024);
		if (!heap[nchunks])
			break;
		memset(heap[nchunks++], 0x5a, CHUNK_KB * 1024);
	}
	um_counter("heap_kb", (long long)nchunks * CHUNK_KB);
}

/* mark - busy: walk the heap for ms milliseconds, on the CPU */
static unsigned long mark(double ms)
{
	double end = now_ms() + ms;
	unsigned long sum = 0;
	int i = 0;

	um_begin("mark");
	while (now_ms() < end && nchunks) {
		sum += ((unsigned char *)heap[i % nchunks])[i % 4096];
		i++;
	}
	um_end();
	return sum;
}

/* sweep - free half of the heap, then wait for "the disk": blocked */
static void sweep(double ms)
{
	long long ns = (long long)(ms * 1e6);
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	um_begin("sweep");
	while (nchunks > MAX_CHUNKS / 8 && nchunks % 2 == 0)
		free(heap[--nchunks]);
	if (nchunks > 1)
		free(heap[--nchunks]);
	nanosleep(&ts, NULL);
	um_end();
}

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 5;
	double mark_ms = argc > 2 ? atof(argv[2]) : 4;
	double sweep_ms = argc > 3 ? atof(argv[3]) : 3;
	unsigned long sum = 0;
	int i;

	for (i = 0; i < cycles; i++) {
		allocate(8);
		um_begin("gc");
		sum += mark(mark_ms);
		sweep(sweep_ms);
		um_counter("heap_kb", (long long)nchunks * CHUNK_KB);
		um_end();
	}
	um_instant("done");
	printf("toy_gc: %d cycles, heap %d KiB (%lu)\n", cycles,
	       nchunks * CHUNK_KB, sum & 1);
	return 0;
}
