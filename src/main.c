// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze: measure what cgroup statistics cost.
 *
 * The command table, as bpftool and perf keep theirs: each subcommand
 * parses its own options (one getopt pass) and returns the exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "json.h"
#include "session.h"
#include "vm.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd commands[] = {
	{ "record", cmd_record,
	  "record samples, rstat tracepoints and probes into a perf.data" },
	{ "report", cmd_report,
	  "which flush spent the cycles, who asked, lock hold times" },
	{ "bench", cmd_bench,
	  "run a published rstat experiment: timed, recorded, repeatable" },
	{ "probe", cmd_probe,
	  "what can be probed: source lines of a function" },
	{ "doctor", cmd_doctor,
	  "what this kernel supports, and what to do where it doesn't" },
	{ "compare", cmd_compare,
	  "before/after tables: mmtests statistics, Welch's t, ministat" },
	{ "diff-folded", cmd_diff_folded,
	  "two profiles as differential input for flamegraph.pl" },
	{ "plot", cmd_plot,
	  "gnuplot charts: latency, CDFs, attribution, lock timeline" },
	{ "top", cmd_top,
	  "flush cost live: flushes, holds, waits, busiest cgroups" },
	{ "watch", cmd_watch,
	  "the same as Prometheus metrics on http://127.0.0.1:19193" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: rstat-analyze [--version] [--help] COMMAND [ARGS]\n"
		"\n"
		"Measure what cgroup statistics (rstat flushes) cost.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\n"
		"`rstat-analyze help COMMAND` (or COMMAND --help) describes a "
		"command;\nthe man pages are rstat-analyze-COMMAND(1).\n");
}

/* The last error, for commands whose JSON output repeats it. */
static char last_error[1024];

/*
 * A message on one line, whatever it quotes: names and text from input
 * files (which travel by mail) may hold line breaks and terminal escape
 * sequences. Control characters are shown as \n, \r or \ooo.
 */
static void put_one_line(FILE *out, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\r')
			fputs("\\r", out);
		else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
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

int rs_bad_option(const char *cmd, int c, const char *opt,
		  void (*usage)(FILE *out))
{
	if (c == ':')
		rs_error("%s: option '%s' needs a value", cmd, opt);
	else
		rs_error("%s: unknown option '%s'", cmd, opt);
	usage(stderr);
	return RS_EXIT_USAGE;
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

static int run_command(int argc, char **argv)
{
	const char *name;
	size_t i;


	if (argc < 2) {
		usage(stderr);
		return RS_EXIT_USAGE;
	}
	name = argv[1];
	/* `help COMMAND` is `COMMAND --help`, as git and perf have it. */
	if (!strcmp(name, "help") && argc > 2) {
		char *help_argv[] = { argv[2], "--help", NULL };

		if (argc > 3) {
			fprintf(stderr,
				"rstat-analyze: help takes one command; see rstat-analyze --help\n");
			return RS_EXIT_USAGE;
		}
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, help_argv);
		fprintf(stderr,
			"rstat-analyze: help: '%s' is not a command; see rstat-analyze --help\n",
			argv[2]);
		return RS_EXIT_USAGE;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		usage(stdout);
		return rs_finish_stdout(RS_EXIT_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("rstat-analyze %s\n%s\n", rs_version(),
		       rs_library_versions());
		return rs_finish_stdout(RS_EXIT_OK);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	if (name[0] == '-')
		fprintf(stderr,
			"rstat-analyze: unknown option '%s'; see rstat-analyze --help\n",
			name);
	else
		fprintf(stderr,
			"rstat-analyze: '%s' is not a command; see rstat-analyze --help\n",
			name);
	return RS_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* Write errors on a closed pipe come back as EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	/* PID 1 with our argv file: /init of a VM that vm__run() made. */
	if (getpid() == 1 && access(VM_GUEST_ARGV_FILE, R_OK) == 0)
		vm_guest__main(run_command);
	return run_command(argc, argv);
}
