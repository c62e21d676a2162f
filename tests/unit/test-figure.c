// SPDX-License-Identifier: GPL-2.0
/*
 * The one rule for printed numbers (include/figure.h). Every expected text
 * is worked out by hand in the comment beside it.
 */
#include <stdio.h>
#include <string.h>

#include "figure.h"
#include "unit.h"
#include "util.h"

static const char *ratio(uint64_t num, uint64_t den, uint64_t unit, int dec,
			 int width)
{
	static char buf[8][64];
	static int i;

	i = (i + 1) % 8;
	figure__ratio(buf[i], sizeof(buf[i]), num, den, unit, dec, width);
	return buf[i];
}

static const char *dbl(double v, int dec, int width)
{
	static char buf[8][64];
	static int i;

	i = (i + 1) % 8;
	figure__double(buf[i], sizeof(buf[i]), v, dec, width);
	return buf[i];
}

/* Rounding to the nearest, a half up, in integers. */
static void test_ratio_rounding(void)
{
	CHECK_STR(ratio(1833, 1, 1000, 0, 0), "2");	/* 1.833 */
	CHECK_STR(ratio(1743, 1, 1000, 0, 0), "2");	/* 1.743 */
	CHECK_STR(ratio(1499, 1, 1000, 0, 0), "1");
	CHECK_STR(ratio(1500, 1, 1000, 0, 0), "2");	/* half up */
	CHECK_STR(ratio(2500, 1, 1000, 0, 0), "3");	/* not to even */
	CHECK_STR(ratio(1949, 1, 1000, 1, 0), "1.9");
	CHECK_STR(ratio(1950, 1, 1000, 1, 0), "2.0");
	CHECK_STR(ratio(7999999, 1, 1000000, 0, 0), "8");
	CHECK_STR(ratio(12345, 1, 1, 0, 0), "12345");
	CHECK_STR(ratio(0, 1, 1000, 1, 0), "0.0");
	CHECK_STR(ratio(0, 1, 1000, 0, 0), "0");
	/* avg: 577000 ns over 115 values in usecs = 5.0173... */
	CHECK_STR(ratio(577000, 115, 1000, 0, 0), "5");
	CHECK_STR(ratio(577000, 115, 1000, 3, 0), "5.017");
	/* 2^64 - 1 ns: 18446744073.709551615 s, no overflow */
	CHECK_STR(ratio(UINT64_MAX, 1, 1000000000, 3, 0), "18446744073.710");
	CHECK_STR(ratio(UINT64_MAX, 1, 1, 0, 0), "18446744073709551615");
}

/* Under one unit: two significant digits at least, never 0. */
static void test_ratio_sub_unit(void)
{
	CHECK_STR(ratio(951, 1, 1000, 0, 0), "0.95");
	CHECK_STR(ratio(951, 1, 1000, 1, 0), "0.95");
	CHECK_STR(ratio(951, 1, 1000, 3, 0), "0.951");
	CHECK_STR(ratio(5, 1, 1000, 0, 0), "0.005");	/* 0.0050 stripped */
	CHECK_STR(ratio(400, 1, 1000000, 3, 0), "0.0004");
	CHECK_STR(ratio(455, 1, 1000000, 3, 0), "0.00046");	/* a half up */
	CHECK_STR(ratio(1, 3, 1, 0, 0), "0.33");
	CHECK_STR(ratio(2, 3, 1, 0, 0), "0.67");
	/* 0.996 at two digits carries to 1 */
	CHECK_STR(ratio(996, 1000, 1, 0, 0), "1");
	/* the asked decimals stay: 0.5 with 3 decimals */
	CHECK_STR(ratio(500, 1, 1000, 3, 0), "0.500");
	/*
	 * Issue 27 item 1: a kernel span's avg in --unit ms, 9625 ns over 8
	 * holds = 1203.125 ns = 0.001203 ms, printed "0.000" on main (an
	 * integer ns average, then %.3f): two significant digits.
	 */
	CHECK_STR(ratio(9625, 8, 1000000, 3, 8), "0.0012");
	/* 1 ns in seconds: 1e-9 */
	CHECK_STR(ratio(1, 1, 1000000000, 0, 0), "0.000000001");
}

/* A width gives up decimals, never the figure. */
static void test_width(void)
{
	CHECK_STR(ratio(123456789, 1, 1000, 1, 8), "123456.8");
	CHECK_STR(ratio(1234567890, 1, 1000, 1, 8), "1234568");
	CHECK_STR(ratio(123456789012ULL, 1, 1000, 1, 8), "123456789");
	/* 0.000123 in 6 columns: one significant digit, 0.0001 */
	CHECK_STR(ratio(123, 1, 1000000, 3, 6), "0.0001");
	/* in 3 columns it cannot fit: printed whole, not cut to "0.0" */
	CHECK_STR(ratio(123, 1, 1000000, 3, 3), "0.0001");
	CHECK_STR(dbl(0.000123, 2, 6), "0.0001");
	CHECK_STR(dbl(1234.5678, 2, 6), "1234.6");
}

static void test_double(void)
{
	char buf[32];

	CHECK_STR(dbl(75, 4, 0), "75.0000");
	CHECK_STR(dbl(0.004, 2, 0), "0.004");
	CHECK_STR(dbl(-0.004, 2, 0), "-0.004");
	CHECK_STR(dbl(0.0000546, 6, 0), "0.000055");
	CHECK_STR(dbl(0.0616, 2, 0), "0.062");
	CHECK_STR(dbl(0.233, 2, 0), "0.23");
	CHECK_STR(dbl(162.5, 2, 12), "162.50");
	CHECK_STR(dbl(0, 2, 0), "0.00");
	figure__count(buf, sizeof(buf), 75, 4, 0);
	CHECK_STR(buf, "75");
	figure__count(buf, sizeof(buf), 0, 4, 0);
	CHECK_STR(buf, "0");
	figure__count(buf, sizeof(buf), 2.5, 4, 0);
	CHECK_STR(buf, "2.5000");
}

/*
 * Figures in order print in order: every pair of ratios across the
 * sub-unit boundary and decades, compared as numbers.
 */
static void test_monotonic(void)
{
	static const uint64_t units[] = { 1, 1000, 1000000 };
	uint64_t u, v, step;
	double prev, cur;
	size_t k, compared = 0;
	int dec;

	for (k = 0; k < ARRAY_SIZE(units); k++)
		for (dec = 0; dec <= 3; dec++) {
			prev = -1;
			step = units[k] > 1000 ? 997 : 1;
			for (v = 0; v < 5 * units[k] + 3000; v += step) {
				u = v;
				cur = strtod(ratio(u, 1, units[k], dec, 8),
					     NULL);
				if (cur < prev) {
					UNIT_FAIL("%" PRIu64 "/%" PRIu64
						  " at %d decimals prints below"
						  " the one before", u,
						  units[k], dec);
					return;
				}
				prev = cur;
				compared++;
			}
		}
	/* Every unit and precision walked its range. */
	CHECK(compared > 12 * 3000);
}

static void test_time_unit(void)
{
	CHECK_STR(figure__time_unit(1), "ns");
	CHECK_STR(figure__time_unit(1000), "us");
	CHECK_STR(figure__time_unit(1000000), "ms");
	CHECK(figure__time_unit(7) == NULL);
}

UNIT_MAIN(UNIT(test_ratio_rounding), UNIT(test_ratio_sub_unit),
	  UNIT(test_width), UNIT(test_double), UNIT(test_monotonic),
	  UNIT(test_time_unit));
