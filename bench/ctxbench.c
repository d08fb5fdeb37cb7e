// SPDX-License-Identifier: GPL-2.0
/*
 * ctxbench - cost of ftrace context filters and user-space markers.
 *
 * Runs as root inside the guest (scripts/vm-run) on the patched or the
 * vanilla kernel. Every case is one batch of cheap, deterministic
 * operations timed with CLOCK_MONOTONIC; a round runs every case once,
 * and rounds alternate the case order (A B C ... then ... C B A), so the
 * cases are interleaved and slow drift of the host cancels out. Cases
 * the kernel cannot run are reported as skipped.
 *
 * Under "vm-run --icount" the guest clock advances 1 ns per guest
 * instruction, so every figure is an instruction count (info clock icount,
 * from $CGTRACE_ICOUNT); the fastest sub-batch of a round is the one no
 * timer interrupt landed in.
 *
 * Output, one record per line (read by bench/report.py):
 *   info KEY VALUE...
 *   sample CASE ROUND MIN_NS_PER_OP MEDIAN_NS_PER_OP EVENTS_PER_OP
 *     (the fastest and the median sub-batch of the round)
 *   mem NAME BYTES
 *   skip CASE REASON...
 *
 * usage: ctxbench [-r ROUNDS] [-k SUBBATCHES] [-s SYSCALLS] [-p PINGPONGS]
 *                 [-m MARKERS] [-c CASE,...] [-l] [-M] [-N] [-b KB]
 * -s, -p, -m: operations per sub-batch (syscalls, ping-pong round trips,
 * marker operations; a 16-record batch counts 4); -k sub-batches per
 * sample (8); -r rounds (8); -c only these cases; -l list the cases;
 * -M memory only; -N no memory; -b the instance's buffer_size_kb
 * (default: the kernel's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"
#define INST		TRACEFS "/instances/ctxbench"
#define CGROOT		"/sys/fs/cgroup"
#define NR_MANY		1024	/* entries in the "1024" lists */
#define NR_MEM_THREADS	128	/* threads for the marker state measure */
#define NR_INST_MAX	64	/* most extra instances with a cgroup filter */
#define INSTK		TRACEFS "/instances/ctxbench-k"
/*
 * An event that never fires while ctxbench runs: its trigger file holds
 * the enable_event triggers that put a case's events in soft-disabled
 * mode (tracepoint armed, probe called, event not recorded here).
 */
#define SOFT_HOST	INST "/events/sched/sched_process_exec/trigger"

/*
 * user_marker.h, writing to the benchmark's instance (its user_events
 * and user_events_enabled) instead of the top level's
 */
#define USER_MARKER_IMPLEMENTATION
#define UM_TRACEFS	INST
#include "user_marker.h"

/*
 * Mainline's user_events (6.4 and later): an event registered with an
 * enable bit in the writer's memory (linux/user_events.h, which older
 * headers lack).
 */
struct ml_user_reg {
	unsigned int		size;
	unsigned char		enable_bit;
	unsigned char		enable_size;
	unsigned short		flags;
	unsigned long long	enable_addr;
	unsigned long long	name_args;
	unsigned int		write_index;
} __attribute__((__packed__));
#define ML_DIAG_IOCSREG	_IOWR('*', 0, struct ml_user_reg *)

enum kind { K_SYSCALL, K_PINGPONG, K_MARKER, K_MIGRATE };
#define NR_KINDS	(K_MIGRATE + 1)

/* Which events a case enables in the instance. */
enum ev { EV_NONE, EV_GETPPID, EV_GETPID, EV_MARKERS, EV_SCHED, NR_EV };

/* The instance's filters for a case. */
enum cg { CG_NONE, CG_SELF, CG_OTHER, CG_MANY };
/*
 * PID_ECHOED: "echo > set_event_pid", an empty list written after the
 * truncation. Vanilla then marks every event of the instance as pid
 * filtered with no list to filter by (event_pid_write() sets the flag
 * unconditionally, a truncation clears it only while a list exists), and
 * each event pays the pid test; PID_NONE is a truncation alone.
 */
enum pid { PID_NONE, PID_SELF, PID_OTHER, PID_MANY, PID_ECHOED };

/* What a marker case writes, and how. */
enum mk { MK_NONE, MK_PAIR_UE, MK_PAIR_TM, MK_PAIR_NULL, MK_SINGLE, MK_BATCH,
	  MK_UMH, MK_MAINLINE, MK_LOOP, MK_PRCTL };

/*
 * The marker rate limit: unlimited ("0"), dropping ("1 1"), or as a new
 * instance has it (read at start, into default_rate).
 */
enum rate { RATE_NONE, RATE_DROP, RATE_DEFAULT };

struct bcase {
	const char	*name;
	enum kind	kind;
	enum ev		ev;
	enum cg		cg;
	enum pid	pid;
	int		filt;		/* common_pid != self on the event */
	enum mk		mk;
	enum rate	rate;		/* the instance's user_events_rate */
	int		user;		/* host speed reference: user code only */
	int		fcg;		/* set_ftrace_cgroup: switch probes only */
	int		soft;		/* events armed but soft-disabled */
	int		ninst;		/* extra instances, each its own cgroup */
	int		clk;		/* clock_gettime(clk - 1) instead of getppid */
	int		open;		/* the writer has a span open (markers off) */
	int		nobuf;		/* the instance's tracing_on is 0 */
	int		skip;		/* not runnable here, or not selected */
};

static struct bcase cases[] = {
	/*
	 * per-event cost of sys_enter_getppid: Q1, Q2, Q3, Q5; ordered so
	 * that neighbours differ by one setting
	 */
	{ "sc_user",		K_SYSCALL, .user = 1 },
	{ "sc_off",		K_SYSCALL, EV_NONE },
	{ "sc_armed",		K_SYSCALL, EV_GETPID },
	{ "sc_soft",		K_SYSCALL, EV_GETPPID, .soft = 1 },
	{ "sc_on",		K_SYSCALL, EV_GETPPID },
	{ "sc_cg_match",	K_SYSCALL, EV_GETPPID, CG_SELF },
	{ "sc_cg1024",		K_SYSCALL, EV_GETPPID, CG_MANY },
	{ "sc_cg_reject",	K_SYSCALL, EV_GETPPID, CG_OTHER },
	{ "sc_filt_reject",	K_SYSCALL, EV_GETPPID, .filt = 1 },
	{ "sc_pid_reject",	K_SYSCALL, EV_GETPPID, .pid = PID_OTHER },
	{ "sc_pid_match",	K_SYSCALL, EV_GETPPID, .pid = PID_SELF },
	{ "sc_pid1024",		K_SYSCALL, EV_GETPPID, .pid = PID_MANY },
	{ "sc_on_pid_echoed",	K_SYSCALL, EV_GETPPID, .pid = PID_ECHOED },
	/*
	 * What a span's runtime reads cost: the thread CPU clock reads the
	 * scheduler's runtime (task_sched_runtime(), as the markers do;
	 * the patched kernel reads the current task's without
	 * update_curr()), the monotonic one a clocksource; both as
	 * syscalls, not vDSO calls.
	 */
	{ "sc_thread_cputime",	K_SYSCALL, EV_NONE, .clk = CLOCK_THREAD_CPUTIME_ID + 1 },
	{ "sc_monotonic",	K_SYSCALL, EV_NONE, .clk = CLOCK_MONOTONIC + 1 },
	/* pipe ping-pong round trip (two switches): Q4, Q5 */
	{ "pp_user",		K_PINGPONG, .user = 1 },
	{ "pp_off",		K_PINGPONG, EV_NONE },
	{ "pp_fcg",		K_PINGPONG, EV_NONE, .fcg = 1 },
	{ "pp_cg",		K_PINGPONG, EV_NONE, CG_SELF },
	{ "pp_cg1024",		K_PINGPONG, EV_NONE, CG_MANY },
	{ "pp_pid1024",		K_PINGPONG, EV_NONE, .pid = PID_MANY },
	{ "pp_pid",		K_PINGPONG, EV_NONE, .pid = PID_SELF },
	/* the same with sched_switch, sched_waking, sched_wakeup recorded */
	{ "pp_ev_pid",		K_PINGPONG, EV_SCHED, .pid = PID_SELF },
	{ "pp_ev_off",		K_PINGPONG, EV_SCHED },
	{ "pp_ev_soft",		K_PINGPONG, EV_SCHED, .soft = 1 },
	{ "pp_ev_cg",		K_PINGPONG, EV_SCHED, CG_SELF },
	/* K more instances, each filtering its own cgroup, no event */
	{ "pp_inst1",		K_PINGPONG, .ninst = 1 },
	{ "pp_inst4",		K_PINGPONG, .ninst = 4 },
	{ "pp_inst16",		K_PINGPONG, .ninst = 16 },
	{ "pp_inst64",		K_PINGPONG, .ninst = 64 },
	/* markers: Q6 */
	{ "mk_pair_ue",		K_MARKER, EV_MARKERS, .mk = MK_PAIR_UE },
	{ "mk_pair_ue_soft",	K_MARKER, EV_MARKERS, .mk = MK_PAIR_UE,
				.soft = 1 },
	{ "mk_pair_ue_off",	K_MARKER, EV_NONE, .mk = MK_PAIR_UE },
	/*
	 * The same under the rate limit a new instance starts with (every
	 * other marker case runs unlimited): what the limit's tokens cost a
	 * write that it lets through (the batches stay inside its burst).
	 */
	{ "mk_pair_ue_rated",	K_MARKER, EV_MARKERS, .mk = MK_PAIR_UE,
				.rate = RATE_DEFAULT },
	{ "mk_pair_tm",		K_MARKER, EV_NONE, .mk = MK_PAIR_TM },
	/* the same two write(2) calls to /dev/null: the syscall floor */
	{ "mk_pair_null",	K_MARKER, EV_NONE, .mk = MK_PAIR_NULL },
	{ "mk_single",		K_MARKER, EV_MARKERS, .mk = MK_SINGLE },
	{ "mk_single_soft",	K_MARKER, EV_MARKERS, .mk = MK_SINGLE,
				.soft = 1 },
	{ "mk_single_off",	K_MARKER, EV_NONE, .mk = MK_SINGLE },
	{ "mk_batch16",		K_MARKER, EV_MARKERS, .mk = MK_BATCH },
	{ "mk_batch16_soft",	K_MARKER, EV_MARKERS, .mk = MK_BATCH,
				.soft = 1 },
	{ "mk_batch16_drop",	K_MARKER, EV_MARKERS, .mk = MK_BATCH,
				.rate = RATE_DROP },
	{ "mk_batch16_off",	K_MARKER, EV_NONE, .mk = MK_BATCH },
	/*
	 * The same recorded with the ring buffer off: every record takes
	 * the whole path and its reserve fails at once (buffer_dropped).
	 * What mk_batch16 counts above it is the records' ring-buffer
	 * events, which a batch cannot share: the batch's floor.
	 */
	{ "mk_batch16_nobuf",	K_MARKER, EV_MARKERS, .mk = MK_BATCH, .nobuf = 1 },
	/*
	 * The same while the writer has a span open: records are followed
	 * (a B pushed, an E popped) although no event is enabled.
	 */
	{ "mk_batch16_open",	K_MARKER, EV_NONE, .mk = MK_BATCH, .open = 1 },
	{ "mk_pair_ue_open",	K_MARKER, EV_NONE, .mk = MK_PAIR_UE, .open = 1 },
	/*
	 * A B + E pair through user_marker.h: with user_markers disabled in
	 * the instance it tests the enable state its page holds and makes no
	 * system call; enabled, it writes the two records. mk_loop is the
	 * benchmark's own loop around an operation that does nothing: what
	 * a pair costs above it is the pair's. mk_mainline is mainline's
	 * user_events (6.4 on) disabled: two events registered with enable
	 * bits in the writer's memory, each tested before a write.
	 */
	{ "mk_loop",		K_MARKER, EV_NONE, .mk = MK_LOOP },
	{ "mk_umh_off",		K_MARKER, EV_NONE, .mk = MK_UMH },
	{ "mk_umh",		K_MARKER, EV_MARKERS, .mk = MK_UMH },
	{ "mk_mainline_off",	K_MARKER, EV_NONE, .mk = MK_MAINLINE },
	/*
	 * The same pair through prctl(PR_TRACE_USER_MARKER), the path of a
	 * process without tracefs (no page to test: two system calls), with
	 * user_markers disabled and enabled; the instance opts in
	 * (options/user_events_prctl)
	 */
	{ "mk_prctl_off",	K_MARKER, EV_NONE, .mk = MK_PRCTL },
	{ "mk_prctl",		K_MARKER, EV_MARKERS, .mk = MK_PRCTL },
	/*
	 * cgroup migrations: the task moves to /ctxbench-mig and back (two
	 * migrations an operation), with no cgroup filter anywhere (the
	 * cgroup core's call into tracing returns at its static key) and
	 * with an instance filtering another cgroup (the moved task is
	 * decided again). Run only when named (-c, scripts/insn-profile):
	 * a migration can wait for an RCU grace period, and an idle guest's
	 * icount clock jumps to the next timer, so their counts are not
	 * repeatable; the profile counts the instructions executed.
	 */
	{ "mg_off",		K_MIGRATE, EV_NONE, .skip = 2 },
	{ "mg_cg",		K_MIGRATE, EV_NONE, CG_OTHER, .skip = 2 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_CASES	ARRAY_SIZE(cases)

static int has_cgfilter, has_markers, has_soft;
/*
 * user_events_rate and user_events_rate_total of a new instance, for
 * RATE_DEFAULT (the total is empty on a kernel without it)
 */
static char default_rate[64], default_total[64];
static int nr_inst;		/* extra instances made (the largest ninst) */
static pid_t self, partner;
static int ping[2], pong[2];
static int ue_fd = -1, tm_fd = -1, null_fd = -1;
/* mainline's user_events: its data file and the enable words it sets */
static int ml_fd = -1;
static volatile unsigned int ml_enabled[2];
static int ml_index[2];
static int mig_fd[2] = { -1, -1 };	/* cgroup.procs of /ctxbench-mig, /ctxbench */
static char self_str[16];
static char *cg_many_list, *pid_many_list;
static char batch_buf[4096];
static size_t batch_len;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ctxbench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* write_file - one write(2) of @s to @path; -errno on failure */
static int write_file(const char *path, const char *s, int trunc)
{
	int fd = open(path, O_WRONLY | (trunc ? O_TRUNC : O_APPEND));
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static void must_write(const char *path, const char *s)
{
	int err = write_file(path, s, 1);

	if (err)
		die("write %.60s to %s: %s", s, path, strerror(-err));
}

/* must_append - for trigger files, which O_TRUNC would empty */
static void must_append(const char *path, const char *s)
{
	int err = write_file(path, s, 0);

	if (err)
		die("append %.60s to %s: %s", s, path, strerror(-err));
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* read_meminfo - a /proc/meminfo field in bytes, -1 when absent */
static long long read_meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long long v = -1;
	size_t len = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = atoll(line + len + 1) * 1024;
			break;
		}
	}
	fclose(f);
	return v;
}

/* kernel_bytes - memory the kernel allocates that a filter list can use */
static long long kernel_bytes(void)
{
	long long v = 0, x;

	x = read_meminfo("Slab");
	v += x > 0 ? x : 0;
	x = read_meminfo("VmallocUsed");
	v += x > 0 ? x : 0;
	x = read_meminfo("Percpu");
	v += x > 0 ? x : 0;
	return v;
}

/* events_written - events written to CPU 0's buffer so far */
static long long events_written(void)
{
	FILE *f = fopen(INST "/per_cpu/cpu0/stats", "r");
	char line[128];
	long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "entries:", 8) || !strncmp(line, "overrun:", 8))
			v += atoll(line + 8);
	}
	fclose(f);
	return v;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity: %s", strerror(errno));
}

/* The ping-pong partner: answers every byte, exits at end of file. */
static void partner_loop(void)
{
	char c;

	close(ping[1]);
	close(pong[0]);
	while (read(ping[0], &c, 1) == 1) {
		if (write(pong[1], &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* setup_cgroups - /ctxbench (ours), /ctxbench-other and, if @many, the 1024 list */
static void setup_cgroups(int many)
{
	char path[256], buf[32];
	size_t len = 0, cap = NR_MANY * 40;
	int i;

	mkdir(CGROOT "/ctxbench", 0755);
	mkdir(CGROOT "/ctxbench-other", 0755);
	mkdir(CGROOT "/ctxbench-many", 0755);
	mkdir(CGROOT "/ctxbench-mig", 0755);
	snprintf(buf, sizeof(buf), "%d", self);
	must_write(CGROOT "/ctxbench/cgroup.procs", buf);
	snprintf(self_str, sizeof(self_str), "%d", self);
	mig_fd[0] = open(CGROOT "/ctxbench-mig/cgroup.procs", O_WRONLY);
	mig_fd[1] = open(CGROOT "/ctxbench/cgroup.procs", O_WRONLY);
	if (mig_fd[0] < 0 || mig_fd[1] < 0)
		die("open cgroup.procs: %s", strerror(errno));
	if (!many)
		return;

	/* The 1024 list: our own cgroup and 1023 empty ones. */
	cg_many_list = malloc(cap);
	if (!cg_many_list)
		die("out of memory");
	len += snprintf(cg_many_list, cap, "/ctxbench");
	for (i = 0; i < NR_MANY - 1; i++) {
		snprintf(path, sizeof(path), CGROOT "/ctxbench-many/c%d", i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
		len += snprintf(cg_many_list + len, cap - len,
				" /ctxbench-many/c%d", i);
	}
}

/* pid lists: ours and the partner's, plus other numbers up to 1024 */
static void setup_pid_lists(void)
{
	size_t len = 0, cap = NR_MANY * 12;
	int i, p = 20000;

	pid_many_list = malloc(cap);
	if (!pid_many_list)
		die("out of memory");
	len += snprintf(pid_many_list, cap, "%d %d", self, partner);
	for (i = 0; i < NR_MANY - 2; i++, p++) {
		if (p == self || p == partner)
			p++;
		len += snprintf(pid_many_list + len, cap - len, " %d", p);
	}
}

/*
 * setup_instances - @n more instances, each with a cgroup to filter:
 * instance 0 the ping-pong tasks' /ctxbench, instance i > 0 the empty
 * /ctxbench-k/cI. Small buffers: no event is recorded in them.
 */
static void setup_instances(int n)
{
	char path[256];
	int i;

	mkdir(CGROOT "/ctxbench-k", 0755);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), CGROOT "/ctxbench-k/c%d", i);
		if (i && mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), INSTK "%d", i);
		rmdir(path);
		if (mkdir(path, 0755))
			die("mkdir %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), INSTK "%d/buffer_size_kb", i);
		must_write(path, "4");
	}
	nr_inst = n;
}

static void remove_instances(void)
{
	char path[256];
	int i;

	for (i = 0; i < nr_inst; i++) {
		snprintf(path, sizeof(path), INSTK "%d", i);
		if (rmdir(path))
			fprintf(stderr, "ctxbench: rmdir %s: %s\n", path,
				strerror(errno));
	}
	nr_inst = 0;
}

/* must_prctl - one marker through the prctl path, or die */
static void must_prctl(int kind, const char *name)
{
	if (prctl(PR_TRACE_USER_MARKER, kind, (unsigned long)name, 0UL, 0UL))
		die("prctl(PR_TRACE_USER_MARKER, %d): %s", kind, strerror(errno));
}

static void setup_markers(void)
{
	int i;

	null_fd = open("/dev/null", O_WRONLY);
	if (null_fd < 0)
		die("open /dev/null: %s", strerror(errno));
	tm_fd = open(INST "/trace_marker", O_WRONLY);
	if (tm_fd < 0)
		die("open trace_marker: %s", strerror(errno));
	if (!has_markers)
		return;
	ue_fd = open(INST "/user_events", O_WRONLY);
	if (ue_fd < 0)
		die("open user_events: %s", strerror(errno));
	/* the prctl cases' records reach this instance only */
	if (exists(INST "/options/user_events_prctl"))
		write_file(INST "/options/user_events_prctl", "1", 1);
	/* user_marker.h: its files opened, its page mapped */
	um_counter("ctxbench-setup", 0);
	for (i = 0; i < 16; i++)
		batch_len += snprintf(batch_buf + batch_len,
				      sizeof(batch_buf) - batch_len,
				      "C|0|ctxbench|%d\n", i);
}

/*
 * setup_mainline - register mainline's two events "ctxbench_b" and
 * "ctxbench_e" (user_events_data, 6.4 on) with enable bits in
 * ml_enabled; 0, or -1 where the kernel has none
 */
static int setup_mainline(void)
{
	static const char *names[2] = { "ctxbench_b u32 v", "ctxbench_e u32 v" };
	struct ml_user_reg reg;
	int i;

	ml_fd = open(TRACEFS "/user_events_data", O_RDWR);
	if (ml_fd < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		memset(&reg, 0, sizeof(reg));
		reg.size = sizeof(reg);
		reg.enable_bit = 0;
		reg.enable_size = sizeof(ml_enabled[i]);
		reg.enable_addr = (unsigned long)&ml_enabled[i];
		reg.name_args = (unsigned long)names[i];
		if (ioctl(ml_fd, ML_DIAG_IOCSREG, &reg) < 0)
			die("user_events_data register %s: %s", names[i], strerror(errno));
		ml_index[i] = reg.write_index;
	}
	return 0;
}

/* mainline_write - one of mainline's events, written if enabled */
static void mainline_write(int i)
{
	struct { int index; unsigned int v; } rec = { ml_index[i], 1 };

	if ((ml_enabled[i] & 1) &&
	    write(ml_fd, &rec, sizeof(rec)) != sizeof(rec))
		die("user_events_data write: %s", strerror(errno));
}

/* The instance's state now, so that apply() changes only what differs. */
static struct bcase cur;

/* The events ("system/event") of each enum ev */
#define MAX_EV_NAMES	16
static const char *ev_names[NR_EV][MAX_EV_NAMES] = {
	[EV_GETPPID]	= { "syscalls/sys_enter_getppid" },
	[EV_GETPID]	= { "syscalls/sys_enter_getpid" },
	[EV_SCHED]	= { "sched/sched_switch", "sched/sched_waking",
			    "sched/sched_wakeup" },
	[EV_MARKERS]	= { "user_markers/begin", "user_markers/end",
			    "user_markers/counter", "user_markers/async_begin",
			    "user_markers/async_end", "user_markers/instant",
			    "user_markers/lost" },
};

/*
 * set_events - enable (@on) or disable the events of @ev in the instance:
 * for real, or (@soft) as enable_event triggers on an event that never
 * fires, which registers them soft-disabled.
 */
static void set_events(enum ev ev, int soft, int on)
{
	char path[256], buf[128];
	const char *name;
	int i;

	for (i = 0; i < MAX_EV_NAMES && (name = ev_names[ev][i]); i++) {
		if (soft) {
			snprintf(buf, sizeof(buf), "%senable_event:%s",
				 on ? "" : "!", name);
			*strchr(buf, '/') = ':';
			must_append(SOFT_HOST, buf);
		} else {
			snprintf(path, sizeof(path), INST "/events/%s/enable",
				 name);
			must_write(path, on ? "1" : "0");
		}
	}
}

static const char *cg_list(enum cg cg)
{
	switch (cg) {
	case CG_SELF:
		return "/ctxbench";
	case CG_OTHER:
		return "/ctxbench-other";
	case CG_MANY:
		return cg_many_list;
	default:
		return "\n";
	}
}

static const char *pid_list(enum pid pid)
{
	static char buf[64];

	switch (pid) {
	case PID_SELF:
		snprintf(buf, sizeof(buf), "%d %d", self, partner);
		return buf;
	case PID_OTHER:
		return "1";
	case PID_MANY:
		return pid_many_list;
	case PID_ECHOED:
		return "\n";
	default:
		return "";	/* O_TRUNC alone clears the list */
	}
}

/*
 * open_span - open (@open) or close the writer's span: a B (an E) written
 * while begin (end) is enabled for that one write. Only cases with no
 * event enabled have a span open (apply() closes it before it enables
 * the next case's events).
 */
static void open_span(int open)
{
	const char *ev = open ? INST "/events/user_markers/begin/enable" :
				INST "/events/user_markers/end/enable";
	const char *rec = open ? "B|0|ctxbench-open\n" : "E|0\n";

	must_write(ev, "1");
	if (write(ue_fd, rec, strlen(rec)) != (ssize_t)strlen(rec))
		die("marker write: %s", strerror(errno));
	must_write(ev, "0");
}

/*
 * fill_bucket - wait until the writer's rate-limit bucket is full again:
 * a case that drops (RATE_DROP) leaves it empty, and a new limit does not
 * refill it, so that RATE_DEFAULT would count drops. BURST / RATE seconds
 * refill it, plus a few jiffies (under -icount a sleep costs no host time).
 */
static void fill_bucket(void)
{
	unsigned long rate, burst;
	struct timespec ts;
	double s;

	if (sscanf(default_rate, "%lu %lu", &rate, &burst) != 2 || !rate)
		die("user_events_rate \"%s\": not \"RATE BURST\"", default_rate);
	s = (double)burst / rate + 0.05;
	/* and the instance's total, which the cases before did not use */
	if (default_total[0] &&
	    sscanf(default_total, "%lu %lu", &rate, &burst) == 2 && rate &&
	    (double)burst / rate + 0.05 > s)
		s = (double)burst / rate + 0.05;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* apply - bring the instance from the state cur to case @c's */
static void apply(const struct bcase *c)
{
	char buf[64];

	int i;

	if (c->user)
		return;	/* the reference runs under any state */
	if ((cur.ev != c->ev || cur.soft != c->soft) && cur.ev != EV_NONE)
		set_events(cur.ev, cur.soft, 0);
	if (cur.open && !c->open)
		open_span(0);
	for (i = 0; i < nr_inst && cur.ninst != c->ninst; i++) {
		char path[128], list[64];
		int was = i < cur.ninst, want = i < c->ninst;

		if (was == want)
			continue;
		/* instance 0 filters the ping-pong tasks' cgroup */
		if (i)
			snprintf(list, sizeof(list), "/ctxbench-k/c%d", i);
		else
			snprintf(list, sizeof(list), "/ctxbench");
		snprintf(path, sizeof(path), INSTK "%d/set_event_cgroup", i);
		must_write(path, want ? list : "\n");
	}
	if (cur.cg != c->cg)
		must_write(INST "/set_event_cgroup", cg_list(c->cg));
	if (cur.fcg != c->fcg)
		must_write(INST "/set_ftrace_cgroup", c->fcg ? "/ctxbench" : "\n");
	if (cur.pid != c->pid) {
		/* vanilla's flags go with the truncation of a list only */
		if (cur.pid == PID_ECHOED)
			must_write(INST "/set_event_pid", "1");
		must_write(INST "/set_event_pid", pid_list(c->pid));
	}
	if (cur.filt != c->filt) {
		snprintf(buf, sizeof(buf), "common_pid != %d", self);
		must_write(INST "/events/syscalls/sys_enter_getppid/filter",
			   c->filt ? buf : "0");
	}
	if (cur.rate != c->rate) {
		must_write(INST "/user_events_rate",
			   c->rate == RATE_DROP ? "1 1" :
			   c->rate == RATE_DEFAULT ? default_rate : "0");
		/* the instance's total: its default only with the default */
		if (default_total[0])
			must_write(INST "/user_events_rate_total",
				   c->rate == RATE_DEFAULT ? default_total : "0");
		if (c->rate == RATE_DEFAULT)
			fill_bucket();
	}
	if (cur.nobuf != c->nobuf)
		must_write(INST "/tracing_on", c->nobuf ? "0" : "1");
	if ((cur.ev != c->ev || cur.soft != c->soft) && c->ev != EV_NONE)
		set_events(c->ev, c->soft, 1);
	if (!cur.open && c->open)
		open_span(1);
	cur = *c;
}

/* reset - no event, no filter, unlimited marker rate */
static void reset(void)
{
	static const struct bcase none = { "none" };
	char path[256], buf[128];
	const char *name;
	int ev, i;

	apply(&none);
	for (ev = EV_NONE + 1; ev < NR_EV; ev++) {
		for (i = 0; i < MAX_EV_NAMES && (name = ev_names[ev][i]); i++) {
			snprintf(path, sizeof(path), INST "/events/%s/enable", name);
			write_file(path, "0", 1);
			snprintf(buf, sizeof(buf), "!enable_event:%s", name);
			*strchr(buf, '/') = ':';
			if (has_soft)
				write_file(SOFT_HOST, buf, 0);
		}
	}
	for (i = 0; i < nr_inst; i++) {
		snprintf(path, sizeof(path), INSTK "%d/set_event_cgroup", i);
		write_file(path, "\n", 1);
	}
	write_file(INST "/events/syscalls/sys_enter_getppid/filter", "0", 1);
	if (has_markers)
		write_file(INST "/user_events_rate", "0", 1);
	if (default_total[0])
		write_file(INST "/user_events_rate_total", "0", 1);
	write_file(INST "/set_event_pid", "", 1);
	write_file(INST "/tracing_on", "1", 1);
	if (has_cgfilter) {
		write_file(INST "/set_event_cgroup", "\n", 1);
		write_file(INST "/set_ftrace_cgroup", "\n", 1);
	}
}

static void must_mwrite(int fd, const char *s, size_t len)
{
	if (write(fd, s, len) != (ssize_t)len)
		die("marker write: %s", strerror(errno));
}

/*
 * user_loop - @n operations of pure user code (64 steps of xorshift):
 * no syscall, no kernel code, so its speed is the host's, measured in
 * the same rounds as the cases to normalise patched/vanilla ratios.
 */
static volatile unsigned long long user_sink;

static void user_loop(long n)
{
	unsigned long long x = 88172645463325252ULL;
	long i;
	int j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < 64; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		user_sink = x;
	}
}

/* run_batch - @n operations of case @c; nanoseconds per operation */
/*
 * Under scripts/insn-profile (CGTRACE_PROFILE set) the measured batches
 * run inside the profiler's windows: calling the "ret" at PROFILE_ON opens
 * one, at PROFILE_OFF closes it (bench/insnprof.c watches those addresses).
 */
#define PROFILE_ON	0x7e5700000000UL
#define PROFILE_OFF	0x7e5700001000UL
static int profiling, measuring;
static long profiled_ops;

static void profile_setup(void)
{
	unsigned char *p;

	p = mmap((void *)PROFILE_ON, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)PROFILE_ON)
		die("profile: cannot map the switches at %#lx", PROFILE_ON);
	p[0] = 0xc3;		/* ret */
	p[4096] = 0xc3;
	profiling = 1;
}

static void profile_switch(unsigned long addr)
{
	((void (*)(void))addr)();
}

static double run_batch(const struct bcase *c, long n)
{
	static const char b[] = "B|0|ctxbench\n", e[] = "E|0\n";
	static const char one[] = "C|0|ctxbench|1\n";
	double t0, t1;
	long i;
	char ch = 'x';

	t0 = now_ns();
	if (profiling && measuring) {
		profile_switch(PROFILE_ON);
		profiled_ops += n;
	}
	if (c->user) {
		user_loop(n);
		goto out;
	}
	switch (c->kind) {
	case K_SYSCALL:
		if (c->clk) {
			struct timespec ts;

			for (i = 0; i < n; i++)
				syscall(SYS_clock_gettime, c->clk - 1, &ts);
			break;
		}
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		break;
	case K_PINGPONG:
		for (i = 0; i < n; i++) {
			if (write(ping[1], &ch, 1) != 1 ||
			    read(pong[0], &ch, 1) != 1)
				die("ping-pong: %s", strerror(errno));
		}
		break;
	case K_MIGRATE:
		for (i = 0; i < n; i++)
			if (write(mig_fd[0], self_str, strlen(self_str)) < 0 ||
			    write(mig_fd[1], self_str, strlen(self_str)) < 0)
				die("migrate: %s", strerror(errno));
		break;
	case K_MARKER:
		for (i = 0; i < n; i++) {
			switch (c->mk) {
			case MK_PAIR_UE:
				must_mwrite(ue_fd, b, sizeof(b) - 1);
				must_mwrite(ue_fd, e, sizeof(e) - 1);
				break;
			case MK_PAIR_TM:
				must_mwrite(tm_fd, b, sizeof(b) - 1);
				must_mwrite(tm_fd, e, sizeof(e) - 1);
				break;
			case MK_PAIR_NULL:
				must_mwrite(null_fd, b, sizeof(b) - 1);
				must_mwrite(null_fd, e, sizeof(e) - 1);
				break;
			case MK_SINGLE:
				must_mwrite(ue_fd, one, sizeof(one) - 1);
				break;
			case MK_BATCH:
				must_mwrite(ue_fd, batch_buf, batch_len);
				break;
			case MK_UMH:
				um_begin("ctxbench");
				um_end();
				break;
			case MK_MAINLINE:
				mainline_write(0);
				mainline_write(1);
				break;
			case MK_PRCTL:
				must_prctl(PR_TRACE_MARKER_BEGIN, "ctxbench");
				must_prctl(PR_TRACE_MARKER_END, NULL);
				break;
			case MK_LOOP:
				/* nothing: the loop's own count */
				__asm__ __volatile__("" ::: "memory");
				break;
			default:
				break;
			}
		}
		break;
	}
out:
	if (profiling && measuring)
		profile_switch(PROFILE_OFF);
	t1 = now_ns();
	return (t1 - t0) / n;
}

static long iters(const struct bcase *c, long ns, long np, long nm)
{
	if (c->user || c->kind == K_SYSCALL)
		return ns;
	if (c->kind == K_PINGPONG || c->kind == K_MIGRATE)
		return np;
	return c->mk == MK_BATCH ? nm / 4 : nm;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * list_bytes - kernel bytes one list of @file takes: the list written to
 * NR_MEM_INST instances at once (so that allocations smaller than a page,
 * which SLOB serves from partly used pages, add up to whole pages), the
 * delta divided by NR_MEM_INST; median of 3.
 */
#define NR_MEM_INST	8

static long long list_bytes(const char *file, const char *list)
{
	long long v[3], before;
	char path[256];
	int i, k;

	for (i = 0; i < 3; i++) {
		for (k = 0; k < NR_MEM_INST; k++) {
			snprintf(path, sizeof(path), TRACEFS "/instances/ctxbench-mem%d/%s",
				 k, file);
			write_file(path, "\n", 1);
		}
		usleep(100000);	/* let RCU free the old lists */
		before = kernel_bytes();
		for (k = 0; k < NR_MEM_INST; k++) {
			snprintf(path, sizeof(path), TRACEFS "/instances/ctxbench-mem%d/%s",
				 k, file);
			must_write(path, list);
		}
		v[i] = (kernel_bytes() - before) / NR_MEM_INST;
	}
	for (k = 0; k < NR_MEM_INST; k++) {
		snprintf(path, sizeof(path), TRACEFS "/instances/ctxbench-mem%d/%s",
			 k, file);
		write_file(path, "\n", 1);
	}
	qsort(v, 3, sizeof(v[0]), cmp_ll);
	return v[1];
}

static void mem_instances(int create)
{
	char path[256];
	int k;

	for (k = 0; k < NR_MEM_INST; k++) {
		snprintf(path, sizeof(path), TRACEFS "/instances/ctxbench-mem%d", k);
		if (create) {
			if (mkdir(path, 0755) && errno != EEXIST)
				die("mkdir %s: %s", path, strerror(errno));
			/* small buffers: the lists are what is measured */
			snprintf(path, sizeof(path), TRACEFS
				 "/instances/ctxbench-mem%d/buffer_size_kb", k);
			write_file(path, "4", 1);
		} else {
			rmdir(path);
		}
	}
}

static pthread_barrier_t mem_bar;

/* A thread that opens one span between two measures, then ends it. */
static void *span_thread(void *arg)
{
	static const char b[] = "B|0|ctxbench-memory\n", e[] = "E|0\n";

	(void)arg;

	pthread_barrier_wait(&mem_bar);	/* before: measured */
	pthread_barrier_wait(&mem_bar);
	if (write(ue_fd, b, sizeof(b) - 1) < 0)
		perror("ctxbench: B");
	pthread_barrier_wait(&mem_bar);	/* after: measured */
	pthread_barrier_wait(&mem_bar);
	if (write(ue_fd, e, sizeof(e) - 1) < 0)
		perror("ctxbench: E");
	return NULL;
}

/*
 * measure_memory - bytes of a 1-entry and a 1024-entry list (cgroups,
 * pids) and of the marker state of a thread with an open span, from
 * /proc/meminfo (Slab + VmallocUsed + Percpu) deltas.
 */
static void measure_memory(void)
{
	pthread_t th[NR_MEM_THREADS];
	long long one, many, before, after;
	char buf[64];
	int i;

	reset();
	printf("info memory_method delta of /proc/meminfo Slab+VmallocUsed+Percpu around writing the list to %d instances, divided by %d, median of 3\n",
	       NR_MEM_INST, NR_MEM_INST);
	mem_instances(1);
	if (has_cgfilter) {
		one = list_bytes("set_event_cgroup", "/ctxbench");
		many = list_bytes("set_event_cgroup", cg_many_list);
		printf("mem cg_list_1 %lld\n", one);
		printf("mem cg_list_1024 %lld\n", many);
		printf("mem cg_per_entry %.1f\n", (many - one) / (NR_MANY - 1.0));
	} else {
		printf("skip mem_cg kernel has no set_event_cgroup\n");
	}
	snprintf(buf, sizeof(buf), "%d", self);
	one = list_bytes("set_event_pid", buf);
	many = list_bytes("set_event_pid", pid_many_list);
	printf("mem pid_list_1 %lld\n", one);
	printf("mem pid_list_1024 %lld\n", many);
	printf("mem pid_per_entry %.1f\n", (many - one) / (NR_MANY - 1.0));
	mem_instances(0);

	if (!has_markers) {
		printf("skip mem_marker kernel has no user_events\n");
		return;
	}
	must_write(INST "/events/user_markers/enable", "1");
	pthread_barrier_init(&mem_bar, NULL, NR_MEM_THREADS + 1);
	for (i = 0; i < NR_MEM_THREADS; i++)
		if (pthread_create(&th[i], NULL, span_thread, NULL))
			die("pthread_create");
	pthread_barrier_wait(&mem_bar);
	usleep(20000);
	before = kernel_bytes();
	pthread_barrier_wait(&mem_bar);
	pthread_barrier_wait(&mem_bar);
	after = kernel_bytes();
	pthread_barrier_wait(&mem_bar);
	for (i = 0; i < NR_MEM_THREADS; i++)
		pthread_join(th[i], NULL);
	printf("mem marker_per_thread %.1f\n",
	       (after - before) / (double)NR_MEM_THREADS);
	reset();
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * run_round - one round of the cases of one kind: nr_sub sub-rounds, each
 * running every case for one sub-batch, the order reversed every other
 * sub-round (A B C C B A A B C ...), so that all cases of the kind are
 * measured in the same few hundred milliseconds. A case's sample is the
 * median of its sub-batches (and their minimum, printed too).
 */
#define MAX_SUB	256

static double apply_ns[NR_KINDS];	/* time spent changing filters, per kind */

static int nr_sub = 8;

static void run_round(enum kind kind, int round, long ns, long np, long nm)
{
	static double sub[NR_CASES][MAX_SUB];
	static long long evs[NR_CASES];
	int n = NR_CASES, i, j;
	long long ev0;
	double t;

	memset(evs, 0, sizeof(evs));
	for (j = 0; j < nr_sub; j++) {
		for (i = 0; i < n; i++) {
			int k = (j & 1) ? n - 1 - i : i;
			struct bcase *c = &cases[k];
			long m = iters(c, ns, np, nm);

			if (c->kind != kind || c->skip)
				continue;
			t = now_ns();
			apply(c);
			apply_ns[kind] += now_ns() - t;
			run_batch(c, m / 2 + 1);	/* settle after the change */
			ev0 = events_written();
			measuring = 1;
			sub[c - cases][j] = run_batch(c, m);
			measuring = 0;
			evs[c - cases] += events_written() - ev0;
		}
	}
	if (round < 0)
		return;
	for (i = 0; i < n; i++) {
		struct bcase *c = &cases[i];
		long m = iters(c, ns, np, nm);

		if (c->kind != kind || c->skip)
			continue;
		qsort(sub[i], nr_sub, sizeof(double), cmp_d);
		printf("sample %s %d %.2f %.2f %.3f\n", c->name, round,
		       sub[i][0], sub[i][nr_sub / 2],
		       (double)evs[i] / ((double)m * nr_sub));
	}
}

/* select_cases - run only the cases named in the comma-separated @list */
static void select_cases(const char *list)
{
	char *copy = strdup(list), *name, *save = NULL;
	unsigned int i;

	if (!copy)
		die("out of memory");
	for (i = 0; i < NR_CASES; i++)
		cases[i].skip = 2;	/* not selected: not reported */
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_CASES; i++)
			if (!strcmp(cases[i].name, name))
				break;
		if (i == NR_CASES)
			die("-c: no case %s (ctxbench -l lists them)", name);
		cases[i].skip = 0;
	}
	free(copy);
}

int main(int argc, char **argv)
{
	long ns = 1000, np = 10, nm = 200;
	int rounds = 8, opt, r, i;
	const char *bufkb = NULL, *only = NULL;
	int no_memory = 0, need_many = 0, need_inst = 0;
	double t0;
	struct utsname u;

	while ((opt = getopt(argc, argv, "r:s:p:m:k:c:lMNb:")) != -1) {
		switch (opt) {
		case 'c':
			only = optarg;
			break;
		case 'l':
			for (i = 0; i < (int)NR_CASES; i++)
				printf("%s\n", cases[i].name);
			return 0;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 's':
			ns = atol(optarg);
			break;
		case 'p':
			np = atol(optarg);
			break;
		case 'm':
			nm = atol(optarg);
			break;
		case 'b':
			bufkb = optarg;
			break;
		case 'M':
			rounds = -1;	/* memory only */
			break;
		case 'N':
			no_memory = 1;
			break;
		case 'k':
			nr_sub = atoi(optarg);
			if (nr_sub < 1 || nr_sub > MAX_SUB)
				die("-k: 1 to %d sub-batches", MAX_SUB);
			break;
		default:
			die("usage: ctxbench [-r ROUNDS] [-k SUBBATCHES] [-s SYSCALLS] [-p PINGPONGS] [-m MARKERS] [-c CASE,...] [-l] [-M] [-N] [-b KB]");
		}
	}
	if (only)
		select_cases(only);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("CGTRACE_PROFILE"))
		profile_setup();
	self = getpid();
	pin_cpu0();

	uname(&u);
	printf("info kernel %s %s\n", u.release, u.version);
	/* vm-run --icount: the guest clock counts guest instructions */
	printf("info clock %s\n", getenv("CGTRACE_ICOUNT") ? "icount" : "wall");
	printf("info cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("info rounds %d\n", rounds);
	printf("info subbatch %d x (syscall %ld pingpong %ld marker %ld batch16 %ld)\n",
	       nr_sub, ns, np, nm, nm / 4);

	rmdir(INST);
	if (mkdir(INST, 0755))
		die("mkdir %s: %s", INST, strerror(errno));
	if (bufkb)
		must_write(INST "/buffer_size_kb", bufkb);
	has_cgfilter = exists(INST "/set_event_cgroup");
	has_markers = exists(INST "/user_events");
	if (has_markers) {
		FILE *f = fopen(INST "/user_events_rate", "r");

		if (!f)
			die("open %s/user_events_rate: %s", INST, strerror(errno));
		if (!fgets(default_rate, sizeof(default_rate), f))
			die("%s/user_events_rate reads empty", INST);
		fclose(f);
		default_rate[strcspn(default_rate, "\n")] = '\0';
		printf("info default_rate %s\n", default_rate);
		f = fopen(INST "/user_events_rate_total", "r");
		if (f) {
			if (!fgets(default_total, sizeof(default_total), f))
				die("%s/user_events_rate_total reads empty", INST);
			fclose(f);
			default_total[strcspn(default_total, "\n")] = '\0';
			printf("info default_total %s\n", default_total);
		}
	}
	has_soft = exists(SOFT_HOST);
	printf("info has_cgroup_filter %d\n", has_cgfilter);
	printf("info has_user_events %d\n", has_markers);
	if (!exists(INST "/events/syscalls/sys_enter_getppid"))
		die("no syscall events (CONFIG_FTRACE_SYSCALLS)");

	for (i = 0; i < (int)NR_CASES; i++) {
		struct bcase *c = &cases[i];

		if (c->skip)
			continue;
		if ((c->cg != CG_NONE || c->fcg || c->ninst) && !has_cgfilter) {
			c->skip = 1;
			printf("skip %s kernel has no set_event_cgroup\n", c->name);
		} else if (c->kind == K_MARKER && !has_markers &&
			   c->mk != MK_PAIR_TM && c->mk != MK_PAIR_NULL &&
			   c->mk != MK_LOOP && c->mk != MK_MAINLINE) {
			c->skip = 1;
			printf("skip %s kernel has no user_events\n", c->name);
		} else if (c->mk == MK_PRCTL && !exists(INST "/options/user_events_prctl")) {
			c->skip = 1;
			printf("skip %s kernel has no options/user_events_prctl\n", c->name);
		} else if (c->mk == MK_UMH && !exists(INST "/user_events_enabled")) {
			c->skip = 1;
			printf("skip %s kernel has no user_events_enabled\n", c->name);
		} else if (c->mk == MK_MAINLINE && ml_fd < 0 && setup_mainline()) {
			c->skip = 1;
			printf("skip %s kernel has no mainline user_events (user_events_data)\n",
			       c->name);
		} else if (c->soft && !has_soft) {
			c->skip = 1;
			printf("skip %s no sched_process_exec event to hold enable_event triggers\n",
			       c->name);
		}
		if (c->skip)
			continue;
		if (c->cg == CG_MANY || c->pid == PID_MANY)
			need_many = 1;
		if (c->ninst > need_inst)
			need_inst = c->ninst;
	}

	if (pipe(ping) || pipe(pong))
		die("pipe: %s", strerror(errno));
	setup_cgroups(need_many || !no_memory);
	if (need_inst)
		setup_instances(need_inst);
	partner = fork();
	if (partner < 0)
		die("fork: %s", strerror(errno));
	if (!partner)
		partner_loop();
	close(ping[0]);
	close(pong[1]);
	setup_pid_lists();
	setup_markers();

	/* Round -1 warms up and is not reported. */
	reset();
	t0 = now_ns();
	for (r = -1; rounds >= 0 && r < rounds; r++) {
		run_round(K_SYSCALL, r, ns, np, nm);
		run_round(K_PINGPONG, r, ns, np, nm);
		run_round(K_MARKER, r, ns, np, nm);
		run_round(K_MIGRATE, r, ns, np, nm);
	}
	reset();
	printf("info seconds_measuring %.1f\n", (now_ns() - t0) / 1e9);
	printf("info seconds_applying syscall %.1f pingpong %.1f marker %.1f\n",
	       apply_ns[K_SYSCALL] / 1e9, apply_ns[K_PINGPONG] / 1e9,
	       apply_ns[K_MARKER] / 1e9);
	remove_instances();
	if (!no_memory)
		measure_memory();

	close(ping[1]);
	waitpid(partner, NULL, 0);
	if (tm_fd >= 0)
		close(tm_fd);
	if (ue_fd >= 0)
		close(ue_fd);
	if (rmdir(INST))
		fprintf(stderr, "ctxbench: rmdir %s: %s\n", INST, strerror(errno));
	if (profiling)
		printf("info profiled_ops %ld\n", profiled_ops);
	printf("info done\n");
	return 0;
}
