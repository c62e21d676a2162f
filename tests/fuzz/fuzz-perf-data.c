// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader and what consumes it: any
 * input must give either events or an error, never a crash, hang or
 * unbounded allocation. Events go through the analyses (symbolizer side
 * band, attribution, tracepoint field reads and pairing, a user span) so
 * that hostile raw data and callchains reach them too. record's read
 * breakdown section is read as report reads it, and what it reads
 * formats and reads back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-analysis.h"
#include "results-breakdown.h"

static void fuzz_breakdown(const struct perf_data *pd)
{
	static struct bench_breakdown bd, again;
	char err[256], *text = NULL;
	const char *in;

	if (perf_data__rstat_breakdown(pd, &in) ||
	    bench_breakdown__parse(&bd, in, strlen(in), err, sizeof(err)))
		return;
	if (!bench_breakdown__format(&bd, &text) &&
	    bench_breakdown__parse(&again, text, strlen(text), err,
				   sizeof(err)))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analysis *an = NULL;
	struct machine *m = NULL;
	struct perf_data *pd;

	if (perf_data__open_mem(&pd, data, size))
		goto out;
	fuzz_breakdown(pd);
	an = fuzz_analysis_new(pd, &m);
	fuzz_analysis_run(pd, an, fuzz_analyse, an);
out:
	analysis__delete(an);
	machine__delete(m);
	perf_data__delete(pd);
	return 0;
}
