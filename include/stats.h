/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for before/after comparisons, as the lists read them:
 * mmtests' summary rows (compare-kernels), Welch's t-test for its
 * significance marks, and FreeBSD ministat's pooled-variance verdict.
 * Everything is computed in-process: the Student t distribution comes
 * from the regularized incomplete beta function, nothing shells out to R.
 *
 * Functions return 0 or -errno; only stats__ministat_print() writes, to
 * the stream it is given.
 */
#ifndef RS_STATS_H
#define RS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A summary of a sample. pct[p] is mmtests' percentile p (calc_quartiles
 * in MMTests/Stat.pm): the sorted value of index floor((n - 1) * p / 100
 * + 0.5), so pct[25], pct[50], pct[75] are its quartiles and pct[1],
 * pct[5], ... its "Max-1", "Max-5" rows; pct[0] is the minimum.
 * ministat_median is ministat's Median (sorted[n / 2]).
 * stddev is the sample standard deviation (n - 1), 0 for n == 1 (and
 * then has_var is false); coeffvar is stddev * 100 / amean, 0 when the
 * mean is 0. hmean is the harmonic mean, NAN unless every value is > 0.
 */
struct stats_summary {
	size_t n;
	double min, max;
	double pct[101];
	double ministat_median;
	double amean, hmean;
	double stddev, var, coeffvar;
	bool has_var;
};

/* -EINVAL for n == 0 or a value that is not finite, -ENOMEM. */
int stats__summarize(const double *x, size_t n, struct stats_summary *s);

/*
 * mmtests' percentage difference of new against base, positive meaning
 * better: pndiff (100 - new * 100 / base) when lower is better, pdiff
 * (new * 100 / base - 100) when higher is. Their special cases are kept:
 * equal values 0; pndiff: new 0 gives 100, base 0 gives -99; pdiff: new
 * 0 gives 0, base 0 gives 100.
 */
double stats__pdiff(double new_val, double base, bool lower_is_better);

/* Regularized incomplete beta function I_x(a, b); NAN for bad input. */
double stats__betai(double a, double b, double x);
/* Student t CDF P(T <= t) with df > 0 (real) degrees of freedom. */
double stats__t_cdf(double t, double df);
/* The inverse: t with P(T <= t) == p, 0 < p < 1; NAN for bad input. */
double stats__t_quantile(double p, double df);

enum stats_welch_verdict {
	STATS_WELCH_SAME,		/* no significant difference */
	STATS_WELCH_DIFFERENT,		/* significant at alpha */
	STATS_WELCH_TOO_FEW,		/* n == 1 on a side: no variance */
	STATS_WELCH_EXACT_SAME,		/* no variance on either side, equal */
	STATS_WELCH_EXACT_DIFFERENT,	/* no variance on either side, not */
};

/*
 * Welch's unequal-variance t-test of a against b, two-sided:
 * t = (mean_a - mean_b) / sqrt(var_a / n_a + var_b / n_b), df by
 * Welch-Satterthwaite (real, not rounded), p the two-sided p-value,
 * crit the t quantile 1 - alpha / 2 at df. significant is |t| > crit.
 *
 * Edge cases: n == 1 on a side has no variance to test against, so the
 * verdict is TOO_FEW and not significant. Zero variance on both sides
 * leaves no noise: equal means are EXACT_SAME (not significant, t 0,
 * p 1), different means EXACT_DIFFERENT and significant (t +/-inf, p 0,
 * df NAN): every repetition gave the same figure, and that figure moved.
 */
struct stats_welch {
	enum stats_welch_verdict verdict;
	bool significant;
	double t, df, p, crit;
};

/* alpha in (0, 1), e.g. 0.05. -EINVAL for bad input. */
int stats__welch(const struct stats_summary *a, const struct stats_summary *b,
		 double alpha, struct stats_welch *w);

/*
 * ministat's verdict on new against base at 95%: pooled-variance
 * Student t with n_a + n_b - 2 degrees of freedom and ministat's own
 * table (3 decimals; the normal 1.960 beyond 100 degrees of freedom),
 * which stats__t_quantile() reproduces when rounded. diff is
 * mean_new - mean_base, err its half confidence interval, pct and pct_err
 * the same relative to the base mean, with ministat's formula for the
 * relative error as FreeBSD's ministat.c has it. too_few: n < 2 on a
 * side, when ministat has no verdict to give.
 */
struct stats_ministat {
	bool too_few;
	bool significant;
	double t, diff, err, pct, pct_err, pooled_s;
};

int stats__ministat(const struct stats_summary *base,
		    const struct stats_summary *new_s,
		    struct stats_ministat *m);

/*
 * Print the verdict as ministat does:
 *   Difference at 95.0% confidence
 *   <TAB>-0.84 +/- 0.0512
 *   <TAB>-10.26% +/- 0.62%
 *   <TAB>(Student's t, pooled s = 0.0433)
 * or "No difference proven at 95.0% confidence". 0 or -EIO.
 */
int stats__ministat_print(FILE *out, const struct stats_ministat *m);

/*
 * The Mann-Whitney U test of b against a, two-sided, for distributions
 * whose tails would decide a test of means (read latencies): u counts
 * the pairs (a_i, b_j) with b_j > a_i, ties counting half; auc is
 * u / (n_a n_b), the chance that a value of b exceeds one of a (0.5: no
 * tendency). z and p come from the normal approximation with the tie
 * correction and a continuity correction of 0.5, as scipy.stats'
 * mannwhitneyu(method="asymptotic") computes them; z > 0 when b tends
 * larger. -EINVAL for an empty side or a value that is not finite,
 * -ENOMEM.
 */
struct stats_mwu {
	double u, auc, z, p;
};
int stats__mann_whitney(const double *a, size_t na, const double *b,
			size_t nb, struct stats_mwu *out);

/*
 * The median of x (the mean of the middle two for an even n, as numpy
 * has it), reordering x. NAN for n == 0.
 */
double stats__median_inplace(double *x, size_t n);

/*
 * A percentile-bootstrap confidence interval of median(b) - median(a):
 * iters resamples of each side (with replacement), the alpha / 2 and
 * 1 - alpha / 2 quantiles of their differences (interpolated linearly
 * between order statistics, numpy's default). est is the observed
 * difference. The resampling is seeded: the same input gives the same
 * interval. -EINVAL for an empty side, iters < 100 or alpha outside
 * (0, 1); -ENOMEM.
 */
struct stats_ci {
	double est, lo, hi;
};
int stats__bootstrap_median_diff(const double *a, size_t na,
				 const double *b, size_t nb,
				 unsigned int iters, double alpha,
				 unsigned long long seed, struct stats_ci *ci);

/*
 * The smallest difference of means that a Welch test at alpha would
 * find with the given power, from these samples' spread:
 * (t(1 - alpha / 2) + t(power)) * sqrt(var_a / n_a + var_b / n_b) at
 * the Welch-Satterthwaite degrees of freedom. NAN when a side has no
 * variance estimate (n < 2); 0 when neither side varies.
 */
double stats__detectable_diff(const struct stats_summary *a,
			      const struct stats_summary *b, double alpha,
			      double power);

#endif
