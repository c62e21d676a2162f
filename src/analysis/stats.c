// SPDX-License-Identifier: GPL-2.0
/*
 * Sample summaries, Welch's t-test and ministat's verdict (include/stats.h).
 *
 * The Student t distribution is computed from the regularized incomplete
 * beta function, evaluated by its continued fraction with the modified
 * Lentz method (Numerical Recipes, 6.4; DLMF 8.17.22): mmtests asks R's
 * qt() for the same quantiles, and the tool must not need R.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int stats__summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *sorted, sum = 0, inv = 0, ss = 0;
	bool all_positive = true;
	size_t i;
	int p;

	if (!n || !x || !s)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	/*
	 * mmtests: $x[int($#x * ($i / 100) + 0.5)], with the same
	 * floating-point steps, so that a rank at .5 rounds the same way.
	 */
	for (p = 0; p <= 100; p++)
		s->pct[p] = sorted[(size_t)((double)(n - 1) * (p / 100.0) +
					    0.5)];
	s->ministat_median = sorted[n / 2];

	/* Summed in sorted order: the same sum whatever the input order. */
	for (i = 0; i < n; i++) {
		sum += sorted[i];
		if (sorted[i] > 0)
			inv += 1.0 / sorted[i];
		else
			all_positive = false;
	}
	s->amean = sum / n;
	s->hmean = all_positive ? n / inv : NAN;
	for (i = 0; i < n; i++)
		ss += (sorted[i] - s->amean) * (sorted[i] - s->amean);
	s->has_var = n > 1;
	s->var = n > 1 ? ss / (n - 1) : 0;
	s->stddev = sqrt(s->var);
	s->coeffvar = s->amean != 0 ? s->stddev * 100 / s->amean : 0;
	free(sorted);
	return 0;
}

double stats__pdiff(double new_val, double base, bool lower_is_better)
{
	if (lower_is_better) {
		if (new_val == base)
			return 0;
		if (new_val == 0)
			return 100;
		if (base == 0)
			return -99;
		return 100 - new_val * 100 / base;
	}
	if (new_val == base || new_val == 0)
		return 0;
	if (base == 0)
		return 100;
	return new_val * 100 / base - 100;
}

#define CF_TINY 1e-300

/*
 * One step of Lentz's method with the partial numerator aa: updates c and
 * d and returns the factor the convergent is multiplied by.
 */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < CF_TINY)
		*d = CF_TINY;
	*c = 1 + aa / *c;
	if (fabs(*c) < CF_TINY)
		*c = CF_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double c = 1, d, h, del, aa;
	int m, m2;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		m2 = 2 * m;
		/* Even step: d_{2m}. */
		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		h *= lentz_step(aa, &c, &d);
		/* Odd step: d_{2m+1}. */
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		del = lentz_step(aa, &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats__betai(double a, double b, double x)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	      b * log1p(-x);
	/* The fraction converges fast only on this side; use the symmetry. */
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double stats__t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2). */
	tail = 0.5 * stats__betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats__t_quantile(double p, double df)
{
	double lo, hi, mid, q;
	int i;

	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	/* Symmetric: solve in the upper half, where the CDF is >= 0.5. */
	q = p > 0.5 ? p : 1 - p;
	lo = 0;
	hi = 1;
	while (stats__t_cdf(hi, df) < q && hi < 1e300)
		hi *= 2;
	/*
	 * Bisection: the CDF is monotonic, so this cannot miss, and 200
	 * halvings exhaust a double's precision for any bracket. Newton's
	 * steps would be faster but can overshoot in the heavy tails of
	 * df < 1.
	 */
	for (i = 0; i < 2000; i++) {
		mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if (stats__t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	mid = lo + (hi - lo) / 2;
	return p > 0.5 ? mid : -mid;
}

int stats__welch(const struct stats_summary *a, const struct stats_summary *b,
		 double alpha, struct stats_welch *w)
{
	double va, vb, se2;

	if (!a || !b || !w || !a->n || !b->n || !(alpha > 0) || !(alpha < 1))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->df = NAN;
	w->crit = NAN;
	w->p = NAN;
	w->t = NAN;
	if (!a->has_var || !b->has_var) {
		w->verdict = STATS_WELCH_TOO_FEW;
		return 0;
	}
	va = a->var / a->n;
	vb = b->var / b->n;
	se2 = va + vb;
	if (se2 == 0) {
		if (a->amean == b->amean) {
			w->verdict = STATS_WELCH_EXACT_SAME;
			w->t = 0;
			w->p = 1;
		} else {
			w->verdict = STATS_WELCH_EXACT_DIFFERENT;
			w->significant = true;
			w->t = a->amean > b->amean ? INFINITY : -INFINITY;
			w->p = 0;
		}
		return 0;
	}
	w->t = (a->amean - b->amean) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = 2 * stats__t_cdf(-fabs(w->t), w->df);
	w->crit = stats__t_quantile(1 - alpha / 2, w->df);
	w->significant = fabs(w->t) > w->crit;
	w->verdict = w->significant ? STATS_WELCH_DIFFERENT : STATS_WELCH_SAME;
	return 0;
}

/* ministat's table: t_{0.975} to 3 decimals, 1.960 past 100 df. */
static double ministat_t(size_t df)
{
	if (df > 100)
		return 1.960;
	return round(stats__t_quantile(0.975, (double)df) * 1000) / 1000;
}

int stats__ministat(const struct stats_summary *base,
		    const struct stats_summary *new_s,
		    struct stats_ministat *m)
{
	double nd, nr, spool, s, re;

	if (!base || !new_s || !m || !base->n || !new_s->n)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (base->n < 2 || new_s->n < 2) {
		m->too_few = true;
		return 0;
	}
	nd = new_s->n;
	nr = base->n;
	m->t = ministat_t(new_s->n + base->n - 2);
	spool = ((nd - 1) * new_s->var + (nr - 1) * base->var) / (nd + nr - 2);
	spool = sqrt(spool);
	s = spool * sqrt(1 / nd + 1 / nr);
	m->pooled_s = spool;
	m->diff = new_s->amean - base->amean;
	m->err = m->t * s;
	/*
	 * ministat.c's relative error, operator precedence and all (only
	 * the base variance term is scaled by the squared ratio of the
	 * means), so that the figures match what ministat prints.
	 */
	re = (nd - 1) * new_s->var + (nr - 1) * base->var *
	     (new_s->amean * new_s->amean) / (base->amean * base->amean);
	re *= (nd + nr) / (nd * nr * (nd + nr - 2));
	re = m->t * sqrt(re);
	m->pct = m->diff * 100 / base->amean;
	m->pct_err = re * 100 / base->amean;
	m->significant = fabs(m->diff) > m->err;
	return 0;
}

int stats__ministat_print(FILE *out, const struct stats_ministat *m)
{
	if (m->significant) {
		fprintf(out, "Difference at 95.0%% confidence\n");
		fprintf(out, "\t%g +/- %g\n", m->diff, m->err);
		fprintf(out, "\t%g%% +/- %g%%\n", m->pct, m->pct_err);
		fprintf(out, "\t(Student's t, pooled s = %g)\n", m->pooled_s);
	} else {
		fprintf(out, "No difference proven at 95.0%% confidence\n");
		/* ministat refuses such input; say why there is no test. */
		if (m->too_few)
			fprintf(out, "\t(a single value on a side)\n");
	}
	return ferror(out) ? -EIO : 0;
}

/* --- rank test, bootstrap, power ---------------------------------------- */

struct ranked {
	double v;
	bool from_b;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->v > b->v) - (a->v < b->v);
}

static bool all_finite(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* The standard normal's upper tail, P(Z > z). */
static double normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

int stats__mann_whitney(const double *a, size_t na, const double *b,
			size_t nb, struct stats_mwu *out)
{
	size_t n = na + nb, i, j;
	double rank_b = 0, ties = 0, mu, sigma, num, nn;
	struct ranked *r;

	if (!na || !nb || !all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], false };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], true };
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* Ranks from 1; a run of ties shares its mean rank. */
	for (i = 0; i < n; i = j) {
		double t, mean_rank;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = j - i;
		mean_rank = (i + 1 + j) / 2.0;
		ties += t * t * t - t;
		while (i < j)
			if (r[i++].from_b)
				rank_b += mean_rank;
	}
	free(r);
	nn = (double)na * nb;
	out->u = rank_b - nb * (nb + 1) / 2.0;
	out->auc = out->u / nn;
	mu = nn / 2;
	sigma = sqrt(nn / 12 * ((n + 1) - ties / ((double)n * (n - 1))));
	if (n < 2 || !(sigma > 0)) {
		/* Every value equal: nothing tends anywhere. */
		out->z = 0;
		out->p = 1;
		return 0;
	}
	num = fabs(out->u - mu) - 0.5;
	if (num < 0)
		num = 0;
	out->z = copysign(num / sigma, out->u - mu);
	out->p = 2 * normal_sf(num / sigma);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

static void swap_d(double *x, double *y)
{
	double t = *x;

	*x = *y;
	*y = t;
}

/* The k-th smallest of x[0..n) (from 0), reordering x (Hoare's select). */
static double select_kth(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = x[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				swap_d(&x[i], &x[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

double stats__median_inplace(double *x, size_t n)
{
	double hi, lo;
	size_t i;

	if (!n)
		return NAN;
	hi = select_kth(x, n, n / 2);
	if (n % 2)
		return hi;
	/* The other middle value: the largest of the lower half. */
	lo = x[0];
	for (i = 1; i < n / 2; i++)
		if (x[i] > lo)
			lo = x[i];
	return (lo + hi) / 2;
}

/* xorshift64*: a fixed, fast stream; no quality beyond resampling. */
static unsigned long long next_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static double resampled_median(const double *x, size_t n, double *scratch,
			       unsigned long long *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = x[next_rand(seed) % n];
	return stats__median_inplace(scratch, n);
}

/* numpy's default quantile: linear between the order statistics. */
static double quantile_sorted(const double *v, size_t n, double q)
{
	double pos = q * (n - 1);
	size_t i = (size_t)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

int stats__bootstrap_median_diff(const double *a, size_t na,
				 const double *b, size_t nb,
				 unsigned int iters, double alpha,
				 unsigned long long seed, struct stats_ci *ci)
{
	double *scratch, *diffs;
	unsigned int it;

	if (!na || !nb || iters < 100 || !(alpha > 0 && alpha < 1) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	scratch = malloc((na > nb ? na : nb) * sizeof(*scratch));
	diffs = malloc(iters * sizeof(*diffs));
	if (!scratch || !diffs) {
		free(scratch);
		free(diffs);
		return -ENOMEM;
	}
	seed = seed ? seed : 0x9E3779B97F4A7C15ULL;
	for (it = 0; it < iters; it++) {
		double ma = resampled_median(a, na, scratch, &seed);

		diffs[it] = resampled_median(b, nb, scratch, &seed) - ma;
	}
	qsort(diffs, iters, sizeof(*diffs), cmp_double);
	ci->lo = quantile_sorted(diffs, iters, alpha / 2);
	ci->hi = quantile_sorted(diffs, iters, 1 - alpha / 2);
	memcpy(scratch, a, na * sizeof(*a));
	ci->est = -stats__median_inplace(scratch, na);
	memcpy(scratch, b, nb * sizeof(*b));
	ci->est += stats__median_inplace(scratch, nb);
	free(scratch);
	free(diffs);
	return 0;
}

double stats__detectable_diff(const struct stats_summary *a,
			      const struct stats_summary *b, double alpha,
			      double power)
{
	double va, vb, se, df;

	if (!a->has_var || !b->has_var)
		return NAN;
	va = a->var / a->n;
	vb = b->var / b->n;
	se = sqrt(va + vb);
	if (se == 0)
		return 0;
	df = (va + vb) * (va + vb) /
	     (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	return (stats__t_quantile(1 - alpha / 2, df) +
		stats__t_quantile(power, df)) * se;
}
