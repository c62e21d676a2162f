/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reads' decomposition for the terminal: one table per file, and
 * several runs' side by side (results-breakdown.h).
 */
#ifndef RS_BREAKDOWN_OUT_H
#define RS_BREAKDOWN_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "results-breakdown.h"

/* The tables, for the terminal (80 columns). */
void bench_breakdown__print(const struct bench_breakdown *bd, FILE *out);
/* The program runs the kernel skipped, and whose reads they cost. */
void bench_breakdown__print_skips(const struct bench_breakdown *bd,
				  FILE *out);

/*
 * The tables as one CSV block (a blank line, the header, one row per file
 * and part: table,file,part,timed,reads,p50_ns,p90_ns,p99_ns,share,
 * calls,sum_ns), the figures the JSON has.
 */
void bench_breakdown__csv(const struct bench_breakdown *bd, FILE *out);

/*
 * The breakdowns of several runs (results files, e.g. one per kernel, the
 * first the base) as `rstat-analyze compare` prints them, from the same
 * builder and table (compare.h, compare_out__breakdowns()): for each file
 * all of them decomposed, each part's share and p50 and their change
 * against the base. Nothing when no run has a breakdown; a line saying
 * why when some do but not all (or the files' notes). Since compare
 * prints these tables itself, a command that runs compare_results() on
 * the same files has them already. 0, or -errno with what failed in
 * errbuf.
 */
int bench_breakdown__print_runs(const char *const *files,
				const char *const *labels, size_t n,
				FILE *out, char *errbuf, size_t len);

#endif
