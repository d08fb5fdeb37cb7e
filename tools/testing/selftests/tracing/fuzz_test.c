// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test - random and structured-garbage writes to every file the
 * project adds: the four cgroup filter files, user_events,
 * user_events_rate and options/user_events_prctl, in a fresh instance and
 * at the top level (whose files are saved and restored), and the
 * arguments of prctl(PR_TRACE_USER_MARKER).
 *
 * The oracle is the documentation (cgroup-filter.rst, user-markers.rst),
 * not the kernel: each write is classified before it is made, as "must
 * succeed", "must fail with one of these errnos" or "either" (where the
 * rst leaves it open). A failed write must leave the file as it was; a
 * successful one must leave what the rst says (the filter list as a set,
 * the rate, the option); a user_events write must move the counts by its
 * number of records, or count one rejected write (a pwrite() fails
 * with ESPIPE and moves none: the file is a stream).
 *
 * Seed: printed at the start, CGT_FUZZ_SEED overrides it.
 * Time: CGT_FUZZ_SECONDS (default 40) split over the tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/const.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cgt_util.h"

#define FZ_BIG		(300 * 1024)
#define FZ_LIST_MAX	64

/* Errno sets as bit masks; F_OK_ means "success is allowed". */
#define B(e)		_BITULL(e)
#define F_OK_		_BITULL(63)

static unsigned long long fz_seed;
static double fz_seconds = 40;

/* Seed and budget, printed once before any test runs. */
static void __attribute__((constructor)) fz_init(void)
{
	const char *s = getenv("CGT_FUZZ_SEED");
	const char *t = getenv("CGT_FUZZ_SECONDS");

	fz_seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL);
	if (t && atof(t) > 0)
		fz_seconds = atof(t);
	printf("# fuzz seed %llu (CGT_FUZZ_SEED), budget %.0f s (CGT_FUZZ_SECONDS)\n",
	       fz_seed, fz_seconds);
	fflush(stdout);
}

static unsigned long long rng_state;

static void rng_seed(unsigned long long salt)
{
	rng_state = fz_seed * 0x9e3779b97f4a7c15ULL + salt + 1;
}

/* xorshift64*: reproducible from the seed */
static unsigned long long rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One write(2) (or pwrite at @off >= 0) on a fresh fd: 0 or -errno */
static int fz_write(const char *path, const void *buf, size_t len, int flags,
		    long off)
{
	ssize_t n;
	int fd = open(path, O_WRONLY | flags);

	if (fd < 0)
		return -errno;
	n = off >= 0 ? pwrite(fd, buf, len, off) : write(fd, buf, len);
	if (n < 0)
		n = -errno;
	else if ((size_t)n != len)
		n = -EIO;
	else
		n = 0;
	close(fd);
	return n;
}

static int errno_allowed(unsigned long long mask, int ret)
{
	if (!ret)
		return !!(mask & F_OK_);
	if (-ret == ENOMEM)		/* documented for every file */
		return 1;
	return -ret < 63 && (mask & B(-ret));
}

static char *fmt_bytes(const char *b, size_t len, char *out, size_t olen)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 8 < olen; i++) {
		unsigned char c = b[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, olen - o, "\\x%02x", c);
	}
	out[o] = '\0';
	if (i < len)
		snprintf(out + o, olen - o, "...(%zu bytes)", len);
	return out;
}

FIXTURE(fz) {
	struct cgt_instance inst;
	char cg[3][256];	/* fs paths of the test's cgroups */
	char canon[4][256];	/* as read back: cg[0..2], root */
	unsigned long long id[4];
	char link_cg[128], link_tmp[128], link_loop[128], link_dead[128];
	char v1[128], v1_child[160];
	int v1_mounted;
	char saved_top[6][4096];
	int top_saved;
	char *buf, *rd, *rd2;
	double deadline;
};

static const char *const filter_files[] = {
	"set_event_cgroup", "set_event_notrace_cgroup",
	"set_ftrace_cgroup", "set_ftrace_notrace_cgroup",
};

static const char *const top_files[] = {
	"set_event_cgroup", "set_event_notrace_cgroup",
	"set_ftrace_cgroup", "set_ftrace_notrace_cgroup",
	"user_events_rate", "options/user_events_prctl",
};

FIXTURE_SETUP(fz)
{
	char p[PATH_MAX], name[128];
	struct stat st;
	int i;

	if (access(CGT_TRACEFS "/set_event_cgroup", F_OK) ||
	    access(CGT_TRACEFS "/user_events", F_OK))
		CGT_SETUP_SKIP("kernel without cgroup filters or user_events");
	self->buf = malloc(FZ_BIG + 16);
	self->rd = malloc(1 << 20);
	self->rd2 = malloc(1 << 20);
	ASSERT_TRUE(self->buf && self->rd && self->rd2);

	/* Save the top-level files first: teardown restores them. */
	for (i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), CGT_TRACEFS "/%s", top_files[i]);
		if (cgt_read_file(p, self->saved_top[i], sizeof(self->saved_top[i])) < 0)
			self->saved_top[i][0] = '\0';
	}
	self->top_saved = 1;

	ASSERT_EQ(0, cgt_instance_create(&self->inst, "fz"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "1"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "user_events_rate", "0"));

	snprintf(name, sizeof(name), "fz-%d", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg[0], sizeof(self->cg[0])));
	snprintf(name, sizeof(name), "fz-%d/sub", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg[1], sizeof(self->cg[1])));
	snprintf(name, sizeof(name), "fz-%d/sub/deep", getpid());
	ASSERT_EQ(0, cgt_cgroup_create(name, self->cg[2], sizeof(self->cg[2])));
	for (i = 0; i < 3; i++) {
		snprintf(self->canon[i], sizeof(self->canon[i]), "%s",
			 self->cg[i] + strlen(CGT_CGROUP2));
		ASSERT_EQ(0, stat(self->cg[i], &st));
		self->id[i] = st.st_ino;
	}
	snprintf(self->canon[3], sizeof(self->canon[3]), "/");
	ASSERT_EQ(0, stat(CGT_CGROUP2, &st));
	self->id[3] = st.st_ino;

	/* Symlinks: to a cgroup, to a plain folder, to itself, to nothing */
	snprintf(self->link_cg, sizeof(self->link_cg), "/tmp/fz-cg-%d", getpid());
	snprintf(self->link_tmp, sizeof(self->link_tmp), "/tmp/fz-tmp-%d", getpid());
	snprintf(self->link_loop, sizeof(self->link_loop), "/tmp/fz-loop-%d", getpid());
	snprintf(self->link_dead, sizeof(self->link_dead), "/tmp/fz-dead-%d", getpid());
	unlink(self->link_cg);
	unlink(self->link_tmp);
	unlink(self->link_loop);
	unlink(self->link_dead);
	ASSERT_EQ(0, symlink(self->cg[1], self->link_cg));
	ASSERT_EQ(0, symlink("/tmp", self->link_tmp));
	ASSERT_EQ(0, symlink(self->link_loop, self->link_loop));
	ASSERT_EQ(0, symlink("/no-such-dir-fz", self->link_dead));

	/* A real cgroup v1 hierarchy (named, no controllers), if possible */
	snprintf(self->v1, sizeof(self->v1), "/tmp/fz-v1-%d", getpid());
	snprintf(self->v1_child, sizeof(self->v1_child), "%s/child", self->v1);
	mkdir(self->v1, 0755);
	if (!mount("cgroup", self->v1, "cgroup", 0, "none,name=fzv1")) {
		self->v1_mounted = 1;
		mkdir(self->v1_child, 0755);
	} else {
		TH_LOG("no cgroup v1 mount (%s): v1 paths only look like v1",
		       strerror(errno));
	}
}

FIXTURE_TEARDOWN(fz)
{
	char p[PATH_MAX];
	int i;

	if (!self->buf)
		return;
	/* Top level back to what it was */
	for (i = 0; self->top_saved && i < 6; i++) {
		snprintf(p, sizeof(p), CGT_TRACEFS "/%s", top_files[i]);
		if (cgt_write_file(p, self->saved_top[i][0] ? self->saved_top[i] : "\n"))
			TH_LOG("could not restore %s", p);
	}
	cgt_instance_destroy(&self->inst);
	for (i = 2; i >= 0; i--)
		rmdir(self->cg[i]);
	unlink(self->link_cg);
	unlink(self->link_tmp);
	unlink(self->link_loop);
	unlink(self->link_dead);
	if (self->v1_mounted) {
		rmdir(self->v1_child);
		umount(self->v1);
	}
	rmdir(self->v1);
	free(self->buf);
	free(self->rd);
	free(self->rd2);
}

/* ------------------------------------------------------------------ */
/* Cgroup filter files                                                 */

struct tok {
	char s[PATH_MAX + 64];
	size_t len;
	unsigned long long mask;	/* errnos it may cause; F_OK_ if valid */
	int canon;			/* index into canon[] when valid */
};

static void tok_set(struct tok *t, unsigned long long mask, int canon,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->s, sizeof(t->s), fmt, ap);
	va_end(ap);
	t->len = strlen(t->s);
	t->mask = mask;
	t->canon = canon;
}

/* Bytes of invalid UTF-8 that are neither white space nor a separator */
static unsigned char bad_utf8(void)
{
	static const unsigned char b[] = {
		0x80, 0x85, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf5, 0xfe, 0xff,
	};

	return b[rn(sizeof(b))];
}

/* A token of a known class, for the data of @self */
static void gen_token(struct _test_data_fz *self, struct tok *t)
{
	const unsigned long long NOENT = B(ENOENT), INVAL = B(EINVAL);
	const unsigned long long EITHER = B(ENOENT) | B(EINVAL);
	int c = rn(4), i;

	switch (rn(30)) {
	case 0: case 1: case 2:
		tok_set(t, F_OK_, c, "%s", self->canon[c]);
		break;
	case 3: case 4:
		/* A file system path is no cgroup path */
		if (c == 3)
			tok_set(t, NOENT, 0, CGT_CGROUP2 "%s", rn(2) ? "/" : "/./");
		else
			tok_set(t, NOENT, 0, CGT_CGROUP2 "%s%s", rn(2) ? "/." : "/",
				self->canon[c]);
		break;
	case 5: case 6:
		tok_set(t, F_OK_, c, "id:%llu", self->id[c]);
		break;
	case 7:
		tok_set(t, NOENT, 0, "%s", self->link_cg);
		break;
	case 8:
		/* Traversal is not resolved in a cgroup path */
		tok_set(t, NOENT, 0, "%s/deep/../../sub", self->canon[1]);
		break;
	case 9:
		tok_set(t, NOENT, 0, "%s/no-such-%u", self->canon[rn(3)], rn(1000));
		break;
	case 10:
		tok_set(t, NOENT, 0, "%s/no-such", self->cg[rn(3)]);
		break;
	case 11: {
		static const char *const ids[] = {
			"id:18446744073709551615", "id:4294967295",
			"id:9223372036854775807", "id:4294967296",
		};
		tok_set(t, NOENT, 0, "%s", ids[rn(4)]);
		break;
	}
	case 12: {
		static const char *const bad[] = {
			"id:0", "id:", "id:-1", "id:abc", "id:1x", "id:0x10",
			"id: 5", "ID:5", "relative", "../..", ".", "..",
			"sys/fs/cgroup", "~", "*",
		};
		tok_set(t, INVAL, 0, "%s", bad[rn(ARRAY_SIZE(bad))]);
		/* "id: 5" splits into "id:" and "5": both invalid */
		break;
	}
	case 13: {
		static const char *const notcg[] = {
			"/tmp", "/proc", "/sys/kernel/tracing", "/dev/null",
			CGT_CGROUP2 "/cgroup.procs", CGT_CGROUP2 "/../..",
			CGT_CGROUP2 "/..", "/sys/kernel/tracing/instances",
			CGT_CGROUP2 "/cgroup.procs/x", "/proc/self",
		};
		tok_set(t, NOENT, 0, "%s", notcg[rn(ARRAY_SIZE(notcg))]);
		break;
	}
	case 14:
		tok_set(t, NOENT, 0, "%s", self->link_tmp);
		break;
	case 15:
		tok_set(t, NOENT, 0, "%s", self->link_dead);
		break;
	case 16:
		/* A symlink loop names no cgroup: ENOENT or EINVAL */
		tok_set(t, EITHER, 0, "%s", self->link_loop);
		break;
	case 17:
		if (self->v1_mounted)
			tok_set(t, NOENT, 0, "%s", rn(2) ? self->v1 : self->v1_child);
		else
			tok_set(t, EITHER, 0, CGT_CGROUP2 "/cpu,cpuacct/fz");
		break;
	case 18: {
		static const char *const v1look[] = {
			CGT_CGROUP2 "/cpu,cpuacct/system.slice",
			CGT_CGROUP2 "/memory/fz", "/cpuset/fz",
			CGT_CGROUP2 "/unified/fz", "/sys/fs/cgroup/systemd",
		};
		tok_set(t, EITHER, 0, "%s", v1look[rn(5)]);
		break;
	}
	case 19:
		/* Traversal above the root, as a cgroup path */
		tok_set(t, EITHER, 0, "/../..%s", rn(2) ? "/../.." : self->canon[0]);
		break;
	case 20:
		/* Invalid UTF-8 in a path */
		tok_set(t, EITHER, 0, "%s/", self->canon[rn(3)]);
		for (i = 0; i < 1 + (int)rn(6); i++)
			t->s[t->len++] = bad_utf8();
		t->s[t->len] = '\0';
		break;
	case 21:
		/* A control byte inside a word */
		tok_set(t, INVAL, 0, "%s", self->canon[rn(3)]);
		t->s[1 + rn(t->len - 1)] = "\x01\x1b\x7f\x02"[rn(4)];
		break;
	case 22:
		/* A name longer than NAME_MAX, the path shorter than PATH_MAX */
		tok_set(t, EITHER, 0, "%s/", rn(2) ? self->canon[0] : self->cg[0]);
		for (i = 0; i < 256 + (int)rn(300); i++)
			t->s[t->len++] = 'a' + rn(26);
		t->s[t->len] = '\0';
		break;
	case 23:
		/* A word longer than PATH_MAX */
		t->s[0] = '/';
		t->len = PATH_MAX + rn(40);
		for (i = 1; i < (int)t->len; i++)
			t->s[i] = i % 100 ? 'b' : '/';
		t->s[t->len] = '\0';
		t->mask = INVAL;
		break;
	case 24:
		/* Numbers at the edges */
		tok_set(t, EITHER, 0, "id:%s", rn(2) ? "18446744073709551616" :
			"99999999999999999999999");
		break;
	case 25:
		tok_set(t, NOENT | INVAL, 0, "id:%llu", self->id[rn(4)] + 1 + rn(1000000));
		t->mask |= F_OK_;	/* may name some other cgroup */
		t->canon = -1;
		break;
	case 26:
		/* A file system path, even through /proc, names no cgroup */
		tok_set(t, NOENT, 0, "/proc/self/root" CGT_CGROUP2 "%s",
			c == 3 ? "" : self->canon[c]);
		break;
	case 27:
		tok_set(t, NOENT, 0, "%s", c == 3 ? CGT_CGROUP2 : self->cg[c]);
		break;
	default:
		/* A cgroup path, as /proc/PID/cgroup prints it */
		tok_set(t, F_OK_, c, "%s", self->canon[c]);
		break;
	}
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The lines of @text, sorted, into @out: their number */
static int sorted_lines(const char *text, char out[][300], int max)
{
	int n = 0;

	while (*text && n < max) {
		const char *e = strchr(text, '\n');
		size_t l = e ? (size_t)(e - text) : strlen(text);

		snprintf(out[n++], 300, "%.*s", (int)l, text);
		text += l + (e ? 1 : 0);
	}
	qsort(out, n, sizeof(out[0]), line_cmp);
	return n;
}

/* The model of a list: indexes into canon[], kept once each */
struct model {
	int known;		/* 0: the kernel's content was taken as is */
	int has[4];
};

static void model_text(struct _test_data_fz *self, struct model *m, char *out)
{
	int i;

	out[0] = '\0';
	for (i = 0; i < 4; i++)
		if (m->has[i])
			sprintf(out + strlen(out), "%s\n", self->canon[i]);
}

/* Compare the file with the model, as sets; no line twice */
static int check_list(struct __test_metadata *_metadata,
		      struct _test_data_fz *self, const char *path,
		      struct model *m, const char *what)
{
	static char a[FZ_LIST_MAX][300], b[FZ_LIST_MAX][300];
	char want[2048];
	int na, nb, i, ok = 1;

	if (cgt_read_file(path, self->rd, 1 << 20) < 0)
		return 0;
	na = sorted_lines(self->rd, a, FZ_LIST_MAX);
	for (i = 1; i < na; i++)
		if (!strcmp(a[i - 1], a[i]))
			ok = 0;
	EXPECT_TRUE(ok) TH_LOG("%s: %s lists a cgroup twice:\n%s", path, what, self->rd);
	if (!m->known)
		return ok;
	model_text(self, m, want);
	nb = sorted_lines(want, b, FZ_LIST_MAX);
	if (na != nb)
		ok = 0;
	for (i = 0; ok && i < na; i++)
		if (strcmp(a[i], b[i]))
			ok = 0;
	EXPECT_TRUE(ok) TH_LOG("%s: after %s\nread:\n%swant:\n%s", path, what,
			       self->rd, want);
	return ok;
}

/* Build one structured write of tokens into buf: its mask, and tokens */
static size_t gen_filter_write(struct _test_data_fz *self, char *buf,
			       unsigned long long *mask, int *valid_idx,
			       int *nvalid)
{
	static const char *const sep[] = { " ", "\t", "\n", "  ", "\t\n " };
	static struct tok t;
	size_t len = 0;
	int n = rn(5), i, all_ok = 1;

	*mask = 0;
	*nvalid = 0;
	if (rn(3) == 0)
		len += sprintf(buf, "%s", sep[rn(5)]);
	for (i = 0; i < n; i++) {
		gen_token(self, &t);
		if (i)
			len += sprintf(buf + len, "%s", sep[rn(5)]);
		memcpy(buf + len, t.s, t.len);
		len += t.len;
		if (t.mask & F_OK_) {
			if (t.canon >= 0)
				valid_idx[(*nvalid)++] = t.canon;
			else
				valid_idx[(*nvalid)++] = -1;
		} else {
			all_ok = 0;
		}
		*mask |= t.mask & ~F_OK_;
	}
	if (rn(2))
		len += sprintf(buf + len, "%s", sep[rn(5)]);
	if (all_ok)
		*mask |= F_OK_;
	buf[len] = '\0';
	return len;
}

static void fuzz_filter_file(struct __test_metadata *_metadata,
			     struct _test_data_fz *self, const char *path,
			     double until, long *writes, long *fails)
{
	struct model m = { 1 };
	char what[200], shown[300];
	int valid[8], nvalid, i, ret, flags;
	unsigned long long mask;
	size_t len;
	long off;

	/* Start empty: O_TRUNC and no write clears (rst) */
	ASSERT_EQ(0, close(open(path, O_WRONLY | O_TRUNC)));
	check_list(_metadata, self, path, &m, "open(O_TRUNC) and close");

	while (now_s() < until) {
		int mode = rn(20), trunc = rn(3) == 0;

		flags = trunc ? O_TRUNC : O_APPEND;
		off = -1;
		len = gen_filter_write(self, self->buf, &mask, valid, &nvalid);
		switch (mode) {
		case 0:
			/* Random bytes */
			len = 1 + rn(300);
			for (i = 0; i < (int)len; i++)
				self->buf[i] = rnd();
			mask = B(ENOENT) | B(EINVAL) | F_OK_;
			nvalid = -1;
			break;
		case 1:
			/* A NUL byte in an otherwise good write */
			if (!len)
				self->buf[len++] = ' ';
			self->buf[rn(len)] = '\0';
			mask = B(EINVAL);
			break;
		case 2:
			/* Over 256 KiB */
			memset(self->buf + len, rn(2) ? ' ' : '\n', FZ_BIG - len);
			len = 256 * 1024 + 1 + rn(FZ_BIG - 256 * 1024 - 1);
			mask = B(E2BIG);
			break;
		case 3:
			/* Up to exactly 256 KiB: white space pads the write */
			if (len < 256 * 1024) {
				size_t to = rn(2) ? 256 * 1024 : 4097 + rn(256 * 1024 - 4097);

				if (to > len) {
					memset(self->buf + len, ' ', to - len);
					len = to;
				}
			}
			break;
		case 4:
			/* More than 4 KiB of the same valid word */
			len = 0;
			for (i = 0; len < 4096 + rn(20000); i++)
				len += sprintf(self->buf + len, "id:%llu ",
					       self->id[1]);
			nvalid = 1;
			valid[0] = 1;
			mask = F_OK_;
			break;
		case 5:
			/* pwrite at an offset */
			off = rn(100000);
			break;
		default:
			break;
		}
		if (mode == 6) {
			/*
			 * Several writes on one fd, the first one meant to be
			 * good; after O_TRUNC, the first that succeeds with some
			 * bytes replaces the list (one that fails before it
			 * leaves the replace to it), and closing after a tried
			 * write keeps it
			 */
			int fd = open(path, O_WRONLY | flags), k;
			bool replace = trunc;

			ASSERT_LE(0, fd);
			for (k = 0; k < 3; k++) {
				if (k) {
					len = gen_filter_write(self, self->buf, &mask,
							       valid, &nvalid);
				} else {
					do {
						len = gen_filter_write(self, self->buf,
								       &mask, valid,
								       &nvalid);
					} while (!(mask & F_OK_) || !len);
				}
				cgt_read_file(path, self->rd2, 1 << 20);
				ret = write(fd, self->buf, len) == (ssize_t)len ? 0 : -errno;
				mask |= B(ELOOP) | B(ENOTDIR) | B(EACCES);
				snprintf(what, sizeof(what), "(%s) write %d on one fd of \"%s\"",
					 ret ? strerror(-ret) : "ok", k,
					 fmt_bytes(self->buf, len, shown, sizeof(shown)));
				(*writes)++;
				EXPECT_TRUE(errno_allowed(mask, ret)) TH_LOG("%s: %s", path, what);
				if (ret) {
					(*fails)++;
					cgt_read_file(path, self->rd, 1 << 20);
					EXPECT_STREQ(self->rd2, self->rd)
						TH_LOG("%s: changed by failed %s", path, what);
					if (strcmp(self->rd2, self->rd))
						m.known = 0;
					continue;
				}
				/* An empty write changes nothing, the replace too */
				if (replace && len) {
					memset(m.has, 0, sizeof(m.has));
					replace = false;
				}
				for (i = 0; i < nvalid; i++)
					if (valid[i] < 0)
						m.known = 0;
					else
						m.has[valid[i]] = 1;
				if (!check_list(_metadata, self, path, &m, what))
					m.known = 0;
			}
			close(fd);
			if (!m.known) {
				ASSERT_EQ(0, cgt_write_file(path, "\n"));
				memset(&m, 0, sizeof(m));
				m.known = 1;
			}
			continue;
		}
		cgt_read_file(path, self->rd2, 1 << 20);
		ret = fz_write(path, self->buf, len, flags, off);
		(*writes)++;
		snprintf(what, sizeof(what), "(%s) %s%s write of \"%s\"",
			 ret ? strerror(-ret) : "ok",
			 trunc ? "O_TRUNC" : "O_APPEND", off >= 0 ? " pwrite" : "",
			 fmt_bytes(self->buf, len, shown, sizeof(shown)));
		/*
		 * The VFS refuses pwrite on these seq files (ESPIPE, as for
		 * set_event_pid) before the file sees it: after an O_TRUNC
		 * open that is "opened with O_TRUNC, nothing written", and the
		 * list is cleared at close (rst). A path that path lookup
		 * refuses (a symlink loop) passes its errno through (rst).
		 */
		if (off >= 0)
			mask |= B(ESPIPE);
		mask |= B(ELOOP) | B(ENOTDIR) | B(EACCES);
		EXPECT_TRUE(errno_allowed(mask, ret)) TH_LOG("%s: %s", path, what);
		if (ret == -ESPIPE && trunc) {
			self->rd2[0] = '\0';
			memset(m.has, 0, sizeof(m.has));
		}
		if (ret) {
			(*fails)++;
			cgt_read_file(path, self->rd, 1 << 20);
			EXPECT_STREQ(self->rd2, self->rd)
				TH_LOG("%s: changed by failed %s", path, what);
			if (strcmp(self->rd2, self->rd))
				m.known = 0;
			goto resync;
		}
		if (trunc)
			memset(m.has, 0, sizeof(m.has));
		if (nvalid < 0)
			m.known = 0;
		for (i = 0; i < nvalid; i++)
			if (valid[i] < 0)
				m.known = 0;
			else
				m.has[valid[i]] = 1;
		if (!check_list(_metadata, self, path, &m, what))
			m.known = 0;
resync:
		if (!m.known) {
			/* Something unmodelled got listed: start again empty */
			ASSERT_EQ(0, cgt_write_file(path, "\n"));
			memset(&m, 0, sizeof(m));
			m.known = 1;
		}
	}
	ASSERT_EQ(0, cgt_write_file(path, "\n"));
}

TEST_F_TIMEOUT(fz, filter_files, 300)
{
	double share = fz_seconds * 0.4 / 8, until;
	long writes = 0, fails = 0;
	char p[PATH_MAX];
	int i, top;

	rng_seed(1);
	for (top = 0; top < 2; top++)
		for (i = 0; i < 4; i++) {
			if (top)
				snprintf(p, sizeof(p), CGT_TRACEFS "/%s", filter_files[i]);
			else
				cgt_instance_file(&self->inst, filter_files[i], p, sizeof(p));
			until = now_s() + share;
			fuzz_filter_file(_metadata, self, p, until, &writes, &fails);
		}
	TH_LOG("seed %llu: %ld writes, %ld failed as documented", fz_seed,
	       writes, fails);
	EXPECT_LT(0, writes - fails);
	EXPECT_LT(0, fails);
}

/* ------------------------------------------------------------------ */
/* user_events                                                         */

/* Allowed name bytes: not | \n NUL, no control character, not 0x7f */
static char name_byte(void)
{
	unsigned char c;

	do {
		c = rnd();
	} while (c < 0x20 || c == 0x7f || c == '|');
	return c;
}

static size_t gen_name(char *o, int len)
{
	int i;

	for (i = 0; i < len; i++)
		o[i] = rn(4) ? 'a' + rn(26) : name_byte();
	return len;
}

static size_t gen_number(char *o)
{
	static const char *const edge[] = {
		"0", "-1", "9223372036854775807", "-9223372036854775808", "42",
		"-0", "000017",
	};
	return sprintf(o, "%s", rn(2) ? edge[rn(7)] : "12345");
}

/* One valid record (no newline) */
static size_t gen_record(char *o)
{
	static const char types[] = "BECSFI";
	char t = types[rn(6)];
	size_t l = 0;

	l += sprintf(o, "%c|%u|", t, rn(2) ? rn(10) : rn(999999999));
	if (t == 'E') {
		if (rn(2))
			return l - 1;		/* "E|pid" */
		l += gen_name(o + l, 1 + rn(20));
		return l;
	}
	l += gen_name(o + l, rn(8) ? 1 + rn(30) : 1 + rn(127));
	if (t == 'C' || t == 'S' || t == 'F') {
		o[l++] = '|';
		l += gen_number(o + l);
	}
	return l;
}

/*
 * The rst's grammar on any bytes: which outcomes it allows, and the
 * number of records a success writes.
 */
static unsigned long long um_oracle(const char *b, size_t len, int *nrec)
{
	unsigned long long err = 0, either = 0;
	size_t i = 0, end = len;
	int n = 0;

	*nrec = 0;
	if (!len)
		return F_OK_;
	if (len > 4096)
		err |= B(E2BIG);
	if (b[len - 1] == '\n')
		end = len - 1;
	while (i <= end) {
		const char *f[6];
		size_t fl[6], j, s = i;
		int nf = 0, k;
		char type;

		while (i < end && b[i] != '\n')
			i++;
		n++;
		/* fields of b[s..i) */
		f[0] = b + s;
		for (j = s; j <= i && nf < 6; j++)
			if (j == i || b[j] == '|') {
				fl[nf] = b + j - f[nf];
				nf++;
				if (nf < 6)
					f[nf] = b + j + 1;
			}
		i++;
		if (memchr(b + s, '\0', i - 1 - s)) {
			err |= B(EINVAL);
			continue;
		}
		if (i - 1 == s || fl[0] != 1 || !strchr("BECSFI", f[0][0]) || !f[0][0]) {
			err |= B(EINVAL);
			continue;
		}
		type = f[0][0];
		k = type == 'E' ? 2 : strchr("CSF", type) ? 4 : 3;
		if (nf != k && !(type == 'E' && nf == 3)) {
			err |= B(EINVAL);
			/*
			 * The write stops at the first problem its scan
			 * meets: a name too long comes before the missing or
			 * extra field. The rst does not order them: either.
			 */
			if (nf >= 3 && fl[2] > 127)
				err |= B(ENAMETOOLONG);
			continue;
		}
		if (!fl[1]) {
			err |= B(EINVAL);
			continue;
		}
		for (j = 0; j < fl[1]; j++)
			if (f[1][j] < '0' || f[1][j] > '9')
				break;
		if (j < fl[1]) {
			err |= B(EINVAL);
			continue;
		}
		if (fl[1] > 9)		/* "decimal digits", the range is open */
			either |= B(EINVAL);
		if (nf >= 3) {
			if (!fl[2])
				err |= B(EINVAL);
			for (j = 0; j < fl[2]; j++) {
				unsigned char c = f[2][j];

				if (c < 0x20 || c == 0x7f)
					err |= B(EINVAL);
			}
			if (fl[2] > 127)
				err |= B(ENAMETOOLONG);
		}
		if (nf == 4) {
			char num[32], *e;
			long long v;

			if (!fl[3] || fl[3] >= sizeof(num) ||
			    !strchr("-0123456789", f[3][0]) || (f[3][0] == '-' && fl[3] == 1)) {
				err |= B(EINVAL);
				continue;
			}
			memcpy(num, f[3], fl[3]);
			num[fl[3]] = '\0';
			for (j = 1; j < fl[3]; j++)
				if (num[j] < '0' || num[j] > '9')
					err |= B(EINVAL);
			/* Leading zeros: still decimal, the rst does not say */
			if (num[num[0] == '-'] == '0' && fl[3] > 1u + (num[0] == '-'))
				either |= B(EINVAL);
			errno = 0;
			v = strtoll(num, &e, 10);
			(void)v;
			if (errno || *e)
				err |= B(EINVAL);
		}
	}
	if (n > 64)
		err |= B(E2BIG);
	if (err)
		return err | either;
	*nrec = n;
	return F_OK_ | either;
}

struct um_counts {
	long long accepted, limited, filtered, disabled, rejected;
};

static long long stat_in(const char *text, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s ", name);
	for (p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, key, strlen(key)))
			return atoll(p + strlen(key));
	}
	return -1;
}

static void um_counts(const char *dir, struct um_counts *c)
{
	char p[PATH_MAX], buf[1024];

	snprintf(p, sizeof(p), "%s/user_events_stats", dir);
	buf[0] = '\0';
	cgt_read_file(p, buf, sizeof(buf));
	c->accepted = stat_in(buf, "accepted");
	c->limited = stat_in(buf, "rate_limited");
	c->filtered = stat_in(buf, "filtered");
	c->disabled = stat_in(buf, "disabled");
	c->rejected = stat_in(buf, "rejected");
}

/* Fill buf with one user_events write of some kind: its length */
static size_t gen_um_write(char *buf)
{
	size_t len = 0, l;
	int n, i;

	switch (rn(12)) {
	case 0:
		/* Random bytes */
		len = 1 + rn(rn(4) ? 64 : 5000);
		for (i = 0; i < (int)len; i++)
			buf[i] = rn(3) ? rnd() : "|\n0BECSFI"[rn(9)];
		return len;
	case 1:
		/* Over 4 KiB, or over 256 KiB, of good records */
		n = rn(2) ? 4097 + rn(1000) : 256 * 1024 + 1 + rn(1000);
		while (len < (size_t)n) {
			len += gen_record(buf + len);
			buf[len++] = '\n';
		}
		return n;
	case 2:
		/* Exactly 64 or 65 records */
		n = 64 + rn(2);
		for (i = 0; i < n; i++)
			len += sprintf(buf + len, "I|%d|r%d\n", i, i);
		return len;
	case 3:
		/* A long name */
		len = sprintf(buf, "%c|1|", "BIE"[rn(3)]);
		len += gen_name(buf + len, 120 + rn(20));
		return len;
	default:
		break;
	}
	/* Good records, then maybe mutated */
	n = 1 + rn(rn(4) ? 4 : 70);
	for (i = 0; i < n && len < 4000; i++) {
		len += gen_record(buf + len);
		if (i < n - 1 || rn(2))
			buf[len++] = '\n';
	}
	switch (rn(8)) {
	case 0:
		/* Flip, insert or drop a byte */
		l = rn(len);
		buf[l] = rn(2) ? rnd() : "|\n\0\x7f\t"[rn(5)];
		break;
	case 1:
		len = 1 + rn(len);
		break;
	case 2:
		/* invalid UTF-8 inside: allowed in names */
		l = rn(len);
		if (buf[l] != '|' && buf[l] != '\n')
			buf[l] = bad_utf8();
		break;
	case 3:
		buf[len++] = '\n';		/* an empty line at the end */
		buf[len++] = '\n';
		break;
	default:
		break;
	}
	return len;
}

/*
 * Fuzz the user_events file of @dir. With @idle, no user_markers event is
 * enabled anywhere and the writer has no span open: the kernel only
 * checks such writes (trace_um_check()), and every record must be counted
 * as disabled where it was written. Otherwise the test instance's events
 * are on and it gets every record (its own file, or the top level's
 * fan-out).
 */
static void fuzz_user_events(struct __test_metadata *_metadata,
			     struct _test_data_fz *self, const char *dir,
			     bool idle, double until, long *writes, long *fails)
{
	const char *counted = idle ? dir : self->inst.path;
	struct um_counts ib, ia, fb, fa;
	char p[PATH_MAX], shown[300];
	unsigned long long mask;
	int ret, nrec, top = strcmp(dir, self->inst.path);
	size_t len;
	long off;

	snprintf(p, sizeof(p), "%s/user_events", dir);
	while (now_s() < until) {
		len = gen_um_write(self->buf);
		mask = um_oracle(self->buf, len, &nrec);
		off = rn(4) ? -1 : (long)rn(1 << 20);
		um_counts(counted, &ib);
		um_counts(dir, &fb);
		if (rn(50) == 0) {
			/* An unreadable buffer, written at no position */
			off = -1;
			ret = fz_write(p, (const void *)8, 1 + rn(100), 0, off);
			mask = B(EFAULT);
			nrec = 0;
			len = 0;
		} else {
			ret = fz_write(p, self->buf, len, 0, off);
		}
		(*writes)++;
		um_counts(counted, &ia);
		um_counts(dir, &fa);
		if (off >= 0) {
			/*
			 * user_events is a stream: the VFS refuses a
			 * positioned write before the file sees it, so it
			 * fails with ESPIPE and no count moves.
			 */
			EXPECT_EQ(-ESPIPE, ret)
				TH_LOG("%s: pwrite at %ld: %s", p, off,
				       ret ? strerror(-ret) : "ok");
			EXPECT_EQ(0, memcmp(&fb, &fa, sizeof(fa)))
				TH_LOG("%s: a refused pwrite moved a count", p);
			EXPECT_EQ(0, memcmp(&ib, &ia, sizeof(ia)))
				TH_LOG("%s: a refused pwrite moved a count", p);
			(*fails)++;
			continue;
		}
		EXPECT_TRUE(errno_allowed(mask, ret))
			TH_LOG("%s: \"%s\": %s", p,
			       fmt_bytes(self->buf, len, shown, sizeof(shown)),
			       ret ? strerror(-ret) : "ok");
		if (ret) {
			(*fails)++;
			EXPECT_EQ(fb.rejected + 1, fa.rejected)
				TH_LOG("%s: a failed write is counted once as rejected", p);
			EXPECT_EQ(ib.accepted + ib.limited + ib.filtered + ib.disabled,
				  ia.accepted + ia.limited + ia.filtered + ia.disabled)
				TH_LOG("%s: a failed write recorded something", p);
			continue;
		}
		if (!len)
			continue;
		EXPECT_EQ(fb.rejected, fa.rejected);
		if (idle)
			EXPECT_EQ(ib.disabled + nrec, ia.disabled)
				TH_LOG("%s: %d records of \"%s\" not counted as disabled",
				       p, nrec, fmt_bytes(self->buf, len, shown,
							  sizeof(shown)));
		/* Every record is counted where it goes, once */
		EXPECT_EQ(ib.accepted + ib.limited + ib.filtered + ib.disabled + nrec,
			  ia.accepted + ia.limited + ia.filtered + ia.disabled) {
			TH_LOG("%s: %d records of \"%s\" (top %d) moved accepted %lld->%lld",
			       p, nrec, fmt_bytes(self->buf, len, shown, sizeof(shown)),
			       top, ib.accepted, ia.accepted);
			TH_LOG("rate_limited %lld->%lld filtered %lld->%lld",
			       ib.limited, ia.limited, ib.filtered, ia.filtered);
		}
	}
}

TEST_F_TIMEOUT(fz, user_events, 300)
{
	double share = fz_seconds * 0.3 / 4;
	long writes = 0, fails = 0;
	char on[8];

	rng_seed(2);
	/*
	 * Idle first: this thread has no span open yet, and with nothing
	 * enabled its begins are not followed, so it stays so.
	 */
	ASSERT_LT(0, cgt_read_file(CGT_TRACEFS "/events/user_markers/enable",
				   on, sizeof(on)));
	if (on[0] != '0')
		SKIP(return, "user_markers enabled at the top level (%c)", on[0]);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "0"));
	fuzz_user_events(_metadata, self, self->inst.path, true,
			 now_s() + share, &writes, &fails);
	fuzz_user_events(_metadata, self, CGT_TRACEFS, true, now_s() + share,
			 &writes, &fails);
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "events/user_markers/enable", "1"));
	fuzz_user_events(_metadata, self, self->inst.path, false,
			 now_s() + share, &writes, &fails);
	fuzz_user_events(_metadata, self, CGT_TRACEFS, false, now_s() + share,
			 &writes, &fails);
	TH_LOG("seed %llu: %ld writes, %ld failed as documented", fz_seed,
	       writes, fails);
	EXPECT_LT(0, writes - fails);
	EXPECT_LT(0, fails);
}

/* ------------------------------------------------------------------ */
/* user_events_rate and options/user_events_prctl                      */

/*
 * Write @len bytes of self->buf to the small settings file @p and check
 * the errno against @mask; a failed write must leave the file as it was.
 * The text before is left in self->rd2, after in self->rd.
 */
static int fz_setting_write(struct __test_metadata *_metadata,
			    struct _test_data_fz *self, const char *p,
			    size_t len, int flags, long off,
			    unsigned long long mask, char *shown, size_t slen)
{
	int ret;

	ASSERT_LT(0, cgt_read_file(p, self->rd2, 4096));
	ret = fz_write(p, self->buf, len, flags, off);
	ASSERT_LT(0, cgt_read_file(p, self->rd, 4096));
	fmt_bytes(self->buf, len, shown, slen);
	EXPECT_TRUE(errno_allowed(mask, ret))
		TH_LOG("%s: \"%s\": %s", p, shown, ret ? strerror(-ret) : "ok");
	if (ret)
		EXPECT_STREQ(self->rd2, self->rd)
			TH_LOG("%s: changed by failed \"%s\"", p, shown);
	return ret;
}

/* "RATE BURST" per the rst; *either when the rst leaves it open */
static unsigned long long rate_oracle(const char *b, size_t len,
				      unsigned long long *rate,
				      unsigned long long *burst, int *nums)
{
	char tmp[128], *w[3], *p, *save;
	int n = 0, i, j;

	*nums = 0;
	const char *nl = memchr(b, '\n', len);

	if (len >= sizeof(tmp) || memchr(b, '\0', len))
		return B(EINVAL);
	/* Other white space, '+': the rst does not define the syntax */
	if (memchr(b, '\r', len) || memchr(b, '\v', len) ||
	    memchr(b, '\f', len) || memchr(b, 0xa0, len) || memchr(b, '+', len))
		return B(EINVAL) | F_OK_;
	memcpy(tmp, b, len);
	tmp[len] = '\0';
	for (p = strtok_r(tmp, " \t\n", &save); p && n < 3;
	     p = strtok_r(NULL, " \t\n", &save))
		w[n++] = p;
	if (n == 0 || n > 2)
		return B(EINVAL);
	for (i = 0; i < n; i++) {
		if (!w[i][0] || strlen(w[i]) > 9)
			return B(EINVAL) | (strspn(w[i], "0123456789") ==
					    strlen(w[i]) ? F_OK_ : 0);
		for (j = 0; w[i][j]; j++)
			if (w[i][j] < '0' || w[i][j] > '9')
				return B(EINVAL);
	}
	*rate = strtoull(w[0], NULL, 10);
	*burst = n > 1 ? strtoull(w[1], NULL, 10) : 0;
	*nums = n;
	/* The limits of the values are not in the rst: either way */
	if (*rate > 1000000 || *burst > 1000000 || (*rate && n > 1 && !*burst) ||
	    (!*rate && n > 1 && *burst) || (nl && nl < b + len - 1))
		return B(EINVAL) | F_OK_;
	return F_OK_;
}

static size_t gen_rate(char *buf)
{
	static const char *const edge[] = {
		"0", "1", "1000000", "10000000", "10000001", "4294967295",
		"4294967296", "18446744073709551615", "18446744073709551616",
		"-1", "+5", "0x10", "1e3", " ", "",
	};
	size_t i, len;

	switch (rn(5)) {
	case 0:
		len = 1 + rn(rn(2) ? 20 : 5000);
		for (i = 0; i < len; i++)
			buf[i] = rn(2) ? rnd() : "0123456789\n "[rn(12)];
		return len;
	case 1:
		return sprintf(buf, "%s %s%s", edge[rn(15)], edge[rn(15)],
			       rn(2) ? "\n" : "");
	case 2:
		return sprintf(buf, "%s", edge[rn(15)]);
	default:
		return sprintf(buf, "%u%s%u%s", rn(100000), rn(2) ? " " : "\t",
			       1 + rn(100000), rn(2) ? "\n" : "");
	}
}

static void fuzz_rate(struct __test_metadata *_metadata,
		      struct _test_data_fz *self, const char *dir, double until,
		      long *writes, long *fails)
{
	unsigned long long mask, rate = 0, burst = 0, ob = 0, r2, b2;
	char p[PATH_MAX], shown[300];
	int ret, nums, n;
	size_t len;

	snprintf(p, sizeof(p), "%s/user_events_rate", dir);
	while (now_s() < until) {
		len = gen_rate(self->buf);
		mask = rate_oracle(self->buf, len, &rate, &burst, &nums);
		ret = fz_setting_write(_metadata, self, p, len,
				       rn(2) ? O_TRUNC : 0,
				       rn(4) ? -1 : (long)rn(10000), mask,
				       shown, sizeof(shown));
		(*writes)++;
		if (ret) {
			(*fails)++;
			continue;
		}
		if (!nums)
			continue;
		n = sscanf(self->rd, "%llu %llu", &r2, &b2);
		ASSERT_EQ(2, n);
		n = sscanf(self->rd2, "%*u %llu", &ob);
		ASSERT_EQ(1, n);
		EXPECT_EQ(rate, r2) TH_LOG("%s: \"%s\" read back %s", p, shown, self->rd);
		if (!rate) {
			EXPECT_EQ(0, b2) TH_LOG("unlimited reads \"0 0\": %s", self->rd);
		} else if (nums == 2) {
			EXPECT_EQ(burst, b2) TH_LOG("\"%s\" read back %s", shown, self->rd);
		} else if (ob) {
			EXPECT_EQ(ob, b2) TH_LOG("one number keeps the burst: %s -> %s",
						 self->rd2, self->rd);
		}
	}
}

static void fuzz_prctl_opt(struct __test_metadata *_metadata,
			   struct _test_data_fz *self, const char *dir,
			   double until, long *writes, long *fails)
{
	static const char *const words[] = {
		"0", "1", "0\n", "1\n", "2", "-1", "10", "", "on", "off",
		"yes", "true", " 1", "\x00", "1\x00", "01",
	};
	char p[PATH_MAX], shown[300];
	unsigned long long mask;
	size_t len, i;
	int ret, w;

	snprintf(p, sizeof(p), "%s/options/user_events_prctl", dir);
	while (now_s() < until) {
		w = rn(ARRAY_SIZE(words) + 3);
		if (w < (int)ARRAY_SIZE(words)) {
			len = strlen(words[w]) + (w == 13 || w == 14);
			memcpy(self->buf, words[w], len + 1);
		} else {
			len = 1 + rn(rn(2) ? 8 : 300000);
			for (i = 0; i < len; i++)
				self->buf[i] = rnd();
			w = -1;
		}
		/* "0"/"1" as every option; other words: the rst says nothing */
		mask = (w >= 0 && w < 4) ? F_OK_ : F_OK_ | B(EINVAL);
		ret = fz_setting_write(_metadata, self, p, len, O_TRUNC,
				       rn(4) ? -1 : (long)rn(100), mask,
				       shown, sizeof(shown));
		(*writes)++;
		if (ret) {
			(*fails)++;
			continue;
		}
		EXPECT_TRUE(!strcmp(self->rd, "0\n") || !strcmp(self->rd, "1\n"))
			TH_LOG("%s reads \"%s\"", p, self->rd);
		if (w >= 0 && w < 4)
			EXPECT_EQ(words[w][0], self->rd[0]);
	}
}

TEST_F_TIMEOUT(fz, rate_and_prctl_option, 300)
{
	double share = fz_seconds * 0.3 / 4;
	long writes = 0, fails = 0;

	rng_seed(3);
	fuzz_rate(_metadata, self, self->inst.path, now_s() + share, &writes, &fails);
	fuzz_rate(_metadata, self, CGT_TRACEFS, now_s() + share, &writes, &fails);
	fuzz_prctl_opt(_metadata, self, self->inst.path, now_s() + share,
		       &writes, &fails);
	fuzz_prctl_opt(_metadata, self, CGT_TRACEFS, now_s() + share, &writes, &fails);
	TH_LOG("seed %llu: %ld writes, %ld failed as documented", fz_seed,
	       writes, fails);
	EXPECT_LT(0, writes - fails);
	EXPECT_LT(0, fails);
}

/* ------------------------------------------------------------------ */
/* prctl(PR_TRACE_USER_MARKER, kind, name, value, arg5)                */

/*
 * A page of readable memory followed by an unmapped one, for names that
 * run into the end of what the caller can read.
 */
static char *edge_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	munmap(m + pg, pg);
	return m;
}

/*
 * One call's arguments and what the rst says of them: the kind, then the
 * name (NULL only for an end), then its length and bytes, arg5 first of
 * all.
 */
static unsigned long long gen_prctl(char *edge, char *buf, unsigned long *kind,
				    const char **name, unsigned long *arg5,
				    char *shown, size_t slen)
{
	static const unsigned long kinds[] = {
		0, 1, 2, 3, 4, 5, 6, 255, 0x100000001UL, ~0UL,
	};
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long mask = F_OK_;
	size_t len, i;

	*kind = rn(4) ? 1 + rn(4) : kinds[rn(ARRAY_SIZE(kinds))];
	*arg5 = rn(10) ? 0 : (rn(2) ? 1 : rnd());
	switch (rn(10)) {
	case 0:
		*name = NULL;
		snprintf(shown, slen, "NULL");
		if (*kind != PR_TRACE_MARKER_END)
			mask = B(EFAULT);
		break;
	case 1:
		*name = (const char *)(uintptr_t)(rn(2) ? 8 : 0xffffffffff600000ULL);
		snprintf(shown, slen, "%p", *name);
		mask = B(EFAULT);
		break;
	case 2:
		/* No NUL before the unmapped page: too long or unreadable */
		len = 100 + rn(60);
		*name = edge + pg - len;
		memset(edge + pg - len, 'x', len);
		snprintf(shown, slen, "%zu bytes to the page end", len);
		mask = len > 128 ? B(ENAMETOOLONG) : B(EFAULT);
		if (len == 128 || len == 129)
			mask = B(ENAMETOOLONG) | B(EFAULT);
		break;
	default:
		/* A name: good, empty, long, with control bytes or UTF-8 */
		len = rn(3) ? 1 + rn(40) : rn(200);
		for (i = 0; i < len; i++)
			buf[i] = rn(20) ? 0x20 + rn(0x5f) : (rn(2) ? rn(0x20) : bad_utf8());
		buf[len] = '\0';
		len = strlen(buf);	/* a random 0 ends it early */
		*name = buf;
		fmt_bytes(buf, len, shown, slen);
		for (i = 0; i < len; i++)
			if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f ||
			    buf[i] == '|')
				mask = B(EINVAL);
		if (!len)
			mask = B(EINVAL);
		else if (len > 127)
			mask = B(ENAMETOOLONG);
		break;
	}
	if (*kind < 1 || *kind > 4 || *arg5)
		mask = B(EINVAL);
	return mask;
}

static void fuzz_prctl(struct __test_metadata *_metadata,
		       struct _test_data_fz *self, double until, long *calls,
		       long *fails)
{
	struct um_counts ib, ia, tb, ta;
	unsigned long kind, arg5, value;
	unsigned long long mask;
	char *edge = edge_page(), shown[300];
	const char *name;
	int ret;

	ASSERT_NE(NULL, edge);
	while (now_s() < until) {
		mask = gen_prctl(edge, self->buf, &kind, &name, &arg5, shown,
				 sizeof(shown));
		value = rn(2) ? rn(1000) : rnd();
		/* Only a counter takes a value: the others want 0 */
		if (rn(2) && kind != PR_TRACE_MARKER_COUNTER)
			value = 0;
		if (value && kind >= 1 && kind <= 4 &&
		    kind != PR_TRACE_MARKER_COUNTER)
			mask = B(EINVAL);
		um_counts(self->inst.path, &ib);
		um_counts(CGT_TRACEFS, &tb);
		ret = prctl(PR_TRACE_USER_MARKER, kind, (unsigned long)name,
			    value, arg5) ? -errno : 0;
		(*calls)++;
		um_counts(self->inst.path, &ia);
		um_counts(CGT_TRACEFS, &ta);
		EXPECT_TRUE(errno_allowed(mask, ret))
			TH_LOG("prctl(kind %#lx, name %s, value %#lx, arg5 %#lx): %s",
			       kind, shown, value, arg5,
			       ret ? strerror(-ret) : "ok");
		/* The top level did not opt in: it never sees a call. */
		EXPECT_EQ(tb.accepted + tb.limited + tb.filtered + tb.disabled +
			  tb.rejected,
			  ta.accepted + ta.limited + ta.filtered + ta.disabled +
			  ta.rejected);
		if (ret) {
			(*fails)++;
			EXPECT_EQ(ib.accepted + ib.limited + ib.filtered + ib.disabled +
				  ib.rejected,
				  ia.accepted + ia.limited + ia.filtered + ia.disabled +
				  ia.rejected)
				TH_LOG("failed prctl (name %s) recorded something", shown);
			continue;
		}
		/* One record, taken by the instance that opted in */
		EXPECT_EQ(ib.accepted + ib.limited + ib.filtered + ib.disabled + 1,
			  ia.accepted + ia.limited + ia.filtered + ia.disabled)
			TH_LOG("prctl(kind %lu, name %s) moved the counts by %lld",
			       kind, shown,
			       ia.accepted + ia.limited + ia.filtered -
			       ib.accepted - ib.limited - ib.filtered);
	}
	munmap(edge, sysconf(_SC_PAGESIZE));
}

TEST_F_TIMEOUT(fz, prctl, 300)
{
	long calls = 0, fails = 0;
	int ret;

	ret = prctl(PR_TRACE_USER_MARKER, PR_TRACE_MARKER_INSTANT,
		    (unsigned long)"fz-probe", 0, 0);
	if (ret && errno == EINVAL)
		SKIP(return, "kernel without PR_TRACE_USER_MARKER");
	ASSERT_EQ(0, cgt_write_file(CGT_TRACEFS "/options/user_events_prctl", "0"));
	ASSERT_EQ(0, cgt_instance_write(&self->inst, "options/user_events_prctl", "1"));
	rng_seed(4);
	fuzz_prctl(_metadata, self, now_s() + fz_seconds * 0.1, &calls, &fails);
	TH_LOG("seed %llu: %ld calls, %ld failed as documented", fz_seed,
	       calls, fails);
	EXPECT_LT(0, calls - fails);
	EXPECT_LT(0, fails);
}

TEST_HARNESS_MAIN
