// SPDX-License-Identifier: GPL-2.0
/*
 * plot's inputs read into series (include/plot.h): bench results, their
 * breakdowns and report --json profiles here, recordings in
 * plot-timeline.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "breakdown.h"
#include "json-input.h"
#include "plot-int.h"
#include "profile.h"
#include "results-breakdown.h"
#include "util.h"

/* -EINVAL for a row that is no log2 bucket (profile__hist_row_index()). */
static int add_buckets(struct series *s, const struct hist_bucket *b,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int idx = profile__hist_row_index(b[i].low, b[i].high);

		if (idx < 0)
			return -EINVAL;
		s->buckets[idx] += b[i].count;
	}
	return 0;
}

static int add_samples(struct series *s, const uint64_t *v, size_t n)
{
	uint64_t *ns;

	if (!n)
		return 0;
	ns = realloc(s->samples, (s->nr_samples + n) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memcpy(ns + s->nr_samples, v, n * sizeof(*ns));
	s->samples = ns;
	s->nr_samples += n;
	return 0;
}

/* The index of a bar segment by label, added when new; -ENOMEM. */
static int seg_index(struct plot *ctx, const char *label)
{
	size_t i;

	for (i = 0; i < ctx->nr_segs; i++)
		if (!strcmp(ctx->segs[i], label))
			return i;
	if (grow_array((void **)&ctx->segs, &ctx->cap_segs, ctx->nr_segs + 1,
		       sizeof(*ctx->segs)))
		return -ENOMEM;
	ctx->segs[ctx->nr_segs] = strdup(label);
	if (!ctx->segs[ctx->nr_segs])
		return -ENOMEM;
	return ctx->nr_segs++;
}

static int bar_set(struct plot *ctx, struct series *s, const char *label,
		   double value)
{
	int idx = seg_index(ctx, label);
	size_t i;

	if (idx < 0)
		return idx;
	if ((size_t)idx >= s->nr_points) {
		double *ny = realloc(s->y, (idx + 1) * sizeof(*ny));

		if (!ny)
			return -ENOMEM;
		for (i = s->nr_points; i <= (size_t)idx; i++)
			ny[i] = 0;
		s->y = ny;
		s->nr_points = idx + 1;
	}
	s->y[idx] += value;
	return 0;
}

static int set_bar_unit(struct plot *ctx, const char *input,
			const char *unit, char *err, size_t errlen)
{
	if (!ctx->bar_unit) {
		ctx->bar_unit = strdup(unit);
		return ctx->bar_unit ? 0 : -ENOMEM;
	}
	if (strcmp(ctx->bar_unit, unit)) {
		errbuf_set(err, errlen, "%s: bars in %s next to bars in %s: plot inputs of one kind (or pick one metric with --metric)",
			 input, unit, ctx->bar_unit);
		return -EINVAL;
	}
	return 0;
}

static bool metric_wanted(const struct plot_opts *p, const char *name,
			  const char *qual)
{
	if (!p->metric)
		return true;
	if (strcmp(p->metric, name))
		return false;
	return !p->metric_qual || (qual && !strcmp(p->metric_qual, qual));
}

/*
 * A name --metric gives whole, the colon being part of it: a report's
 * event, a stat file of a breakdown.
 */
static bool whole_name_wanted(const struct plot_opts *p, const char *name)
{
	size_t n = strlen(p->metric);

	if (!p->metric_qual)
		return !strcmp(name, p->metric);
	return !strncmp(name, p->metric, n) && name[n] == ':' &&
	       !strcmp(name + n + 1, p->metric_qual);
}

static int metric_label(char *buf, size_t len, const struct bench_metric *m)
{
	return snprintf(buf, len, "%s%s%s", m->name, m->file ? " " : "",
			m->file ? m->file : "");
}

/*
 * breakdown: a bar per stat file decomposed (or the one --metric names),
 * stacked by each part's mean time per read (its time summed over the
 * reads, over the reads) so that the parts add up to the mean read: the
 * kernel's, and with entry/exit (derived, signed) the reader's. A part
 * the kernel did not time (its time is in the part around it), and
 * entry/exit when the reads could not be paired, is NAN, not 0.
 */
static int load_breakdown(struct plot *ctx, const char *input,
			  const struct bench_breakdown *bd, char *err,
			  size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	size_t found = 0;
	unsigned int i;
	int part;

	if (!bd) {
		errbuf_set(err, errlen, "%s: no \"breakdown\": run bench stat-read or many-cgroups with --breakdown (or --record) for the reads decomposed",
			   input);
		return -EINVAL;
	}
	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];
		struct series *s;
		double mean;

		if (p->metric && !whole_name_wanted(p, f->file))
			continue;
		if (!f->reads) {
			errbuf_set(err, errlen, "%s: the breakdown of %s has no reads",
				   input, f->file);
			return -EINVAL;
		}
		s = plot__series_add(ctx, input, f->file, "ns");
		if (!s)
			return -ENOMEM;
		found++;
		for (part = 0; part < BD_PART__NR; part++) {
			mean = bd->untimed[part][0] ? NAN :
			       (double)f->part[part].sum_ns / f->reads;
			if (bar_set(ctx, s, breakdown_part_name(part), mean))
				return -ENOMEM;
		}
		mean = f->paired ? (double)f->entry.sum / f->reads : NAN;
		if (bar_set(ctx, s, PLOT_BD_ENTRY, mean))
			return -ENOMEM;
	}
	if (found)
		return 0;
	if (p->metric)
		errbuf_set(err, errlen, "%s: no breakdown of '%s%s%s'", input,
			   p->metric, p->metric_qual ? ":" : "",
			   p->metric_qual ? p->metric_qual : "");
	else
		errbuf_set(err, errlen, "%s: its breakdown decomposed no file",
			   input);
	return -EINVAL;
}

/*
 * A bench results file: each distribution (name, file), summed over the
 * repetitions; or, for bars, each metric's mean over them.
 */
static int load_bench(struct plot *ctx, const char *input,
		      const struct json_input *ji, char *err, size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	struct bench_results *r;
	struct series *bar = NULL;
	char label[256];
	size_t rep, i, found = 0;
	bool has_hist = false;
	int ret;

	ret = bench_results__read_json(&r, &ji->doc, ji->path, err, errlen);
	if (ret)
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	if (p->kind == PLOT_BREAKDOWN) {
		ret = load_breakdown(ctx, input, bench_results__breakdown(r),
				     err, errlen);
		goto out;
	}
	if (p->kind == PLOT_BARS) {
		bar = plot__series_add(ctx, input, NULL, NULL);
		if (!bar)
			goto nomem;
	}
	for (i = 0; i < bench_results__nr_metrics(r, 0); i++)
		has_hist |= bench_results__metric(r, 0, i)->is_hist;
	/* The metrics of the first repetition name the series. */
	for (i = 0; i < bench_results__nr_metrics(r, 0); i++) {
		const struct bench_metric *m0 = bench_results__metric(r, 0, i);
		struct series *s = NULL;
		double sum = 0;
		size_t nr = 0;

		if (!metric_wanted(p, m0->name, m0->file))
			continue;
		/*
		 * Bars of single figures when asked for by name, or when the
		 * run has nothing else (fault: faults/s; pipe: round trips).
		 */
		if (!m0->is_hist &&
		    (p->kind != PLOT_BARS || (!p->metric && has_hist)))
			continue;
		found++;
		metric_label(label, sizeof(label), m0);
		if (bar) {
			ret = set_bar_unit(ctx, input, m0->unit, err, errlen);
			if (ret)
				goto out;
		} else {
			s = plot__series_add(ctx, input, label, m0->unit);
			if (!s)
				goto nomem;
		}
		for (rep = 0; rep < bench_results__nr_reps(r); rep++) {
			const struct bench_metric *m =
				bench_results__metric_find(r, rep, m0->name,
							   m0->file);

			if (!m || m->is_hist != m0->is_hist)
				continue;
			if (bar) {
				sum += m->is_hist ? m->mean : m->value;
				nr++;
				continue;
			}
			if (add_buckets(s, m->buckets, m->nr_buckets))
				goto bad_hist;
			/* The samples of each repetition, in order. */
			if (add_samples(s, m->samples, m->nr_samples))
				goto nomem;
		}
		if (bar && nr && bar_set(ctx, bar, label, sum / nr))
			goto nomem;
	}
	if (!found) {
		if (p->metric)
			errbuf_set(err, errlen, "%s: no metric '%s%s%s' (a distribution, or for bars any metric)",
				 input, p->metric, p->metric_qual ? ":" : "",
				 p->metric_qual ? p->metric_qual : "");
		else
			errbuf_set(err, errlen, "%s: no distribution metrics to plot",
				 input);
		ret = -EINVAL;
	}
	goto out;
bad_hist:
	errbuf_set(err, errlen, "%s: a histogram row that is no log2 bucket",
		   input);
	ret = -EINVAL;
	goto out;
nomem:
	ret = -ENOMEM;
out:
	bench_results__delete(r);
	return ret;
}


/*
 * report --json bars: the flush categories' shares of the flush samples
 * (of all samples they are slivers beside "other"); without any flush
 * sample, the shares of all samples. One event's shares per bar: the
 * asked or the first.
 */
static int load_profile_bars(struct plot *ctx, const char *input,
			     const struct profile *prof, char *err,
			     size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	const char *first_event = NULL;
	size_t i, j, found = 0;
	struct series *bar;
	int ret;

	if (prof->attribution_sec != PROFILE_ARRAY) {
		errbuf_set(err, errlen, "%s: no \"attribution\" array: not report --json output",
			   input);
		return -EINVAL;
	}
	ret = set_bar_unit(ctx, input, "%", err, errlen);
	if (ret)
		return ret;
	bar = plot__series_add(ctx, input, NULL, NULL);
	if (!bar)
		return -ENOMEM;
	for (j = 0; j < 2 && !found; j++) {
		for (i = 0; i < prof->nr_attribution; i++) {
			struct profile_share row, *a = &row;
			const struct profile_num *share = j ? &a->share :
							  &a->flush_share;

			profile__share(prof->attribution, i, PROFILE_CATEGORY,
				       &row);
			if (!j && !share->ok)
				continue;
			if (!a->event || !a->name || !share->ok) {
				errbuf_set(err, errlen, "%s: attribution row %zu lacks event, category or share",
					   input, i);
				return -EINVAL;
			}
			if (p->metric ? !whole_name_wanted(p, a->event) :
			    (first_event && strcmp(a->event, first_event)))
				continue;
			first_event = a->event;
			found++;
			if (bar_set(ctx, bar, a->name, share->num * 100))
				return -ENOMEM;
		}
	}
	if (found)
		return 0;
	if (p->metric)
		errbuf_set(err, errlen, "%s: no attribution for event '%s%s%s'",
			   input, p->metric, p->metric_qual ? ":" : "",
			   p->metric_qual ? p->metric_qual : "");
	else
		errbuf_set(err, errlen, "%s: empty attribution", input);
	return -EINVAL;
}

/* report --json hist and cdf: the spans' log2 rows. */
static int load_profile_spans(struct plot *ctx, const char *input,
			      const struct profile *prof, char *err,
			      size_t errlen)
{
	const struct plot_opts *p = &ctx->o;
	size_t i, j, found = 0;

	if (prof->spans_sec != PROFILE_ARRAY) {
		errbuf_set(err, errlen, "%s: no \"spans\" array: not report --json output",
			   input);
		return -EINVAL;
	}
	for (i = 0; i < prof->nr_spans; i++) {
		const struct profile_span *sp = &prof->spans[i];
		const char *sub = sp->subsystem;
		char what[256];
		struct series *s;

		if (!sp->name || !sp->has_hist) {
			errbuf_set(err, errlen, "%s: span %zu lacks a name or hist",
				   input, i);
			return -EINVAL;
		}
		if (!metric_wanted(p, sp->name, sub))
			continue;
		snprintf(what, sizeof(what), "%s%s%s", sp->name,
			 sub ? " " : "", sub ? sub : "");
		s = plot__series_add(ctx, input, what, "ns");
		if (!s)
			return -ENOMEM;
		found++;
		for (j = 0; j < sp->nr_hist; j++) {
			const struct profile_hist_row *row = &sp->hist[j];
			struct hist_bucket b;

			b.low = row->low.u;
			b.high = row->high.u;
			b.count = row->count.u;
			if (!row->low.exact || !row->high.exact ||
			    !row->count.exact || add_buckets(s, &b, 1)) {
				errbuf_set(err, errlen, "%s: span '%s': hist row %zu is no log2 bucket {low, high, count}",
					   input, what, j);
				return -EINVAL;
			}
		}
	}
	if (found)
		return 0;
	if (p->metric)
		errbuf_set(err, errlen, "%s: no span '%s%s%s'", input, p->metric,
			   p->metric_qual ? ":" : "",
			   p->metric_qual ? p->metric_qual : "");
	else
		errbuf_set(err, errlen, "%s: no spans (record the rstat tracepoints, or give --span to report)",
			   input);
	return -EINVAL;
}

static int load_profile(struct plot *ctx, const char *input, struct jv *doc,
			char *err, size_t errlen)
{
	struct profile *prof;
	int ret;

	ret = profile__from_json(&prof, doc);
	if (ret)
		return ret;
	if (ctx->o.kind == PLOT_BARS)
		ret = load_profile_bars(ctx, input, prof, err, errlen);
	else
		ret = load_profile_spans(ctx, input, prof, err, errlen);
	profile__delete(prof);
	return ret;
}

/*
 * The reads of record -p / -- CMD's targets, decomposed: report --json
 * keeps them as bench does ("breakdown", the same reader).
 */
static int load_report_breakdown(struct plot *ctx, const char *input,
				 const struct jv *doc, char *err,
				 size_t errlen)
{
	const struct jv *n = jv__get(doc, "breakdown");
	struct bench_breakdown *bd;
	char why[256];
	int ret;

	if (!n) {
		errbuf_set(err, errlen, "%s: report --json output without a breakdown: record --breakdown -p PID or -- CMD decomposes its targets' reads (or plot bench --breakdown's results)",
			   input);
		return -EINVAL;
	}
	bd = calloc(1, sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	ret = bench_breakdown__read_json(bd, n, why, sizeof(why));
	if (ret)
		errbuf_set(err, errlen, "%s: \"breakdown\": %s", input, why);
	else
		ret = load_breakdown(ctx, input, bd, err, errlen);
	free(bd);
	return ret;
}

/* Add the series of one input read and told apart (json-input.c). */
static int load_input(struct plot *ctx, const char *input,
		      struct json_input *ji, char *err, size_t errlen)
{
	int ret = -EINVAL;

	switch (ji->kind) {
	case JSON_INPUT_RECORDING:
		ret = plot__load_recording(ctx, input, err, errlen);
		break;
	case JSON_INPUT_BENCH:
		ret = load_bench(ctx, input, ji, err, errlen);
		break;
	case JSON_INPUT_PROFILE:
		if (ctx->o.kind != PLOT_BREAKDOWN)
			ret = load_profile(ctx, input, &ji->doc, err, errlen);
		else
			ret = load_report_breakdown(ctx, input, &ji->doc, err,
						    errlen);
		break;
	}
	json_input__release(ji);
	return ret;
}

/*
 * The folder of a multi-kernel bench (DIR/<release>/results.json): each
 * kernel an input of its own, named DIR/<release>, in version order.
 * 1 when input is no such folder.
 */
static int load_kernels(struct plot *ctx, const char *input, char *err,
			size_t errlen)
{
	static const char tail[] = "/results.json";
	const size_t tail_len = sizeof(tail) - 1;
	char **paths;
	size_t n, i, len;
	int ret;

	ret = json_input__kernel_results(input, &paths, &n);
	if (ret) {
		errbuf_set(err, errlen, "%s: %s", input, strerror(-ret));
		return ret;
	}
	if (!n)
		return 1;
	for (i = 0; !ret && i < n; i++) {
		len = strlen(paths[i]);
		/* DIR/<release>: the directory bench -o wrote, read as one. */
		if (len > tail_len && !strcmp(paths[i] + len - tail_len, tail))
			paths[i][len - tail_len] = '\0';
		ret = plot__load(ctx, paths[i], err, errlen);
	}
	json_input__free_paths(paths, n);
	return ret;
}

/*
 * Read and tell apart one input, as compare does (json-input.c): bench
 * results (a file, the directory bench -o wrote, or the folder of a
 * multi-kernel bench), report --json output, or a recording for --kind
 * timeline.
 */
int plot__load(struct plot *ctx, const char *input, char *err, size_t errlen)
{
	struct json_input ji;
	int ret;

	ret = load_kernels(ctx, input, err, errlen);
	if (ret <= 0)
		return ret;

	ret = json_input__load(&ji, input, JSON_INPUT_RECORDINGS, err, errlen);
	if (ret == -ENOMEM)
		return ret;
	if (ctx->o.kind == PLOT_TIMELINE &&
	    (ret == -EINVAL || ret == -EFBIG ||
	     (!ret && ji.kind != JSON_INPUT_RECORDING))) {
		errbuf_set(err, errlen, "%s: not a recording (no PERFILE2 magic): --kind timeline reads perf.data",
			 input);
		json_input__release(&ji);
		return -EINVAL;
	}
	if (ret)
		return ret;
	return load_input(ctx, input, &ji, err, errlen);
}

int plot__load_mem(struct plot *pl, const char *name, const char *buf,
		   size_t len, char *err, size_t errlen)
{
	struct json_input ji;
	int ret;

	if (pl->o.kind == PLOT_TIMELINE) {
		errbuf_set(err, errlen, "%s: not a recording (no PERFILE2 magic): --kind timeline reads perf.data",
			   name);
		return -EINVAL;
	}
	ret = json_input__load_mem(&ji, name, buf, len, err, errlen);
	if (ret)
		return ret;
	return load_input(pl, name, &ji, err, errlen);
}
