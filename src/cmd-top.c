// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze top: rstat flush cost live, like biotop or perf top. The
 * recorder's BPF programs stay attached (include/live.h) and every
 * interval the difference of two snapshots is printed: a redrawn screen
 * on a terminal, else one timestamped block per interval.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "live-out.h"
#include "live.h"
#include "parse-options.h"
#include "util.h"
#include "vm.h"

static const char top_about[] =
	"Show what rstat flushes cost on this machine, live: every interval\n"
	"the flushes by subsystem and by what asked for them, the flush time\n"
	"per second, lock hold and wait p50/p99, contended and yielded locks,\n"
	"memcg flushes requested/performed/skipped and the busiest cgroups.\n"
	"Timed in the kernel by the BPF programs `record --spans bpf` uses;\n"
	"needs root. On a terminal the screen is redrawn; otherwise (or with\n"
	"--batch) one block per interval is printed, a '# time=...' line then\n"
	"'KIND key=value...' lines. Ctrl-C (or -d) stops and detaches.\n";

static const char top_epilogue[] =
	"With --kernel (and -d), the same blocks from inside a throwaway VM\n"
	"booted from that kernel image, printed when it ends.\n";

struct top_params {
	struct vm_opts vm;
	struct live_top_opts to;
	struct live_opts lo;
	struct rs_cgroup_ids cg;
	double interval, duration;
	bool batch;
	char **gargv;		/* --kernel: the guest's argv */
	int gargc;
};

static int sort_option(const struct popt *opt, const char *arg, char *err,
		       size_t errlen)
{
	if (!live_sort__parse(arg, opt->value))
		return 0;
	snprintf(err, errlen, "--sort '%s': give %s", arg, live_sort__names());
	return -EINVAL;
}

/* Returns 0, RS_EXIT_USAGE or RS_EXIT_FAIL, or -1 when --help was printed. */
static int top_parse_args(int argc, char **argv, struct top_params *p)
{
	const struct popt opts[] = {
		POPT_GROUP("Options:"),
		{ POPT_DOUBLE('i', "interval", &p->interval, "SECONDS",
			      0.01, 86400, "time between updates (default 1)"),
		  .hint = "give seconds from 0.01 to 86400",
		  .flags = POPT_SAY_LONG },
		{ POPT_DOUBLE('d', "duration", &p->duration, "SECONDS",
			      0.01, 86400,
			      "stop after this long (default: until Ctrl-C)"),
		  .hint = "give seconds from 0.01 to 86400",
		  .flags = POPT_SAY_LONG },
		{ POPT_CALLBACK('s', "sort", &p->to.sort, "KEY", sort_option,
				"subsystem rows by flushes (default), time,\n"
				"holds, hold-p99 or waits") },
		{ POPT_UINT('n', "rows", &p->to.cgroups, "N", 0, LIVE_CGROUPS,
			    "busiest cgroups shown (default 10, at most 32)"),
		  .hint = "give 0 to 32", .flags = POPT_SAY_LONG },
		{ POPT_FLAG('b', "batch", &p->batch,
			    "one block per interval even on a terminal") },
		{ POPT_CALLBACK(0, "cgroup", &p->cg, "PATH", rs_cgroup_option,
				"only flushes of this cgroup (repeatable)"),
		  .flags = POPT_REPEAT },
		{ POPT_FLAG(0, "no-stacks", &p->lo.no_stacks,
			    "no kernel stacks: cheaper, subsystems unknown") },
		POPT_HELP_ROW,
		VM_CMD_OPTIONS(&p->vm),
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = {
		.name = "top",
		.opts = opts,
		.max_operands = 0,
		.help_column = 26,
		.about = top_about,
		.epilogue = top_epilogue,
	};
	struct popt_args args;
	int ret;

	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	free(args.operands);
	if (!p->vm.nkernels)
		return 0;
	if (p->vm.nkernels > 1) {
		rs_error("top: one --kernel at a time");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	if (p->duration <= 0) {
		rs_error("top: --kernel needs -d SECONDS (the guest's blocks are printed when it ends)");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	if (p->cg.nr) {
		rs_error("top: --cgroup names this machine's cgroups, not the guest's; drop it with --kernel");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	return vm_cmd__guest_argv(&cmd, &p->vm, argc, argv, &p->gargv,
				  &p->gargc);
}

/* Sleep until the monotonic time t, or a stop signal. */
static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (!rs_stop_signal() &&
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

/*
 * top on another kernel: the same command in a throwaway VM, with -d so
 * that it ends; its blocks (not a terminal there) printed afterwards.
 */
static int top_in_vm(struct top_params *p)
{
	int status = vm_cmd__run_print("top", &p->vm, p->gargc, p->gargv);

	free(p->gargv);
	return status;
}

int cmd_top(int argc, char **argv)
{
	struct top_params p = {
		.to = { .sort = LIVE_SORT_FLUSHES, .cgroups = 10 },
		.lo = { .cgroup_paths = true },
		.interval = 1,
	};
	struct live_snap *snaps = NULL;
	double start, next;
	struct live *l = NULL;
	char errbuf[512] = "";
	int err, cur = 0, status = RS_EXIT_FAIL;

	err = top_parse_args(argc, argv, &p);
	if (err)
		return err < 0 ? rs_finish_stdout(RS_EXIT_OK) : err;
	if (p.vm.nkernels)
		return rs_finish_stdout(top_in_vm(&p));
	if (geteuid()) {
		rs_error("top: loading BPF programs needs root (or CAP_BPF and CAP_PERFMON); run it with sudo");
		return RS_EXIT_FAIL;
	}
	p.to.tty = !p.batch && isatty(STDOUT_FILENO);
	p.lo.cgroup_ids = p.cg.ids;
	p.lo.nr_cgroup_ids = p.cg.nr;

	/* Two snapshots (the previous and this one): too big for a stack. */
	snaps = calloc(2, sizeof(*snaps));
	l = live__new(&p.lo);
	if (!snaps || !l) {
		rs_error("top: out of memory");
		goto out;
	}
	rs_catch_stop_signals();
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
	while (!rs_stop_signal()) {
		double now;

		next += p.interval;
		if (p.duration > 0 && next > start + p.duration)
			next = start + p.duration;
		sleep_until(next);
		/* A stop mid-interval still prints that partial interval. */
		err = live__sample(l, &snaps[!cur], errbuf, sizeof(errbuf));
		if (err) {
			rs_error("top: %s", errbuf);
			goto out;
		}
		cur = !cur;
		p.to.wall = wall_now();
		live_out__top(stdout, &snaps[cur], &snaps[!cur], &p.to);
		if (ferror(stdout))
			break;
		now = rs_now_s();
		if (p.duration > 0 && now >= start + p.duration - 1e-3)
			break;
		if (next < now - p.interval)	/* suspended: catch up */
			next = now;
	}
	status = RS_EXIT_OK;
out:
	/* Detach before anything else can fail. */
	live__delete(l);
	free(snaps);
	return rs_finish_stdout(status);
}
