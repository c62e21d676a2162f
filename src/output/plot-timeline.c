// SPDX-License-Identifier: GPL-2.0
/*
 * plot --kind timeline: a recording's lock hold times over time, paired
 * as report pairs them (the analyses' spans, so the rules are the same).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "perf-data.h"
#include "plot-int.h"
#include "rules.h"
#include "spans.h"
#include "symbols.h"
#include "util.h"

/* timeline: lock hold times from a recording.                          */

struct tl_ctx {
	struct series *s;
	size_t cap_points;
	struct machine *machine;
	struct analysis *an;
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

static int tl_event(void *arg, const struct rs_event *ev)
{
	struct tl_ctx *ctx = arg;

	return analysis__event(ctx->an, ev);
}

int plot__load_recording(struct plot *ctx, const char *input, char *err,
			 size_t errlen)
{
	struct tl_ctx tl = { 0 };
	struct analysis_opts o = { 0 };
	struct perf_data *pd = NULL;
	struct rules *rules = NULL;
	uint64_t first = 0, last, i;
	const char *msg;
	int ret;

	if (ctx->o.kind != PLOT_TIMELINE) {
		errbuf_set(err, errlen, "%s: a recording plots only as --kind timeline; for the others give `report --json` output of it",
			 input);
		return -EINVAL;
	}
	tl.s = plot__series_add(ctx, input, NULL, "us");
	ret = tl.s ? perf_data__open(&pd, input) : -ENOMEM;
	if (!ret) {
		rules = rules__new();
		tl.machine = machine__new();
		o.rules = rules;
		o.os_release = perf_data__header(pd)->os_release;
		tl.an = rules && tl.machine ?
			analysis__new(&o, tl.machine) : NULL;
		if (!tl.an)
			ret = -ENOMEM;
	}
	if (!ret) {
		spans__set_hold_fn(analysis__spans(tl.an), tl_hold, &tl);
		ret = perf_data__process(pd, tl_event, &tl);
	}
	if (ret) {
		msg = pd ? perf_data__strerror(pd) : "";
		if (ret != -ENOMEM && msg && *msg)
			errbuf_set(err, errlen, "%s: %s", input, msg);
		else if (ret != -ENOMEM)
			errbuf_set(err, errlen, "%s: %s", input, strerror(-ret));
		if (ret != -ENOMEM)
			ret = -EINVAL;
	} else if (!tl.s->nr_points) {
		errbuf_set(err, errlen, "%s: no cgroup:cgroup_rstat_locked/unlock pairs with root, id and cpu fields: record them with `rstat-analyze record`",
			 input);
		ret = -EINVAL;
	} else {
		analysis__time_range(tl.an, &first, &last);
		for (i = 0; i < tl.s->nr_points; i++)
			tl.s->x[i] -= first / 1e9;
	}
	analysis__delete(tl.an);
	machine__delete(tl.machine);
	rules__delete(rules);
	perf_data__delete(pd);
	return ret;
}
