// SPDX-License-Identifier: GPL-2.0
/*
 * record_cli.c - the command line of "cgtrace record" and "cgtrace run"
 *
 * Every option of trace-cmd record keeps its letter and meaning: the ones
 * cgtrace must act on itself are its own (-e -p -o -N -B -P -c -q --user),
 * the others go to trace-cmd record as they are, in the order given (an
 * -f filters the -e before it there). The ones that would undo what
 * cgtrace does are refused with the reason. -G is perf's cgroup option;
 * trace-cmd's -G only serves --profile.
 */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtrace.h"
#include "session.h"
#include "output.h"

/* cgtrace's own options that have no letter */
enum {
	OPT_PROGRESS = 1000,
	OPT_NAME,
	OPT_PARENT,
	OPT_USER,
	OPT_TRACE_CMD,
	OPT_PASS = 1100,	/* + index in pass_opts */
	OPT_REFUSE = 1200,	/* + index in refused_opts */
};

/* A trace-cmd record option cgtrace passes through as it is. */
struct pass_opt {
	const char	*name;		/* long name, or NULL */
	char		letter;		/* short letter, or 0 */
	int		has_arg;
	bool		events;		/* it chooses events: no defaults */
	const char	*arg;		/* the argument's name in the usage */
	const char	*help;
};

/* trace-cmd 3.1.6's record options, less cgtrace's own and the refused */
static const struct pass_opt pass_opts[] = {
	{ NULL, 'a', no_argument, true, NULL, "record all events" },
	{ NULL, 'b', required_argument, false, "KB", "ring buffer size per CPU" },
	{ NULL, 'C', required_argument, false, "CLOCK", "trace clock (trace-cmd list -C)" },
	{ NULL, 'd', no_argument, false, NULL, "disable the function tracer while recording" },
	{ NULL, 'D', no_argument, false, NULL, "disable it for all users" },
	{ NULL, 'f', required_argument, false, "FILTER", "filter of the -e before it" },
	{ NULL, 'g', required_argument, false, "FUNC", "function_graph: graph FUNC" },
	{ NULL, 'H', required_argument, true, "HOOK", "an event hook" },
	{ NULL, 'i', no_argument, false, NULL, "an event not found is no error" },
	{ NULL, 'k', no_argument, false, NULL, "keep the buffers and settings after" },
	{ NULL, 'l', required_argument, false, "FUNC", "function tracer: only FUNC" },
	{ NULL, 'm', required_argument, false, "KB", "at most KB per CPU in the file" },
	{ NULL, 'M', required_argument, false, "MASK", "record only the CPUs of MASK" },
	{ NULL, 'n', required_argument, false, "FUNC", "function tracer: not FUNC" },
	{ NULL, 'O', required_argument, false, "OPTION", "a trace option (options/)" },
	{ NULL, 'r', required_argument, false, "PRIO", "real-time priority of the readers" },
	{ NULL, 'R', required_argument, false, "TRIGGER", "trigger of the -e before it" },
	{ NULL, 's', required_argument, false, "USECS", "sleep between reads" },
	{ NULL, 'S', no_argument, false, NULL, "with --profile: only the -e events" },
	{ NULL, 't', no_argument, false, NULL, "with -N: TCP instead of UDP" },
	{ NULL, 'T', no_argument, false, NULL, "a stack trace on every event" },
	{ NULL, 'v', no_argument, false, NULL, "negate the -e and -B after it" },
	{ "by-comm", 0, no_argument, false, NULL, "with --profile: merge related comms" },
	{ "cmdlines-size", 0, required_argument, false, "N", "saved_cmdlines_size" },
	{ "compression", 0, required_argument, false, "ALGO", "compress the file" },
	{ "date", 0, no_argument, false, NULL, "wall-clock time offset in the file" },
	{ "debug", 0, no_argument, false, NULL, "trace-cmd's debug output" },
	{ "file-version", 0, required_argument, false, "N", "trace.dat version" },
	{ "func-stack", 0, no_argument, false, NULL, "function tracer: stack traces" },
	{ "max-graph-depth", 0, required_argument, false, "N", "function_graph depth" },
	{ "module", 0, required_argument, false, "MODULE", "functions of MODULE only" },
	{ "no-filter", 0, no_argument, false, NULL, "record trace-cmd's own threads" },
	{ "nofifos", 0, no_argument, false, NULL, "no FIFOs between the readers" },
	{ "nosplice", 0, no_argument, false, NULL, "read without splice" },
	{ "notimeout", 0, no_argument, false, NULL, "no timeout for the -N handshake" },
	{ "poll", 0, no_argument, false, NULL, "do not block on the buffer" },
	{ "proc-map", 0, no_argument, false, NULL, "save the address maps of the tasks" },
	{ "profile", 0, no_argument, true, NULL, "events for trace-cmd report --profile" },
	{ "stderr", 0, no_argument, false, NULL, "trace-cmd's output to stderr" },
	{ "ts-offset", 0, required_argument, false, "NS", "add NS to the timestamps" },
	{ "tsc2nsec", 0, no_argument, false, NULL, "TSC clock to nanoseconds" },
	{ "tsync-interval", 0, required_argument, false, "MS", "guest time sync interval" },
	{ "verbose", 0, optional_argument, false, "[=LEVEL]", "trace-cmd's log level" },
	{ NULL },
};

/* A trace-cmd record option that would undo what cgtrace does. */
struct refused_opt {
	const char	*name;
	char		letter;
	int		has_arg;
	const char	*why;
};

static const struct refused_opt refused_opts[] = {
	{ NULL, 'F', no_argument,
	  "-F filters by the command's pid: \"cgtrace run -- COMMAND\" records a command and all it starts" },
	{ NULL, 'A', required_argument,
	  "-A records a guest's agent: run cgtrace inside the guest and send its trace with -N" },
	{ NULL, 'V', required_argument,
	  "-V sends over vsock: cgtrace sends with -N HOST:PORT" },
	{ "proxy", 0, required_argument,
	  "--proxy records a guest's agent: run cgtrace inside the guest and send its trace with -N" },
	{ "temp", 0, required_argument,
	  "--temp: cgtrace keeps trace-cmd's temporary files in a directory of its own beside the output" },
	{ "fork", 0, no_argument,
	  "--fork: cgtrace waits for trace-cmd to read the trace back and restore the instance; put cgtrace itself in the background" },
	{ NULL },
};

/* cgtrace's own options of record; run's differ in G X P c name parent */
#define COMMON_LONG_OPTIONS					\
	{ "event",	required_argument, NULL, 'e' },		\
	{ "plugin",	required_argument, NULL, 'p' },		\
	{ "output",	required_argument, NULL, 'o' },		\
	{ "net",	required_argument, NULL, 'N' },		\
	{ "instance",	required_argument, NULL, 'B' },		\
	{ "quiet",	no_argument,	   NULL, 'q' },		\
	{ "user",	required_argument, NULL, OPT_USER },	\
	{ "progress",	required_argument, NULL, OPT_PROGRESS },	\
	{ "trace-cmd",	required_argument, NULL, OPT_TRACE_CMD },	\
	{ "help",	no_argument,	   NULL, 'h' }

static const struct option record_own[] = {
	{ "cgroup",		required_argument, NULL, 'G' },
	{ "notrace-cgroup",	required_argument, NULL, 'X' },
	{ "pid",		required_argument, NULL, 'P' },
	COMMON_LONG_OPTIONS,
	{ NULL },
};

static const struct option run_own[] = {
	{ "name",	required_argument, NULL, OPT_NAME },
	{ "parent",	required_argument, NULL, OPT_PARENT },
	COMMON_LONG_OPTIONS,
	{ NULL },
};

#define OWN_SHORT_RECORD	"G:X:P:ce:p:o:N:B:qh"
#define OWN_SHORT_RUN		"e:p:o:N:B:qh"

/* all_options - @own, then every passed and refused long option */
static struct option *all_options(const struct option *own)
{
	static struct option *made[2];
	struct option *o;
	int n = 0, i, k;

	k = own == run_own;
	if (made[k])
		return made[k];
	while (own[n].name)
		n++;
	o = xzalloc((n + 2 * (sizeof(pass_opts) / sizeof(*pass_opts)) + 1) *
		    sizeof(*o));
	memcpy(o, own, n * sizeof(*o));
	for (i = 0; pass_opts[i].help; i++)
		if (pass_opts[i].name)
			o[n++] = (struct option){ pass_opts[i].name,
				pass_opts[i].has_arg, NULL, OPT_PASS + i };
	for (i = 0; refused_opts[i].why; i++)
		if (refused_opts[i].name)
			o[n++] = (struct option){ refused_opts[i].name,
				refused_opts[i].has_arg, NULL, OPT_REFUSE + i };
	made[k] = o;
	return o;
}

const struct option *record_long_options(void)
{
	return all_options(record_own);
}

const struct option *run_long_options(void)
{
	return all_options(run_own);
}

/* short_options - @own's letters, then every passed and refused letter */
static const char *short_options(const char *own)
{
	static char s[2][160];
	int k = !strcmp(own, OWN_SHORT_RUN), n, i;

	if (s[k][0])
		return s[k];
	n = snprintf(s[k], sizeof(s[k]), "+%s", own);
	for (i = 0; pass_opts[i].help; i++) {
		if (!pass_opts[i].letter)
			continue;
		s[k][n++] = pass_opts[i].letter;
		if (pass_opts[i].has_arg == required_argument)
			s[k][n++] = ':';
	}
	for (i = 0; refused_opts[i].why; i++) {
		if (!refused_opts[i].letter)
			continue;
		s[k][n++] = refused_opts[i].letter;
		if (refused_opts[i].has_arg == required_argument)
			s[k][n++] = ':';
	}
	s[k][n] = '\0';
	return s[k];
}

/* the pass_opts or refused_opts index of a short letter, or -1 */
static int letter_index(int c, bool refused)
{
	int i;

	for (i = 0; refused ? !!refused_opts[i].why : !!pass_opts[i].help; i++)
		if ((refused ? refused_opts[i].letter : pass_opts[i].letter) == c)
			return i;
	return -1;
}

/*
 * Options after a second -B apply to that buffer, as in trace-cmd: only
 * events and a tracer chosen before it are the recorded instance's.
 */
static bool other_buffer;

/* pass - an option to trace-cmd record as the user wrote it */
static void pass(struct rec_session *s, const struct pass_opt *p,
		 const char *arg)
{
	char *word;

	if (p->name) {
		word = arg ? xasprintf("--%s=%s", p->name, arg) :
			     xasprintf("--%s", p->name);
		str_list_add(&s->tc_args, word);
		free(word);
	} else {
		word = xasprintf("-%c", p->letter);
		str_list_add(&s->tc_args, word);
		free(word);
		if (arg)
			str_list_add(&s->tc_args, arg);
	}
	if (p->events && !other_buffer)
		s->events_given = true;
}

/*
 * rec_parse - parse the options of record (@run false) or run into @s;
 * returns the index of COMMAND in argv (argc when none), -1 for a usage
 * error (after a message), -2 for --help. run's --name and --parent come
 * back through @name and @parent.
 */
int rec_parse(struct rec_session *s, int argc, char **argv, bool run,
	      const char **name, const char **parent)
{
	const struct option *longopts = run ? run_long_options() :
				       record_long_options();
	const char *shortopts = short_options(run ? OWN_SHORT_RUN :
					      OWN_SHORT_RECORD);
	char *end;
	long n;
	int c, i;

	optind = 1;
	opterr = 0;
	other_buffer = false;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'G':
			str_list_add(&s->cgroups, optarg);
			break;
		case 'X':
			str_list_add(&s->notrace, optarg);
			break;
		case 'P':
			n = strtol(optarg, &end, 10);
			if (*end || n <= 0 || n > 4194304) {
				err_msg("-P takes a process id, not '%s'", optarg);
				return -1;
			}
			str_list_add(&s->pids, optarg);
			break;
		case 'c':
			s->children = true;
			break;
		case 'e':
			str_list_add(&s->tc_args, "-e");
			str_list_add(&s->tc_args, optarg);
			s->events_given |= !other_buffer;
			break;
		case 'p':
			str_list_add(&s->tc_args, "-p");
			str_list_add(&s->tc_args, optarg);
			if (!other_buffer)
				s->tracer = optarg;
			break;
		case 'o':
			s->output = optarg;
			break;
		case 'N':
			if (!strchr(optarg, ':')) {
				err_msg("-N takes HOST:PORT, where \"trace-cmd listen -p PORT\" runs");
				return -1;
			}
			s->net = optarg;
			break;
		case 'B':
			/* the first is ours; another starts an unfiltered buffer */
			if (!s->instance) {
				s->instance = optarg;
			} else {
				str_list_add(&s->tc_args, "-B");
				str_list_add(&s->tc_args, optarg);
				other_buffer = true;
			}
			break;
		case 'q':
			s->quiet = true;
			break;
		case OPT_USER:
			if (!getpwnam(optarg)) {
				err_msg("--user: no user named %s", optarg);
				return -1;
			}
			s->user = optarg;
			break;
		case OPT_PROGRESS:
			n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 86400) {
				err_msg("--progress takes seconds between status lines (0: none), not '%s'",
					optarg);
				return -1;
			}
			s->progress = n;
			break;
		case OPT_TRACE_CMD:
			str_list_add(&s->tc_args, optarg);
			break;
		case OPT_NAME:
			if (!*optarg || strchr(optarg, '/') ||
			    !strcmp(optarg, ".") || !strcmp(optarg, "..")) {
				err_msg("--name takes a cgroup name, not a path (--parent says where)");
				return -1;
			}
			*name = optarg;
			break;
		case OPT_PARENT:
			*parent = optarg;
			break;
		case 'h':
			return -2;
		case '?':
			if (run && ((optopt && strchr("GXPc", optopt)) ||
				    !strncmp(argv[optind - 1], "--cgroup", 8) ||
				    !strncmp(argv[optind - 1], "--notrace-cgroup", 16) ||
				    !strncmp(argv[optind - 1], "--pid", 5)))
				err_msg("run: %s is record's: run traces the cgroup it makes for COMMAND\n"
					"         (--name names it, --parent says where)",
					argv[optind - 1]);
			else if (optopt >= 256 ||
				 (optopt && strchr(shortopts + 1, optopt)))
				err_msg("option %s needs an argument", argv[optind - 1]);
			else if (optopt)
				err_msg("unknown option -%c (neither cgtrace's nor trace-cmd record's)",
					optopt);
			else
				err_msg("unknown option %s (neither cgtrace's nor trace-cmd record's)",
					argv[optind - 1]);
			return -1;
		default:
			if (c >= OPT_REFUSE) {
				err_msg("%s", refused_opts[c - OPT_REFUSE].why);
				return -1;
			}
			if (c >= OPT_PASS) {
				pass(s, &pass_opts[c - OPT_PASS], optarg);
				break;
			}
			i = letter_index(c, true);
			if (i >= 0) {
				err_msg("%s", refused_opts[i].why);
				return -1;
			}
			i = letter_index(c, false);
			if (i < 0)
				return -1;
			pass(s, &pass_opts[i], optarg);
			break;
		}
	}
	return optind;
}

/*
 * rec_check_output - what -o names, said before anything is made (a
 * directory is refused); nothing to check with -N
 */
int rec_check_output(struct rec_session *s)
{
	if (s->net || s->out_checked)
		return 0;
	if (out_check(&s->out, s->output, "-o", true))
		return -1;
	s->out_checked = true;
	return 0;
}

/* rec_usage_common - the options record and run share, and trace-cmd's */
void rec_usage_common(FILE *f, bool run)
{
	char opt[40];
	int i;

	fprintf(f,
"  -o, --output FILE        where to write the trace.dat (default: trace.dat):\n"
"                           a file, a link's target, a FIFO, a device, or \"-\"\n"
"                           for standard output (COMMAND's goes to stderr\n"
"                           then). Made whole beside FILE (or in $TMPDIR)\n"
"                           first, read back, then written into FILE, never\n"
"                           replacing it; a directory is refused\n"
"  -N, --net HOST:PORT      send the trace to \"trace-cmd listen -p PORT\" on\n"
"                           HOST instead\n"
"  -B, --instance NAME      the instance to filter and record (default: a new\n"
"                           cgtrace-PID, removed at the end; \"top\": the\n"
"                           top-level buffer). One that exists is kept, and\n"
"                           what cgtrace wrote there restored. A second -B\n"
"                           starts another buffer, unfiltered, as in trace-cmd\n"
"  -e, --event EVENT        an event (sched:sched_switch, sched, user_markers);\n"
"                           repeatable. Default: the sched switch, wakeup and\n"
"                           process events, and user_markers when the kernel\n"
"                           has them (an -e after a second -B is that buffer's)\n"
"  -p, --plugin TRACER      a tracer (function, function_graph); with a\n"
"                           function tracer the set_ftrace_* files filter too\n"
"      --user USER          run COMMAND as USER (after it joined its cgroup)\n"
"  -q, --quiet              no status line and no summary (errors are printed)\n"
"      --progress S         a status line every S seconds on stderr (0: none;\n"
"                           default 5 on a terminal, else 30)\n"
"      --trace-cmd ARG      pass ARG to trace-cmd record as it is, one word a\n"
"                           time: an option of a newer trace-cmd\n"
"  -h, --help               this text\n"
"\n"
"trace-cmd record's own options go to it as they are, in their order (see\n"
"trace-cmd-record(1)):\n");
	for (i = 0; pass_opts[i].help; i++) {
		if (pass_opts[i].letter)
			snprintf(opt, sizeof(opt), "-%c%s%s", pass_opts[i].letter,
				 pass_opts[i].arg ? " " : "",
				 pass_opts[i].arg ? pass_opts[i].arg : "");
		else
			snprintf(opt, sizeof(opt), "--%s%s%s", pass_opts[i].name,
				 pass_opts[i].arg && pass_opts[i].arg[0] != '[' ? " " : "",
				 pass_opts[i].arg ? pass_opts[i].arg : "");
		fprintf(f, "  %-23s  %s\n", opt, pass_opts[i].help);
	}
	fprintf(f, "\nrefused, as they would undo what cgtrace does:");
	for (i = 0; refused_opts[i].why; i++) {
		if (refused_opts[i].letter)
			fprintf(f, " -%c", refused_opts[i].letter);
		else
			fprintf(f, " --%s", refused_opts[i].name);
	}
	fprintf(f, "%s\n", run ? "," : "");
	if (run)
		fprintf(f, "and record's -G, -X, -P and -c (run traces the cgroup it makes)\n");
	fprintf(f,
"\n"
"exit status: %s;\n"
"125 when the recording failed (the message says why, and with which status\n"
"the command exited if it ran); 126 or 127 when COMMAND cannot be executed or\n"
"is not found; 129 for a usage error.\n",
		run ? "COMMAND's own (128+N when signal N ended it)" :
		      "COMMAND's own (128+N when signal N ended it), or 0 without");
}

void record_usage(FILE *f)
{
	fprintf(f,
"usage: cgtrace record [OPTIONS] [-- COMMAND [ARGS...]]\n"
"\n"
"Record the tasks of the given cgroups, and of the cgroups below them, into\n"
"a trace.dat (without -G or -P: every task, and cgtrace says so). cgtrace\n"
"makes a tracing instance, writes its set_event_cgroup (and\n"
"set_ftrace_cgroup for a function tracer) before any event is enabled, and\n"
"runs \"trace-cmd record -B INSTANCE\" on it. With COMMAND, trace-cmd\n"
"runs it and the recording stops when it exits; without, at SIGINT (Ctrl-C)\n"
"or SIGTERM, or when every -P process has exited.\n"
"\n"
"cgtrace's options:\n"
"  -G, --cgroup CG          record only the tasks of cgroup CG and of the\n"
"                           cgroups below it; repeatable. CG is a cgroup path\n"
"                           (/system.slice/nginx.service), a directory of the\n"
"                           cgroup2 mount, id:N (its inode), pid:PID (that\n"
"                           process's cgroup), a systemd unit (nginx.service:\n"
"                           systemd is asked) or a container id (12 to 64 hex\n"
"                           digits). perf's letter: trace-cmd's -G serves only\n"
"                           --profile, and is not available here\n"
"  -X, --notrace-cgroup CG  never record the tasks of CG (wins over -G)\n"
"  -P, --pid PID            record only this process (set_event_pid);\n"
"                           repeatable\n"
"  -c                       and the children of the -P processes\n"
"                           (options/event-fork)\n");
	rec_usage_common(f, false);
	fprintf(f, "\nexample: cgtrace record -G nginx.service -e syscalls -o ng.dat\n");
}

int cmd_record(int argc, char **argv)
{
	struct rec_session s = { .output = "trace.dat", .progress = -1 };
	const char *name = NULL, *parent = NULL;
	int i, ret;

	i = rec_parse(&s, argc, argv, false, &name, &parent);
	if (i == -2) {
		record_usage(stdout);
		return 0;
	}
	if (i < 0) {
		fprintf(stderr, "(cgtrace record --help lists the options)\n");
		return EXIT_USAGE;
	}
	if (i < argc)
		s.cmd = argv + i;
	if (s.children && !s.pids.n) {
		err_msg("-c follows the children of the -P processes: give -P (a cgroup's children are in it)");
		return EXIT_USAGE;
	}
	if (s.user && !s.cmd) {
		err_msg("--user runs COMMAND as a user: give a command after --");
		return EXIT_USAGE;
	}
	ret = record_session(&s);
	ret = session_status(&s, ret);
	str_list_free(&s.cgroups);
	str_list_free(&s.notrace);
	str_list_free(&s.pids);
	str_list_free(&s.tc_args);
	out_free(&s.out);
	return ret;
}
