// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader: any input must give either
 * events or an error, never a crash, hang or unbounded allocation.
 */
#include <stddef.h>
#include <stdint.h>

#include "perf-data.h"

static int noop(void *ctx, const struct rs_event *ev)
{
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_data *pd;

	if (!perf_data__open_mem(&pd, data, size))
		perf_data__process(pd, noop, NULL);
	perf_data__delete(pd);
	return 0;
}
