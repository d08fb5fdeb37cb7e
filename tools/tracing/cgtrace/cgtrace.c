// SPDX-License-Identifier: GPL-2.0
/*
 * cgtrace - trace by cgroup with ftrace: record, run, show, reset,
 * report and export subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"

struct subcommand {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*summary;
};

static const struct subcommand subcommands[] = {
	{ "record", cmd_record, "record the tasks of cgroups into a trace.dat" },
	{ "run",    cmd_run,    "run a command in a new cgroup and trace it" },
	{ "show",   cmd_show,   "print the pid and cgroup filters of an instance" },
	{ "reset",  cmd_reset,  "clear the pid and cgroup filters of an instance" },
	{ "report", cmd_report, "print the marker spans of a trace.dat" },
	{ "export", cmd_export, "convert a trace.dat (e.g. to Chrome JSON)" },
	/* internal: run by trace-cmd on behalf of "cgtrace record" and "run" */
	{ "__exec", cmd_exec_helper, NULL },
	{ NULL },
};

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("cgtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("CGTRACE_DEBUG"))
		return;
	fputs("cgtrace: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* str_list_add - append a copy of s; out of memory ends the program */
void str_list_add(struct str_list *l, const char *s)
{
	l->v = realloc(l->v, (l->n + 2) * sizeof(*l->v));
	if (l->v)
		l->v[l->n] = strdup(s);
	if (!l->v || !l->v[l->n]) {
		err_msg("out of memory");
		exit(1);
	}
	l->v[++l->n] = NULL;
}

/* str_list_free - free the copies and the list */
void str_list_free(struct str_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* usage - the list of subcommands */
static void usage(FILE *f)
{
	const struct subcommand *c;

	fprintf(f, "cgtrace version " CGTRACE_VERSION "\n\n"
		"  usage: cgtrace COMMAND [OPTIONS] ...\n\n"
		"  Trace the tasks of chosen cgroups with ftrace (set_event_cgroup)\n"
		"  and the user-space markers they write.\n\n"
		"  commands:\n");
	for (c = subcommands; c->name; c++)
		if (c->summary)
			fprintf(f, "     %-7s - %s\n", c->name, c->summary);
	fprintf(f, "\n  \"cgtrace COMMAND --help\" describes a command.\n"
		"\n  exit status: 0 success, 1 error, 2 usage error; \"run\" exits with\n"
		"  its command's status, \"record\" with trace-cmd's.\n");
}

int main(int argc, char **argv)
{
	const struct subcommand *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("cgtrace " CGTRACE_VERSION "\n");
		return 0;
	}
	for (c = subcommands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	err_msg("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
