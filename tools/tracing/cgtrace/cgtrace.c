// SPDX-License-Identifier: GPL-2.0
/*
 * cgtrace - trace by cgroup with ftrace: the subcommands, help, and the
 * helpers every subcommand shares (messages, allocation, string lists).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"

static const struct subcommand subcommands[] = {
	{ "record", cmd_record, record_usage, record_long_options,
	  "record the tasks of cgroups into a trace.dat" },
	{ "run",    cmd_run,    run_usage,    run_long_options,
	  "run a command in a new cgroup and record it" },
	{ "stat",   cmd_stat,   stat_usage,   stat_long_options,
	  "print the pid and cgroup filters of an instance" },
	{ "reset",  cmd_reset,  reset_usage,  stat_long_options,
	  "clear the pid and cgroup filters of an instance" },
	{ "report", cmd_report, report_usage, report_long_options,
	  "print the marker spans of a trace.dat" },
	{ "export", cmd_export, export_usage, export_long_options,
	  "convert a trace.dat to Chrome trace JSON" },
	{ NULL },
};

/* Names of other tools' habits a user may type, and what cgtrace calls them */
static const struct {
	const char *name, *hint;
} renamed[] = {
	{ "show", "it is \"cgtrace stat\" (as trace-cmd stat)" },
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

static void out_of_memory(void)
{
	err_msg("out of memory");
	exit(EXIT_FAIL);
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	return s;
}

/* str_list_add - append a copy of s */
void str_list_add(struct str_list *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
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

/*
 * opt_error - getopt_long() returned '?' (with opterr 0) for @cmd: name
 * the option that is unknown or lacks its argument, as every cgtrace
 * message does, instead of getopt's own words
 */
void opt_error(const char *cmd, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	const char *word = argv[optind - 1], *p;
	const struct option *o;
	size_t n;

	/*
	 * a long option, named in full or in part, that lacks its argument
	 * or was given one it does not take
	 */
	if (optopt && !strncmp(word, "--", 2)) {
		n = strcspn(word + 2, "=");
		for (o = longopts; o && o->name; o++) {
			if (o->val != optopt || strncmp(o->name, word + 2, n))
				continue;
			if (o->has_arg == required_argument)
				err_msg("%s: option --%s needs an argument",
					cmd, o->name);
			else
				err_msg("%s: option --%s takes no argument",
					cmd, o->name);
			return;
		}
	}
	if (!optopt) {
		n = strcspn(word, "=");
		err_msg("%s: unknown option %.*s", cmd, (int)n, word);
		return;
	}
	p = optopt < 256 ? strchr(shortopts, optopt) : NULL;
	if (p && p[1] == ':')
		err_msg("%s: option -%c needs an argument", cmd, optopt);
	else if (optopt > ' ' && optopt < 127)
		err_msg("%s: unknown option -%c", cmd, optopt);
	else
		err_msg("%s: unknown option %s", cmd, word);
}

/* usage - the list of subcommands */
static void usage(FILE *f)
{
	const struct subcommand *c;

	fprintf(f,
"usage: cgtrace COMMAND [OPTIONS]...\n"
"\n"
"Trace the tasks of chosen cgroups with ftrace (set_event_cgroup), and the\n"
"user-space markers they write, into a trace.dat that trace-cmd and\n"
"KernelShark read.\n"
"\n"
"commands:\n");
	for (c = subcommands; c->name; c++)
		fprintf(f, "  %-7s %s\n", c->name, c->summary);
	fprintf(f,
"  help    print the options of a command (cgtrace help COMMAND)\n"
"\n"
"\"cgtrace COMMAND --help\" and man cgtrace-COMMAND describe a command.\n"
"\n"
"exit status: 0 success; run and record with a command: the command's own\n"
"status; 125 the recording failed; 126/127 the command cannot be executed\n"
"or was not found; 1 stat, reset, report or export failed; 129 usage error.\n");
}

static const struct subcommand *find(const char *name)
{
	const struct subcommand *c;

	for (c = subcommands; c->name; c++)
		if (!strcmp(name, c->name))
			return c;
	return NULL;
}

/*
 * cmd_options - "cgtrace __options COMMAND": the long options of the
 * command's getopt table, one "--name" a line ("--name=" when it takes an
 * argument). The bash completion and the tests read them, so that neither
 * drifts from the parser.
 */
static int cmd_options(int argc, char **argv)
{
	const struct subcommand *c = argc == 2 ? find(argv[1]) : NULL;
	const struct option *o;

	if (!c) {
		err_msg("usage: cgtrace __options COMMAND");
		return EXIT_USAGE;
	}
	for (o = c->long_options(); o->name; o++)
		printf("--%s%s\n", o->name,
		       o->has_arg == required_argument ? "=" : "");
	return 0;
}

/* unknown - an unknown command, with what it is called here if we know */
static int unknown(const char *name)
{
	int i;

	for (i = 0; renamed[i].name; i++)
		if (!strcmp(name, renamed[i].name)) {
			err_msg("unknown command '%s': %s", name, renamed[i].hint);
			return EXIT_USAGE;
		}
	err_msg("unknown command '%s' (cgtrace --help lists them)", name);
	return EXIT_USAGE;
}

/*
 * command - the command argv names; its exit status
 */
static int command(int argc, char **argv)
{
	const struct subcommand *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v")) {
		printf("cgtrace " CGTRACE_VERSION "\n");
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		c = find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		c->usage(stdout);
		return 0;
	}
	/* internal: run by trace-cmd on behalf of "cgtrace record" and "run" */
	if (!strcmp(argv[1], "__exec"))
		return cmd_exec_helper(argc - 1, argv + 1);
	/* internal: the long options of a command, for the bash completion */
	if (!strcmp(argv[1], "__options"))
		return cmd_options(argc - 1, argv + 1);
	c = find(argv[1]);
	if (!c)
		return unknown(argv[1]);
	return c->fn(argc - 1, argv + 1);
}

/*
 * main - the command, then what it printed must have reached standard
 * output: a write error (a full disk, /dev/full, a closed pipe's EPIPE
 * when SIGPIPE is ignored) fails the command with the cause named,
 * instead of exit's silent flush
 */
int main(int argc, char **argv)
{
	int ret = command(argc, argv), err;

	if (!fflush(stdout) && !ferror(stdout))
		return ret;
	err = errno;
	err_msg("cannot write standard output: %s", strerror(err));
	return ret ? ret : EXIT_FAIL;
}
