// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: perf script text through the reader into a fold with
 * every option on (so every rule runs), then written out.
 */
#include <stdint.h>
#include <stdio.h>

#include "fold.h"
#include "perf-script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fold_opts opts = {
		.tid = true, .kernel = true, .jit = true, .addrs = true,
	};
	struct perf_script_stats st;
	struct perf_script_sink sink;
	struct perf_script *ps;
	struct fold *f;
	FILE *in, *out;

	/* The first byte picks a few option variations. */
	if (size && (data[0] & 1))
		opts.event_filter = "cycles";
	if (size && (data[0] & 2))
		opts.samples = true;
	(void)perf_script__sniff(data, size);
	(void)perf_script__recognise(data, size);
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	ps = perf_script__new();
	f = fold__new(&opts);
	out = fopen("/dev/null", "w");
	if (ps && f && out) {
		fold__script_sink(f, &sink);
		perf_script__fold(ps, in, &sink, &st);
		fold__write(f, out);
	}
	if (out)
		fclose(out);
	fclose(in);
	fold__delete(f);
	perf_script__delete(ps);
	return 0;
}
