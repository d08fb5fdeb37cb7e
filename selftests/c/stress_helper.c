// SPDX-License-Identifier: GPL-2.0
/*
 * stress_helper - the C parts of scripts/stress, each bounded in time:
 *
 *   stress_helper markers TOP INST SECONDS THREADS
 *	THREADS threads write records to TOP/user_events and INST/user_events
 *	(and INST/trace_marker); prints "own N top M marker K" (records
 *	written by successful writes).
 *   stress_helper forkstorm INST SECONDS traced|untraced
 *	A fork/exit storm: every process writes "C|1|fk|1" (traced) or
 *	"C|1|nf|1" (untraced) to INST/user_events, then exits; children fork
 *	grandchildren. A traced storm first writes its own pid to
 *	INST/set_event_pid (event-fork adds the children). Prints "writes N".
 *   stress_helper spin SECONDS
 *	Runs half of the time (5 ms on, 5 ms asleep).
 *   stress_helper hold FILE SECONDS
 *	Holds FILE open (prints "opened" once it is) and writes to it in a
 *	loop until SIGTERM or SECONDS; prints "writes N errors E", fails on
 *	any write error.
 *
 * Exit status 0, or 1 on a failure the caller must see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double deadline;
static const char *top_dir, *inst_dir;
static atomic_long n_own, n_top, n_marker, n_fail;

static int open_in(const char *dir, const char *file)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return open(p, O_WRONLY);
}

/* Count the records of a successful write */
static long nrec(const char *s)
{
	long n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void *marker_thread(void *arg)
{
	static const char *const w[] = {
		"B|1|stress\nI|1|mid\nC|1|depth|3\nE|1\n",
		"S|1|async|42\nF|1|async|42\n",
		"I|1|one\n",
	};
	int fo = open_in(inst_dir, "user_events");
	int ft = open_in(top_dir, "user_events");
	int fm = open_in(inst_dir, "trace_marker");
	long i = (long)arg;

	if (fo < 0 || ft < 0 || fm < 0) {
		perror("stress_helper: open");
		atomic_fetch_add(&n_fail, 1);
		return NULL;
	}
	while (now_s() < deadline) {
		const char *s = w[i++ % 3];
		ssize_t len = strlen(s);

		if (write(fo, s, len) == len)
			atomic_fetch_add(&n_own, nrec(s));
		else
			atomic_fetch_add(&n_fail, 1);
		if (i % 4 == 0) {
			/* No counters to the top level: stress-fork counts those */
			s = "I|1|top\nS|1|a|1\nF|1|a|1\n";
			len = strlen(s);
			if (write(ft, s, len) == len)
				atomic_fetch_add(&n_top, nrec(s));
			else
				atomic_fetch_add(&n_fail, 1);
		}
		if (i % 8 == 0 && write(fm, "stress-marker\n", 14) == 14)
			atomic_fetch_add(&n_marker, 1);
		usleep(1000);	/* leave CPU time to the other stressors */
	}
	close(fo);
	close(ft);
	close(fm);
	return NULL;
}

static int markers(int threads)
{
	pthread_t t[64];
	int i;

	if (threads > 64)
		threads = 64;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, marker_thread, (void *)(long)i))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("own %ld top %ld marker %ld failed %ld\n", atomic_load(&n_own),
	       atomic_load(&n_top), atomic_load(&n_marker), atomic_load(&n_fail));
	return atomic_load(&n_fail) ? 1 : 0;
}

/* One member of a storm: write, maybe fork a grandchild, exit */
static void storm_member(atomic_long *count, const char *rec, int depth)
{
	int fd = open_in(inst_dir, "user_events");
	pid_t pid;

	if (fd >= 0 && write(fd, rec, strlen(rec)) == (ssize_t)strlen(rec))
		atomic_fetch_add(count, 1);
	if (fd >= 0)
		close(fd);
	if (depth < 2 && (rand() & 1)) {
		pid = fork();
		if (pid == 0) {
			storm_member(count, rec, depth + 1);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static int forkstorm(int traced)
{
	atomic_long *count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const char *rec = traced ? "C|1|fk|1\n" : "C|1|nf|1\n";
	char p[4096], s[32];
	pid_t pid;

	if (count == MAP_FAILED)
		return 1;
	if (traced) {
		int fd;

		snprintf(p, sizeof(p), "%s/set_event_pid", inst_dir);
		snprintf(s, sizeof(s), "%d", getpid());
		fd = open(p, O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, s, strlen(s)) < 0) {
			perror("stress_helper: set_event_pid");
			return 1;
		}
		close(fd);
	} else {
		/* Start once the traced storm has its pid listed */
		snprintf(p, sizeof(p), "%s/set_event_pid", inst_dir);
		for (;;) {
			int fd = open(p, O_RDONLY);
			ssize_t n = fd < 0 ? -1 : read(fd, s, sizeof(s));

			if (fd >= 0)
				close(fd);
			if (n > 0)
				break;
			if (now_s() > deadline)
				return 1;
			usleep(10000);
		}
	}
	srand(getpid());
	while (now_s() < deadline) {
		pid = fork();
		if (pid == 0) {
			storm_member(count, rec, 0);
			_exit(0);
		}
		if (pid < 0) {
			usleep(10000);
			continue;
		}
		waitpid(pid, NULL, 0);
	}
	printf("writes %ld\n", atomic_load(count));
	return 0;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static int hold(const char *file)
{
	long writes = 0, errors = 0;
	int fd = open(file, O_WRONLY);
	int um = strstr(file, "user_events") != NULL;

	if (fd < 0) {
		perror(file);
		return 1;
	}
	signal(SIGTERM, on_term);
	printf("opened\n");
	fflush(stdout);
	while (!stop && now_s() < deadline) {
		const char *s = um ? "I|1|hold\n" : "hold\n";

		if (write(fd, s, strlen(s)) < 0)
			errors++;
		else
			writes++;
		usleep(1000);
	}
	close(fd);
	printf("writes %ld errors %ld\n", writes, errors);
	return errors ? 1 : 0;
}

/* Half busy: spin 5 ms, sleep 5 ms (a task that runs and gets migrated) */
static int spin(void)
{
	while (now_s() < deadline) {
		double t = now_s() + 0.005;

		while (now_s() < t)
			;
		usleep(5000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "spin")) {
		deadline = now_s() + atof(argv[2]);
		return spin();
	}
	if (argc >= 6 && !strcmp(argv[1], "markers")) {
		top_dir = argv[2];
		inst_dir = argv[3];
		deadline = now_s() + atof(argv[4]);
		return markers(atoi(argv[5]));
	}
	if (argc >= 5 && !strcmp(argv[1], "forkstorm")) {
		inst_dir = argv[2];
		deadline = now_s() + atof(argv[3]);
		return forkstorm(!strcmp(argv[4], "traced"));
	}
	if (argc >= 4 && !strcmp(argv[1], "hold")) {
		deadline = now_s() + atof(argv[3]);
		return hold(argv[2]);
	}
	fprintf(stderr, "usage: see the comment at the top of stress_helper.c\n");
	return 2;
}
