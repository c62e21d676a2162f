// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader and what consumes it: any
 * input must give either events or an error, never a crash, hang or
 * unbounded allocation. Events go through the analyses (symbolizer side
 * band, attribution, tracepoint field reads and pairing, a user span) so
 * that hostile raw data and callchains reach them too.
 */
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "perf-data.h"
#include "rules.h"
#include "symbols.h"

static int analyse(void *ctx, const struct rs_event *ev)
{
	return analysis__event(ctx, ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct analysis_span span = {
		"cgroup:cgroup_rstat_locked", "cgroup_rstat_unlock",
	};
	struct analysis_opts opts = { .spans = &span, .nr_spans = 1 };
	/* Read-only once built: one table for every input. */
	static struct rules *r;
	struct analysis *an = NULL;
	struct machine *m = NULL;
	struct perf_data *pd;

	if (perf_data__open_mem(&pd, data, size))
		goto out;
	if (!r)
		r = rules__new();
	m = machine__new();
	if (!r || !m)
		goto out;
	opts.rules = r;
	opts.os_release = perf_data__header(pd)->os_release;
	an = analysis__new(&opts, m);
	if (an && !perf_data__process(pd, analyse, an))
		analysis__finish(an);
out:
	analysis__delete(an);
	machine__delete(m);
	perf_data__delete(pd);
	return 0;
}
