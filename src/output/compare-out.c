// SPDX-License-Identifier: GPL-2.0
/*
 * Renderers of `rstat-analyze compare` (include/compare-out.h).
 *
 * The text table is mmtests' compare-kernels layout, column for column:
 * "%-9s" statistic, " %-Ns" metric, then per side "%12.2f" and
 * " (%7.2f%%)", the parentheses of the mean row replaced by '*' when
 * Welch's test finds the difference significant. A side's column is 23
 * characters, so at 72 columns a table holds the first side and as many
 * others as fit; more sides repeat the first in further tables rather
 * than wrap, which email quoting would turn into noise.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "compare-out.h"
#include "figure.h"
#include "json.h"
#include "profile.h"
#include "util.h"

enum stat_row {
	ST_MIN, ST_Q1, ST_Q2, ST_Q3, ST_P1, ST_P5, ST_P10, ST_P90, ST_P95,
	ST_P99, ST_MAX, ST_MEAN, ST_STDDEV, ST_CV, ST__NR,
};

static const char *const stat_names[ST__NR] = {
	"Min", "1st-qrtle", "2nd-qrtle", "3rd-qrtle", "Max-1", "Max-5",
	"Max-10", "Max-90", "Max-95", "Max-99", "Max", NULL, "Stddev",
	"CoeffVar",
};

/* JSON/CSV keys of the same rows. */
static const char *const stat_keys[ST__NR] = {
	"min", "p25", "p50", "p75", "p1", "p5", "p10", "p90", "p95", "p99",
	"max", NULL, "stddev", "coeffvar",
};

#define STAT_WIDTH 9		/* "1st-qrtle" */
#define SIDE_WIDTH 23		/* "%12.2f" + " (%7.2f%%)" */

static const char *stat_name(const struct compare_metric *m, int st)
{
	if (st == ST_MEAN)
		return m->hmean ? "Hmean" : "Amean";
	return stat_names[st];
}

static const char *stat_key(const struct compare_metric *m, int st)
{
	if (st == ST_MEAN)
		return m->hmean ? "hmean" : "amean";
	return stat_keys[st];
}

static double stat_value(const struct compare_metric *m, size_t side, int st)
{
	const struct stats_summary *s = &m->sum[side];
	static const int pct[] = { [ST_Q1] = 25, [ST_Q2] = 50, [ST_Q3] = 75,
		[ST_P1] = 1, [ST_P5] = 5, [ST_P10] = 10, [ST_P90] = 90,
		[ST_P95] = 95, [ST_P99] = 99 };

	switch (st) {
	case ST_MIN:
		return s->min;
	case ST_MAX:
		return s->max;
	case ST_MEAN:
		return m->hmean ? s->hmean : s->amean;
	case ST_STDDEV:
		return s->stddev;
	case ST_CV:
		return s->coeffvar;
	default:
		return s->pct[pct[st]];
	}
}

/* mmtests compares spread with pndiff whatever the metric: less is better. */
static double stat_delta(const struct compare_metric *m, size_t side, int st)
{
	bool lower = st == ST_STDDEV || st == ST_CV ? true : m->lower_is_better;

	return stats__pdiff(stat_value(m, side, st), stat_value(m, 0, st),
			    lower);
}

static bool stat_significant(const struct compare_metric *m, size_t side,
			     int st)
{
	return st == ST_MEAN && side > 0 && m->welch[side].significant;
}

static bool is_accuracy(const struct compare *c)
{
	return c->title && !strcmp(c->title, "accuracy");
}

/*
 * Whether the short output (no --details) shows a metric: all of them,
 * but of accuracy's twenty-odd the error and the staleness (per file),
 * the figures a reply on a thread quotes.
 */
static bool metric_shown(const struct compare *c,
			 const struct compare_metric *m)
{
	if (c->details || !is_accuracy(c))
		return true;
	return !strcmp(m->name, "error_bytes") ||
	       !strcmp(m->name, "staleness_ns");
}

/*
 * The rows of the short table: a distribution's median, its p99 and its
 * mean (which carries Welch's mark), or for accuracy its Max (how wrong
 * a read can be) instead of the mean; a single figure per repetition its
 * Amean or Hmean, as its quartiles over a few repetitions say little.
 */
static bool row_shown(const struct compare *c, const struct compare_metric *m,
		      int st)
{
	if (c->details)
		return true;
	if (!m->is_hist)
		return st == ST_MEAN;
	return st == ST_Q2 || st == ST_P99 ||
	       st == (is_accuracy(c) ? ST_MAX : ST_MEAN);
}

static size_t nr_hidden_metrics(const struct compare *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr_metrics; i++)
		n += !metric_shown(c, &c->metrics[i]);
	return n;
}

static size_t label_width(const struct compare *c)
{
	size_t i, w = 4;

	for (i = 0; i < c->nr_metrics; i++)
		if (metric_shown(c, &c->metrics[i]) &&
		    strlen(c->metrics[i].label) > w)
			w = strlen(c->metrics[i].label);
	return w;
}

/*
 * How many sides after the first one table holds when the columns
 * before them take lead characters (at least one).
 */
static size_t sides_per_table(size_t lead, size_t col)
{
	size_t k = 1;

	while (lead + col * (k + 2) <= COMPARE_TEXT_WIDTH)
		k++;
	return k;
}

/* Side indexes of table t: 0, then its share of the others. */
static size_t table_sides(const struct compare *c, size_t per, size_t t,
			  size_t *idx)
{
	size_t n = 0, i;

	idx[n++] = 0;
	for (i = 1 + t * per; i < c->nr_sides && i < 1 + (t + 1) * per; i++)
		idx[n++] = i;
	return n;
}

static size_t nr_tables(const struct compare *c, size_t per)
{
	return (c->nr_sides - 1 + per - 1) / per;
}

static void text_header(FILE *out, const struct compare *c, size_t lead,
			const size_t *idx, size_t n, size_t col)
{
	char l[64];
	size_t i;

	fprintf(out, "%*s", (int)lead, "");
	for (i = 0; i < n; i++) {
		compare_fmt__label(l, sizeof(l), c->labels[idx[i]], col - 1);
		fprintf(out, "%*s", (int)col, l);
	}
	fputc('\n', out);
}

/*
 * A delta in mmtests' " (%7.2f%%)". A delta wider than 7 characters (a
 * spread can grow a hundredfold on a loaded machine) takes what *room
 * has left of the row's 72 columns, giving up decimals when that is not
 * enough, and past what the digits fit is printed as "%.0e": no row
 * ever grows past 72 columns.
 */
static void text_delta(FILE *out, double delta, bool sig, bool first,
		       size_t *room)
{
	char d[48];
	int len;

	if (first)
		delta = 0;
	/* mmtests' %.2f, small deltas included ("-0.01"), when it fits */
	len = snprintf(d, sizeof(d), "%.2f", delta);
	if (len > 7 + (int)*room)
		len = figure__double(d, sizeof(d), delta, 2, 7 + (int)*room);
	if (len > 7 + (int)*room)
		len = snprintf(d, sizeof(d), "%.0e", delta);
	if (len > 7)
		*room -= len > 7 + (int)*room ? *room : (size_t)len - 7;
	if (sig)
		fprintf(out, " *%7s%%*", d);
	else
		fprintf(out, " (%7s%%)", d);
}

/* What a row of n sides after lead characters leaves of the width. */
static size_t row_room(size_t lead, size_t n)
{
	size_t used = lead + n * SIDE_WIDTH;

	return used < COMPARE_TEXT_WIDTH ? COMPARE_TEXT_WIDTH - used : 0;
}

/*
 * Whether the metric labels are too long for mmtests' layout (a label
 * column beside the base and one more side in 72 columns): each metric is
 * then a block of its own, its label on a line above its rows.
 */
static bool text_stacked(const struct compare *c)
{
	return STAT_WIDTH + 1 + label_width(c) + 2 * SIDE_WIDTH >
	       COMPARE_TEXT_WIDTH;
}

static void text_summary_row(FILE *out, const struct compare_metric *m,
			     int st, const size_t *idx, size_t n, size_t lead)
{
	size_t k, room = row_room(lead, n);
	char v[48];
	int len;

	for (k = 0; k < n; k++) {
		/*
		 * mmtests' %12.2f, by figure.h: under one unit not 0.00;
		 * in 11 characters (past them "%.4e"), so that a column
		 * never runs into the one before it.
		 */
		len = figure__double(v, sizeof(v),
				     stat_value(m, idx[k], st), 2, 11);
		if (len > 11)
			snprintf(v, sizeof(v), "%.4e",
				 stat_value(m, idx[k], st));
		fprintf(out, "%12s", v);
		text_delta(out, stat_delta(m, idx[k], st),
			   stat_significant(m, idx[k], st), !idx[k], &room);
	}
	fputc('\n', out);
}

static void text_summary(FILE *out, const struct compare *c)
{
	bool stacked = text_stacked(c);
	size_t lw = label_width(c);
	size_t lead = stacked ? STAT_WIDTH : STAT_WIDTH + 1 + lw;
	size_t per = sides_per_table(lead, SIDE_WIDTH);
	size_t t, i, n, *idx = calloc(c->nr_sides, sizeof(*idx));
	bool first;
	int st;

	if (!idx)
		return;
	for (t = 0; t < nr_tables(c, per); t++) {
		n = table_sides(c, per, t, idx);
		if (t)
			fputc('\n', out);
		text_header(out, c, lead, idx, n, SIDE_WIDTH);
		first = true;
		for (i = 0; stacked && i < c->nr_metrics; i++) {
			const struct compare_metric *m = &c->metrics[i];

			if (!metric_shown(c, m))
				continue;
			/* Short: the label lines alone part the blocks. */
			fprintf(out, "%s%s\n", first || !c->details ? "" : "\n",
				m->label);
			first = false;
			for (st = 0; st < ST__NR; st++) {
				if (!row_shown(c, m, st))
					continue;
				fprintf(out, "%-*s", STAT_WIDTH,
					stat_name(m, st));
				text_summary_row(out, m, st, idx, n,
						 lead);
			}
		}
		for (st = 0; !stacked && st < ST__NR; st++)
			for (i = 0; i < c->nr_metrics; i++) {
				const struct compare_metric *m =
					&c->metrics[i];

				if (!metric_shown(c, m) || !row_shown(c, m, st))
					continue;
				fprintf(out, "%-*s %-*s", STAT_WIDTH,
					stat_name(m, st), (int)lw, m->label);
				text_summary_row(out, m, st, idx, n,
						 lead);
			}
	}
	free(idx);
}

/* As time(1) prints a duration: "0m6.080s". */
static void fmt_time(char *buf, size_t len, double s)
{
	long min = (long)(s / 60);

	snprintf(buf, len, "%ldm%.3fs", min, s - min * 60.0);
}

static double time_value(const struct compare_time *t, int row)
{
	return row == 0 ? t->real_s : row == 1 ? t->user_s : t->sys_s;
}

static const char *const time_rows[] = { "real", "user", "sys" };

static void text_time(FILE *out, const struct compare *c)
{
	size_t lead = text_stacked(c) ? STAT_WIDTH :
		      STAT_WIDTH + 1 + label_width(c);
	size_t per = sides_per_table(lead, SIDE_WIDTH);
	size_t t, k, n, *idx = calloc(c->nr_sides, sizeof(*idx));
	char buf[64];
	int row;

	if (!idx)
		return;
	fprintf(out, "\ntime(1), mean over each side's repetitions (");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, "%s%zu", k ? ", " : "", c->time[k].n);
	fprintf(out, "):\n");
	for (t = 0; t < nr_tables(c, per); t++) {
		n = table_sides(c, per, t, idx);
		if (t)
			fputc('\n', out);
		text_header(out, c, lead, idx, n, SIDE_WIDTH);
		for (row = 0; row < 3; row++) {
			size_t room = row_room(lead, n);

			fprintf(out, "%-*s", (int)lead, time_rows[row]);
			for (k = 0; k < n; k++) {
				const struct compare_time *tm =
					&c->time[idx[k]];

				fmt_time(buf, sizeof(buf),
					 time_value(tm, row));
				fprintf(out, "%12s", buf);
				text_delta(out, stats__pdiff(
						   time_value(tm, row),
						   time_value(&c->time[0], row),
						   true), false, !idx[k],
					   &room);
			}
			fputc('\n', out);
		}
	}
	free(idx);
}

/* ministat's symbols for its data sets. */
static const char ministat_sym[] = "x+*%#@O";

static char side_sym(size_t side)
{
	return side < sizeof(ministat_sym) - 1 ? ministat_sym[side] : '?';
}

static void ministat_row(FILE *out, const struct stats_summary *s, char sym)
{
	fprintf(out, "%c %5zu %10.6g %10.6g %10.6g %10.6g %10.6g\n", sym,
		s->n, s->min, s->max, s->ministat_median, s->amean,
		s->stddev);
}

static void text_ministat(FILE *out, const struct compare *c)
{
	size_t i, k;

	for (i = 0; i < c->nr_metrics; i++) {
		const struct compare_metric *m = &c->metrics[i];

		fprintf(out, "\nministat %s:\n", m->label);
		for (k = 0; k < c->nr_sides; k++)
			fprintf(out, "%c %s\n", side_sym(k), c->labels[k]);
		fprintf(out, "      N        Min        Max     Median"
			"        Avg     Stddev\n");
		ministat_row(out, &m->sum[0], side_sym(0));
		for (k = 1; k < c->nr_sides; k++) {
			ministat_row(out, &m->sum[k], side_sym(k));
			stats__ministat_print(out, &m->ministat[k]);
		}
	}
}

static const char *welch_note(const struct stats_welch *w)
{
	switch (w->verdict) {
	case STATS_WELCH_TOO_FEW:
		return "one value on a side, no variance: no test";
	case STATS_WELCH_EXACT_SAME:
		return "no variance, same means: not significant";
	case STATS_WELCH_EXACT_DIFFERENT:
		return "no variance, means differ: significant";
	default:
		return NULL;
	}
}

/* "slower"/"faster" for times, "worse"/"better" for the rest. */
static const char *direction_word(const struct compare_metric *m, int worse)
{
	bool time = !strcmp(m->display_unit, "us") ||
		    !strcmp(m->display_unit, "ns") ||
		    !strcmp(m->display_unit, "ms");

	if (m->no_better)
		return worse ? "different" : "the same";
	if (time && m->lower_is_better)
		return worse > 0 ? "slower" : "faster";
	return worse > 0 ? "worse" : "better";
}

/* Why the verdict and the Amean row's Welch star may disagree. */
static const char *const means_note[] = {
	[MEANS_AGREE] = "",
	[MEANS_SAME] = "; the means do not differ (Welch): the tails hide the medians' move",
	[MEANS_DIFFER] = "; the means differ (Welch), the medians do not: a tail moved",
	[MEANS_OPPOSITE] = "; the means move the other way (Welch): a tail outweighs the middle",
};

/* The same, in the short output's fewer words. */
static const char *const means_short[] = {
	[MEANS_AGREE] = "",
	[MEANS_SAME] = "; not the means (Welch): tails hide it",
	[MEANS_DIFFER] = "; the means differ (Welch): a tail moved",
	[MEANS_OPPOSITE] = "; the means move the other way (Welch)",
};

static const char *const means_key[] = {
	[MEANS_AGREE] = "agree", [MEANS_SAME] = "same",
	[MEANS_DIFFER] = "differ", [MEANS_OPPOSITE] = "opposite",
};

/* A p-value as people write it: "p=0.042", "p<0.001". */
static void fmt_p(char *buf, size_t len, double p)
{
	if (p < 0.001)
		snprintf(buf, len, "p<0.001");
	else
		snprintf(buf, len, "p=%.3f", p);
}

static double pct_of(double d, double base)
{
	return base ? d * 100 / fabs(base) : NAN;
}

/*
 * A distribution's verdict in the short output: the change of the median
 * in percent with its interval, the rank test, and when nothing was
 * proven the resolution; the medians themselves are in the table
 * (2nd-qrtle) and in --details.
 */
static void text_verdict_short(FILE *out, const struct compare *c,
			       const struct compare_metric *m, size_t k,
			       const char *p)
{
	const struct compare_verdict *v = &m->verdict[k];
	double d = pct_of(v->diff.est, v->median_base);
	char res[64];

	if (v->too_few) {
		compare_fmt__wrapped(out, "%s, %s: untested, one value on a side: median %+.1f%%",
			     m->label, c->labels[k],
			     pct_of(v->median - v->median_base,
				    v->median_base));
		return;
	}
	if (v->significant) {
		compare_fmt__wrapped(out, "%s, %s: %s: median %+.1f%% (95%% interval %+.1f%% to %+.1f%%; Mann-Whitney %s)%s",
			     m->label, c->labels[k],
			     direction_word(m, v->worse), d,
			     pct_of(v->diff.lo, v->median_base),
			     pct_of(v->diff.hi, v->median_base), p,
			     means_short[v->means]);
		return;
	}
	res[0] = '\0';
	if (!isnan(v->resolution_pct))
		snprintf(res, sizeof(res), "; could not resolve less than %.1f%%",
			 v->resolution_pct);
	compare_fmt__wrapped(out, "%s, %s: no difference proven: median %+.1f%% (Mann-Whitney %s)%s%s",
		     m->label, c->labels[k], d, p, res,
		     means_short[v->means]);
}

/*
 * One verdict per metric and side, saying which statistic decided: the
 * medians for distributions, Welch on the repetitions for one figure
 * each; and when nothing was proven, the smallest difference the run
 * could have shown.
 */
static void text_verdicts(FILE *out, const struct compare *c)
{
	char p[16], res[64], med[64], base[64], lo[32], hi[32];
	size_t i, k;

	if (c->nr_sides < 2 || !c->nr_metrics)
		return;
	fprintf(out, "\nVerdicts at %.0f%% (distributions: medians; single "
		"figures: Welch's t):\n", (1 - COMPARE_ALPHA) * 100);
	for (i = 0; i < c->nr_metrics; i++) {
		const struct compare_metric *m = &c->metrics[i];

		if (!metric_shown(c, m))
			continue;
		for (k = 1; k < c->nr_sides; k++) {
			const struct compare_verdict *v = &m->verdict[k];
			const struct stats_welch *w = &m->welch[k];

			res[0] = '\0';
			if (!isnan(v->resolution_pct))
				snprintf(res, sizeof(res),
					 "; could not resolve less than %.1f%%",
					 v->resolution_pct);
			if (!v->by_median) {
				fmt_p(p, sizeof(p), w->p);
				compare_fmt__wrapped(out, "%s, %s: %s (mean %+.1f%%, Welch %s)%s",
					     m->label, c->labels[k],
					     v->significant ?
					     direction_word(m, v->worse) :
					     "no difference proven",
					     pct_of(m->sum[k].amean -
						    m->sum[0].amean,
						    m->sum[0].amean),
					     w->verdict == STATS_WELCH_TOO_FEW ?
					     "untested: one value on a side" : p,
					     v->significant ? "" : res);
				continue;
			}
			fmt_p(p, sizeof(p), v->mwu.p);
			if (!c->details) {
				text_verdict_short(out, c, m, k, p);
				continue;
			}
			figure__double(med, sizeof(med), v->median, 2, 0);
			figure__double(base, sizeof(base), v->median_base, 2,
				       0);
			if (v->too_few) {
				compare_fmt__wrapped(out, "%s, %s: untested, one value on a side: median %s against %s %s (%+.1f%%)",
					     m->label, c->labels[k], med, base,
					     m->display_unit,
					     pct_of(v->median - v->median_base,
						    v->median_base));
				continue;
			}
			snprintf(lo, sizeof(lo), "%+.1f%%",
				 pct_of(v->diff.lo, v->median_base));
			snprintf(hi, sizeof(hi), "%+.1f%%",
				 pct_of(v->diff.hi, v->median_base));
			compare_fmt__wrapped(out, "%s, %s: %s: median %s against %s %s (%+.1f%%, 95%% interval %s to %s; Mann-Whitney %s)%s%s",
				     m->label, c->labels[k],
				     v->significant ?
				     direction_word(m, v->worse) :
				     "no difference proven",
				     med, base, m->display_unit,
				     pct_of(v->diff.est, v->median_base),
				     lo, hi, p, v->significant ? "" : res,
				     means_note[v->means]);
		}
	}
}

static void text_notes(FILE *out, const struct compare *c)
{
	size_t i, k;
	bool head = false;

	for (i = 0; i < c->nr_metrics; i++)
		for (k = 1; k < c->nr_sides; k++) {
			const char *note = welch_note(&c->metrics[i].welch[k]);

			if (!note)
				continue;
			if (!head)
				fputc('\n', out);
			head = true;
			compare_fmt__wrapped(out, "Welch %s, %s: %s",
				     c->metrics[i].label, c->labels[k], note);
		}
}

/* --- profiles ------------------------------------------------------------ */

#define SHARE_NAME_WIDTH 24
#define SHARE_WIDTH 18		/* "%9.2f%%" + " (%+5.1f)" */

/*
 * What a share is of: report's attribution shares are of all the event's
 * samples, its triggers' of the event's samples in flushes.
 */
static const char *share_whole(bool in_flushes)
{
	return in_flushes ? " in flushes" : "";
}

static void text_shares(FILE *out, const struct compare *c, const char *what,
			bool in_flushes, const struct compare_share *rows,
			size_t nr)
{
	size_t per = sides_per_table(SHARE_NAME_WIDTH, SHARE_WIDTH);
	size_t t, i, k, n, *idx = calloc(c->nr_sides, sizeof(*idx));
	const char *event = NULL;

	if (!idx)
		return;
	for (t = 0; t < nr_tables(c, per); t++) {
		n = table_sides(c, per, t, idx);
		event = NULL;
		for (i = 0; i < nr; i++) {
			const struct compare_share *r = &rows[i];

			if (!event || strcmp(event, r->event)) {
				char head[COMPARE_TEXT_WIDTH + 1];
				char base[COMPARE_TEXT_WIDTH + 1];
				int len;

				event = r->event;
				len = snprintf(head, sizeof(head),
					       "%s, share of %s%s%s (pp: against ",
					       what, in_flushes ? "" : "all ",
					       event, share_whole(in_flushes));
				/* The base's label, cut to fit 72 columns. */
				compare_fmt__label(base, sizeof(base), c->labels[0],
					  len > 0 && len + 2 + 12 <
					  COMPARE_TEXT_WIDTH ?
					  COMPARE_TEXT_WIDTH - len - 2 : 12);
				fprintf(out, "\n%s%s):\n", head, base);
				text_header(out, c, SHARE_NAME_WIDTH, idx, n,
					    SHARE_WIDTH);
			}
			fprintf(out, "%-*s", SHARE_NAME_WIDTH, r->name);
			for (k = 0; k < n; k++) {
				double v = r->share[idx[k]];
				double b = r->share[0];

				if (isnan(v))
					fprintf(out, "%10s", "-");
				else
					fprintf(out, "%9.2f%%", v * 100);
				if (isnan(v) || isnan(b))
					fprintf(out, "%8s", "");
				else
					fprintf(out, " (%+5.1f)",
						idx[k] ? (v - b) * 100 : 0.0);
			}
			fputc('\n', out);
		}
	}
	free(idx);
}

static void span_range(const struct compare *c, const struct compare_span *s,
		       int *lo, int *hi)
{
	size_t k;
	int b;

	*lo = HIST_MAX_BUCKETS;
	*hi = -1;
	for (k = 0; k < c->nr_sides; k++)
		for (b = 1; b < HIST_MAX_BUCKETS; b++)
			if (s->side[k].present && s->side[k].bucket[b]) {
				if (b < *lo)
					*lo = b;
				if (b > *hi)
					*hi = b;
			}
}

enum { SPAN_COUNT, SPAN_P50, SPAN_P90, SPAN_P99 };

static const char *const span_rows[] = { "count", "p50", "p90", "p99" };

static uint64_t span_value(const struct compare_span_side *d, int row)
{
	return row == SPAN_COUNT ? d->count : row == SPAN_P50 ? d->p50 :
	       row == SPAN_P90 ? d->p90 : d->p99;
}

/* A row of a span (SPAN_*), the sides of table idx[0..n). */
static void text_span_row(FILE *out, const struct compare_span *s, int row,
			  const size_t *idx, size_t n)
{
	const struct compare_span_side *b0 = &s->side[0], *d;
	size_t k, room = row_room(10, n);
	uint64_t v;

	fprintf(out, "%-10s", span_rows[row]);
	for (k = 0; k < n; k++) {
		d = &s->side[idx[k]];
		v = span_value(d, row);
		if (!d->present) {
			fprintf(out, "%12s%11s", "-", "");
			continue;
		}
		fprintf(out, "%12" PRIu64, v);
		/* Counts are not better or worse. */
		if (row == SPAN_COUNT || !b0->present)
			fprintf(out, "%11s", "");
		else
			text_delta(out, stats__pdiff(v, span_value(b0, row),
						     true),
				   false, !idx[k], &room);
	}
	fputc('\n', out);
}

/* The count and percentiles of a span, the sides of table idx[0..n). */
static void text_span_rows(FILE *out, const struct compare *c,
			   const struct compare_span *s, const size_t *idx,
			   size_t n)
{
	int row;

	/* Labels cut as the other tables' are: a release keeps its version. */
	text_header(out, c, 10, idx, n, SIDE_WIDTH);
	for (row = SPAN_COUNT; row <= SPAN_P99; row++)
		text_span_row(out, s, row, idx, n);
}

#define HIST_RANGE_WIDTH 25
#define HIST_COUNT_WIDTH 11	/* " %10" */

/* The log2 buckets of a span, the sides of table idx[0..n). */
static void text_span_hist(FILE *out, const struct compare *c,
			   const struct compare_span *s, const size_t *idx,
			   size_t n)
{
	int b, lo, hi;
	size_t k;

	span_range(c, s, &lo, &hi);
	if (lo > hi)
		return;
	fprintf(out, "%-*s:", HIST_RANGE_WIDTH, "nsecs");
	for (k = 0; k < n; k++)
		fprintf(out, " %10.10s", c->labels[idx[k]]);
	fputc('\n', out);
	for (b = lo; b <= hi; b++) {
		uint64_t low, high;
		char range[48];

		hist__row_bounds(b, &low, &high);
		snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, low,
			 high);
		fprintf(out, "%-*s:", HIST_RANGE_WIDTH, range);
		for (k = 0; k < n; k++)
			fprintf(out, " %10" PRIu64,
				s->side[idx[k]].present ?
				s->side[idx[k]].bucket[b] : 0);
		fputc('\n', out);
	}
}

/*
 * The short output's spans: one table (a table per side after the base,
 * as ever) of a block per span, its name on a line of its own, then its
 * count, p50 and p99 (p90 and the histograms are for --details).
 */
static void text_spans_short(FILE *out, const struct compare *c)
{
	static const int rows[] = { SPAN_COUNT, SPAN_P50, SPAN_P99 };
	size_t per = sides_per_table(10, SIDE_WIDTH);
	size_t i, t, n, r, *idx = calloc(c->nr_sides, sizeof(*idx));
	bool kernel = false;
	char label[512], cut[COMPARE_TEXT_WIDTH + 1];

	if (!idx || !c->nr_spans)
		goto out;
	/* The base's label, cut to keep the line in 72 columns. */
	compare_fmt__label(cut, sizeof(cut), c->labels[0], COMPARE_TEXT_WIDTH -
		  strlen("Spans, nsecs (% against : positive is faster):"));
	fprintf(out, "\nSpans, nsecs (%% against %s: positive is faster):\n",
		cut);
	for (t = 0; t < nr_tables(c, per); t++) {
		n = table_sides(c, per, t, idx);
		if (t)
			fputc('\n', out);
		text_header(out, c, 10, idx, n, SIDE_WIDTH);
		for (i = 0; i < c->nr_spans; i++) {
			const struct compare_span *s = &c->spans[i];

			kernel |= s->kernel;
			snprintf(label, sizeof(label), "%s%s%s%s%s",
				 s->kernel ? "kernel " : "", s->name,
				 s->subsystem ? " (" : "",
				 s->subsystem ? s->subsystem : "",
				 s->subsystem ? ")" : "");
			compare_fmt__label(cut, sizeof(cut), label, COMPARE_TEXT_WIDTH);
			fprintf(out, "%s\n", cut);
			for (r = 0; r < ARRAY_SIZE(rows); r++)
				text_span_row(out, s, rows[r], idx, n);
		}
	}
	if (kernel)
		fprintf(out, "kernel: timed by BPF; p50, p99: the high end of a log2 bucket\n");
out:
	free(idx);
}

/*
 * Each span: its percentiles, and with --details its histogram; more
 * sides than 72 columns hold repeat the base in further tables, as the
 * bench tables do.
 */
static void text_spans(FILE *out, const struct compare *c)
{
	size_t per = sides_per_table(10, SIDE_WIDTH);
	size_t hper = sides_per_table(HIST_RANGE_WIDTH + 1, HIST_COUNT_WIDTH);
	size_t i, t, n, *idx;

	if (!c->details) {
		text_spans_short(out, c);
		return;
	}
	idx = calloc(c->nr_sides, sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < c->nr_spans; i++) {
		const struct compare_span *s = &c->spans[i];

		fprintf(out, "\n%sspan %s%s%s%s, nsecs%s\n",
			s->kernel ? "kernel " : "", s->name,
			s->subsystem ? " (" : "", s->subsystem ? s->subsystem :
			"", s->subsystem ? ")" : "",
			s->kernel ? ":\n(timed by BPF; p50..p99: the high end of a log2 bucket)" :
			":");
		for (t = 0; t < nr_tables(c, per); t++) {
			n = table_sides(c, per, t, idx);
			text_span_rows(out, c, s, idx, n);
		}
		for (t = 0; t < nr_tables(c, hper); t++) {
			n = table_sides(c, hper, t, idx);
			text_span_hist(out, c, s, idx, n);
		}
	}
	free(idx);
}

/*
 * What a warning says of its side: the words after "LABEL: ", or NULL
 * when it names no side.
 */
static const char *warning_rest(const struct compare *c, const char *w)
{
	size_t k, len;

	for (k = 0; k < c->nr_sides; k++) {
		len = strlen(c->labels[k]);
		if (!strncmp(w, c->labels[k], len) && !strncmp(w + len, ": ", 2))
			return w + len + 2;
	}
	return NULL;
}

/* Words at width with a one-space indent; col: where we are. */
static size_t text_words(FILE *out, const char *w, size_t col, size_t width)
{
	size_t len;

	for (; *w; w += len) {
		w += strspn(w, " ");
		len = strcspn(w, " ");
		if (!len)
			break;
		if (col + 1 + len > width) {
			fputs("\n ", out);
			col = 1;
		}
		fputc(' ', out);
		fwrite(w, 1, len, out);
		col += 1 + len;
	}
	return col;
}

/*
 * Each warning as "WARNING: " and its words, wrapped at the text width
 * with an indent, so that it stays with the table when pasted. Sides
 * warned of in the same words share one: "WARNING: a, b: the machine
 * was loaded ...", as variants of one run often are.
 */
static void text_warnings(FILE *out, const struct compare *c,
			  const char *lead, const char *gap, size_t width)
{
	const char *rest, *other;
	char names[256];
	size_t i, j, col;
	bool seen;

	for (i = 0; i < c->nr_warnings; i++) {
		rest = warning_rest(c, c->warnings[i]);
		if (!rest) {
			col = fprintf(out, "%s", lead);
			text_words(out, c->warnings[i], col, width);
			fprintf(out, "\n%s", gap);
			continue;
		}
		for (j = 0, seen = false; j < i && !seen; j++) {
			other = warning_rest(c, c->warnings[j]);
			seen = other && !strcmp(other, rest);
		}
		if (seen)
			continue;
		names[0] = '\0';
		for (j = i; j < c->nr_warnings; j++) {
			other = warning_rest(c, c->warnings[j]);
			if (!other || strcmp(other, rest))
				continue;
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%.*s",
				 j == i ? "" : ", ",
				 (int)(other - 2 - c->warnings[j]),
				 c->warnings[j]);
		}
		col = fprintf(out, "%s", lead);
		col = text_words(out, names, col, width);
		fputc(':', out);
		text_words(out, rest, col + 1, width);
		fprintf(out, "\n%s", gap);
	}
}

/*
 * The short output's last line: what --details would add. Nothing when
 * it adds nothing (profiles without histogram rows).
 */
static void text_more(FILE *out, const struct compare *c)
{
	size_t hidden = nr_hidden_metrics(c), i;
	char more[48];
	int lo, hi;
	bool hist = false;

	if (c->details)
		return;
	if (c->profile) {
		for (i = 0; i < c->nr_spans; i++) {
			span_range(c, &c->spans[i], &lo, &hi);
			hist |= lo <= hi;
		}
		if (c->nr_spans)
			fprintf(out, "\nMore with --details: the spans' p90%s.\n",
				hist ? " and log2 histograms" : "");
		return;
	}
	snprintf(more, sizeof(more), "%zu more metric%s", hidden,
		 hidden > 1 ? "s" : "");
	fputc('\n', out);
	compare_fmt__wrapped(out, "More with --details: every statistic, %s%stime(1)%s ministat%s.",
			     hidden ? more : "", hidden ? ", " : "", c->nr_bd_files ? "," : " and",
			     c->nr_bd_files ?
			     " and each side's breakdown tables (p90, p99, calls, why not timed)" :
			     "");
}

int compare_out__text(FILE *out, const struct compare *c)
{
	if (c->title)
		fprintf(out, "%s\n", c->title);
	else if (c->profile)
		fprintf(out, "report --json profiles\n");
	text_warnings(out, c, "WARNING:", "", COMPARE_TEXT_WIDTH);
	if (c->profile) {
		text_shares(out, c, "Attribution", false, c->categories,
			    c->nr_categories);
		text_shares(out, c, "Triggers", true, c->triggers,
			    c->nr_triggers);
		text_spans(out, c);
	} else {
		text_summary(out, c);
		if (c->details)
			text_notes(out, c);
		text_verdicts(out, c);
		if (c->details) {
			text_time(out, c);
			text_ministat(out, c);
		}
		compare_bd__text(out, c);
	}
	text_more(out, c);
	return ferror(out) ? -EIO : 0;
}

int compare_out__breakdowns(FILE *out, const struct compare *c)
{
	compare_bd__text(out, c);
	return ferror(out) ? -EIO : 0;
}

/* --- markdown ------------------------------------------------------------ */

static void md_cell_delta(FILE *out, double d, bool sig)
{
	if (sig)
		fprintf(out, " **%.2f%%** |", d);
	else
		fprintf(out, " %.2f%% |", d);
}

static void md_sides_header(FILE *out, const struct compare *c,
			    const char *first)
{
	size_t k;

	fprintf(out, "| %s |", first);
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, " %s | %s %% |", c->labels[k], c->labels[k]);
	fprintf(out, "\n|---|");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, "--:|--:|");
	fputc('\n', out);
}

static void md_time(FILE *out, const struct compare *c)
{
	char buf[64];
	size_t k;
	int row;

	fprintf(out, "\ntime(1), means:\n\n");
	md_sides_header(out, c, "time");
	for (row = 0; row < 3; row++) {
		fprintf(out, "| %s |", time_rows[row]);
		for (k = 0; k < c->nr_sides; k++) {
			fmt_time(buf, sizeof(buf),
				 time_value(&c->time[k], row));
			fprintf(out, " %s |", buf);
			md_cell_delta(out, k ? stats__pdiff(
					time_value(&c->time[k], row),
					time_value(&c->time[0], row), true) : 0,
				      false);
		}
		fputc('\n', out);
	}
}

static void md_bench(FILE *out, const struct compare *c)
{
	size_t i, k;
	int st;
	char buf[64];

	fprintf(out, "Percentages: positive is better. **Bold**: Welch's"
		" t-test finds the difference of means significant (5%%).\n\n");
	fprintf(out, "| Stat | Metric |");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, " %s | %s %% |", c->labels[k], c->labels[k]);
	fprintf(out, "\n|---|---|");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, "--:|--:|");
	fputc('\n', out);
	for (st = 0; st < ST__NR; st++)
		for (i = 0; i < c->nr_metrics; i++) {
			const struct compare_metric *m = &c->metrics[i];

			if (!metric_shown(c, m) || !row_shown(c, m, st))
				continue;
			fprintf(out, "| %s | %s |", stat_name(m, st),
				m->label);
			for (k = 0; k < c->nr_sides; k++) {
				figure__double(buf, sizeof(buf),
					       stat_value(m, k, st), 2, 0);
				fprintf(out, " %s |", buf);
				md_cell_delta(out, k ? stat_delta(m, k, st) : 0,
					      stat_significant(m, k, st));
			}
			fputc('\n', out);
		}

	if (c->details)
		md_time(out, c);
	fprintf(out, "\n```\n");
	text_verdicts(out, c);
	if (c->details) {
		text_ministat(out, c);
		text_notes(out, c);
	}
	text_more(out, c);
	fprintf(out, "```\n");
}

static void md_shares(FILE *out, const struct compare *c, const char *what,
		      bool in_flushes, const struct compare_share *rows,
		      size_t nr)
{
	size_t i, k;

	fprintf(out, "\n%s (share of %s samples%s; deltas in percentage"
		" points):\n\n", what, in_flushes ? "the event's" : "all",
		share_whole(in_flushes));
	fprintf(out, "| Event | Name |");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, " %s | %s pp |", c->labels[k], c->labels[k]);
	fprintf(out, "\n|---|---|");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, "--:|--:|");
	fputc('\n', out);
	for (i = 0; i < nr; i++) {
		fprintf(out, "| %s | %s |", rows[i].event, rows[i].name);
		for (k = 0; k < c->nr_sides; k++) {
			double v = rows[i].share[k], b = rows[i].share[0];

			if (isnan(v))
				fprintf(out, " - |");
			else
				fprintf(out, " %.2f%% |", v * 100);
			if (!k || isnan(v) || isnan(b))
				fprintf(out, " |");
			else
				fprintf(out, " %+.2f |", (v - b) * 100);
		}
		fputc('\n', out);
	}
}

int compare_out__markdown(FILE *out, const struct compare *c)
{
	if (c->title)
		fprintf(out, "### %s\n\n", c->title);
	/* Sides warned of in the same words share one, as in text. */
	text_warnings(out, c, "**Warning:**", "\n", SIZE_MAX);
	if (c->profile) {
		md_shares(out, c, "Attribution", false, c->categories,
			  c->nr_categories);
		md_shares(out, c, "Triggers", true, c->triggers,
			  c->nr_triggers);
		fprintf(out, "\n```\n");
		text_spans(out, c);
		text_more(out, c);
		fprintf(out, "```\n");
	} else {
		md_bench(out, c);
		compare_bd__markdown(out, c);
	}
	return ferror(out) ? -EIO : 0;
}

/* --- CSV ----------------------------------------------------------------- */

/*
 * The verdict as rows of block "verdict": for a distribution its medians,
 * the median difference and its interval (value; delta in percent of the
 * base's median) and the Mann-Whitney p; the resolution in percent. The
 * last column says whether the deciding statistic found a difference.
 */
static void csv_verdict(FILE *out, const struct compare_metric *m,
			const char *side, const struct compare_verdict *v)
{
	int sig = v->significant;

	if (v->by_median) {
		compare_fmt__csv_row(out, "verdict", "median_base", m->label, side,
			v->median_base, NAN, sig);
		compare_fmt__csv_row(out, "verdict", "median", m->label, side, v->median,
			NAN, sig);
		compare_fmt__csv_row(out, "verdict", "median_diff", m->label, side,
			v->diff.est, pct_of(v->diff.est, v->median_base), sig);
		compare_fmt__csv_row(out, "verdict", "median_diff_low", m->label, side,
			v->diff.lo, pct_of(v->diff.lo, v->median_base), sig);
		compare_fmt__csv_row(out, "verdict", "median_diff_high", m->label, side,
			v->diff.hi, pct_of(v->diff.hi, v->median_base), sig);
		compare_fmt__csv_row(out, "verdict", "mann_whitney_p", m->label, side,
			v->mwu.p, NAN, sig);
	}
	compare_fmt__csv_row(out, "verdict", "resolution_pct", m->label, side,
		v->resolution_pct, NAN, sig);
}

static void csv_bench(FILE *out, const struct compare *c)
{
	size_t i, k;
	int st, row;

	for (st = 0; st < ST__NR; st++)
		for (i = 0; i < c->nr_metrics; i++) {
			const struct compare_metric *m = &c->metrics[i];

			for (k = 0; k < c->nr_sides; k++)
				compare_fmt__csv_row(out, "summary", stat_name(m, st),
					m->label, c->labels[k],
					stat_value(m, k, st),
					k ? stat_delta(m, k, st) : 0,
					st == ST_MEAN && k ?
					stat_significant(m, k, st) : -1);
		}
	for (row = 0; row < 3; row++)
		for (k = 0; k < c->nr_sides; k++)
			compare_fmt__csv_row(out, "time", time_rows[row], "", c->labels[k],
				time_value(&c->time[k], row),
				k ? stats__pdiff(time_value(&c->time[k], row),
						 time_value(&c->time[0], row),
						 true) : 0, -1);
	for (i = 0; i < c->nr_metrics; i++) {
		const struct compare_metric *m = &c->metrics[i];

		for (k = 1; k < c->nr_sides; k++) {
			const struct stats_welch *w = &m->welch[k];
			const struct stats_ministat *ms = &m->ministat[k];

			compare_fmt__csv_row(out, "welch", "t", m->label, c->labels[k],
				w->t, NAN, w->significant);
			compare_fmt__csv_row(out, "welch", "df", m->label, c->labels[k],
				w->df, NAN, w->significant);
			compare_fmt__csv_row(out, "welch", "p", m->label, c->labels[k],
				w->p, NAN, w->significant);
			csv_verdict(out, m, c->labels[k], &m->verdict[k]);
			compare_fmt__csv_row(out, "ministat", "difference", m->label,
				c->labels[k], ms->too_few ? NAN : ms->diff,
				ms->too_few ? NAN : ms->pct, ms->significant);
			compare_fmt__csv_row(out, "ministat", "error", m->label,
				c->labels[k], ms->too_few ? NAN : ms->err,
				ms->too_few ? NAN : ms->pct_err,
				ms->significant);
			compare_fmt__csv_row(out, "ministat", "pooled_s", m->label,
				c->labels[k], ms->too_few ? NAN : ms->pooled_s,
				NAN, ms->significant);
		}
	}
}

static void csv_shares(FILE *out, const struct compare *c, const char *block,
		       const struct compare_share *rows, size_t nr)
{
	char name[512];
	size_t i, k;

	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "%s", rows[i].name);
		for (k = 0; k < c->nr_sides; k++) {
			double v = rows[i].share[k], b = rows[i].share[0];

			compare_fmt__csv_row(out, block, rows[i].event, name, c->labels[k],
				v * 100, k && !isnan(b) ? (v - b) * 100 : NAN,
				-1);
		}
	}
}

static void csv_spans(FILE *out, const struct compare *c)
{
	static const char *const names[] = { "count", "p50", "p90", "p99" };
	char name[512];
	size_t i, k;
	int row;

	for (i = 0; i < c->nr_spans; i++) {
		const struct compare_span *s = &c->spans[i];

		snprintf(name, sizeof(name), "%s%s%s%s",
			 s->kernel ? "kernel " : "", s->name,
			 s->subsystem ? " " : "",
			 s->subsystem ? s->subsystem : "");
		for (row = 0; row < 4; row++)
			for (k = 0; k < c->nr_sides; k++) {
				const struct compare_span_side *d = &s->side[k];
				uint64_t v = row == 0 ? d->count : row == 1 ?
					d->p50 : row == 2 ? d->p90 : d->p99;
				const struct compare_span_side *b0 =
					&s->side[0];
				uint64_t bv = row == 0 ? b0->count : row == 1 ?
					b0->p50 : row == 2 ? b0->p90 : b0->p99;

				compare_fmt__csv_row(out, "span", names[row], name,
					c->labels[k], d->present ? v : NAN,
					k && row && d->present && b0->present ?
					stats__pdiff(v, bv, true) : NAN, -1);
			}
	}
}

/*
 * One table, a row per figure: the first column names the block
 * (summary, time, welch, ministat; category, trigger, span for profiles),
 * delta is the percentage against the first side (percentage points for
 * shares), significant is yes/no where a test applies.
 */
int compare_out__csv(FILE *out, const struct compare *c)
{
	fputs("block,row,metric,side,value,delta,significant\r\n", out);
	if (c->profile) {
		csv_shares(out, c, "category", c->categories,
			   c->nr_categories);
		csv_shares(out, c, "trigger", c->triggers, c->nr_triggers);
		csv_spans(out, c);
	} else {
		csv_bench(out, c);
		compare_bd__csv(out, c);
	}
	return ferror(out) ? -EIO : 0;
}

/* --- JSON ---------------------------------------------------------------- */

static const char *verdict_name(enum stats_welch_verdict v)
{
	switch (v) {
	case STATS_WELCH_DIFFERENT:
		return "different";
	case STATS_WELCH_TOO_FEW:
		return "too-few";
	case STATS_WELCH_EXACT_SAME:
		return "no-variance-same";
	case STATS_WELCH_EXACT_DIFFERENT:
		return "no-variance-different";
	default:
		return "same";
	}
}

/*
 * The verdict and what decided it: "median" (a bootstrap interval of the
 * median difference, the Mann-Whitney test beside it) or "welch".
 */
static void json_verdict(struct json_writer *jw,
			 const struct compare_metric *m,
			 const struct compare_verdict *v)
{
	json__object_begin(jw, "verdict");
	json__string(jw, "decided_by", v->by_median ? "median" : "welch");
	json__bool(jw, "significant", v->significant);
	json__bool(jw, "too_few", v->too_few);
	json__string(jw, "direction", !v->significant ? "none" :
		     direction_word(m, v->worse));
	json__double(jw, "resolution_pct", v->resolution_pct);
	if (v->by_median) {
		json__double(jw, "median_base", v->median_base);
		json__double(jw, "median", v->median);
		json__object_begin(jw, "median_diff");
		json__double(jw, "estimate", v->diff.est);
		json__double(jw, "low", v->diff.lo);
		json__double(jw, "high", v->diff.hi);
		json__u64(jw, "resamples", COMPARE_BOOTSTRAP_ITERS);
		json__object_end(jw);
		json__object_begin(jw, "mann_whitney");
		json__double(jw, "u", v->mwu.u);
		json__double(jw, "auc", v->mwu.auc);
		json__double(jw, "z", v->mwu.z);
		json__double(jw, "p", v->mwu.p);
		json__object_end(jw);
		json__string(jw, "means", means_key[v->means]);
	}
	json__object_end(jw);
}

static void json_metric(struct json_writer *jw, const struct compare *c,
			const struct compare_metric *m)
{
	size_t k;
	int st;

	json__object_begin(jw, NULL);
	json__string(jw, "label", m->label);
	json__string(jw, "name", m->name);
	json__string(jw, "file", m->file);
	json__string(jw, "unit", m->display_unit);
	json__string(jw, "better", m->no_better ? "none" :
		     m->lower_is_better ? "lower" : "higher");
	json__array_begin(jw, "sides");
	for (k = 0; k < c->nr_sides; k++) {
		json__object_begin(jw, NULL);
		json__string(jw, "side", c->labels[k]);
		json__u64(jw, "n", m->sum[k].n);
		for (st = 0; st < ST__NR; st++)
			json__double(jw, stat_key(m, st), stat_value(m, k, st));
		json__object_begin(jw, "delta_pct");
		for (st = 0; st < ST__NR; st++)
			json__double(jw, stat_key(m, st),
				     k ? stat_delta(m, k, st) : 0);
		json__object_end(jw);
		if (k) {
			const struct stats_welch *w = &m->welch[k];
			const struct stats_ministat *ms = &m->ministat[k];

			json__object_begin(jw, "welch");
			json__string(jw, "verdict", verdict_name(w->verdict));
			json__bool(jw, "significant", w->significant);
			json__double(jw, "t", w->t);
			json__double(jw, "df", w->df);
			json__double(jw, "p", w->p);
			json__double(jw, "critical", w->crit);
			json__object_end(jw);
			json_verdict(jw, m, &m->verdict[k]);
			json__object_begin(jw, "ministat");
			json__bool(jw, "significant", ms->significant);
			json__bool(jw, "too_few", ms->too_few);
			json__double(jw, "difference", ms->too_few ? NAN :
				     ms->diff);
			json__double(jw, "error", ms->too_few ? NAN :
				     ms->err);
			json__double(jw, "difference_pct", ms->too_few ? NAN :
				     ms->pct);
			json__double(jw, "error_pct", ms->too_few ? NAN :
				     ms->pct_err);
			json__double(jw, "pooled_s", ms->too_few ? NAN :
				     ms->pooled_s);
			json__object_end(jw);
		}
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

static void json_shares(struct json_writer *jw, const struct compare *c,
			const char *key, const struct compare_share *rows,
			size_t nr)
{
	size_t i, k;

	json__array_begin(jw, key);
	for (i = 0; i < nr; i++) {
		json__object_begin(jw, NULL);
		json__string(jw, "event", rows[i].event);
		json__string(jw, "name", rows[i].name);
		json__array_begin(jw, "share");
		for (k = 0; k < c->nr_sides; k++)
			json__double(jw, NULL, rows[i].share[k]);
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
}

static void json_spans(struct json_writer *jw, const struct compare *c)
{
	size_t i, k;
	int b, lo, hi;

	json__array_begin(jw, "spans");
	for (i = 0; i < c->nr_spans; i++) {
		const struct compare_span *s = &c->spans[i];

		json__object_begin(jw, NULL);
		json__string(jw, "name", s->name);
		json__string(jw, "subsystem", s->subsystem);
		json__bool(jw, "kernel", s->kernel);
		span_range(c, s, &lo, &hi);
		json__array_begin(jw, "sides");
		for (k = 0; k < c->nr_sides; k++) {
			const struct compare_span_side *d = &s->side[k];

			if (!d->present) {
				json__string(jw, NULL, NULL);
				continue;
			}
			json__object_begin(jw, NULL);
			json__u64(jw, "count", d->count);
			json__u64(jw, "p50_ns", d->p50);
			json__u64(jw, "p90_ns", d->p90);
			json__u64(jw, "p99_ns", d->p99);
			json__array_begin(jw, "hist");
			for (b = lo; b <= hi; b++) {
				uint64_t low, high;

				hist__row_bounds(b, &low, &high);
				profile__json_hist_row(jw, low, high,
						       d->bucket[b]);
			}
			json__array_end(jw);
			json__object_end(jw);
		}
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
}

void compare_out__json(struct json_writer *jw, const struct compare *c)
{
	size_t i, k;
	int row;

	json__object_begin(jw, NULL);
	json__string(jw, "kind", c->profile ? "profile" : "bench");
	json__string(jw, "title", c->title);
	json__array_begin(jw, "sides");
	for (k = 0; k < c->nr_sides; k++)
		json__string(jw, NULL, c->labels[k]);
	json__array_end(jw);
	json__array_begin(jw, "warnings");
	for (i = 0; i < c->nr_warnings; i++)
		json__string(jw, NULL, c->warnings[i]);
	json__array_end(jw);
	if (c->profile) {
		json_shares(jw, c, "attribution", c->categories,
			    c->nr_categories);
		json_shares(jw, c, "triggers", c->triggers, c->nr_triggers);
		json_spans(jw, c);
	} else {
		json__double(jw, "alpha", COMPARE_ALPHA);
		json__array_begin(jw, "metrics");
		for (i = 0; i < c->nr_metrics; i++)
			json_metric(jw, c, &c->metrics[i]);
		json__array_end(jw);
		json__array_begin(jw, "time");
		for (k = 0; k < c->nr_sides; k++) {
			json__object_begin(jw, NULL);
			json__string(jw, "side", c->labels[k]);
			json__u64(jw, "repetitions", c->time[k].n);
			for (row = 0; row < 3; row++) {
				char key[16];

				snprintf(key, sizeof(key), "%s_s",
					 time_rows[row]);
				json__double(jw, key,
					     time_value(&c->time[k], row));
			}
			json__object_end(jw);
		}
		json__array_end(jw);
		compare_bd__json(jw, c);
	}
	json__object_end(jw);
}
