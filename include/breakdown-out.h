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
 * The tables as CSV blocks, each a blank line, a header and its rows,
 * the figures the JSON has: read_breakdown (one row per file and part:
 * table,file,part,timed,reads,p50_ns,p90_ns,p99_ns,share,calls,sum_ns),
 * read_breakdown_files (per file: its tree, the reads mostly off the CPU,
 * the tail off it, the reader's p50s), read_breakdown_sources (per part:
 * how it was timed or why not, the callbacks outside the reads; by
 * trigger in read_breakdown_outside), read_breakdown_skips (the program
 * runs the kernel skipped), read_breakdown_run (the method, losses, the
 * callbacks' observer cost, the window timed) and, for record's targets,
 * read_breakdown_follow. Blocks without rows (outside, skips, follow)
 * are left out.
 */
void bench_breakdown__csv(const struct bench_breakdown *bd, FILE *out);

#endif
