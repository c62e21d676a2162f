// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the reader of the spans a recording timed in the
 * kernel (the RSTAT_SPANS feature section of a perf.data, which report
 * reads from any file it is given): any text is read or refused with one
 * line, never a crash or a leak; what is read formats again and reads back
 * to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-spans.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_spans *ks = NULL, *again = NULL;
	char err[160], *text = NULL, *text2 = NULL;

	if (kernel_spans__parse(&ks, (const char *)data, size, err,
				sizeof(err)))
		return 0;
	if (!kernel_spans__format(ks, &text) &&
	    !kernel_spans__parse(&again, text, strlen(text), err,
				 sizeof(err)) &&
	    !kernel_spans__format(again, &text2) && strcmp(text, text2))
		abort();
	free(text);
	free(text2);
	kernel_spans__delete(again);
	kernel_spans__delete(ks);
	return 0;
}
