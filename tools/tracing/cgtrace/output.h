/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - writing a result into what -o or --chrome names (output.c)
 */
#ifndef CGTRACE_OUTPUT_H
#define CGTRACE_OUTPUT_H

#include <stdbool.h>

enum out_kind {
	OUT_NEW,	/* nothing there yet: the spool is renamed to it */
	OUT_FILE,	/* a regular file, or a link to one (or to nothing) */
	OUT_SPECIAL,	/* a FIFO, a device, a socket */
	OUT_STDOUT,	/* "-" */
};

struct out_target {
	const char	*name;		/* as given */
	const char	*label;		/* for messages: name, "standard output" */
	enum out_kind	kind;
	char		*spool_dir;	/* where the result is made first */
	bool		renamed;	/* out_commit() renamed the spool to name */
};

/*
 * out_check - what @name (given with option @opt) is, and whether it can
 * be written, before anything is made; a message and -1 if not. @binary:
 * refuse a terminal for "-".
 */
int out_check(struct out_target *t, const char *name, const char *opt,
	      bool binary);

/*
 * out_commit - put the whole result @spool into the target: renamed when
 * the target does not exist, else copied into it. -1 after a message;
 * @spool is then left as it was.
 */
int out_commit(struct out_target *t, const char *spool);

void out_free(struct out_target *t);

#endif
