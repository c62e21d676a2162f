/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What compare's renderers (compare-out.c), the breakdowns' comparison
 * (compare-breakdown.c) and the breakdown's own tables (breakdown-out.c)
 * share: how a label, a wrapped line, a CSV row and a time are printed
 * (compare-fmt.c). Not for the rest of the tool (compare-out.h is).
 */
#ifndef RS_COMPARE_INT_H
#define RS_COMPARE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare-out.h"

/*
 * A label in at most width columns: whole when it fits, else its head and
 * its tail joined by '~' ("6.1.118+de~cloud-amd64"): a kernel release
 * keeps its version, a run name the end where runs usually differ.
 */
void compare_fmt__label(char *buf, size_t len, const char *l, size_t width);

/* A line of text broken at spaces into lines of at most 72 columns. */
void compare_fmt__wrapped(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * One row of compare's CSV table (block, row, metric, side, value,
 * delta, significant): a value or delta that is not finite is an empty
 * field, sig < 0 an empty last one.
 */
void compare_fmt__csv_row(FILE *out, const char *block, const char *row,
			  const char *metric, const char *side, double value,
			  double delta, int sig);

/*
 * A time in ns in its unit (ns, us with one decimal, ms with two), by
 * figure.h's rule: figures in order print in order; signed for the
 * derived entry/exit.
 */
void compare_fmt__ns(char *buf, size_t len, uint64_t ns);
void compare_fmt__sns(char *buf, size_t len, int64_t ns);
/* A share (0..1) in percent, one decimal: never 0.0 when it is not 0. */
const char *compare_fmt__share(char *buf, size_t len, double share);

/* The breakdowns' comparison (compare-breakdown.c), c->bd_files. */
void compare_bd__text(FILE *out, const struct compare *c);
void compare_bd__markdown(FILE *out, const struct compare *c);
void compare_bd__csv(FILE *out, const struct compare *c);
void compare_bd__json(struct json_writer *jw, const struct compare *c);

#endif
