// SPDX-License-Identifier: GPL-2.0
/*
 * Bench results on the terminal (results-out.h): each repetition as
 * time(1) and funclatency print theirs, the summary over repetitions and
 * what recording cost. Read through the results' accessors
 * (bench-results.h), as compare and plot read them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "breakdown-out.h"
#include "figure.h"
#include "hist.h"
#include "results-out.h"
#include "util.h"

static void print_time(FILE *out, const char *what, double s)
{
	long min = (long)(s / 60);

	/* time(1) style, as quoted on the lists: "real 0m6.080s". */
	fprintf(out, "%s %ldm%.3fs\n", what, min, s - 60.0 * (double)min);
}


/*
 * A figure in width columns after a space, with six significant digits
 * and no exponent (%g turns 0.0000545 into 5.45e-05 and 1234567 into
 * 1.23457e+06), by figure.h's rule; an integral figure as an integer.
 */
static void put_figure(FILE *out, int width, double x)
{
	double a = fabs(x);
	int decimals = 0;
	char buf[64];

	if (a > 0 && a < 1e6) {
		decimals = 5 - (int)floor(log10(a));
		if (decimals < 0)
			decimals = 0;
		if (decimals > 6)
			decimals = 6;
	}
	/* A count (an integral figure) prints as one: "75", not "75.0000". */
	figure__count(buf, sizeof(buf), x, decimals, 0);
	fprintf(out, " %*s", width, buf);
}

/* A row's label column; a label too long for it gets a line of its own. */
static void put_label(FILE *out, const char *label)
{
	if (strlen(label) > 31)
		fprintf(out, "%s\n%-31s", label, "");
	else
		fprintf(out, "%-31s", label);
}

/* A time in ns in the unit of div, by figure.h's rule. */
static const char *ns_figure(char *buf, size_t len, uint64_t v, uint64_t div)
{
	figure__ratio(buf, len, v, 1, div, 0, 0);
	return buf;
}

/*
 * A distribution: funclatency's histogram with its avg and percentile
 * lines, and the minimum. A file read back may hold a subsample only: its
 * histogram is then of the samples, and the exact figures follow.
 */
static int print_hist(FILE *out, const struct bench_metric *p, uint64_t div,
		      const char *label)
{
	size_t i, n;
	const uint64_t *v = bench_metric__values(p, &n);
	bool exact = n == p->count;
	char f[5][48];
	struct hist *h;
	int err = 0;

	if (!exact)
		fprintf(out, "(histogram of %zu of the %" PRIu64
			" values, evenly spaced)\n", n, p->count);
	h = hist__new();
	if (!h)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++)
		err = hist__add(h, v[i]);
	if (!err)
		err = hist__print(h, out, div, label);
	hist__delete(h);
	if (err)
		return err;
	/* hist__print()'s summary rounds the same way (figure.h). */
	if (exact)
		fprintf(out, "min = %s %s\n",
			ns_figure(f[0], sizeof(f[0]), p->min, div), label);
	else
		fprintf(out, "all %" PRIu64 " values: min = %s, p50 = %s, "
			"p90 = %s, p99 = %s, max = %s %s\n", p->count,
			ns_figure(f[0], sizeof(f[0]), p->min, div),
			ns_figure(f[1], sizeof(f[1]), p->p50, div),
			ns_figure(f[2], sizeof(f[2]), p->p90, div),
			ns_figure(f[3], sizeof(f[3]), p->p99, div),
			ns_figure(f[4], sizeof(f[4]), p->max, div), label);
	return 0;
}

static void print_value(FILE *out, const struct bench_metric *m)
{
	fprintf(out, "\n%s:", m->name);
	put_figure(out, 0, m->value);
	if (m->no_better)
		fprintf(out, " %s\n", m->unit);
	else
		fprintf(out, " %s (%s is better)\n", m->unit,
			m->lower_is_better ? "lower" : "higher");
}

/* min, mean, max and sample standard deviation of n figures. */
static void print_row(FILE *out, const char *label, const double *x,
		      size_t n)
{
	double lo = x[0], hi = x[0], sum = 0, ss = 0, mean;
	size_t i;

	for (i = 0; i < n; i++) {
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
		sum += x[i];
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	put_label(out, label);
	put_figure(out, 11, lo);
	put_figure(out, 11, mean);
	put_figure(out, 11, hi);
	put_figure(out, 11, n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0);
	fputc('\n', out);
}

/*
 * A metric that every repetition has: one row for a single figure, else a
 * heading and a row each for p50, p99 and the mean.
 */
/*
 * How a metric prints: ns distributions divided by div and labelled
 * label, or with div 0 in nsecs when the smallest median of the
 * repetitions is below a microsecond, else usecs; others as they are.
 */
static void metric_unit(const struct bench_results *r,
			const struct bench_metric *m, uint64_t div,
			const char *label, uint64_t *out_div,
			const char **out_label)
{
	uint64_t p50 = UINT64_MAX;
	const struct bench_metric *o;
	size_t i;

	*out_div = 1;
	*out_label = m->unit;
	if (!m->is_hist || strcmp(m->unit, "ns"))
		return;
	if (div) {
		*out_div = div;
		*out_label = label;
		return;
	}
	for (i = 0; i < bench_results__nr_reps(r); i++) {
		o = bench_results__metric_find(r, i, m->name, m->file);
		if (o && o->is_hist && o->p50 < p50)
			p50 = o->p50;
	}
	if (p50 < 1000) {
		*out_label = "nsecs";
	} else {
		*out_div = 1000;
		*out_label = "usecs";
	}
}

static void print_summary_metric(FILE *out, const struct bench_results *r,
				 const struct bench_metric *m, double *x,
				 uint64_t div, const char *label)
{
	static const char *const qs[] = { "  p50", "  p99", "  mean" };
	const struct bench_metric *o;
	char what[64];
	size_t i, q;

	if (m->is_hist)
		fprintf(out, "%s%s%s (%s)\n", m->name, m->file ? " " : "",
			m->file ? m->file : "", label);
	for (q = 0; q < (m->is_hist ? ARRAY_SIZE(qs) : 1); q++) {
		for (i = 0; i < bench_results__nr_reps(r); i++) {
			o = bench_results__metric_find(r, i, m->name, m->file);
			if (!m->is_hist)
				x[i] = o->value;
			else if (q == 0)
				x[i] = (double)o->p50 / (double)div;
			else if (q == 1)
				x[i] = (double)o->p99 / (double)div;
			else
				x[i] = o->mean / (double)div;
		}
		if (!m->is_hist)
			snprintf(what, sizeof(what), "%s (%s)", m->name,
				 m->unit);
		print_row(out, m->is_hist ? qs[q] : what, x,
			  bench_results__nr_reps(r));
	}
}

static void print_summary(FILE *out, const struct bench_results *r,
			  uint64_t div, const char *label)
{
	const struct bench_metric *m;
	size_t i, j, nr = bench_results__nr_reps(r);
	double *x = calloc(nr, sizeof(*x));
	bool everywhere;

	if (!x)
		return;
	fprintf(out, "\nSummary of %zu repetitions\n", nr);
	fprintf(out, "%-31s %11s %11s %11s %11s\n", "", "min", "mean", "max",
		"stddev");
	for (i = 0; i < nr; i++)
		x[i] = bench_results__rep_time(r, i)->real_s;
	print_row(out, "real (s)", x, nr);
	for (i = 0; i < nr; i++)
		x[i] = bench_results__rep_time(r, i)->user_s;
	print_row(out, "user (s)", x, nr);
	for (i = 0; i < nr; i++)
		x[i] = bench_results__rep_time(r, i)->sys_s;
	print_row(out, "sys (s)", x, nr);
	for (j = 0; j < bench_results__nr_metrics(r, 0); j++) {
		m = bench_results__metric(r, 0, j);
		everywhere = true;
		for (i = 1; i < nr; i++) {
			const struct bench_metric *o =
				bench_results__metric_find(r, i, m->name,
							   m->file);

			if (!o || o->is_hist != m->is_hist)
				everywhere = false;
		}
		if (everywhere) {
			uint64_t d;
			const char *l;

			metric_unit(r, m, div, label, &d, &l);
			print_summary_metric(out, r, m, x, d, l);
		}
	}
	free(x);
}

/*
 * head then text, broken at spaces to fit 80 columns, continuation lines
 * indented by two (a word longer than a line goes on a line of its own).
 */
static void print_wrapped(FILE *out, const char *head, const char *text)
{
	size_t col = strlen(head), n;
	const char *p = text;

	fputs(head, out);
	while (*p) {
		n = strcspn(p, " ");
		if (col > 2 && col + 1 + n > 80 && p != text) {
			fputs("\n ", out);
			col = 1;
		}
		if (p != text) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n figures (sorts them); 0 when there are none. */
static double median(double *x, size_t n)
{
	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/*
 * One row of the cost table: the unrecorded median, the recorded figure
 * and how many times slower the recorded pass was (for a rate, higher
 * is better: base / rec; for a time: rec / base), "-" when either is 0.
 */
static void cost_row(FILE *out, const char *what, double base, double rec,
		     bool lower_is_better)
{
	double slower = lower_is_better ? rec / base : base / rec;
	char buf[48];

	put_label(out, what);
	put_figure(out, 11, base);
	put_figure(out, 11, rec);
	if (base > 0 && rec > 0) {
		figure__double(buf, sizeof(buf), slower, 2, 0);
		fprintf(out, " %10sx\n", buf);
	} else {
		fprintf(out, " %11s\n", "-");
	}
}

/*
 * What recording cost: each figure of the recorded pass against the same
 * one unrecorded (the median over the repetitions; for a distribution,
 * the median of their p50s), so that a reader sees the observer effect
 * and knows the figures above are free of it.
 */
static void print_recording_cost(FILE *out, const struct bench_results *r)
{
	const struct bench_metric *m, *o;
	size_t i, j, n, nr_reps = bench_results__nr_reps(r);
	double base, *x;
	char what[64];

	fprintf(out, "\nWhat recording cost (a separate pass of the same workload while\nrecording; none of the figures above were taken while recording)\n");
	fprintf(out, "%-31s %11s %11s %11s\n", "median of the repetitions",
		"unrecorded", "recorded", "slower by");
	x = calloc(nr_reps ? nr_reps : 1, sizeof(*x));
	if (!x)
		return;
	for (i = 0; i < bench_results__nr_recorded_metrics(r); i++) {
		m = bench_results__recorded_metric(r, i);
		if (m->is_hist && strcmp(m->unit, "ns"))
			continue;
		for (j = 0, n = 0; j < nr_reps; j++) {
			o = bench_results__metric_find(r, j, m->name, m->file);
			if (o && o->is_hist == m->is_hist)
				x[n++] = m->is_hist ? (double)o->p50 :
				       o->value;
		}
		if (!n)
			continue;
		base = median(x, n);
		if (m->is_hist) {
			snprintf(what, sizeof(what), "%s%s%s p50 (us)",
				 m->name, m->file ? " " : "",
				 m->file ? m->file : "");
			cost_row(out, what, base / 1000, (double)m->p50 / 1000,
				 true);
		} else {
			snprintf(what, sizeof(what), "%s (%s)", m->name,
				 m->unit);
			cost_row(out, what, base, m->value,
				 m->lower_is_better);
		}
	}
	for (j = 0; j < nr_reps; j++)
		x[j] = bench_results__rep_time(r, j)->real_s;
	cost_row(out, "real (s)", median(x, nr_reps),
		 bench_results__recorded_time(r)->real_s, true);
	free(x);
}

int bench_results__print(struct bench_results *r, FILE *out,
			 uint64_t unit_divisor, const char *unit_label)
{
	size_t i, j, nr_reps = bench_results__nr_reps(r);
	const struct bench_rep_time *t;
	const struct bench_metric *m;
	const char *label;
	uint64_t div;
	int err;

	if (unit_divisor && !unit_label)
		return -EINVAL;
	fprintf(out, "%s: %zu repetition%s\n", bench_results__scenario(r),
		nr_reps, nr_reps == 1 ? "" : "s");
	for (i = 0; i < bench_results__nr_skipped(r); i++)
		print_wrapped(out, "skipped: ", bench_results__skipped(r, i));
	for (i = 0; i < nr_reps; i++) {
		fprintf(out, "\nRepetition %zu of %zu\n", i + 1, nr_reps);
		t = bench_results__rep_time(r, i);
		print_time(out, "real", t->real_s);
		print_time(out, "user", t->user_s);
		print_time(out, "sys", t->sys_s);
		for (j = 0; j < bench_results__nr_metrics(r, i); j++) {
			m = bench_results__metric(r, i, j);
			if (!m->is_hist) {
				print_value(out, m);
				continue;
			}
			metric_unit(r, m, unit_divisor, unit_label,
				    &div, &label);
			fprintf(out, "\n%s%s%s:\n", m->name,
				m->file ? " " : "",
				m->file ? m->file : "");
			err = print_hist(out, m, div, label);
			if (err)
				return err;
		}
	}
	if (nr_reps > 1)
		print_summary(out, r, unit_divisor, unit_label);
	if (bench_results__recording(r))
		fprintf(out, "\nrecording: %s\n", bench_results__recording(r));
	if (bench_results__recorded_time(r))
		print_recording_cost(out, r);
	if (bench_results__breakdown(r))
		bench_breakdown__print(bench_results__breakdown(r), out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
