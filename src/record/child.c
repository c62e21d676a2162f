// SPDX-License-Identifier: GPL-2.0
/*
 * The command a recording runs (`record -- CMD`): forked stopped before
 * its exec, so that the events can be opened on its pid with
 * enable_on_exec, then released. It dies with the recorder
 * (PR_SET_PDEATHSIG), and at the end it and everything it started are
 * stopped and reaped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record-int.h"

/* --- the command to run ------------------------------------------------- */

static bool in_path(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *q;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = q + 1) {
		q = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(q - p), p, cmd);
		if (q > p && access(buf, X_OK) == 0)
			return true;
		if (!*q)
			return false;
	}
}

/*
 * Fork CMD stopped before exec: the events are opened on its pid with
 * enable_on_exec, then it is released. It dies with the recorder.
 */
static int child_fork(struct recorder *r, char **argv)
{
	struct record_child *c = &r->child;
	pid_t parent = getpid();
	int go[2], errp[2];
	char x;

	if (!in_path(argv[0])) {
		rec_error(r, "record: %s: command not found (or not executable)",
			 argv[0]);
		return -ENOENT;
	}
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return err;
	}
	if (c->pid == 0) {
		sigset_t none;
		int e, sig;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The recorder died before PDEATHSIG was set (it may be 1). */
		if (getppid() != parent)
			_exit(127);
		close(go[1]);
		close(errp[0]);
		/*
		 * The command gets the signal dispositions it would get from
		 * a shell: main() ignores SIGPIPE, and ignored signals stay
		 * ignored across exec.
		 */
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	c->started = true;
	c->go_fd = go[1];
	c->err_fd = errp[0];
	return 0;
}

/* Let it exec; 0, or the -errno of a failed exec. */
int rec_child__go(struct recorder *r)
{
	struct record_child *c = &r->child;
	char **argv = r->o.cmd;
	ssize_t n;
	int e = 0;

	if (!argv)
		return 0;
	if (write(c->go_fd, "x", 1) != 1) {
		rec_error(r, "record: %s: the command's process died before its exec",
			 argv[0]);
		return -EPIPE;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do {
		n = read(c->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		rec_error(r, "record: %s: %s", argv[0], strerror(e));
		return -e;
	}
	return 0;
}

/*
 * Signal every descendant of the recorder: the command, and whatever it
 * started (the recorder is their subreaper, so even orphans of the
 * command are among them). Returns how many were signalled.
 */
static int signal_descendants(int sig)
{
	pid_t queue[4096];
	unsigned int head = 0, tail = 0;
	char path[64];
	int n = 0;

	queue[tail++] = getpid();
	while (head < tail) {
		pid_t pid = queue[head++];
		struct dirent *de;
		DIR *tasks;

		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		while (tasks && (de = readdir(tasks))) {
			FILE *f;
			int child;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
				 pid, de->d_name);
			f = fopen(path, "re");
			while (f && fscanf(f, "%d", &child) == 1 &&
			       tail < sizeof(queue) / sizeof(*queue))
				queue[tail++] = child;
			if (f)
				fclose(f);
		}
		if (tasks)
			closedir(tasks);
		if (pid != getpid() && !kill(pid, sig))
			n++;
	}
	return n;
}

/*
 * Reap every exited child without blocking; true when none is left. The
 * command's status is kept when it ended on its own (own), not when our
 * signals ended it.
 */
static bool reap_children(struct record_child *c, bool own)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == c->pid) {
			c->pid = 0;
			if (own)
				c->exit_status = status;
		}
	return pid < 0 && errno == ECHILD;
}

/*
 * Stop the command and everything it started, whatever state they are
 * in: SIGTERM, half a second to exit, then SIGKILL; reap them all.
 */
void rec_child__stop(struct recorder *r)
{
	struct record_child *c = &r->child;
	int i;

	if (!c->started)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (reap_children(c, true))
		return;
	signal_descendants(SIGTERM);
	for (i = 0; i < 50 && !reap_children(c, false); i++)
		usleep(10000);
	for (i = 0; i < 100 && !reap_children(c, false); i++) {
		signal_descendants(SIGKILL);
		usleep(10000);
	}
	c->pid = 0;
}


/*
 * Fork the command, stopped before its exec. Orphans of the command come
 * to this process (its subreaper), to be stopped at the end.
 */
int rec_child__start(struct recorder *r)
{
	int err;

	if (!r->o.cmd)
		return 0;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	err = child_fork(r, r->o.cmd);
	if (err && err != -ENOENT)
		rec_error(r, "record: cannot start %s: %s", r->o.cmd[0],
			  strerror(-err));
	return err;
}

/* Wait up to timeout_ms for the command to exit (it is reaped then). */
void rec_child__settle(struct recorder *r, int timeout_ms)
{
	int i;

	for (i = 0; i < timeout_ms && r->child.pid > 0; i++) {
		if (rec_child__exited(r))
			return;
		usleep(1000);
	}
}

/* Whether the command has exited (it is reaped then). */
bool rec_child__exited(struct recorder *r)
{
	int status;

	if (r->child.pid > 0 &&
	    waitpid(r->child.pid, &status, WNOHANG) == r->child.pid) {
		r->child.pid = 0;
		r->child.exit_status = status;
		return true;
	}
	return false;
}
