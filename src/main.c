// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze: measure what cgroup statistics cost.
 *
 * The command table, as bpftool and perf keep theirs: each subcommand
 * parses its own options (by its table, parse-options.h) and returns
 * the exit status.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
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
	  "gnuplot charts: latency, CDFs, attribution, holds, breakdowns" },
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
	/*
	 * PID 1 with our argv file: /init of a VM that vm__run() made. Its
	 * console is a terminal, but each command's output goes to a file
	 * it brings back, byte for byte as on the host.
	 */
	if (getpid() == 1 && access(VM_GUEST_ARGV_FILE, R_OK) == 0)
		vm_guest__main(run_command);
	/*
	 * On a terminal, what input files name is shown, not obeyed: a
	 * comm or a cgroup's name could carry escape sequences. A pipe or
	 * a file still gets the bytes as they are.
	 */
	if (isatty(STDOUT_FILENO)) {
		FILE *term = term_stream(STDOUT_FILENO);

		if (term)
			stdout = term;
	}
	return run_command(argc, argv);
}
