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

#include "fuzz-analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analysis *an = NULL;
	struct machine *m = NULL;
	struct perf_data *pd;

	if (perf_data__open_mem(&pd, data, size))
		goto out;
	an = fuzz_analysis_new(pd, &m);
	fuzz_analysis_run(pd, an, fuzz_analyse, an);
out:
	analysis__delete(an);
	machine__delete(m);
	perf_data__delete(pd);
	return 0;
}
