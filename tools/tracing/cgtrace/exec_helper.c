// SPDX-License-Identifier: GPL-2.0
/*
 * exec_helper.c - "cgtrace __exec", the command trace-cmd runs for
 * "cgtrace record" and "cgtrace run":
 *
 *   cgtrace __exec STATUS_FD CONTROL_FD CGROUP_DIR|- CWD USER|- -- [CMD...]
 *
 * It tells cgtrace that trace-cmd records (trace-cmd runs its command
 * once the events are on), then runs CMD: inside CGROUP_DIR before CMD's
 * first instruction (run), in the user's directory CWD, as USER
 * (--user), with SIGINT and SIGQUIT unblocked again; sends CMD's exit
 * status back (trace-cmd does not pass it on), and exits only when cgtrace
 * closes CONTROL_FD: trace-cmd stops recording when it exits, and cgtrace
 * first turns tracing off and reads the buffer's counts. Without CMD it
 * waits for that alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgtrace.h"
#include "session.h"

/* send - a message to cgtrace; it may be gone already */
static void send(int fd, int kind, int value)
{
	struct exec_msg m = { kind, value };

	if (write(fd, &m, sizeof(m)) != sizeof(m) && errno != EPIPE)
		err_msg("__exec: cannot reach cgtrace: %s", strerror(errno));
}

/* wait_control - until cgtrace closes the control pipe (or is gone) */
static void wait_control(int fd)
{
	ssize_t n;
	char c;

	do
		n = read(fd, &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* become - the user of --user, as trace-cmd record --user does it */
static int become(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		err_msg("--user: no user named %s", user);
		return -1;
	}
	if (initgroups(user, pw->pw_gid) || setgid(pw->pw_gid) ||
	    setuid(pw->pw_uid)) {
		err_msg("--user %s: %s", user, strerror(errno));
		return -1;
	}
	setenv("HOME", pw->pw_dir, 1);
	setenv("USER", pw->pw_name, 1);
	setenv("LOGNAME", pw->pw_name, 1);
	return 0;
}

/* enter_cgroup - move the caller into a cgroup directory */
static int enter_cgroup(const char *dir)
{
	char *procs = xasprintf("%s/cgroup.procs", dir);
	int fd = open(procs, O_WRONLY | O_CLOEXEC), ret = 0;

	/* "0" moves the writer itself */
	if (fd < 0 || write(fd, "0", 1) != 1) {
		err_msg("cannot enter cgroup %s: %s", dir, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	free(procs);
	return ret;
}

/* run_child - in the child: set up, then become CMD */
static void run_child(int status_fd, const char *cgroup, const char *cwd,
		      const char *user, char **cmd)
{
	sigset_t unblock;
	int err;

	sigemptyset(&unblock);
	sigaddset(&unblock, SIGINT);
	sigaddset(&unblock, SIGQUIT);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (strcmp(cgroup, "-")) {
		if (enter_cgroup(cgroup))
			_exit(EXIT_TRACE);
		/* so that cgtrace notes its cgroup at once */
		send(status_fd, EXEC_ENTERED, getpid());
	}
	if (chdir(cwd))
		err_msg("warning: %s runs in %s: cannot change to %s: %s",
			cmd[0], getcwd(NULL, 0), cwd, strerror(errno));
	if (strcmp(user, "-") && become(user))
		_exit(EXIT_TRACE);
	execvp(cmd[0], cmd);
	err = errno;
	send(status_fd, EXEC_FAILED, err);
	err_msg("cannot run %s: %s", cmd[0], strerror(err));
	_exit(err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int cmd_exec_helper(int argc, char **argv)
{
	int status_fd, control_fd, status, code;
	pid_t pid;

	if (argc < 7 || strcmp(argv[6], "--")) {
		err_msg("__exec is internal to cgtrace record and run");
		return EXIT_USAGE;
	}
	status_fd = atoi(argv[1]);
	control_fd = atoi(argv[2]);
	/* CMD inherits neither */
	fcntl(status_fd, F_SETFD, FD_CLOEXEC);
	fcntl(control_fd, F_SETFD, FD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	send(status_fd, EXEC_STARTED, getpid());
	if (argc == 7) {
		/* no command: cgtrace says when (SIGTERM is for cgtrace too) */
		signal(SIGTERM, SIG_IGN);
		wait_control(control_fd);
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		send(status_fd, EXEC_FAILED, errno);
		wait_control(control_fd);
		return EXIT_TRACE;
	}
	if (!pid)
		run_child(status_fd, argv[3], argv[4], argv[5], argv + 7);
	/*
	 * like system(): a Ctrl-C is for the command (SIGINT stays blocked
	 * here), we report its end; a SIGTERM from cgtrace is passed on
	 */
	child = pid;
	signal(SIGTERM, forward);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return EXIT_TRACE;
		}
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	send(status_fd, EXEC_STATUS, code);
	wait_control(control_fd);
	return code;
}
