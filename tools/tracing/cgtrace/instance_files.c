// SPDX-License-Identifier: GPL-2.0
/*
 * instance_files.c - write the filters of the recorded instance, and put
 * back what an instance cgtrace did not make held before
 *
 * Why this is race free: cgtrace writes the filter files first;
 * "trace-cmd record -B NAME" then reuses the instance (it knows nothing of
 * the cgroup files, so it neither changes nor restores them) and only then
 * enables the events. No event is enabled before its filters are in place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "cgtrace.h"
#include "recorder.h"
#include "tracefs_util.h"

/* is_function_tracer - does this tracer obey set_ftrace_pid/cgroup */
bool is_function_tracer(const char *tracer)
{
	return tracer && !strncmp(tracer, "function", 8);
}

/* note_change - keep what a file held before cgtrace first writes it */
static int note_change(struct recorder *r, const char *file)
{
	int i;

	for (i = 0; i < r->nr_changes; i++)
		if (!strcmp(r->changes[i].file, file))
			return 0;
	if (r->nr_changes == MAX_CHANGES)
		return -1;
	r->changes[r->nr_changes].old = tfs_read(r->inst, file);
	if (!r->changes[r->nr_changes].old) {
		err_msg("cannot read %s of instance %s: %s", file,
			tfs_instance_label(r->inst), strerror(errno));
		return -1;
	}
	r->changes[r->nr_changes].file = file;
	r->changes[r->nr_changes].option = TRACEFS_OPTION_INVALID;
	r->nr_changes++;
	return 0;
}

/* has_line - does @text hold the line @line */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/*
 * restore_list - write a filter list back line by line, each line as the
 * kernel printed it (whatever its form: a path, id:N, an escaped path, a
 * comment on a removed cgroup), then read the file and name each line it
 * did not take back: one that cannot be written back costs only itself
 */
static int restore_list(struct recorder *r, struct change *c)
{
	char *text = xstrdup(c->old), *line, *save, *now;
	int err, bad = 0;

	err = tfs_clear(r->inst, c->file);
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		/* 6.1's empty pid list reads "no pid" */
		if (!strcmp(line, "no pid"))
			continue;
		err = tfs_write(r->inst, c->file, line, false);
		if (err == -EINVAL || err == -ENOENT || err == -ENODEV)
			err = 0;	/* that line, named below */
	}
	free(text);
	now = err ? NULL : tfs_read(r->inst, c->file);
	if (!now) {
		err_msg("cannot restore %s of instance %s: %s", c->file,
			tfs_instance_label(r->inst), strerror(err ? -err : errno));
		return -1;
	}
	text = xstrdup(c->old);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "no pid") || has_line(now, line))
			continue;
		err_msg("cannot restore %s of instance %s: the kernel did not take back its line '%s'",
			c->file, tfs_instance_label(r->inst), line);
		bad = -1;
	}
	free(text);
	free(now);
	return bad;
}

/* restore_file - write back what a file held */
static int restore_file(struct recorder *r, struct change *c)
{
	int err;

	if (c->option != TRACEFS_OPTION_INVALID) {
		/* turned on by us: it was off */
		if (!tracefs_option_disable(r->inst, c->option))
			return 0;
		err_msg("cannot turn options/%s of instance %s off again: %s",
			tracefs_option_name(c->option),
			tfs_instance_label(r->inst), strerror(errno));
		return -1;
	}
	if (!strncmp(c->file, "set_", 4))
		return restore_list(r, c);
	err = tfs_write(r->inst, c->file, c->old, true);
	if (err)
		err_msg("cannot restore %s of instance %s to '%.*s': %s",
			c->file, tfs_instance_label(r->inst),
			(int)strcspn(c->old, "\n"), c->old, strerror(-err));
	return err ? -1 : 0;
}

/*
 * restore_changes - undo every write on an instance that outlives the
 * recording; -1 when something could not be put back (after messages)
 */
int restore_changes(struct recorder *r)
{
	int i, ret = 0;

	for (i = r->nr_changes - 1; i >= 0; i--) {
		if (!r->created && restore_file(r, &r->changes[i]))
			ret = -1;
		free(r->changes[i].old);
		r->changes[i].old = NULL;
	}
	r->nr_changes = 0;
	return ret;
}

/* set_list - note, then replace a filter list */
static int set_list(struct recorder *r, const char *file, char **words, int n,
		    bool pids)
{
	if (tfs_require(r->inst, file) || note_change(r, file))
		return -1;
	if (pids)
		return tfs_set_pids(r->inst, file, words, n);
	return tfs_set_cgroups(r->inst, file, words, n);
}

/* set_option - turn on a trace option libtracefs knows, noting it */
static int set_option(struct recorder *r, enum tracefs_option_id id)
{
	if (!tracefs_option_is_supported(r->inst, id)) {
		err_msg("this kernel has no options/%s", tracefs_option_name(id));
		return -1;
	}
	if (tracefs_option_is_enabled(r->inst, id))
		return 0;
	if (r->nr_changes == MAX_CHANGES)
		return -1;
	if (tracefs_option_enable(r->inst, id)) {
		err_msg("cannot turn on options/%s: %s", tracefs_option_name(id),
			strerror(errno));
		return -1;
	}
	r->changes[r->nr_changes++] = (struct change){
		.file = tracefs_option_name(id), .option = id };
	return 0;
}

/*
 * set_marker_option - turn on options/user_events_prctl (the kernel's
 * own option, which libtracefs's list of options does not know)
 */
static int set_marker_option(struct recorder *r)
{
	const char *file = "options/user_events_prctl";
	char *old = tfs_read(r->inst, file);
	int ret = 0;

	if (!old || atoi(old) != 1)
		ret = note_change(r, file) ||
		      tfs_write(r->inst, file, "1", true) ? -1 : 0;
	free(old);
	return ret;
}

/*
 * set_filters - write every cgroup and pid list of the session, and the
 * options they need
 *
 * The function tracer files are written only for a function tracer, so
 * that a kernel without CONFIG_FUNCTION_TRACER can still filter events.
 * A trace-cmd with "record --cgroup" is handed the cgroup lists instead
 * (r->tc_cgroups, trace_cmd_argv()), unless a function tracer records:
 * then the notes writer's cgroup must stay out of set_ftrace_cgroup, which
 * trace-cmd's --cgroup also writes.
 */
int set_filters(struct recorder *r)
{
	struct rec_session *s = r->s;
	bool ftrace = is_function_tracer(s->tracer);
	struct str_list *cg = &r->cg_words, *nt = &r->nt_words;

	r->tc_cgroups = !ftrace && (cg->n || nt->n) &&
			trace_cmd_filters_cgroups();
	if (r->tc_cgroups)
		goto pids;
	if (cg->n &&
	    (set_list(r, "set_event_cgroup", cg->v, cg->n, false) ||
	     /* the notes' writer is for events only (its trace_marker) */
	     (ftrace && set_list(r, "set_ftrace_cgroup", cg->v,
				 cg->n - !!r->writer_cg, false))))
		return -1;
	if (nt->n &&
	    (set_list(r, "set_event_notrace_cgroup", nt->v, nt->n, false) ||
	     (ftrace && set_list(r, "set_ftrace_notrace_cgroup", nt->v, nt->n,
				 false))))
		return -1;
pids:
	if (s->pids.n &&
	    (set_list(r, "set_event_pid", s->pids.v, s->pids.n, true) ||
	     (ftrace && set_list(r, "set_ftrace_pid", s->pids.v, s->pids.n,
				 true))))
		return -1;
	/* -c: the children of the listed pids join the lists */
	if (s->children &&
	    (set_option(r, TRACEFS_OPTION_EVENT_FORK) ||
	     (ftrace && set_option(r, TRACEFS_OPTION_FUNCTION_FORK))))
		return -1;
	/* markers written with prctl() reach only instances that opt in */
	if (tfs_has(r->inst, "options/user_events_prctl") &&
	    set_marker_option(r))
		err_msg("warning: cannot turn on options/user_events_prctl: markers written with prctl() are not recorded");
	return 0;
}

/*
 * note_kept_filters - an instance that existed may filter already: say
 * which of its lists stay as they are (they apply to this recording)
 */
void note_kept_filters(struct recorder *r)
{
	char *text, *p;
	int i, k;

	for (k = 0; k < 8; k++) {
		const char *file = k < 4 ? tfs_pid_files[k] : tfs_cgroup_files[k - 4];

		for (i = 0; i < r->nr_changes; i++)
			if (!strcmp(r->changes[i].file, file))
				break;
		if (i < r->nr_changes || !tfs_has(r->inst, file))
			continue;
		text = tfs_read(r->inst, file);
		if (text && *text && strcmp(text, "no pid\n")) {
			for (p = text; (p = strchr(p, '\n')); )
				*p = p[1] ? ' ' : '\0';
			fprintf(stderr, "cgtrace: note: %s keeps its %s: %s\n",
				tfs_instance_label(r->inst), file, text);
		}
		free(text);
	}
}
