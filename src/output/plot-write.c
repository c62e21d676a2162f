// SPDX-License-Identifier: GPL-2.0
/*
 * plot's series written for gnuplot (include/plot.h): the data and the
 * plot commands, per kind, and the script that holds both.
 *
 * The names, units and titles here come from input files: they reach
 * the script only through gnuplot__string() and the data's comments
 * only through gnuplot__comment_text() (include/gnuplot.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "gnuplot.h"
#include "plot-int.h"
#include "util.h"

/* ------------------------------------------------------------------ */
/* The data and the plot commands.                                      */

struct display_unit {
	double div;
	const char *label;
};

/* Nanoseconds shown in the unit that keeps numbers readable. */
static struct display_unit pick_unit(const char *unit, double max)
{
	if (!unit || strcmp(unit, "ns"))
		return (struct display_unit){ 1, unit ? unit : "" };
	if (max < 1e4)
		return (struct display_unit){ 1, "ns" };
	if (max < 1e7)
		return (struct display_unit){ 1e3, "us" };
	return (struct display_unit){ 1e6, "ms" };
}

/* All series in one unit, or an error naming the odd one. */
static int check_units(const struct plot *ctx, char *err, size_t errlen)
{
	size_t i;

	for (i = 1; i < ctx->nr_series; i++) {
		if (strcmp(ctx->series[i].unit, ctx->series[0].unit)) {
			errbuf_set(err, errlen, "%s: in %s, %s in %s: plot distributions of one unit (pick one with --metric)",
				 ctx->series[i].name, ctx->series[i].unit,
				 ctx->series[0].name, ctx->series[0].unit);
			return -EINVAL;
		}
	}
	return 0;
}

static void plot_titles(FILE *gp, const struct plot *ctx, size_t i)
{
	fputs(" title ", gp);
	gnuplot__string(gp, ctx->series[i].name);
}

/*
 * "set WHAT 'TEXT'" for a label formatted here: it may name a unit of an
 * input. -ENOMEM.
 */
static int __attribute__((format(printf, 3, 4)))
set_text(FILE *gp, const char *what, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	fprintf(gp, "set %s ", what);
	gnuplot__string(gp, text);
	fputc('\n', gp);
	free(text);
	return 0;
}

/* One plot line per series, each a block (index) of the data. */
static void plot_blocks(const struct plot *ctx, FILE *gp, const char *style)
{
	size_t i;

	fputs("plot ", gp);
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", \\\n     ", gp);
		fprintf(gp, GNUPLOT_DATA " index %zu using 1:2 %s", i, style);
		plot_titles(gp, ctx, i);
	}
	fputc('\n', gp);
}

/* A bucket bound for a label: whole numbers from 100, else 3 digits. */
static void print_bound(FILE *out, double v)
{
	if (v >= 100)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.3g", v);
}

/* The characters print_bound() writes. */
static int label_len(double v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : "%.3g", v);
}

static int write_hist(const struct plot *ctx, FILE *dat, FILE *gp,
		      char *err, size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	int lo = HIST_MAX_BUCKETS, hi = -1, b;
	uint64_t low, high;
	struct display_unit du;
	size_t i;

	if (check_units(ctx, err, errlen))
		return -EINVAL;
	for (i = 0; i < ctx->nr_series; i++) {
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			if (!ctx->series[i].buckets[b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	if (hi < 0) {
		errbuf_set(err, errlen, "%s: every histogram is empty: nothing to plot",
			 ctx->series[0].name);
		return -EINVAL;
	}
	/* Values of 0 are counted in the first row, {0, 1}. */
	if (lo == 0)
		lo = 1;
	/* The unit of the smallest row keeps every label short. */
	hist__row_bounds(lo, &low, &high);
	du = pick_unit(ctx->series[0].unit, (double)high * 10);
	fputs("# rstat-analyze plot --kind hist: log2 buckets in ", dat);
	gnuplot__comment_text(dat, du.label);
	fprintf(dat, "; columns: bucket index, label, then %s per series in the order of the .gp's plot\n",
		p->normalize ? "share" : "count");
	for (b = lo; b <= hi; b++) {
		hist__row_bounds(b, &low, &high);
		fprintf(dat, "%d \"", b);
		print_bound(dat, low / du.div);
		fputc('-', dat);
		print_bound(dat, high / du.div);
		fputc('"', dat);
		for (i = 0; i < ctx->nr_series; i++) {
			const struct series *s = &ctx->series[i];
			uint64_t n = s->buckets[b] + (b == 1 ? s->buckets[0] : 0);

			if (p->normalize) {
				uint64_t total = 0;
				int k;

				for (k = 0; k < HIST_MAX_BUCKETS; k++)
					total += s->buckets[k];
				fprintf(dat, " %.10g", total ? (double)n / total : 0);
			} else {
				fprintf(dat, " %" PRIu64, n);
			}
		}
		fputc('\n', dat);
	}
	fputs("set style data histograms\n"
	      "set style histogram clustered gap 1\n"
	      "set style fill solid 0.85 border -1\n"
	      "set xtics rotate by -45 scale 0 nomirror\n"
	      "set grid ytics\n"
	      "set yrange [0:*]\n"
	      "set key top right\n", gp);
	/*
	 * A label rotated by -45 runs right of its tic by 0.7 of its
	 * length: leave room for the last one, which gnuplot's automatic
	 * margin does not count (it was clipped at the image's edge).
	 */
	hist__row_bounds(hi, &low, &high);
	fprintf(gp, "set rmargin %d\n",
		(int)(0.75 * (label_len(low / du.div) +
			      label_len(high / du.div) + 1)) + 3);
	if (set_text(gp, "xlabel", "log2 bucket (%s)", du.label))
		return -ENOMEM;
	fprintf(gp, "set ylabel '%s'\n", p->normalize ? "share" : "count");
	fputs("plot ", gp);
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", \\\n     ", gp);
		fputs(GNUPLOT_DATA, gp);
		if (i)
			fprintf(gp, " using %zu", i + 3);
		else
			fputs(" using 3:xtic(2)", gp);
		plot_titles(gp, ctx, i);
	}
	fputc('\n', gp);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_cdf(const struct plot *ctx, FILE *dat, FILE *gp,
		      char *err, size_t errlen)
{
	struct display_unit du;
	double max = 0;
	bool positive = true;
	size_t i, j;
	int b;

	if (check_units(ctx, err, errlen))
		return -EINVAL;
	for (i = 0; i < ctx->nr_series; i++) {
		struct series *s = &ctx->series[i];
		uint64_t total = 0, low, high;

		if (s->nr_samples) {
			qsort(s->samples, s->nr_samples, sizeof(*s->samples),
			      cmp_u64);
			max = fmax(max, s->samples[s->nr_samples - 1]);
			positive &= s->samples[0] > 0;
			continue;
		}
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			total += s->buckets[b];
			if (s->buckets[b]) {
				hist__row_bounds(b, &low, &high);
				max = fmax(max, high);
			}
		}
		if (!total) {
			errbuf_set(err, errlen, "%s: an empty distribution has no CDF",
				 s->name);
			return -EINVAL;
		}
	}
	du = pick_unit(ctx->series[0].unit, max);
	fputs("# rstat-analyze plot --kind cdf: one block per series (gnuplot index 0, 1, ...); columns: value (",
	      dat);
	gnuplot__comment_text(dat, du.label);
	fputs("), fraction of values <= it\n", dat);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];
		uint64_t total = 0, cum = 0, low, high;

		fprintf(dat, "%s# series %zu\n", i ? "\n\n" : "", i);
		if (s->nr_samples) {
			/* Exact: one step per distinct value. */
			for (j = 0; j < s->nr_samples; j++) {
				if (j + 1 < s->nr_samples &&
				    s->samples[j + 1] == s->samples[j])
					continue;
				fprintf(dat, "%.10g %.10g\n",
					s->samples[j] / du.div,
					(double)(j + 1) / s->nr_samples);
			}
			continue;
		}
		for (b = 0; b < HIST_MAX_BUCKETS; b++)
			total += s->buckets[b];
		/* From buckets: all of a row counts as reached at its top. */
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			if (!s->buckets[b])
				continue;
			cum += s->buckets[b];
			hist__row_bounds(b < 1 ? 1 : b, &low, &high);
			fprintf(dat, "%.10g %.10g\n", high / du.div,
				(double)cum / total);
		}
	}
	fputs("set grid\n"
	      "set key bottom right\n"
	      "set yrange [0:1]\n"
	      "set ylabel 'fraction of values <= x'\n", gp);
	/* A time is a latency; bytes (accuracy's errors) are not. */
	if (set_text(gp, "xlabel", "%s (%s)",
		     du.div != 1 || !strcmp(du.label, "ns") ? "latency" :
		     "value", du.label))
		return -ENOMEM;
	/* Latencies span decades; a log axis needs no zero values. */
	if (positive)
		fputs("set logscale x\n", gp);
	plot_blocks(ctx, gp, "with steps lw 2");
	return 0;
}

/*
 * Rowstacked bars, one per series, labelled with its name rotated by
 * rotate degrees: the commands the kinds of bars share. below: a segment
 * goes below 0 (gnuplot stacks those down from the axis).
 */
static void stacked_bars(const struct plot *ctx, FILE *gp, bool below,
			 int rotate)
{
	size_t i;

	fprintf(gp, "set style data histograms\n"
		"set style histogram rowstacked\n"
		"set style fill solid 0.85 border -1\n"
		"set boxwidth 0.6\n"
		"set grid ytics\n"
		"set yrange [%s:*]\n"
		"set key outside right top\n"
		"set xtics nomirror rotate by %d (", below ? "*" : "0", rotate);
	/* Input names go in the script, quoted: they may hold anything. */
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", ", gp);
		gnuplot__string(gp, ctx->series[i].name);
		fprintf(gp, " %zu", i);
	}
	fputs(")\n", gp);
}

static int write_bars(const struct plot *ctx, FILE *dat, FILE *gp)
{
	struct display_unit du;
	double max = 0;
	size_t i, j;

	for (i = 0; i < ctx->nr_series; i++)
		for (j = 0; j < ctx->series[i].nr_points; j++)
			max = fmax(max, ctx->series[i].y[j]);
	du = pick_unit(ctx->bar_unit, max);
	fputs("# rstat-analyze plot --kind bars: one row per input (the xtics of the .gp); columns: index, then one per segment (",
	      dat);
	gnuplot__comment_text(dat, du.label);
	fputs(") in the order of the .gp's plot\n", dat);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		fprintf(dat, "%zu", i);
		for (j = 0; j < ctx->nr_segs; j++)
			fprintf(dat, " %.10g",
				j < s->nr_points ? s->y[j] / du.div : 0);
		fputc('\n', dat);
	}
	stacked_bars(ctx, gp, false, -20);
	if (!strcmp(du.label, "%"))
		fputs("set ylabel 'share of the event''s flush samples (%)'\n",
		      gp);
	else if (set_text(gp, "ylabel", "mean (%s)", du.label))
		return -ENOMEM;
	fputs("plot ", gp);
	for (j = 0; j < ctx->nr_segs; j++) {
		if (j)
			fputs(", \\\n     ", gp);
		fprintf(gp, GNUPLOT_DATA " using %zu title ", j + 2);
		gnuplot__string(gp, ctx->segs[j]);
	}
	fputc('\n', gp);
	return 0;
}

/*
 * Each part's colour, whichever others a chart leaves out (gnuplot's
 * own cycle repeats after eight): by enum breakdown_part, then
 * entry/exit.
 */
static const unsigned int bd_colour[BD_PART__NR + 1] = {
	[BD_PART_MEMORY] = 0x1f77b4,
	[BD_PART_IO] = 0xff7f0e,
	[BD_PART_BPF] = 0x9467bd,
	[BD_PART_BASE] = 0x8c564b,
	[BD_PART_WALK] = 0x2ca02c,
	[BD_PART_WAIT] = 0xd62728,
	[BD_PART_CPU_WAIT] = 0xe377c2,
	[BD_PART_OFF] = 0x7f7f7f,
	[BD_PART_REST] = 0xbcbd22,
	[BD_PART__NR] = 0x17becf,
};

/* A breakdown's segment j of bar s: NAN when not timed (or derived). */
static double bd_value(const struct series *s, size_t j)
{
	return j < s->nr_points ? s->y[j] : NAN;
}

/* The stack of a bar: its segments' sum, NANs left out: the mean read. */
static double bd_stack(const struct series *s, bool positive_only)
{
	double sum = 0, v;
	size_t j;

	for (j = 0; j < s->nr_points; j++) {
		v = s->y[j];
		if (!isnan(v) && (v > 0 || !positive_only))
			sum += v;
	}
	return sum;
}

/* Is segment j timed (or derived) on some bar? */
static bool bd_drawn(const struct plot *ctx, size_t j)
{
	size_t i;

	for (i = 0; i < ctx->nr_series; i++)
		if (!isnan(bd_value(&ctx->series[i], j)))
			return true;
	return false;
}

/*
 * The parts left out of a stack, comma-separated in buf (their fixed
 * names), entry/exit aside: of bar i those drawn on other bars, or with
 * i == nr_series those drawn on none.
 */
static void bd_missing(const struct plot *ctx, size_t i, char *buf,
		       size_t len)
{
	bool missing;
	size_t j, n = 0;

	buf[0] = '\0';
	for (j = 0; j < ctx->nr_segs; j++) {
		missing = i < ctx->nr_series ?
			  isnan(bd_value(&ctx->series[i], j)) &&
			  bd_drawn(ctx, j) : !bd_drawn(ctx, j);
		if (missing && strcmp(ctx->segs[j], PLOT_BD_ENTRY) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      ctx->segs[j]);
	}
}

/* Is bar i the first of its input's? */
static bool bd_input_first(const struct plot *ctx, size_t i)
{
	const struct series *a = &ctx->series[i], *b = a - 1;

	return !i || a->input_len != b->input_len ||
	       memcmp(a->name, b->name, a->input_len);
}

/* Start a line of a label: a line break before all but the first. */
static void bd_line(FILE *f, bool *started)
{
	if (*started)
		fputc('\n', f);
	*started = true;
}

/*
 * The x label says what the stacks leave out: the parts no bar has; per
 * input, the parts it lacks that others have (a kernel times a part for
 * all its files alike or for none); the bars without entry/exit; and
 * why entry/exit goes below 0. -ENOMEM.
 */
static int bd_xlabel(const struct plot *ctx, FILE *gp, bool below)
{
	static const char no_entry[] =
		PLOT_BD_ENTRY " not derived (the reads were not paired)";
	char parts[256], *text = NULL;
	size_t len = 0, i, e, n;
	bool started = false;
	FILE *f;
	int ret;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	bd_missing(ctx, ctx->nr_series, parts, sizeof(parts));
	if (parts[0]) {
		bd_line(f, &started);
		fprintf(f, "not timed (each in the part around it): %s",
			parts);
	}
	for (i = 0; i < ctx->nr_series; i++) {
		bd_missing(ctx, i, parts, sizeof(parts));
		if (!parts[0] || !bd_input_first(ctx, i))
			continue;
		bd_line(f, &started);
		fputs("not timed on ", f);
		fwrite(ctx->series[i].name, 1, ctx->series[i].input_len, f);
		fprintf(f, ": %s", parts);
	}
	for (e = 0; e < ctx->nr_segs; e++)
		if (!strcmp(ctx->segs[e], PLOT_BD_ENTRY))
			break;
	if (e < ctx->nr_segs && !bd_drawn(ctx, e)) {
		bd_line(f, &started);
		fputs(no_entry, f);
	}
	for (i = 0, n = 0; e < ctx->nr_segs && bd_drawn(ctx, e) &&
	     i < ctx->nr_series; i++) {
		if (!isnan(bd_value(&ctx->series[i], e)))
			continue;
		if (!n++) {
			bd_line(f, &started);
			fprintf(f, "%s: ", no_entry);
		} else {
			fputs(", ", f);
		}
		fputs(ctx->series[i].name, f);
	}
	if (below) {
		bd_line(f, &started);
		fputs(PLOT_BD_ENTRY " below 0: the kernel timed more of the reads than the reader",
		      f);
	}
	ret = ferror(f) ? -ENOMEM : 0;
	if (fclose(f))
		ret = -ENOMEM;
	if (!ret && started)
		ret = set_text(gp, "xlabel", "%s", text);
	free(text);
	return ret;
}

/*
 * breakdown: a bar per input's stat file, stacked by part: each part's
 * mean time per read (plot-load.c), or with --normalize its share of the
 * bar's stack, the mean read. A part not timed on the bar's kernel is
 * nan in the .dat and named under the axis, never drawn as 0;
 * entry/exit, signed, goes below the axis.
 */
static int write_breakdown(const struct plot *ctx, FILE *dat, FILE *gp,
			   char *err, size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	struct display_unit du = { 1, "%" };
	bool below = false;
	double max = 0, v, stack;
	size_t i, j;
	int ret, part;

	for (j = 0; j < ctx->nr_segs && !bd_drawn(ctx, j); j++)
		;
	if (j == ctx->nr_segs) {
		errbuf_set(err, errlen, "%s: no part of its reads was timed: nothing to stack",
			   ctx->series[0].name);
		return -EINVAL;
	}
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		max = fmax(max, bd_stack(s, true));
		for (j = 0; j < s->nr_points; j++)
			below |= s->y[j] < 0;
	}
	if (!p->normalize)
		du = pick_unit("ns", max);
	fputs("# rstat-analyze plot --kind breakdown: one row per bar (an input's stat file, the xtics of the .gp); columns: index, then each part's ",
	      dat);
	if (p->normalize)
		fputs("share of the mean read (%)", dat);
	else
		fprintf(dat, "mean time per read (%s)", du.label);
	fputs(":", dat);
	for (j = 0; j < ctx->nr_segs; j++) {
		fputc(' ', dat);
		gnuplot__comment_text(dat, ctx->segs[j]);
	}
	fputs("; a row's parts add up to its mean read (with entry/exit, the reader's); nan: not timed on that kernel (entry/exit: not derived)\n",
	      dat);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		stack = bd_stack(s, false);
		fprintf(dat, "%zu", i);
		for (j = 0; j < ctx->nr_segs; j++) {
			v = bd_value(s, j);
			if (p->normalize)
				v = stack > 0 ? v / stack * 100 : NAN;
			else
				v /= du.div;
			if (isnan(v))
				fputs(" nan", dat);
			else
				fprintf(dat, " %.10g", v);
		}
		fputc('\n', dat);
	}
	/* Past three bars, their names run into each other at -20. */
	stacked_bars(ctx, gp, below, ctx->nr_series > 3 ? -45 : -20);
	/* The key top down as the stacks are, top down. */
	fputs("set key invert\n", gp);
	ret = bd_xlabel(ctx, gp, below);
	if (!ret && p->normalize)
		fputs("set ylabel 'share of the mean read (%)'\n", gp);
	else if (!ret)
		ret = set_text(gp, "ylabel", "mean time per read (%s)",
			       du.label);
	if (ret)
		return ret;
	fputs("plot ", gp);
	for (i = 0, j = 0; j < ctx->nr_segs; j++) {
		if (!bd_drawn(ctx, j))
			continue;
		if (i++)
			fputs(", \\\n     ", gp);
		part = breakdown_part_of(ctx->segs[j]);
		if (part < 0)
			part = BD_PART__NR;	/* entry/exit */
		fprintf(gp, GNUPLOT_DATA " using %zu lc rgb 0x%06x title ",
			j + 2, bd_colour[part]);
		if (part == BD_PART__NR)
			fputs("'" PLOT_BD_ENTRY " (derived)'", gp);
		else
			gnuplot__string(gp, ctx->segs[j]);
	}
	fputc('\n', gp);
	return 0;
}

static int write_timeline(const struct plot *ctx, FILE *dat, FILE *gp)
{
	bool positive = true;
	double max = 0, min = INFINITY;
	size_t i, j;
	int ret;

	fputs("# rstat-analyze plot --kind timeline: one block per recording (gnuplot index 0, 1, ...); columns: lock time since the recording's first sample (s), hold time (us)\n",
	      dat);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		fprintf(dat, "%s# series %zu\n", i ? "\n\n" : "", i);
		for (j = 0; j < s->nr_points; j++) {
			fprintf(dat, "%.10g %.10g\n", s->x[j], s->y[j]);
			positive &= s->y[j] > 0;
			max = fmax(max, s->y[j]);
			min = fmin(min, s->y[j]);
		}
	}
	fputs("set grid\n"
	      "set key top right\n", gp);
	/*
	 * These holds were paired from the recording's own lock records:
	 * each contains the cost of writing the first record, which the
	 * shortest hold bounds (report states the same under its table).
	 */
	if (isfinite(min))
		ret = set_text(gp, "xlabel", "time since the recording's first sample (s)\nholds as recorded: each includes the recorder's cost, at most the shortest hold (%.3g us)",
			       min);
	else
		ret = set_text(gp, "xlabel", "time since the recording's first sample (s)");
	if (ret)
		return ret;
	/*
	 * Holds span decades: most take microseconds, and one of 14 ms on
	 * a linear axis flattens all the others into a line at zero. A log
	 * axis shows both; it needs no hold of 0 (below the clock's tick).
	 */
	if (positive && max > 0) {
		fputs("set logscale y\n"
		      "set ylabel 'lock hold time (us, log scale)'\n", gp);
	} else {
		fputs("set ylabel 'lock hold time (us)'\n"
		      "set yrange [0:*]\n", gp);
	}
	plot_blocks(ctx, gp, "with points pt 7 ps 0.6");
	return 0;
}


static int write_kind(struct plot *pl, FILE *dat, FILE *gp, char *err,
		      size_t errlen)
{
	switch (pl->o.kind) {
	case PLOT_HIST:
		return write_hist(pl, dat, gp, err, errlen);
	case PLOT_CDF:
		return write_cdf(pl, dat, gp, err, errlen);
	case PLOT_BARS:
		return write_bars(pl, dat, gp);
	case PLOT_TIMELINE:
		return write_timeline(pl, dat, gp);
	case PLOT_BREAKDOWN:
		return write_breakdown(pl, dat, gp, err, errlen);
	}
	return -EINVAL;
}

/* Close a memory stream: -ENOMEM when any write to it failed. */
static int close_mem(FILE *f, int ret)
{
	bool bad = ferror(f);

	if (fclose(f) || bad)
		return ret ? ret : -ENOMEM;
	return ret;
}

int plot__render(struct plot *pl, const struct plot_image *img,
		 struct plot_text *out, char *err, size_t errlen)
{
	FILE *dat, *gp, *head = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	dat = open_memstream(&out->data, &out->data_len);
	gp = open_memstream(&out->tail, &out->tail_len);
	if (gp)
		fputs(GNUPLOT_DATA_END, gp);
	if (!dat || !gp) {
		ret = -ENOMEM;
		goto close;
	}
	ret = write_kind(pl, dat, gp, err, errlen);
close:
	if (dat)
		ret = close_mem(dat, ret);
	if (gp)
		ret = close_mem(gp, ret);
	if (!ret && gnuplot__datablock_check(out->data, out->data_len)) {
		errbuf_set(err, errlen, "%s: a data line could end gnuplot's datablock",
			   img->path);
		ret = -EINVAL;
	}
	if (!ret) {
		head = open_memstream(&out->head, &out->head_len);
		ret = head ? 0 : -ENOMEM;
	}
	if (!ret) {
		fputs("# Written by rstat-analyze plot: restyle and rerun with\n"
		      "# gnuplot FILE.gp (it holds its data, in " GNUPLOT_DATA
		      "). Text from the\n"
		      "# inputs is only in single-quoted strings, which gnuplot\n"
		      "# takes as they are.\n", head);
		gnuplot__preamble(head, img->term, img->width, img->height,
				  img->path, img->title);
		fputs(GNUPLOT_DATA_BEGIN, head);
		ret = close_mem(head, 0);
	}
	if (ret)
		plot_text__release(out);
	return ret;
}

void plot_text__release(struct plot_text *t)
{
	free(t->head);
	free(t->data);
	free(t->tail);
	memset(t, 0, sizeof(*t));
}
