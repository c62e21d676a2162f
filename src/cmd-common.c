// SPDX-License-Identifier: GPL-2.0
/*
 * What every command (cmd-*.c) says and how it ends (cmds.h): its one
 * error line, its notes, the messages a session queued, the stop signals,
 * and stdout's write errors. Apart from main.c's command table, so that
 * the commands and the table that runs them do not call each other.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "json.h"
#include "session.h"
#include "util.h"

/* The last error, for commands whose JSON output repeats it. */
static char last_error[1024];

/*
 * A message on one line, whatever it quotes: names and text from input
 * files (which travel by mail) may hold line breaks and terminal escape
 * sequences. Control characters are shown as \n, \r or \ooo, C1 controls
 * too (ctl_show()).
 */
static void put_one_line(FILE *out, const char *s)
{
	struct ctl_show st = { 0 };
	char shown[CTL_SHOW_MAX];
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		fwrite(shown, 1, ctl_show(&st, *p, true, shown), out);
	fwrite(shown, 1, ctl_show_end(&st, shown), out);
	fputc('\n', out);
}

void rs_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fputs("rstat-analyze: ", stderr);
	put_one_line(stderr, last_error);
}

void rs_error_json(void)
{
	struct json_writer *jw = json_writer__new(stdout);

	if (!jw)
		return;
	json__object_begin(jw, NULL);
	json__string(jw, "error", last_error);
	json__object_end(jw);
	json_writer__delete(jw);
}

void rs_note(const char *fmt, ...)
{
	char *note;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&note, fmt, ap);
	va_end(ap);
	fputs("rstat-analyze: note: ", stderr);
	put_one_line(stderr, n < 0 ? "(out of memory for a note)" : note);
	if (n >= 0)
		free(note);
}

void rs_on_stop_signals(void (*handler)(int sig))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static volatile sig_atomic_t stop_signal;

static void keep_stop_signal(int sig)
{
	stop_signal = sig;
}

void rs_catch_stop_signals(void)
{
	stop_signal = 0;
	rs_on_stop_signals(keep_stop_signal);
}

int rs_stop_signal(void)
{
	return stop_signal;
}

bool rs_say_session(struct session *s)
{
	bool error, said = false;
	const char *msg;

	while ((msg = session__next_msg(s, &error))) {
		if (error) {
			rs_error("%s", msg);
			said = true;
		} else {
			rs_note("%s", msg);
		}
	}
	return said;
}

int rs_finish_stdout(int status)
{
	int err;

	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	/*
	 * A failed flush sets errno; a write that failed earlier left only
	 * the error flag, and its errno if nothing changed errno since.
	 */
	err = errno;
	/* A reader that went away (head, less) is not our failure. */
	if (err == EPIPE)
		return status;
	if (err)
		fprintf(stderr, "rstat-analyze: error writing output: %s\n",
			strerror(err));
	else
		fputs("rstat-analyze: error writing output\n", stderr);
	return RS_EXIT_FAIL;
}
