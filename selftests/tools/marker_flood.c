// SPDX-License-Identifier: GPL-2.0
/*
 * marker_flood - write marker records as fast as possible, to make large
 * traces (selftests/tools/export-rss): nested spans on several threads,
 * a counter and an instant now and then.
 *
 * usage: marker_flood SECONDS [THREADS [NAME_LENGTH]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the one file of the program that holds user_marker.h's state */
#define USER_MARKER_IMPLEMENTATION
#include "user_marker.h"

static double seconds;
static char name[2][UM_NAME_MAX + 1];	/* "request...", "handle..." */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *flood(void *arg)
{
	double end = now() + seconds;
	unsigned long i = 0;

	while ((i & 1023) || now() < end) {
		um_begin(name[0]);
		um_begin("parse");
		um_end();
		um_begin(name[1]);
		if (!(i & 15))
			um_counter("queue", i & 255);
		um_end();
		um_end();
		if (!(i & 255))
			um_instant("tick");
		i++;
	}
	*(unsigned long *)arg = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1, t, len;
	unsigned long counts[64] = { 0 }, total = 0;
	pthread_t tid[64];

	if (argc < 2 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: marker_flood SECONDS [THREADS [NAME_LENGTH]]\n");
		return 2;
	}
	seconds = atof(argv[1]);
	len = argc > 3 ? atoi(argv[3]) : 7;
	if (len < 7 || len > UM_NAME_MAX)
		len = 7;
	/* long names make big records: a large trace sooner */
	snprintf(name[0], sizeof(name[0]), "request%0*d", len - 7, 0);
	snprintf(name[1], sizeof(name[1]), "handle-%0*d", len - 7, 0);
	for (t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, flood, &counts[t]);
	for (t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		total += counts[t];
	}
	printf("marker_flood: %lu requests (%lu records)\n", total, total * 6);
	return 0;
}
