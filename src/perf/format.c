// SPDX-License-Identifier: GPL-2.0
/*
 * Telling a perf.data input from its first bytes: the one place that
 * knows the magics (perf-format.h).
 */
#include <string.h>

#include "perf-format.h"

enum perf_layout perf_format__sniff(const void *buf, size_t len)
{
	uint64_t magic, hsize;

	if (len < sizeof(magic))
		return PERF_LAYOUT_NONE;
	memcpy(&magic, buf, sizeof(magic));
	if (magic == PERF_MAGIC2_SWAPPED)
		return PERF_LAYOUT_SWAPPED;
	if (magic == PERF_MAGIC1)
		return PERF_LAYOUT_V1;
	if (magic != PERF_MAGIC2)
		return PERF_LAYOUT_NONE;
	if (len < 2 * sizeof(magic))
		return PERF_LAYOUT_FILE;
	memcpy(&hsize, (const char *)buf + sizeof(magic), sizeof(hsize));
	return hsize == PERF_PIPE_HEADER_SIZE ? PERF_LAYOUT_PIPE :
						 PERF_LAYOUT_FILE;
}
