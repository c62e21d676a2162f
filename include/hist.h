/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency (or count) distributions printed the way bcc's funclatency
 * prints them: a log2 histogram, then an avg/total/count line, then a line
 * of percentiles.
 *
 * Every value is kept (8 bytes each), so that percentiles are exact rather
 * than read off the log2 buckets; the buckets are computed when printed,
 * in the display unit, as funclatency does (it divides each delta before
 * taking its log2).
 */
#ifndef RS_HIST_H
#define RS_HIST_H

#include <stdint.h>
#include <stdio.h>

/* Bucket indexes 0..64 (bcc's log2_index_max is 65). */
#define HIST_MAX_BUCKETS 65

struct hist;

struct hist *hist__new(void);
void hist__delete(struct hist *h);

/* 0 or -ENOMEM (the value is then not counted). */
int hist__add(struct hist *h, uint64_t value);

uint64_t hist__count(const struct hist *h);
/* Sum of the values, saturating at UINT64_MAX. */
uint64_t hist__total(const struct hist *h);
/* Smallest and largest value; 0 when empty. */
uint64_t hist__min(const struct hist *h);
uint64_t hist__max(const struct hist *h);

/*
 * Nearest-rank percentile, q in 0..100: the smallest kept value with at
 * least q% of the values <= it, i.e. the value of rank ceil(q * n / 100)
 * (at least rank 1) in ascending order. q <= 0 gives the minimum, q >= 100
 * the maximum, an empty hist 0. A rank a rounding error above an integer
 * (q * n / 100 within a relative 1e-12 of it) counts as that integer, so
 * q = 99.9 on 1000 values is rank 999 even though 99.9 has no exact
 * double. Sorts the values on first use after an add, hence the
 * non-const h.
 */
uint64_t hist__percentile(struct hist *h, double q);

/*
 * The summary every printer of a hist shows: its count, total, min, max
 * and the p50, p90 and p99 of hist__percentile(); all 0 when empty.
 */
struct hist_summary {
	uint64_t count;
	uint64_t total;
	uint64_t min;
	uint64_t max;
	uint64_t p50;
	uint64_t p90;
	uint64_t p99;
};

void hist__summary(struct hist *h, struct hist_summary *s);

/*
 * bcc's bucket index of v (in the display unit): 0 for 0, else
 * floor(log2(v)) + 1, so bucket i >= 1 covers [2^(i-1), 2^i - 1].
 */
int hist__bucket_index(uint64_t v);

/*
 * The values bucket idx holds: {0, 0} for 0, else [2^(idx-1), 2^idx - 1]
 * (bucket 64 ends at UINT64_MAX). The one place log2 bounds are made:
 * report --json's span rows, plot's and compare's rows use it.
 */
void hist__bucket_bounds(int idx, uint64_t *low, uint64_t *high);

/*
 * The row bucket idx prints as: its bounds, but bucket 1 shown as 0 -> 1
 * (values 0 are counted in it, see hist__print()).
 */
void hist__row_bounds(int idx, uint64_t *low, uint64_t *high);

/* One printed row, in the display unit; count is the row's count. */
struct hist_bucket {
	uint64_t low, high, count;
};

/*
 * The rows hist__print() would print with this divisor: buckets 1 to the
 * last non-empty one, the first being { 0, 1 } (values 0 are counted in it,
 * see hist__print()). Fills up to max rows of out (out may be NULL when max
 * is 0) and returns how many rows there are (0 when empty, at most 64), as
 * snprintf() does: a return > max means out was too short. -EINVAL for a
 * divisor of 0.
 */
int hist__buckets(struct hist *h, uint64_t divisor, struct hist_bucket *out,
		  int max);

/*
 * Print as bcc's funclatency does (docs/formats.md), each value divided by
 * divisor with integer division first (1 for nsecs, 1000 usecs, 1000000
 * msecs); unit_label names the unit ("nsecs", or any word, e.g.
 * "updates"). The header "     usecs               : count     distribution"
 * and a row "%10d -> %-10d : %-8d |%-40s|" per bucket from 1 ("0 -> 1") to
 * the last non-empty one, the bar scaled to the largest count; 20-digit
 * columns and a 20-star bar when the last non-empty bucket is above 32.
 * Then
 *   avg = 5 usecs, total: 577 usecs, count: 115
 *   p50 = 5 usecs, p90 = 7 usecs, p99 = 7 usecs, max = 7 usecs
 * where total is (sum of raw values) / divisor and avg is (sum of raw
 * values) / count / divisor. Percentiles are hist__percentile() of the
 * raw values, then divided. Unlike funclatency, which truncates (%ld),
 * every summary figure is rounded by figure__ratio() with no decimals:
 * to the nearest, and under one unit with its significant digits
 * ("0.95 usecs", never "0 usecs"), so that one rounding serves every
 * figure and min <= p50 <= p90 <= p99 <= max holds as printed. The
 * bucket rows keep funclatency's integer division.
 * Unlike funclatency, no blank lines around the avg line: the caller
 * spaces sections. An empty hist prints the single line "count: 0"
 * (funclatency prints nothing, which reads as a missing section in a
 * report). 0, -EINVAL (divisor 0) or -EIO when a write failed.
 */
int hist__print(struct hist *h, FILE *out, uint64_t divisor,
		const char *unit_label);

/*
 * Only the bucket rows of hist__print() (its header and a row per bucket
 * 1..last non-empty), of counts already bucketed: counts[i] is bucket i
 * (hist__bucket_bounds()), counts[0] (values of 0) printed in the
 * "0 -> 1" row, e.g. a BPF histogram's slots. nr <= HIST_MAX_BUCKETS;
 * all empty prints "count: 0". 0, -EINVAL or -EIO.
 */
int hist__print_rows(FILE *out, const uint64_t *counts, int nr,
		     const char *unit_label);

#endif
