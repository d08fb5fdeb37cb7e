/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgtrace.h - subcommands and helpers shared by the cgtrace tool
 */
#ifndef CGTRACE_H
#define CGTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CGTRACE_VERSION	"0.2"

/*
 * Exit statuses (cgtrace(1), EXIT STATUS). run and record with a command
 * exit with the command's own status; the statuses below are cgtrace's,
 * chosen as env(1) and timeout(1) (125-127) and perf and git (129) do, so
 * that a script can tell them from a command's usual 1 or 2.
 */
#define EXIT_FAIL	1	/* stat, reset, report, export could not do it */
#define EXIT_TRACE	125	/* record, run: the recording failed */
#define EXIT_NOEXEC	126	/* the command cannot be executed */
#define EXIT_NOTFOUND	127	/* the command was not found */
#define EXIT_USAGE	129	/* a bad option or argument: nothing was done */

struct option;

/* A subcommand: int cmd_NAME(int argc, char **argv), argv[0] is NAME. */
struct subcommand {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	void		(*usage)(FILE *f);
	/* its getopt_long table (cgtrace __options NAME prints it) */
	const struct option *(*long_options)(void);
	const char	*summary;
};

int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_exec_helper(int argc, char **argv);

void record_usage(FILE *f);
void run_usage(FILE *f);
void stat_usage(FILE *f);
void reset_usage(FILE *f);
void report_usage(FILE *f);
void export_usage(FILE *f);

const struct option *record_long_options(void);
const struct option *run_long_options(void);
const struct option *stat_long_options(void);
const struct option *report_long_options(void);
const struct option *export_long_options(void);

/*
 * instance_arg - the instance stat and reset take: -B NAME (as trace-cmd)
 * or a lone NAME, NULL for the top level; 0, -1 usage error, 1 --help
 */
int instance_arg(int argc, char **argv, const char **name);

/* err_msg - print a message prefixed with "cgtrace: " on stderr */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void opt_error(const char *cmd, char **argv, const char *shortopts,
	       const struct option *longopts);
/* debug_msg - the same, only with CGTRACE_DEBUG set in the environment */
void debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that ends the program with a message when memory is out. */
void *xrealloc(void *p, size_t size);
void *xzalloc(size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable list of strings, NULL-terminated (an argv). */
struct str_list {
	char	**v;
	int	n;
};

void str_list_add(struct str_list *l, const char *s);
void str_list_free(struct str_list *l);


#endif
