// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze top: rstat flush cost live, like biotop or perf top. The
 * recorder's BPF programs stay attached (include/live.h) and every
 * interval the difference of two snapshots is printed: a redrawn screen
 * on a terminal, else one timestamped block per interval.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "live-out.h"
#include "live.h"
#include "util.h"
#include "vm.h"

static volatile sig_atomic_t top_stop;

static void top_on_signal(int sig)
{
	top_stop = sig;
}

static const char top_usage_text[] =
	"usage: rstat-analyze top [-i SECONDS] [-d SECONDS] [-s KEY] [-n ROWS]\n"
	"                         [--batch] [--cgroup PATH]... [--no-stacks]\n"
	"                         [--kernel IMAGE -d SECONDS [VM options]]\n";

static void top_usage(FILE *out)
{
	fputs(top_usage_text, out);
}

static void top_help(void)
{
	top_usage(stdout);
	fputs("\n"
	      "Show what rstat flushes cost on this machine, live: every interval\n"
	      "the flushes by subsystem and by what asked for them, the flush time\n"
	      "per second, lock hold and wait p50/p99, contended and yielded locks,\n"
	      "memcg flushes requested/performed/skipped and the busiest cgroups.\n"
	      "Timed in the kernel by the BPF programs `record --spans bpf` uses;\n"
	      "needs root. On a terminal the screen is redrawn; otherwise (or with\n"
	      "--batch) one block per interval is printed, a '# time=...' line then\n"
	      "'KIND key=value...' lines. Ctrl-C (or -d) stops and detaches.\n"
	      "\n"
	      "Options:\n"
	      "  -i, --interval SECONDS  time between updates (default 1)\n"
	      "  -d, --duration SECONDS  stop after this long (default: until Ctrl-C)\n"
	      "  -s, --sort KEY          subsystem rows by flushes (default), time,\n"
	      "                          holds, hold-p99 or waits\n"
	      "  -n, --rows N            busiest cgroups shown (default 10, at most 32)\n"
	      "  -b, --batch             one block per interval even on a terminal\n"
	      "      --cgroup PATH       only flushes of this cgroup (repeatable)\n"
	      "      --no-stacks         no kernel stacks: cheaper, subsystems unknown\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "With --kernel (and -d), the same blocks from inside a throwaway VM\n"
	      "booted from that kernel image, printed when it ends.\n"
	      "\n"
	      VM_HELP_TEXT, stdout);
}

enum { OPT_CGROUP = 256, OPT_NO_STACKS };

/* A positive number of seconds, at most a day. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0.01 ||
	    v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Sleep until the monotonic time t, or a stop signal. */
static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (!top_stop &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static double wall_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static const struct option top_long_options[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "sort", required_argument, NULL, 's' },
	{ "rows", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "no-stacks", no_argument, NULL, OPT_NO_STACKS },
	{ "help", no_argument, NULL, 'h' },
	VM_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/*
 * top on another kernel: the same command in a throwaway VM, with -d so
 * that it ends; its blocks (not a terminal there) printed afterwards.
 */
static int top_in_vm(const struct vm_opts *vm, size_t nr_ids,
		     double duration, int argc, char **argv)
{
	struct vm_result *res;
	char **gargv;
	int gargc, status;

	if (vm->nkernels > 1) {
		rs_error("top: one --kernel at a time");
		top_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (duration <= 0) {
		rs_error("top: --kernel needs -d SECONDS (the guest's blocks are printed when it ends)");
		top_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (nr_ids) {
		rs_error("top: --cgroup names this machine's cgroups, not the guest's; drop it with --kernel");
		top_usage(stderr);
		return RS_EXIT_USAGE;
	}
	gargv = vm_guest_argv(argc, argv, optind, top_long_options, NULL,
			      &gargc);
	if (!gargv) {
		rs_error("top: out of memory");
		return RS_EXIT_FAIL;
	}
	status = vm_cmd__run("top", vm, vm->kernels[0], gargc, gargv, NULL,
			     NULL, &res);
	free(gargv);
	if (status)
		return status;
	status = vm_cmd__print_output(res);
	vm_result__delete(res);
	return status;
}

int cmd_top(int argc, char **argv)
{
	struct vm_opts vm;
	struct live_top_opts to = { .sort = LIVE_SORT_FLUSHES, .cgroups = 10 };
	struct live_opts lo = { .cgroup_paths = true };
	struct live_snap *snaps = NULL;
	double interval = 1, duration = 0, start, next;
	uint64_t ids[64];
	size_t nr_ids = 0;
	char why[4096 + 128];
	struct live *l = NULL;
	char errbuf[512] = "";
	bool batch = false;
	int c, err, cur = 0, status = RS_EXIT_FAIL;
	char *end;
	long n;

	memset(&vm, 0, sizeof(vm));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:d:s:n:bh", top_long_options,
				 NULL)) != -1) {
		switch (c) {
		VM_OPT_CASES:
			if (vm_opts__parse(&vm, c, optarg, errbuf,
					   sizeof(errbuf))) {
				rs_error("top: %s", errbuf);
				top_usage(stderr);
				return RS_EXIT_USAGE;
			}
			break;
		case 'i':
			if (parse_seconds(optarg, &interval)) {
				rs_error("top: --interval '%s': give seconds from 0.01 to 86400",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case 'd':
			if (parse_seconds(optarg, &duration)) {
				rs_error("top: --duration '%s': give seconds from 0.01 to 86400",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case 's':
			if (live_sort__parse(optarg, &to.sort)) {
				rs_error("top: --sort '%s': give %s", optarg,
					 live_sort__names());
				return RS_EXIT_USAGE;
			}
			break;
		case 'n':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 0 ||
			    n > LIVE_CGROUPS) {
				rs_error("top: --rows '%s': give 0 to %d",
					 optarg, LIVE_CGROUPS);
				return RS_EXIT_USAGE;
			}
			to.cgroups = (unsigned int)n;
			break;
		case 'b':
			batch = true;
			break;
		case OPT_CGROUP:
			if (live_cgroup_arg(optarg, ids, &nr_ids,
					    sizeof(ids) / sizeof(ids[0]),
					    why, sizeof(why))) {
				rs_error("top: %s", why);
				return RS_EXIT_USAGE;
			}
			break;
		case OPT_NO_STACKS:
			lo.no_stacks = true;
			break;
		case 'h':
			top_help();
			return rs_finish_stdout(RS_EXIT_OK);
		default:
			return rs_bad_option("top", c, argv[optind - 1],
					     top_usage);
		}
	}
	if (optind < argc) {
		rs_error("top: unexpected argument '%s'", argv[optind]);
		top_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (vm.nkernels)
		return top_in_vm(&vm, nr_ids, duration, argc, argv);
	if (geteuid()) {
		rs_error("top: loading BPF programs needs root (or CAP_BPF and CAP_PERFMON); run it with sudo");
		return RS_EXIT_FAIL;
	}
	to.tty = !batch && isatty(STDOUT_FILENO);
	lo.cgroup_ids = ids;
	lo.nr_cgroup_ids = nr_ids;

	/* Two snapshots (the previous and this one): too big for a stack. */
	snaps = calloc(2, sizeof(*snaps));
	l = live__new(&lo);
	if (!snaps || !l) {
		rs_error("top: out of memory");
		goto out;
	}
	top_stop = 0;
	rs_on_stop_signals(top_on_signal);
	err = live__open(l, errbuf, sizeof(errbuf));
	if (err) {
		rs_error("top: %s", errbuf);
		goto out;
	}
	err = live__sample(l, &snaps[cur], errbuf, sizeof(errbuf));
	if (err) {
		rs_error("top: %s", errbuf);
		goto out;
	}
	start = next = rs_now_s();
	while (!top_stop) {
		double now;

		next += interval;
		if (duration > 0 && next > start + duration)
			next = start + duration;
		sleep_until(next);
		/* A stop mid-interval still prints that partial interval. */
		err = live__sample(l, &snaps[!cur], errbuf, sizeof(errbuf));
		if (err) {
			rs_error("top: %s", errbuf);
			goto out;
		}
		cur = !cur;
		to.wall = wall_now();
		live_out__top(stdout, &snaps[cur], &snaps[!cur], &to);
		if (ferror(stdout))
			break;
		now = rs_now_s();
		if (duration > 0 && now >= start + duration - 1e-3)
			break;
		if (next < now - interval)	/* suspended: catch up */
			next = now;
	}
	status = RS_EXIT_OK;
out:
	/* Detach before anything else can fail. */
	live__delete(l);
	free(snaps);
	return rs_finish_stdout(status);
}
