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
 * The breakdowns of several runs (results files, e.g. one per kernel)
 * side by side for each file all of them decomposed: each part's share
 * and p50, and the share's change against the first, in points. Runs
 * without a breakdown are skipped; fewer than two with one print
 * nothing. 0, or -errno with what failed in errbuf.
 */
int bench_breakdown__print_runs(const char *const *files,
				const char *const *labels, size_t n,
				FILE *out, char *errbuf, size_t len);

#endif
