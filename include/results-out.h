/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bench results (bench-results.h) on the terminal.
 */
#ifndef RS_RESULTS_OUT_H
#define RS_RESULTS_OUT_H

#include <stdint.h>
#include <stdio.h>

struct bench_results;

/*
 * For the terminal, in 80 columns: each repetition's real/user/sys as
 * time(1) prints them, each distribution as hist__print() prints it
 * (p50/p90/p99/max included) and a "min = N unit" line, each single
 * figure; then, with several repetitions, their min/mean/max/stddev.
 * Distributions in ns are shown divided by unit_divisor and labelled
 * unit_label ("usecs" with 1000), or, with unit_divisor 0 (and any
 * label), each in the unit that suits it: nsecs when its median (the
 * smallest of the repetitions') is below a microsecond, else usecs, so
 * that no sub-microsecond figure prints as 0. Others in their own unit.
 * Figures never take an exponent. 0, -EINVAL or -EIO.
 */
int bench_results__print(struct bench_results *r, FILE *out,
			 uint64_t unit_divisor, const char *unit_label);

#endif
