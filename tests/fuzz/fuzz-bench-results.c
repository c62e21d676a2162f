// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the bench results reader: any input is either a
 * results file or refused with "NAME: line N: what", never a crash; what
 * is accepted must print and write again, and read back from its own
 * output.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "results-out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_results *r = NULL, *again = NULL;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	ret = bench_results__read_mem(&r, (const char *)data, size, "fuzz",
				      err, sizeof(err));
	if (ret) {
		/* Bad input is always located. */
		if (ret == -EINVAL && !strstr(err, "fuzz: line "))
			abort();
		return 0;
	}
	out = fopen("/dev/null", "w");
	if (out) {
		bench_results__print(r, out, 1000, "usecs");
		fclose(out);
	}
	out = open_memstream(&buf, &len);
	if (out) {
		if (bench_results__write(r, out))
			abort();
		fclose(out);
		if (bench_results__read_mem(&again, buf, len, "again", err,
					    sizeof(err)))
			abort();
	}
	bench_results__delete(again);
	free(buf);
	bench_results__delete(r);
	return 0;
}
