// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics. Every expected value is from an independent source named
 * above its case: a published table, a worked example from the
 * literature, mmtests' or ministat's definition applied by hand.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "unit.h"

#define CHECK_NEAR(a, b, tol)						\
	do {								\
		double _a = (a), _b = (b);				\
		UNIT_CHECKED();						\
		if (!(fabs(_a - _b) <= (tol)))				\
			UNIT_FAIL("%s == %.10g, expected %.10g (+/- %g)", \
				  #a, _a, _b, (double)(tol));		\
	} while (0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * t_{0.975, df}: the two-sided 5% critical values of any printed Student
 * t table (e.g. NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2,
 * "Critical values of the Student's t distribution"), to 3 decimals.
 */
static void test_t_quantile_table(void)
{
	static const struct {
		double df, t;
	} table[] = {
		{ 1, 12.706 }, { 2, 4.303 }, { 5, 2.571 },
		{ 10, 2.228 }, { 30, 2.042 }, { 100, 1.984 },
	};
	size_t i;

	for (i = 0; i < N(table); i++) {
		CHECK_NEAR(stats__t_quantile(0.975, table[i].df), table[i].t,
			   0.0005);
		CHECK_NEAR(stats__t_quantile(0.025, table[i].df), -table[i].t,
			   0.0005);
	}
	/* Same table, one-sided 10% column (t_{0.90}): 3.078, 1.372. */
	CHECK_NEAR(stats__t_quantile(0.90, 1), 3.078, 0.0005);
	CHECK_NEAR(stats__t_quantile(0.90, 10), 1.372, 0.0005);
	/* Symmetry and the median. */
	CHECK_NEAR(stats__t_quantile(0.5, 7), 0, 1e-12);
	CHECK(isnan(stats__t_quantile(0, 5)));
	CHECK(isnan(stats__t_quantile(1, 5)));
	CHECK(isnan(stats__t_quantile(0.5, 0)));
}

/*
 * The CDF in closed forms: df = 1 is the Cauchy distribution,
 * F(t) = 1/2 + atan(t) / pi; df = 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2))
 * (both e.g. in Johnson, Kotz & Balakrishnan, Continuous Univariate
 * Distributions vol. 2, ch. 28).
 */
static void test_t_cdf_closed_forms(void)
{
	double t;

	for (t = -20; t <= 20; t += 0.37) {
		CHECK_NEAR(stats__t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		CHECK_NEAR(stats__t_cdf(t, 2),
			   0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
	CHECK_NEAR(stats__t_cdf(0, 3.5), 0.5, 1e-15);
	/* I_x(1, 1) = x; I_x(a, 1) = x^a (the definition). */
	CHECK_NEAR(stats__betai(1, 1, 0.3), 0.3, 1e-14);
	CHECK_NEAR(stats__betai(3, 1, 0.5), 0.125, 1e-14);
	CHECK_NEAR(stats__betai(2.5, 4, 0), 0, 0);
	CHECK_NEAR(stats__betai(2.5, 4, 1), 1, 0);
	CHECK(isnan(stats__betai(0, 1, 0.5)));
}

static void summarize(const double *x, size_t n, struct stats_summary *s)
{
	if (stats__summarize(x, n, s))
		UNIT_FAIL("stats__summarize failed");
}

/*
 * mmtests' calc_quartiles (bin/lib/MMTests/Stat.pm):
 * $x[int($#x * ($i / 100) + 0.5)] on the sorted values. By hand for
 * 1..10 given shuffled ($#x = 9): 25 -> int(2.75) = 2 -> 3;
 * 50 -> int(5.0) = 5 -> 6; 75 -> int(7.25) = 7 -> 8; 1 -> int(0.59) -> 1;
 * 5 -> int(0.95) -> 1; 10 -> int(1.4) -> 2; 90 -> int(8.6) -> 9;
 * 95 -> int(9.05) -> 10; 99 -> int(9.41) -> 10.
 */
static void test_quartiles_mmtests(void)
{
	static const double x[] = { 7, 3, 10, 1, 9, 2, 8, 5, 4, 6 };
	struct stats_summary s;

	summarize(x, N(x), &s);
	CHECK_INT(s.n, 10);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 10, 0);
	CHECK_NEAR(s.pct[25], 3, 0);
	CHECK_NEAR(s.pct[50], 6, 0);
	CHECK_NEAR(s.pct[75], 8, 0);
	CHECK_NEAR(s.pct[1], 1, 0);
	CHECK_NEAR(s.pct[5], 1, 0);
	CHECK_NEAR(s.pct[10], 2, 0);
	CHECK_NEAR(s.pct[90], 9, 0);
	CHECK_NEAR(s.pct[95], 10, 0);
	CHECK_NEAR(s.pct[99], 10, 0);
	CHECK_NEAR(s.pct[100], 10, 0);
	/* ministat's Median is points[n / 2]: the 6th of 10. */
	CHECK_NEAR(s.ministat_median, 6, 0);
}

/*
 * Three values, $#x = 2: 25 -> int(0.5 + 0.5) = 1 (the middle one),
 * 50 -> 1, 75 -> int(2.0) = 2: mmtests rounds half up.
 */
static void test_quartiles_small(void)
{
	static const double x[] = { 30, 10, 20 };
	static const double one[] = { 4.5 };
	struct stats_summary s;

	summarize(x, N(x), &s);
	CHECK_NEAR(s.pct[25], 20, 0);
	CHECK_NEAR(s.pct[50], 20, 0);
	CHECK_NEAR(s.pct[75], 30, 0);
	CHECK_NEAR(s.pct[1], 10, 0);
	summarize(one, 1, &s);
	CHECK_NEAR(s.pct[1], 4.5, 0);
	CHECK_NEAR(s.pct[99], 4.5, 0);
	CHECK(!s.has_var);
	CHECK_NEAR(s.stddev, 0, 0);
	CHECK_NEAR(s.coeffvar, 0, 0);
}

/*
 * Means and deviation by hand. {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, squares
 * of deviations 9+1+1+1+0+0+4+16 = 32, sample variance 32 / 7, stddev
 * sqrt(32 / 7) = 2.138089935; coeffvar 42.76179870 %. Harmonic mean of
 * {1, 2, 4}: 3 / (1 + 1/2 + 1/4) = 12 / 7.
 */
static void test_means(void)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	static const double h[] = { 1, 2, 4 };
	static const double z[] = { 0, 2, 4 };
	struct stats_summary s;

	summarize(x, N(x), &s);
	CHECK_NEAR(s.amean, 5, 1e-12);
	CHECK_NEAR(s.var, 32.0 / 7, 1e-12);
	CHECK_NEAR(s.stddev, 2.138089935, 1e-9);
	CHECK_NEAR(s.coeffvar, 42.76179870, 1e-7);
	summarize(h, N(h), &s);
	CHECK_NEAR(s.hmean, 12.0 / 7, 1e-12);
	/* A zero has no reciprocal: no harmonic mean. */
	summarize(z, N(z), &s);
	CHECK(isnan(s.hmean));
	CHECK(stats__summarize(h, 0, &s) == -22);
}

/*
 * mmtests' pdiff / pndiff (Stat.pm), by hand: base 8.19, new 9.03 lower
 * is better: 100 - 903 / 8.19 = -10.2564...; the thread's "-10.26%".
 */
static void test_pdiff(void)
{
	CHECK_NEAR(stats__pdiff(9.03, 8.19, true), -10.25641026, 1e-6);
	CHECK_NEAR(stats__pdiff(9.03, 8.19, false), 10.25641026, 1e-6);
	CHECK_NEAR(stats__pdiff(5, 5, true), 0, 0);
	CHECK_NEAR(stats__pdiff(0, 5, true), 100, 0);
	CHECK_NEAR(stats__pdiff(5, 0, true), -99, 0);
	CHECK_NEAR(stats__pdiff(0, 5, false), 0, 0);
	CHECK_NEAR(stats__pdiff(5, 0, false), 100, 0);
}

/*
 * Wikipedia, "Welch's t-test", section "Examples": pairs of samples with
 * Welch's t, its Welch-Satterthwaite df and two-sided p, printed there to
 * 2, 1 and 3 figures (examples 1 and 2).
 */
static void welch_example(const double *a, size_t na, const double *b,
			  size_t nb, double t, double df, double p, bool sig)
{
	struct stats_summary sa, sb;
	struct stats_welch w;

	summarize(a, na, &sa);
	summarize(b, nb, &sb);
	CHECK(!stats__welch(&sa, &sb, 0.05, &w));
	CHECK_NEAR(w.t, t, 0.005);
	CHECK_NEAR(w.df, df, 0.05);
	CHECK_NEAR(w.p, p, p < 0.01 ? 0.00005 : 0.0005);
	CHECK(w.significant == sig);
	CHECK_INT(w.verdict, sig ? STATS_WELCH_DIFFERENT : STATS_WELCH_SAME);
}

static void test_welch_wikipedia(void)
{
	static const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9,
		20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	static const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8,
		22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	static const double b1[] = { 17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5,
		24.2, 14.7, 21.8 };
	static const double b2[] = { 21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5,
		20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5,
		23.5, 21.5, 21.8 };
	/*
	 * R's t.test(ts1, ts2) (Welch by default), as quoted in a Q&A on
	 * Welch confidence intervals: "t = -1.8325, df = 17.9, p-value =
	 * 0.08356".
	 */
	static const double c1[] = { 11, 9, 10, 11, 10, 12, 9, 11, 12, 9 };
	static const double c2[] = { 11, 13, 10, 13, 12, 9, 11, 12, 12, 11 };

	welch_example(a1, N(a1), a2, N(a2), -2.46, 25.0, 0.021, true);
	welch_example(b1, N(b1), b2, N(b2), -1.57, 9.9, 0.149, false);
	welch_example(c1, N(c1), c2, N(c2), -1.8325, 17.9, 0.08356, false);
}

static void test_welch_edges(void)
{
	static const double one[] = { 5 };
	static const double two[] = { 5, 7 };
	static const double flat5[] = { 5, 5, 5 };
	static const double flat6[] = { 6, 6, 6, 6 };
	struct stats_summary s1, s2, f5, f6;
	struct stats_welch w;

	summarize(one, 1, &s1);
	summarize(two, 2, &s2);
	summarize(flat5, 3, &f5);
	summarize(flat6, 4, &f6);
	/* n = 1: no variance, no test. */
	CHECK(!stats__welch(&s1, &s2, 0.05, &w));
	CHECK_INT(w.verdict, STATS_WELCH_TOO_FEW);
	CHECK(!w.significant);
	/* Identical sides: t 0, p 1. */
	CHECK(!stats__welch(&s2, &s2, 0.05, &w));
	CHECK_NEAR(w.t, 0, 0);
	CHECK_NEAR(w.p, 1, 1e-12);
	CHECK(!w.significant);
	/* No variance anywhere: equal means same, different means differ. */
	CHECK(!stats__welch(&f5, &f5, 0.05, &w));
	CHECK_INT(w.verdict, STATS_WELCH_EXACT_SAME);
	CHECK(!w.significant);
	CHECK(!stats__welch(&f5, &f6, 0.05, &w));
	CHECK_INT(w.verdict, STATS_WELCH_EXACT_DIFFERENT);
	CHECK(w.significant);
	CHECK(isinf(w.t) && w.t < 0);
	/*
	 * One side flat: df is the other side's n - 1 (the WS formula with
	 * one variance 0). {5, 7} against {6, 6, 6, 6}: same mean, t 0.
	 * {4, 6} against it: t = (5 - 6) / sqrt(2 / 2) = -1, df 1, and
	 * p = 2 * (1/2 - atan(1) / pi) = 0.5 (Cauchy CDF).
	 */
	CHECK(!stats__welch(&s2, &f6, 0.05, &w));
	CHECK_NEAR(w.t, 0, 1e-12);
	summarize((const double[]){ 4, 6 }, 2, &s2);
	CHECK(!stats__welch(&s2, &f6, 0.05, &w));
	CHECK_NEAR(w.t, -1, 1e-12);
	CHECK_NEAR(w.df, 1, 1e-12);
	CHECK_NEAR(w.p, 0.5, 1e-12);
	CHECK(stats__welch(&s2, &f6, 0, &w) == -22);
}

/*
 * ministat(1)'s man page example: iguana {50, 200, 150, 400, 750, 400,
 * 150} (x, base) against chameleon {150, 400, 720, 500, 930}: Avg 300 and
 * 540, Stddev 238.04761 and 299.08193, "No difference proven at 95.0%
 * confidence"; at 80% "240 +/- 212.215", "(Student's t, pooled s =
 * 264.159)". At 80% ministat's table has 1.372 for 10 df, so err / t *
 * 1.372 must give 212.215. The relative error: the man page's "70.7384%"
 * predates ministat.c's scaling of the base variance by the squared ratio
 * of the means; with today's formula, by hand:
 * 1.372 * sqrt((4 * 89450 + 6 * 56666.67 * 3.24) * 12 / 350) / 3
 * = 102.3002%.
 */
static void test_ministat_manpage(void)
{
	static const double iguana[] = { 50, 200, 150, 400, 750, 400, 150 };
	static const double chameleon[] = { 150, 400, 720, 500, 930 };
	struct stats_summary b, n;
	struct stats_ministat m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	summarize(iguana, N(iguana), &b);
	summarize(chameleon, N(chameleon), &n);
	CHECK_NEAR(b.stddev, 238.04761, 5e-6);
	CHECK_NEAR(n.stddev, 299.08193, 5e-6);
	CHECK_NEAR(b.ministat_median, 200, 0);
	CHECK_NEAR(n.ministat_median, 500, 0);
	CHECK(!stats__ministat(&b, &n, &m));
	CHECK(!m.significant);
	CHECK_NEAR(m.t, 2.228, 0);
	CHECK_NEAR(m.diff, 240, 1e-9);
	CHECK_NEAR(m.pooled_s, 264.159, 0.0005);
	CHECK_NEAR(m.err / m.t * 1.372, 212.215, 0.0005);
	CHECK_NEAR(m.pct, 80, 1e-9);
	CHECK_NEAR(m.pct_err / m.t * 1.372, 102.3002, 0.00005);

	f = open_memstream(&buf, &len);
	CHECK(!stats__ministat_print(f, &m));
	fclose(f);
	CHECK_STR(buf, "No difference proven at 95.0% confidence\n");
	free(buf);

	/* Forced significant: the printf formats of ministat.c. */
	m.significant = true;
	m.diff = 240;
	m.err = 212.215;
	m.pct = 80;
	m.pct_err = 70.7384;
	m.pooled_s = 264.159;
	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK(!stats__ministat_print(f, &m));
	fclose(f);
	CHECK_STR(buf, "Difference at 95.0% confidence\n"
		       "\t240 +/- 212.215\n"
		       "\t80% +/- 70.7384%\n"
		       "\t(Student's t, pooled s = 264.159)\n");
	free(buf);
}

/* ministat's table past 100 df is the normal quantile 1.960. */
static void test_ministat_large(void)
{
	double a[60], b[60];
	struct stats_summary sa, sb;
	struct stats_ministat m;
	int i;

	for (i = 0; i < 60; i++) {
		a[i] = 10 + (i % 5);
		b[i] = 12 + (i % 5);
	}
	summarize(a, 60, &sa);
	summarize(b, 60, &sb);
	CHECK(!stats__ministat(&sa, &sb, &m));
	CHECK_NEAR(m.t, 1.960, 0);
	CHECK(m.significant);
	CHECK_NEAR(m.diff, 2, 1e-12);
	CHECK_NEAR(m.pct, 2 * 100 / 12.0, 1e-12);
	summarize(a, 1, &sa);
	CHECK(!stats__ministat(&sa, &sb, &m));
	CHECK(m.too_few && !m.significant);
}

/*
 * Against scipy 1.10 (Debian's python3-scipy):
 * stats.mannwhitneyu(b, a, alternative="two-sided", method="asymptotic",
 * use_continuity=True). The first has ties across the sides, the second
 * one huge value on a that a test of means would follow.
 */
static void test_mann_whitney_scipy(void)
{
	const double a1[] = { 1, 2, 3, 4, 5, 5, 6, 7 };
	const double b1[] = { 3, 5, 5, 8, 9, 9, 10, 11, 12 };
	const double a2[] = { 12.1, 11.8, 12.5, 12.0, 13.2, 11.9, 12.2, 40.0 };
	const double b2[] = { 12.3, 12.9, 12.6, 13.1, 12.8, 13.4, 12.7, 13.0,
			      12.95 };
	const double same[] = { 4, 4, 4 };
	struct stats_mwu m;

	CHECK_INT(stats__mann_whitney(a1, 8, b1, 9, &m), 0);
	CHECK(m.u == 60.5);
	CHECK(fabs(m.p - 0.0199880785417) < 1e-10);
	CHECK(m.z > 0 && fabs(m.auc - 60.5 / 72) < 1e-12);
	CHECK_INT(stats__mann_whitney(a2, 8, b2, 9, &m), 0);
	CHECK(m.u == 54);
	CHECK(fabs(m.p - 0.0921935963657) < 1e-10);
	/* Swapped sides: the same p, the other direction. */
	CHECK_INT(stats__mann_whitney(b2, 9, a2, 8, &m), 0);
	CHECK(m.u == 18 && m.z < 0 && fabs(m.p - 0.0921935963657) < 1e-10);
	CHECK_INT(stats__mann_whitney(same, 3, same, 3, &m), 0);
	CHECK(m.p == 1 && m.z == 0 && m.auc == 0.5);
	CHECK_INT(stats__mann_whitney(same, 0, same, 3, &m), -EINVAL);
}

static void test_median_inplace(void)
{
	double even[] = { 3, 1, 2, 4 }, odd[] = { 5, 1, 3 };
	double dup[] = { 7, 7, 1, 7, 7, 7 };

	CHECK(stats__median_inplace(even, 4) == 2.5);
	CHECK(stats__median_inplace(odd, 3) == 3);
	CHECK(stats__median_inplace(dup, 6) == 7);
	CHECK(isnan(stats__median_inplace(odd, 0)));
}

/*
 * The bootstrap interval: repeatable for a seed; around the observed
 * difference; 0 inside it for two halves of one sample, outside it for
 * a shift of 10 that every value makes.
 */
static void test_bootstrap_median(void)
{
	double a[200], b[200];
	struct stats_ci ci, again;
	int i;

	for (i = 0; i < 200; i++) {
		a[i] = 100 + (i * 37 % 200) / 10.0;
		b[i] = a[i] + 10;
	}
	CHECK_INT(stats__bootstrap_median_diff(a, 200, b, 200, 2000, 0.05, 7,
					       &ci), 0);
	CHECK(ci.est == 10);
	CHECK(ci.lo > 7 && ci.lo <= 10 && ci.hi >= 10 && ci.hi < 13);
	CHECK_INT(stats__bootstrap_median_diff(a, 200, b, 200, 2000, 0.05, 7,
					       &again), 0);
	CHECK(ci.lo == again.lo && ci.hi == again.hi);
	CHECK_INT(stats__bootstrap_median_diff(a, 100, a + 100, 100, 2000,
					       0.05, 7, &ci), 0);
	CHECK(ci.lo < 0 && ci.hi > 0);
	CHECK_INT(stats__bootstrap_median_diff(a, 200, b, 200, 99, 0.05, 7,
					       &ci), -EINVAL);
}

/*
 * Worked by hand with scipy's t quantiles: n 3 and variance 1 on both
 * sides give se sqrt(2/3) at 4 degrees of freedom, and
 * (t(0.975, 4) + t(0.8, 4)) * se = 3.0352522955834.
 */
static void test_detectable_diff(void)
{
	const double x[] = { 1, 2, 3 }, y[] = { 11, 12, 13 }, one[] = { 5 };
	const double flat[] = { 2, 2, 2 };
	struct stats_summary a, b, c, d;

	CHECK_INT(stats__summarize(x, 3, &a), 0);
	CHECK_INT(stats__summarize(y, 3, &b), 0);
	CHECK_INT(stats__summarize(one, 1, &c), 0);
	CHECK_INT(stats__summarize(flat, 3, &d), 0);
	CHECK(fabs(stats__detectable_diff(&a, &b, 0.05, 0.8) -
		   3.0352522955834) < 1e-6);
	CHECK(isnan(stats__detectable_diff(&a, &c, 0.05, 0.8)));
	CHECK(stats__detectable_diff(&d, &d, 0.05, 0.8) == 0);
}

UNIT_MAIN(UNIT(test_t_quantile_table), UNIT(test_t_cdf_closed_forms),
	  UNIT(test_quartiles_mmtests), UNIT(test_quartiles_small),
	  UNIT(test_means), UNIT(test_pdiff), UNIT(test_welch_wikipedia),
	  UNIT(test_welch_edges), UNIT(test_ministat_manpage),
	  UNIT(test_ministat_large), UNIT(test_mann_whitney_scipy),
	  UNIT(test_median_inplace), UNIT(test_bootstrap_median),
	  UNIT(test_detectable_diff))
