// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_follow.c - a -G or -X cgroup that is removed and made again
 * while cgtrace records is recorded (or left out) again.
 *
 * The kernel's filters hold cgroups, not names: when systemd restarts a
 * unit it removes the unit's cgroup and makes a new one of the same path
 * (podman does the same for a container it restarts), and the old entry
 * then matches nothing. cgtrace watches the parent directory of each
 * cgroup named by a unit, a container, a pid or a path (inotify wakes it
 * as soon as the directory is made, while systemd still sets up the
 * unit's new process) and appends the new cgroup to the same files; what
 * a task does in the new cgroup before that write is not recorded (under
 * a loaded host, the first milliseconds of the new process can be
 * missed; a restart's new main process is recorded from then on). Every
 * tick it also compares
 * the directory's inode with the one it wrote (a re-creation that
 * inotify cannot report, or one made before the watch began). A cgroup
 * named by id:N is that cgroup only, and is not followed.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgtrace.h"
#include "recorder.h"
#include "tracefs_util.h"

struct cg_follow {
	const char	*arg;		/* as the user named it */
	struct cg_ref	*ref;		/* its cgroup now */
	bool		notrace;	/* -X: the notrace files */
	int		wd;		/* the watch on its parent, or -1 */
};

/* follow_add - watch one resolved -G or -X cgroup */
static void follow_add(struct recorder *r, const char *arg, struct cg_ref *ref,
		       bool notrace)
{
	struct cg_follow *f;
	char *parent, *slash;

	if (!strncmp(arg, "id:", 3) || !strcmp(ref->dir, cg_mount_dir()))
		return;
	r->follow = xrealloc(r->follow, (r->nr_follow + 1) * sizeof(*r->follow));
	f = &r->follow[r->nr_follow++];
	f->arg = arg;
	f->ref = ref;
	f->notrace = notrace;
	f->wd = -1;
	parent = xstrdup(ref->dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (r->follow_fd >= 0)
		f->wd = inotify_add_watch(r->follow_fd, parent,
					  IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	free(parent);
}

/* follow_start - after the filters are written: watch what they name */
void follow_start(struct recorder *r)
{
	struct rec_session *s = r->s;
	int i;

	r->follow_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; i < s->cgroups.n; i++)
		follow_add(r, s->cgroups.v[i], &r->cgroups[i], false);
	for (i = 0; i < s->notrace.n; i++)
		follow_add(r, s->notrace.v[i], &r->notrace[i], true);
}

/* add_again - the new cgroup of @f to its files; 0 or -1 */
static int add_again(struct recorder *r, struct cg_follow *f,
		     unsigned long long id)
{
	const char *ev = f->notrace ? "set_event_notrace_cgroup" : "set_event_cgroup";
	const char *ft = f->notrace ? "set_ftrace_notrace_cgroup" : "set_ftrace_cgroup";
	unsigned long long old = f->ref->id;
	char *word;
	int err;

	f->ref->id = id;
	word = cg_kernel_word(f->ref);
	err = tfs_write(r->inst, ev, word, false);
	if (!err && is_function_tracer(r->s->tracer))
		err = tfs_write(r->inst, ft, word, false);
	free(word);
	if (err == -ENOENT) {
		/* removed again before we wrote it: the next one is seen */
		f->ref->id = old;
		return 0;
	}
	if (err) {
		err_msg("warning: %s: its cgroup %s was made again (id %llu) and cannot be added to %s: %s;\n"
			"         its tasks are no longer %s", f->arg, f->ref->path, id, ev,
			strerror(-err), f->notrace ? "left out" : "recorded");
		return -1;
	}
	if (!r->s->quiet)
		fprintf(stderr, "cgtrace: %s: its cgroup %s was made again (id %llu, was %llu): %s\n",
			f->arg, f->ref->path, id, old,
			f->notrace ? "left out too" : "recorded too");
	return 0;
}

/*
 * follow_check - every followed cgroup whose directory is a new one
 * (another inode than the one written) is added again
 */
void follow_check(struct recorder *r)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct stat st;
	int i;

	/* the events only wake us: the inodes decide */
	while (r->follow_fd >= 0 && read(r->follow_fd, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < r->nr_follow; i++) {
		struct cg_follow *f = &r->follow[i];

		if (stat(f->ref->dir, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_ino == f->ref->id)
			continue;
		add_again(r, f, st.st_ino);
	}
}

/*
 * follow_wait - wait @ms milliseconds, adding every re-created cgroup as
 * soon as inotify reports its directory; a signal ends the wait early
 */
void follow_wait(struct recorder *r, int ms)
{
	struct timespec now, end;
	struct pollfd p = { .fd = r->follow_fd, .events = POLLIN };
	long left;

	if (r->follow_fd < 0 || !r->nr_follow) {
		struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&pause, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += (ms % 1000) * 1000000L;
	end.tv_sec += ms / 1000 + end.tv_nsec / 1000000000L;
	end.tv_nsec %= 1000000000L;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 +
		       (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0)
			break;
		if (poll(&p, 1, left) < 0)
			break;		/* a signal: the caller looks */
		if (p.revents & POLLIN)
			follow_check(r);
	}
	follow_check(r);
}

void follow_stop(struct recorder *r)
{
	if (r->follow_fd >= 0)
		close(r->follow_fd);
	r->follow_fd = -1;
	free(r->follow);
	r->follow = NULL;
	r->nr_follow = 0;
}
