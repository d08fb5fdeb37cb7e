// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - write a result into what the user named: record's and run's
 * -o, export's --chrome. OUT is a file, a symbolic link (its target is
 * written), a FIFO or a device (written into), or "-" for standard
 * output. OUT is never replaced by rename(): a link stays a link, a
 * FIFO's reader gets the data, /dev/null stays a device, and a file keeps
 * its owner, mode and other names.
 *
 * The result is made whole first in a spool file (trace-cmd writes the
 * trace there; export its JSON), and only then put into OUT:
 *   - OUT does not exist: the spool is renamed to OUT with
 *     RENAME_NOREPLACE (or linked, where the file system lacks it), never
 *     over a file made meanwhile: no copy for the common case;
 *   - OUT exists (or appeared meanwhile): it is opened (a regular file
 *     truncated) and the spool is copied into it.
 * The spool is in OUT's directory (its link target's, for a link) when
 * OUT is or will be a regular file there, else in $TMPDIR (/tmp).
 *
 * out_check() says everything it can before anything is recorded: a
 * directory is refused, as is a file that cannot be written, a directory
 * that does not exist, and (for a binary result) a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgtrace.h"
#include "output.h"

/* tmp_dir - $TMPDIR, or /tmp */
static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* dir_of - the directory part of @path ("." for a bare name) */
static char *dir_of(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

/*
 * spool_beside - the spool directory for a regular file at @file: its
 * directory when this process may write there, else $TMPDIR (a file that
 * can be written in a directory that cannot)
 */
static char *spool_beside(const char *file)
{
	char *dir = dir_of(file), *abs = realpath(dir, NULL);

	free(dir);
	if (abs && !access(abs, W_OK | X_OK))
		return abs;
	free(abs);
	return xstrdup(tmp_dir());
}

void out_free(struct out_target *t)
{
	free(t->spool_dir);
	t->spool_dir = NULL;
}

int out_check(struct out_target *t, const char *name, const char *opt,
	      bool binary)
{
	struct stat st, lst;
	char *dir, *real;
	size_t len = strlen(name);
	int fd;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->label = name;
	if (!strcmp(name, "-")) {
		t->kind = OUT_STDOUT;
		t->label = "standard output";
		if (binary && isatty(STDOUT_FILENO)) {
			err_msg("%s -: standard output is a terminal, and a trace is binary: redirect it (%s - >FILE, | ...)",
				opt, opt);
			return -1;
		}
		t->spool_dir = xstrdup(tmp_dir());
		return 0;
	}
	if (!len) {
		err_msg("%s needs a file name (\"-\": standard output)", opt);
		return -1;
	}
	if (!stat(name, &st)) {
		if (S_ISDIR(st.st_mode)) {
			err_msg("%s %s is a directory: give a file name (%s %s%sFILE)",
				opt, name, opt, name, name[len - 1] == '/' ? "" : "/");
			return -1;
		}
		if (S_ISREG(st.st_mode)) {
			/* opened, not truncated: can it be written at all */
			fd = open(name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (fd < 0) {
				err_msg("cannot write %s (%s): give %s a file you can write",
					name, strerror(errno), opt);
				return -1;
			}
			close(fd);
			t->kind = OUT_FILE;
			real = realpath(name, NULL);
			t->spool_dir = spool_beside(real ? real : name);
			free(real);
			return 0;
		}
		/* a FIFO, a device, a socket: written into at the end */
		if (access(name, W_OK)) {
			err_msg("cannot write %s (%s): give %s a file you can write",
				name, strerror(errno), opt);
			return -1;
		}
		t->kind = OUT_SPECIAL;
		t->spool_dir = xstrdup(tmp_dir());
		return 0;
	}
	if (errno != ENOENT) {
		err_msg("%s %s: %s", opt, name, strerror(errno));
		return -1;
	}
	if (name[len - 1] == '/') {
		err_msg("%s %s names a directory, which does not exist: give a file name",
			opt, name);
		return -1;
	}
	if (!lstat(name, &lst) && S_ISLNK(lst.st_mode)) {
		/* a dangling link: its target is made (as the shell's > does) */
		t->kind = OUT_FILE;
		t->spool_dir = spool_beside(name);
		return 0;
	}
	dir = dir_of(name);
	if (stat(dir, &st)) {
		err_msg("%s %s: the directory %s %s", opt, name, dir,
			errno == ENOENT ? "does not exist: make it first" :
			strerror(errno));
		free(dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		err_msg("%s %s: %s is not a directory", opt, name, dir);
		free(dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		err_msg("cannot make %s (%s): give %s a file in a directory you can write",
			name, strerror(errno), opt);
		free(dir);
		return -1;
	}
	t->kind = OUT_NEW;
	t->spool_dir = realpath(dir, NULL);
	if (!t->spool_dir)
		t->spool_dir = xstrdup(dir);
	free(dir);
	return 0;
}

/* copy_fd - all of @in (from its start) to @out; -1 with errno on failure */
static int copy_fd(int in, int out, bool regular)
{
	static char buf[1 << 16];
	ssize_t n, w, off;

	/* in the kernel where it can (a reflink, or no trip through here) */
	while (regular) {
		n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (n > 0)
			continue;
		if (!n)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP && errno != EBADF)
			return -1;
		/* nothing was copied yet: start over the plain way */
		if (lseek(in, 0, SEEK_CUR) != 0)
			return -1;
		break;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n;
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0) {
				if (!w)
					errno = EIO;
				return -1;
			}
		}
	}
}

/* place_new - @spool becomes @name if nothing is there: 1 done, 0 not */
static int place_new(const char *spool, const char *name)
{
	mode_t mask = umask(0);

	umask(mask);
	/* the mode any new file of this process gets, not the spool's 0600 */
	if (chmod(spool, 0666 & ~mask))
		return 0;
	if (!renameat2(AT_FDCWD, spool, AT_FDCWD, name, RENAME_NOREPLACE))
		return 1;
	if (errno != EINVAL && errno != ENOSYS)
		return 0;
	/* a file system without RENAME_NOREPLACE: link() never replaces */
	if (!link(spool, name)) {
		unlink(spool);
		return 1;
	}
	return 0;
}

int out_commit(struct out_target *t, const char *spool)
{
	bool regular = t->kind == OUT_FILE || t->kind == OUT_NEW;
	struct stat st;
	int in, out, ret = -1, err;

	t->renamed = false;
	if (t->kind == OUT_NEW && place_new(spool, t->name)) {
		t->renamed = true;
		return 0;
	}
	in = open(spool, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		err_msg("cannot read %s back to write %s: %s", spool, t->label,
			strerror(errno));
		return -1;
	}
	if (t->kind == OUT_STDOUT)
		out = STDOUT_FILENO;
	else
		out = open(t->name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY |
			   (regular ? O_TRUNC : 0), 0666);
	if (out < 0) {
		err_msg("cannot write %s: %s", t->label, strerror(errno));
		close(in);
		return -1;
	}
	if (!fstat(out, &st))
		regular = S_ISREG(st.st_mode);
	if (copy_fd(in, out, regular)) {
		err = errno;
		err_msg("cannot write %s: %s", t->label, strerror(err));
	} else if (out != STDOUT_FILENO && close(out)) {
		out = -1;
		err_msg("cannot write %s: %s", t->label, strerror(errno));
	} else {
		ret = 0;
		if (out != STDOUT_FILENO)
			out = -1;
	}
	if (out >= 0 && out != STDOUT_FILENO)
		close(out);
	close(in);
	return ret;
}
