/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reads' decomposition for the terminal and CSV: one table per file
 * (results-breakdown.h); several runs side by side are compare's
 * (compare-breakdown.c).
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

#endif
