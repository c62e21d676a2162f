// SPDX-License-Identifier: GPL-2.0
/*
 * Log2 histograms as bcc's funclatency prints them (bcc's table.py
 * _print_log2_hist() with strip_leading_zero off), over kept values so
 * that percentiles are exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"
#include "hist.h"
#include "util.h"

struct hist {
	uint64_t *vals;
	size_t nr, cap;
	uint64_t total, min, max;
	bool sorted;		/* vals ascending */
};

/* funclatency's bar width; the wide layout halves it. */
#define STARS_MAX 40

struct hist *hist__new(void)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (h)
		h->sorted = true;
	return h;
}

void hist__delete(struct hist *h)
{
	if (!h)
		return;
	free(h->vals);
	free(h);
}

int hist__add(struct hist *h, uint64_t value)
{
	if (grow_array((void **)&h->vals, &h->cap, h->nr + 1,
		       sizeof(*h->vals)))
		return -ENOMEM;
	/* Values often arrive in order: keep the sort for free then. */
	if (h->nr && value < h->vals[h->nr - 1])
		h->sorted = false;
	if (!h->nr || value < h->min)
		h->min = value;
	if (!h->nr || value > h->max)
		h->max = value;
	h->vals[h->nr++] = value;
	h->total = h->total > UINT64_MAX - value ? UINT64_MAX :
		   h->total + value;
	return 0;
}

uint64_t hist__count(const struct hist *h)
{
	return h->nr;
}

uint64_t hist__total(const struct hist *h)
{
	return h->total;
}

uint64_t hist__min(const struct hist *h)
{
	return h->nr ? h->min : 0;
}

uint64_t hist__max(const struct hist *h)
{
	return h->nr ? h->max : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t hist__percentile(struct hist *h, double q)
{
	double r, k;
	uint64_t rank;

	if (!h->nr)
		return 0;
	if (!(q > 0))		/* also NaN */
		return h->min;
	if (q >= 100)
		return h->max;
	if (!h->sorted) {
		qsort(h->vals, h->nr, sizeof(*h->vals), cmp_u64);
		h->sorted = true;
	}
	/*
	 * q * n first: exact for integral q and any realistic n, so the
	 * usual p50/p90/p99 ranks see no rounding at all.
	 */
	r = q * (double)h->nr / 100.0;
	k = floor(r);
	rank = (uint64_t)k;
	if (r - k > r * 1e-12)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->nr)
		rank = h->nr;
	return h->vals[rank - 1];
}

void hist__summary(struct hist *h, struct hist_summary *s)
{
	s->count = hist__count(h);
	s->total = hist__total(h);
	s->min = hist__min(h);
	s->max = hist__max(h);
	s->p50 = hist__percentile(h, 50);
	s->p90 = hist__percentile(h, 90);
	s->p99 = hist__percentile(h, 99);
}

int hist__bucket_index(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/*
 * Count the values per bucket in the display unit; the index of the last
 * row to print (0: nothing to print).
 *
 * Values of 0 go to bucket 1, the "0 -> 1" row: funclatency's BPF side
 * stores bpf_log2l(delta), which is 1 for both 0 and 1, so bcc itself
 * never fills bucket 0 - which is why its printer starts at bucket 1. The
 * row's label covers 0, and this way a hist of zeros still prints.
 */
static int count_buckets(const struct hist *h, uint64_t divisor,
			 uint64_t cnt[HIST_MAX_BUCKETS])
{
	int i, last = 0;
	size_t j;

	memset(cnt, 0, HIST_MAX_BUCKETS * sizeof(cnt[0]));
	for (j = 0; j < h->nr; j++) {
		i = hist__bucket_index(h->vals[j] / divisor);
		if (!i)
			i = 1;
		cnt[i]++;
		if (i > last)
			last = i;
	}
	return last;
}

/* bcc's bounds: [2^(i-1), 2^i - 1]. */
void hist__bucket_bounds(int idx, uint64_t *low, uint64_t *high)
{
	*high = idx >= 64 ? UINT64_MAX : (1ULL << idx) - 1;
	*low = idx < 1 ? 0 : 1ULL << (idx - 1);
}

void hist__row_bounds(int idx, uint64_t *low, uint64_t *high)
{
	hist__bucket_bounds(idx, low, high);
	if (idx == 1)
		*low = 0;
}

int hist__buckets(struct hist *h, uint64_t divisor, struct hist_bucket *out,
		  int max)
{
	uint64_t cnt[HIST_MAX_BUCKETS];
	int i, last;

	if (!divisor)
		return -EINVAL;
	last = count_buckets(h, divisor, cnt);
	for (i = 1; i <= last; i++) {
		if (i - 1 >= max)
			break;
		hist__row_bounds(i, &out[i - 1].low, &out[i - 1].high);
		out[i - 1].count = cnt[i];
	}
	return last;
}

/*
 * bcc's _stars(): a star for each i >= 0 with i <= width * val / max - 1,
 * i.e. floor(width * val / max), at most width. bcc divides in floating
 * point; exact integer division gives the same floor for any max below
 * about 1e14 (beyond that a double quotient just under an integer can
 * round up to it).
 */
static void stars(char *buf, uint64_t val, uint64_t max, int width)
{
	unsigned __int128 n = max ? (unsigned __int128)width * val / max : 0;

	if (n > (unsigned)width)
		n = width;
	memset(buf, '*', (size_t)n);
	buf[n] = '\0';
}

/*
 * A summary line in 80 columns: wide figures (20 digits) would pass them,
 * so such a line breaks after the last ", " that fits. 1 on error.
 */
static int put_fitted(FILE *out, const char *line)
{
	const char *cut = NULL, *p;

	if (strlen(line) <= 80)
		return fprintf(out, "%s\n", line) < 0;
	for (p = strstr(line, ", "); p && p - line <= 80;
	     p = strstr(p + 2, ", "))
		cut = p;
	if (!cut)
		return fprintf(out, "%s\n", line) < 0;
	return fprintf(out, "%.*s,\n%s\n", (int)(cut - line), line,
		       cut + 2) < 0;
}

/* The bucket rows of cnt (buckets 1..last), funclatency's layout. */
static int print_rows(FILE *out, const uint64_t cnt[HIST_MAX_BUCKETS],
		      int last, const char *unit_label)
{
	uint64_t val_max = 0, low, high;
	char bar[STARS_MAX + 1];
	int i, err = 0, width;
	bool wide;

	for (i = 0; i < HIST_MAX_BUCKETS; i++)
		if (cnt[i] > val_max)
			val_max = cnt[i];
	wide = last > 32;
	width = wide ? STARS_MAX / 2 : STARS_MAX;

	/* bcc's two layouts: 10-digit columns, or 20 with half the bar. */
	err |= fprintf(out, "%*s%-*s : count     distribution\n",
		       wide ? 15 : 5, "", wide ? 29 : 19, unit_label) < 0;
	for (i = 1; i <= last; i++) {
		hist__row_bounds(i, &low, &high);
		stars(bar, cnt[i], val_max, width);
		err |= fprintf(out, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64
			       " |%-*s|\n", wide ? 20 : 10, low, wide ? 20 : 10,
			       high, cnt[i], width, bar) < 0;
	}
	return err;
}

int hist__print_rows(FILE *out, const uint64_t *counts, int nr,
		     const char *unit_label)
{
	uint64_t cnt[HIST_MAX_BUCKETS] = { 0 };
	int i, last = 0;

	if (nr > HIST_MAX_BUCKETS)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		cnt[i ? i : 1] += counts[i];
		if (counts[i] && (i ? i : 1) > last)
			last = i ? i : 1;
	}
	if (!last)
		return fprintf(out, "count: 0\n") < 0 ? -EIO : 0;
	return print_rows(out, cnt, last, unit_label) ? -EIO : 0;
}

int hist__print(struct hist *h, FILE *out, uint64_t divisor,
		const char *unit_label)
{
	uint64_t cnt[HIST_MAX_BUCKETS];
	struct hist_summary s;
	char line[320], f[4][48];
	int last, err = 0;

	if (!divisor)
		return -EINVAL;
	if (!h->nr)
		return fprintf(out, "count: 0\n") < 0 ? -EIO : 0;

	last = count_buckets(h, divisor, cnt);
	err |= print_rows(out, cnt, last, unit_label);
	/*
	 * The summary rounds one way (figure.h), unlike funclatency's
	 * truncating %ld: min <= p50 <= ... <= max as printed, and a value
	 * under one unit keeps its digits instead of reading 0.
	 */
	hist__summary(h, &s);
	figure__ratio(f[0], sizeof(f[0]), s.total, s.count, divisor, 0, 0);
	figure__ratio(f[1], sizeof(f[1]), s.total, 1, divisor, 0, 0);
	snprintf(line, sizeof(line), "avg = %s %s, total: %s %s, count: %"
		 PRIu64, f[0], unit_label, f[1], unit_label, s.count);
	err |= put_fitted(out, line);
	figure__ratio(f[0], sizeof(f[0]), s.p50, 1, divisor, 0, 0);
	figure__ratio(f[1], sizeof(f[1]), s.p90, 1, divisor, 0, 0);
	figure__ratio(f[2], sizeof(f[2]), s.p99, 1, divisor, 0, 0);
	figure__ratio(f[3], sizeof(f[3]), s.max, 1, divisor, 0, 0);
	snprintf(line, sizeof(line), "p50 = %s %s, p90 = %s %s, p99 = %s %s, "
		 "max = %s %s", f[0], unit_label, f[1], unit_label, f[2],
		 unit_label, f[3], unit_label);
	err |= put_fitted(out, line);
	return err ? -EIO : 0;
}
