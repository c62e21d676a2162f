/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the perf.data fuzz targets share: a recording's events through
 * every analysis report runs (symbolizer side band, attribution,
 * tracepoint field reads and lock pairing, a user span), so that hostile
 * raw data and callchains reach them all.
 */
#ifndef RS_FUZZ_ANALYSIS_H
#define RS_FUZZ_ANALYSIS_H

#include "analysis.h"
#include "perf-data.h"
#include "rules.h"
#include "symbols.h"

static inline int fuzz_analyse(void *an, const struct rs_event *ev)
{
	return analysis__event(an, ev);
}

/* The analyses for pd, on a fresh machine (*m); NULL when out of memory. */
static inline struct analysis *fuzz_analysis_new(struct perf_data *pd,
						 struct machine **m)
{
	static const struct analysis_span span = {
		"cgroup:cgroup_rstat_locked", "cgroup:cgroup_rstat_unlock",
	};
	/* Read-only once built: one table for every input. */
	static struct rules *r;
	struct analysis_opts opts = { .spans = &span, .nr_spans = 1 };

	if (!r)
		r = rules__new();
	*m = machine__new();
	if (!r || !*m)
		return NULL;
	opts.rules = r;
	opts.os_release = perf_data__header(pd)->os_release;
	return analysis__new(&opts, *m);
}

/* pd's events to fn(ctx) (which feeds an), then the analyses' end. */
static inline void fuzz_analysis_run(struct perf_data *pd,
				     struct analysis *an, rs_event_fn fn,
				     void *ctx)
{
	if (an && !perf_data__process(pd, fn, ctx))
		analysis__finish(an);
}

#endif
