/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One rule for every printed number: the text tables, CSV, markdown and
 * plot labels all format a figure through these two functions, so that a
 * value reads the same wherever it is printed and a summary's figures
 * keep their order (min <= p50 <= p90 <= p99 <= max) as printed.
 *
 * The rule:
 *   - a figure is rounded to the nearest at the given decimals:
 *     figure__ratio() exactly, in integers, a half up (1500 ns in usecs
 *     with no decimals: "2"); figure__double() as printf("%.*f") rounds
 *     the double's exact binary value;
 *   - a figure under one unit (0 < |v| < 1) is never printed as 0: it
 *     gets at least FIGURE_SIG significant digits, trailing zeros beyond
 *     the asked decimals dropped (951 ns in usecs: "0.95"; 400 ns in
 *     msecs: "0.0004"; 0.0616 at 2 decimals: "0.062");
 *   - with a width, decimals are given up (down to none; under one unit
 *     down to one significant digit) until the figure fits; a figure
 *     that still does not fit is printed whole, never cut;
 *   - 0 prints with the asked decimals ("0", "0.0").
 * Rounding is monotonic under this rule, so figures in order print in
 * order.
 */
#ifndef RS_FIGURE_H
#define RS_FIGURE_H

#include <stddef.h>
#include <stdint.h>

/* Significant digits a figure under one unit keeps. */
#define FIGURE_SIG 2
/* Most decimals any figure gets. */
#define FIGURE_MAX_DECIMALS 18

/*
 * num / (den * unit) with decimals decimals (0..FIGURE_MAX_DECIMALS) in
 * at most width characters (0: any width), e.g. an average latency in
 * usecs: figure__ratio(buf, len, sum_ns, count, 1000, 1, 8). den or unit
 * 0 counts as 1. snprintf()'s return.
 */
int figure__ratio(char *buf, size_t len, uint64_t num, uint64_t den,
		  uint64_t unit, int decimals, int width);

/* The same rule for a double (not finite: "nan", "inf", "-inf"). */
int figure__double(char *buf, size_t len, double v, int decimals, int width);

/*
 * A count: an integral value as an integer ("75", never "75.0000"),
 * anything else as figure__double() with decimals decimals.
 */
int figure__count(char *buf, size_t len, double v, int decimals, int width);

/*
 * The unit a time in ns is printed in, by its divisor: "ns", "us", "ms",
 * "s", or NULL for another divisor.
 */
const char *figure__time_unit(uint64_t divisor);

#endif
