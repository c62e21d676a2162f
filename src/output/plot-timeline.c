// SPDX-License-Identifier: GPL-2.0
/*
 * plot --kind timeline: a recording's lock hold times over time, paired
 * as report pairs them (the analyses' spans, so the rules are the same).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-spans.h"
#include "plot-int.h"
#include "rules.h"
#include "session.h"
#include "util.h"

/* timeline: lock hold times from a recording.                          */

struct tl_ctx {
	struct series *s;
	size_t cap_points;
};

static int tl_point(struct tl_ctx *ctx, double x, double y)
{
	struct series *s = ctx->s;

	if (s->nr_points == ctx->cap_points) {
		size_t ncap = ctx->cap_points ? ctx->cap_points * 2 : 256;
		double *nx = realloc(s->x, ncap * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		s->x = nx;
		nx = realloc(s->y, ncap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		s->y = nx;
		ctx->cap_points = ncap;
	}
	s->x[s->nr_points] = x;
	s->y[s->nr_points] = y;
	s->nr_points++;
	return 0;
}

/*
 * Each hold as report pairs it (the analyses' spans, so the rules are
 * the same): x the locked time, made relative to the recording's first
 * sample once it is known, y the hold in us.
 */
static int tl_hold(void *arg, uint64_t locked_time, uint64_t hold_ns)
{
	return tl_point(arg, locked_time / 1e9, hold_ns / 1e3);
}

int plot__load_recording(struct plot *ctx, const char *input, char *err,
			 size_t errlen)
{
	struct session_opts so = { .input = input };
	struct tl_ctx tl = { 0 };
	struct rules *rules = NULL;
	struct session *s = NULL;
	uint64_t first = 0, i;
	const char *msg;
	bool error;
	int ret;

	if (ctx->o.kind != PLOT_TIMELINE) {
		errbuf_set(err, errlen, "%s: a recording plots only as --kind timeline; for the others give `report --json` output of it",
			 input);
		return -EINVAL;
	}
	tl.s = plot__series_add(ctx, input, NULL, "us");
	rules = rules__new();
	ret = tl.s && rules ? session__open(&s, &so) : -ENOMEM;
	if (!ret)
		ret = session__timeline(s, rules, tl_hold, &tl, &first);
	if (ret) {
		/* The session's error alone: plot says none of its notes. */
		msg = NULL;
		while (s && (msg = session__next_msg(s, &error)) && !error)
			;
		if (msg)
			errbuf_set(err, errlen, "%s", msg);
		ret = msg ? -EINVAL : -ENOMEM;
	} else if (!tl.s->nr_points) {
		struct kernel_spans *ks = NULL;

		/*
		 * record's default times holds in the kernel (BPF) and keeps
		 * their histograms, not each hold's time.
		 */
		if (session__kernel_spans(s, &ks) == 0 && ks)
			errbuf_set(err, errlen, "%s: its lock holds were timed in the kernel (BPF, record's default), as histograms with no time of their own: record with --spans perf for a timeline, or plot `report --json` of it with --kind hist",
				   input);
		else
			errbuf_set(err, errlen, "%s: no cgroup:cgroup_rstat_locked/unlock pairs with root, id and cpu fields: record them with `rstat-analyze record`",
				   input);
		kernel_spans__delete(ks);
		ret = -EINVAL;
	} else {
		for (i = 0; i < tl.s->nr_points; i++)
			tl.s->x[i] -= first / 1e9;
	}
	session__delete(s);
	rules__delete(rules);
	return ret;
}
