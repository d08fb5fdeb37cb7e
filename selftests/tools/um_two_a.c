// SPDX-License-Identifier: GPL-2.0
/*
 * um_two - a program of two files that share user_marker.h's state: this
 * one defines USER_MARKER_IMPLEMENTATION, um_two_b.c only includes the
 * header. Spans begin in one file and end in the other.
 *
 * usage: um_two MODE
 *   pair     "across" begun here, ended there; "b-side" the other way;
 *            then 20 pairs "later" (begun here, ended there) and counters
 *            from both files, the system calls they made counted
 *            (raw_syscalls:sys_enter through perf; "?" when it cannot).
 *            Prints "spans A B syscalls N rc R": the open spans as each
 *            file sees them at the end (0 0), and the first non-zero
 *            return of a marker (0 if none).
 *   late     begins "early" here, prints "ready", waits for a line on
 *            stdin (someone starts recording meanwhile), ends it there,
 *            then "after" here and there; prints "spans A B".
 *   fork     begins "parent" here; a child begins "child" there and ends
 *            it here, then execs "um_two exec", which begins "exec" there
 *            and ends it here; the parent ends "parent" there. Prints
 *            "spans A B" of the parent, the child and the exec'd program.
 *   seccomp  under a seccomp filter that kills the process at
 *            prctl(PR_TRACE_USER_MARKER), writes every kind of marker,
 *            then prints "survived spans A B". On a kernel without
 *            seccomp (the project's test kernels are built without it),
 *            the policy is this program's own prctl(), which the
 *            header's calls reach before libc's: it kills the process
 *            with SIGSYS, as the filter would (said on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define USER_MARKER_IMPLEMENTATION
#include "user_marker.h"

int b_begin(const char *name);
int b_end(void);
int b_counter(const char *name, long long v);
unsigned int b_spans(void);

static int first_rc;
static int guard_prctl;

/*
 * prctl - the policy where seccomp is missing: calls made from this
 * program (the header's included) come here before libc's
 */
int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;
	int i;

	va_start(ap, option);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (guard_prctl && option == PR_TRACE_USER_MARKER) {
		signal(SIGSYS, SIG_DFL);
		raise(SIGSYS);
	}
	return syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
}

static void rc(int r)
{
	if (r && !first_rc)
		first_rc = r;
}

/* a counter of this thread's system calls, or -1 */
static int syscall_counter(void)
{
	struct perf_event_attr a;
	char buf[32] = "";
	FILE *f = fopen("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = strtoull(buf, NULL, 10);
	a.exclude_kernel = 0;
	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

static long long count(int fd)
{
	long long v = -1;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

static void print_spans(const char *who)
{
	printf("%sspans %u %u\n", who, um__spans, b_spans());
	fflush(stdout);
}

static int pair(void)
{
	long long before, after;
	int fd = syscall_counter(), i;

	rc(um_begin("across"));
	rc(b_end());
	rc(b_begin("b-side"));
	rc(um_end());
	before = count(fd);
	for (i = 0; i < 20; i++) {
		rc(um_begin("later"));
		rc(b_counter("from_b", i));
		rc(um_counter("from_a", i));
		rc(b_end());
	}
	after = count(fd);
	printf("spans %u %u syscalls ", um__spans, b_spans());
	/* less the read() that took the second count */
	if (before < 0 || after < 0)
		printf("?");
	else
		printf("%lld", after - before - 1);
	printf(" rc %d\n", first_rc);
	return 0;
}

static int late(void)
{
	char line[16];

	rc(um_begin("early"));
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	rc(b_end());
	rc(um_begin("after"));
	rc(b_end());
	rc(b_begin("after"));
	rc(um_end());
	print_spans("");
	return 0;
}

static int forked(const char *self)
{
	int status;
	pid_t pid;

	rc(um_begin("parent"));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		rc(b_begin("child"));
		rc(um_end());
		print_spans("child ");
		execl(self, self, "exec", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	rc(b_end());
	print_spans("parent ");
	return 0;
}

static int exec_side(void)
{
	rc(b_begin("exec"));
	rc(um_end());
	print_spans("exec ");
	return 0;
}

static int sandboxed(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_TRACE_USER_MARKER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("PR_SET_NO_NEW_PRIVS");
		return 2;
	}
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		if (errno != ENOSYS && errno != EINVAL) {
			perror("seccomp");
			return 2;
		}
		fprintf(stderr, "policy: this program's prctl() (no seccomp in this kernel: %s)\n",
			strerror(errno));
		guard_prctl = 1;
	} else {
		fprintf(stderr, "policy: a seccomp filter\n");
	}
	um_begin("sandboxed");
	b_counter("sandboxed", 1);
	um_instant("sandboxed");
	um_async_begin("sandboxed", 1);
	um_async_end("sandboxed", 1);
	b_end();
	print_spans("survived ");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: um_two pair|late|fork|seccomp\n");
		return 2;
	}
	if (!strcmp(argv[1], "pair"))
		return pair();
	if (!strcmp(argv[1], "late"))
		return late();
	if (!strcmp(argv[1], "fork"))
		return forked(argv[0]);
	if (!strcmp(argv[1], "exec"))
		return exec_side();
	if (!strcmp(argv[1], "seccomp"))
		return sandboxed();
	fprintf(stderr, "um_two: unknown mode %s\n", argv[1]);
	return 2;
}
