// SPDX-License-Identifier: GPL-2.0
/*
 * Log2 histograms. Every expected text below was worked out by hand from
 * bcc's _print_log2_hist() and _stars() (src/python/bcc/table.py) and
 * funclatency.py's avg line; the comment above each case shows the
 * arithmetic. Reminders of the algorithm:
 *   - a value v (divided by the unit first) goes to bucket floor(log2 v)+1
 *     (bpf_log2l(), which also puts 0 in bucket 1);
 *   - rows run from bucket 1 to the last non-empty one, bucket i printed as
 *     2^(i-1) -> 2^i - 1 except bucket 1, "0 -> 1";
 *   - stars = floor(width * count / max count), width 40 (20 when the last
 *     bucket is above 32);
 *   - avg = raw sum / unit / count, total = raw sum / unit, and the
 *     percentiles, rounded to the nearest, a half up (figure.h; bcc
 *     truncates), a value under one unit with two significant digits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "unit.h"
#include "util.h"

/* The printed text of h. */
static char *print(struct hist *h, uint64_t divisor, const char *label)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		UNIT_FAIL("open_memstream");
		return strdup("");
	}
	CHECK_INT(hist__print(h, f, divisor, label), 0);
	fclose(f);
	return buf;
}

#define CHECK_PRINT(h, div, label, expect)				\
	do {								\
		char *_o = print(h, div, label);			\
		CHECK_STR(_o, expect);					\
		free(_o);						\
	} while (0)

static struct hist *hist_of(const uint64_t *v, size_t n)
{
	struct hist *h = hist__new();
	size_t i;

	if (!h)
		return NULL;
	for (i = 0; i < n; i++)
		if (hist__add(h, v[i]))
			UNIT_FAIL("hist__add");
	return h;
}

/* Add n copies of v. */
static void add_n(struct hist *h, uint64_t v, int n)
{
	while (n-- > 0)
		if (hist__add(h, v))
			UNIT_FAIL("hist__add");
}

/*
 * The funclatency example of docs/formats.md, in usecs: 12 values of
 * 3000 ns (3 us: bucket 2, "2 -> 3") and 103 in bucket 3 ("4 -> 7"):
 * 77 x 5000 ns and 26 x 6000 ns. Bucket 1 is empty but printed (funclatency
 * does not strip leading zeros). Max count 103: row 2 gets
 * floor(40 * 12 / 103) = floor(4.66) = 4 stars, row 3 40.
 * Raw sum 36000 + 385000 + 156000 = 577000 ns: total 577 us, avg
 * 577000 / 115 = 5017 ns -> 5 us. Sorted: ranks 1-12 are 3000, 13-89
 * 5000, 90-115 6000; p50 rank ceil(57.5) = 58 -> 5 us, p90 rank
 * ceil(103.5) = 104 -> 6 us, p99 rank ceil(113.85) = 114 -> 6 us.
 */
static void test_funclatency_example(void)
{
	struct hist *h = hist__new();

	add_n(h, 3000, 12);
	add_n(h, 5000, 77);
	add_n(h, 6000, 26);
	CHECK_PRINT(h, 1000, "usecs",
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 0        |                                        |\n"
		"         2 -> 3          : 12       |****                                    |\n"
		"         4 -> 7          : 103      |****************************************|\n"
		"avg = 5 usecs, total: 577 usecs, count: 115\n"
		"p50 = 5 usecs, p90 = 6 usecs, p99 = 6 usecs, max = 6 usecs\n");
	CHECK_U64(hist__count(h), 115);
	CHECK_U64(hist__total(h), 577000);
	CHECK_U64(hist__min(h), 3000);
	CHECK_U64(hist__max(h), 6000);
	hist__delete(h);
}

/*
 * Star rounding, with a label that is no time unit: counts 1, 2, 3 in
 * buckets 1 (value 1), 2 (value 2) and 3 (value 4); max 3, so
 * floor(40/3) = 13, floor(80/3) = floor(26.67) = 26 (floored, not
 * rounded), 40. The label pads to 19 like a unit does. Sum
 * 1 + 2*2 + 3*4 = 17, avg 17 / 6 = 2.83, rounded 3. Sorted 1 2 2 4 4 4:
 * p50 rank 3 = 2, p90 rank ceil(5.4) = 6 = 4, p99 rank ceil(5.94) = 6 = 4.
 */
static void test_stars(void)
{
	struct hist *h = hist__new();

	add_n(h, 4, 3);
	add_n(h, 2, 2);
	add_n(h, 1, 1);
	CHECK_PRINT(h, 1, "updates",
		"     updates             : count     distribution\n"
		"         0 -> 1          : 1        |*************                           |\n"
		"         2 -> 3          : 2        |**************************              |\n"
		"         4 -> 7          : 3        |****************************************|\n"
		"avg = 3 updates, total: 17 updates, count: 6\n"
		"p50 = 2 updates, p90 = 4 updates, p99 = 4 updates, max = 4 updates\n");
	hist__delete(h);
}

/*
 * Unit division, and zeros in the "0 -> 1" row: in msecs the values
 * 0, 999999, 1000000, 2500000, 7999999 ns read 0, 0, 1, 2, 7, so bucket 1
 * holds 3 (0, 0 and 1), bucket 2 one (2), bucket 3 one (7); stars 40,
 * floor(40/3) = 13, 13. total is the raw sum divided, 12499998 / 1e6 = 12
 * (not 0+0+1+2+7 = 10), avg 12499998 / 5 = 2499999 -> 2. Percentiles of
 * the raw values: p50 rank ceil(2.5) = 3 = 1000000 -> 1, p90 rank
 * ceil(4.5) = 5 = 7999999 -> 7.999999, rounded 8 (bcc truncates to 7, which
 * is how a p50 could print above a rounded min), p99 rank 5 -> 8.
 */
static void test_units(void)
{
	static const uint64_t v[] = { 7999999, 0, 2500000, 999999, 1000000 };
	struct hist *h = hist_of(v, ARRAY_SIZE(v));

	CHECK_PRINT(h, 1000000, "msecs",
		"     msecs               : count     distribution\n"
		"         0 -> 1          : 3        |****************************************|\n"
		"         2 -> 3          : 1        |*************                           |\n"
		"         4 -> 7          : 1        |*************                           |\n"
		"avg = 2 msecs, total: 12 msecs, count: 5\n"
		"p50 = 1 msecs, p90 = 8 msecs, p99 = 8 msecs, max = 8 msecs\n");
	/* The same values in nsecs end at bucket 23 (2^22 <= 7999999). */
	CHECK_INT(hist__buckets(h, 1, NULL, 0), 23);
	hist__delete(h);
}

/* Only zeros: one "0 -> 1" row with all of them, full bar; avg 0. */
static void test_zeros(void)
{
	struct hist *h = hist__new();

	add_n(h, 0, 2);
	CHECK_PRINT(h, 1, "nsecs",
		"     nsecs               : count     distribution\n"
		"         0 -> 1          : 2        |****************************************|\n"
		"avg = 0 nsecs, total: 0 nsecs, count: 2\n"
		"p50 = 0 nsecs, p90 = 0 nsecs, p99 = 0 nsecs, max = 0 nsecs\n");
	hist__delete(h);
}

/* Our choice for an empty hist (funclatency prints nothing). */
static void test_empty(void)
{
	struct hist *h = hist__new();

	CHECK_PRINT(h, 1000, "usecs", "count: 0\n");
	CHECK_U64(hist__percentile(h, 50), 0);
	CHECK_U64(hist__min(h), 0);
	CHECK_U64(hist__max(h), 0);
	CHECK_INT(hist__buckets(h, 1, NULL, 0), 0);
	hist__delete(h);
}

/* Return the n-th line (0-based) of text, in buf. */
static const char *line_of(const char *text, int n, char *buf, size_t sz)
{
	const char *p = text, *e;

	while (n-- > 0 && p) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return "";
	e = strchr(p, '\n');
	snprintf(buf, sz, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

/*
 * Issue 27 item 1: one rounding for every summary figure. Values 1743,
 * 1833, 1833, 2100 ns in usecs: min 1.743 -> 2, p50 rank 2 = 1833 -> 2
 * (bcc's truncation printed 1, under the rounded min 2), p90 and p99
 * rank 4 = 2100 -> 2; total 7509 -> 8 (7.509), avg 1877.25 -> 2. A hold
 * of 951 ns alone: 0.95 usecs everywhere, never 0.
 */
static void test_one_rounding(void)
{
	static const uint64_t v[] = { 1833, 1743, 2100, 1833 };
	struct hist *h = hist_of(v, ARRAY_SIZE(v));
	char *o = print(h, 1000, "usecs"), buf[256];

	CHECK_STR(line_of(o, 3, buf, sizeof(buf)),
		  "avg = 2 usecs, total: 8 usecs, count: 4");
	CHECK_STR(line_of(o, 4, buf, sizeof(buf)),
		  "p50 = 2 usecs, p90 = 2 usecs, p99 = 2 usecs, max = 2 usecs");
	free(o);
	hist__delete(h);
	h = hist__new();
	add_n(h, 951, 1);
	o = print(h, 1000, "usecs");
	CHECK_STR(line_of(o, 2, buf, sizeof(buf)),
		  "avg = 0.95 usecs, total: 0.95 usecs, count: 1");
	CHECK_STR(line_of(o, 3, buf, sizeof(buf)),
		  "p50 = 0.95 usecs, p90 = 0.95 usecs, p99 = 0.95 usecs, max = 0.95 usecs");
	free(o);
	hist__delete(h);
}

/*
 * The wide layout: 1 and 2^32 = 4294967296 land in buckets 1 and 33
 * (floor(log2 2^32) + 1); 33 > 32, so the header pads 15 + %-29s and rows
 * are %20d -> %-20d with a 20-star bar. Each count is 1 = the max: 20
 * stars; empty rows 2..32 between them. Lines: header, 33 rows, avg,
 * percentiles on two lines (on one they would take 86 columns) = 37.
 * Row 32 is 2^31 -> 2^32 - 1. Sum 4294967297, avg
 * 4294967297 / 2 = 2147483648.5, rounded half up 2147483649; p50 rank 1 = 1, p90 rank
 * ceil(1.8) = 2 = 4294967296.
 */
static void test_wide(void)
{
	static const uint64_t v[] = { 1, 4294967296ULL };
	struct hist *h = hist_of(v, ARRAY_SIZE(v));
	char *o = print(h, 1, "nsecs");
	char buf[256];
	int lines = 0;
	const char *p;

	for (p = o; *p; p++)
		lines += *p == '\n';
	CHECK_INT(lines, 37);
	CHECK_STR(line_of(o, 0, buf, sizeof(buf)),
		  "               nsecs                         : count     distribution");
	CHECK_STR(line_of(o, 1, buf, sizeof(buf)),
		  "                   0 -> 1                    : 1        |********************|");
	CHECK_STR(line_of(o, 2, buf, sizeof(buf)),
		  "                   2 -> 3                    : 0        |                    |");
	CHECK_STR(line_of(o, 32, buf, sizeof(buf)),
		  "          2147483648 -> 4294967295           : 0        |                    |");
	CHECK_STR(line_of(o, 33, buf, sizeof(buf)),
		  "          4294967296 -> 8589934591           : 1        |********************|");
	CHECK_STR(line_of(o, 34, buf, sizeof(buf)),
		  "avg = 2147483649 nsecs, total: 4294967297 nsecs, count: 2");
	CHECK_STR(line_of(o, 35, buf, sizeof(buf)),
		  "p50 = 1 nsecs, p90 = 4294967296 nsecs, p99 = 4294967296 nsecs,");
	CHECK_STR(line_of(o, 36, buf, sizeof(buf)),
		  "max = 4294967296 nsecs");
	free(o);

	/*
	 * 2^32 - 1 tops bucket 32: not wide (32 is not above 32), and the
	 * 10-digit column just holds 2147483648.
	 */
	hist__delete(h);
	h = hist__new();
	add_n(h, 4294967295ULL, 1);
	o = print(h, 1, "nsecs");
	CHECK_STR(line_of(o, 0, buf, sizeof(buf)),
		  "     nsecs               : count     distribution");
	CHECK_STR(line_of(o, 32, buf, sizeof(buf)),
		  "2147483648 -> 4294967295 : 1        |****************************************|");
	free(o);
	hist__delete(h);
}

/*
 * The top bucket, 64 = floor(log2(2^64 - 1)) + 1: 2^63 ->
 * 18446744073709551615 (20 digits fill the column). Two of them saturate
 * the total at 2^64 - 1, so avg = (2^64 - 1) / 2 = 9223372036854775807.5,
 * rounded half up 9223372036854775808.
 */
static void test_top_bucket(void)
{
	struct hist *h = hist__new();
	struct hist_bucket b[HIST_MAX_BUCKETS];
	char *o, buf[256];

	add_n(h, UINT64_MAX, 2);
	CHECK_U64(hist__total(h), UINT64_MAX);
	CHECK_INT(hist__buckets(h, 1, b, HIST_MAX_BUCKETS), 64);
	CHECK_U64(b[63].low, 9223372036854775808ULL);
	CHECK_U64(b[63].high, UINT64_MAX);
	CHECK_U64(b[63].count, 2);
	o = print(h, 1, "nsecs");
	CHECK_STR(line_of(o, 64, buf, sizeof(buf)),
		  " 9223372036854775808 -> 18446744073709551615 : 2        |********************|");
	CHECK_STR(line_of(o, 65, buf, sizeof(buf)),
		  "avg = 9223372036854775808 nsecs, total: 18446744073709551615 nsecs, count: 2");
	free(o);
	hist__delete(h);
}

static void test_bucket_index(void)
{
	CHECK_INT(hist__bucket_index(0), 0);
	CHECK_INT(hist__bucket_index(1), 1);
	CHECK_INT(hist__bucket_index(2), 2);
	CHECK_INT(hist__bucket_index(3), 2);
	CHECK_INT(hist__bucket_index(4), 3);
	CHECK_INT(hist__bucket_index(7), 3);
	CHECK_INT(hist__bucket_index(8), 4);
	CHECK_INT(hist__bucket_index(4294967295ULL), 32);
	CHECK_INT(hist__bucket_index(4294967296ULL), 33);
	CHECK_INT(hist__bucket_index(UINT64_MAX), 64);
}

/*
 * Nearest rank: rank ceil(q * n / 100), at least 1. q = 50 on
 * 1 value: rank ceil(0.5) = 1; 2: ceil(1) = 1; 3: ceil(1.5) = 2;
 * 4: ceil(2) = 2.
 */
static void test_percentile(void)
{
	static const uint64_t v[] = { 40, 10, 30, 20 };
	struct hist *h;
	int i;

	h = hist_of(v + 1, 1);		/* 10 */
	CHECK_U64(hist__percentile(h, 50), 10);
	hist__delete(h);
	h = hist_of(v, 2);		/* 40 10 */
	CHECK_U64(hist__percentile(h, 50), 10);
	hist__delete(h);
	h = hist_of(v, 3);		/* 40 10 30 */
	CHECK_U64(hist__percentile(h, 50), 30);
	hist__delete(h);
	h = hist_of(v, 4);		/* 40 10 30 20 */
	CHECK_U64(hist__percentile(h, 50), 20);
	/* ranks ceil(1) = 1, ceil(3) = 3, ceil(3.04) = 4; ends. */
	CHECK_U64(hist__percentile(h, 25), 10);
	CHECK_U64(hist__percentile(h, 75), 30);
	CHECK_U64(hist__percentile(h, 76), 40);
	CHECK_U64(hist__percentile(h, 0), 10);
	CHECK_U64(hist__percentile(h, 100), 40);
	/* Adding after a percentile re-sorts: 5 is now rank 1. */
	add_n(h, 5, 1);
	CHECK_U64(hist__percentile(h, 20), 5);	/* rank ceil(1) = 1 */
	CHECK_U64(hist__percentile(h, 50), 20);	/* rank ceil(2.5) = 3 */
	hist__delete(h);

	/* 1..1000: p99.9 is rank 999 (99.9 * 1000 / 100 is 999 in doubles). */
	h = hist__new();
	for (i = 1000; i >= 1; i--)
		add_n(h, i, 1);
	CHECK_U64(hist__percentile(h, 99.9), 999);
	CHECK_U64(hist__percentile(h, 99), 990);
	CHECK_U64(hist__percentile(h, 0.05), 1);	/* ceil(0.5) */
	CHECK_U64(hist__percentile(h, 0.15), 2);	/* ceil(1.5) */
	hist__delete(h);
}

/* hist__summary() of h, every field of it (none left as it was). */
static void check_summary(struct hist *h, const struct hist_summary *want)
{
	struct hist_summary s;

	memset(&s, 0xff, sizeof(s));
	hist__summary(h, &s);
	CHECK_U64(s.count, want->count);
	CHECK_U64(s.total, want->total);
	CHECK_U64(s.min, want->min);
	CHECK_U64(s.max, want->max);
	CHECK_U64(s.p50, want->p50);
	CHECK_U64(s.p90, want->p90);
	CHECK_U64(s.p99, want->p99);
}

/*
 * The summary of 100 down to 1: total 100 * 101 / 2 = 5050, the nearest
 * ranks 50, 90 and 99 are the values themselves; an empty hist all 0.
 */
static void test_summary(void)
{
	static const struct hist_summary empty = { 0 };
	static const struct hist_summary hundred = {
		.count = 100, .total = 5050, .min = 1, .max = 100,
		.p50 = 50, .p90 = 90, .p99 = 99,
	};
	struct hist *h = hist__new();
	int i;

	if (!h) {
		UNIT_FAIL("hist__new");
		return;
	}
	check_summary(h, &empty);
	for (i = 100; i >= 1; i--)
		add_n(h, i, 1);
	check_summary(h, &hundred);
	hist__delete(h);
}

/* The rows of the funclatency example, and a short out array. */
static void test_buckets(void)
{
	struct hist *h = hist__new();
	struct hist_bucket b[HIST_MAX_BUCKETS];

	add_n(h, 3000, 12);
	add_n(h, 5000, 103);
	CHECK_INT(hist__buckets(h, 1000, b, HIST_MAX_BUCKETS), 3);
	CHECK_U64(b[0].low, 0);
	CHECK_U64(b[0].high, 1);
	CHECK_U64(b[0].count, 0);
	CHECK_U64(b[1].low, 2);
	CHECK_U64(b[1].high, 3);
	CHECK_U64(b[1].count, 12);
	CHECK_U64(b[2].low, 4);
	CHECK_U64(b[2].high, 7);
	CHECK_U64(b[2].count, 103);
	/* Too short: filled as far as it goes, the full count returned. */
	memset(b, 0xff, sizeof(b));
	CHECK_INT(hist__buckets(h, 1000, b, 2), 3);
	CHECK_U64(b[1].count, 12);
	CHECK_U64(b[2].count, UINT64_MAX);	/* untouched */
	/* In ns: 3000 is bucket 12 (2048..4095), 5000 bucket 13. */
	CHECK_INT(hist__buckets(h, 1, b, HIST_MAX_BUCKETS), 13);
	CHECK_U64(b[11].low, 2048);
	CHECK_U64(b[11].count, 12);
	CHECK_U64(b[12].low, 4096);
	CHECK_U64(b[12].high, 8191);
	CHECK_U64(b[12].count, 103);
	CHECK_INT(hist__buckets(h, 0, b, HIST_MAX_BUCKETS), -EINVAL);
	hist__delete(h);
}

/* Errors come back as -errno, nothing printed elsewhere. */
static void test_errors(void)
{
	struct hist *h = hist__new();
	FILE *ro = fopen("/dev/null", "r");

	add_n(h, 1, 1);
	CHECK_INT(hist__print(h, stdout, 0, "nsecs"), -EINVAL);
	if (ro) {
		CHECK_INT(hist__print(h, ro, 1, "nsecs"), -EIO);
		fclose(ro);
	}
	hist__delete(h);
	hist__delete(NULL);
}

/*
 * The bounds of every bucket hold exactly the values hist__bucket_index()
 * puts there: they tile 0..UINT64_MAX with no gap, and the printed row
 * of bucket 1 starts at 0.
 */
static void test_bounds(void)
{
	uint64_t low, high, next = 1;
	int i;

	hist__bucket_bounds(0, &low, &high);
	CHECK_U64(low, 0);
	CHECK_U64(high, 0);
	for (i = 1; i < HIST_MAX_BUCKETS; i++) {
		hist__bucket_bounds(i, &low, &high);
		CHECK_U64(low, next);
		CHECK_INT(hist__bucket_index(low), i);
		CHECK_INT(hist__bucket_index(high), i);
		CHECK(high >= low);
		next = high + 1;
	}
	CHECK_U64(high, UINT64_MAX);
	hist__row_bounds(1, &low, &high);
	CHECK_U64(low, 0);
	CHECK_U64(high, 1);
	hist__row_bounds(13, &low, &high);
	CHECK_U64(low, 4096);
	CHECK_U64(high, 8191);
}

UNIT_MAIN(UNIT(test_funclatency_example), UNIT(test_stars), UNIT(test_units),
	  UNIT(test_one_rounding),
	  UNIT(test_zeros), UNIT(test_empty), UNIT(test_wide),
	  UNIT(test_top_bucket), UNIT(test_bucket_index),
	  UNIT(test_percentile), UNIT(test_summary), UNIT(test_buckets),
	  UNIT(test_bounds),
	  UNIT(test_errors))
